//! CPU flamegraphs of benchmarks: a criterion [`Profiler`] that criterion
//! calls only under `--profile-time N`, so measured runs carry no sampling
//! overhead. Sampling, folding and rendering are the harness's
//! ([`harness::flame`]): the same rate, frame names and inferno options as
//! the harness reports, so a bench profile and a harness CPU profile read
//! (and diff) alike.
//!
//! pprof's own `criterion`/`flamegraph` features target criterion 0.5 and
//! inferno 0.11 (pprof 0.15's `Cargo.toml`), hence this small adapter.
//! Sampling is `setitimer(ITIMER_PROF)`, so it is capped by the kernel tick
//! (250 Hz on this machine's kernel).

use std::path::Path;

use criterion::profiler::Profiler;
use harness::flame::{self, Chart, Counts, CpuSampler};

/// Writes `flamegraph.svg` and `folded.txt` into criterion's
/// `target/criterion/<id>/profile/` for every profiled benchmark.
pub struct FlamegraphProfiler {
    frequency: i32,
    sampler: Option<CpuSampler>,
}

impl FlamegraphProfiler {
    /// A profiler sampling at `frequency` Hz ([`flame::CPU_SAMPLE_HZ`] is the useful maximum here).
    pub fn new(frequency: i32) -> Self {
        FlamegraphProfiler {
            frequency,
            sampler: None,
        }
    }
}

impl Profiler for FlamegraphProfiler {
    fn start_profiling(&mut self, benchmark_id: &str, _dir: &Path) {
        match CpuSampler::start(self.frequency) {
            Ok(s) => self.sampler = Some(s),
            Err(e) => eprintln!("profiling {benchmark_id}: cannot start pprof: {e}"),
        }
    }

    fn stop_profiling(&mut self, benchmark_id: &str, dir: &Path) {
        let Some(sampler) = self.sampler.take() else {
            return;
        };
        let svg = dir.join("flamegraph.svg");
        // Every thread counts, each under its own name: a benchmark's work
        // may run on criterion's thread or on runtime workers.
        let result = sampler
            .finish(|thread| Some(thread.to_string()))
            .and_then(|profile| {
                std::fs::create_dir_all(dir).map_err(|e| harness::HarnessError::io(dir, e))?;
                flame::write_folded(&profile.folded, &dir.join("folded.txt"))?;
                let chart = Chart {
                    title: benchmark_id,
                    subtitle: None,
                    counts: Counts::CpuSamples,
                };
                flame::render(&profile.folded, &chart, &svg)
            });
        match result {
            Ok(()) => eprintln!("flamegraph: {}", svg.display()),
            Err(e) => eprintln!("profiling {benchmark_id}: {e}"),
        }
    }
}
