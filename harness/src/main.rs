//! `harness` binary: parses the command line and calls into the harness library.
//!
//! Exit codes: 0 success; 1 failure (the message says why); 2 usage error (clap).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand, ValueEnum};
use harness::run::{Engine, RunConfig, RunOutcome, workspace_root};
use harness::scenario::{Scenario, default_scenarios_dir};

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
    /// Run `seed-7-clouds` briefly, print the optimizer table and the comparison, write a dated report under `reports/`.
    Demo(DemoArgs),
    /// Run a scenario in three modes (serial, concurrent, warm cache) and write a report.
    Run(RunArgs),
    /// Start a scenario's mocks, print the environment that points `sky` at them, run until Ctrl-C.
    Mocks(MocksArgs),
}

/// Where launches happen.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum EngineArg {
    /// The `sky` binary next to `harness` (target/<profile>/sky), one process per launch.
    Process,
    /// `optimizer::launch::run` inside the harness process.
    InProcess,
}

impl From<EngineArg> for Engine {
    fn from(e: EngineArg) -> Self {
        match e {
            EngineArg::Process => Engine::Process,
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
    /// How launches are made.
    #[arg(long, value_enum, default_value_t = EngineArg::Process)]
    engine: EngineArg,
    /// A previous report folder: also write differential flamegraphs and the spans that moved most.
    #[arg(long, value_name = "DIR")]
    baseline: Option<PathBuf>,
    /// Extra untraced warm in-process launches that feed the CPU profile.
    #[arg(long, value_name = "N", default_value_t = 5)]
    cpu_extra: usize,
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
    /// Folder the report folder `<date>-<host>-<scenario>` is created in.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    common: Common,
}

/// Arguments of `demo`.
#[derive(Debug, Args)]
struct DemoArgs {
    /// Measured launches per mode (kept small so the demo takes about 15 s).
    #[arg(long, value_name = "N", default_value_t = 3)]
    runs: usize,
    /// Folder the dated report folder is created in.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    common: Common,
}

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

fn config(
    scenario: Scenario,
    runs: usize,
    warmup: usize,
    out: PathBuf,
    common: &Common,
) -> RunConfig {
    RunConfig {
        scenario,
        runs,
        warmup,
        engine: common.engine.into(),
        out_dir: out,
        folder_name: None,
        baseline: common.baseline.clone(),
        command_line: command_line(),
        progress: !common.no_progress,
        cpu_extra: common.cpu_extra,
    }
}

fn print_outcome(o: &RunOutcome, table: bool) {
    if table {
        println!("{}", o.optimizer_output.trim_end());
        println!();
    }
    print!("{}", o.comparison);
    if let Some(moved) = &o.moved {
        println!("\nspan stacks that moved most against the baseline (inclusive ms):");
        for m in moved {
            println!("  {:>+10.1}  {}", m.delta() as f64 / 1000.0, m.stack);
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
    let outcome = harness::run::run(&config(scenario, runs, warmup, out, &args.common))?;
    print_outcome(&outcome, false);
    Ok(ExitCode::SUCCESS)
}

fn demo(args: &DemoArgs) -> anyhow::Result<ExitCode> {
    let scenario = load("seed-7-clouds", &args.common.scenarios_dir)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| workspace_root().join("reports"));
    eprintln!(
        "harness demo: {} ({} runs per mode; `harness run seed-7-clouds` does {})",
        scenario.file.description, args.runs, scenario.file.runs.runs
    );
    let outcome = harness::run::run(&config(scenario, args.runs.max(1), 1, out, &args.common))?;
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Demo(a) => demo(a),
        Command::Run(a) => run(a),
        Command::Mocks(a) => mocks(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("harness: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
