//! `process/<what>/<configuration>`: the release `sky` binary run as a child
//! process per iteration (`harness::engine::ProcessLauncher`), wall time,
//! against mocks. The rows and what each shows are listed in
//! [`benches::process`]; `cold-identity` and `kubernetes` are judged by the
//! gate on time above the latency floor each records (the others record a
//! zero floor: their mocks answer at once).
//!
//! `iter_custom` keeps each iteration's preparation (touching a catalog,
//! deleting the catalog images) out of the time. Each configuration is set
//! up (mocks started, warm-up and verification launches, floor measured)
//! only when the filter selects it.

use std::time::Duration;

use benches::process::{ProcessBench, ProcessConfig};
use benches::{record_floor, runtime};
use criterion::{BenchmarkId, Criterion, SamplingMode};

/// The `process` group.
pub fn benches(c: &mut Criterion) {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(e) => crate::fail(&format!("{e:#}")),
    };
    let mut g = c.benchmark_group("process");
    // Every iteration is a whole process (10 ms to 1 s): flat sampling, one
    // iteration count for every sample, and few samples.
    g.sampling_mode(SamplingMode::Flat);
    for config in ProcessConfig::ALL {
        match config {
            // ~1 s per iteration: one iteration per sample.
            ProcessConfig::ColdIdentity => {
                g.sample_size(10)
                    .warm_up_time(Duration::from_millis(500))
                    .measurement_time(Duration::from_secs(10));
            }
            // ~150 ms (one context's three 50 ms requests) plus the process.
            ProcessConfig::Kube64 => {
                g.sample_size(20)
                    .warm_up_time(Duration::from_millis(500))
                    .measurement_time(Duration::from_secs(4));
            }
            _ => {
                g.sample_size(20)
                    .warm_up_time(Duration::from_millis(500))
                    .measurement_time(Duration::from_secs(2));
            }
        }
        let id = config.id();
        let mut bench: Option<ProcessBench> = None;
        g.bench_function(
            BenchmarkId::new(config.function(), config.parameter()),
            |b| {
                let bench = bench.get_or_insert_with(|| {
                    let bench = ProcessBench::start(config, &rt)
                        .unwrap_or_else(|e| crate::fail(&format!("{id}: {e:#}")));
                    if let Err(e) = record_floor(&id, bench.floor) {
                        crate::fail(&format!("{id}: recording the floor: {e:#}"));
                    }
                    bench
                });
                b.iter_custom(|iters| {
                    (0..iters)
                        .map(|_| {
                            bench
                                .timed_launch()
                                .unwrap_or_else(|e| crate::fail(&format!("{id}: {e:#}")))
                        })
                        .sum()
                });
            },
        );
    }
    g.finish();
}
