//! `just report [BASE_REV]`: the pull-request report. The base revision is
//! checked out in a git worktree under `target/bench-worktrees/` (its own
//! target dir, reused between reports); the suite, a CPU profile and
//! `harness run seed-7-clouds` run on both sides, and everything lands in
//! `reports/pr-<head>-vs-<base>/`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use harness::flame::{self, Chart, Counts};

use crate::gate::{self, Environment, Thresholds};
use crate::runner::{self, SuiteOptions};

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
    /// Run the harness comparison when available.
    pub harness: bool,
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

/// The harness `run` command exists in this tree (it compiles and knows `run`).
fn harness_ready(workspace: &Path, target: &Path) -> Result<(), String> {
    let out = Command::new("cargo")
        .args([
            "run",
            "--release",
            "-q",
            "-p",
            "harness",
            "--",
            "run",
            "--help",
        ])
        .current_dir(workspace)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        Err(err
            .lines()
            .rfind(|l| !l.trim().is_empty())
            .unwrap_or("unknown error")
            .trim()
            .to_string())
    }
}

fn run_harness(
    workspace: &Path,
    target: &Path,
    out: &Path,
    baseline: Option<&Path>,
) -> Result<(), String> {
    let mut cmd = Command::new("cargo");
    cmd.args([
        "run",
        "--release",
        "-p",
        "harness",
        "--",
        "run",
        "seed-7-clouds",
        "--out",
    ])
    .arg(out)
    .current_dir(workspace)
    .env("CARGO_TARGET_DIR", target);
    if let Some(b) = baseline {
        cmd.arg("--baseline").arg(b);
    }
    match cmd.status() {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(format!("`harness run seed-7-clouds` failed ({s})")),
        Err(e) => Err(format!("cannot run cargo: {e}")),
    }
}

fn rel(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}

/// Runs everything and writes the report.
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
    let head_target = runner::target_dir(ws);
    let wt_root = head_target.join("bench-worktrees");
    let wt = wt_root.join(&base_short);
    let base_target = wt_root.join("target");
    if !wt.join(".git").exists() {
        std::fs::create_dir_all(&wt_root)
            .with_context(|| format!("creating {}", wt_root.display()))?;
        let wt_arg = wt.display().to_string();
        git(ws, &["worktree", "add", "--detach", &wt_arg, &base_sha])?;
    }
    let mut notes: Vec<String> = Vec::new();
    let mut commands: Vec<String> = Vec::new();

    // 1. Benchmarks: base first, then head.
    let suite = |workspace: &Path, target: &Path, name: &str| {
        runner::run_suite(&SuiteOptions {
            workspace: workspace.to_path_buf(),
            target_dir: target.to_path_buf(),
            filter: opts.filter.clone(),
            instructions: opts.instructions,
            prebuilt: None,
            name: name.to_string(),
        })
    };
    let filter_arg = opts
        .filter
        .as_deref()
        .map(|f| format!(" {f}"))
        .unwrap_or_default();
    commands.push(format!(
        "(in {}) CARGO_TARGET_DIR={} cargo bench -p benches --bench main --{filter_arg}",
        rel(&wt, ws),
        rel(&base_target, ws)
    ));
    let base = match suite(&wt, &base_target, &format!("base-{base_short}")) {
        Ok(r) => {
            let _ = r.save(&out.join("bench-base.json"));
            Some(r)
        }
        Err(e) => {
            notes.push(format!("The base revision's benchmark suite could not run, so there is nothing to compare against: {e:#}"));
            None
        }
    };
    commands.push(format!(
        "cargo bench -p benches --bench main --{filter_arg}"
    ));
    let head = suite(ws, &head_target, "head")?;
    head.save(&out.join("bench-head.json"))?;
    let thresholds = Thresholds::load(&opts.thresholds)?;
    let rows = base
        .as_ref()
        .map(|b| gate::compare(b, &head, &thresholds))
        .unwrap_or_default();
    let busy = base
        .as_ref()
        .and_then(|b| gate::busy_machine(b, &head, &thresholds));
    let summary = gate::summary_markdown(base.as_ref(), &head, &rows, busy);
    std::fs::write(out.join("bench-summary.md"), &summary)?;

    // 2. CPU flamegraphs of one benchmark on both sides, and their differentials.
    let mut flames: Vec<(String, PathBuf)> = Vec::new();
    commands.push(format!(
        "cargo bench -p benches --bench main -- --profile-time {} '{}'   # both sides",
        opts.profile_seconds, opts.profile_filter
    ));
    let base_folded = match runner::profile(
        &wt,
        &base_target,
        &opts.profile_filter,
        opts.profile_seconds,
    ) {
        Ok(dirs) => copy_profile(&dirs, &out, "base", &mut notes),
        Err(e) => {
            notes.push(format!("base profile: {e:#}"));
            None
        }
    };
    let head_folded =
        match runner::profile(ws, &head_target, &opts.profile_filter, opts.profile_seconds) {
            Ok(dirs) => copy_profile(&dirs, &out, "head", &mut notes),
            Err(e) => {
                notes.push(format!("head profile: {e:#}"));
                None
            }
        };
    for (side, f) in [("base", &base_folded), ("head", &head_folded)] {
        if f.is_some() {
            flames.push((
                format!("CPU flamegraph, {side}"),
                out.join(format!("cpu-flamegraph-{side}.svg")),
            ));
        }
    }
    if let (Some(b), Some(h)) = (&base_folded, &head_folded) {
        let fwd = out.join("cpu-diff-base-to-head.svg");
        let back = out.join("cpu-diff-head-to-base.svg");
        // Each graph is drawn in its second profile's shape, red where that
        // profile has the larger (normalised) share.
        let diffs = flame::read_folded(b).and_then(|base| {
            let head = flame::read_folded(h)?;
            let chart = |title| Chart {
                title,
                subtitle: None,
                counts: Counts::CpuSamples,
            };
            flame::render_diff(
                &base,
                &head,
                false,
                &chart("base → head (red: grew in head)"),
                &fwd,
            )?;
            flame::render_diff(
                &head,
                &base,
                false,
                &chart("head → base (red: larger in base)"),
                &back,
            )
        });
        match diffs {
            Ok(()) => {
                flames.push((
                    "Differential, base → head (head's shape; red = more samples in head)".into(),
                    fwd,
                ));
                flames.push((
                    "Differential, head → base (base's shape; red = more samples in base)".into(),
                    back,
                ));
            }
            Err(e) => notes.push(format!("differential flamegraphs: {e}")),
        }
    }

    // 3. The harness comparison.
    let mut harness_md = String::new();
    if !opts.harness {
        harness_md.push_str("Skipped (--no-harness).\n");
    } else {
        match harness_ready(ws, &head_target) {
            Err(why) => {
                let _ = writeln!(
                    harness_md,
                    "Skipped: this tree's harness has no working `run` command yet \
                     (`cargo run --release -p harness -- run --help` failed: {why}). \
                     Re-run `just report {}` once it exists.",
                    opts.base_rev
                );
            }
            Ok(()) => {
                let hb = out.join("harness-base");
                let hh = out.join("harness-head");
                let base_ok = match harness_ready(&wt, &base_target) {
                    Ok(()) => run_harness(&wt, &base_target, &hb, None)
                        .map_err(|e| notes.push(format!("harness on base: {e}")))
                        .is_ok(),
                    Err(why) => {
                        notes.push(format!("the base revision's harness has no `run` command ({why}); harness numbers are head-only"));
                        false
                    }
                };
                commands.push(format!("cargo run --release -p harness -- run seed-7-clouds --out {}   # in the base worktree", rel(&hb, ws)));
                commands.push(format!(
                    "cargo run --release -p harness -- run seed-7-clouds --out {}{}",
                    rel(&hh, ws),
                    if base_ok {
                        format!(" --baseline {}", rel(&hb, ws))
                    } else {
                        String::new()
                    }
                ));
                match run_harness(ws, &head_target, &hh, base_ok.then_some(hb.as_path())) {
                    Ok(()) => {
                        for (title, dir) in [("head", &hh), ("base", &hb)] {
                            if let Ok(s) = std::fs::read_to_string(dir.join("summary.md")) {
                                let _ = writeln!(
                                    harness_md,
                                    "### Harness summary, {title}\n\n{}\n",
                                    s.trim()
                                );
                            }
                        }
                        for dir in [&hh, &hb] {
                            for f in gate::subdirs(dir).into_iter().chain([dir.to_path_buf()]) {
                                let Ok(entries) = std::fs::read_dir(&f) else {
                                    continue;
                                };
                                let mut files: Vec<PathBuf> =
                                    entries.flatten().map(|e| e.path()).collect();
                                files.sort();
                                for p in files {
                                    let name = p
                                        .file_name()
                                        .map(|n| n.to_string_lossy().into_owned())
                                        .unwrap_or_default();
                                    if name.ends_with(".svg") {
                                        flames.push((
                                            format!("harness: {}", rel(&p, &out)),
                                            p.clone(),
                                        ));
                                    } else if name.ends_with("trace.json") {
                                        let _ = writeln!(
                                            harness_md,
                                            "- Trace: [{}]({}) (open in https://ui.perfetto.dev or chrome://tracing)",
                                            rel(&p, &out),
                                            rel(&p, &out)
                                        );
                                    }
                                }
                            }
                        }
                    }
                    Err(e) => {
                        let _ = writeln!(harness_md, "The head harness run failed: {e}");
                    }
                }
            }
        }
    }

    // 4. The report.
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Performance report: `{}` vs base `{base_short}`\n",
        head_env.revision()
    );
    let n = gate::regressions(&rows);
    let verdict = match &base {
        None => "no comparison (the base suite did not run)".to_string(),
        Some(_) if n == 0 => "no benchmark regression".to_string(),
        Some(_) => format!("**{n} benchmark regression(s)**"),
    };
    let _ = writeln!(
        md,
        "Verdict: {verdict}. Environment: {}.\n",
        head_env.one_line()
    );
    let _ = writeln!(
        md,
        "Reproduce:\n\n```sh\njust report {}\n```\n\nwhich ran:\n\n```sh",
        opts.base_rev
    );
    for c in &commands {
        let _ = writeln!(md, "{c}");
    }
    let _ = writeln!(md, "```\n");
    let _ = writeln!(md, "## Benchmarks (criterion + callgrind)\n");
    // Demote the summary's headings one level.
    for line in summary.lines() {
        if line.starts_with('#') {
            let _ = writeln!(md, "#{line}");
        } else {
            let _ = writeln!(md, "{line}");
        }
    }
    let _ = writeln!(
        md,
        "\n## Harness: `harness run seed-7-clouds`\n\n{harness_md}"
    );
    let _ = writeln!(md, "## Flamegraphs\n");
    if flames.is_empty() {
        let _ = writeln!(md, "None were produced (see notes).\n");
    }
    for (title, path) in &flames {
        let _ = writeln!(md, "- [{title}]({})", rel(path, &out));
    }
    let _ = writeln!(
        md,
        "\nCPU flamegraphs come from pprof sampling (≤250 Hz) of `{}` for {} s per side: on-CPU time only; \
         time spent waiting on upstreams is invisible there (the harness's span flamegraphs show it).\n",
        opts.profile_filter, opts.profile_seconds
    );
    if !notes.is_empty() {
        let _ = writeln!(md, "## Notes\n");
        for n in &notes {
            let _ = writeln!(md, "- {n}");
        }
        md.push('\n');
    }
    let _ = writeln!(
        md,
        "## Files\n\n- `bench-head.json`, `bench-base.json`: raw results (every criterion sample, floors, instruction counts)\n\
         - `bench-summary.md`: the comparison table alone\n- `cpu-*.folded`: folded stacks behind the CPU flamegraphs"
    );
    let path = out.join("report.md");
    std::fs::write(&path, md).with_context(|| format!("writing {}", path.display()))?;
    Ok(ReportOutcome {
        path,
        regressions: n,
    })
}
