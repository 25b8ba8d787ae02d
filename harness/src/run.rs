//! `harness run`: start the mocks, time every mode of every engine, make
//! the instrumented launches, write the report.
//!
//! Order: the timed launches of each mode (`sky`'s serial, concurrent and
//! warm; SkyPilot's no-cache and warm when it runs), then the in-process
//! instrumented launches (`trace.json`, span and CPU profiles of `sky`),
//! then one traced launch per mode made like its timed ones (timelines,
//! SkyPilot's py-spy profile). Everything after the timed launches is
//! excluded from the statistics.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mocks::MockSet;

use crate::baseline::{self, Baseline};
use crate::engine::{Launcher, Mode, ModeSetup, ProcessLauncher, Sample, measure_mode};
use crate::error::{HarnessError, Result};
use crate::flame::Moved;
use crate::floor::Deadlines;
use crate::in_process::InProcessLauncher;
use crate::instrument::{CpuBudget, Instrumented, instrumented_launches};
use crate::report::{ReportInput, write_report};
use crate::sandbox::{ModeEnv, Sandbox, forget_first_launch};
use crate::scenario::Scenario;
use crate::skypilot::home::{driver_path, record_enabled_clouds, skypilot_env};
use crate::skypilot::{SkyPilotLauncher, SkyPilotRun};
use crate::story;
use crate::summary::{ModeSummary, comparison_text, summarize};
use crate::sysinfo::SysInfo;
use crate::timeline::{LaunchTimeline, read_trace};
use crate::traced::{Launchers, Traced, from_in_process_trace, pick, traced_launches};

/// How `sky`'s launches are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// The real `sky` binary, one process per launch (what users see).
    Process,
    /// `optimizer::launch::run` in the harness process.
    InProcess,
}

/// Options of one harness run.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// The scenario.
    pub scenario: Scenario,
    /// Measured launches per `sky` mode.
    pub runs: usize,
    /// Warm-up launches per `sky` mode.
    pub warmup: usize,
    /// Process or in-process launches of `sky`.
    pub engine: Engine,
    /// Folder the report folder is created in.
    pub out_dir: PathBuf,
    /// Report folder name; default `<YYYY-MM-DD>-<host>-<scenario>`.
    pub folder_name: Option<String>,
    /// A previous report folder to compare with.
    pub baseline: Option<PathBuf>,
    /// The command line, for the README.
    pub command_line: String,
    /// Draw a progress bar on stderr (only when it is a terminal).
    pub progress: bool,
    /// The untraced warm launches feeding `sky`'s CPU profile.
    pub cpu: CpuBudget,
    /// Target samples of SkyPilot's py-spy profile (more profiled warm
    /// launches while below it, within `cpu.max_time`).
    pub skypilot_samples: u64,
    /// SkyPilot's modes, when it runs.
    pub skypilot: Option<SkyPilotRun>,
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// The report folder.
    pub report_dir: PathBuf,
    /// `sky`'s output of the first measured concurrent launch.
    pub optimizer_output: String,
    /// SkyPilot's output of its first measured launch, when it ran.
    pub skypilot_output: Option<String>,
    /// The comparison table as text.
    pub comparison: String,
    /// What the numbers say, one line per point.
    pub story: Vec<String>,
    /// Per-mode summaries.
    pub summaries: Vec<ModeSummary>,
    /// Span stacks that moved most against the baseline.
    pub moved: Option<Vec<Moved>>,
    /// The comparison with the baseline.
    pub baseline: Option<Baseline>,
    /// Wall time of the whole run.
    pub elapsed: Duration,
}

fn progress_bar(enabled: bool, total: u64) -> ProgressBar {
    if !enabled {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    let style =
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

fn create_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| HarnessError::io(dir, e))
}

/// A new folder `<parent>/<name>`, or `<name>-2`, `<name>-3`, … when an
/// earlier report has the name: a report is never written over another.
fn fresh_dir(parent: &Path, name: &str) -> Result<PathBuf> {
    for n in 1.. {
        let dir = if n == 1 {
            parent.join(name)
        } else {
            parent.join(format!("{name}-{n}"))
        };
        // `create_dir`, not `create_dir_all`: two runs racing for a name
        // cannot both get it.
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(HarnessError::io(&dir, e)),
        }
    }
    unreachable!("an unbounded range ends only by returning")
}

/// Everything the launches produced, before it is rendered.
struct Measured {
    samples: Vec<Sample>,
    optimizer_output: String,
    skypilot_output: Option<String>,
    instrumented: Instrumented,
    traced: Traced,
}

/// The clouds whose checks reach a mock of `spec` (the others read credential files only).
fn networked_clouds(spec: &mocks::MocksSpec) -> Vec<&'static str> {
    let mut out = Vec::new();
    if spec.sts.is_some() || spec.ec2.is_some() {
        out.push("aws");
    }
    if spec.gcp.is_some() {
        out.push("gcp");
    }
    if spec.kube.is_some() {
        out.push("kubernetes");
    }
    out
}

/// Runs the scenario and writes the report.
pub fn run(cfg: &RunConfig) -> Result<RunOutcome> {
    let started = Instant::now();
    let sys = SysInfo::collect();
    let scenario = &cfg.scenario;
    let folder = cfg
        .folder_name
        .clone()
        .unwrap_or_else(|| format!("{}-{}-{}", sys.date, sys.host, scenario.name));
    // Locate `sky` before starting anything, so a missing build fails fast.
    let mut process = match cfg.engine {
        Engine::Process => Some(ProcessLauncher::locate()?),
        Engine::InProcess => None,
    };
    let mut in_process = match cfg.engine {
        Engine::Process => None,
        Engine::InProcess => Some(InProcessLauncher::new()?),
    };
    let engine_text = match &process {
        Some(p) => format!("process: `{}` per launch", p.path().display()),
        None => "in-process: `optimizer::launch::run`".to_string(),
    };
    create_dir(&cfg.out_dir)?;
    // Absolute: SkyPilot's launches run in its sandbox HOME, and their
    // timeline and profile paths must still land in the report.
    let out_dir =
        std::path::absolute(&cfg.out_dir).map_err(|e| HarnessError::io(&cfg.out_dir, e))?;
    let report_dir = fresh_dir(&out_dir, &folder)?;

    // The mocks get their own runtime and threads (named, so the CPU profile can leave them out).
    let mocks_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("harness-mocks")
        .enable_all()
        .build()
        .map_err(|e| HarnessError::io("<tokio runtime>", e))?;
    let sandbox = Sandbox::new(scenario)?;
    let deadlines = Deadlines::for_scenario(scenario);
    let env_for = |mode: Mode, mocks: &MockSet| -> Result<ModeEnv> {
        match (&cfg.skypilot, mode.is_skypilot()) {
            (Some(sp), true) => skypilot_env(
                &sandbox,
                scenario,
                mocks,
                &sp.venv,
                &sp.harness_exe,
                mode.name(),
            ),
            _ => sandbox.mode_env(scenario, mocks, mode.name(), mode.serial()),
        }
    };

    let modes: Vec<Mode> = Mode::EVERY
        .into_iter()
        .filter(|m| !m.is_skypilot() || cfg.skypilot.is_some())
        .collect();
    let mut setups: Vec<ModeSetup<'_>> = Vec::new();
    for mode in &modes {
        let mocks = mocks_rt.block_on(MockSet::start(&scenario.file.mocks))?;
        let env = env_for(*mode, &mocks)?;
        setups.push(ModeSetup {
            mode: *mode,
            scenario,
            env,
            mocks,
        });
    }
    let mut skypilot = match &cfg.skypilot {
        Some(sp) => {
            let driver = driver_path(&sandbox);
            if let Some(setup) = setups.iter().find(|s| s.mode.is_skypilot()) {
                record_enabled_clouds(&sp.venv, &driver, &setup.env, scenario)?;
            }
            Some(SkyPilotLauncher::new(
                sp.venv.clone(),
                driver,
                sandbox.root().join("skypilot/results"),
            )?)
        }
        None => None,
    };

    let runs = |m: Mode| match (&cfg.skypilot, m.is_skypilot()) {
        (Some(sp), true) => sp.runs,
        _ => cfg.runs,
    };
    let warmups = |m: Mode| {
        let w = match (&cfg.skypilot, m.is_skypilot()) {
            (Some(sp), true) => sp.warmup,
            _ => cfg.warmup,
        };
        if m.refresh() { w } else { w.max(1) }
    };
    let total: usize = modes
        .iter()
        .map(|m| warmups(*m) + runs(*m) + 2)
        .sum::<usize>()
        + cfg.cpu.min_launches
        + usize::from(cfg.skypilot.is_some());
    let bar = progress_bar(cfg.progress, total as u64);
    let fresh = scenario.file.runs.fresh_mocks;
    let first_launch = scenario.file.mocks.ec2.is_some();
    let mut before = |setup: &mut ModeSetup<'_>| -> Result<()> {
        if fresh && setup.mode.refresh() {
            let mocks = mocks_rt.block_on(MockSet::start(&scenario.file.mocks))?;
            setup.env = env_for(setup.mode, &mocks)?;
            let old = std::mem::replace(&mut setup.mocks, mocks);
            let _enter = mocks_rt.enter();
            drop(old);
        }
        // A first launch: no zone-name file, no cached identity file, fetched from the mocks.
        if first_launch
            && setup.mode.refresh()
            && let Some(folder) = &setup.env.catalog_folder
        {
            forget_first_launch(folder)?;
        }
        Ok(())
    };

    let result = (|| -> Result<Measured> {
        let mut samples = Vec::new();
        let mut optimizer_output = String::new();
        let mut skypilot_output = None;
        for setup in setups.iter_mut() {
            let ours: &mut dyn Launcher = match (&mut process, &mut in_process) {
                (Some(p), _) => p,
                (None, Some(i)) => i,
                (None, None) => unreachable!("one of the two engines is always set up"),
            };
            let Some(launcher) = pick(setup.mode, ours, skypilot.as_mut()) else {
                continue;
            };
            bar.set_message(format!("{} ({})", setup.mode.label(), launcher.name()));
            let (s, first) = measure_mode(
                launcher,
                setup,
                &deadlines,
                warmups(setup.mode),
                runs(setup.mode),
                &mut before,
                &mut |_| bar.inc(1),
            )?;
            match (setup.mode, first) {
                (Mode::Concurrent, Some(out)) => optimizer_output = out.stdout,
                (Mode::SkyPilot, Some(out)) => skypilot_output = Some(out.stdout),
                _ => {}
            }
            samples.extend(s);
        }
        bar.set_message("instrumented launches (trace, spans, CPU profile)");
        if let Some(i) = in_process.take() {
            i.shutdown();
        }
        let instrumented = instrumented_launches(
            &mut setups,
            cfg.cpu,
            &mut before,
            &deadlines,
            &report_dir.join("trace.json"),
            &mut || bar.inc(1),
        )?;
        bar.set_message("traced launches (timelines, SkyPilot's profile)");
        let traced = traced_launches(
            &mut setups,
            Launchers {
                sky: process.as_mut(),
                skypilot: skypilot.as_mut(),
            },
            &mut before,
            &deadlines,
            &report_dir,
            cfg.skypilot_samples,
            cfg.cpu.max_time,
            &mut || bar.inc(1),
        )?;
        Ok(Measured {
            samples,
            optimizer_output,
            skypilot_output,
            instrumented,
            traced,
        })
    })();
    bar.finish_and_clear();
    drop(process);
    drop(skypilot);
    {
        // wiremock servers shut down from inside their runtime's context.
        let _enter = mocks_rt.enter();
        drop(setups);
    }
    mocks_rt.shutdown_timeout(Duration::from_secs(1));
    let measured = result?;

    let mut timelines: Vec<LaunchTimeline> = measured.traced.timelines.clone();
    if cfg.engine == Engine::InProcess {
        let trace = read_trace(&report_dir.join("trace.json"))?;
        let ours = from_in_process_trace(&trace, &measured.instrumented.traced, &deadlines);
        timelines.splice(0..0, ours);
    }
    timelines.sort_by_key(|t| t.mode);
    let networked = networked_clouds(&scenario.file.mocks);
    for t in &mut timelines {
        t.fold_quiet_clouds(&networked);
    }

    let summaries = summarize(&measured.samples);
    let comparison = comparison_text(&summaries);
    let story = story::story(&summaries, &timelines);
    let baseline = match &cfg.baseline {
        Some(dir) => Some(baseline::compare(
            dir,
            &measured.samples,
            &measured.instrumented.spans_rounds,
        )?),
        None => None,
    };
    let scenario_text =
        std::fs::read_to_string(&scenario.path).map_err(|e| HarnessError::io(&scenario.path, e))?;
    let input = ReportInput {
        scenario,
        scenario_text: &scenario_text,
        command: &cfg.command_line,
        sys: &sys,
        engine: engine_text,
        skypilot: cfg.skypilot.as_ref(),
        runs: cfg.runs,
        warmup: cfg.warmup,
        deadlines: &deadlines,
        samples: &measured.samples,
        summaries: &summaries,
        story: &story,
        instrumented: &measured.instrumented,
        traced: &measured.traced,
        timelines: &timelines,
        optimizer_output: &measured.optimizer_output,
        skypilot_output: measured.skypilot_output.as_deref(),
        baseline: cfg.baseline.as_deref().zip(baseline.as_ref()),
        elapsed_s: started.elapsed().as_secs_f64(),
    };
    write_report(&report_dir, &input)?;
    Ok(RunOutcome {
        report_dir,
        optimizer_output: measured.optimizer_output,
        skypilot_output: measured.skypilot_output,
        comparison,
        story,
        summaries,
        moved: baseline.as_ref().map(|b| b.moved.clone()),
        baseline,
        elapsed: started.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_folder_is_never_reused() {
        let tmp = tempfile::tempdir().unwrap();
        let a = fresh_dir(tmp.path(), "2026-12-01-host-seed").unwrap();
        std::fs::write(a.join("report.md"), "first").unwrap();
        let b = fresh_dir(tmp.path(), "2026-12-01-host-seed").unwrap();
        let c = fresh_dir(tmp.path(), "2026-12-01-host-seed").unwrap();
        assert_eq!(a.file_name().unwrap(), "2026-12-01-host-seed");
        assert_eq!(b.file_name().unwrap(), "2026-12-01-host-seed-2");
        assert_eq!(c.file_name().unwrap(), "2026-12-01-host-seed-3");
        assert_eq!(
            std::fs::read_to_string(a.join("report.md")).unwrap(),
            "first"
        );
    }
}
