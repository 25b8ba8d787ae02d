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
/// fault = { kind = "trickle" }             # 200, then one body byte every 100 ms
/// fault = { kind = "endless_body" }        # 200 with a chunked body that never ends
/// fault = { kind = "garbage" }             # bytes that are not HTTP at all, then close
/// fault = { kind = "huge_body" }           # 200 with a 100 MB body
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
    /// Answer 200 with a large `Content-Length`, then send one byte of the
    /// body every [`TRICKLE_INTERVAL`]: never idle long enough for a read
    /// timeout, never done.
    Trickle,
    /// Answer 200 with a chunked body that never ends, as fast as the
    /// client reads it.
    EndlessBody,
    /// Answer with bytes that are not HTTP (seeded noise), then close.
    Garbage,
    /// Answer 200 with a [`HUGE_BODY_BYTES`] body.
    HugeBody,
}

/// The pause between two bytes of a [`Fault::Trickle`] body.
pub const TRICKLE_INTERVAL: std::time::Duration = std::time::Duration::from_millis(100);
/// The size of a [`Fault::HugeBody`] body: 100 MB.
pub const HUGE_BODY_BYTES: u64 = 100 * 1024 * 1024;
/// Longest any streaming fault keeps a connection busy, so a client that
/// never hangs up cannot keep the mock busy forever.
pub const MAX_STREAM_TIME: std::time::Duration = std::time::Duration::from_secs(600);

/// How long a [`Fault::Hang`] endpoint waits before it (in theory) answers.
pub const HANG_DELAY: std::time::Duration = std::time::Duration::from_secs(3600);

impl Fault {
    /// Whether the fault needs the raw TCP gate in front of wiremock
    /// (wiremock cannot reset, stream or send non-HTTP bytes).
    pub fn is_raw(&self) -> bool {
        matches!(
            self,
            Fault::ConnectionReset
                | Fault::Trickle
                | Fault::EndlessBody
                | Fault::Garbage
                | Fault::HugeBody
        )
    }

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
    Trickle,
    EndlessBody,
    Garbage,
    HugeBody,
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
            FaultRepr::Trickle => Fault::Trickle,
            FaultRepr::EndlessBody => Fault::EndlessBody,
            FaultRepr::Garbage => Fault::Garbage,
            FaultRepr::HugeBody => Fault::HugeBody,
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
            Fault::Trickle => FaultRepr::Trickle,
            Fault::EndlessBody => FaultRepr::EndlessBody,
            Fault::Garbage => FaultRepr::Garbage,
            Fault::HugeBody => FaultRepr::HugeBody,
        }
    }
}
