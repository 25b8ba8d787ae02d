//! The Hugging Face Hub's `GET /api/whoami-v2`, what `sky check`'s Hugging
//! Face storage check calls (as `HfApi.whoami` does): a bearer token it
//! knows gets the user, any other token (or none) the Hub's 401.

use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use wiremock::{MockServer, ResponseTemplate};

use crate::endpoint::{EndpointState, OkFn, exact};
use crate::flavor::Flavor;
use crate::served::{Route, Served};
use crate::{EndpointOptions, Fault, Latency, MockError, Recorder, Recording, fixtures};

/// Options of a [`HuggingFaceMock`]; also its builder.
///
/// ```toml
/// [huggingface]
/// token = "hf_mock"
/// whoami = { latency = { kind = "fixed", ms = 20 } }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HuggingFaceOptions {
    /// `GET /api/whoami-v2`.
    pub whoami: EndpointOptions,
    /// The token the Hub accepts. Default `hf_mockTOKENabcdefghijklmnop0123`.
    pub token: String,
    /// The user's `name`. Default `mock-user`; empty makes the answer one
    /// SkyPilot calls "empty".
    pub name: String,
}

impl Default for HuggingFaceOptions {
    fn default() -> Self {
        HuggingFaceOptions {
            whoami: EndpointOptions::default(),
            token: "hf_mockTOKENabcdefghijklmnop0123".into(),
            name: "mock-user".into(),
        }
    }
}

impl HuggingFaceOptions {
    /// Sets the latency of `whoami`.
    pub fn latency(mut self, latency: Latency) -> Self {
        self.whoami.latency = latency;
        self
    }

    /// Sets the fault of `whoami`.
    pub fn fault(mut self, fault: Fault) -> Self {
        self.whoami.fault = fault;
        self
    }

    /// Sets the user name.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Starts the mock.
    pub async fn start(self) -> Result<HuggingFaceMock, MockError> {
        HuggingFaceMock::start_with(self, Instant::now(), 0, "huggingface").await
    }
}

/// The Hugging Face Hub on 127.0.0.1; point `HF_ENDPOINT` at [`HuggingFaceMock::uri`].
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), mocks::MockError> {
/// use mocks::HuggingFaceMock;
///
/// let hub = HuggingFaceMock::start().await?;
/// assert!(hub.env().iter().any(|(k, _)| *k == "HF_ENDPOINT"));
/// hub.whoami().check_count(0)?;
/// # Ok(()) }
/// ```
pub struct HuggingFaceMock {
    served: Served,
    whoami: Recorder,
    token: String,
}

impl HuggingFaceMock {
    /// Default options, to be adjusted and then `.start()`ed.
    pub fn builder() -> HuggingFaceOptions {
        HuggingFaceOptions::default()
    }

    /// Starts a mock with default options.
    pub async fn start() -> Result<HuggingFaceMock, MockError> {
        HuggingFaceOptions::default().start().await
    }

    pub(crate) async fn start_with(
        opts: HuggingFaceOptions,
        origin: Instant,
        base_seed: u64,
        name: &str,
    ) -> Result<HuggingFaceMock, MockError> {
        let state = EndpointState::new(
            &format!("{name}.whoami"),
            &opts.whoami,
            base_seed,
            origin,
            Flavor::HfApi,
        )?;
        let body = fixtures::render(fixtures::HF_WHOAMI_JSON, &[("name", &opts.name)]);
        let expected = format!("Bearer {}", opts.token);
        let ok: OkFn = Arc::new(move |request| {
            let auth = request
                .headers
                .get("authorization")
                .and_then(|v| v.to_str().ok());
            if auth == Some(expected.as_str()) {
                (
                    200,
                    ResponseTemplate::new(200).set_body_raw(body.clone(), "application/json"),
                )
            } else {
                (
                    401,
                    ResponseTemplate::new(401).set_body_raw(
                        serde_json::json!({"error": "Invalid credentials in Authorization header"})
                            .to_string(),
                        "application/json",
                    ),
                )
            }
        });
        let recorder = state.recorder.clone();
        let served = Served::start(vec![Route {
            method: "GET",
            path: exact("/api/whoami-v2"),
            body_contains: None,
            state,
            ok,
            expect: opts.whoami.expect,
        }])
        .await?;
        Ok(HuggingFaceMock {
            served,
            whoami: recorder,
            token: opts.token,
        })
    }

    /// Base URL, `http://127.0.0.1:PORT`.
    pub fn uri(&self) -> String {
        self.served.uri()
    }

    /// The token this Hub accepts.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// `HF_ENDPOINT` pointing at this mock.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![("HF_ENDPOINT", self.uri())]
    }

    /// The `whoami` log.
    pub fn whoami(&self) -> &Recorder {
        &self.whoami
    }

    /// Snapshots of every endpoint's log.
    pub fn recordings(&self) -> Vec<Recording> {
        vec![self.whoami.recording()]
    }

    /// The underlying wiremock server.
    pub fn server(&self) -> &MockServer {
        self.served.server()
    }
}
