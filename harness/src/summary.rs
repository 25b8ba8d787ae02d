//! Per-mode summaries and the comparison table.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::engine::{Mode, Sample};
use crate::stats::Stats;
use crate::table::{Align, text_table};

/// The statistics of one mode's measured launches.
#[derive(Debug, Clone, Serialize)]
pub struct ModeSummary {
    /// Mode.
    pub mode: Mode,
    /// Wall time, ms.
    pub wall: Stats,
    /// Latency floor, ms.
    pub floor: Stats,
    /// Wall minus floor, ms (per launch, then summarised).
    pub overhead: Stats,
    /// Median serial wall time / median wall time of this mode.
    pub speedup: Option<f64>,
    /// The most frequent critical path.
    pub critical_path: String,
    /// Exit codes seen.
    pub exit_codes: BTreeSet<i32>,
    /// Mean requests per launch, per endpoint that was called.
    pub requests_per_launch: BTreeMap<String, f64>,
}

/// Summaries of every mode present in `samples` (warm-ups excluded), in [`Mode::EVERY`] order.
pub fn summarize(samples: &[Sample]) -> Vec<ModeSummary> {
    let mut out: Vec<ModeSummary> = Vec::new();
    for mode in Mode::EVERY {
        let s: Vec<&Sample> = samples
            .iter()
            .filter(|x| x.mode == mode && !x.warmup)
            .collect();
        if s.is_empty() {
            continue;
        }
        let stat = |f: fn(&Sample) -> f64| Stats::of(&s.iter().map(|x| f(x)).collect::<Vec<_>>());
        let mut paths: BTreeMap<&str, usize> = BTreeMap::new();
        let mut requests: BTreeMap<String, f64> = BTreeMap::new();
        for x in &s {
            *paths.entry(x.critical_path.as_str()).or_default() += 1;
            for h in &x.requests {
                *requests.entry(h.endpoint.clone()).or_default() += h.delays_ms.len() as f64;
            }
        }
        for v in requests.values_mut() {
            *v /= s.len() as f64;
        }
        let critical_path = paths
            .iter()
            .max_by_key(|(p, n)| (**n, std::cmp::Reverse(**p)))
            .map(|(p, _)| p.to_string())
            .unwrap_or_default();
        out.push(ModeSummary {
            mode,
            wall: stat(|x| x.wall_ms),
            floor: stat(|x| x.floor_ms),
            overhead: stat(|x| x.overhead_ms),
            speedup: None,
            critical_path,
            exit_codes: s.iter().map(|x| x.exit_code).collect(),
            requests_per_launch: requests,
        });
    }
    let serial = out
        .iter()
        .find(|m| m.mode == Mode::Serial)
        .map(|m| m.wall.median);
    for m in &mut out {
        m.speedup = serial
            .filter(|_| m.wall.median > 0.0)
            .map(|s| s / m.wall.median);
    }
    out
}

const HEADERS: [&str; 10] = [
    "mode",
    "runs",
    "median",
    "p90",
    "min",
    "max",
    "floor",
    "overhead",
    "over p90",
    "vs serial",
];

fn row(m: &ModeSummary) -> [String; 10] {
    let f = |v: f64| format!("{v:.1}");
    [
        m.mode.label().to_string(),
        m.wall.n.to_string(),
        f(m.wall.median),
        f(m.wall.p90),
        f(m.wall.min),
        f(m.wall.max),
        f(m.floor.median),
        f(m.overhead.median),
        f(m.overhead.p90),
        m.speedup.map_or("-".into(), |s| format!("{s:.2}x")),
    ]
}

/// The comparison as a fixed-width text table (times in ms).
pub fn comparison_text(summaries: &[ModeSummary]) -> String {
    let rows: Vec<[String; 10]> = summaries.iter().map(row).collect();
    let mut out = text_table(&HEADERS, &rows, |i| {
        if i == 0 { Align::Left } else { Align::Right }
    });
    out.push_str("times in ms; floor = mocked latency on the critical path (median); overhead = wall - floor per launch (median, p90)\n");
    out
}

/// The comparison as a Markdown table (times in ms).
pub fn comparison_markdown(summaries: &[ModeSummary]) -> String {
    let mut out = format!("| {} |\n", HEADERS.join(" | "));
    out.push_str(&format!(
        "|{}\n",
        HEADERS
            .iter()
            .enumerate()
            .map(|(i, _)| if i == 0 { "---|" } else { "---:|" })
            .collect::<String>()
    ));
    for r in summaries.iter().map(row) {
        out.push_str(&format!("| {} |\n", r.join(" | ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(mode: Mode, wall: &[f64], floor: f64) -> ModeSummary {
        ModeSummary {
            mode,
            wall: Stats::of(wall),
            floor: Stats::of(&[floor]),
            overhead: Stats::of(&wall.iter().map(|w| w - floor).collect::<Vec<_>>()),
            speedup: Some(1.0),
            critical_path: "aws (sts)".into(),
            exit_codes: BTreeSet::from([0]),
            requests_per_launch: BTreeMap::new(),
        }
    }

    #[test]
    fn comparison_layout() {
        let s = [
            summary(Mode::Serial, &[1070.25, 1080.5], 1050.0),
            summary(Mode::Warm, &[9.5, 12.0], 0.0),
        ];
        let expected = "\
mode                    runs  median     p90     min     max   floor  overhead  over p90  vs serial
---------------------------------------------------------------------------------------------------
serial, no cache           2  1075.4  1080.5  1070.2  1080.5  1050.0      25.4      30.5      1.00x
concurrent, warm cache     2    10.8    12.0     9.5    12.0     0.0      10.8      12.0      1.00x
times in ms; floor = mocked latency on the critical path (median); overhead = wall - floor per launch (median, p90)
";
        assert_eq!(comparison_text(&s), expected);
    }
}
