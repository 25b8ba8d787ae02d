//! Facts about the machine and the source tree a measurement ran on: probed
//! once here by [`Machine::probe`], then shown as the harness report's
//! [`SysInfo`] and stored in the bench gate's result files (its
//! `Environment` is built from a [`Machine`]).
//!
//! Every probe degrades to `unknown` instead of failing: a missing `git` or
//! `/proc` must not stop a measurement.

use std::path::Path;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

/// What `unknown` facts read as.
pub const UNKNOWN: &str = "unknown";

/// The revision of the measured tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revision {
    /// `git rev-parse HEAD`.
    pub sha: String,
    /// `git rev-parse --short HEAD`.
    pub short: String,
    /// Tracked files differ from `HEAD`. Untracked files do not count (as
    /// with `git describe --dirty`): report folders written under `reports/`
    /// must not make the next measurement of the same code "dirty".
    pub dirty: bool,
}

/// The machine, toolchain and revision, probed once.
#[derive(Debug, Clone)]
pub struct Machine {
    /// `model name` from `/proc/cpuinfo`.
    pub cpu: String,
    /// Available parallelism.
    pub cores: usize,
    /// `rustc -V`, run in the workspace (so a toolchain file there applies).
    pub rustc: String,
    /// `uname -sr`, else the target OS name.
    pub os: String,
    /// The kernel's host name as is, if known.
    pub host: Option<String>,
    /// The workspace's git revision, if it is a git checkout.
    pub git: Option<Revision>,
    /// 1/5/15-minute load averages (`/proc/loadavg`): other work on a
    /// 2-core machine shows up in every number.
    pub load: String,
    /// When the probe ran.
    pub at: SystemTime,
}

fn command(program: &str, args: &[&str], dir: &Path) -> Option<String> {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn cpu_model() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    text.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}

fn revision(workspace: &Path) -> Option<Revision> {
    // One call for both forms: `--short` applies to the revisions after it.
    let revs = command("git", &["rev-parse", "HEAD", "--short", "HEAD"], workspace)?;
    let mut lines = revs.lines();
    let (sha, short) = (lines.next()?.to_string(), lines.next()?.to_string());
    let dirty = command(
        "git",
        &["status", "--porcelain", "--untracked-files=no"],
        workspace,
    )
    .is_some_and(|s| !s.is_empty());
    Some(Revision { sha, short, dirty })
}

impl Machine {
    /// Probes this machine and the git tree at `workspace` (runs `git`,
    /// `rustc` and `uname` there).
    pub fn probe(workspace: &Path) -> Machine {
        let known = |v: Option<String>| v.unwrap_or_else(|| UNKNOWN.into());
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .map(|h| h.trim().to_string())
            .filter(|h| !h.is_empty())
            .or_else(|| command("hostname", &[], workspace).filter(|h| !h.is_empty()));
        Machine {
            cpu: known(cpu_model()),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            rustc: known(command("rustc", &["-V"], workspace)),
            os: command("uname", &["-sr"], workspace)
                .unwrap_or_else(|| std::env::consts::OS.into()),
            host,
            git: revision(workspace),
            load: known(
                std::fs::read_to_string("/proc/loadavg")
                    .ok()
                    .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" ")),
            ),
            at: SystemTime::now(),
        }
    }

    /// Seconds since the Unix epoch at the probe.
    pub fn unix_time(&self) -> u64 {
        self.at
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    }
}

/// Where and with what a harness report was made.
#[derive(Debug, Clone, Serialize)]
pub struct SysInfo {
    /// UTC date, `YYYY-MM-DD`.
    pub date: String,
    /// UTC time, RFC 3339.
    pub timestamp: String,
    /// Host name (file-name safe).
    pub host: String,
    /// `model name` from `/proc/cpuinfo`.
    pub cpu: String,
    /// Available parallelism.
    pub cores: usize,
    /// `rustc --version`.
    pub rustc: String,
    /// `git rev-parse HEAD`, with `-dirty` when tracked files have changes.
    pub git: String,
    /// Cargo profile the harness was built with.
    pub profile: &'static str,
    /// 1/5/15-minute load averages at the start (`/proc/loadavg`): other work
    /// on a 2-core machine shows up in every number.
    pub load: String,
}

/// Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// `(YYYY-MM-DD, YYYY-MM-DDTHH:MM:SSZ)` for `t`.
pub fn utc(t: SystemTime) -> (String, String) {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    let (y, m, d) = civil(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    let date = format!("{y:04}-{m:02}-{d:02}");
    let ts = format!("{date}T{:02}:{:02}:{:02}Z", s / 3600, s / 60 % 60, s % 60);
    (date, ts)
}

/// `raw` made usable in a folder name (`-` for anything but ASCII letters,
/// digits and `-`); `unknown-host` when there is nothing left.
pub fn file_safe_host(raw: Option<&str>) -> String {
    let clean: String = raw
        .unwrap_or_default()
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if clean.is_empty() {
        "unknown-host".into()
    } else {
        clean
    }
}

impl SysInfo {
    /// Collects everything now for the workspace the harness was built from.
    pub fn collect() -> SysInfo {
        SysInfo::from_machine(&Machine::probe(&crate::workspace::workspace_root()))
    }

    /// The report's view of a probe.
    pub fn from_machine(m: &Machine) -> SysInfo {
        let (date, timestamp) = utc(m.at);
        SysInfo {
            date,
            timestamp,
            host: file_safe_host(m.host.as_deref()),
            cpu: m.cpu.clone(),
            cores: m.cores,
            rustc: m.rustc.clone(),
            git: match &m.git {
                Some(r) if r.dirty => format!("{}-dirty", r.sha),
                Some(r) => r.sha.clone(),
                None => UNKNOWN.into(),
            },
            profile: if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            },
            load: m.load.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn utc_dates() {
        assert_eq!(utc(UNIX_EPOCH).1, "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_764_457_200); // 2025-11-29T23:00:00Z
        assert_eq!(utc(t).1, "2025-11-29T23:00:00Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29
        assert_eq!(utc(leap).0, "2000-02-29");
    }

    #[test]
    fn host_names_become_folder_safe() {
        assert_eq!(file_safe_host(Some("vm.local\n")), "vm-local");
        assert_eq!(file_safe_host(Some("  ")), "unknown-host");
        assert_eq!(file_safe_host(None), "unknown-host");
    }

    #[test]
    fn the_report_view_marks_dirty_trees() {
        let mut m = Machine::probe(Path::new("/nonexistent-dir"));
        assert!(m.git.is_none(), "no checkout there");
        assert_eq!(SysInfo::from_machine(&m).git, UNKNOWN);
        m.git = Some(Revision {
            sha: "abc123".into(),
            short: "abc".into(),
            dirty: true,
        });
        assert_eq!(SysInfo::from_machine(&m).git, "abc123-dirty");
    }
}
