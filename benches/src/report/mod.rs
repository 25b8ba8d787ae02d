//! `just report [BASE_REV]`: the pull-request report. The base revision is
//! checked out in one git worktree, `target/bench-worktrees/base` (checked
//! out anew for each base, so the workspace crates a new base leaves
//! unchanged are not compiled again); its target dir
//! `target/bench-worktrees/target` (shared by every base) is seeded with
//! hard links to the head's build, so third-party crates are never rebuilt
//! for it. Each side is built once, completely, by two cargo commands
//! ([`side`]: the shipped `sky`, and everything else in the bench profile);
//! every later step runs those executables directly. Then: instruction
//! counts of both sides side by side ([`instructions`]), the criterion suite
//! of each side, a CPU profile and a harness run on both sides; everything
//! lands in `reports/pr-<head>-vs-<base>/`, with when each phase started,
//! how long it took, the load average and the work it did ([`phases`]), and
//! the noise band of the gating rows ([`noise`]).
//!
//! Every step must succeed on both sides: a step that fails ends the report
//! with an error naming the side and the step (and a `report.md` that says
//! so), never with a verdict that was not computed.

mod instructions;
mod markdown;
mod noise;
pub mod phases;
mod side;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use harness::flame::{self, Chart, Counts};

use crate::gate::{self, Environment, Thresholds};
use crate::runner::{self, SuiteOptions};
pub use markdown::{ARTIFACT_URL, COMMENT_MARKER};
use markdown::{ReportParts, VIEWING, comment_markdown, report_markdown};
use phases::Phases;
pub use side::{BENCH_BUILD, RELEASE_BUILD};
use side::{Built, Side, bench_env_text, seed_target};

/// Report options.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// Workspace root of the head (current) tree.
    pub workspace: PathBuf,
    /// Base revision (anything `git rev-parse` accepts).
    pub base_rev: String,
    /// criterion filter for both suite runs.
    pub filter: Option<String>,
    /// Benchmark profiled on both sides for the flamegraphs (exact id regex).
    pub profile_filter: String,
    /// Seconds of profiling.
    pub profile_seconds: u32,
    /// Count instructions too.
    pub instructions: bool,
    /// Run the harness comparison.
    pub harness: bool,
    /// The harness scenario run on both sides.
    pub harness_scenario: String,
    /// Timed runs per harness mode (`None`: the scenario's own count).
    pub harness_runs: Option<usize>,
    /// Thresholds file.
    pub thresholds: PathBuf,
}

/// What the report found.
#[derive(Debug, Clone)]
pub struct ReportOutcome {
    /// `reports/pr-<head>-vs-<base>/report.md`.
    pub path: PathBuf,
    /// Regressions in the bench comparison.
    pub regressions: usize,
}

fn git(dir: &Path, args: &[&str]) -> anyhow::Result<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .context("running git")?;
    if !out.status.success() {
        bail!(
            "`git {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn copy_profile(
    profile_dirs: &[PathBuf],
    out: &Path,
    side: &str,
    notes: &mut Vec<String>,
) -> Option<PathBuf> {
    let Some(dir) = profile_dirs.first() else {
        notes.push(format!(
            "{side}: the profiled benchmark produced no profile/ folder"
        ));
        return None;
    };
    let folded = out.join(format!("cpu-{side}.folded"));
    let svg = out.join(format!("cpu-flamegraph-{side}.svg"));
    let ok = std::fs::copy(dir.join("folded.txt"), &folded).is_ok()
        && std::fs::copy(dir.join("flamegraph.svg"), &svg).is_ok();
    if !ok {
        notes.push(format!(
            "{side}: cannot copy the profile from {}",
            dir.display()
        ));
        return None;
    }
    Some(folded)
}

/// `harness run <scenario>` of one side, with that side's release build.
fn run_harness(
    side: &Side<'_>,
    built: &Built,
    opts: &ReportOptions,
    out: &Path,
    baseline: Option<&Path>,
) -> anyhow::Result<()> {
    let exe = &built.harness_exe;
    let mut cmd = Command::new(exe);
    cmd.args(["run", &opts.harness_scenario, "--no-progress", "--out"])
        .arg(out)
        .current_dir(side.workspace)
        .env("CARGO_TARGET_DIR", &side.target);
    if let Some(n) = opts.harness_runs {
        cmd.arg("--runs").arg(n.to_string());
    }
    if let Some(b) = baseline {
        cmd.arg("--baseline").arg(b);
    }
    let status = cmd
        .status()
        .with_context(|| format!("running {}", exe.display()))?;
    if !status.success() {
        bail!(
            "`harness run {}` exited with {status}",
            opts.harness_scenario
        );
    }
    Ok(())
}

fn rel(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}

/// Runs everything and writes the report. Any step that fails on either
/// side is an error naming it; `report.md` then says what failed instead of
/// a verdict.
pub fn run(opts: &ReportOptions) -> anyhow::Result<ReportOutcome> {
    let ws = &opts.workspace;
    let head_env = Environment::capture(ws);
    let base_sha = git(
        ws,
        &[
            "rev-parse",
            "--verify",
            &format!("{}^{{commit}}", opts.base_rev),
        ],
    )
    .with_context(|| format!("unknown base revision {:?}", opts.base_rev))?;
    let base_short = git(ws, &["rev-parse", "--short", &base_sha])?;
    let head_name = head_env.revision().replace('+', "-");
    let out = ws
        .join("reports")
        .join(format!("pr-{head_name}-vs-{base_short}"));
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    match compare(opts, &head_env, &base_sha, &base_short, &out) {
        Ok(outcome) => Ok(outcome),
        Err(e) => {
            let path = out.join("report.md");
            let md = format!(
                "# Performance report: `{}` vs base `{base_short}`\n\n\
                 Verdict: **not computed** — {e:#}.\n\n\
                 Reproduce with `just report {}` once the failing step is fixed.\n",
                head_env.revision(),
                opts.base_rev
            );
            let _ = std::fs::write(&path, md);
            Err(e.context(format!("the report is incomplete ({})", path.display())))
        }
    }
}

fn compare(
    opts: &ReportOptions,
    head_env: &Environment,
    base_sha: &str,
    base_short: &str,
    out: &Path,
) -> anyhow::Result<ReportOutcome> {
    let ws = &opts.workspace;
    let mut phases = Phases::default();
    let head_target = runner::target_dir(ws);
    let wt_root = head_target.join("bench-worktrees");
    // One worktree for every base, checked out anew each time: cargo's
    // fingerprints are per path and per source mtime, and a checkout
    // rewrites only the files that differ, so the workspace crates a new
    // base leaves untouched are not compiled again. The lock keeps two
    // reports of one tree from checking it out under each other.
    let wt = wt_root.join("base");
    std::fs::create_dir_all(&wt_root).with_context(|| format!("creating {}", wt_root.display()))?;
    let lock_path = wt_root.join("base.lock");
    let lock = std::fs::File::create(&lock_path)
        .with_context(|| format!("creating {}", lock_path.display()))?;
    if lock.try_lock().is_err() {
        eprintln!(
            "bench-gate: waiting for another report of this tree ({})",
            lock_path.display()
        );
        lock.lock()
            .with_context(|| format!("locking {}", lock_path.display()))?;
    }
    let base_target = wt_root.join("target");
    let head = Side {
        name: "head",
        workspace: ws,
        target: head_target.clone(),
    };
    let base = Side {
        name: "base",
        workspace: &wt,
        target: base_target.clone(),
    };
    let thresholds = Thresholds::load(&opts.thresholds)?;
    let mut commands: Vec<String> = Vec::new();

    // 0. Build both sides completely before measuring anything; the base
    //    reuses the head's compiled dependencies.
    let head_built = phases.time("build", "head", || head.step("building", head.build()))?;
    phases.work(build_work(&head_built));
    phases.time("worktree, seeding its target", "base", || {
        if wt.join(".git").exists() {
            git(&wt, &["checkout", "--force", "--detach", base_sha])?;
        } else {
            // `--force`: a worktree deleted by hand is still registered
            // (as missing) and would be refused; no other worktree is touched.
            let wt_arg = wt.display().to_string();
            git(
                ws,
                &["worktree", "add", "--force", "--detach", &wt_arg, base_sha],
            )?;
        }
        let linked = seed_target(&head_target.join("release"), &base_target.join("release"))
            .with_context(|| format!("seeding {} from the head's build", base_target.display()))?;
        eprintln!("bench-gate: linked {linked} new file(s) of the head's build into the base's");
        anyhow::Ok(())
    })?;
    let base_built = phases.time("build", "base", || base.step("building", base.build()))?;
    phases.work(build_work(&base_built));
    for (side, t) in [
        ("the base worktree", &base_target),
        ("the head", &head_target),
    ] {
        commands.push(format!(
            "(in {side}) CARGO_TARGET_DIR={} cargo {} && {} cargo {}",
            rel(t, ws),
            RELEASE_BUILD.join(" "),
            bench_env_text(),
            BENCH_BUILD.join(" ")
        ));
    }

    // 1. Instruction counts: both sides' callgrind passes side by side (each
    //    on one core; counts do not depend on timing, and nothing timed runs
    //    meanwhile).
    let (mut base_counts, mut head_counts, mut counts_note) =
        (Default::default(), Default::default(), None);
    if opts.instructions {
        if runner::have_valgrind() {
            let dir = head_target.join("bench/callgrind-report");
            let both = phases.time("instruction counts (callgrind)", "both", || {
                instructions::count_both(
                    (&base_built.exes.ops_exe, &head_built.exes.ops_exe),
                    &dir,
                    opts.filter.as_deref(),
                    &thresholds,
                )
            })?;
            for (side, counts) in [(&base, &both.base), (&head, &both.head)] {
                if counts.is_empty() {
                    bail!(
                        "{} side: counting instructions produced no counts (does bench-ops there know the filter {:?}?)",
                        side.name,
                        opts.filter.as_deref().unwrap_or("")
                    );
                }
            }
            phases.work(format!(
                "{} callgrind runs of bench-ops ({} operations per side; {} near the threshold counted three times)",
                if both.recounted > 0 { 6 } else { 2 },
                both.head.len(),
                both.recounted
            ));
            commands.push(format!(
                "valgrind --tool=callgrind … bench-ops{}   # both sides, one pass each side by side; {} operation(s) near the threshold counted three times",
                opts.filter.as_deref().map(|f| format!(" '{f}'")).unwrap_or_default(),
                both.recounted
            ));
            (base_counts, head_counts) = (both.base, both.head);
        } else {
            counts_note = Some(
                "valgrind is not installed: instruction counts skipped (install it with `apt-get install valgrind`)"
                    .to_string(),
            );
        }
    }

    // 2. Benchmarks: base first, then head, each its prebuilt executable.
    let suite = |side: &Side<'_>, built: &Built, name: &str| {
        let built = &built.exes;
        let r = runner::run_suite(&SuiteOptions {
            workspace: side.workspace.to_path_buf(),
            target_dir: side.target.clone(),
            filter: opts.filter.clone(),
            instructions: false,
            prebuilt: Some((built.bench_exe.clone(), built.ops_exe.clone())),
            name: name.to_string(),
            // Rows whose time cannot fail measure briefly (crate::budget).
            quick_advisory: true,
        });
        side.step("the benchmark suite", r)
    };
    let filter_arg = opts
        .filter
        .as_deref()
        .map(|f| format!(" '{f}'"))
        .unwrap_or_default();
    for (side, built) in [("base", &base_built), ("head", &head_built)] {
        commands.push(format!(
            "{} --bench{filter_arg}   # the {side}'s criterion executable, from benches/",
            rel(&built.exes.bench_exe, ws)
        ));
    }
    let mut base_results = phases.time("criterion suite", "base", || {
        suite(&base, &base_built, &format!("base-{base_short}"))
    })?;
    phases.work(suite_work(&base_results));
    let mut head_results = phases.time("criterion suite", "head", || {
        suite(&head, &head_built, "head")
    })?;
    phases.work(suite_work(&head_results));
    base_results.instructions = base_counts;
    head_results.instructions = head_counts;
    let note = counts_note.or_else(|| {
        (!opts.instructions)
            .then(|| "instruction counts not measured in this run (--no-instructions)".to_string())
    });
    base_results.instructions_note.clone_from(&note);
    head_results.instructions_note = note;
    base_results.save(&out.join("bench-base.json"))?;
    head_results.save(&out.join("bench-head.json"))?;
    let rows = gate::compare(&base_results, &head_results, &thresholds);
    let busy = gate::busy_machine(&base_results, &head_results, &thresholds);
    let summary = gate::summary_markdown(Some(&base_results), &head_results, &rows, busy);
    let noise = noise::noise_band(&rows, &thresholds);
    std::fs::write(out.join("bench-summary.md"), &summary)?;

    // 3. CPU flamegraphs of one benchmark on both sides, and their differentials.
    let mut flames: Vec<(String, PathBuf)> = Vec::new();
    commands.push(format!(
        "<criterion executable> --bench --profile-time {} '{}'   # both sides",
        opts.profile_seconds, opts.profile_filter
    ));
    let mut profile = |side: &Side<'_>, built: &Built| -> anyhow::Result<PathBuf> {
        let dirs = side.step(
            "profiling",
            runner::profile(
                side.workspace,
                &side.target,
                &opts.profile_filter,
                opts.profile_seconds,
                Some(&built.exes.bench_exe),
            ),
        )?;
        let mut notes = Vec::new();
        let folded = copy_profile(&dirs, out, side.name, &mut notes).with_context(|| {
            format!("{} side: profiling failed: {}", side.name, notes.join("; "))
        })?;
        flames.push((
            format!("CPU flamegraph, {}", side.name),
            out.join(format!("cpu-flamegraph-{}.svg", side.name)),
        ));
        Ok(folded)
    };
    let profile_work = format!(
        "1 benchmark, {} s of --profile-time (plus its setup)",
        opts.profile_seconds
    );
    let base_folded = phases.time("CPU profile", "base", || profile(&base, &base_built))?;
    phases.work(profile_work.clone());
    let head_folded = phases.time("CPU profile", "head", || profile(&head, &head_built))?;
    phases.work(profile_work);
    let fwd = out.join("cpu-diff-base-to-head.svg");
    let back = out.join("cpu-diff-head-to-base.svg");
    // Each graph is drawn in its second profile's shape, red where that
    // profile has the larger (normalised) share.
    let base_stacks = flame::read_folded(&base_folded)?;
    let head_stacks = flame::read_folded(&head_folded)?;
    let chart = |title| Chart {
        title,
        subtitle: None,
        counts: Counts::CpuSamples,
    };
    flame::render_diff(
        &base_stacks,
        &head_stacks,
        false,
        &chart("base → head (red: grew in head)"),
        &fwd,
    )?;
    flame::render_diff(
        &head_stacks,
        &base_stacks,
        false,
        &chart("head → base (red: larger in base)"),
        &back,
    )?;
    flames.push((
        "Differential, base → head (head's shape; red = more samples in head)".into(),
        fwd,
    ));
    flames.push((
        "Differential, head → base (base's shape; red = more samples in base)".into(),
        back,
    ));

    // 4. The harness comparison.
    let mut harness_md = String::new();
    let mut traces: Vec<PathBuf> = Vec::new();
    if !opts.harness {
        harness_md.push_str("Skipped (--no-harness).\n");
    } else {
        let hb = out.join("harness-base");
        let hh = out.join("harness-head");
        for d in [&hb, &hh] {
            let _ = std::fs::remove_dir_all(d);
        }
        let runs = opts
            .harness_runs
            .map(|n| format!(" --runs {n}"))
            .unwrap_or_default();
        commands.push(format!(
            "target/release/harness run {}{runs} --out {}   # in the base worktree",
            opts.harness_scenario,
            rel(&hb, ws)
        ));
        commands.push(format!(
            "target/release/harness run {}{runs} --out {} --baseline {}",
            opts.harness_scenario,
            rel(&hh, ws),
            rel(&hb, ws)
        ));
        let harness_work = format!(
            "`harness run {}`: {} timed launches per mode, 3 modes, then its traced and profiled launches",
            opts.harness_scenario,
            opts.harness_runs
                .map_or_else(|| "the scenario's".to_string(), |n| n.to_string())
        );
        phases.time("harness run", "base", || {
            base.step(
                "the harness run",
                run_harness(&base, &base_built, opts, &hb, None),
            )
        })?;
        phases.work(harness_work.clone());
        let hb_report = only_subdir(&hb)?;
        phases.time("harness run", "head", || {
            head.step(
                "the harness run",
                run_harness(&head, &head_built, opts, &hh, Some(&hb_report)),
            )
        })?;
        phases.work(harness_work);
        let hh_report = only_subdir(&hh)?;
        for (title, dir) in [("head", &hh_report), ("base", &hb_report)] {
            let s = std::fs::read_to_string(dir.join("summary.md"))
                .with_context(|| format!("reading {}", dir.join("summary.md").display()))?;
            let _ = writeln!(harness_md, "### Harness summary, {title}\n\n{}\n", s.trim());
        }
        for dir in [&hh_report, &hb_report] {
            for f in gate::subdirs(dir).into_iter().chain([dir.to_path_buf()]) {
                let Ok(entries) = std::fs::read_dir(&f) else {
                    continue;
                };
                let mut files: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
                files.sort();
                for p in files {
                    let name = p
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    if name.ends_with(".svg") {
                        flames.push((format!("harness: {}", rel(&p, out)), p.clone()));
                    } else if name.ends_with("trace.json") {
                        traces.push(p);
                    }
                }
            }
        }
    }

    // 5. The report.
    eprintln!(
        "\nbench-gate: where the report's time went\n{}",
        phases.text()
    );
    let n = gate::regressions(&rows);
    let md = report_markdown(&ReportParts {
        head_revision: &head_env.revision(),
        base_short,
        environment: &head_env.one_line(),
        base_rev: &opts.base_rev,
        commands: &commands,
        summary: &summary,
        noise: noise.as_deref(),
        regressions: n,
        harness_md: &harness_md,
        flames: &flames,
        traces: &traces,
        profile_filter: &opts.profile_filter,
        profile_seconds: opts.profile_seconds,
        out,
        phases: &phases,
    });
    let path = out.join("report.md");
    std::fs::write(&path, md).with_context(|| format!("writing {}", path.display()))?;
    std::fs::write(out.join("README.md"), VIEWING)
        .with_context(|| format!("writing {}", out.join("README.md").display()))?;
    let comment = comment_markdown(head_env.revision().as_str(), base_short, &rows, &summary);
    std::fs::write(out.join("comment.md"), comment)
        .with_context(|| format!("writing {}", out.join("comment.md").display()))?;
    Ok(ReportOutcome {
        path,
        regressions: n,
    })
}

/// A side's build work: both cargo commands' counts.
fn build_work(built: &Built) -> String {
    format!(
        "release `sky`: {}; bench profile: {}",
        built.release.text(),
        built.bench.text()
    )
}

/// A suite run's work: benchmarks and criterion samples.
fn suite_work(results: &gate::Results) -> String {
    let samples: usize = results
        .benchmarks
        .values()
        .map(|b| b.samples_ns.len())
        .sum();
    format!(
        "{} benchmarks, {samples} criterion samples",
        results.benchmarks.len()
    )
}

/// The one report folder a `harness run --out DIR` wrote under `DIR`.
fn only_subdir(dir: &Path) -> anyhow::Result<PathBuf> {
    let mut subs: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    subs.sort();
    match subs.as_slice() {
        [one] => Ok(one.clone()),
        _ => bail!(
            "expected one harness report folder in {}, found {}",
            dir.display(),
            subs.len()
        ),
    }
}
