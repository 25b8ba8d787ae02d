//! The one criterion entry point: `cargo bench -p benches --bench main [-- FILTER]`.
//!
//! Groups live in modules: [`catalog`] (load + index), [`feasibility`]
//! (per-cloud feasibility and the whole pure optimizer), [`kube_nodes`]
//! (reading and encoding 64 Kubernetes node lists), [`download`] (a
//! cold launch downloading every catalog from a slow mock), [`render`] (the
//! cost table), [`launch`] (whole in-process launches against mocks) and
//! [`process`] (the release `sky` binary as a child process, against mocks).
//! The single-threaded CPU-bound groups (feasibility, optimize, render)
//! measure the benchmark thread's CPU time ([`benches::clock`]); catalog
//! loads (multi-threaded), launches (waiting on mocks) and processes measure
//! wall time.
//! `-- --profile-time 5 FILTER` profiles instead of measuring and writes
//! `target/criterion/<id>/profile/flamegraph.svg`.

mod catalog;
mod download;
mod feasibility;
mod kube_nodes;
mod launch;
mod process;
mod render;

use std::sync::OnceLock;

use benches::clock::{Contention, ThreadCpuTime};
use benches::ops::Inputs;
use benches::profiler::FlamegraphProfiler;
use criterion::{Criterion, criterion_group, criterion_main};
use harness::flame::CPU_SAMPLE_HZ;

/// Shared inputs of the CPU-bound groups, built on first use.
fn inputs() -> &'static Inputs {
    static INPUTS: OnceLock<Inputs> = OnceLock::new();
    INPUTS.get_or_init(|| match Inputs::new() {
        Ok(i) => i,
        Err(e) => fail(&format!("{e:#}")),
    })
}

/// Ends the run with a message when a benchmark cannot be set up: criterion
/// would otherwise exit 0 and the gate would see a missing benchmark.
fn fail(message: &str) -> ! {
    eprintln!("error: benchmark setup failed: {message}");
    std::process::exit(2)
}

/// Records a benchmark's metadata for the gate, or stops the run.
fn record(result: anyhow::Result<()>) {
    if let Err(e) = result {
        fail(&format!("recording benchmark metadata: {e:#}"));
    }
}

/// The contention snapshot taken before the first group.
static RUN_START: OnceLock<Option<Contention>> = OnceLock::new();

/// First target: remembers how busy the machine is.
fn start_contention(_c: &mut Criterion) {
    RUN_START.get_or_init(Contention::now);
}

/// Last target: records other processes' average load over the run.
fn finish_contention(_c: &mut Criterion) {
    let (Some(Some(start)), Some(end)) = (RUN_START.get(), Contention::now()) else {
        return;
    };
    let cores = start.foreign_cores_since(&end);
    eprintln!("benches: other processes used {cores:.2} cores on average during this run");
    record(benches::record_meta(
        benches::RUN_KEY,
        benches::BenchMeta {
            foreign_cores: Some(cores),
            ..Default::default()
        },
    ));
}

/// criterion's own bootstrap (its CIs, its comparison with its last run)
/// is informational here: the gate bootstraps the samples itself. 10,000
/// resamples instead of 100,000 cut its analysis after every benchmark
/// tenfold.
const CRITERION_RESAMPLES: usize = 10_000;

fn wall() -> Criterion {
    Criterion::default()
        .nresamples(CRITERION_RESAMPLES)
        .with_profiler(FlamegraphProfiler::new(CPU_SAMPLE_HZ))
}

fn cpu() -> Criterion<ThreadCpuTime> {
    Criterion::default()
        .nresamples(CRITERION_RESAMPLES)
        .with_measurement(ThreadCpuTime)
        .with_profiler(FlamegraphProfiler::new(CPU_SAMPLE_HZ))
}

criterion_group! {
    name = catalog_group;
    config = wall();
    targets = start_contention, catalog::benches, download::benches
}
criterion_group! {
    name = cpu_groups;
    config = cpu();
    targets = feasibility::benches, render::benches, kube_nodes::benches
}
criterion_group! {
    name = launch_group;
    config = wall();
    targets = launch::benches, process::benches, finish_contention
}
criterion_main!(catalog_group, cpu_groups, launch_group);
