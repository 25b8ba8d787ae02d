//! Shared setup for the criterion benchmarks (`benches/benches/main.rs`), the
//! instruction counter (`bench-ops`) and the regression gate (`bench-gate`).
//! The measurement pieces (in-process launch setup, latency floor, timing
//! loop, order statistics, flamegraphs, machine facts) come from the
//! `harness` library; this crate adds what only benchmarks need.
//!
//! * [`ops`]: the CPU-bound operations (catalog load, feasibility, optimize,
//!   table rendering), named exactly like their criterion benchmarks so that
//!   wall-clock times and instruction counts line up;
//! * [`launch`]: one whole in-process launch (`optimizer::launch::run`)
//!   against wiremock upstreams at a [`LatencyModel`], with its latency floor;
//! * [`meta`]: what samples mean beyond criterion's files (floors, clocks);
//! * [`clock`]: thread CPU time as a criterion measurement;
//! * [`profiler`]: the criterion [`Profiler`](criterion::profiler::Profiler)
//!   that runs only under `--profile-time`;
//! * [`gate`]: portable result files, the noise-aware comparison and the summary;
//! * [`runner`]: running the suite, callgrind and whole-process `sky`;
//! * [`report`]: the pull-request report.

pub mod clock;
pub mod gate;
pub mod launch;
pub mod meta;
pub mod ops;
pub mod profiler;
pub mod report;
pub mod runner;

pub use launch::{Cache, Fanout, LatencyModel, LaunchBench, runtime};
pub use meta::{BenchMeta, FLOORS_ENV, RUN_KEY, record_cpu_clock, record_floor, record_meta};

use planner::cloud::CloudId;

/// The seven clouds with CSV catalogs, in SkyPilot's enumeration order:
/// [`CloudId::ALL`] without the virtual Kubernetes catalog. A constant, not a
/// `Vec`, because the catalog benchmarks pass it inside the measured call.
pub const CATALOG_CLOUDS: [CloudId; 7] = {
    let mut out = [CloudId::Aws; 7];
    let (mut i, mut n) = (0, 0);
    while i < CloudId::ALL.len() {
        if !matches!(CloudId::ALL[i], CloudId::Kubernetes) {
            // A cloud added to `ALL` overflows this array: a compile error.
            out[n] = CloudId::ALL[i];
            n += 1;
        }
        i += 1;
    }
    out
};

/// `SKY_ENABLED_CLOUDS` with every catalog cloud (whole-process measurements).
pub fn all_catalog_clouds() -> String {
    CATALOG_CLOUDS.map(CloudId::name).join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_clouds_are_the_csv_ones_in_order() {
        let expected: Vec<CloudId> = CloudId::ALL
            .into_iter()
            .filter(|c| c.has_csv_catalog())
            .collect();
        assert_eq!(CATALOG_CLOUDS.to_vec(), expected);
        assert_eq!(
            all_catalog_clouds(),
            "aws,gcp,azure,lambda,runpod,paperspace,cudo"
        );
    }
}
