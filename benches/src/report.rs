//! `just report [BASE_REV]`: the pull-request report. The base revision is
//! checked out in a git worktree under `target/bench-worktrees/`; its target
//! dir is seeded with hard links to the head's release build, so only the
//! crates that differ are rebuilt. Both sides are built completely first
//! (every binary the report runs), then the suite, instruction counts, a CPU
//! profile and a harness run happen on both sides, and everything lands in
//! `reports/pr-<head>-vs-<base>/`.
//!
//! Every step must succeed on both sides: a step that fails ends the report
//! with an error naming the side and the step (and a `report.md` that says
//! so), never with a verdict that was not computed.

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
    opts: &ReportOptions,
    out: &Path,
    baseline: Option<&Path>,
) -> anyhow::Result<()> {
    let exe = side.target.join("release/harness");
    let mut cmd = Command::new(&exe);
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

/// One side of the comparison: a tree and the target dir it builds into.
struct Side<'a> {
    /// `base` or `head`, for messages and file names.
    name: &'static str,
    workspace: &'a Path,
    target: PathBuf,
}

impl Side<'_> {
    /// Builds every binary the report runs on this side: `sky` and the
    /// harness (release), the criterion suite and `bench-ops` (bench profile).
    fn build(&self) -> anyhow::Result<()> {
        let steps: [&[&str]; 3] = [
            &[
                "build",
                "--release",
                "-p",
                "optimizer",
                "--bin",
                "sky",
                "-p",
                "harness",
                "--bin",
                "harness",
            ],
            &["bench", "-p", "benches", "--bench", "main", "--no-run"],
            &[
                "build",
                "--profile",
                "bench",
                "-p",
                "benches",
                "--bin",
                "bench-ops",
            ],
        ];
        for args in steps {
            let status = Command::new("cargo")
                .args(args)
                .current_dir(self.workspace)
                .env("CARGO_TARGET_DIR", &self.target)
                .status()
                .context("running cargo")?;
            if !status.success() {
                bail!("`cargo {}` failed ({status})", args.join(" "));
            }
        }
        Ok(())
    }

    /// `what` failed on this side.
    fn step<T>(&self, what: &str, r: anyhow::Result<T>) -> anyhow::Result<T> {
        r.with_context(|| format!("{} side: {what} failed", self.name))
    }
}

/// Hard-links every file of `from` into `to` (which must not exist yet):
/// the base build then starts from the head's compiled dependencies, and
/// cargo rebuilds only the crates whose sources or flags differ. Cargo writes
/// new files for what it rebuilds, so the head's files are never changed.
fn seed_target(from: &Path, to: &Path) -> std::io::Result<u64> {
    let mut linked = 0;
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type()?;
        if kind.is_dir() {
            linked += seed_target(&src, &dst)?;
        } else if kind.is_file() && !dst.exists() {
            std::fs::hard_link(&src, &dst)?;
            linked += 1;
        }
    }
    Ok(linked)
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
    let head_target = runner::target_dir(ws);
    let wt_root = head_target.join("bench-worktrees");
    let wt = wt_root.join(base_short);
    let base_target = wt_root.join("target");
    if !wt.join(".git").exists() {
        std::fs::create_dir_all(&wt_root)
            .with_context(|| format!("creating {}", wt_root.display()))?;
        let wt_arg = wt.display().to_string();
        git(ws, &["worktree", "add", "--detach", &wt_arg, base_sha])?;
    }
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
    let mut commands: Vec<String> = Vec::new();

    // 0. Build both sides completely before measuring anything; the base
    //    reuses the head's compiled dependencies.
    head.step("building", head.build())?;
    if !base_target.exists() {
        let linked = seed_target(&head_target.join("release"), &base_target.join("release"))
            .with_context(|| format!("seeding {} from the head's build", base_target.display()))?;
        eprintln!("bench-gate: seeded the base build with {linked} files of the head's");
    }
    base.step("building", base.build())?;

    // 1. Benchmarks: base first, then head.
    let suite = |side: &Side<'_>, name: &str| {
        let r = runner::run_suite(&SuiteOptions {
            workspace: side.workspace.to_path_buf(),
            target_dir: side.target.clone(),
            filter: opts.filter.clone(),
            instructions: opts.instructions,
            prebuilt: None,
            name: name.to_string(),
        });
        let r = side.step("the benchmark suite", r)?;
        if opts.instructions && r.instructions.is_empty() && r.instructions_note.is_none() {
            bail!(
                "{} side: counting instructions produced no counts (does bench-ops there know the filter {:?}?)",
                side.name,
                opts.filter.as_deref().unwrap_or("")
            );
        }
        Ok::<_, anyhow::Error>(r)
    };
    let filter_arg = opts
        .filter
        .as_deref()
        .map(|f| format!(" '{f}'"))
        .unwrap_or_default();
    commands.push(format!(
        "(in {}) CARGO_TARGET_DIR={} cargo bench -p benches --bench main --{filter_arg}",
        rel(&wt, ws),
        rel(&base_target, ws)
    ));
    let base_results = suite(&base, &format!("base-{base_short}"))?;
    base_results.save(&out.join("bench-base.json"))?;
    commands.push(format!(
        "cargo bench -p benches --bench main --{filter_arg}"
    ));
    let head_results = suite(&head, "head")?;
    head_results.save(&out.join("bench-head.json"))?;
    let thresholds = Thresholds::load(&opts.thresholds)?;
    let rows = gate::compare(&base_results, &head_results, &thresholds);
    let busy = gate::busy_machine(&base_results, &head_results, &thresholds);
    let summary = gate::summary_markdown(Some(&base_results), &head_results, &rows, busy);
    std::fs::write(out.join("bench-summary.md"), &summary)?;

    // 2. CPU flamegraphs of one benchmark on both sides, and their differentials.
    let mut flames: Vec<(String, PathBuf)> = Vec::new();
    commands.push(format!(
        "cargo bench -p benches --bench main -- --profile-time {} '{}'   # both sides",
        opts.profile_seconds, opts.profile_filter
    ));
    let mut profile = |side: &Side<'_>| -> anyhow::Result<PathBuf> {
        let dirs = side.step(
            "profiling",
            runner::profile(
                side.workspace,
                &side.target,
                &opts.profile_filter,
                opts.profile_seconds,
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
    let base_folded = profile(&base)?;
    let head_folded = profile(&head)?;
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

    // 3. The harness comparison.
    let mut harness_md = String::new();
    let mut traces: Vec<PathBuf> = Vec::new();
    if !opts.harness {
        harness_md.push_str("Skipped (--no-harness).\n");
    } else {
        let hb = out.join("harness-base");
        let hh = out.join("harness-head");
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
        base.step("the harness run", run_harness(&base, opts, &hb, None))?;
        let hb_report = only_subdir(&hb)?;
        head.step(
            "the harness run",
            run_harness(&head, opts, &hh, Some(&hb_report)),
        )?;
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

    // 4. The report.
    let n = gate::regressions(&rows);
    let md = report_markdown(&ReportParts {
        head_revision: &head_env.revision(),
        base_short,
        environment: &head_env.one_line(),
        base_rev: &opts.base_rev,
        commands: &commands,
        summary: &summary,
        regressions: n,
        harness_md: &harness_md,
        flames: &flames,
        traces: &traces,
        profile_filter: &opts.profile_filter,
        profile_seconds: opts.profile_seconds,
        out,
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

/// How to open what the report folder holds (written as its `README.md`).
const VIEWING: &str = "# Viewing this report\n\n\
- `report.md`: the report (GitHub-flavoured markdown).\n\
- `*.svg`: flamegraphs. Open them in a browser (not an image viewer): they are interactive — click a frame to zoom, Ctrl-F to search.\n\
- `**/trace.json`: Chrome traces. Open them at <https://ui.perfetto.dev> (Open trace file) or <https://www.speedscope.app> (drop the file), or in `chrome://tracing`.\n\
- `bench-*.json`: raw results; `just bench-compare` style tools read them (`bench-gate compare A B`).\n";

/// Marks the pull-request comment the benchmark workflow updates in place.
pub const COMMENT_MARKER: &str = "<!-- sky-bench-report -->";

/// Where the comment links to the uploaded report; the workflow that posts
/// the comment replaces it with the artifact's URL.
pub const ARTIFACT_URL: &str = "@ARTIFACT_URL@";

/// Rows shown in the comment's compact table besides the regressions.
const COMMENT_TOP_CHANGES: usize = 8;

/// `comment.md`: the pull-request comment — regressions first, a compact
/// table of the largest changes, the full comparison collapsed, and links to
/// the artifact with the flamegraphs and traces.
fn comment_markdown(head: &str, base: &str, rows: &[gate::Row], summary: &str) -> String {
    let mut s = String::new();
    let n = gate::regressions(rows);
    let _ = writeln!(
        s,
        "{COMMENT_MARKER}
### Launch latency: `{head}` vs `{base}`
"
    );
    let _ = writeln!(
        s,
        "{}
",
        if n == 0 {
            "✅ No benchmark regression.".to_string()
        } else {
            format!("❌ **{n} benchmark regression(s)**")
        }
    );
    let mut shown: Vec<&gate::Row> = rows
        .iter()
        .filter(|r| r.verdict == gate::Verdict::Regressed)
        .collect();
    let mut others: Vec<&gate::Row> = rows
        .iter()
        .filter(|r| r.verdict != gate::Verdict::Regressed && r.change.is_some())
        .collect();
    others.sort_by(|a, b| {
        let size = |r: &gate::Row| r.change.map_or(0.0, f64::abs);
        size(b).total_cmp(&size(a))
    });
    shown.extend(others.into_iter().take(COMMENT_TOP_CHANGES));
    if !shown.is_empty() {
        let _ = writeln!(s, "| {} |", gate::HEADERS.join(" | "));
        let _ = writeln!(s, "|{}", "---|".repeat(gate::HEADERS.len()));
        for r in shown {
            let mut c = r.cells();
            if r.verdict == gate::Verdict::Regressed {
                c[6] = format!("**{}**", c[6]);
            }
            let _ = writeln!(s, "| {} |", c.join(" | "));
        }
        s.push('\n');
    }
    let _ = writeln!(
        s,
        "Flamegraphs (CPU and span, with differentials), Chrome traces and raw results: [the report artifact]({ARTIFACT_URL}) (`report.md`; open the SVGs in a browser, the traces in <https://ui.perfetto.dev>).\n"
    );
    let _ = writeln!(
        s,
        "<details><summary>Full comparison</summary>\n\n{}\n\n</details>",
        summary.trim()
    );
    s
}

/// The pieces of `report.md`.
struct ReportParts<'a> {
    head_revision: &'a str,
    base_short: &'a str,
    environment: &'a str,
    base_rev: &'a str,
    commands: &'a [String],
    summary: &'a str,
    regressions: usize,
    harness_md: &'a str,
    flames: &'a [(String, PathBuf)],
    traces: &'a [PathBuf],
    profile_filter: &'a str,
    profile_seconds: u32,
    out: &'a Path,
}

/// `report.md`: verdict, how to reproduce, benchmarks, harness, flamegraphs.
fn report_markdown(p: &ReportParts<'_>) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Performance report: `{}` vs base `{}`\n",
        p.head_revision, p.base_short
    );
    let verdict = if p.regressions == 0 {
        "no benchmark regression".to_string()
    } else {
        format!("**{} benchmark regression(s)**", p.regressions)
    };
    let _ = writeln!(md, "Verdict: {verdict}. Environment: {}.\n", p.environment);
    let _ = writeln!(md, "## Benchmarks (criterion + callgrind)\n");
    // Demote the summary's headings one level.
    for line in p.summary.lines() {
        if line.starts_with('#') {
            let _ = writeln!(md, "#{line}");
        } else {
            let _ = writeln!(md, "{line}");
        }
    }
    let _ = writeln!(md, "\n## Harness\n\n{}", p.harness_md);
    for t in p.traces {
        let _ = writeln!(
            md,
            "- Trace: [{}]({}) (open in <https://ui.perfetto.dev> or <https://www.speedscope.app>)",
            rel(t, p.out),
            rel(t, p.out)
        );
    }
    let _ = writeln!(md, "\n## Flamegraphs\n");
    for (title, path) in p.flames {
        let _ = writeln!(md, "- [{title}]({})", rel(path, p.out));
    }
    let _ = writeln!(
        md,
        "\nCPU flamegraphs come from pprof sampling (≤250 Hz) of `{}` for {} s per side: on-CPU time only; \
         time spent waiting on upstreams is invisible there (the harness's span flamegraphs show it). \
         Open the SVGs in a browser: they are interactive.\n",
        p.profile_filter, p.profile_seconds
    );
    let _ = writeln!(
        md,
        "## Reproduce\n\n```sh\njust report {}\n```\n\n<details><summary>Commands it ran</summary>\n\n```sh",
        p.base_rev
    );
    for c in p.commands {
        let _ = writeln!(md, "{c}");
    }
    let _ = writeln!(md, "```\n\n</details>\n");
    let _ = writeln!(
        md,
        "## Files\n\n- `bench-head.json`, `bench-base.json`: raw results (every criterion sample, floors, instruction counts)\n\
         - `bench-summary.md`: the comparison table alone\n- `cpu-*.folded`: folded stacks behind the CPU flamegraphs\n\
         - `README.md`: how to open the flamegraphs and traces"
    );
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

    fn sample_report(dir: &Path) -> String {
        let ws = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let base = gate::load_baseline(&ws, "main").unwrap();
        let mut head = base.clone();
        head.name = "head".into();
        let thresholds = Thresholds::load(&ws.join("benches/thresholds.toml")).unwrap();
        let rows = gate::compare(&base, &head, &thresholds);
        let summary = gate::summary_markdown(Some(&base), &head, &rows, None);
        let flame = dir.join("cpu-flamegraph-head.svg");
        let trace = dir.join("harness-head/x/trace.json");
        report_markdown(&ReportParts {
            head_revision: "abc1234",
            base_short: "def5678",
            environment: "2 cores",
            base_rev: "HEAD~1",
            commands: &["cargo bench -p benches --bench main --".to_string()],
            summary: &summary,
            regressions: gate::regressions(&rows),
            harness_md: "### Harness summary, head\n\n| mode | median |\n|---|---|\n| warm | 1 ms |\n",
            flames: &[("CPU flamegraph, head".into(), flame)],
            traces: &[trace],
            profile_filter: "^launch/x$",
            profile_seconds: 5,
            out: dir,
        })
    }

    #[test]
    fn the_report_renders_as_github_markdown() {
        let dir = Path::new("/reports/pr-x");
        let md = sample_report(dir);
        let mut tables = 0;
        let mut links = Vec::new();
        let mut html = String::new();
        let mut text = String::new();
        for event in Parser::new_ext(&md, Options::ENABLE_TABLES) {
            match event {
                Event::Start(Tag::Table(_)) => tables += 1,
                Event::Start(Tag::Link { dest_url, .. }) => links.push(dest_url.to_string()),
                Event::Html(h) | Event::InlineHtml(h) => html.push_str(&h),
                Event::Text(t) => text.push_str(&t),
                Event::End(TagEnd::Table) => {}
                _ => {}
            }
        }
        // The bench comparison and the harness summary are real tables, not
        // paragraphs of pipes.
        assert!(tables >= 2, "{tables} tables in:\n{md}");
        assert!(!text.contains("|---"), "a table did not parse:\n{md}");
        // Links are relative to the report folder, so they work in the artifact.
        assert!(
            links.contains(&"cpu-flamegraph-head.svg".to_string()),
            "{links:?}"
        );
        assert!(
            links.contains(&"harness-head/x/trace.json".to_string()),
            "{links:?}"
        );
        assert!(links.iter().all(|l| !l.starts_with('/')), "{links:?}");
        // The collapsed raw commands open and close.
        assert_eq!(
            html.matches("<details>").count(),
            html.matches("</details>").count()
        );
        assert!(md.starts_with("# Performance report: `abc1234` vs base `def5678`"));
        assert!(md.contains("Verdict: no benchmark regression."));
    }

    #[test]
    fn the_comment_puts_regressions_first_and_collapses_the_rest() {
        let ws = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let base = gate::load_baseline(&ws, "main").unwrap();
        let mut head = base.clone();
        // Make one benchmark three times slower: it must lead the table.
        let (id, slow) = head
            .benchmarks
            .iter_mut()
            .find(|(id, _)| id.starts_with("launch/warm"))
            .unwrap();
        let id = id.clone();
        let samples: Vec<f64> = slow.samples_ns.iter().map(|s| s * 3.0).collect();
        *slow = gate::BenchResult::from_samples(samples, slow.floor_ns.map(|f| f * 3.0));
        let thresholds = Thresholds::load(&ws.join("benches/thresholds.toml")).unwrap();
        let rows = gate::compare(&base, &head, &thresholds);
        let summary = gate::summary_markdown(Some(&base), &head, &rows, None);
        let md = comment_markdown("abc", "def", &rows, &summary);
        assert!(md.starts_with(COMMENT_MARKER), "{md}");
        assert!(md.contains("regression(s)"), "{md}");
        let first_row = md
            .lines()
            .find(|l| l.starts_with("| ") && !l.contains("benchmark"))
            .unwrap();
        assert!(first_row.contains(&id), "{first_row} should be {id}");
        assert!(md.contains(ARTIFACT_URL));
        let open = md.find("<details>").unwrap();
        assert!(md[open..].contains("</details>"));
        let tables = Parser::new_ext(&md, Options::ENABLE_TABLES)
            .filter(|e| matches!(e, Event::Start(Tag::Table(_))))
            .count();
        assert!(tables >= 2, "compact table and the full one: {md}");
    }

    #[test]
    fn seeding_links_files_without_touching_the_source() {
        let tmp = tempfile::tempdir().unwrap();
        let (from, to) = (tmp.path().join("head"), tmp.path().join("base"));
        std::fs::create_dir_all(from.join("deps")).unwrap();
        std::fs::write(from.join("deps/libx.rlib"), "x").unwrap();
        std::fs::write(from.join("sky"), "binary").unwrap();
        assert_eq!(seed_target(&from, &to).unwrap(), 2);
        assert_eq!(
            std::fs::read_to_string(to.join("deps/libx.rlib")).unwrap(),
            "x"
        );
        // A rebuild replaces the base's file; the head's stays as it was.
        std::fs::remove_file(to.join("sky")).unwrap();
        std::fs::write(to.join("sky"), "rebuilt").unwrap();
        assert_eq!(std::fs::read_to_string(from.join("sky")).unwrap(), "binary");
    }
}
