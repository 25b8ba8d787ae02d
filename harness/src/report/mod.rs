//! The report folder: every file a run writes, and the README that says
//! what each one shows and how to open it.
//!
//! [`write_report`] draws the pictures (flamegraphs with inferno, the
//! timeline and distribution plots with plotters) and writes `README.md`
//! ([`readme`]), `summary.md`, `raw.json`, the scenario and both engines'
//! output; the traces are already there (written while the launches ran).

pub mod readme;
pub mod tables;

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::baseline::Baseline;
use crate::engine::Sample;
use crate::error::{HarnessError, Result};
use crate::flame::{self, Chart, Counts, Folded};
use crate::floor::Deadlines;
use crate::instrument::Instrumented;
use crate::plot::{distribution, timeline};
use crate::scenario::Scenario;
use crate::skypilot::SkyPilotRun;
use crate::summary::{ModeSummary, comparison_markdown};
use crate::sysinfo::SysInfo;
use crate::timeline::LaunchTimeline;
use crate::traced::Traced;

pub use tables::{endpoints, latency_text};

/// Version tag of `raw.json`.
pub const RAW_SCHEMA: &str = "harness-raw/v2";

/// A CPU profile is drawn only with at least this many samples; below, the
/// README says it is too thin to read.
pub const MIN_DRAWN_SAMPLES: u64 = 500;

/// The samples a CPU profile aims for.
pub const TARGET_SAMPLES: u64 = 1000;

/// Everything a report is written from.
pub struct ReportInput<'a> {
    /// The scenario.
    pub scenario: &'a Scenario,
    /// The scenario file's text.
    pub scenario_text: &'a str,
    /// The exact command.
    pub command: &'a str,
    /// Machine facts.
    pub sys: &'a SysInfo,
    /// How `sky`'s launches were made.
    pub engine: String,
    /// SkyPilot's part, when it ran.
    pub skypilot: Option<&'a SkyPilotRun>,
    /// Measured runs per `sky` mode.
    pub runs: usize,
    /// Warm-ups per `sky` mode.
    pub warmup: usize,
    /// Deadlines used for the floor.
    pub deadlines: &'a Deadlines,
    /// Every measured launch.
    pub samples: &'a [Sample],
    /// Summaries.
    pub summaries: &'a [ModeSummary],
    /// What the numbers say.
    pub story: &'a [String],
    /// The in-process instrumented launches.
    pub instrumented: &'a Instrumented,
    /// The traced process launches.
    pub traced: &'a Traced,
    /// One timeline per mode.
    pub timelines: &'a [LaunchTimeline],
    /// `sky`'s output of one concurrent launch.
    pub optimizer_output: &'a str,
    /// SkyPilot's output of one launch.
    pub skypilot_output: Option<&'a str>,
    /// The baseline folder and the comparison, when `--baseline` was given.
    pub baseline: Option<(&'a Path, &'a Baseline)>,
    /// Wall time of the whole harness run, s.
    pub elapsed_s: f64,
}

/// A CPU profile's state in the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Drawn {
    /// Drawn (enough samples).
    Drawn,
    /// Too few samples to read: not drawn.
    TooThin,
}

/// Whether a profile of `samples` is drawn.
pub fn drawn(samples: u64) -> Drawn {
    if samples >= MIN_DRAWN_SAMPLES {
        Drawn::Drawn
    } else {
        Drawn::TooThin
    }
}

fn write(dir: &Path, name: &str, text: &str) -> Result<()> {
    let p = dir.join(name);
    std::fs::write(&p, text).map_err(|e| HarnessError::io(p, e))
}

/// `summary.md`.
pub fn summary_markdown(r: &ReportInput<'_>) -> String {
    let mut s = format!(
        "# {} — summary\n\n{}\n\nEngine: {}. {} measured launches per `sky` mode after {} warm-up(s). Times in ms.\n\n",
        r.scenario.name, r.scenario.file.description, r.engine, r.runs, r.warmup
    );
    s.push_str(&comparison_markdown(r.summaries));
    s.push_str("\nfloor = the heaviest chain of mocked requests the launch made one after another (each arriving after the one before was answered; median over launches); overhead = wall − floor per launch (median, and p90 in `over p90`); vs serial = median serial wall / median wall.\n\n");
    s.push_str("## Critical path and exit codes\n\n| mode | critical path (most frequent chain of mocked requests) | exit codes |\n|---|---|---|\n");
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
    s.push_str("\nExit codes: `sky`'s 0 plan, 1 request cannot be satisfied, 3 plan printed but some clouds were left out (partial table); SkyPilot's 0 plan, 1 its error for the request.\n\n");
    s.push_str("## Requests per launch (mean), by endpoint\n\nAn endpoint absent here was never called, so it is not on the critical path whatever its latency.\n\n");
    s.push_str(&tables::requests_table(r.summaries));
    if let Some((_, b)) = r.baseline {
        s.push_str("\n## Against the baseline\n\n");
        s.push_str(&tables::baseline_tables(b));
    }
    s
}

#[derive(Serialize)]
struct Raw<'a> {
    schema: &'static str,
    scenario: &'a str,
    command: &'a str,
    engine: &'a str,
    sky_args: Vec<String>,
    skypilot_args: Option<Vec<String>>,
    runs: usize,
    warmup: usize,
    skypilot_runs: Option<usize>,
    deadlines: &'a Deadlines,
    sys: &'a SysInfo,
    mocks: &'a mocks::MocksSpec,
    summaries: &'a [ModeSummary],
    story: &'a [String],
    samples: &'a [Sample],
    instrumented: RawInstrumented<'a>,
    traced_processes: &'a [Sample],
    timelines: &'a [LaunchTimeline],
    baseline: Option<&'a Baseline>,
}

#[derive(Serialize)]
struct RawInstrumented<'a> {
    traced: &'a [Sample],
    /// The untraced warm launches of the CPU profile: thousands of them, so
    /// their count and wall-time statistics, not each one.
    cpu_only_launches: usize,
    cpu_only_wall_ms: crate::stats::Stats,
    cpu_samples_total: u64,
    cpu_samples_kept: u64,
    skypilot_cpu_samples: u64,
    skypilot_profiled_launches: usize,
}

/// Draws the flamegraphs and plots, and writes every file of the report into `dir`.
pub fn write_report(dir: &Path, r: &ReportInput<'_>) -> Result<()> {
    let subtitle = format!("{} · {} · {}", r.scenario.name, r.sys.date, r.sys.git);
    let i = r.instrumented;
    flame::render(
        &i.spans,
        &Chart::new(
            "Wall-clock time by span (one in-process launch per mode)",
            &subtitle,
            Counts::WallMicros,
        ),
        &dir.join("spans-flamegraph.svg"),
    )?;
    flame::write_folded(&i.spans, &dir.join("spans.folded"))?;
    let cpu_title = format!(
        "sky: on-CPU samples ({} samples, pprof; cannot see waiting)",
        i.cpu_samples_kept
    );
    cpu_profile(
        &i.cpu,
        i.cpu_samples_kept,
        &cpu_title,
        &subtitle,
        dir,
        "cpu",
    )?;
    if r.skypilot.is_some() {
        let t = r.traced;
        let title = format!(
            "SkyPilot 0.14.1: on-CPU samples ({} samples, py-spy, {} launches; cannot see waiting)",
            t.skypilot_samples, t.skypilot_profiled
        );
        cpu_profile(
            &t.skypilot_cpu,
            t.skypilot_samples,
            &title,
            &subtitle,
            dir,
            "skypilot-cpu",
        )?;
    }
    if let Some((_, b)) = r.baseline {
        let sub = format!(
            "{subtitle} vs {} · red: more of the time now, blue: less (both scaled to the same total); width: {}",
            b.dir.display(),
            "now (forward) or the baseline (reverse)"
        );
        for (negate, suffix) in [(false, "forward"), (true, "reverse")] {
            let title = format!("Wall-clock span time, baseline → now ({suffix})");
            flame::render_diff(
                &b.base_spans,
                &i.spans,
                negate,
                &Chart::new(&title, &sub, Counts::WallMicros),
                &dir.join(format!("diff-spans-{suffix}.svg")),
            )?;
            if let Some(base_cpu) = &b.base_cpu {
                let title = format!("On-CPU samples, baseline → now ({suffix})");
                flame::render_diff(
                    base_cpu,
                    &i.cpu,
                    negate,
                    &Chart::new(&title, &sub, Counts::CpuSamples),
                    &dir.join(format!("diff-cpu-{suffix}.svg")),
                )?;
            }
        }
    }
    let plot_sub = format!(
        "{} · {} · load {} · {}",
        r.scenario.name,
        r.sys.date,
        r.sys.load,
        short_rev(&r.sys.git)
    );
    if !r.timelines.is_empty() {
        timeline::draw(
            r.timelines,
            "Where each launch spends its time (one traced launch per mode, shared time axis)",
            &plot_sub,
            None,
            &dir.join("timeline.svg"),
        )?;
        for t in r.timelines {
            timeline::draw(
                std::slice::from_ref(t),
                &format!("{}: where the launch spends its time", t.mode.label()),
                &plot_sub,
                None,
                &dir.join(format!("timeline-{}.svg", t.mode.name())),
            )?;
        }
    }
    let series: Vec<distribution::Series> = r
        .summaries
        .iter()
        .map(|m| distribution::Series {
            mode: m.mode,
            wall_ms: r
                .samples
                .iter()
                .filter(|s| s.mode == m.mode && !s.warmup)
                .map(|s| s.wall_ms)
                .collect(),
            floor_ms: m.floor.median,
        })
        .collect();
    distribution::draw(
        &series,
        "Wall time of every measured launch, per mode and engine",
        &plot_sub,
        &dir.join("distribution.svg"),
    )?;

    let raw = Raw {
        schema: RAW_SCHEMA,
        scenario: &r.scenario.name,
        command: r.command,
        engine: &r.engine,
        sky_args: crate::engine::ProcessLauncher::args(r.scenario, crate::engine::Mode::Concurrent),
        skypilot_args: r.skypilot.map(|_| r.scenario.file.request.skypilot_args()),
        runs: r.runs,
        warmup: r.warmup,
        skypilot_runs: r.skypilot.map(|s| s.runs),
        deadlines: r.deadlines,
        sys: r.sys,
        mocks: &r.scenario.file.mocks,
        summaries: r.summaries,
        story: r.story,
        samples: r.samples,
        instrumented: RawInstrumented {
            traced: &i.traced,
            cpu_only_launches: i.cpu_only.len(),
            cpu_only_wall_ms: crate::stats::Stats::of(
                &i.cpu_only.iter().map(|s| s.wall_ms).collect::<Vec<_>>(),
            ),
            cpu_samples_total: i.cpu_samples_total,
            cpu_samples_kept: i.cpu_samples_kept,
            skypilot_cpu_samples: r.traced.skypilot_samples,
            skypilot_profiled_launches: r.traced.skypilot_profiled,
        },
        traced_processes: &r.traced.samples,
        timelines: r.timelines,
        baseline: r.baseline.map(|(_, b)| b),
    };
    let json = serde_json::to_string_pretty(&raw).map_err(|e| HarnessError::Render {
        what: "raw.json".into(),
        detail: e.to_string(),
    })?;
    write(dir, "raw.json", &json)?;
    write(dir, "summary.md", &summary_markdown(r))?;
    write(dir, "README.md", &readme::readme(r))?;
    write(dir, "scenario.toml", r.scenario_text)?;
    write(dir, "optimizer-output.txt", r.optimizer_output)?;
    if let Some(out) = r.skypilot_output {
        write(dir, "skypilot-output.txt", out)?;
    }
    Ok(())
}

/// `<name>.folded` always; `<name>-flamegraph.svg` only when the profile
/// has enough samples to read.
fn cpu_profile(
    folded: &Folded,
    samples: u64,
    title: &str,
    subtitle: &str,
    dir: &Path,
    name: &str,
) -> Result<()> {
    flame::write_folded(folded, &dir.join(format!("{name}.folded")))?;
    if drawn(samples) == Drawn::Drawn {
        flame::render(
            folded,
            &Chart::new(title, subtitle, Counts::CpuSamples),
            &dir.join(format!("{name}-flamegraph.svg")),
        )?;
    }
    Ok(())
}

/// The first 12 characters of a revision (and `-dirty`).
pub fn short_rev(git: &str) -> String {
    match git.strip_suffix("-dirty") {
        Some(sha) => format!("{}-dirty", &sha[..sha.len().min(12)]),
        None => git[..git.len().min(12)].to_string(),
    }
}
