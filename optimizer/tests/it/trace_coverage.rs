//! The `--trace` of a launch accounts for the process: the phase spans
//! (arguments, runtime, options, then the launch's stages — configure,
//! probe (its set-up and follow-up reads; the fan-out and each cloud check,
//! each catalog's load, the task parsed ahead), assemble, plan (validation, optimisation) — rendering,
//! output, shutdown) together cover at least 95 %
//! of the time from `main` (where tracing starts) to the last event.
//!
//! A ratio of one run's own clock readings, not a speed: a span that goes
//! missing leaves a gap whatever the machine's load. The best of five runs
//! is taken so that a preemption that lands between two spans does not
//! decide it.

use std::path::Path;
use std::process::Command;

/// A span: name, start and end (µs from the trace's origin).
type Span = (String, f64, f64);

/// Spans `(name, start µs, end µs)` of a Chrome trace in tracing-chrome's
/// async style (`b`/`e` pairs keyed by id).
fn spans(trace: &serde_json::Value) -> Vec<Span> {
    let events = trace
        .as_array()
        .expect("a Chrome trace is an array of events");
    let mut open = std::collections::HashMap::new();
    let mut out = Vec::new();
    for e in events {
        let key = (e["id"].as_u64(), e["name"].as_str().map(str::to_string));
        match e["ph"].as_str() {
            Some("b") => {
                open.insert(key, e["ts"].as_f64().expect("ts"));
            }
            Some("e") => {
                if let Some(start) = open.remove(&key) {
                    out.push((
                        key.1.unwrap_or_default(),
                        start,
                        e["ts"].as_f64().expect("ts"),
                    ));
                }
            }
            _ => {}
        }
    }
    out
}

/// The union of the spans over `[0, last end]`: (covered, total).
fn coverage(spans: &[Span]) -> (f64, f64) {
    let mut intervals: Vec<(f64, f64)> = spans.iter().map(|(_, a, b)| (*a, *b)).collect();
    intervals.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total = intervals.iter().map(|i| i.1).fold(0.0, f64::max);
    let mut covered = 0.0;
    let mut current: Option<(f64, f64)> = None;
    for (a, b) in intervals {
        match &mut current {
            Some((_, end)) if a <= *end => *end = end.max(b),
            _ => {
                if let Some((s, e)) = current {
                    covered += e - s;
                }
                current = Some((a, b));
            }
        }
    }
    if let Some((s, e)) = current {
        covered += e - s;
    }
    (covered, total)
}

fn launch(home: &Path, trace: Option<&Path>) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sky"));
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .env("SKY_BUNDLED_CATALOGS", "1")
        .env(
            "SKY_ENABLED_CLOUDS",
            "aws,gcp,azure,lambda,runpod,paperspace,cudo",
        )
        .args(["launch", "--dryrun", "-y", "-c", "t", "--gpus", "H100:8"]);
    if let Some(trace) = trace {
        cmd.arg("--trace").arg(trace);
    }
    let out = cmd.output().expect("sky runs");
    assert!(
        out.status.success(),
        "sky failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_warm_launch_s_phases_cover_the_process() {
    let home = tempfile::tempdir().unwrap();
    // The first launch stores the catalog images; the measured ones are warm.
    launch(home.path(), None);
    let mut best: Option<(f64, f64, Vec<Span>)> = None;
    for run in 0..5 {
        let path = home.path().join(format!("trace-{run}.json"));
        launch(home.path(), Some(&path));
        let trace: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).expect("the trace is JSON");
        let spans = spans(&trace);
        let (covered, total) = coverage(&spans);
        if best
            .as_ref()
            .is_none_or(|(c, t, _)| covered / total > c / t)
        {
            best = Some((covered, total, spans));
        }
    }
    let (covered, total, spans) = best.unwrap();
    let names: std::collections::BTreeSet<&str> = spans.iter().map(|s| s.0.as_str()).collect();
    for phase in [
        "parse_args",
        "start_runtime",
        "options",
        "configure",
        "probe",
        "fan_out",
        "probe_follow_up",
        "cloud_check",
        "catalog_load",
        "common_tables",
        "catalog_image",
        "assemble",
        "plan",
        "parse_task",
        "validate",
        "optimize",
        "render",
        "output",
        "shutdown",
    ] {
        assert!(names.contains(phase), "no `{phase}` span in {names:?}");
    }
    assert!(
        covered / total >= 0.95,
        "the phase spans cover {:.1} % of {:.2} ms: {spans:?}",
        100.0 * covered / total,
        total / 1000.0
    );
}

#[test]
fn coverage_counts_overlaps_once_and_gaps_not_at_all() {
    let s = |a: f64, b: f64| ("x".to_string(), a, b);
    assert_eq!(
        coverage(&[s(0.0, 10.0), s(5.0, 20.0), s(30.0, 40.0)]),
        (30.0, 40.0)
    );
    assert_eq!(coverage(&[s(10.0, 20.0)]), (10.0, 20.0));
}
