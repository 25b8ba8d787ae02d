//! SkyPilot's launches: one process per launch (`driver.py launch`), timed
//! from spawn to exit like `sky`'s, killed with its process group if it
//! outlives [`LAUNCH_TIMEOUT`] (SkyPilot has no deadline per cloud).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::engine::{LaunchOutput, Launcher, ModeSetup};
use crate::error::{HarnessError, Result};
use crate::skypilot::SkyPilotVenv;

/// The longest one SkyPilot launch may take before it is killed.
pub const LAUNCH_TIMEOUT: Duration = Duration::from_secs(300);

/// py-spy's sampling rate for the traced launches (samples per second per
/// thread; `--nonblocking`, so the process is never paused).
pub const PY_SPY_RATE: u32 = 250;

/// One phase the driver timed (unix microseconds, the clock of SkyPilot's timeline).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    /// `python start-up`, `import sky`, `task from flags`, `validate`, `optimize`.
    pub name: String,
    /// Start, µs since the Unix epoch.
    pub start_us: f64,
    /// End, µs since the Unix epoch.
    pub end_us: f64,
}

/// What the driver reported about one launch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DriverResult {
    /// 0 plan, 1 SkyPilot's answer that the request cannot be met, 2 usage
    /// error, 4 a crash (any other exception), 5 left loopback.
    pub exit_code: i32,
    /// SkyPilot's exception, `module.Type: message`.
    pub error: Option<String>,
    /// The phases, in order.
    pub phases: Vec<Phase>,
    /// Connections and lookups refused because they were not loopback.
    pub network_attempts: Vec<String>,
    /// `os.cpu_count()` (the default size of SkyPilot's thread pools).
    pub cpu_count: Option<u32>,
    /// When the driver had written its result (before the interpreter's
    /// exit), µs since the Unix epoch.
    #[serde(default)]
    pub end_us: Option<f64>,
    /// When the harness spawned the process, µs since the Unix epoch.
    #[serde(default)]
    pub spawn_us: f64,
}

/// How the next launch is instrumented.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    /// SkyPilot's timeline (`SKYPILOT_TIMELINE_FILE_PATH`).
    pub timeline: Option<PathBuf>,
    /// A py-spy raw profile (folded stacks) of the process and its subprocesses.
    pub profile: Option<PathBuf>,
}

/// Makes SkyPilot's launches.
pub struct SkyPilotLauncher {
    venv: SkyPilotVenv,
    driver: PathBuf,
    results: PathBuf,
    launches: usize,
    /// Instrumentation of the next launch (cleared after it).
    pub trace: Trace,
    /// What the driver reported about the last launch.
    pub last: Option<DriverResult>,
}

fn now_us() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1e6)
}

/// The last `n` lines of `text`.
fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// `text` without ANSI escape sequences (SkyPilot colours its table).
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

impl SkyPilotLauncher {
    /// A launcher running `driver` with `venv`'s Python; result files go to `results`.
    pub fn new(venv: SkyPilotVenv, driver: PathBuf, results: PathBuf) -> Result<Self> {
        std::fs::create_dir_all(&results).map_err(|e| HarnessError::io(&results, e))?;
        Ok(SkyPilotLauncher {
            venv,
            driver,
            results,
            launches: 0,
            trace: Trace::default(),
            last: None,
        })
    }

    /// The command of one launch with the scenario's flags and `result` file.
    fn command(&self, setup: &ModeSetup<'_>, result: &Path) -> Command {
        let trace = &self.trace;
        let mut cmd = match &trace.profile {
            Some(out) => {
                let mut c = Command::new(&self.venv.py_spy);
                c.args(["record", "--rate", &PY_SPY_RATE.to_string()])
                    .args([
                        "--nonblocking",
                        "--subprocesses",
                        "--nolineno",
                        "--format",
                        "raw",
                    ])
                    .arg("--output")
                    .arg(out)
                    .arg("--")
                    .arg(&self.venv.python);
                c
            }
            None => Command::new(&self.venv.python),
        };
        cmd.arg(&self.driver)
            .args(["launch", "--result"])
            .arg(result)
            .arg("--")
            .args(setup.scenario.file.request.skypilot_args())
            .env_clear()
            .envs(&setup.env.env)
            .current_dir(&setup.env.home)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(t) = &trace.timeline {
            cmd.env("SKYPILOT_TIMELINE_FILE_PATH", t);
        }
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        cmd
    }
}

/// Kills the process group `pgid` unless told the process ended within `timeout`.
fn watchdog(pgid: u32, timeout: Duration) -> mpsc::Sender<()> {
    let (tx, rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        if let Err(mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(timeout)
            && let Some(pid) = rustix::process::Pid::from_raw(pgid as i32)
        {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    });
    tx
}

impl Launcher for SkyPilotLauncher {
    fn launch(&mut self, setup: &ModeSetup<'_>) -> Result<LaunchOutput> {
        self.launches += 1;
        let result = self.results.join(format!("result-{}.json", self.launches));
        // Under py-spy, the process that exits is py-spy's (always 0): the
        // driver's result file is the only word on how the launch ended.
        let profiled = self.trace.profile.is_some();
        let mut cmd = self.command(setup, &result);
        let spawn_us = now_us();
        cmd.env("HARNESS_SPAWN_UNIX_US", format!("{spawn_us:.0}"));
        let child = cmd
            .spawn()
            .map_err(|e| HarnessError::io(&self.venv.python, e))?;
        let done = watchdog(child.id(), LAUNCH_TIMEOUT);
        let out = child.wait_with_output();
        let _ = done.send(());
        let out = out.map_err(|e| HarnessError::io(&self.venv.python, e))?;
        self.trace = Trace::default();
        let what = || format!("{}, SkyPilot exited {}", setup.mode.name(), out.status);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let report: Option<DriverResult> = std::fs::read(&result)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .map(|mut r: DriverResult| {
                r.spawn_us = spawn_us;
                r
            });
        let _ = std::fs::remove_file(&result);
        self.last = report.clone();
        let Some(report) = report else {
            return Err(HarnessError::Launch {
                what: what(),
                detail: format!(
                    "no result from the driver (killed after {LAUNCH_TIMEOUT:?}?)\n{}",
                    tail(&stderr, 8)
                ),
            });
        };
        if !report.network_attempts.is_empty() {
            return Err(HarnessError::Launch {
                what: what(),
                detail: format!(
                    "SkyPilot tried to leave loopback {} time(s): {:?}",
                    report.network_attempts.len(),
                    &report.network_attempts[..report.network_attempts.len().min(5)]
                ),
            });
        }
        // 0 plan, 1 SkyPilot's error for the request (a valid outcome, as for `sky`).
        let status_agrees = profiled || out.status.code() == Some(report.exit_code);
        if !matches!(report.exit_code, 0 | 1) || !status_agrees {
            return Err(HarnessError::Launch {
                what: what(),
                detail: format!(
                    "{}\n{}",
                    report.error.as_deref().unwrap_or("(no error reported)"),
                    tail(&stderr, 8)
                ),
            });
        }
        Ok(LaunchOutput {
            exit_code: report.exit_code,
            stdout: strip_ansi(&String::from_utf8_lossy(&out.stdout)),
        })
    }

    fn name(&self) -> &'static str {
        "skypilot"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_is_stripped_and_results_parse() {
        assert_eq!(strip_ansi("a \u{1b}[32m   ✔\u{1b}[0m b"), "a    ✔ b");
        let r: DriverResult = serde_json::from_str(
            r#"{"exit_code": 0, "error": null, "phases": [{"name": "import sky", "start_us": 1.0, "end_us": 2.5}],
                "network_attempts": [], "cpu_count": 2, "pid": 7}"#,
        )
        .unwrap();
        assert_eq!(r.phases[0].end_us, 2.5);
        assert_eq!(r.cpu_count, Some(2));
    }
}
