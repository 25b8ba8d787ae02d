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
//! * [`process`]: one whole run of the release `sky` binary (or of a
//!   floor: the hello-world process, the bare Kubernetes client
//!   `kube-floor`) as a child process against mocks, per row of
//!   the `process` group, with its setup, checks, latency floor, peak RSS
//!   and the reference its ratio is taken to;
//! * [`rss`]: a child's peak RSS (GNU `time`);
//! * [`meta`]: what samples mean beyond criterion's files (floors, clocks);
//! * [`budget`]: how long each benchmark measures (shorter for rows whose
//!   time cannot fail, in the report);
//! * [`clock`]: thread CPU time as a criterion measurement;
//! * [`profiler`]: the criterion [`Profiler`](criterion::profiler::Profiler)
//!   that runs only under `--profile-time`;
//! * [`gate`]: portable result files, the noise-aware comparison and the summary;
//! * [`runner`]: running the suite, callgrind and whole-process `sky`;
//! * [`report`]: the pull-request report.

pub mod budget;
pub mod clock;
pub mod gate;
pub mod launch;
pub mod meta;
pub mod ops;
pub mod process;
pub mod profiler;
pub mod progress;
pub mod report;
pub mod rss;
pub mod runner;

pub use launch::{Cache, Fanout, LatencyModel, LaunchBench, runtime};
pub use meta::{
    BenchMeta, FLOORS_ENV, RUN_KEY, record_cpu_clock, record_floor, record_meta, record_peak_rss,
    record_ratio_to,
};

use planner::cloud::CloudId;

/// The seven catalog clouds the launch and catalog benchmarks (and their
/// baselines) are measured on, in enumeration order. A constant, not a
/// `Vec`, because the catalog benchmarks pass it inside the measured call.
pub const CATALOG_CLOUDS: [CloudId; 7] = [
    CloudId::Aws,
    CloudId::Gcp,
    CloudId::Azure,
    CloudId::Lambda,
    CloudId::Runpod,
    CloudId::Paperspace,
    CloudId::Cudo,
];

/// `SKY_ENABLED_CLOUDS` with the [`CATALOG_CLOUDS`] (whole-process measurements).
pub fn all_catalog_clouds() -> String {
    CATALOG_CLOUDS.map(CloudId::name).join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_clouds_are_csv_clouds_in_enumeration_order() {
        assert!(CATALOG_CLOUDS.iter().all(|c| c.has_csv_catalog()));
        let positions: Vec<usize> = CATALOG_CLOUDS.iter().map(|c| *c as usize).collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
        assert_eq!(
            all_catalog_clouds(),
            "aws,gcp,azure,lambda,runpod,paperspace,cudo"
        );
    }
}
