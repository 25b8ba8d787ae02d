//! How long each benchmark measures, and the shorter budget of the rows
//! whose time cannot fail.
//!
//! A benchmark whose time `thresholds.toml` marks advisory, and which has no
//! ratio row (that one gates), is judged on its instruction counts or peak
//! RSS: its time is reported, never failed. When [`QUICK_ADVISORY_ENV`] is
//! `1` (the pull-request report sets it) such a benchmark measures for a
//! third of its usual time and half its samples (at least criterion's 10):
//! its verdict cannot change, and the report spends its minutes on the rows
//! that gate.

use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

use criterion::BenchmarkGroup;
use criterion::measurement::Measurement;

use crate::gate::Thresholds;

/// Environment variable: `1` shortens the advisory-only benchmarks.
pub const QUICK_ADVISORY_ENV: &str = "SKY_BENCH_QUICK_ADVISORY";

/// A benchmark's measuring budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// criterion samples.
    pub samples: usize,
    /// Warm-up time.
    pub warm_up: Duration,
    /// Measurement time.
    pub measure: Duration,
}

impl Budget {
    /// `samples` samples, `warm_up_ms` of warm-up, `measure_ms` of measuring.
    pub const fn new(samples: usize, warm_up_ms: u64, measure_ms: u64) -> Budget {
        Budget {
            samples,
            warm_up: Duration::from_millis(warm_up_ms),
            measure: Duration::from_millis(measure_ms),
        }
    }

    /// The quick budget: a third of the time, half the samples (≥ 10).
    pub fn quick(self) -> Budget {
        Budget {
            samples: (self.samples / 2).max(10),
            warm_up: (self.warm_up / 3).max(Duration::from_millis(100)),
            measure: (self.measure / 3).max(Duration::from_millis(300)),
        }
    }

    /// The budget benchmark `id` gets: [`Budget::quick`] when
    /// [`QUICK_ADVISORY_ENV`] is set and only advisory verdicts depend on
    /// its time (`has_ratio`: it has a ratio row, which gates).
    pub fn for_id(self, id: &str, has_ratio: bool) -> Budget {
        let quick = std::env::var(QUICK_ADVISORY_ENV).is_ok_and(|v| v == "1");
        if quick && !has_ratio && thresholds().limits(id).time_advisory {
            self.quick()
        } else {
            self
        }
    }

    /// Sets the group's sample size, warm-up and measurement time to the
    /// budget of `id` (see [`Budget::for_id`]).
    pub fn apply<M: Measurement>(self, g: &mut BenchmarkGroup<'_, M>, id: &str, has_ratio: bool) {
        let b = self.for_id(id, has_ratio);
        g.sample_size(b.samples)
            .warm_up_time(b.warm_up)
            .measurement_time(b.measure);
    }
}

/// `benches/thresholds.toml` (defaults if it cannot be read: nothing is
/// then advisory, so nothing is shortened).
fn thresholds() -> &'static Thresholds {
    static T: OnceLock<Thresholds> = OnceLock::new();
    T.get_or_init(|| {
        Thresholds::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("thresholds.toml"))
            .unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_budgets_keep_criterions_minimum() {
        let b = Budget::new(20, 300, 1200).quick();
        assert_eq!(b, Budget::new(10, 100, 400));
        assert_eq!(Budget::new(10, 500, 10_000).quick().samples, 10);
        // Without the variable (tests never set it) nothing changes.
        let full = Budget::new(20, 300, 1000);
        assert_eq!(full.for_id("feasibility/aws/t4", false), full);
    }

    #[test]
    fn only_rows_whose_time_cannot_fail_are_advisory_here() {
        let t = thresholds();
        assert!(t.limits("feasibility/aws/t4").time_advisory);
        assert!(!t.limits("launch/cold-serial/seed-7-clouds").time_advisory);
        assert!(t.limits("process/warm/7-clouds").time_advisory);
    }
}
