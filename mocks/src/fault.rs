//! Per-endpoint failure injection.

use serde::{Deserialize, Serialize};

use crate::MockError;

/// What goes wrong at an endpoint. Latency still applies before a faulty answer.
///
/// Error bodies follow the upstream's own shape: STS gets an `ErrorResponse` XML
/// document, Kubernetes a `Status` object, the GCP compute API a
/// `{"error": {...}}` object, the GCP token endpoint an OAuth
/// `{"error": "...", "error_description": "..."}`, and the catalog server plain text.
///
/// In scenario files the fault is a table tagged by `kind`:
///
/// ```toml
/// fault = { kind = "none" }
/// fault = { kind = "status", status = 503 }
/// fault = { kind = "unauthorized" }        # 401
/// fault = { kind = "forbidden" }           # 403
/// fault = { kind = "expired_token" }       # 403 for STS, 401 elsewhere (400 invalid_grant for OAuth)
/// fault = { kind = "hang" }                # never answers (a 1 h delay)
/// fault = { kind = "connection_reset" }    # TCP RST after the request head arrives
/// fault = { kind = "malformed_body" }      # 200 with a truncated XML/JSON body
/// fault = { kind = "fail_first", n = 2, status = 503 }
/// ```
///
/// ```
/// use mocks::Fault;
///
/// let f: Fault = serde_json::from_str(r#"{ "kind": "fail_first", "n": 2, "status": 500 }"#).unwrap();
/// assert_eq!(f, Fault::FailFirst { n: 2, status: 500 });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(try_from = "FaultRepr", into = "FaultRepr")]
pub enum Fault {
    /// Answer normally (the default).
    #[default]
    None,
    /// Answer every request with this error status (400..=599; usually 5xx).
    Status(u16),
    /// Answer 401 with the upstream's "bad credentials" error.
    Unauthorized,
    /// Answer 403 with the upstream's "access denied" error.
    Forbidden,
    /// Answer with an expired-credentials error: for STS the `ExpiredToken` XML at 403.
    ExpiredToken,
    /// Accept the request and never answer within any sane deadline ([`HANG_DELAY`]).
    Hang,
    /// Reset the TCP connection (RST, via `SO_LINGER` 0) once the request head arrives.
    ///
    /// wiremock cannot do this, so a server with such an endpoint listens
    /// through a small TCP gate that proxies every other request to wiremock
    /// with `Connection: close` (no keep-alive on that server).
    ConnectionReset,
    /// Answer 200 with the right content type but a truncated, unparsable body.
    MalformedBody,
    /// Answer the first `n` requests with `status`, then succeed.
    FailFirst {
        /// How many requests fail.
        n: u64,
        /// Their status (400..=599).
        status: u16,
    },
}

/// How long a [`Fault::Hang`] endpoint waits before it (in theory) answers.
pub const HANG_DELAY: std::time::Duration = std::time::Duration::from_secs(3600);

impl Fault {
    /// Checks the parameters; `endpoint` only labels the error.
    pub fn validate(&self, endpoint: &str) -> Result<(), MockError> {
        match *self {
            Fault::Status(s) | Fault::FailFirst { status: s, .. } if !(400..=599).contains(&s) => {
                Err(MockError::InvalidFault {
                    endpoint: endpoint.to_owned(),
                    reason: format!("status {s} is not an error status (400..=599)"),
                })
            }
            _ => Ok(()),
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
enum FaultRepr {
    None,
    Status { status: u16 },
    Unauthorized,
    Forbidden,
    ExpiredToken,
    Hang,
    ConnectionReset,
    MalformedBody,
    FailFirst { n: u64, status: u16 },
}

impl TryFrom<FaultRepr> for Fault {
    type Error = MockError;

    fn try_from(r: FaultRepr) -> Result<Self, MockError> {
        let f = match r {
            FaultRepr::None => Fault::None,
            FaultRepr::Status { status } => Fault::Status(status),
            FaultRepr::Unauthorized => Fault::Unauthorized,
            FaultRepr::Forbidden => Fault::Forbidden,
            FaultRepr::ExpiredToken => Fault::ExpiredToken,
            FaultRepr::Hang => Fault::Hang,
            FaultRepr::ConnectionReset => Fault::ConnectionReset,
            FaultRepr::MalformedBody => Fault::MalformedBody,
            FaultRepr::FailFirst { n, status } => Fault::FailFirst { n, status },
        };
        f.validate("<scenario>")?;
        Ok(f)
    }
}

impl From<Fault> for FaultRepr {
    fn from(f: Fault) -> Self {
        match f {
            Fault::None => FaultRepr::None,
            Fault::Status(status) => FaultRepr::Status { status },
            Fault::Unauthorized => FaultRepr::Unauthorized,
            Fault::Forbidden => FaultRepr::Forbidden,
            Fault::ExpiredToken => FaultRepr::ExpiredToken,
            Fault::Hang => FaultRepr::Hang,
            Fault::ConnectionReset => FaultRepr::ConnectionReset,
            Fault::MalformedBody => FaultRepr::MalformedBody,
            Fault::FailFirst { n, status } => FaultRepr::FailFirst { n, status },
        }
    }
}
