//! What the numbers say, in a few sentences a newcomer reads at a glance:
//! what concurrency bought, what caching bought, what SkyPilot pays and
//! where. Printed by `harness demo` and `harness run` under the comparison,
//! and at the top of every report's README. Every figure comes from this
//! run's summaries and traced timelines; a sentence whose modes did not run
//! is left out.

use crate::engine::Mode;
use crate::plot::duration_text;
use crate::summary::ModeSummary;
use crate::timeline::LaunchTimeline;

fn find(summaries: &[ModeSummary], mode: Mode) -> Option<&ModeSummary> {
    summaries.iter().find(|s| s.mode == mode)
}

fn times(a: f64, b: f64) -> String {
    if b <= 0.0 {
        return "-".into();
    }
    let r = a / b;
    if r >= 10.0 {
        format!("{r:.0}×")
    } else {
        format!("{r:.1}×")
    }
}

/// The mean requests per launch of a mode, as words (`no mocked request`, `2 requests (kube/mock-0/nodes 1, gcp/token 1)`).
fn requests_text(s: &ModeSummary) -> String {
    let total: f64 = s.requests_per_launch.values().sum();
    if total == 0.0 {
        return "no mocked request at all".into();
    }
    let parts: Vec<String> = s
        .requests_per_launch
        .iter()
        .map(|(e, n)| format!("{e} {}", trim(*n)))
        .collect();
    format!(
        "{} mocked request(s) per launch ({})",
        trim(total),
        parts.join(", ")
    )
}

fn trim(n: f64) -> String {
    if (n - n.round()).abs() < 0.05 {
        format!("{n:.0}")
    } else {
        format!("{n:.1}")
    }
}

/// Where a traced launch's time went, largest first: `start-up 3.1 s, aws 2.2 s (1.0 s waiting), ...`.
pub fn breakdown(t: &LaunchTimeline) -> String {
    let mut rows: Vec<(&str, f64, f64)> = t
        .rows
        .iter()
        .filter(|r| r.label != "process")
        .map(|r| {
            (
                r.label.as_str(),
                r.busy_ms().max(r.waiting_ms()),
                r.waiting_ms(),
            )
        })
        .filter(|(_, busy, _)| *busy >= 0.05 * t.wall_ms || *busy >= 100.0)
        .collect();
    rows.sort_by(|a, b| b.1.total_cmp(&a.1));
    rows.iter()
        .map(|(label, busy, waiting)| {
            if *waiting > 0.0 {
                format!(
                    "{label} {} ({} of it waiting on mocks)",
                    duration_text(*busy),
                    duration_text(*waiting)
                )
            } else {
                format!("{label} {}", duration_text(*busy))
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The sentences.
pub fn story(summaries: &[ModeSummary], timelines: &[LaunchTimeline]) -> Vec<String> {
    let mut out = Vec::new();
    let serial = find(summaries, Mode::Serial);
    let concurrent = find(summaries, Mode::Concurrent);
    let warm = find(summaries, Mode::Warm);
    if let (Some(s), Some(c)) = (serial, concurrent) {
        out.push(format!(
            "Concurrency: serial {} → concurrent {} ({} faster). One cloud after another waits for the sum of their mocked latencies ({} floor); side by side, for the slowest chain ({} floor: {}).",
            duration_text(s.wall.median),
            duration_text(c.wall.median),
            times(s.wall.median, c.wall.median),
            duration_text(s.floor.median),
            duration_text(c.floor.median),
            if c.critical_path.is_empty() { "nothing".into() } else { c.critical_path.clone() },
        ));
    }
    if let (Some(c), Some(w)) = (concurrent, warm) {
        out.push(format!(
            "Caching: concurrent {} → warm {} ({} faster): the warm launch makes {}.",
            duration_text(c.wall.median),
            duration_text(w.wall.median),
            times(c.wall.median, w.wall.median),
            requests_text(w),
        ));
    }
    let sp = find(summaries, Mode::SkyPilot);
    let spw = find(summaries, Mode::SkyPilotWarm);
    if let Some(p) = sp.or(spw) {
        let mut s = String::from("SkyPilot 0.14.1 under the same mocks: ");
        let mut parts = Vec::new();
        if let Some(p) = sp {
            let vs = concurrent
                .map(|c| {
                    format!(
                        ", {} sky's concurrent launch",
                        times(p.wall.median, c.wall.median)
                    )
                })
                .unwrap_or_default();
            parts.push(format!(
                "{} with nothing cached{vs}",
                duration_text(p.wall.median)
            ));
        }
        if let Some(p) = spw {
            let vs = warm
                .map(|w| {
                    format!(
                        ", {} sky's warm launch",
                        times(p.wall.median, w.wall.median)
                    )
                })
                .unwrap_or_default();
            parts.push(format!("{} warm{vs}", duration_text(p.wall.median)));
        }
        s.push_str(&parts.join("; "));
        s.push('.');
        let _ = p;
        out.push(s);
        for mode in [Mode::SkyPilot, Mode::SkyPilotWarm] {
            if let (Some(t), Some(m)) = (
                timelines.iter().find(|t| t.mode == mode),
                find(summaries, mode),
            ) {
                out.push(format!(
                    "Where {}'s traced launch went ({}): {}. It waited on mocks {} of it; each launch of this mode makes {}.",
                    m.mode.label(),
                    duration_text(t.wall_ms),
                    breakdown(t),
                    duration_text(t.floor_ms),
                    requests_text(m),
                ));
            }
        }
    }
    let overheads: Vec<String> = summaries
        .iter()
        .map(|m| format!("{} {}", m.mode.label(), duration_text(m.overhead.median)))
        .collect();
    if !overheads.is_empty() {
        out.push(format!(
            "Overhead (wall time minus the mocked latency on its critical path, median): {}.",
            overheads.join("; ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::*;
    use crate::stats::Stats;

    fn summary(mode: Mode, wall: f64, floor: f64, requests: &[(&str, f64)]) -> ModeSummary {
        ModeSummary {
            mode,
            wall: Stats::of(&[wall]),
            floor: Stats::of(&[floor]),
            overhead: Stats::of(&[wall - floor]),
            speedup: None,
            critical_path: "gcp/token → gcp/reservations".into(),
            exit_codes: BTreeSet::from([0]),
            requests_per_launch: requests
                .iter()
                .map(|(e, n)| (e.to_string(), *n))
                .collect::<BTreeMap<_, _>>(),
        }
    }

    #[test]
    fn the_sentences_carry_the_numbers() {
        let s = [
            summary(Mode::Serial, 3400.0, 3380.0, &[("sts", 1.0)]),
            summary(Mode::Concurrent, 1840.0, 1807.0, &[("sts", 1.0)]),
            summary(Mode::Warm, 8.0, 0.0, &[]),
            summary(
                Mode::SkyPilotWarm,
                5600.0,
                2300.0,
                &[("gcp/reservations", 4.0)],
            ),
        ];
        let lines = story(&s, &[]);
        assert!(
            lines[0].starts_with("Concurrency: serial 3.40 s → concurrent 1.84 s (1.8× faster)"),
            "{}",
            lines[0]
        );
        assert!(
            lines[0].contains("gcp/token → gcp/reservations"),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].contains("(230× faster): the warm launch makes no mocked request at all"),
            "{}",
            lines[1]
        );
        assert!(
            lines[2].contains("5.60 s warm, 700× sky's warm launch"),
            "{}",
            lines[2]
        );
        assert!(
            lines.last().is_some_and(|l| l.starts_with("Overhead")),
            "{lines:?}"
        );
        // Without SkyPilot, no sentence about it.
        assert!(!story(&s[..3], &[]).iter().any(|l| l.contains("SkyPilot")));
    }
}
