//! `harness` binary: parses the command line and calls into the harness library.
//!
//! Exit codes: 0 success; 1 failure (the message says why); 2 usage error (clap).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand, ValueEnum};
use harness::baseline::TRACED_ROUNDS;
use harness::instrument::CpuBudget;
use harness::run::{Engine, RunConfig, RunOutcome};
use harness::scenario::{Scenario, default_scenarios_dir};
use harness::skypilot::{SkyPilotRun, SkyPilotVenv, venv};
use harness::workspace::workspace_root;

/// Measures the optimizer against mocked clouds and writes reports.
#[derive(Debug, Parser)]
#[command(name = "harness", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Harness subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// The main job: `sky-launch-5s` (modelled on SkyPilot issue #3159's profile) in every mode, and SkyPilot 0.14.1 under the same mocks when its venv is there; prints the table, the comparison and what it says; writes a report under `reports/scratch/`.
    Demo(DemoArgs),
    /// Run a scenario in every mode (serial, concurrent, warm cache; with SkyPilot, its no-cache and warm modes) and write a report.
    Run(RunArgs),
    /// Start a scenario's mocks, print the environment that points `sky` at them, run until Ctrl-C.
    Mocks(MocksArgs),
    /// The `gcloud` stand-in SkyPilot runs under the harness (`gcloud compute reservations list` against the GCP mock).
    #[command(hide = true)]
    Gcloud(GcloudArgs),
}

/// Arguments of the `gcloud` stand-in: whatever SkyPilot passed to `gcloud`.
#[derive(Debug, Args)]
struct GcloudArgs {
    /// The words after `gcloud`.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

/// Where `sky`'s launches happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EngineArg {
    /// The `sky` binary next to `harness` (target/<profile>/sky), one process per launch.
    Process,
    /// `optimizer::launch::run` inside the harness process.
    InProcess,
    /// `sky` processes and SkyPilot 0.14.1 under the same mocks, one report (= `--engine process --with-skypilot`).
    Skypilot,
}

impl From<EngineArg> for Engine {
    fn from(e: EngineArg) -> Self {
        match e {
            EngineArg::Process | EngineArg::Skypilot => Engine::Process,
            EngineArg::InProcess => Engine::InProcess,
        }
    }
}

/// Options shared by `run` and `demo`.
#[derive(Debug, Args)]
struct Common {
    /// Folder holding `<scenario>/harness.toml`.
    #[arg(long, value_name = "DIR")]
    scenarios_dir: Option<PathBuf>,
    /// How `sky`'s launches are made (`skypilot`: processes, and SkyPilot 0.14.1 beside them).
    #[arg(long, value_enum, default_value_t = EngineArg::Process)]
    engine: EngineArg,
    /// Also run SkyPilot 0.14.1 under the same mocks; builds its venv (.venv-skypilot, from PyPI, ~2-4 min once) when missing.
    #[arg(long)]
    with_skypilot: bool,
    /// Leave SkyPilot out even when its venv is there (the demo includes it by default then).
    #[arg(long, conflicts_with = "with_skypilot")]
    no_skypilot: bool,
    /// Measured launches per SkyPilot mode (default: as for `sky`).
    #[arg(long, value_name = "N")]
    skypilot_runs: Option<usize>,
    /// A previous report folder: compare every mode's distribution and the span stacks with it, noise measured in this run, and draw differential flamegraphs.
    #[arg(long, value_name = "DIR")]
    baseline: Option<PathBuf>,
    /// Untraced warm in-process launches feeding `sky`'s CPU profile, at least.
    #[arg(long, value_name = "N", default_value_t = 5)]
    cpu_extra: usize,
    /// Samples each CPU profile aims for (more warm launches until then, within --cpu-seconds); 0: no more than --cpu-extra.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    cpu_samples: u64,
    /// Most wall time spent on extra launches for the CPU profiles, seconds.
    #[arg(long, value_name = "S", default_value_t = 20.0)]
    cpu_seconds: f64,
    /// Never draw the progress bar.
    #[arg(long)]
    no_progress: bool,
}

/// Arguments of `run`.
#[derive(Debug, Args)]
struct RunArgs {
    /// Scenario name (folder under fixtures/scenarios) or path to a harness.toml.
    scenario: String,
    /// Measured launches per mode (default: the scenario's, usually 10).
    #[arg(long, value_name = "N")]
    runs: Option<usize>,
    /// Unmeasured launches per mode first (default: the scenario's).
    #[arg(long, value_name = "W")]
    warmup: Option<usize>,
    /// Folder the report folder is created in (default: reports/scratch, git-ignored).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Name of the report folder (default: `<date>-<host>-<scenario>`).
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    #[command(flatten)]
    common: Common,
}

/// Arguments of `demo`.
#[derive(Debug, Args)]
struct DemoArgs {
    /// The scenario.
    #[arg(long, default_value = DEMO_SCENARIO)]
    scenario: String,
    /// Measured launches per mode.
    #[arg(long, value_name = "N", default_value_t = 3)]
    runs: usize,
    /// Folder the report folder is created in (default: reports/scratch, git-ignored).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Name of the report folder (default: `<date>-<host>-<scenario>`).
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    #[command(flatten)]
    common: Common,
}

/// The demo's scenario.
const DEMO_SCENARIO: &str = "sky-launch-5s";

/// Arguments of `mocks`.
#[derive(Debug, Args)]
struct MocksArgs {
    /// Scenario name or path.
    #[arg(long)]
    scenario: String,
    /// Folder holding `<scenario>/harness.toml`.
    #[arg(long, value_name = "DIR")]
    scenarios_dir: Option<PathBuf>,
}

/// The command as typed, with the executable relative to the workspace root
/// when it lives there (`target/release/harness run ...`).
fn command_line() -> String {
    let mut args = std::env::args();
    let exe = args.next().unwrap_or_else(|| "harness".into());
    let exe = std::fs::canonicalize(&exe)
        .ok()
        .and_then(|p| {
            p.strip_prefix(workspace_root())
                .ok()
                .map(|r| r.display().to_string())
        })
        .unwrap_or(exe);
    std::iter::once(exe)
        .chain(args)
        .collect::<Vec<_>>()
        .join(" ")
}

fn load(name: &str, dir: &Option<PathBuf>) -> anyhow::Result<Scenario> {
    let dir = dir.clone().unwrap_or_else(default_scenarios_dir);
    Ok(Scenario::load(name, &dir)?)
}

/// SkyPilot's part of the run: wanted explicitly (`--with-skypilot`,
/// `--engine skypilot`: its venv is built when missing), by default when
/// `auto` and its venv is there, never with `--no-skypilot`. Prints one line
/// when it is left out for want of the venv.
fn skypilot(
    common: &Common,
    auto: bool,
    runs: usize,
    warmup: usize,
) -> anyhow::Result<Option<SkyPilotRun>> {
    let wanted = common.with_skypilot || common.engine == EngineArg::Skypilot;
    if common.no_skypilot || !(wanted || auto) {
        return Ok(None);
    }
    let venv = match SkyPilotVenv::locate() {
        Ok(v) => v,
        Err(missing) if wanted => {
            eprintln!("harness: {missing}; building it (needs PyPI)");
            SkyPilotVenv::setup()?
        }
        Err(_) => {
            eprintln!("harness: {}", venv::how_to_get());
            return Ok(None);
        }
    };
    let harness_exe =
        std::env::current_exe().context("locating the harness binary (the gcloud stand-in)")?;
    Ok(Some(SkyPilotRun {
        venv,
        runs: common.skypilot_runs.unwrap_or(runs).max(1),
        warmup,
        harness_exe,
    }))
}

fn config(
    scenario: Scenario,
    (runs, warmup): (usize, usize),
    out: PathBuf,
    name: Option<String>,
    common: &Common,
    skypilot: Option<SkyPilotRun>,
) -> RunConfig {
    let rounds = if common.baseline.is_some() {
        TRACED_ROUNDS
    } else {
        1
    };
    RunConfig {
        scenario,
        runs,
        warmup,
        engine: common.engine.into(),
        out_dir: out,
        folder_name: name,
        baseline: common.baseline.clone(),
        command_line: command_line(),
        progress: !common.no_progress,
        cpu: CpuBudget {
            min_launches: common.cpu_extra,
            target_samples: common.cpu_samples,
            max_time: Duration::from_secs_f64(common.cpu_seconds.clamp(0.0, 3600.0)),
            rounds,
        },
        skypilot_samples: common.cpu_samples,
        skypilot,
    }
}

fn print_outcome(o: &RunOutcome, table: bool) {
    if table {
        println!("{}", o.optimizer_output.trim_end());
        println!();
    }
    print!("{}", o.comparison);
    if !o.story.is_empty() {
        println!();
        for line in &o.story {
            println!("- {line}");
        }
    }
    if let Some(b) = &o.baseline {
        println!(
            "\nagainst the baseline {} (noise measured in this run):",
            b.dir.display()
        );
        for m in &b.modes {
            println!(
                "  {:<28} {:>+10.1} ms  ±{:.1} ms  {}",
                m.mode.label(),
                m.delta_ms,
                m.noise_ms,
                m.verdict.word()
            );
        }
        println!("span stacks that moved most against the baseline (inclusive ms):");
        for c in &b.spans {
            println!(
                "  {:>+10.1}  ±{:<8.1} {}  {}",
                (c.now_us as f64 - c.base_us as f64) / 1000.0,
                c.noise_us as f64 / 1000.0,
                c.verdict.word(),
                c.stack
            );
        }
    }
    println!(
        "\nreport: {} ({:.1} s)",
        o.report_dir.display(),
        o.elapsed.as_secs_f64()
    );
}

fn run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    let scenario = load(&args.scenario, &args.common.scenarios_dir)?;
    let runs = args.runs.unwrap_or(scenario.file.runs.runs).max(1);
    let warmup = args.warmup.unwrap_or(scenario.file.runs.warmup);
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| workspace_root().join("reports/scratch"));
    let sp = skypilot(&args.common, false, runs, warmup)?;
    let cfg = config(
        scenario,
        (runs, warmup),
        out,
        args.name.clone(),
        &args.common,
        sp,
    );
    let outcome = harness::run::run(&cfg)?;
    print_outcome(&outcome, false);
    Ok(ExitCode::SUCCESS)
}

fn demo(args: &DemoArgs) -> anyhow::Result<ExitCode> {
    let scenario = load(&args.scenario, &args.common.scenarios_dir)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| workspace_root().join("reports/scratch"));
    let runs = args.runs.max(1);
    // No warm-up for the no-cache modes (their first launch is as cold as
    // the others); the warm modes still get theirs, which fills their caches.
    let warmup = 0;
    let sp = skypilot(&args.common, true, runs, warmup)?;
    eprintln!(
        "harness demo: {} ({} runs per mode{}; `harness run {}` does {})",
        scenario.file.description,
        runs,
        if sp.is_some() {
            ", SkyPilot 0.14.1 too"
        } else {
            ""
        },
        scenario.name,
        scenario.file.runs.runs
    );
    let cfg = config(
        scenario,
        (runs, warmup),
        out,
        args.name.clone(),
        &args.common,
        sp,
    );
    let outcome = harness::run::run(&cfg)?;
    print_outcome(&outcome, true);
    Ok(ExitCode::SUCCESS)
}

fn mocks(args: &MocksArgs) -> anyhow::Result<ExitCode> {
    let scenario = load(&args.scenario, &args.scenarios_dir)?;
    let rt = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    rt.block_on(harness::standalone::serve(
        &scenario,
        &mut std::io::stdout(),
        async {
            let _ = tokio::signal::ctrl_c().await;
        },
    ))?;
    rt.shutdown_timeout(std::time::Duration::from_secs(1));
    Ok(ExitCode::SUCCESS)
}

fn gcloud(args: &GcloudArgs) -> ExitCode {
    use harness::skypilot::gcloud::{Answer, run};
    let env: std::collections::BTreeMap<String, String> = std::env::vars().collect();
    match run(&args.args, &env) {
        Answer::Ok(out) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Answer::Fail(code, message) => {
            eprint!("{message}");
            ExitCode::from(u8::try_from(code).unwrap_or(1))
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Demo(a) => demo(a),
        Command::Run(a) => run(a),
        Command::Mocks(a) => mocks(a),
        Command::Gcloud(a) => return gcloud(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("harness: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
