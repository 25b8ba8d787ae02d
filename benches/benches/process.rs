//! `process/<what>/<configuration>`: the release `sky` binary (and the
//! floors: the hello-world process, the bare Kubernetes client) run as a
//! child process per iteration, wall time, against mocks. The rows and what
//! each shows are listed in [`benches::process`]; `cold-identity` and
//! `kubernetes` are judged by the gate on time above the latency floor each
//! records (the others record a zero floor: their mocks answer at once),
//! and most rows also as a ratio to a floor row ([`ProcessConfig::ratio_to`]:
//! the hello-world process, or for `kubernetes` the bare client on the same
//! mocks). Each row records its peak RSS.
//!
//! `iter_custom` keeps each iteration's preparation (touching a catalog,
//! deleting the catalog images) out of the time. Each configuration is set
//! up (mocks started, warm-up and verification runs, floor and peak RSS
//! measured) only when the filter selects it.

use benches::process::{ProcessBench, ProcessConfig};
use benches::{record_floor, record_peak_rss, record_ratio_to, runtime};
use criterion::{BenchmarkId, Criterion, SamplingMode};

/// The `process` group.
pub fn benches(c: &mut Criterion) {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(e) => crate::fail(&format!("{e:#}")),
    };
    let mut g = c.benchmark_group("process");
    // Every iteration is a whole process (1 ms to 1 s): flat sampling, one
    // iteration count for every sample, and few samples.
    g.sampling_mode(SamplingMode::Flat);
    for config in ProcessConfig::ALL {
        let id = config.id();
        config.budget().apply(&mut g, &id, config.in_ratio());
        let mut bench: Option<ProcessBench> = None;
        g.bench_function(
            BenchmarkId::new(config.function(), config.parameter()),
            |b| {
                let bench = bench.get_or_insert_with(|| {
                    let bench = ProcessBench::start(config, &rt)
                        .unwrap_or_else(|e| crate::fail(&format!("{id}: {e:#}")));
                    let recorded = record_floor(&id, bench.floor)
                        .and_then(|()| match config.ratio_to() {
                            Some(to) => record_ratio_to(&id, &to),
                            None => Ok(()),
                        })
                        .and_then(|()| match bench.peak_rss_kib {
                            Some(kib) => record_peak_rss(&id, kib),
                            None => Ok(()),
                        });
                    if let Err(e) = recorded {
                        crate::fail(&format!("{id}: recording its metadata: {e:#}"));
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
