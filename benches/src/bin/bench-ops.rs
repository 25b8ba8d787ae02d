//! Runs each CPU-bound benchmark operation once, for callgrind:
//! `valgrind --tool=callgrind --dump-before='*bench_ops_start*'
//! --dump-before='*bench_ops_stop*' bench-ops [REGEX]`.
//!
//! Every selected operation runs once unmeasured (warm-up: lazy statics,
//! allocator), then once between [`bench_ops_start`] and [`bench_ops_stop`]:
//! callgrind dumps its counters on entering each, so every `bench_ops_stop`
//! dump holds exactly one operation (all threads). stdout lists
//! `measured <id>` in the same order. `--list` prints the ids. Normally
//! driven by `bench-gate instructions`.
//!
//! Besides the CPU-bound [`Op`]s it counts one whole launch,
//! [`LAUNCH_ID`] (cold, concurrent, mocks at zero latency, after one
//! unmeasured launch): its catalog parsing and client work are on the launch
//! path the wall-clock gate cannot judge finely on a busy machine. Thread
//! scheduling makes that count vary slightly between runs.

use std::process::ExitCode;

use benches::ops::{Inputs, Op};
use benches::{Cache, Fanout, LatencyModel, LaunchBench};

/// Id of the whole-launch count (the matching criterion benchmark's id).
const LAUNCH_ID: &str = "launch/cold-concurrent/latency-0";

/// Marks the start of a measured call (callgrind dumps on entry); never inlined.
#[inline(never)]
fn bench_ops_start() {
    std::hint::black_box(1u8);
}

/// Marks the end of a measured call (callgrind dumps on entry); never inlined.
#[inline(never)]
fn bench_ops_stop() {
    std::hint::black_box(2u8);
}

fn main() -> ExitCode {
    let arg = std::env::args().nth(1);
    if arg.as_deref() == Some("--list") {
        for op in Op::all() {
            println!("{}", op.id());
        }
        println!("{LAUNCH_ID}");
        return ExitCode::SUCCESS;
    }
    let filter = match arg.as_deref().map(regex::Regex::new).transpose() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("bench-ops: invalid filter regex: {e}");
            return ExitCode::from(2);
        }
    };
    let inputs = match Inputs::new() {
        Ok(i) => i,
        Err(e) => {
            eprintln!("bench-ops: {e:#}");
            return ExitCode::from(2);
        }
    };
    for op in Op::all()
        .into_iter()
        .filter(|op| filter.as_ref().is_none_or(|f| f.is_match(&op.id())))
    {
        op.run(&inputs);
        bench_ops_start();
        op.run(&inputs);
        bench_ops_stop();
        println!("measured {}", op.id());
    }
    if filter.as_ref().is_none_or(|f| f.is_match(LAUNCH_ID)) {
        if let Err(e) = count_launch() {
            eprintln!("bench-ops: {LAUNCH_ID}: {e:#}");
            return ExitCode::from(2);
        }
        println!("measured {LAUNCH_ID}");
    }
    ExitCode::SUCCESS
}

/// One launch between the markers; setup (mocks, first launch) outside.
fn count_launch() -> anyhow::Result<()> {
    let rt = benches::runtime()?;
    let bench = rt.block_on(LaunchBench::start(
        LatencyModel::Zero,
        Cache::Cold,
        Fanout::Concurrent,
    ))?;
    bench_ops_start();
    let result = rt.block_on(bench.run_once());
    bench_ops_stop();
    result.map(|_| ())
}
