//! The one criterion entry point: `cargo bench -p benches --bench main [-- FILTER]`.
//!
//! Groups live in modules: [`catalog`] (load + index), [`feasibility`]
//! (per-cloud feasibility and the whole pure optimizer), [`render`] (the
//! cost table) and [`launch`] (whole in-process launches against mocks).
//! `-- --profile-time 5 FILTER` profiles instead of measuring and writes
//! `target/criterion/<id>/profile/flamegraph.svg`.

mod catalog;
mod feasibility;
mod launch;
mod render;

use std::sync::OnceLock;

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

fn config() -> Criterion {
    Criterion::default().with_profiler(FlamegraphProfiler::new(DEFAULT_FREQUENCY))
}

criterion_group! {
    name = cpu;
    config = config();
    targets = catalog::benches, feasibility::benches, render::benches
}
criterion_group! {
    name = whole_launch;
    config = config();
    targets = launch::benches
}
criterion_main!(cpu, whole_launch);
