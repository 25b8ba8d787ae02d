//! Per-endpoint request recording.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::MockError;

/// One request as an endpoint saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RequestRecord {
    /// Arrival time, relative to the server start (for a [`MockSet`](crate::MockSet):
    /// the set's start, so all endpoints share one clock).
    pub at: Duration,
    /// HTTP method.
    pub method: String,
    /// Request path, without the query.
    pub path: String,
    /// The delay the latency model assigned to this request.
    pub delay: Duration,
    /// Status code the mock answers with; `None` when it never answers
    /// ([`Fault::Hang`](crate::Fault::Hang), [`Fault::ConnectionReset`](crate::Fault::ConnectionReset)).
    pub status: Option<u16>,
}

/// A snapshot of everything one endpoint received.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Recording {
    /// Endpoint name, e.g. `sts`, `kube/mock-0/nodes`, `gcp/token`, `catalog`.
    pub endpoint: String,
    /// Requests in arrival order.
    pub requests: Vec<RequestRecord>,
}

impl Recording {
    /// Number of requests received.
    pub fn count(&self) -> usize {
        self.requests.len()
    }

    /// Arrival times, in order.
    pub fn arrivals(&self) -> Vec<Duration> {
        self.requests.iter().map(|r| r.at).collect()
    }
}

/// A live, cloneable handle on one endpoint's request log.
///
/// ```no_run
/// # async fn demo() -> Result<(), mocks::MockError> {
/// let sts = mocks::StsMock::start().await?;
/// // ... point a client at sts.uri() and call GetCallerIdentity once ...
/// sts.get_caller_identity().check_count(1)?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Recorder {
    endpoint: Arc<str>,
    origin: Instant,
    log: Arc<Mutex<Vec<RequestRecord>>>,
}

impl Recorder {
    pub(crate) fn new(endpoint: &str, origin: Instant) -> Self {
        Recorder {
            endpoint: endpoint.into(),
            origin,
            log: Arc::default(),
        }
    }

    fn log(&self) -> MutexGuard<'_, Vec<RequestRecord>> {
        self.log.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn record(&self, method: &str, path: &str, delay: Duration, status: Option<u16>) {
        let at = self.origin.elapsed();
        self.log().push(RequestRecord {
            at,
            method: method.to_owned(),
            path: path.to_owned(),
            delay,
            status,
        });
    }

    /// Endpoint name.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The instant arrival times are measured from.
    pub fn origin(&self) -> Instant {
        self.origin
    }

    /// Number of requests received so far.
    pub fn count(&self) -> usize {
        self.log().len()
    }

    /// A snapshot of the log.
    pub fn recording(&self) -> Recording {
        Recording {
            endpoint: self.endpoint.to_string(),
            requests: self.log().clone(),
        }
    }

    /// Forgets all recorded requests (the latency sequence and `FailFirst` counter continue).
    pub fn clear(&self) {
        self.log().clear();
    }

    /// `Ok` if exactly `expected` requests arrived, otherwise [`MockError::CountMismatch`].
    pub fn check_count(&self, expected: usize) -> Result<(), MockError> {
        let actual = self.count();
        if actual == expected {
            Ok(())
        } else {
            Err(MockError::CountMismatch {
                endpoint: self.endpoint.to_string(),
                expected,
                actual,
            })
        }
    }

    /// Panics unless exactly `expected` requests arrived. For tests.
    #[track_caller]
    pub fn assert_count(&self, expected: usize) {
        if let Err(e) = self.check_count(expected) {
            panic!("{e}");
        }
    }
}
