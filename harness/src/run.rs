//! `harness run`: start the mocks, time the three modes, instrument one launch
//! per mode, write the report.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mocks::MockSet;

use crate::engine::{Launcher, Mode, ModeSetup, ProcessLauncher, Sample, measure_mode};
use crate::error::{HarnessError, Result};
use crate::flame::{self, Chart, Counts, Moved};
use crate::floor::Deadlines;
use crate::in_process::InProcessLauncher;
use crate::instrument::{Instrumented, instrumented_launches};
use crate::report::{ReportInput, write_report};
use crate::sandbox::Sandbox;
use crate::scenario::Scenario;
use crate::summary::{ModeSummary, comparison_text, summarize};
use crate::sysinfo::SysInfo;

/// How launches are made.
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
    /// Measured launches per mode.
    pub runs: usize,
    /// Warm-up launches per mode.
    pub warmup: usize,
    /// Process or in-process launches.
    pub engine: Engine,
    /// Folder the report folder is created in.
    pub out_dir: PathBuf,
    /// Report folder name; default `<YYYY-MM-DD>-<host>-<scenario>`.
    pub folder_name: Option<String>,
    /// A previous report folder to diff against.
    pub baseline: Option<PathBuf>,
    /// The command line, for the README.
    pub command_line: String,
    /// Draw a progress bar on stderr (only when it is a terminal).
    pub progress: bool,
    /// Extra untraced warm in-process launches for the CPU profile.
    pub cpu_extra: usize,
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// The report folder.
    pub report_dir: PathBuf,
    /// The optimizer's output of the first measured concurrent launch.
    pub optimizer_output: String,
    /// The comparison table as text.
    pub comparison: String,
    /// Per-mode summaries.
    pub summaries: Vec<ModeSummary>,
    /// Span stacks that moved most against the baseline.
    pub moved: Option<Vec<Moved>>,
    /// Wall time of the whole run.
    pub elapsed: Duration,
}

/// The workspace root (parent of `fixtures/`), resolved at compile time.
pub fn workspace_root() -> PathBuf {
    let f = mocks::fixtures_dir();
    f.parent().map(Path::to_path_buf).unwrap_or(f)
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
    let mut launcher: Box<dyn Launcher> = match cfg.engine {
        Engine::Process => Box::new(ProcessLauncher::locate()?),
        Engine::InProcess => Box::new(InProcessLauncher::new()?),
    };
    let engine_text = match cfg.engine {
        Engine::Process => format!(
            "process: `{}` per launch",
            crate::engine::sky_path()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        ),
        Engine::InProcess => "in-process: `optimizer::launch::run`".to_string(),
    };
    create_dir(&cfg.out_dir)?;
    let report_dir = fresh_dir(&cfg.out_dir, &folder)?;

    // The mocks get their own runtime and threads (named, so the CPU profile can leave them out).
    let mocks_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("harness-mocks")
        .enable_all()
        .build()
        .map_err(|e| HarnessError::io("<tokio runtime>", e))?;
    let sandbox = Sandbox::new(scenario)?;
    let deadlines = Deadlines::for_scenario(scenario);

    let mut setups: Vec<ModeSetup<'_>> = Vec::new();
    for mode in Mode::ALL {
        let mocks = mocks_rt.block_on(MockSet::start(&scenario.file.mocks))?;
        let env = sandbox.mode_env(scenario, &mocks, mode.name(), mode.serial())?;
        setups.push(ModeSetup {
            mode,
            scenario,
            env,
            mocks,
        });
    }

    let warmups = |m: Mode| {
        if m == Mode::Warm {
            cfg.warmup.max(1)
        } else {
            cfg.warmup
        }
    };
    let total: usize = Mode::ALL
        .iter()
        .map(|m| warmups(*m) + cfg.runs)
        .sum::<usize>()
        + Mode::ALL.len()
        + cfg.cpu_extra;
    let bar = progress_bar(cfg.progress, total as u64);
    let fresh = scenario.file.runs.fresh_mocks;
    let mut before = |setup: &mut ModeSetup<'_>| -> Result<()> {
        if fresh && setup.mode != Mode::Warm {
            let mocks = mocks_rt.block_on(MockSet::start(&scenario.file.mocks))?;
            setup.env =
                sandbox.mode_env(scenario, &mocks, setup.mode.name(), setup.mode.serial())?;
            let old = std::mem::replace(&mut setup.mocks, mocks);
            let _enter = mocks_rt.enter();
            drop(old);
        }
        Ok(())
    };

    let result = (|| -> Result<(Vec<Sample>, String, Instrumented)> {
        let mut samples = Vec::new();
        let mut optimizer_output = String::new();
        for setup in setups.iter_mut() {
            bar.set_message(format!("{} ({})", setup.mode.label(), launcher.name()));
            let (s, first) = measure_mode(
                launcher.as_mut(),
                setup,
                &deadlines,
                warmups(setup.mode),
                cfg.runs,
                &mut before,
                &mut |_| bar.inc(1),
            )?;
            if setup.mode == Mode::Concurrent
                && let Some(out) = first
            {
                optimizer_output = out.stdout;
            }
            samples.extend(s);
        }
        bar.set_message("instrumented launches (trace, spans, CPU profile)");
        let instrumented = instrumented_launches(
            &mut setups,
            cfg.cpu_extra,
            &mut before,
            &deadlines,
            &report_dir.join("trace.json"),
            &mut || bar.inc(1),
        )?;
        Ok((samples, optimizer_output, instrumented))
    })();
    bar.finish_and_clear();
    drop(launcher);
    {
        // wiremock servers shut down from inside their runtime's context.
        let _enter = mocks_rt.enter();
        drop(setups);
    }
    mocks_rt.shutdown_timeout(Duration::from_secs(1));
    let (samples, optimizer_output, instrumented) = result?;

    let summaries = summarize(&samples);
    let comparison = comparison_text(&summaries);
    let subtitle = format!("{} · {} · {}", scenario.name, sys.date, sys.git);
    flame::render(
        &instrumented.spans,
        &Chart::new(
            "Wall-clock time by span (one launch per mode)",
            &subtitle,
            Counts::WallMicros,
        ),
        &report_dir.join("spans-flamegraph.svg"),
    )?;
    flame::render(
        &instrumented.cpu,
        &Chart::new(
            "On-CPU samples (cannot see waiting)",
            &subtitle,
            Counts::CpuSamples,
        ),
        &report_dir.join("cpu-flamegraph.svg"),
    )?;
    flame::write_folded(&instrumented.spans, &report_dir.join("spans.folded"))?;
    flame::write_folded(&instrumented.cpu, &report_dir.join("cpu.folded"))?;

    let moved = match &cfg.baseline {
        Some(base) => {
            let base_spans = flame::read_folded(&base.join("spans.folded"))?;
            let base_cpu = flame::read_folded(&base.join("cpu.folded"))?;
            let sub = format!("{subtitle} vs {}", base.display());
            for (negate, suffix) in [(false, "forward"), (true, "reverse")] {
                let title = format!("Wall-clock span time, baseline → now ({suffix})");
                flame::render_diff(
                    &base_spans,
                    &instrumented.spans,
                    negate,
                    &Chart::new(&title, &sub, Counts::WallMicros),
                    &report_dir.join(format!("diff-spans-{suffix}.svg")),
                )?;
                let title = format!("On-CPU samples, baseline → now ({suffix})");
                flame::render_diff(
                    &base_cpu,
                    &instrumented.cpu,
                    negate,
                    &Chart::new(&title, &sub, Counts::CpuSamples),
                    &report_dir.join(format!("diff-cpu-{suffix}.svg")),
                )?;
            }
            Some(flame::top_moved(&base_spans, &instrumented.spans, 10))
        }
        None => None,
    };

    let sky_args = ProcessLauncher::args(scenario, Mode::Concurrent);
    let scenario_text =
        std::fs::read_to_string(&scenario.path).map_err(|e| HarnessError::io(&scenario.path, e))?;
    let elapsed = started.elapsed();
    let input = ReportInput {
        scenario: &scenario.name,
        description: &scenario.file.description,
        scenario_text: &scenario_text,
        notes: &scenario.file.notes,
        mocks: &scenario.file.mocks,
        command: &cfg.command_line,
        sys: &sys,
        engine: engine_text,
        sky_args: &sky_args,
        runs: cfg.runs,
        warmup: cfg.warmup,
        deadlines: &deadlines,
        samples: &samples,
        summaries: &summaries,
        instrumented: &instrumented,
        optimizer_output: &optimizer_output,
        baseline: cfg.baseline.as_deref().zip(moved.as_deref()),
        elapsed_s: elapsed.as_secs_f64(),
    };
    write_report(&report_dir, &input)?;
    Ok(RunOutcome {
        report_dir,
        optimizer_output,
        comparison,
        summaries,
        moved,
        elapsed,
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
