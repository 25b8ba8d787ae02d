//! `launch/<cache>-<fanout>/<latency>`: one whole in-process launch
//! (`optimizer::launch::run`, `--gpus H100:8`, the seed-7-clouds cloud set)
//! against wiremock STS and Kubernetes servers.
//!
//! * latency `latency-0`: the launch's own cost (SDK and kube clients, checks,
//!   catalog parsing overlapped with the fan-out, optimisation);
//! * latency `seed-7-clouds`: STS 1000 ms, Kubernetes 50 ms. These are judged
//!   by the gate on time above the latency floor each bench records.
//!
//! `cold` passes `--refresh` (every check goes upstream); `warm` reuses the
//! identity cached by a previous launch. Each configuration is set up (mocks
//! started, floor measured) only when the filter selects it.

use std::hint::black_box;
use std::time::Duration;

use benches::{Cache, Fanout, LatencyModel, LaunchBench, record_floor, runtime};
use criterion::{BenchmarkId, Criterion, SamplingMode};

/// The `launch` group.
pub fn benches(c: &mut Criterion) {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(e) => crate::fail(&format!("{e:#}")),
    };
    let mut g = c.benchmark_group("launch");
    for model in LatencyModel::ALL {
        for cache in [Cache::Cold, Cache::Warm] {
            for fanout in [Fanout::Serial, Fanout::Concurrent] {
                match (model, cache) {
                    (LatencyModel::Zero, _) => {
                        g.sampling_mode(SamplingMode::Auto).sample_size(20);
                        g.warm_up_time(Duration::from_secs(1))
                            .measurement_time(Duration::from_secs(3));
                    }
                    // ~1 s per iteration: ten iterations, one per sample.
                    (LatencyModel::Seed7, Cache::Cold) => {
                        g.sampling_mode(SamplingMode::Flat).sample_size(10);
                        g.warm_up_time(Duration::from_millis(500))
                            .measurement_time(Duration::from_secs(10));
                    }
                    // ~50 ms per iteration.
                    (LatencyModel::Seed7, Cache::Warm) => {
                        g.sampling_mode(SamplingMode::Flat).sample_size(10);
                        g.warm_up_time(Duration::from_millis(500))
                            .measurement_time(Duration::from_secs(2));
                    }
                }
                let function = format!("{}-{}", cache.name(), fanout.name());
                let full_id = format!("launch/{function}/{}", model.name());
                let mut bench: Option<LaunchBench> = None;
                g.bench_function(BenchmarkId::new(function, model.name()), |b| {
                    let bench = bench.get_or_insert_with(|| {
                        let started = rt.block_on(LaunchBench::start(model, cache, fanout));
                        let bench =
                            started.unwrap_or_else(|e| crate::fail(&format!("{full_id}: {e:#}")));
                        if let Err(e) = record_floor(&full_id, bench.floor) {
                            crate::fail(&format!("{full_id}: recording the floor: {e:#}"));
                        }
                        bench
                    });
                    b.to_async(&rt)
                        .iter(|| async { black_box(bench.run_once().await.is_ok()) });
                });
            }
        }
    }
    g.finish();
}
