//! `bench-gate`: runs the criterion suite and fails on a regression.
//!
//! ```text
//! bench-gate run [--baseline NAME] [--filter REGEX] [--no-instructions]   # `just bench [NAME]`
//! bench-gate save NAME [--filter REGEX] [--no-instructions]              # `just bench-save NAME`
//! bench-gate compare BASE.json HEAD.json                                 # two saved files
//! bench-gate instructions [--baseline NAME] [--filter REGEX]             # callgrind only
//! bench-gate report BASE_REV                                             # `just report BASE_REV`
//! bench-gate process [--runs N] [--command launch|gpus-list-all]          # whole-process sky figures
//! ```
//!
//! Exit codes: 0 no regression, 1 at least one regression, 2 error (missing
//! baseline, failed build or benchmark, bad file).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use benches::gate::{self, Results, SCHEMA, Thresholds};
use benches::report::{self, ReportOptions};
use benches::runner::{self, SuiteOptions};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "bench-gate",
    about = "Benchmark regression gate for the sky optimizer"
)]
struct Opts {
    /// Workspace root (default: the one this binary was built from).
    #[arg(long, global = true)]
    workspace: Option<PathBuf>,
    /// Thresholds file (default: <workspace>/benches/thresholds.toml).
    #[arg(long, global = true)]
    thresholds: Option<PathBuf>,
    /// Run this prebuilt criterion executable (target/release/deps/main-*)
    /// instead of `cargo bench`; needs --ops-exe too. Freezes the code under
    /// test while the tree changes.
    #[arg(long, global = true, requires = "ops_exe")]
    bench_exe: Option<PathBuf>,
    /// Prebuilt bench-ops executable to use with --bench-exe.
    #[arg(long, global = true, requires = "bench_exe")]
    ops_exe: Option<PathBuf>,
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the suite; compare with a baseline when given; exit 1 on a regression.
    Run {
        /// Baseline name (benches/baselines/NAME.json) or path.
        #[arg(long)]
        baseline: Option<String>,
        /// criterion filter (regex over benchmark ids).
        #[arg(long)]
        filter: Option<String>,
        /// Skip the callgrind instruction counts.
        #[arg(long)]
        no_instructions: bool,
    },
    /// Run the suite and store it as benches/baselines/NAME.json.
    Save {
        /// Baseline name.
        name: String,
        /// criterion filter (regex over benchmark ids).
        #[arg(long)]
        filter: Option<String>,
        /// Skip the callgrind instruction counts.
        #[arg(long)]
        no_instructions: bool,
        /// Store an earlier run's results file (e.g. target/bench/head.json) instead of running.
        #[arg(long)]
        from: Option<PathBuf>,
    },
    /// Compare two results files (baselines or target/bench/head.json).
    Compare {
        /// Base: name or path.
        base: String,
        /// Head: name or path.
        head: String,
    },
    /// Only the callgrind instruction counts (deterministic), gated against a baseline.
    Instructions {
        /// Baseline name or path.
        #[arg(long)]
        baseline: Option<String>,
        /// Regex over operation ids.
        #[arg(long)]
        filter: Option<String>,
    },
    /// Pull-request report: base in a git worktree, bench + harness on both sides.
    Report {
        /// Base revision (default: HEAD, i.e. the last commit without local changes).
        #[arg(default_value = "HEAD")]
        base_rev: String,
        /// criterion filter for both suite runs.
        #[arg(long)]
        filter: Option<String>,
        /// Benchmark(s) to profile on both sides for the flamegraphs.
        #[arg(long, default_value = "^launch/cold-concurrent/latency-0$")]
        profile: String,
        /// Seconds of profiling per side.
        #[arg(long, default_value_t = 5)]
        profile_seconds: u32,
        /// Skip the callgrind instruction counts.
        #[arg(long)]
        no_instructions: bool,
        /// Skip the harness run.
        #[arg(long)]
        no_harness: bool,
        /// The harness scenario run on both sides.
        #[arg(long, default_value = "seed-7-clouds")]
        harness_scenario: String,
        /// Timed runs per harness mode. The report's timings are judged by the
        /// criterion rows of the same scenario (`launch/*/seed-7-clouds`); the
        /// harness adds traces, span and CPU flamegraphs and request counts,
        /// which need few runs.
        #[arg(long, default_value_t = 5)]
        harness_runs: usize,
    },
    /// Whole-process `sky` (default `sky launch --dryrun -y --gpus H100:8`, 7 catalog clouds): median time and peak RSS.
    Process {
        /// Timed runs (after 3 warm-ups).
        #[arg(long, default_value_t = 30)]
        runs: usize,
        /// The command timed: `launch`, or `gpus-list-all` (`sky gpus list --all`, bundled catalogs).
        #[arg(long, value_enum, default_value_t = runner::ProcessCommand::Launch)]
        command: runner::ProcessCommand,
    },
}

fn main() -> ExitCode {
    let opts = Opts::parse();
    match run(opts) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("bench-gate: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn default_workspace() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    p.canonicalize().unwrap_or(p)
}

fn load(ws: &Path, name: &str) -> anyhow::Result<Results> {
    Ok(gate::load_baseline(ws, name)?)
}

/// Compares, prints the table, writes target/bench/summary.md; returns the exit code.
fn judge(
    ws: &Path,
    base: Option<&Results>,
    head: &Results,
    thresholds: &Thresholds,
) -> anyhow::Result<u8> {
    let rows = base
        .map(|b| gate::compare(b, head, thresholds))
        .unwrap_or_default();
    let busy = base.and_then(|b| gate::busy_machine(b, head, thresholds));
    let summary = gate::summary_markdown(base, head, &rows, busy);
    let path = runner::target_dir(ws).join("bench/summary.md");
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&path, &summary)?;
    match base {
        Some(b) => {
            println!("\n{}", gate::text_table(&rows));
            let n = gate::regressions(&rows);
            println!(
                "head {} vs baseline {} ({}): {}",
                head.environment.revision(),
                b.name,
                b.environment.revision(),
                if n == 0 {
                    "no regression".to_string()
                } else {
                    format!("{n} REGRESSION(S)")
                }
            );
            for r in rows
                .iter()
                .filter(|r| r.verdict == gate::Verdict::Regressed)
            {
                println!("  regressed: {} ({:?})", r.id, r.metric);
            }
            println!("summary: {}", path.display());
            Ok(u8::from(n > 0))
        }
        None => {
            println!("\n{summary}");
            println!(
                "summary: {} (no baseline given: nothing to judge)",
                path.display()
            );
            Ok(0)
        }
    }
}

fn run(opts: Opts) -> anyhow::Result<u8> {
    let ws = opts.workspace.clone().unwrap_or_else(default_workspace);
    let thresholds_path = opts
        .thresholds
        .clone()
        .unwrap_or_else(|| ws.join("benches/thresholds.toml"));
    let thresholds = Thresholds::load(&thresholds_path)?;
    let target = runner::target_dir(&ws);
    let suite = |filter: Option<String>, instructions: bool, name: &str| SuiteOptions {
        workspace: ws.clone(),
        target_dir: target.clone(),
        filter,
        instructions,
        name: name.to_string(),
        prebuilt: opts.bench_exe.clone().zip(opts.ops_exe.clone()),
        quick_advisory: false,
    };
    match opts.command {
        Cmd::Run {
            baseline,
            filter,
            no_instructions,
        } => {
            // Load the baseline first: a typo should fail before minutes of benchmarking.
            let base = baseline.as_deref().map(|b| load(&ws, b)).transpose()?;
            let head = runner::run_suite(&suite(filter, !no_instructions, "head"))?;
            head.save(&target.join("bench/head.json"))?;
            judge(&ws, base.as_ref(), &head, &thresholds)
        }
        Cmd::Save {
            name,
            filter,
            no_instructions,
            from,
        } => {
            if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
                anyhow::bail!(
                    "invalid baseline name {name:?}: use letters, digits, '-', '_' and '.'"
                );
            }
            let mut results = match from {
                Some(p) => Results::load(&p)?,
                None => runner::run_suite(&suite(filter, !no_instructions, &name))?,
            };
            results.name = name.clone();
            let path = gate::baseline_path(&ws, &name);
            results.save(&path)?;
            println!(
                "saved baseline {} ({} benchmarks, {} instruction counts) from {}",
                path.display(),
                results.benchmarks.len(),
                results.instructions.len(),
                results.environment.one_line()
            );
            Ok(0)
        }
        Cmd::Compare { base, head } => {
            let (b, h) = (load(&ws, &base)?, load(&ws, &head)?);
            judge(&ws, Some(&b), &h, &thresholds)
        }
        Cmd::Instructions { baseline, filter } => {
            let base = baseline.as_deref().map(|b| load(&ws, b)).transpose()?;
            let (instructions, note) = runner::count_instructions(
                &ws,
                &target,
                opts.ops_exe.as_deref(),
                filter.as_deref(),
            )?;
            let head = Results {
                schema: SCHEMA.into(),
                name: "head".into(),
                environment: gate::Environment::capture(&ws),
                benchmarks: Default::default(),
                instructions,
                instructions_note: note,
                foreign_cores: None,
            };
            head.save(&target.join("bench/instructions.json"))?;
            // Compare instruction counts only.
            let base = base.map(|mut b| {
                b.benchmarks.clear();
                b
            });
            judge(&ws, base.as_ref(), &head, &thresholds)
        }
        Cmd::Report {
            base_rev,
            filter,
            profile,
            profile_seconds,
            no_instructions,
            no_harness,
            harness_scenario,
            harness_runs,
        } => {
            let outcome = report::run(&ReportOptions {
                workspace: ws.clone(),
                base_rev,
                filter,
                profile_filter: profile,
                profile_seconds,
                instructions: !no_instructions,
                harness: !no_harness,
                harness_scenario,
                harness_runs: Some(harness_runs),
                thresholds: thresholds_path,
            })?;
            println!("report: {}", outcome.path.display());
            Ok(u8::from(outcome.regressions > 0))
        }
        Cmd::Process { runs, command } => {
            let f = runner::measure_process(&ws, runs.max(1), command)?;
            let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
            let (min, max) = (
                f.times.first().copied().unwrap_or_default(),
                f.times.last().copied().unwrap_or_default(),
            );
            println!(
                "\nwhole-process `sky {}`, SKY_ENABLED_CLOUDS={}",
                command.args().join(" "),
                benches::all_catalog_clouds()
            );
            println!(
                "  wall ({}, {} runs): median {:.1} ms, min {:.1} ms, max {:.1} ms",
                f.tool,
                f.times.len(),
                ms(f.median()),
                ms(min),
                ms(max)
            );
            if let (Some(lo), Some(hi), Some(med)) = (
                f.max_rss_kib.first(),
                f.max_rss_kib.last(),
                f.median_rss_kib(),
            ) {
                println!(
                    "  peak RSS (/usr/bin/time -v, {} runs): median {:.1} MiB (min {:.1}, max {:.1})",
                    f.max_rss_kib.len(),
                    med as f64 / 1024.0,
                    *lo as f64 / 1024.0,
                    *hi as f64 / 1024.0
                );
            }
            println!("  commands:");
            for c in &f.commands {
                println!("    {c}");
            }
            Ok(0)
        }
    }
}
