//! Modes, the [`Launcher`] trait, the real `sky` process as a launcher, and
//! the measuring loop. The in-process launcher lives in [`crate::in_process`].

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use mocks::MockSet;
use serde::Serialize;

use crate::error::{HarnessError, Result};
use crate::floor::{Deadlines, observed};
pub use crate::requests::{EndpointHits, hits};
use crate::sandbox::ModeEnv;
use crate::scenario::Scenario;
use crate::timing::{Pass, ms, passes, timed};

/// Which launcher makes a mode's launches, and how it checks the clouds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// `sky`, one cloud after another, nothing cached (`SKY_FANOUT=serial
    /// --refresh`): SkyPilot's behaviour before its thread pool.
    Serial,
    /// `sky`, all clouds at once, nothing cached (`--refresh`).
    Concurrent,
    /// `sky`, all clouds at once with a warm identity/node/reservation cache
    /// (filled by the warm-up launch).
    Warm,
    /// SkyPilot 0.14.1 as shipped (its thread pool over clouds), on a machine
    /// where it has cached nothing yet (no zone-name file, no identity file).
    #[serde(rename = "skypilot")]
    SkyPilot,
    /// SkyPilot 0.14.1 with whatever it keeps between launches (filled by
    /// the warm-up launch).
    #[serde(rename = "skypilot-warm")]
    SkyPilotWarm,
}

impl Mode {
    /// The modes of `sky`, in report order.
    pub const ALL: [Mode; 3] = [Mode::Serial, Mode::Concurrent, Mode::Warm];

    /// SkyPilot 0.14.1's modes, in report order (after `sky`'s).
    pub const SKYPILOT: [Mode; 2] = [Mode::SkyPilot, Mode::SkyPilotWarm];

    /// Every mode, `sky`'s then SkyPilot's.
    pub const EVERY: [Mode; 5] = [
        Mode::Serial,
        Mode::Concurrent,
        Mode::Warm,
        Mode::SkyPilot,
        Mode::SkyPilotWarm,
    ];

    /// Short name (file names, JSON).
    pub fn name(self) -> &'static str {
        match self {
            Mode::Serial => "serial",
            Mode::Concurrent => "concurrent",
            Mode::Warm => "warm",
            Mode::SkyPilot => "skypilot",
            Mode::SkyPilotWarm => "skypilot-warm",
        }
    }

    /// Table label.
    pub fn label(self) -> &'static str {
        match self {
            Mode::Serial => "serial, no cache",
            Mode::Concurrent => "concurrent, no cache",
            Mode::Warm => "concurrent, warm cache",
            Mode::SkyPilot => "SkyPilot 0.14.1, no cache",
            Mode::SkyPilotWarm => "SkyPilot 0.14.1, warm",
        }
    }

    /// Whether the fan-out is serial.
    pub fn serial(self) -> bool {
        self == Mode::Serial
    }

    /// Whether nothing is cached: `sky`'s caches are bypassed (`--refresh`),
    /// and the AWS zone names and SkyPilot's identity file are removed
    /// before each launch when the scenario mocks EC2 (a first launch).
    pub fn refresh(self) -> bool {
        !matches!(self, Mode::Warm | Mode::SkyPilotWarm)
    }

    /// Whether SkyPilot 0.14.1 makes the launches (else `sky`).
    pub fn is_skypilot(self) -> bool {
        matches!(self, Mode::SkyPilot | Mode::SkyPilotWarm)
    }
}

/// Everything a launcher needs for one mode.
pub struct ModeSetup<'a> {
    /// The mode.
    pub mode: Mode,
    /// The scenario.
    pub scenario: &'a Scenario,
    /// The mode's environment (points at `mocks`).
    pub env: ModeEnv,
    /// The mode's mocks (each mode gets a fresh set, so every mode sees the same latency sequence).
    pub mocks: MockSet,
}

/// Called before every launch; may replace the setup's mocks (see
/// [`crate::scenario::RunsSpec::fresh_mocks`]).
pub type BeforeLaunch<'h> = dyn FnMut(&mut ModeSetup<'_>) -> Result<()> + 'h;

/// What one launch produced.
#[derive(Debug, Clone)]
pub struct LaunchOutput {
    /// `sky`'s exit code: 0 plan, 1 request error, 3 partial table.
    pub exit_code: i32,
    /// The optimizer's output (the table).
    pub stdout: String,
}

/// Something that performs one launch. The measuring loop times the call.
pub trait Launcher {
    /// Launches once, blocking until done.
    fn launch(&mut self, setup: &ModeSetup<'_>) -> Result<LaunchOutput>;
    /// `process` or `in-process`.
    fn name(&self) -> &'static str;
}

/// Runs the real `sky` binary: what users see, process start-up included.
#[derive(Debug, Clone)]
pub struct ProcessLauncher {
    sky: PathBuf,
}

/// Where `sky` is expected: next to the running executable (`target/<profile>/`),
/// looking through `deps/` for test binaries.
pub fn sky_path() -> Result<PathBuf> {
    let exe = std::env::current_exe().map_err(|e| HarnessError::io("<current exe>", e))?;
    let mut dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    if dir.file_name().is_some_and(|n| n == "deps") {
        dir.pop();
    }
    let path = dir.join(format!("sky{}", std::env::consts::EXE_SUFFIX));
    if path.is_file() {
        Ok(path)
    } else {
        Err(HarnessError::SkyMissing {
            release: dir.file_name().is_some_and(|n| n == "release"),
            path,
        })
    }
}

impl ProcessLauncher {
    /// A launcher for the `sky` binary at `sky`.
    pub fn new(sky: PathBuf) -> Self {
        ProcessLauncher { sky }
    }

    /// The `sky` binary next to the running executable.
    pub fn locate() -> Result<Self> {
        sky_path().map(ProcessLauncher::new)
    }

    /// The argument list of a launch in `mode`.
    pub fn args(scenario: &Scenario, mode: Mode) -> Vec<String> {
        let mut a: Vec<String> = ["launch", "--dryrun", "-c", "harness"]
            .map(String::from)
            .to_vec();
        if mode.refresh() {
            a.push("--refresh".into());
        }
        if let Some(dir) = &scenario.catalog_dir {
            a.push("--catalog-dir".into());
            a.push(dir.display().to_string());
        }
        a.extend(scenario.file.request.args());
        a
    }

    /// The binary.
    pub fn path(&self) -> &Path {
        &self.sky
    }
}

fn accept(exit_code: i32, what: impl FnOnce() -> String, detail: &str) -> Result<()> {
    // 0 plan, 1 SkyPilot's request error (a valid outcome of a scenario), 3 partial table.
    if matches!(exit_code, 0 | 1 | 3) {
        Ok(())
    } else {
        Err(HarnessError::Launch {
            what: what(),
            detail: detail.to_string(),
        })
    }
}

impl Launcher for ProcessLauncher {
    fn launch(&mut self, setup: &ModeSetup<'_>) -> Result<LaunchOutput> {
        let out = Command::new(&self.sky)
            .env_clear()
            .envs(&setup.env.env)
            .args(ProcessLauncher::args(setup.scenario, setup.mode))
            .output()
            .map_err(|e| HarnessError::io(&self.sky, e))?;
        let exit_code = out.status.code().unwrap_or(-1);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: String = stderr
            .lines()
            .rev()
            .take(8)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n");
        accept(
            exit_code,
            || format!("{}, `sky` exited {}", setup.mode.name(), out.status),
            &tail,
        )?;
        Ok(LaunchOutput {
            exit_code,
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        })
    }

    fn name(&self) -> &'static str {
        "process"
    }
}

/// One timed launch.
#[derive(Debug, Clone, Serialize)]
pub struct Sample {
    /// Mode.
    pub mode: Mode,
    /// Index within the mode (warm-ups first).
    pub index: usize,
    /// Warm-up launches are recorded but excluded from the statistics.
    pub warmup: bool,
    /// Wall time of the launch, ms.
    pub wall_ms: f64,
    /// Latency floor of this launch, ms (see [`crate::floor`]).
    pub floor_ms: f64,
    /// `wall_ms - floor_ms`.
    pub overhead_ms: f64,
    /// What the floor is made of.
    pub critical_path: String,
    /// `sky`'s exit code.
    pub exit_code: i32,
    /// Endpoints that received requests.
    pub requests: Vec<EndpointHits>,
}

/// Times one launch and computes its floor from the mocks' recordings of
/// it ([`observed`]: the heaviest chain of one-after-another mocked requests).
pub fn timed_launch(
    launcher: &mut dyn Launcher,
    setup: &ModeSetup<'_>,
    deadlines: &Deadlines,
    pass: Pass,
) -> Result<(Sample, LaunchOutput)> {
    setup.mocks.clear();
    let start = Instant::now().saturating_duration_since(setup.mocks.origin());
    let (out, wall) = timed(|| launcher.launch(setup));
    let out = out?;
    let requests = hits(&setup.mocks.recordings(), start);
    let f = observed(&requests, ms(wall), deadlines);
    let sample = Sample {
        mode: setup.mode,
        index: pass.index,
        warmup: pass.warmup,
        wall_ms: ms(wall),
        floor_ms: f.total_ms,
        overhead_ms: ms(wall) - f.total_ms,
        critical_path: f.critical,
        exit_code: out.exit_code,
        requests,
    };
    Ok((sample, out))
}

/// `warmup` unmeasured then `runs` measured launches of one mode; `tick` is
/// called after each launch (progress bars). Returns the samples (warm-ups
/// included, flagged) and the output of the first measured launch.
pub fn measure_mode(
    launcher: &mut dyn Launcher,
    setup: &mut ModeSetup<'_>,
    deadlines: &Deadlines,
    warmup: usize,
    runs: usize,
    before: &mut BeforeLaunch<'_>,
    tick: &mut dyn FnMut(&Sample),
) -> Result<(Vec<Sample>, Option<LaunchOutput>)> {
    let mut samples = Vec::with_capacity(warmup + runs);
    let mut first = None;
    for pass in passes(warmup, runs) {
        before(setup)?;
        let (sample, out) = timed_launch(launcher, setup, deadlines, pass)?;
        if !pass.warmup && first.is_none() {
            first = Some(out);
        }
        tick(&sample);
        samples.push(sample);
    }
    Ok((samples, first))
}
