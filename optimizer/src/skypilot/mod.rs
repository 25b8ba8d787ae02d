//! SkyPilot's own CLI, behind this `sky`: where it is ([`locate`]), what it
//! is given ([`words`]: the words a pass-through keeps and a hand-off
//! rewrites; [`write_task`]: the pinned task file) and running it with
//! the terminal, signals and exit code passed along ([`run`]).
//!
//! `sky` plans; SkyPilot provisions and manages. Every subcommand this `sky`
//! does not implement runs SkyPilot's CLI with the same words, and a
//! confirmed `sky launch` runs SkyPilot's `sky launch` on the task with the
//! plan pinned (`planner::handoff`).

mod locate;
mod run;
pub mod words;

pub use locate::{Locate, LocateError, MAX_DEPTH, locate};
pub use run::run;

use std::io::Write;

/// The environment variable naming SkyPilot's CLI (a path to its `sky`).
pub const CLI_VAR: &str = "SKYPILOT_CLI";

/// The environment variable this `sky` sets for the CLI it runs: how many
/// hand-offs deep the child is (the loop guard, [`MAX_DEPTH`]).
pub const DEPTH_VAR: &str = "SKY_HANDOFF_DEPTH";

/// How to install SkyPilot, for the error that says it is missing.
pub const INSTALL_HINT: &str =
    "pip install 'skypilot[aws,gcp,kubernetes]==0.14.1' (the clouds you use in brackets)";

/// The hand-off depth `value` of [`DEPTH_VAR`] says (0 when unset or not a number).
pub fn depth(value: Option<&std::ffi::OsStr>) -> u32 {
    value
        .and_then(|v| v.to_str())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

/// Writes the pinned task to a private temporary file (mode 0600, removed
/// when the returned handle drops: after SkyPilot has exited).
pub fn write_task(yaml: &str) -> std::io::Result<tempfile::NamedTempFile> {
    let mut file = tempfile::Builder::new()
        .prefix("sky-handoff-")
        .suffix(".yaml")
        .tempfile()?;
    file.write_all(yaml.as_bytes())?;
    file.flush()?;
    Ok(file)
}
