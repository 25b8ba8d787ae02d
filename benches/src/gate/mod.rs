//! The regression gate: portable result files, thresholds and the
//! noise-aware comparison.
//!
//! * [`results`]: result files (types, reading and writing their JSON) and
//!   the [`Environment`] they were measured in;
//! * [`criterion`]: this run's samples, read from criterion's output folders;
//! * [`thresholds`]: the limits of `benches/thresholds.toml`;
//! * [`statistics`]: the seeded bootstrap behind wall-clock verdicts;
//! * [`comparison`]: the verdict per benchmark and metric;
//! * [`format`](mod@format): the terminal table and `summary.md`.
//!
//! **Verdict.** For timed benchmarks the change is
//! `median(head) / median(base) − 1` of the values the row shows: each side's
//! median reduced by that side's latency floor (the mocked latency on the
//! critical path, recorded by the launch benches; zero for CPU-bound ones).
//! The denominator is the base as shown, never inflated: a base at or below
//! zero has no relative change, and near-zero overheads are guarded by the
//! absolute threshold `min_abs_ms` instead. The 95 % confidence interval
//! comes from a seeded bootstrap (both sides resampled independently), so the
//! same two files always give the same verdict. A benchmark *regresses* when
//! the whole interval lies above its threshold (default +10 %) **and** the
//! absolute slowdown's interval lies above `min_abs_ms` (default 0); it
//! *improved* in mirror image. A benchmark that names a reference
//! (`ratio_to`, e.g. the process floor) also gets a ratio row: the change of
//! `median / median(reference)`, bootstrapped over all four sample sets and
//! judged against `ratio_pct` (default +10 %). Instruction counts (callgrind)
//! and peak RSS are compared directly against `instructions_pct` (+2 %) and
//! `rss_pct` (+10 %). A row on one side only is `new` or `missing`, never a
//! failure. The cases are tabled in `benches/fixtures/gate-verdicts.toml`.

pub mod comparison;
pub mod criterion;
pub mod format;
pub mod results;
pub mod statistics;
pub mod thresholds;
#[cfg(test)]
mod verdict_table;

use std::path::{Path, PathBuf};

use serde::Deserialize;

pub use comparison::{Metric, Row, Verdict, busy_machine, compare, regressions};
pub use criterion::{collect_criterion, subdirs};
pub use format::{HEADERS, fmt_ns, summary_markdown, text_table};
pub use results::{BenchResult, Environment, Results, SCHEMA, baseline_path, load_baseline};
pub use statistics::{Change, RESAMPLES, RatioSide, bootstrap_change, bootstrap_ratio_change};
pub use thresholds::{Limits, Override, Thresholds, glob_match};

/// Errors that name the file concerned and, where possible, the fix.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    /// A baseline file that does not exist.
    #[error(
        "baseline {} does not exist. Create it on the base revision with `just bench-save {name}` \
         (or `cargo run --release -p benches --bin bench-gate -- save {name}`)",
        path.display()
    )]
    MissingBaseline {
        /// The expected path.
        path: PathBuf,
        /// The name to pass to `just bench-save`.
        name: String,
    },
    /// A file that cannot be read or written (the I/O error is the source,
    /// printed after the message by `{:#}`).
    #[error("cannot access {}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A file that is not what it should be.
    #[error("invalid {}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// Reads and parses a JSON file, naming it in errors.
fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, GateError> {
    let bytes = std::fs::read(path).map_err(|source| GateError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_slice(&bytes).map_err(|e| GateError::Parse {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}
