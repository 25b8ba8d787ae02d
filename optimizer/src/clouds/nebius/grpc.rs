//! Unary gRPC calls over HTTP/2 (the protocol the Nebius SDK speaks): a
//! `POST /<package.Service>/<Method>` with a length-prefixed message, the
//! status in `grpc-status`/`grpc-message` (trailers, or the headers of a
//! trailers-only answer). Service addresses follow the SDK's conventional
//! resolver (`nebius.base.resolver.Conventional`): `<api_service_name>.<domain>`.

use bytes::Bytes;
use http::{HeaderMap, Method, Request, StatusCode, header};
use http_body_util::Full;

use crate::clouds::http_client::{Failure, HttpClient};

/// One service: its full protobuf name and its `api_service_name`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Service {
    /// `nebius.iam.v1.ProjectService`.
    pub name: &'static str,
    /// The address prefix (`cpl.iam`).
    pub address: &'static str,
}

/// `nebius.iam.v1.ProjectService` (`api_service_name` `cpl.iam`).
pub(crate) const PROJECTS: Service = Service {
    name: "nebius.iam.v1.ProjectService",
    address: "cpl.iam",
};
/// `nebius.compute.v1.PlatformService` (`compute`).
pub(crate) const PLATFORMS: Service = Service {
    name: "nebius.compute.v1.PlatformService",
    address: "compute",
};
/// `nebius.billing.v1.CalculatorService` (`api.calculator.billing-data-plane`).
pub(crate) const CALCULATOR: Service = Service {
    name: "nebius.billing.v1.CalculatorService",
    address: "api.calculator.billing-data-plane",
};
/// `nebius.iam.v1.TokenExchangeService` (`tokens.iam`).
pub(crate) const TOKENS: Service = Service {
    name: "nebius.iam.v1.TokenExchangeService",
    address: "tokens.iam",
};

/// gRPC `UNAUTHENTICATED`.
pub(crate) const UNAUTHENTICATED: u32 = 16;
/// gRPC `PERMISSION_DENIED`.
pub(crate) const PERMISSION_DENIED: u32 = 7;
/// gRPC `INVALID_ARGUMENT`.
pub(crate) const INVALID_ARGUMENT: u32 = 3;

/// Where the services are.
#[derive(Debug, Clone)]
pub(crate) enum Endpoint {
    /// `https://<service address>.<domain>` (the domain may carry a port).
    Domain(String),
    /// Every service at one base URL (a mock, a proxy).
    Fixed(String),
}

impl Endpoint {
    /// The URL of `service`'s `method`.
    pub(crate) fn url(&self, service: Service, method: &str) -> String {
        match self {
            Endpoint::Domain(domain) => {
                format!(
                    "https://{}.{domain}/{}/{method}",
                    service.address, service.name
                )
            }
            Endpoint::Fixed(base) => {
                format!("{}/{}/{method}", base.trim_end_matches('/'), service.name)
            }
        }
    }

    /// Whether TLS is in play (a plain `http://` base is h2c).
    pub(crate) fn tls(&self) -> bool {
        match self {
            Endpoint::Domain(_) => true,
            Endpoint::Fixed(base) => !base.starts_with("http://"),
        }
    }
}

/// Why a call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CallError {
    /// A non-OK gRPC status (or an HTTP error mapped to one).
    Status {
        /// The gRPC code.
        code: u32,
        /// `grpc-message`, decoded.
        message: String,
    },
    /// No answer within the request timeout.
    Timeout,
    /// Connecting, TLS, reading or framing failed.
    Transport(String),
}

impl CallError {
    /// The credentials were refused.
    pub(crate) fn is_auth(&self) -> bool {
        matches!(self, CallError::Status { code, .. } if *code == UNAUTHENTICATED || *code == PERMISSION_DENIED)
    }
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Status { code, message } if message.is_empty() => {
                write!(f, "{}", code_name(*code))
            }
            CallError::Status { code, message } => write!(f, "{}: {message}", code_name(*code)),
            CallError::Timeout => write!(f, "no answer in time"),
            CallError::Transport(why) => write!(f, "{why}"),
        }
    }
}

/// The canonical name of a gRPC status code.
pub(crate) fn code_name(code: u32) -> &'static str {
    match code {
        0 => "OK",
        1 => "CANCELLED",
        2 => "UNKNOWN",
        3 => "INVALID_ARGUMENT",
        4 => "DEADLINE_EXCEEDED",
        5 => "NOT_FOUND",
        6 => "ALREADY_EXISTS",
        7 => "PERMISSION_DENIED",
        8 => "RESOURCE_EXHAUSTED",
        9 => "FAILED_PRECONDITION",
        10 => "ABORTED",
        11 => "OUT_OF_RANGE",
        12 => "UNIMPLEMENTED",
        13 => "INTERNAL",
        14 => "UNAVAILABLE",
        15 => "DATA_LOSS",
        16 => "UNAUTHENTICATED",
        _ => "UNKNOWN",
    }
}

/// A gRPC channel: the HTTP/2 client and where the services are.
#[derive(Clone)]
pub(crate) struct Channel {
    http: HttpClient,
    endpoint: Endpoint,
}

impl Channel {
    /// A channel over `http` (which must speak HTTP/2).
    pub(crate) fn new(http: HttpClient, endpoint: Endpoint) -> Channel {
        Channel { http, endpoint }
    }

    /// One unary call; `bearer` goes in `authorization`.
    pub(crate) async fn unary(
        &self,
        service: Service,
        method: &str,
        message: Vec<u8>,
        bearer: Option<&str>,
    ) -> Result<Bytes, CallError> {
        let url = self.endpoint.url(service, method);
        let mut framed = Vec::with_capacity(message.len() + 5);
        framed.push(0);
        framed.extend_from_slice(&(message.len() as u32).to_be_bytes());
        framed.extend_from_slice(&message);
        let timeout_ms = self.http.request_timeout().as_millis().clamp(1, 99_999_999);
        let mut builder = Request::builder()
            .method(Method::POST)
            .uri(&url)
            .header(header::CONTENT_TYPE, "application/grpc")
            .header(header::TE, "trailers")
            .header("grpc-timeout", format!("{timeout_ms}m"))
            .header(
                header::USER_AGENT,
                concat!("skypilot-optimizer/", env!("CARGO_PKG_VERSION"), " grpc"),
            );
        if let Some(token) = bearer {
            builder = builder.header(header::AUTHORIZATION, format!("Bearer {token}"));
        }
        let request = builder
            .body(Full::new(Bytes::from(framed)))
            .map_err(|e| CallError::Transport(format!("invalid request to {url}: {e}")))?;
        let answer = match self.http.exchange(request).await {
            Ok(a) => a,
            Err(Failure::Timeout) => return Err(CallError::Timeout),
            Err(Failure::Transport(why) | Failure::TooLarge(why)) => {
                return Err(CallError::Transport(why));
            }
        };
        if answer.status != StatusCode::OK {
            return Err(http_status_error(answer.status));
        }
        let status = answer
            .trailers
            .as_ref()
            .and_then(grpc_status)
            .or_else(|| grpc_status(&answer.headers))
            .ok_or_else(|| CallError::Transport("the answer carries no grpc-status".into()))?;
        if status.0 != 0 {
            return Err(CallError::Status {
                code: status.0,
                message: status.1,
            });
        }
        unframe(&answer.body)
    }
}

/// `grpc-status` and the decoded `grpc-message` of a header block.
fn grpc_status(headers: &HeaderMap) -> Option<(u32, String)> {
    let code = headers
        .get("grpc-status")?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()?;
    let message = headers
        .get("grpc-message")
        .and_then(|m| m.to_str().ok())
        .map(percent_decode)
        .unwrap_or_default();
    Some((code, message))
}

/// gRPC's HTTP-to-status mapping for answers that are not HTTP 200.
fn http_status_error(status: StatusCode) -> CallError {
    let code = match status.as_u16() {
        400 => 13,
        401 => UNAUTHENTICATED,
        403 => PERMISSION_DENIED,
        404 => 12,
        429 | 502 | 503 | 504 => 14,
        _ => 2,
    };
    CallError::Status {
        code,
        message: format!("HTTP {}", status.as_u16()),
    }
}

/// The message of a unary answer (one uncompressed frame).
fn unframe(body: &[u8]) -> Result<Bytes, CallError> {
    let bad = |why: &str| CallError::Transport(format!("malformed gRPC answer: {why}"));
    if body.len() < 5 {
        return Err(bad("shorter than a frame header"));
    }
    if body[0] != 0 {
        return Err(bad("compressed message (none was accepted)"));
    }
    let len = u32::from_be_bytes([body[1], body[2], body[3], body[4]]) as usize;
    let message = body
        .get(5..5 + len)
        .ok_or_else(|| bad("frame longer than the answer"))?;
    Ok(Bytes::copy_from_slice(message))
}

/// `grpc-message` is percent-encoded.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(h) = bytes.get(i + 1..i + 3)
            && let Ok(hex) = std::str::from_utf8(h)
            && let Ok(v) = u8::from_str_radix(hex, 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_follow_the_conventional_resolver() {
        let d = Endpoint::Domain("api.nebius.cloud:443".into());
        assert_eq!(
            d.url(PROJECTS, "List"),
            "https://cpl.iam.api.nebius.cloud:443/nebius.iam.v1.ProjectService/List"
        );
        assert_eq!(
            d.url(CALCULATOR, "EstimateBatch"),
            "https://api.calculator.billing-data-plane.api.nebius.cloud:443/nebius.billing.v1.CalculatorService/EstimateBatch"
        );
        let f = Endpoint::Fixed("http://127.0.0.1:9/".into());
        assert_eq!(
            f.url(PLATFORMS, "List"),
            "http://127.0.0.1:9/nebius.compute.v1.PlatformService/List"
        );
        assert!(!f.tls() && d.tls());
    }

    #[test]
    fn statuses_and_frames() {
        let mut h = HeaderMap::new();
        h.insert("grpc-status", "16".parse().unwrap());
        h.insert("grpc-message", "token%20expired".parse().unwrap());
        assert_eq!(grpc_status(&h), Some((16, "token expired".into())));
        assert!(matches!(
            http_status_error(StatusCode::SERVICE_UNAVAILABLE),
            CallError::Status { code: 14, .. }
        ));
        assert_eq!(unframe(&[0, 0, 0, 0, 2, 8, 1]).unwrap().as_ref(), [8, 1]);
        assert!(unframe(&[1, 0, 0, 0, 0]).is_err());
        assert!(unframe(&[0, 0, 0, 0, 9, 1]).is_err());
        let e = CallError::Status {
            code: 7,
            message: "denied".into(),
        };
        assert!(e.is_auth());
        assert_eq!(e.to_string(), "PERMISSION_DENIED: denied");
    }
}
