//! The report folder: `README.md`, `summary.md`, `raw.json`, the copy of the
//! scenario and the optimizer output. Flamegraphs and the trace are written
//! by [`crate::run`] into the same folder.

use std::fmt::Write as _;
use std::path::Path;

use mocks::{EndpointOptions, Fault, Latency, MocksSpec};
use serde::Serialize;

use crate::engine::Sample;
use crate::error::{HarnessError, Result};
use crate::flame::{CPU_SAMPLE_HZ, Moved};
use crate::floor::Deadlines;
use crate::instrument::Instrumented;
use crate::summary::{ModeSummary, comparison_markdown};
use crate::sysinfo::SysInfo;

/// Version tag of `raw.json`.
pub const RAW_SCHEMA: &str = "harness-raw/v1";

/// Everything a report is written from.
pub struct ReportInput<'a> {
    /// Scenario name.
    pub scenario: &'a str,
    /// Scenario description.
    pub description: &'a str,
    /// The scenario file's text.
    pub scenario_text: &'a str,
    /// Scenario notes.
    pub notes: &'a [String],
    /// The mocks spec.
    pub mocks: &'a MocksSpec,
    /// The exact command.
    pub command: &'a str,
    /// Machine facts.
    pub sys: &'a SysInfo,
    /// `process (<path>)` or `in-process`.
    pub engine: String,
    /// The `sky` arguments of a concurrent launch.
    pub sky_args: &'a [String],
    /// Measured runs and warm-ups per mode.
    pub runs: usize,
    /// Warm-ups per mode.
    pub warmup: usize,
    /// Deadlines used for the floor.
    pub deadlines: &'a Deadlines,
    /// Every measured launch.
    pub samples: &'a [Sample],
    /// Summaries.
    pub summaries: &'a [ModeSummary],
    /// The instrumented launches.
    pub instrumented: &'a Instrumented,
    /// Optimizer output of one concurrent launch.
    pub optimizer_output: &'a str,
    /// Baseline folder and the top moved span stacks, when `--baseline` was given.
    pub baseline: Option<(&'a Path, &'a [Moved])>,
    /// Wall time of the whole harness run, s.
    pub elapsed_s: f64,
}

fn write(dir: &Path, name: &str, text: &str) -> Result<()> {
    let p = dir.join(name);
    std::fs::write(&p, text).map_err(|e| HarnessError::io(p, e))
}

/// A latency model in words.
pub fn latency_text(l: &Latency) -> String {
    let ms = |d: &std::time::Duration| d.as_secs_f64() * 1000.0;
    match l {
        Latency::Zero => "0 ms".into(),
        Latency::Fixed(d) => format!("fixed {} ms", ms(d)),
        Latency::Uniform { min, max } => format!("uniform {}–{} ms", ms(min), ms(max)),
        Latency::LogNormal { median, sigma } => {
            format!("lognormal, median {} ms, σ {sigma}", ms(median))
        }
    }
}

fn fault_text(f: &Fault) -> String {
    match f {
        Fault::None => "-".into(),
        Fault::Status(s) => format!("status {s}"),
        Fault::FailFirst { n, status } => format!("first {n} fail with {status}, then succeed"),
        other => format!("{other:?}"),
    }
}

/// `(endpoint, options)` of every endpoint the spec starts.
pub fn endpoints(spec: &MocksSpec) -> Vec<(String, EndpointOptions)> {
    let mut out = Vec::new();
    if let Some(s) = &spec.sts {
        out.push(("sts (GetCallerIdentity)".to_string(), s.get_caller_identity));
    }
    if let Some(k) = &spec.kube {
        let names = k.names().unwrap_or_default();
        let n = names.len();
        out.push((format!("kube/* /version ({n} contexts)"), k.version));
        out.push((format!("kube/* /api/v1/nodes ({n} contexts)"), k.nodes));
        out.push((
            format!("kube/* /api/v1/pods ({n} contexts, {} pods)", k.pod_count),
            k.pods,
        ));
        for (ctx, o) in &k.overrides {
            for (ep, opt) in [("version", o.version), ("nodes", o.nodes), ("pods", o.pods)] {
                if let Some(opt) = opt {
                    out.push((format!("kube/{ctx}/{ep} (override)"), opt));
                }
            }
        }
    }
    if let Some(g) = &spec.gcp {
        out.push(("gcp/token".to_string(), g.token));
        out.push(("gcp/reservations".to_string(), g.reservations));
    }
    if let Some(c) = &spec.catalog {
        out.push(("catalog".to_string(), c.files));
    }
    out
}

fn latency_table(spec: &MocksSpec) -> String {
    let mut s = String::from("| endpoint | latency | fault |\n|---|---|---|\n");
    for (name, o) in endpoints(spec) {
        let _ = writeln!(
            s,
            "| {name} | {} | {} |",
            latency_text(&o.latency),
            fault_text(&o.fault)
        );
    }
    s
}

fn requests_table(summaries: &[ModeSummary]) -> String {
    let mut endpoints: Vec<&String> = summaries
        .iter()
        .flat_map(|m| m.requests_per_launch.keys())
        .collect();
    endpoints.sort();
    endpoints.dedup();
    // Collapse per-context kube endpoints so 64 contexts stay one row.
    let group = |e: &str| -> String {
        match e.strip_prefix("kube/").and_then(|r| r.rsplit_once('/')) {
            Some((_, ep)) => format!("kube/*/{ep}"),
            None => e.to_string(),
        }
    };
    let mut groups: Vec<String> = endpoints.iter().map(|e| group(e)).collect();
    groups.dedup();
    let mut s = String::from("| endpoint |");
    for m in summaries {
        let _ = write!(s, " {} |", m.mode.label());
    }
    s.push_str("\n|---|");
    for _ in summaries {
        s.push_str("---:|");
    }
    s.push('\n');
    if groups.is_empty() {
        s.push_str("| (no requests) |");
        for _ in summaries {
            s.push_str(" 0 |");
        }
        s.push('\n');
    }
    for g in &groups {
        let _ = write!(s, "| {g} |");
        for m in summaries {
            // fold from +0.0: an empty f64 `sum()` is -0.0.
            let n: f64 = m
                .requests_per_launch
                .iter()
                .filter(|(e, _)| group(e) == *g)
                .fold(0.0, |acc, (_, n)| acc + n);
            let _ = write!(s, " {n:.1} |");
        }
        s.push('\n');
    }
    s
}

fn moved_table(moved: &[Moved]) -> String {
    let mut s = String::from(
        "| span stack (inclusive) | baseline ms | now ms | change ms |\n|---|---:|---:|---:|\n",
    );
    for m in moved {
        let _ = writeln!(
            s,
            "| `{}` | {:.1} | {:.1} | {:+.1} |",
            m.stack,
            m.before as f64 / 1000.0,
            m.after as f64 / 1000.0,
            m.delta() as f64 / 1000.0
        );
    }
    if moved.is_empty() {
        s.push_str("| (no span moved) | | | |\n");
    }
    s
}

/// `summary.md`.
pub fn summary_markdown(r: &ReportInput<'_>) -> String {
    let mut s = format!(
        "# {} — summary\n\n{}\n\nEngine: {}. {} measured launches per mode after {} warm-up(s). Times in ms.\n\n",
        r.scenario, r.description, r.engine, r.runs, r.warmup
    );
    s.push_str(&comparison_markdown(r.summaries));
    s.push_str("\nfloor = mocked latency on the critical path (median over launches); overhead = wall − floor per launch (median, and p90 in `over p90`); vs serial = median serial wall / median wall.\n\n");
    s.push_str("## Critical path and exit codes\n\n| mode | critical path (most frequent) | exit codes |\n|---|---|---|\n");
    for m in r.summaries {
        let codes: Vec<String> = m.exit_codes.iter().map(i32::to_string).collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} |",
            m.mode.label(),
            if m.critical_path.is_empty() {
                "(no mocked wait)"
            } else {
                &m.critical_path
            },
            codes.join(", ")
        );
    }
    s.push_str("\nExit codes are `sky`'s: 0 plan, 1 request cannot be satisfied, 3 plan printed but some clouds were left out (partial table).\n\n");
    s.push_str("## Requests per launch (mean), by endpoint\n\nAn endpoint absent here was never called, so it is not on the critical path whatever its latency.\n\n");
    s.push_str(&requests_table(r.summaries));
    if let Some((dir, moved)) = r.baseline {
        let _ = write!(
            s,
            "\n## Span time that moved most against the baseline\n\nBaseline: `{}`. Wall-clock span stacks of the instrumented launches (one per mode), inclusive time.\n\n",
            dir.display()
        );
        s.push_str(&moved_table(moved));
    }
    s
}

/// `README.md`.
pub fn readme(r: &ReportInput<'_>) -> String {
    let i = r.instrumented;
    let mut s = format!(
        "# `{}` on {} ({})\n\n{}\n\nReproduce (from the workspace root):\n\n```sh\n{}\n```\n\n",
        r.scenario, r.sys.host, r.sys.date, r.description, r.command
    );
    s.push_str("| | |\n|---|---|\n");
    let _ = writeln!(s, "| started | {} |", r.sys.timestamp);
    let _ = writeln!(s, "| git revision | `{}` |", r.sys.git);
    let _ = writeln!(s, "| rustc | `{}` |", r.sys.rustc);
    let _ = writeln!(
        s,
        "| CPU | {} ({} cores available) |",
        r.sys.cpu, r.sys.cores
    );
    let _ = writeln!(
        s,
        "| load average at start | {} (1, 5, 15 min; other work on the machine competes with the launches) |",
        r.sys.load
    );
    let _ = writeln!(
        s,
        "| build profile | {} (harness and `sky` come from the same `target/<profile>/`) |",
        r.sys.profile
    );
    let _ = writeln!(s, "| engine | {} |", r.engine);
    let _ = writeln!(s, "| `sky` arguments | `{}` |", r.sky_args.join(" "));
    let _ = writeln!(
        s,
        "| runs | {} measured + {} warm-up per mode (the warm-cache mode always gets at least one warm-up, which fills its cache) |",
        r.runs, r.warmup
    );
    let _ = writeln!(
        s,
        "| deadlines | cloud {:?}, global {:?}, STS attempt {:?}, kube attempt {:?}, kube context {:?} |",
        r.deadlines.cloud,
        r.deadlines.global,
        r.deadlines.sts_attempt,
        r.deadlines.kube_attempt,
        r.deadlines.kube_context
    );
    let _ = writeln!(s, "| harness wall time | {:.1} s |", r.elapsed_s);
    s.push_str(
        "\n## Results\n\nSee [summary.md](summary.md) for the per-endpoint request counts.\n\n",
    );
    s.push_str(&comparison_markdown(r.summaries));
    s.push_str("\n## Mocked latency models and faults\n\nEvery mode gets a fresh set of mocks with the same seeds, so each mode sees the same latency sequence.\n\n");
    s.push_str(&latency_table(r.mocks));
    if !r.notes.is_empty() {
        s.push_str("\n## Scenario notes\n\n");
        for n in r.notes {
            let _ = writeln!(s, "- {n}");
        }
    }
    s.push_str("\n## How the numbers are computed\n\n");
    s.push_str("- **Modes.** *serial, no cache*: `SKY_FANOUT=serial sky launch --refresh` (one cloud after another: SkyPilot before its thread pool). *concurrent, no cache*: `sky launch --refresh`. *concurrent, warm cache*: `sky launch` with a state directory filled by the warm-up launch (AWS identity cache; the Kubernetes node cache if the optimizer provides one — see the request counts in summary.md).\n");
    s.push_str("- **Wall time**: from spawning `sky` to its exit (process engine), or around `optimizer::launch::run` (in-process engine).\n");
    s.push_str("- **Latency floor** (per launch, from the mocks' recordings of that launch): a lane (STS attempts; one Kubernetes context; GCP token then reservations) waits for the sum of the delays its requests were given; a request that never answers counts up to the client's per-attempt timeout, and a lane is capped at its deadline. A cloud waits for its slowest lane (contexts are listed concurrently). The floor is the sum over clouds in serial mode and the slowest cloud in concurrent modes, capped at the global deadline. Endpoints the optimizer never called add nothing. Retry backoff is not in the floor: it counts as overhead.\n");
    s.push_str("- **Overhead** = wall − floor, per launch; the table shows its median and p90. It includes process start-up, catalog parsing not hidden behind the network, SDK/client set-up, retry backoff and the optimizer itself.\n");
    s.push_str("- **p90** is nearest-rank; with 10 runs it is the 9th value. **vs serial** = median serial wall / median wall of the mode.\n");
    let _ = writeln!(
        s,
        "- **Profiles** come from separate in-process launches (one traced launch per mode, plus {} untraced warm launches for the CPU profile) made after the timed runs with the same mocks and state directories; they are not part of the statistics (their timings are in raw.json under `instrumented`).",
        i.cpu_only.len()
    );
    s.push_str("\n## Files\n\n| file | what it is |\n|---|---|\n");
    s.push_str("| README.md | this file |\n");
    s.push_str("| summary.md | comparison table, critical paths, exit codes, requests per launch by endpoint |\n");
    s.push_str("| raw.json | every launch (`samples`, warm-ups flagged), the instrumented launches, per-request delays and statuses, scenario, deadlines, machine facts |\n");
    s.push_str("| scenario.toml | the scenario file as run |\n");
    s.push_str("| optimizer-output.txt | the optimizer's output (the table) of the first measured concurrent launch |\n");
    s.push_str("| trace.json | Chrome trace (open in ui.perfetto.dev or chrome://tracing) of one in-process launch per mode, `TraceStyle::Async`: a root span `launch <mode>` per launch and one async track per `cloud_check <cloud>` (args: cloud, cache, outcome) |\n");
    let _ = writeln!(
        s,
        "| spans-flamegraph.svg, spans.folded | wall-clock time of the traced launches by span stack (µs of self time; children that overlap, like concurrent cloud checks, add up to more than their parent). This is where the waiting is. |"
    );
    let _ = writeln!(
        s,
        "| cpu-flamegraph.svg, cpu.folded | on-CPU samples (pprof, {CPU_SAMPLE_HZ} Hz requested, capped by the kernel tick) of all instrumented launches, launch-runtime threads only ({} of {} samples; the rest were the mocks). **On-CPU sampling cannot see time spent waiting** for the network, so a launch that waits 1 s for STS looks cheap here. |",
        i.cpu_samples_kept, i.cpu_samples_total
    );
    if r.baseline.is_some() {
        s.push_str("| diff-spans-forward.svg, diff-cpu-forward.svg | differential flamegraphs baseline → now, drawn with the current shape: red grew, blue shrank (normalised: the baseline is scaled to the same total, so colours show where the share of time moved; absolute changes are in summary.md) |\n");
        s.push_str("| diff-spans-reverse.svg, diff-cpu-reverse.svg | the same difference drawn with the baseline's shape (shows what disappeared), colours still now − baseline |\n");
    }
    s.push_str("\nSVGs are rendered by inferno with the workspace's one set of options (`harness::flame`: colours from frame names, sorted stacks, no timestamps), so two runs of the same code differ only in the numbers.\n");
    s
}

#[derive(Serialize)]
struct Raw<'a> {
    schema: &'static str,
    scenario: &'a str,
    command: &'a str,
    engine: &'a str,
    sky_args: &'a [String],
    runs: usize,
    warmup: usize,
    deadlines: &'a Deadlines,
    sys: &'a SysInfo,
    mocks: &'a MocksSpec,
    summaries: &'a [ModeSummary],
    samples: &'a [Sample],
    instrumented: RawInstrumented<'a>,
}

#[derive(Serialize)]
struct RawInstrumented<'a> {
    traced: &'a [Sample],
    cpu_only: &'a [Sample],
    cpu_samples_total: u64,
    cpu_samples_kept: u64,
}

/// Writes README.md, summary.md, raw.json, scenario.toml and optimizer-output.txt into `dir`.
pub fn write_report(dir: &Path, r: &ReportInput<'_>) -> Result<()> {
    let raw = Raw {
        schema: RAW_SCHEMA,
        scenario: r.scenario,
        command: r.command,
        engine: &r.engine,
        sky_args: r.sky_args,
        runs: r.runs,
        warmup: r.warmup,
        deadlines: r.deadlines,
        sys: r.sys,
        mocks: r.mocks,
        summaries: r.summaries,
        samples: r.samples,
        instrumented: RawInstrumented {
            traced: &r.instrumented.traced,
            cpu_only: &r.instrumented.cpu_only,
            cpu_samples_total: r.instrumented.cpu_samples_total,
            cpu_samples_kept: r.instrumented.cpu_samples_kept,
        },
    };
    let json = serde_json::to_string_pretty(&raw).map_err(|e| HarnessError::Render {
        what: "raw.json".into(),
        detail: e.to_string(),
    })?;
    write(dir, "raw.json", &json)?;
    write(dir, "summary.md", &summary_markdown(r))?;
    write(dir, "README.md", &readme(r))?;
    write(dir, "scenario.toml", r.scenario_text)?;
    write(dir, "optimizer-output.txt", r.optimizer_output)?;
    Ok(())
}
