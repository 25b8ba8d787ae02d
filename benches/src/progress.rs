//! Progress for the criterion suite on a terminal: "benchmark i of n", the
//! step it is at, and the elapsed time on one line, with criterion's result
//! lines printed above it. Off a terminal nothing is intercepted: criterion
//! prints its plain lines, one per step.
//!
//! criterion writes its progress ("Benchmarking ID: Warming up ...") to
//! stderr and its results to stdout (`criterion::report::CliReport`), and
//! overwrites its progress in place only when stdout is a terminal. With both
//! streams piped here, its progress arrives as plain lines that [`Step::parse`]
//! reads.

use std::io::{BufRead, BufReader, IsTerminal, Read};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A line of criterion's progress output.
#[derive(Debug, PartialEq, Eq)]
pub enum Step<'a> {
    /// `Benchmarking ID` (a benchmark starts) or `Benchmarking ID: WHAT`.
    Benchmark {
        /// The benchmark id (`group/name`).
        id: &'a str,
        /// The step (`Warming up for 3.0000 s`, `Analyzing`); `None` at its start.
        what: Option<&'a str>,
    },
    /// Any other line (warnings, errors): shown as is.
    Other(&'a str),
}

impl<'a> Step<'a> {
    /// Reads one line of criterion's stderr.
    pub fn parse(line: &'a str) -> Step<'a> {
        let Some(rest) = line.strip_prefix("Benchmarking ") else {
            return Step::Other(line);
        };
        // Ids contain '/' and may contain ':'; criterion's steps follow the last ": ".
        match rest.rsplit_once(": ") {
            Some((id, what)) => Step::Benchmark {
                id,
                what: Some(what),
            },
            None => Step::Benchmark {
                id: rest,
                what: None,
            },
        }
    }
}

/// Whether progress is drawn: stderr is a terminal (not a pipe, not a CI log).
pub fn on_terminal() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
}

/// How many benchmarks `list` (the suite command with `--list`) names.
pub fn count_benchmarks(mut list: Command) -> anyhow::Result<u64> {
    let out = list
        .stderr(Stdio::inherit())
        .output()
        .context("listing the benchmarks (`--list`)")?;
    anyhow::ensure!(
        out.status.success(),
        "listing the benchmarks failed ({})",
        out.status
    );
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.ends_with(": benchmark"))
        .count() as u64)
}

/// Runs `cmd` (the criterion suite) with a progress line over `total`
/// benchmarks; criterion's results and any other line are printed above it.
pub fn run_with_progress(mut cmd: Command, total: u64) -> anyhow::Result<std::process::ExitStatus> {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] benchmark {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    let mut child: Child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("starting the benchmark suite")?;
    let stdout = child.stdout.take().context("suite stdout")?;
    let stderr = child.stderr.take().context("suite stderr")?;
    let results = {
        let bar = bar.clone();
        std::thread::spawn(move || forward(stdout, |line| bar.println(line)))
    };
    let mut started = 0u64;
    let mut current = String::new();
    forward(stderr, |line| match Step::parse(line) {
        Step::Benchmark { id, what } => {
            if id != current {
                current = id.to_string();
                started += 1;
                // The position counts finished benchmarks.
                bar.set_position(started.saturating_sub(1).min(total));
            }
            bar.set_message(match what {
                Some(what) => format!("{id}: {}", what.to_lowercase()),
                None => id.to_string(),
            });
        }
        Step::Other(text) => bar.println(text),
    });
    let _ = results.join();
    let status = child.wait().context("waiting for the benchmark suite")?;
    bar.set_position(started.min(total));
    bar.finish_and_clear();
    Ok(status)
}

fn forward(stream: impl Read, mut each: impl FnMut(&str)) {
    for line in BufReader::new(stream).lines() {
        match line {
            Ok(line) => each(&line),
            Err(_) => break,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn criterion_progress_lines_name_the_benchmark_and_the_step() {
        let cases = [
            (
                "Benchmarking launch/warm",
                Step::Benchmark {
                    id: "launch/warm",
                    what: None,
                },
            ),
            (
                "Benchmarking launch/warm: Warming up for 3.0000 s",
                Step::Benchmark {
                    id: "launch/warm",
                    what: Some("Warming up for 3.0000 s"),
                },
            ),
            (
                "Benchmarking catalog/load: aws: Analyzing",
                Step::Benchmark {
                    id: "catalog/load: aws",
                    what: Some("Analyzing"),
                },
            ),
            (
                "Warning: Unable to complete 100 samples in 5.0s.",
                Step::Other("Warning: Unable to complete 100 samples in 5.0s."),
            ),
        ];
        for (line, want) in cases {
            assert_eq!(Step::parse(line), want, "{line}");
        }
    }
}
