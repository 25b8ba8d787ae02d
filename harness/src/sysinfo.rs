//! Facts about the machine and the build, for report READMEs.

use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

/// Where and with what a report was made.
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
    /// `git rev-parse HEAD`, with `-dirty` when the tree has changes.
    pub git: String,
    /// Cargo profile the harness was built with.
    pub profile: &'static str,
    /// 1/5/15-minute load averages at the start (`/proc/loadavg`): other work
    /// on a 2-core machine shows up in every number.
    pub load: String,
}

fn command(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
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

/// A host name usable in a folder name.
pub fn host() -> String {
    let raw = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| command("hostname", &[]))
        .unwrap_or_else(|| "unknown-host".into());
    let clean: String = raw
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
    /// Collects everything now (runs `git` and `rustc`; missing tools become `unknown`).
    pub fn collect() -> SysInfo {
        let (date, timestamp) = utc(SystemTime::now());
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|t| {
                t.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".into());
        let workspace = mocks::fixtures_dir()
            .parent()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| ".".into());
        let git = command("git", &["-C", &workspace, "rev-parse", "HEAD"])
            .map(|rev| {
                let dirty = command("git", &["-C", &workspace, "status", "--porcelain"])
                    .is_some_and(|s| !s.is_empty());
                if dirty { format!("{rev}-dirty") } else { rev }
            })
            .unwrap_or_else(|| "unknown".into());
        SysInfo {
            date,
            timestamp,
            host: host(),
            cpu,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            rustc: command("rustc", &["--version"]).unwrap_or_else(|| "unknown".into()),
            git,
            profile: if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            },
            load: std::fs::read_to_string("/proc/loadavg")
                .ok()
                .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
                .unwrap_or_else(|| "unknown".into()),
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
}
