//! One mocked endpoint: options, shared runtime state, the wiremock responder,
//! and the assembly of a server (wiremock plus, when needed, the reset gate).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use wiremock::{Match, Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::fixtures;
use crate::gate::Gate;
use crate::{Fault, HANG_DELAY, Latency, LatencySampler, MockError, Recorder};

/// Behaviour of one endpoint: how slow it is, how it fails, and what a test expects of it.
///
/// Every field has a default (zero latency, no fault), so scenario files only
/// name what they change:
///
/// ```toml
/// [kube.nodes]
/// latency = { kind = "lognormal", median_ms = 40, sigma = 0.5 }
/// fault = { kind = "fail_first", n = 1, status = 503 }
/// seed = 7
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EndpointOptions {
    /// Delay before each answer (faulty answers included).
    pub latency: Latency,
    /// Failure to inject.
    pub fault: Fault,
    /// Seed of the latency sequence. `None`: derived from the endpoint name
    /// (and the [`MocksSpec::seed`](crate::MocksSpec::seed) in a set), so it is
    /// still repeatable.
    pub seed: Option<u64>,
    /// wiremock-style expectation: mount the endpoint with `.expect(n)`, so
    /// `server().verify().await` (and dropping the server) panics unless exactly
    /// `n` requests matched. Test-only; the harness should use
    /// [`Recorder::check_count`] instead.
    pub expect: Option<u64>,
}

impl EndpointOptions {
    /// Sets the latency model.
    pub fn latency(mut self, latency: Latency) -> Self {
        self.latency = latency;
        self
    }

    /// Sets the fault.
    pub fn fault(mut self, fault: Fault) -> Self {
        self.fault = fault;
        self
    }

    /// Sets the latency seed.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Sets a wiremock `.expect(n)` on the endpoint.
    pub fn expect(mut self, n: u64) -> Self {
        self.expect = Some(n);
        self
    }

    pub(crate) fn validate(&self, endpoint: &str) -> Result<(), MockError> {
        self.latency.validate(endpoint)?;
        self.fault.validate(endpoint)
    }
}

/// Stable 64-bit FNV-1a, so derived seeds do not change between Rust releases.
pub(crate) fn derive_seed(base: u64, endpoint: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ base;
    for b in endpoint.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Shape of the error bodies an upstream sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// AWS query protocol: `ErrorResponse` XML.
    Sts,
    /// EC2 query protocol: `Response/Errors/Error` XML.
    Ec2,
    /// Kubernetes `Status` JSON.
    Kube,
    /// Google API `{"error": {code, message, status}}` JSON.
    GcpApi,
    /// OAuth 2 token endpoint `{"error", "error_description"}` JSON.
    OAuth,
    /// OCI `{"code", "message"}` JSON.
    Oci,
    /// S3 REST-XML `Error` document.
    S3,
    /// Hugging Face Hub `{"error": "..."}` JSON.
    HfApi,
    /// gRPC: refusals as `grpc-status` 16/7 at HTTP 200 (trailers-only
    /// headers), other statuses as the HTTP error a proxy would send.
    Grpc,
    /// Plain text.
    Text,
}

#[derive(Debug, Clone, Copy)]
enum ErrorKind {
    Status(u16),
    Unauthorized,
    Forbidden,
    Expired,
}

impl Flavor {
    fn error(self, kind: ErrorKind) -> (u16, ResponseTemplate) {
        let status = match (self, kind) {
            (_, ErrorKind::Status(s)) => s,
            // S3 never answers 401: bad keys are 403, an expired session 400.
            (Flavor::S3, ErrorKind::Unauthorized) => 403,
            (Flavor::S3, ErrorKind::Expired) => 400,
            (_, ErrorKind::Unauthorized) => 401,
            (_, ErrorKind::Forbidden) => 403,
            (Flavor::Sts, ErrorKind::Expired) => 403,
            (Flavor::OAuth, ErrorKind::Expired) => 400,
            (_, ErrorKind::Expired) => 401,
        };
        let expired = matches!(kind, ErrorKind::Expired);
        let tpl = ResponseTemplate::new(status);
        let tpl = match self {
            Flavor::Sts => {
                let (code, message) = match (kind, status) {
                    (ErrorKind::Expired, _) => (
                        "ExpiredToken",
                        "The security token included in the request is expired",
                    ),
                    (_, 401) => (
                        "InvalidClientTokenId",
                        "The security token included in the request is invalid.",
                    ),
                    (_, 403) => (
                        "AccessDenied",
                        "User is not authorized to perform this action",
                    ),
                    (_, 429) => ("Throttling", "Rate exceeded"),
                    (_, 503) => ("ServiceUnavailable", "Service is unavailable"),
                    (_, s) if s >= 500 => ("InternalFailure", "Internal failure (mock)"),
                    _ => ("InvalidRequest", "Invalid request (mock)"),
                };
                let kind = if status >= 500 { "Receiver" } else { "Sender" };
                let body = fixtures::render(
                    fixtures::STS_ERROR_XML,
                    &[
                        ("type", kind),
                        ("code", code),
                        ("message", message),
                        ("request_id", fixtures::REQUEST_ID),
                    ],
                );
                tpl.set_body_raw(body, "text/xml")
            }
            Flavor::Ec2 => {
                let (code, message) = match (kind, status) {
                    (ErrorKind::Expired, _) => ("RequestExpired", "Request has expired."),
                    (_, 401) => (
                        "AuthFailure",
                        "AWS was not able to validate the provided access credentials",
                    ),
                    (_, 403) => (
                        "UnauthorizedOperation",
                        "You are not authorized to perform this operation.",
                    ),
                    (_, 429) => ("RequestLimitExceeded", "Request limit exceeded."),
                    (_, 503) => ("Unavailable", "The server is overloaded."),
                    (_, s) if s >= 500 => ("InternalError", "An internal error has occurred."),
                    _ => ("InvalidParameterValue", "Invalid request (mock)"),
                };
                tpl.set_body_raw(ec2_error_xml(code, message), "text/xml")
            }
            Flavor::Kube => {
                let (reason, message) = match status {
                    401 if expired => ("Unauthorized", "Unauthorized: token has expired"),
                    401 => ("Unauthorized", "Unauthorized"),
                    403 => ("Forbidden", "forbidden: User \"mock\" cannot list resource"),
                    404 => (
                        "NotFound",
                        "the server could not find the requested resource",
                    ),
                    429 => (
                        "TooManyRequests",
                        "the server has received too many requests",
                    ),
                    503 => (
                        "ServiceUnavailable",
                        "the server is currently unable to handle the request",
                    ),
                    s if s >= 500 => (
                        "InternalError",
                        "an error on the server has prevented the request from succeeding",
                    ),
                    _ => ("BadRequest", "bad request (mock)"),
                };
                let body = serde_json::json!({
                    "kind": "Status", "apiVersion": "v1", "metadata": {},
                    "status": "Failure", "message": message, "reason": reason, "code": status,
                });
                tpl.set_body_raw(body.to_string(), "application/json")
            }
            Flavor::GcpApi => {
                let (st, message) = match status {
                    401 if expired => (
                        "UNAUTHENTICATED",
                        "Request had invalid authentication credentials. The access token has expired.",
                    ),
                    401 => (
                        "UNAUTHENTICATED",
                        "Request had invalid authentication credentials.",
                    ),
                    403 => (
                        "PERMISSION_DENIED",
                        "Required 'compute.reservations.list' permission",
                    ),
                    404 => ("NOT_FOUND", "The resource was not found"),
                    429 => ("RESOURCE_EXHAUSTED", "Quota exceeded"),
                    503 => ("UNAVAILABLE", "The service is currently unavailable."),
                    s if s >= 500 => ("INTERNAL", "Internal error (mock)"),
                    _ => ("INVALID_ARGUMENT", "Invalid request (mock)"),
                };
                let body = serde_json::json!({
                    "error": { "code": status, "message": message, "status": st,
                               "errors": [{ "message": message, "domain": "global", "reason": st }] }
                });
                tpl.set_body_raw(body.to_string(), "application/json")
            }
            Flavor::OAuth => {
                let (err, description) = match (kind, status) {
                    (ErrorKind::Expired, _) => {
                        ("invalid_grant", "Token has been expired or revoked.")
                    }
                    (_, 401) => ("invalid_client", "The OAuth client was not found."),
                    (_, 403) => ("access_denied", "Access denied (mock)"),
                    (_, s) if s >= 500 => ("internal_failure", "Internal failure (mock)"),
                    _ => ("invalid_request", "Invalid request (mock)"),
                };
                let body = serde_json::json!({ "error": err, "error_description": description });
                tpl.set_body_raw(body.to_string(), "application/json")
            }
            Flavor::S3 => {
                let (code, message) = match (kind, status) {
                    (ErrorKind::Expired, _) => ("ExpiredToken", "The provided token has expired."),
                    (ErrorKind::Unauthorized, _) => (
                        "InvalidAccessKeyId",
                        "The AWS Access Key Id you provided does not exist in our records.",
                    ),
                    (_, 403) => ("AccessDenied", "Access Denied"),
                    (_, 503) => ("SlowDown", "Please reduce your request rate."),
                    (_, s) if s >= 500 => (
                        "InternalError",
                        "We encountered an internal error. Please try again.",
                    ),
                    _ => ("InvalidRequest", "Invalid request (mock)"),
                };
                tpl.set_body_raw(s3_error_xml(code, message), "application/xml")
            }
            Flavor::HfApi => {
                let message = match status {
                    401 => "Invalid credentials in Authorization header",
                    429 => "Too many requests (mock)",
                    s if s >= 500 => {
                        "Internal Error - We're working hard to fix this as soon as possible!"
                    }
                    _ => "Bad request (mock)",
                };
                let body = serde_json::json!({ "error": message });
                tpl.set_body_raw(body.to_string(), "application/json")
            }
            Flavor::Oci => {
                let (code, message) = match status {
                    401 => (
                        "NotAuthenticated",
                        "The required information to complete authentication was not provided or was incorrect.",
                    ),
                    403 | 404 => (
                        "NotAuthorizedOrNotFound",
                        "Authorization failed or requested resource not found.",
                    ),
                    429 => ("TooManyRequests", "Too many requests for the user"),
                    503 => ("ServiceUnavailable", "Service is unavailable (mock)"),
                    s if s >= 500 => ("InternalServerError", "Internal error (mock)"),
                    _ => ("InvalidParameter", "Invalid request (mock)"),
                };
                let body = serde_json::json!({ "code": code, "message": message });
                tpl.set_body_raw(body.to_string(), "application/json")
            }
            Flavor::Grpc => {
                let refused = match kind {
                    ErrorKind::Unauthorized => Some((16, "Unauthenticated (mock)")),
                    ErrorKind::Expired => Some((16, "token expired (mock)")),
                    ErrorKind::Forbidden => Some((7, "Permission denied (mock)")),
                    ErrorKind::Status(_) => None,
                };
                match refused {
                    Some((code, message)) => {
                        return (
                            200,
                            ResponseTemplate::new(200)
                                .insert_header("content-type", "application/grpc")
                                .insert_header("grpc-status", code.to_string().as_str())
                                .insert_header(
                                    "grpc-message",
                                    message.replace(' ', "%20").as_str(),
                                ),
                        );
                    }
                    None => tpl.set_body_raw(format!("mock error {status}\n"), "text/plain"),
                }
            }
            Flavor::Text => tpl.set_body_raw(format!("mock error {status}\n"), "text/plain"),
        };
        (status, tpl)
    }

    fn malformed(self) -> ResponseTemplate {
        let tpl = ResponseTemplate::new(200);
        match self {
            Flavor::Ec2 => tpl.set_body_raw(
                "<DescribeAvailabilityZonesResponse xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\">\n  <availabilityZoneInfo>\n    <item><zoneName>us-e",
                "text/xml",
            ),
            Flavor::S3 => tpl.set_body_raw(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListAllMyBucketsResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Buckets><Bucket><Na",
                "application/xml",
            ),
            Flavor::Sts => tpl.set_body_raw(
                "<GetCallerIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">\n  <GetCallerIdentityResult>\n    <Arn>arn:aws:iam::1234",
                "text/xml",
            ),
            // A frame header announcing more bytes than follow.
            Flavor::Grpc => tpl
                .insert_header("grpc-status", "0")
                .set_body_raw(vec![0u8, 0, 0, 1, 0, 10, 3], "application/grpc"),
            Flavor::Kube | Flavor::GcpApi | Flavor::OAuth | Flavor::Oci | Flavor::HfApi => tpl.set_body_raw(
                "{\"kind\": \"List\", \"items\": [{\"metadata\": {\"name\": \"trunc",
                "application/json",
            ),
            Flavor::Text => tpl.set_body_raw(b"name,\"unterminated\n\xff\xfe".to_vec(), "text/csv"),
        }
    }
}

/// EC2's error document.
pub(crate) fn ec2_error_xml(code: &str, message: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Response><Errors><Error><Code>{code}</Code><Message>{message}</Message></Error></Errors><RequestID>{}</RequestID></Response>",
        fixtures::REQUEST_ID
    )
}

/// S3's error document (`fixtures/s3/error.xml`).
pub(crate) fn s3_error_xml(code: &str, message: &str) -> String {
    fixtures::render(
        fixtures::S3_ERROR_XML,
        &[
            ("code", code),
            ("message", message),
            ("request_id", fixtures::REQUEST_ID),
        ],
    )
}

/// Runtime state of one endpoint, shared by its wiremock responder and the reset gate.
pub(crate) struct EndpointState {
    pub(crate) recorder: Recorder,
    pub(crate) fault: Fault,
    sampler: Mutex<LatencySampler>,
    hits: AtomicU64,
    pub(crate) flavor: Flavor,
}

impl EndpointState {
    pub(crate) fn new(
        name: &str,
        opts: &EndpointOptions,
        base_seed: u64,
        origin: Instant,
        flavor: Flavor,
    ) -> Result<Arc<Self>, MockError> {
        opts.validate(name)?;
        let seed = opts.seed.unwrap_or_else(|| derive_seed(base_seed, name));
        Ok(Arc::new(EndpointState {
            recorder: Recorder::new(name, origin),
            fault: opts.fault,
            sampler: Mutex::new(opts.latency.sampler(seed)),
            hits: AtomicU64::new(0),
            flavor,
        }))
    }

    /// The index of this request at the endpoint and its delay.
    pub(crate) fn next(&self) -> (u64, Duration) {
        let n = self.hits.fetch_add(1, Ordering::Relaxed);
        let delay = self
            .sampler
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .next_delay();
        (n, delay)
    }
}

/// Builds the success response for a request: `(status, template)`.
pub(crate) type OkFn = Arc<dyn Fn(&Request) -> (u16, ResponseTemplate) + Send + Sync>;

/// Path predicate shared by the wiremock matcher and the reset gate.
pub(crate) type PathPred = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// The wiremock [`Respond`] that applies latency, faults and recording.
struct Responder {
    state: Arc<EndpointState>,
    ok: OkFn,
}

impl Respond for Responder {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let (n, delay) = self.state.next();
        let flavor = self.state.flavor;
        let (status, tpl, delay) = match self.state.fault {
            Fault::None => {
                let (s, t) = (self.ok)(request);
                (Some(s), t, delay)
            }
            Fault::Status(s) => {
                let (s, t) = flavor.error(ErrorKind::Status(s));
                (Some(s), t, delay)
            }
            Fault::Unauthorized => {
                let (s, t) = flavor.error(ErrorKind::Unauthorized);
                (Some(s), t, delay)
            }
            Fault::Forbidden => {
                let (s, t) = flavor.error(ErrorKind::Forbidden);
                (Some(s), t, delay)
            }
            Fault::ExpiredToken => {
                let (s, t) = flavor.error(ErrorKind::Expired);
                (Some(s), t, delay)
            }
            Fault::Hang => {
                let (_, t) = (self.ok)(request);
                (None, t, HANG_DELAY)
            }
            Fault::MalformedBody => (Some(200), flavor.malformed(), delay),
            Fault::FailFirst { n: k, status } if n < k => {
                let (s, t) = flavor.error(ErrorKind::Status(status));
                (Some(s), t, delay)
            }
            Fault::FailFirst { .. } => {
                let (s, t) = (self.ok)(request);
                (Some(s), t, delay)
            }
            // The gate answers these before they reach wiremock; this is only a fallback.
            Fault::ConnectionReset
            | Fault::Trickle
            | Fault::EndlessBody
            | Fault::Garbage
            | Fault::HugeBody => {
                let (s, t) = Flavor::Text.error(ErrorKind::Status(502));
                (Some(s), t, delay)
            }
        };
        self.state
            .recorder
            .record(request.method.as_str(), request.url.path(), delay, status);
        if delay.is_zero() {
            tpl
        } else {
            tpl.set_delay(delay)
        }
    }
}

/// One endpoint of a server: how to match it, how to answer it, its state.
pub(crate) struct Route {
    pub(crate) method: &'static str,
    pub(crate) path: PathPred,
    /// Extra body condition (STS: the `Action=`); the reset gate ignores it.
    pub(crate) body_contains: Option<&'static str>,
    pub(crate) state: Arc<EndpointState>,
    pub(crate) ok: OkFn,
    pub(crate) expect: Option<u64>,
}

struct RouteMatch {
    method: &'static str,
    path: PathPred,
    body_contains: Option<&'static str>,
}

impl Match for RouteMatch {
    fn matches(&self, request: &Request) -> bool {
        request.method.as_str() == self.method
            && (self.path)(request.url.path())
            && self.body_contains.is_none_or(|needle| {
                request
                    .body
                    .windows(needle.len())
                    .any(|w| w == needle.as_bytes())
            })
    }
}

/// A running server: wiremock, plus the reset gate in front when an endpoint needs it.
pub(crate) struct Served {
    server: MockServer,
    gate: Option<Gate>,
}

impl Served {
    pub(crate) async fn start(routes: Vec<Route>) -> Result<Self, MockError> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(MockError::Listen)?;
        let server = MockServer::builder().listener(listener).start().await;
        let mut resets = Vec::new();
        for route in routes {
            if route.state.fault.is_raw() {
                resets.push((route.method, route.path.clone(), route.state.clone()));
            }
            let mut mock = Mock::given(RouteMatch {
                method: route.method,
                path: route.path,
                body_contains: route.body_contains,
            })
            .respond_with(Responder {
                state: route.state.clone(),
                ok: route.ok,
            })
            .named(route.state.recorder.endpoint());
            if let Some(n) = route.expect {
                mock = mock.expect(n);
            }
            mock.mount(&server).await;
        }
        let gate = if resets.is_empty() {
            None
        } else {
            Some(Gate::start(*server.address(), resets)?)
        };
        Ok(Served { server, gate })
    }

    pub(crate) fn uri(&self) -> String {
        match &self.gate {
            Some(gate) => format!("http://{}", gate.addr()),
            None => self.server.uri(),
        }
    }

    pub(crate) fn server(&self) -> &MockServer {
        &self.server
    }
}

/// A success template with a raw body and content type.
pub(crate) fn ok_raw(body: impl Into<Vec<u8>>, mime: &str) -> (u16, ResponseTemplate) {
    (
        200,
        ResponseTemplate::new(200).set_body_raw(body.into(), mime),
    )
}

/// An [`OkFn`] that always answers the same body.
pub(crate) fn ok_fixed(body: Vec<u8>, mime: &'static str) -> OkFn {
    Arc::new(move |_| ok_raw(body.clone(), mime))
}

/// A [`PathPred`] for one exact path.
pub(crate) fn exact(path: &'static str) -> PathPred {
    Arc::new(move |p| p == path)
}
