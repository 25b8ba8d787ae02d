//! The comparison: one [`Row`] per benchmark and metric, with its
//! [`Verdict`] (see the [module docs](super) for the rule).

use std::collections::{BTreeMap, BTreeSet};

use super::results::{BenchResult, Results};
use super::statistics::bootstrap_change;
#[cfg(doc)]
use super::thresholds::Override;
use super::thresholds::Thresholds;

/// What a row measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Metric {
    /// criterion wall-clock time (minus the floor, if any).
    Time,
    /// callgrind instruction count.
    Instructions,
}

/// The outcome for one benchmark and metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// Slower beyond the threshold with confidence.
    Regressed,
    /// Slower beyond the threshold, for a benchmark whose time is advisory
    /// ([`Override::time_advisory`]); not a failure.
    Advisory,
    /// Looked like a wall-clock regression, but the machine was too busy to
    /// trust wall time (see [`Thresholds::max_foreign_cores`]); not a failure.
    Inconclusive,
    /// Faster beyond the threshold with confidence.
    Improved,
    /// Within the threshold, or not distinguishable from noise.
    Unchanged,
    /// Only in the head run.
    New,
    /// Only in the baseline.
    Missing,
}

impl Verdict {
    /// Display text.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Regressed => "REGRESSED",
            Verdict::Improved => "improved",
            Verdict::Unchanged => "ok",
            Verdict::New => "new",
            Verdict::Missing => "missing",
            Verdict::Inconclusive => "inconclusive (busy machine)",
            Verdict::Advisory => "slower (advisory)",
        }
    }
}

/// One line of the comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Benchmark id.
    pub id: String,
    /// Metric.
    pub metric: Metric,
    /// Base value judged (ns above floor, or instructions).
    pub base: Option<f64>,
    /// Head value judged.
    pub head: Option<f64>,
    /// Latency floor subtracted (ns), if any.
    pub floor_ns: Option<f64>,
    /// The samples are thread CPU time, not wall time.
    pub cpu_clock: bool,
    /// Relative change of the judged value.
    pub change: Option<f64>,
    /// 95 % confidence interval of the change (wall-clock only).
    pub ci: Option<(f64, f64)>,
    /// The threshold (fraction).
    pub threshold: f64,
    /// Verdict.
    pub verdict: Verdict,
}

/// The ids present in either map, sorted.
pub fn union_keys<'a, A, B>(
    a: &'a BTreeMap<String, A>,
    b: &'a BTreeMap<String, B>,
) -> BTreeSet<&'a String> {
    a.keys().chain(b.keys()).collect()
}

/// Compares two runs. Rows: regressions first, then improvements, unchanged,
/// new and missing; by id within each.
pub fn compare(base: &Results, head: &Results, thresholds: &Thresholds) -> Vec<Row> {
    let mut rows = Vec::new();
    let busy = busy_machine(base, head, thresholds).is_some();
    for id in union_keys(&base.benchmarks, &head.benchmarks) {
        let limits = thresholds.limits(id);
        let (b, h) = (base.benchmarks.get(id), head.benchmarks.get(id));
        let mut row = Row {
            id: id.clone(),
            metric: Metric::Time,
            base: b.map(|b| b.median_ns - b.floor()),
            head: h.map(|h| h.median_ns - h.floor()),
            floor_ns: h.or(b).and_then(|r| r.floor_ns).filter(|f| *f > 0.0),
            cpu_clock: h
                .or(b)
                .is_some_and(|r| r.clock.as_deref() == Some("thread-cpu")),
            change: None,
            ci: None,
            threshold: limits.time,
            verdict: Verdict::New,
        };
        match (b, h) {
            (Some(b), Some(h)) if !b.samples_ns.is_empty() && !h.samples_ns.is_empty() => {
                let over = |r: &BenchResult| {
                    r.samples_ns
                        .iter()
                        .map(|s| s - r.floor())
                        .collect::<Vec<f64>>()
                };
                let (point, rel, abs) = bootstrap_change(id, &over(b), &over(h));
                row.change = Some(point);
                row.ci = Some(rel);
                row.verdict = if rel.0 > limits.time && abs.0 > limits.min_abs_ns {
                    if limits.time_advisory {
                        Verdict::Advisory
                    } else if busy {
                        Verdict::Inconclusive
                    } else {
                        Verdict::Regressed
                    }
                } else if rel.1 < -limits.time && abs.1 < -limits.min_abs_ns {
                    Verdict::Improved
                } else {
                    Verdict::Unchanged
                };
            }
            (Some(_), None) => row.verdict = Verdict::Missing,
            _ => {}
        }
        rows.push(row);
    }
    for id in union_keys(&base.instructions, &head.instructions) {
        let limit = thresholds.limits(id).instructions;
        let (b, h) = (
            base.instructions.get(id).map(|&v| v as f64),
            head.instructions.get(id).map(|&v| v as f64),
        );
        let change = match (b, h) {
            (Some(b), Some(h)) if b > 0.0 => Some(h / b - 1.0),
            _ => None,
        };
        let verdict = match (b, h, change) {
            (_, _, Some(c)) if c > limit => Verdict::Regressed,
            (_, _, Some(c)) if c < -limit => Verdict::Improved,
            (_, _, Some(_)) => Verdict::Unchanged,
            (Some(_), None, _) => Verdict::Missing,
            _ => Verdict::New,
        };
        rows.push(Row {
            id: id.clone(),
            metric: Metric::Instructions,
            base: b,
            head: h,
            floor_ns: None,
            cpu_clock: false,
            change,
            ci: None,
            threshold: limit,
            verdict,
        });
    }
    rows.sort_by(|a, b| (a.verdict, a.metric, &a.id).cmp(&(b.verdict, b.metric, &b.id)));
    rows
}

/// `Some(cores)` when either run saw more foreign load than allowed.
pub fn busy_machine(base: &Results, head: &Results, thresholds: &Thresholds) -> Option<f64> {
    let worst = base
        .foreign_cores
        .unwrap_or(0.0)
        .max(head.foreign_cores.unwrap_or(0.0));
    (worst > thresholds.max_foreign_cores).then_some(worst)
}

/// Number of regressed rows.
pub fn regressions(rows: &[Row]) -> usize {
    rows.iter()
        .filter(|r| r.verdict == Verdict::Regressed)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::results::{Environment, SCHEMA};
    use crate::gate::statistics::SplitMix;

    fn results(name: &str, benches: &[(&str, Vec<f64>, Option<f64>)]) -> Results {
        Results {
            schema: SCHEMA.into(),
            name: name.into(),
            environment: Environment::default(),
            benchmarks: benches
                .iter()
                .map(|(id, s, f)| (id.to_string(), BenchResult::from_samples(s.clone(), *f)))
                .collect(),
            instructions: BTreeMap::new(),
            instructions_note: None,
            foreign_cores: None,
        }
    }

    fn noisy(center: f64, spread: f64, n: usize, seed: u64) -> Vec<f64> {
        let mut r = SplitMix(seed);
        (0..n)
            .map(|_| center + spread * ((r.next() % 1000) as f64 / 1000.0 - 0.5))
            .collect()
    }

    #[test]
    fn same_distribution_is_unchanged_and_shift_regresses() {
        let base = results("b", &[("x", noisy(100.0e3, 10.0e3, 30, 1), None)]);
        let same = results("h", &[("x", noisy(100.0e3, 10.0e3, 30, 2), None)]);
        let slow = results("h", &[("x", noisy(130.0e3, 10.0e3, 30, 3), None)]);
        let t = Thresholds::default();
        assert_eq!(compare(&base, &same, &t)[0].verdict, Verdict::Unchanged);
        let rows = compare(&base, &slow, &t);
        assert_eq!(rows[0].verdict, Verdict::Regressed);
        assert_eq!(regressions(&rows), 1);
    }

    #[test]
    fn floor_is_subtracted() {
        // 1 s floor: +20 ms on 20 ms of overhead is +100 %, a regression;
        // on raw time it would be +2 %, invisible.
        let base = results("b", &[("l", noisy(1.020e9, 2.0e6, 10, 1), Some(1.0e9))]);
        let head = results("h", &[("l", noisy(1.040e9, 2.0e6, 10, 2), Some(1.0e9))]);
        let rows = compare(&base, &head, &Thresholds::default());
        assert_eq!(rows[0].verdict, Verdict::Regressed, "{rows:?}");
        let t: Thresholds =
            toml::from_str("[[override]]\npattern = \"l\"\nmin_abs_ms = 50\n").unwrap();
        assert_eq!(compare(&base, &head, &t)[0].verdict, Verdict::Unchanged);
    }

    #[test]
    fn busy_machine_makes_wall_clock_inconclusive_but_instructions_still_gate() {
        let mut base = results("b", &[("x", noisy(100.0e3, 10.0e3, 30, 1), None)]);
        let mut head = results("h", &[("x", noisy(150.0e3, 10.0e3, 30, 3), None)]);
        base.instructions.insert("op".into(), 1_000_000);
        head.instructions.insert("op".into(), 1_100_000);
        head.foreign_cores = Some(1.5);
        let t = Thresholds::default();
        assert_eq!(busy_machine(&base, &head, &t), Some(1.5));
        let rows = compare(&base, &head, &t);
        let verdict = |m: Metric| rows.iter().find(|r| r.metric == m).map(|r| r.verdict);
        assert_eq!(verdict(Metric::Time), Some(Verdict::Inconclusive));
        assert_eq!(verdict(Metric::Instructions), Some(Verdict::Regressed));
        assert_eq!(regressions(&rows), 1);
    }

    #[test]
    fn instructions_gate() {
        let mut base = results("b", &[]);
        let mut head = results("h", &[]);
        base.instructions.insert("op".into(), 1_000_000);
        head.instructions.insert("op".into(), 1_030_000);
        let rows = compare(&base, &head, &Thresholds::default());
        assert_eq!(rows[0].verdict, Verdict::Regressed);
        head.instructions.insert("op".into(), 1_010_000);
        assert_eq!(
            compare(&base, &head, &Thresholds::default())[0].verdict,
            Verdict::Unchanged
        );
    }
}
