//! The waits between node-listing attempts: SkyPilot 0.14.1's
//! `sky/utils/common_utils.py::Backoff`, as `_retry_on_error` in
//! `sky/provision/kubernetes/utils.py` uses it for `get_kubernetes_nodes`.

use std::time::Duration;

/// How SkyPilot's backoff between node-listing attempts grows from its
/// first wait (`common_utils.Backoff(initial_backoff=1, max_backoff_factor=3)`;
/// the first wait is the adapter's `retry_backoff`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BackoffPolicy {
    /// Growth per attempt (SkyPilot: 1.6).
    pub multiplier: f64,
    /// The un-jittered wait is capped at the first wait × `max_factor` (SkyPilot: 3).
    pub max_factor: f64,
    /// Relative jitter added to each wait, uniformly in ±`jitter` (SkyPilot: 0.4).
    pub jitter: f64,
}

impl Default for BackoffPolicy {
    fn default() -> Self {
        BackoffPolicy {
            multiplier: 1.6,
            max_factor: 3.0,
            jitter: 0.4,
        }
    }
}

/// The state of one backoff sequence (jitter is carried into the next step,
/// as SkyPilot's `Backoff.current_backoff` does).
#[derive(Debug, Clone)]
pub struct Backoff {
    initial: Duration,
    policy: BackoffPolicy,
    current: Option<f64>,
}

impl Backoff {
    /// A fresh sequence whose first un-jittered wait is `initial`.
    pub fn new(initial: Duration, policy: BackoffPolicy) -> Self {
        Backoff {
            initial,
            policy,
            current: None,
        }
    }

    /// The next wait; `unit` is a uniform random number in `[0, 1)`.
    pub fn next_wait(&mut self, unit: f64) -> Duration {
        let initial = self.initial.as_secs_f64();
        let max = initial * self.policy.max_factor;
        let base = match self.current {
            None => initial.min(max),
            Some(prev) => (prev * self.policy.multiplier).min(max),
        };
        let jittered = base + (2.0 * unit.clamp(0.0, 1.0) - 1.0) * self.policy.jitter * base;
        self.current = Some(jittered);
        Duration::try_from_secs_f64(jittered.max(0.0)).unwrap_or_default()
    }
}

/// A uniform random number in `[0, 1)` for the jitter (0.5, no jitter, if
/// the OS has no randomness to give).
pub(super) fn random_unit() -> f64 {
    getrandom::u64().map_or(0.5, |x| (x >> 11) as f64 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_sequence() {
        let mut b = Backoff::new(Duration::from_secs(1), BackoffPolicy::default());
        // No jitter (unit = 0.5): 1, 1.6, 2.56, 3 (cap), 3.
        let waits: Vec<f64> = (0..5).map(|_| b.next_wait(0.5).as_secs_f64()).collect();
        for (got, want) in waits.iter().zip([1.0, 1.6, 2.56, 3.0, 3.0]) {
            assert!((got - want).abs() < 1e-9, "{waits:?}");
        }
        let mut b = Backoff::new(Duration::from_secs(1), BackoffPolicy::default());
        assert!((b.next_wait(0.0).as_secs_f64() - 0.6).abs() < 1e-9);
        assert!((b.next_wait(1.0).as_secs_f64() - 0.96 * 1.4).abs() < 1e-9);
    }
}
