//! Per-endpoint latency models and their seeded sampler.

use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::Distribution;
use serde::{Deserialize, Serialize};

use crate::MockError;

/// Longest delay a [`Latency`] sample may produce; larger log-normal draws are clamped.
pub const MAX_LATENCY: Duration = Duration::from_secs(3600);

/// How long an endpoint waits before it answers.
///
/// The delay is added by the mock after the request has been read, so a client
/// measures at least this much per request (plus loopback overhead, well under a
/// millisecond). Random models are drawn from a [`LatencySampler`] seeded per
/// endpoint, so the N-th request of a run always gets the same delay.
///
/// In scenario files the model is a table tagged by `kind`, durations in whole
/// milliseconds:
///
/// ```toml
/// latency = { kind = "zero" }
/// latency = { kind = "fixed", ms = 1000 }
/// latency = { kind = "uniform", min_ms = 20, max_ms = 80 }
/// latency = { kind = "lognormal", median_ms = 50, sigma = 0.3 }
/// ```
///
/// ```
/// use mocks::Latency;
/// use std::time::Duration;
///
/// let l: Latency = serde_json::from_str(r#"{ "kind": "fixed", "ms": 250 }"#).unwrap();
/// assert_eq!(l, Latency::Fixed(Duration::from_millis(250)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(try_from = "LatencyRepr", into = "LatencyRepr")]
pub enum Latency {
    /// Answer immediately (the default).
    #[default]
    Zero,
    /// Always wait exactly this long.
    Fixed(Duration),
    /// Wait a duration drawn uniformly from `min..=max`.
    Uniform {
        /// Shortest delay.
        min: Duration,
        /// Longest delay (inclusive); must not be below `min`.
        max: Duration,
    },
    /// Wait `median * exp(sigma * N(0, 1))`: a right-skewed delay whose median is `median`.
    LogNormal {
        /// Median delay.
        median: Duration,
        /// Shape: the standard deviation of the underlying normal; finite and `>= 0`.
        sigma: f64,
    },
}

impl Latency {
    /// `Fixed` latency of `ms` milliseconds.
    pub fn fixed_ms(ms: u64) -> Self {
        Latency::Fixed(Duration::from_millis(ms))
    }

    /// Checks the parameters; `endpoint` only labels the error.
    pub fn validate(&self, endpoint: &str) -> Result<(), MockError> {
        let bad = |reason: String| {
            Err(MockError::InvalidLatency {
                endpoint: endpoint.to_owned(),
                reason,
            })
        };
        match *self {
            Latency::Zero => Ok(()),
            Latency::Fixed(d) if d > MAX_LATENCY => bad(format!("{d:?} exceeds {MAX_LATENCY:?}")),
            Latency::Fixed(_) => Ok(()),
            Latency::Uniform { min, max } if min > max => {
                bad(format!("uniform min {min:?} is above max {max:?}"))
            }
            Latency::Uniform { max, .. } if max > MAX_LATENCY => {
                bad(format!("{max:?} exceeds {MAX_LATENCY:?}"))
            }
            Latency::Uniform { .. } => Ok(()),
            Latency::LogNormal { sigma, .. } if !(sigma.is_finite() && sigma >= 0.0) => bad(
                format!("lognormal sigma must be finite and >= 0, got {sigma}"),
            ),
            Latency::LogNormal { median, .. } if median > MAX_LATENCY => {
                bad(format!("{median:?} exceeds {MAX_LATENCY:?}"))
            }
            Latency::LogNormal { .. } => Ok(()),
        }
    }

    /// A sampler that yields this model's delays, repeatably for a given `seed`.
    ///
    /// Invalid parameters (see [`Latency::validate`]) are clamped instead of
    /// panicking: a reversed uniform range is swapped, a bad sigma becomes 0.
    pub fn sampler(&self, seed: u64) -> LatencySampler {
        LatencySampler {
            latency: *self,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

/// A seeded stream of delays for one endpoint (ChaCha8, stable across platforms).
///
/// ```
/// use mocks::Latency;
/// use std::time::Duration;
///
/// let model = Latency::Uniform { min: Duration::from_millis(10), max: Duration::from_millis(20) };
/// let a: Vec<_> = (0..5).map({ let mut s = model.sampler(7); move |_| s.next_delay() }).collect();
/// let b: Vec<_> = (0..5).map({ let mut s = model.sampler(7); move |_| s.next_delay() }).collect();
/// assert_eq!(a, b);
/// ```
#[derive(Debug, Clone)]
pub struct LatencySampler {
    latency: Latency,
    rng: ChaCha8Rng,
}

impl LatencySampler {
    /// The next delay in the sequence.
    pub fn next_delay(&mut self) -> Duration {
        match self.latency {
            Latency::Zero => Duration::ZERO,
            Latency::Fixed(d) => d.min(MAX_LATENCY),
            Latency::Uniform { min, max } => {
                let (lo, hi) = if min <= max { (min, max) } else { (max, min) };
                let lo = lo.as_nanos().min(u64::MAX as u128) as u64;
                let hi = hi.as_nanos().min(u64::MAX as u128) as u64;
                Duration::from_nanos(self.rng.random_range(lo..=hi)).min(MAX_LATENCY)
            }
            Latency::LogNormal { median, sigma } => {
                if median.is_zero() {
                    return Duration::ZERO;
                }
                let sigma = if sigma.is_finite() && sigma >= 0.0 {
                    sigma
                } else {
                    0.0
                };
                let mu = median.as_secs_f64().ln();
                let secs = match rand_distr::LogNormal::new(mu, sigma) {
                    Ok(dist) => dist.sample(&mut self.rng),
                    Err(_) => median.as_secs_f64(),
                };
                Duration::try_from_secs_f64(secs)
                    .unwrap_or(MAX_LATENCY)
                    .min(MAX_LATENCY)
            }
        }
    }
}

impl Iterator for LatencySampler {
    type Item = Duration;

    fn next(&mut self) -> Option<Duration> {
        Some(self.next_delay())
    }
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
enum LatencyRepr {
    Zero,
    Fixed { ms: u64 },
    Uniform { min_ms: u64, max_ms: u64 },
    Lognormal { median_ms: u64, sigma: f64 },
}

impl TryFrom<LatencyRepr> for Latency {
    type Error = MockError;

    fn try_from(r: LatencyRepr) -> Result<Self, MockError> {
        let ms = Duration::from_millis;
        let l = match r {
            LatencyRepr::Zero => Latency::Zero,
            LatencyRepr::Fixed { ms: v } => Latency::Fixed(ms(v)),
            LatencyRepr::Uniform { min_ms, max_ms } => Latency::Uniform {
                min: ms(min_ms),
                max: ms(max_ms),
            },
            LatencyRepr::Lognormal { median_ms, sigma } => Latency::LogNormal {
                median: ms(median_ms),
                sigma,
            },
        };
        l.validate("<scenario>")?;
        Ok(l)
    }
}

impl From<Latency> for LatencyRepr {
    fn from(l: Latency) -> Self {
        let ms = |d: Duration| d.as_millis().min(u64::MAX as u128) as u64;
        match l {
            Latency::Zero => LatencyRepr::Zero,
            Latency::Fixed(d) => LatencyRepr::Fixed { ms: ms(d) },
            Latency::Uniform { min, max } => LatencyRepr::Uniform {
                min_ms: ms(min),
                max_ms: ms(max),
            },
            Latency::LogNormal { median, sigma } => LatencyRepr::Lognormal {
                median_ms: ms(median),
                sigma,
            },
        }
    }
}
