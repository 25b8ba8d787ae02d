//! Where a result came from: CPU, cores, toolchain, revision. Stored in every
//! baseline so two result files can be judged comparable or not.

use std::path::Path;
use std::process::Command;

use serde::{Deserialize, Serialize};

/// The machine and source revision of a benchmark run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Environment {
    /// CPU model (`/proc/cpuinfo`).
    pub cpu: String,
    /// Logical cores available to the process.
    pub cores: usize,
    /// `rustc -V`.
    pub rustc: String,
    /// `git rev-parse --short HEAD` of the measured tree.
    pub git_rev: String,
    /// Whether the measured tree had uncommitted changes.
    pub git_dirty: bool,
    /// `uname -sr`-like OS description.
    pub os: String,
    /// Host name.
    pub host: String,
    /// Seconds since the Unix epoch when the run finished.
    pub unix_time: u64,
}

fn output(cmd: &str, args: &[&str], dir: &Path) -> Option<String> {
    let out = Command::new(cmd)
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

impl Environment {
    /// Describes this machine and the git tree at `workspace`.
    pub fn capture(workspace: &Path) -> Environment {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|t| {
                t.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".into());
        let cores = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1);
        let rustc = output("rustc", &["-V"], workspace).unwrap_or_else(|| "unknown".into());
        let git_rev = output("git", &["rev-parse", "--short", "HEAD"], workspace)
            .unwrap_or_else(|| "unknown".into());
        let git_dirty = output(
            "git",
            &["status", "--porcelain", "--untracked-files=no"],
            workspace,
        )
        .is_some_and(|s| !s.is_empty());
        let os =
            output("uname", &["-sr"], workspace).unwrap_or_else(|| std::env::consts::OS.into());
        let host = std::fs::read_to_string("/etc/hostname")
            .map(|h| h.trim().to_string())
            .ok()
            .filter(|h| !h.is_empty())
            .or_else(|| output("hostname", &[], workspace))
            .unwrap_or_else(|| "unknown".into());
        let unix_time = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        Environment {
            cpu,
            cores,
            rustc,
            git_rev,
            git_dirty,
            os,
            host,
            unix_time,
        }
    }

    /// `abc1234` or `abc1234+dirty`.
    pub fn revision(&self) -> String {
        if self.git_dirty {
            format!("{}+dirty", self.git_rev)
        } else {
            self.git_rev.clone()
        }
    }

    /// One line: `AMD EPYC, 2 cores, rustc 1.95.0, Linux 6.1, rev abc1234`.
    pub fn one_line(&self) -> String {
        format!(
            "{}, {} cores, {}, {}, rev {}",
            self.cpu,
            self.cores,
            self.rustc,
            self.os,
            self.revision()
        )
    }
}
