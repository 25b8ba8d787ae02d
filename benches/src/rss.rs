//! Peak resident set size of one child process, measured by GNU `time`
//! (`/usr/bin/time -f %M`, the kernel's `ru_maxrss` of that child, KiB).
//!
//! A child inherits the peak RSS of whatever forked it (Linux keeps the
//! pre-`exec` high-water mark in `ru_maxrss`), so the measuring process must
//! be small: GNU `time` is (~1 MB), the bench executable is not (a
//! hello-world child read as 9.6 MB when the bench executable measured it
//! itself). Without GNU time (`apt-get install time`) the rows have no peak
//! RSS and the gate lists them as missing, never failed.

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, bail};

/// GNU `time`.
pub const GNU_TIME: &str = "/usr/bin/time";

/// Whether GNU `time` is installed.
pub fn available() -> bool {
    Path::new(GNU_TIME).is_file()
}

/// Runs `command` (its program, arguments and environment; the environment
/// cleared first, as the rows run it) under GNU `time` and returns its peak
/// RSS in KiB; `None` when GNU `time` is not installed. Fails when the
/// process does not exit 0.
pub fn peak_rss_kib(command: &Command) -> anyhow::Result<Option<u64>> {
    if !available() {
        return Ok(None);
    }
    let out_file = tempfile::NamedTempFile::new().context("creating a file for GNU time")?;
    let mut timed = Command::new(GNU_TIME);
    timed
        .args(["-f", "%M", "-o"])
        .arg(out_file.path())
        .arg(command.get_program())
        .args(command.get_args())
        .env_clear()
        .stdin(Stdio::null());
    for (k, v) in command.get_envs() {
        if let Some(v) = v {
            timed.env(k, v);
        }
    }
    let out = timed
        .output()
        .with_context(|| format!("running {GNU_TIME}"))?;
    if !out.status.success() {
        bail!(
            "`{}` exited {} under {GNU_TIME}: {}",
            command.get_program().to_string_lossy(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let text = std::fs::read_to_string(out_file.path())
        .with_context(|| format!("reading {}", out_file.path().display()))?;
    let kib = text
        .lines()
        .rev()
        .find_map(|l| l.trim().parse().ok())
        .with_context(|| format!("{GNU_TIME} wrote no peak RSS: {text:?}"))?;
    Ok(Some(kib))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_child_reads_small() {
        if !available() {
            eprintln!("skipped: {GNU_TIME} is not installed (apt-get install time)");
            return;
        }
        let mut c = Command::new("/bin/true");
        c.env("X", "1");
        let kib = peak_rss_kib(&c)
            .unwrap_or_else(|e| panic!("{e:#}"))
            .unwrap_or_default();
        // `true` needs a few hundred KiB to a few MiB; the test process
        // itself is far larger and must not show through.
        assert!((100..8 * 1024).contains(&kib), "{kib} KiB");
        assert!(peak_rss_kib(&Command::new("/bin/false")).is_err());
    }
}
