//! AWS STS `GetCallerIdentity`.

use std::time::Instant;

use serde::{Deserialize, Serialize};
use wiremock::MockServer;

use crate::endpoint::{EndpointState, exact, ok_fixed};
use crate::flavor::Flavor;
use crate::served::{Route, Served};
use crate::{EndpointOptions, Fault, Latency, MockError, Recorder, Recording, fixtures};

/// Options of an [`StsMock`]; also its builder (`StsMock::builder().account("…").start().await`).
///
/// Scenario shape:
///
/// ```toml
/// [sts]
/// account = "123456789012"
/// [sts.get_caller_identity]
/// latency = { kind = "fixed", ms = 30 }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StsOptions {
    /// `POST /` with `Action=GetCallerIdentity`.
    pub get_caller_identity: EndpointOptions,
    /// `<UserId>`; default `AIDAEXAMPLEUSERID`.
    pub user_id: String,
    /// `<Account>`; default `123456789012`.
    pub account: String,
    /// `<Arn>`; default `arn:aws:iam::<account>:user/mock`.
    pub arn: Option<String>,
}

impl Default for StsOptions {
    fn default() -> Self {
        StsOptions {
            get_caller_identity: EndpointOptions::default(),
            user_id: "AIDAEXAMPLEUSERID".into(),
            account: "123456789012".into(),
            arn: None,
        }
    }
}

impl StsOptions {
    /// Sets the latency of `GetCallerIdentity`.
    pub fn latency(mut self, latency: Latency) -> Self {
        self.get_caller_identity.latency = latency;
        self
    }

    /// Sets the fault of `GetCallerIdentity`.
    pub fn fault(mut self, fault: Fault) -> Self {
        self.get_caller_identity.fault = fault;
        self
    }

    /// Sets the account id.
    pub fn account(mut self, account: impl Into<String>) -> Self {
        self.account = account.into();
        self
    }

    /// Sets the user id.
    pub fn user_id(mut self, user_id: impl Into<String>) -> Self {
        self.user_id = user_id.into();
        self
    }

    /// Sets the ARN.
    pub fn arn(mut self, arn: impl Into<String>) -> Self {
        self.arn = Some(arn.into());
        self
    }

    /// Starts the mock.
    pub async fn start(self) -> Result<StsMock, MockError> {
        StsMock::start_with(self, Instant::now(), 0, "sts").await
    }

    /// The ARN the mock reports.
    pub fn effective_arn(&self) -> String {
        self.arn
            .clone()
            .unwrap_or_else(|| format!("arn:aws:iam::{}:user/mock", self.account))
    }
}

/// AWS STS on 127.0.0.1, answering `GetCallerIdentity` with query-protocol XML.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), mocks::MockError> {
/// use mocks::{Latency, StsMock};
///
/// let sts = StsMock::builder().latency(Latency::fixed_ms(5)).start().await?;
/// let env = sts.aws_env(); // AWS_ENDPOINT_URL_STS=http://127.0.0.1:PORT, fake keys, region
/// assert!(env.iter().any(|(k, v)| *k == "AWS_ENDPOINT_URL_STS" && *v == sts.uri()));
/// sts.get_caller_identity().check_count(0)?;
/// # Ok(()) }
/// ```
pub struct StsMock {
    served: Served,
    identity: Recorder,
}

impl StsMock {
    /// Default options, to be adjusted and then `.start()`ed.
    pub fn builder() -> StsOptions {
        StsOptions::default()
    }

    /// Starts a mock with default options.
    pub async fn start() -> Result<StsMock, MockError> {
        StsOptions::default().start().await
    }

    pub(crate) async fn start_with(
        opts: StsOptions,
        origin: Instant,
        base_seed: u64,
        name: &str,
    ) -> Result<StsMock, MockError> {
        let state = EndpointState::new(
            name,
            &opts.get_caller_identity,
            base_seed,
            origin,
            Flavor::Sts,
        )?;
        let arn = opts.effective_arn();
        let body = fixtures::render(
            fixtures::STS_IDENTITY_XML,
            &[
                ("arn", &arn),
                ("user_id", &opts.user_id),
                ("account", &opts.account),
                ("request_id", fixtures::REQUEST_ID),
            ],
        );
        let identity = state.recorder.clone();
        let served = Served::start(vec![Route {
            method: "POST",
            path: exact("/"),
            body_contains: Some("Action=GetCallerIdentity"),
            state,
            ok: ok_fixed(body.into_bytes(), "text/xml"),
            expect: opts.get_caller_identity.expect,
        }])
        .await?;
        Ok(StsMock { served, identity })
    }

    /// Base URL, `http://127.0.0.1:PORT`.
    pub fn uri(&self) -> String {
        self.served.uri()
    }

    /// The `GetCallerIdentity` request log.
    pub fn get_caller_identity(&self) -> &Recorder {
        &self.identity
    }

    /// Snapshots of every endpoint's log.
    pub fn recordings(&self) -> Vec<Recording> {
        vec![self.identity.recording()]
    }

    /// Environment that points the AWS SDK (and the AWS CLI) at this mock; see [`aws_sts_env`].
    pub fn aws_env(&self) -> Vec<(&'static str, String)> {
        aws_sts_env(&self.uri())
    }

    /// The underlying wiremock server, to mount extra mocks or `verify()` expectations.
    pub fn server(&self) -> &MockServer {
        self.served.server()
    }
}

/// Environment variables that send the AWS SDK's STS calls to `sts_uri` with fake credentials:
/// `AWS_ENDPOINT_URL_STS`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`
/// (`us-east-1`) and `AWS_EC2_METADATA_DISABLED` (no IMDS probes).
pub fn aws_sts_env(sts_uri: &str) -> Vec<(&'static str, String)> {
    vec![
        ("AWS_ENDPOINT_URL_STS", sts_uri.to_owned()),
        ("AWS_ACCESS_KEY_ID", "AKIDMOCKEXAMPLE".to_owned()),
        (
            "AWS_SECRET_ACCESS_KEY",
            "mock/secret/key/EXAMPLEKEY".to_owned(),
        ),
        ("AWS_REGION", "us-east-1".to_owned()),
        ("AWS_EC2_METADATA_DISABLED", "true".to_owned()),
    ]
}
