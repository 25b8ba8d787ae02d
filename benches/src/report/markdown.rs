//! The report's text: `report.md`, the pull-request comment
//! (`comment.md`) and the folder's `README.md`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::phases::Phases;
use super::rel;
use crate::gate;

/// How to open what the report folder holds (written as its `README.md`).
pub(super) const VIEWING: &str = "# Viewing this report\n\n\
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
pub(super) fn comment_markdown(
    head: &str,
    base: &str,
    rows: &[gate::Row],
    summary: &str,
) -> String {
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
pub(super) struct ReportParts<'a> {
    pub(super) head_revision: &'a str,
    pub(super) base_short: &'a str,
    pub(super) environment: &'a str,
    pub(super) base_rev: &'a str,
    pub(super) commands: &'a [String],
    pub(super) summary: &'a str,
    pub(super) noise: Option<&'a str>,
    pub(super) regressions: usize,
    pub(super) harness_md: &'a str,
    pub(super) flames: &'a [(String, PathBuf)],
    pub(super) traces: &'a [PathBuf],
    pub(super) profile_filter: &'a str,
    pub(super) profile_seconds: u32,
    pub(super) out: &'a Path,
    pub(super) phases: &'a Phases,
}

/// `report.md`: verdict, how to reproduce, benchmarks, harness, flamegraphs.
pub(super) fn report_markdown(p: &ReportParts<'_>) -> String {
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
    if let Some(noise) = p.noise {
        let _ = writeln!(md, "\n{noise}");
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
        "## Where the report's time went\n\n{}",
        p.phases.markdown()
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
    use crate::gate::Thresholds;
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
        let mut phases = Phases::default();
        phases.record("build", "head", std::time::Duration::from_secs(90));
        phases.record(
            "criterion suite",
            "head",
            std::time::Duration::from_secs(30),
        );
        report_markdown(&ReportParts {
            head_revision: "abc1234",
            base_short: "def5678",
            environment: "2 cores",
            base_rev: "HEAD~1",
            commands: &["cargo bench -p benches --bench main --".to_string()],
            summary: &summary,
            noise: Some("**Noise band at this run's budget:** test"),
            regressions: gate::regressions(&rows),
            harness_md: "### Harness summary, head\n\n| mode | median |\n|---|---|\n| warm | 1 ms |\n",
            flames: &[("CPU flamegraph, head".into(), flame)],
            traces: &[trace],
            profile_filter: "^launch/x$",
            profile_seconds: 5,
            out: dir,
            phases: &phases,
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
}
