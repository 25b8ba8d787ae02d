//! One mocked endpoint: its options and the runtime state its responder and
//! the reset gate share, and the small helpers every server's routes use.
//! Error bodies are in [`crate::flavor`]; a whole server (wiremock plus, when
//! needed, the reset gate) is assembled in [`crate::served`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use wiremock::{Request, ResponseTemplate};

use crate::flavor::Flavor;
use crate::{Fault, Latency, LatencySampler, MockError, Recorder};

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
