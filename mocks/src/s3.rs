//! AWS S3 `ListBuckets` (REST-XML, `GET /`), what `sky check`'s AWS storage
//! check calls. The request must be SigV4-signed for the `s3` service with
//! the payload hash header S3 requires; an unsigned or mis-scoped request
//! gets S3's `AccessDenied` / `SignatureDoesNotMatch`, as the real service
//! would answer it.

use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use wiremock::{MockServer, ResponseTemplate};

use crate::endpoint::{EndpointState, OkFn, exact};
use crate::flavor::{Flavor, s3_error_xml};
use crate::served::{Route, Served};
use crate::{EndpointOptions, Fault, Latency, MockError, Recorder, Recording, fixtures};

/// Options of an [`S3Mock`]; also its builder.
///
/// ```toml
/// [s3]
/// list_buckets = { fault = { kind = "forbidden" } }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct S3Options {
    /// `GET /` (`ListBuckets`).
    pub list_buckets: EndpointOptions,
    /// The bucket listed. Default `mock-bucket`.
    pub bucket: String,
    /// The owner's canonical id. Default: 64 hex digits.
    pub owner_id: String,
}

impl Default for S3Options {
    fn default() -> Self {
        S3Options {
            list_buckets: EndpointOptions::default(),
            bucket: "mock-bucket".into(),
            owner_id: "0123456789abcdef".repeat(4),
        }
    }
}

impl S3Options {
    /// Sets the latency of `ListBuckets`.
    pub fn latency(mut self, latency: Latency) -> Self {
        self.list_buckets.latency = latency;
        self
    }

    /// Sets the fault of `ListBuckets`.
    pub fn fault(mut self, fault: Fault) -> Self {
        self.list_buckets.fault = fault;
        self
    }

    /// Starts the mock.
    pub async fn start(self) -> Result<S3Mock, MockError> {
        S3Mock::start_with(self, Instant::now(), 0, "s3").await
    }
}

/// Why a request is not one S3 would accept, if it is not: SigV4 for the
/// `s3` service, with `x-amz-content-sha256` and `x-amz-date`.
fn signature_problem(request: &wiremock::Request) -> Option<(&'static str, &'static str)> {
    let header = |name: &str| {
        request
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let Some(auth) = header("authorization") else {
        return Some(("AccessDenied", "Access Denied"));
    };
    let scoped = auth.starts_with("AWS4-HMAC-SHA256 ")
        && auth.contains("/s3/aws4_request")
        && auth.contains("SignedHeaders=")
        && auth.contains("Signature=");
    if !scoped || header("x-amz-date").is_none() {
        return Some((
            "SignatureDoesNotMatch",
            "The request signature we calculated does not match the signature you provided.",
        ));
    }
    if header("x-amz-content-sha256").is_none() {
        return Some((
            "InvalidRequest",
            "Missing required header for this request: x-amz-content-sha256",
        ));
    }
    None
}

/// AWS S3 on 127.0.0.1; point `AWS_ENDPOINT_URL_S3` at [`S3Mock::uri`].
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), mocks::MockError> {
/// use mocks::{Fault, S3Mock};
///
/// let s3 = S3Mock::builder().fault(Fault::Forbidden).start().await?;
/// assert!(s3.aws_env().iter().any(|(k, _)| *k == "AWS_ENDPOINT_URL_S3"));
/// s3.list_buckets().check_count(0)?;
/// # Ok(()) }
/// ```
pub struct S3Mock {
    served: Served,
    list_buckets: Recorder,
}

impl S3Mock {
    /// Default options, to be adjusted and then `.start()`ed.
    pub fn builder() -> S3Options {
        S3Options::default()
    }

    /// Starts a mock with default options.
    pub async fn start() -> Result<S3Mock, MockError> {
        S3Options::default().start().await
    }

    pub(crate) async fn start_with(
        opts: S3Options,
        origin: Instant,
        base_seed: u64,
        name: &str,
    ) -> Result<S3Mock, MockError> {
        let state = EndpointState::new(
            &format!("{name}.list_buckets"),
            &opts.list_buckets,
            base_seed,
            origin,
            Flavor::S3,
        )?;
        let body = fixtures::render(
            fixtures::S3_LIST_BUCKETS_XML,
            &[("owner_id", &opts.owner_id), ("bucket", &opts.bucket)],
        );
        let ok: OkFn = Arc::new(move |request| match signature_problem(request) {
            Some((code, message)) => (
                403,
                ResponseTemplate::new(403)
                    .set_body_raw(s3_error_xml(code, message), "application/xml"),
            ),
            None => (
                200,
                ResponseTemplate::new(200).set_body_raw(body.clone(), "application/xml"),
            ),
        });
        let recorder = state.recorder.clone();
        let served = Served::start(vec![Route {
            method: "GET",
            path: exact("/"),
            body_contains: None,
            state,
            ok,
            expect: opts.list_buckets.expect,
        }])
        .await?;
        Ok(S3Mock {
            served,
            list_buckets: recorder,
        })
    }

    /// Base URL, `http://127.0.0.1:PORT`.
    pub fn uri(&self) -> String {
        self.served.uri()
    }

    /// `AWS_ENDPOINT_URL_S3` pointing at this mock.
    pub fn aws_env(&self) -> Vec<(&'static str, String)> {
        vec![("AWS_ENDPOINT_URL_S3", self.uri())]
    }

    /// The `ListBuckets` log.
    pub fn list_buckets(&self) -> &Recorder {
        &self.list_buckets
    }

    /// Snapshots of every endpoint's log.
    pub fn recordings(&self) -> Vec<Recording> {
        vec![self.list_buckets.recording()]
    }

    /// The underlying wiremock server.
    pub fn server(&self) -> &MockServer {
        self.served.server()
    }
}
