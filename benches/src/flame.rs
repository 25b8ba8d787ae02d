//! CPU flamegraphs: a criterion [`Profiler`] (pprof's `setitimer` sampler →
//! folded stacks → inferno SVG) that criterion calls only under
//! `--profile-time N`, so measured runs carry no sampling overhead; plus
//! differential flamegraphs for the pull-request report.
//!
//! pprof's own `criterion`/`flamegraph` features target criterion 0.5 and
//! inferno 0.11, hence this small implementation (see the shared
//! `rust-crates.md` §6). Sampling is capped by the kernel tick (250 Hz here).

use std::io::BufReader;
use std::path::Path;

use criterion::profiler::Profiler;
use pprof::ProfilerGuard;

/// Samples per second asked of pprof (the kernel tick caps it anyway).
pub const DEFAULT_FREQUENCY: i32 = 250;

/// Writes `flamegraph.svg` and `folded.txt` into criterion's
/// `target/criterion/<id>/profile/` for every profiled benchmark.
pub struct FlamegraphProfiler {
    frequency: i32,
    guard: Option<ProfilerGuard<'static>>,
}

impl FlamegraphProfiler {
    /// A profiler sampling at `frequency` Hz (at most 250 Hz helps here).
    pub fn new(frequency: i32) -> Self {
        FlamegraphProfiler {
            frequency,
            guard: None,
        }
    }
}

impl Profiler for FlamegraphProfiler {
    fn start_profiling(&mut self, benchmark_id: &str, _dir: &Path) {
        match pprof::ProfilerGuardBuilder::default()
            .frequency(self.frequency)
            .build()
        {
            Ok(g) => self.guard = Some(g),
            Err(e) => eprintln!("profiling {benchmark_id}: cannot start pprof: {e}"),
        }
    }

    fn stop_profiling(&mut self, benchmark_id: &str, dir: &Path) {
        let Some(guard) = self.guard.take() else {
            return;
        };
        let result = guard
            .report()
            .build()
            .map_err(|e| e.to_string())
            .and_then(|report| {
                let folded = folded_lines(&report);
                std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
                std::fs::write(dir.join("folded.txt"), folded.join("\n") + "\n")
                    .map_err(|e| e.to_string())?;
                write_flamegraph(&folded, benchmark_id, &dir.join("flamegraph.svg"))
                    .map_err(|e| e.to_string())
            });
        match result {
            Ok(()) => eprintln!("flamegraph: {}", dir.join("flamegraph.svg").display()),
            Err(e) => eprintln!("profiling {benchmark_id}: {e}"),
        }
    }
}

/// `thread;outermost;…;innermost count` lines, sorted (deterministic input for inferno).
pub fn folded_lines(report: &pprof::Report) -> Vec<String> {
    let mut lines: Vec<String> = report
        .data
        .iter()
        .map(|(frames, count)| {
            let mut stack = vec![frames.thread_name_or_id()];
            for frame in frames.frames.iter().rev() {
                stack.extend(frame.iter().rev().map(|s| s.to_string()));
            }
            format!("{} {count}", stack.join(";"))
        })
        .collect();
    lines.sort();
    lines
}

fn options(title: &str) -> inferno::flamegraph::Options<'static> {
    let mut o = inferno::flamegraph::Options::default();
    o.title = title.to_string();
    o.count_name = "samples".into();
    o.deterministic = true;
    o.hash = true;
    o
}

/// Renders folded lines as an SVG flamegraph.
pub fn write_flamegraph(folded: &[String], title: &str, out: &Path) -> std::io::Result<()> {
    let file = std::fs::File::create(out)?;
    if folded.is_empty() {
        return std::fs::write(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\"><text y=\"20\">no samples</text></svg>\n",
        );
    }
    inferno::flamegraph::from_lines(&mut options(title), folded.iter().map(String::as_str), file)
}

/// Differential flamegraph of `after` against `before` (folded files): the
/// shape is `after`'s, red where it grew, blue where it shrank. Counts are
/// normalised so a uniformly slower machine does not paint everything red.
pub fn write_differential(
    before: &Path,
    after: &Path,
    title: &str,
    out: &Path,
) -> std::io::Result<()> {
    let mut diff = Vec::new();
    let b = BufReader::new(std::fs::File::open(before)?);
    let a = BufReader::new(std::fs::File::open(after)?);
    inferno::differential::from_readers(
        inferno::differential::Options {
            normalize: true,
            strip_hex: true,
        },
        b,
        a,
        &mut diff,
    )?;
    let file = std::fs::File::create(out)?;
    if diff.is_empty() {
        return std::fs::write(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\"><text y=\"20\">no samples</text></svg>\n",
        );
    }
    inferno::flamegraph::from_reader(&mut options(title), &diff[..], file)
}
