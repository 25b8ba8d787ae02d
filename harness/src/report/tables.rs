//! The Markdown tables of a report: mocked latencies, requests per launch,
//! where the time went, the baseline comparison.

use std::fmt::Write as _;

use mocks::{EndpointOptions, Fault, Latency, MocksSpec};

use crate::baseline::Baseline;
use crate::plot::duration_text;
use crate::summary::ModeSummary;
use crate::timeline::LaunchTimeline;

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
    if let Some(e) = &spec.ec2 {
        out.push(("ec2.describe_regions".to_string(), e.describe_regions));
        out.push((
            format!(
                "ec2.describe_availability_zones (one request per region; {} regions)",
                e.zones.len()
            ),
            e.describe_availability_zones,
        ));
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
        out.push((
            "gcp/reservations (sky's REST call; SkyPilot's `gcloud compute reservations list`)"
                .to_string(),
            g.reservations,
        ));
    }
    if let Some(c) = &spec.catalog {
        out.push(("catalog".to_string(), c.files));
    }
    out
}

/// The mocked endpoints with their latency models and faults.
pub fn latency_table(spec: &MocksSpec) -> String {
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

/// Mean requests per launch by endpoint (per-context Kubernetes endpoints collapsed), one column per mode.
pub fn requests_table(summaries: &[ModeSummary]) -> String {
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

/// Where each traced launch's time went: one column per mode, one row per
/// timeline row (time its spans cover; in brackets, the part spent waiting
/// on mocked requests).
pub fn where_time_goes(timelines: &[LaunchTimeline]) -> String {
    let mut labels: Vec<&str> = Vec::new();
    for t in timelines {
        for r in &t.rows {
            if r.label != "process" && !labels.contains(&r.label.as_str()) {
                labels.push(&r.label);
            }
        }
    }
    let mut s = String::from("| |");
    for t in timelines {
        let _ = write!(s, " {} |", t.mode.label());
    }
    s.push_str("\n|---|");
    for _ in timelines {
        s.push_str("---:|");
    }
    s.push_str("\n| **whole launch** (start to exit) |");
    for t in timelines {
        let _ = write!(s, " **{}** |", duration_text(t.wall_ms));
    }
    s.push_str("\n| the floor: mocked requests one after another on the critical path |");
    for t in timelines {
        let _ = write!(s, " {} |", duration_text(t.floor_ms));
    }
    s.push('\n');
    for label in labels {
        let _ = write!(s, "| {label} |");
        for t in timelines {
            match t.rows.iter().find(|r| r.label == label) {
                Some(r) => {
                    let busy = r.busy_ms();
                    let waiting = r.waiting_ms();
                    if waiting > 0.0 {
                        let _ = write!(
                            s,
                            " {} ({} waiting) |",
                            duration_text(busy.max(waiting)),
                            duration_text(waiting)
                        );
                    } else {
                        let _ = write!(s, " {} |", duration_text(busy));
                    }
                }
                None => s.push_str(" - |"),
            }
        }
        s.push('\n');
    }
    s
}

/// The baseline comparison: modes, then the span stacks that moved most.
pub fn baseline_tables(b: &Baseline) -> String {
    let mut s = String::from(
        "| mode | baseline median | now median | change | 95 % interval of the change | noise (±) | verdict |\n|---|---:|---:|---:|---|---:|---|\n",
    );
    for m in &b.modes {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:+.1} ms | [{:+.1}, {:+.1}] ms | {:.1} ms | {} |",
            m.mode.label(),
            duration_text(m.base.median),
            duration_text(m.now.median),
            m.delta_ms,
            m.interval_ms.0,
            m.interval_ms.1,
            m.noise_ms,
            m.verdict.word()
        );
    }
    if b.modes.is_empty() {
        s.push_str("| (no mode in both runs) | | | | | | |\n");
    }
    s.push_str("\n| span stack (inclusive) | baseline ms | now ms | change ms | noise (max − min over this run's rounds) ms | verdict |\n|---|---:|---:|---:|---:|---|\n");
    for c in &b.spans {
        let _ = writeln!(
            s,
            "| `{}` | {:.1} | {:.1} | {:+.1} | {:.1} | {} |",
            c.stack,
            c.base_us as f64 / 1000.0,
            c.now_us as f64 / 1000.0,
            (c.now_us as f64 - c.base_us as f64) / 1000.0,
            c.noise_us as f64 / 1000.0,
            c.verdict.word()
        );
    }
    if b.spans.is_empty() {
        s.push_str("| (no span moved) | | | | | |\n");
    }
    s
}
