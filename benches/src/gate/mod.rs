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
//! **Verdict.** For wall-clock benchmarks the change is
//! `median(head) / median(base) − 1`, where each side is first reduced by its
//! latency floor (the mocked latency on the critical path, recorded by the
//! launch benches; zero for CPU-bound ones). Its 95 % confidence interval
//! comes from a seeded bootstrap (both sides resampled independently), so the
//! same two files always give the same verdict. A benchmark *regresses* when
//! the whole interval lies above its threshold (default +10 %) **and** the
//! absolute slowdown's interval lies above `min_abs_ms` (default 0); it
//! *improved* when the interval lies wholly below −threshold. Instruction
//! counts (callgrind) are exact, so they regress when the change itself
//! exceeds their threshold (default +2 %).

pub mod comparison;
pub mod criterion;
pub mod format;
pub mod results;
pub mod statistics;
pub mod thresholds;

use std::path::{Path, PathBuf};

use serde::Deserialize;

pub use comparison::{Metric, Row, Verdict, busy_machine, compare, regressions};
pub use criterion::{collect_criterion, subdirs};
pub use format::{HEADERS, fmt_ns, summary_markdown, text_table};
pub use results::{BenchResult, Environment, Results, SCHEMA, baseline_path, load_baseline};
pub use statistics::{RESAMPLES, bootstrap_change};
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
