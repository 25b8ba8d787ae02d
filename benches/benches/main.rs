//! The one criterion entry point: `cargo bench -p benches --bench main [-- FILTER]`.
//!
//! Groups live in modules: [`catalog`] (load + index), [`feasibility`]
//! (per-cloud feasibility and the whole pure optimizer), [`render`] (the
//! cost table) and [`launch`] (whole in-process launches against mocks).
//! The single-threaded CPU-bound groups (feasibility, optimize, render)
//! measure the benchmark thread's CPU time ([`benches::clock`]); catalog
//! loads (multi-threaded) and launches (waiting on mocks) measure wall time.
//! `-- --profile-time 5 FILTER` profiles instead of measuring and writes
//! `target/criterion/<id>/profile/flamegraph.svg`.

mod catalog;
mod feasibility;
mod launch;
mod render;

use std::sync::OnceLock;

use benches::clock::ThreadCpuTime;
use benches::flame::{DEFAULT_FREQUENCY, FlamegraphProfiler};
use benches::ops::Inputs;
use criterion::{Criterion, criterion_group, criterion_main};

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

fn wall() -> Criterion {
    Criterion::default().with_profiler(FlamegraphProfiler::new(DEFAULT_FREQUENCY))
}

fn cpu() -> Criterion<ThreadCpuTime> {
    Criterion::default()
        .with_measurement(ThreadCpuTime)
        .with_profiler(FlamegraphProfiler::new(DEFAULT_FREQUENCY))
}

criterion_group! {
    name = catalog_group;
    config = wall();
    targets = catalog::benches
}
criterion_group! {
    name = cpu_groups;
    config = cpu();
    targets = feasibility::benches, render::benches
}
criterion_group! {
    name = launch_group;
    config = wall();
    targets = launch::benches
}
criterion_main!(catalog_group, cpu_groups, launch_group);
