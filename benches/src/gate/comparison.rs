//! The comparison: one [`Row`] per benchmark and metric, with its
//! [`Verdict`] (see the [module docs](super) for the rule).

use std::collections::{BTreeMap, BTreeSet};

use super::results::{BenchResult, Results};
use super::statistics::{Change, RatioSide, bootstrap_change, bootstrap_ratio_change, relative};
#[cfg(doc)]
use super::thresholds::Override;
use super::thresholds::{Limits, Thresholds};

/// What a row measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Metric {
    /// criterion time (minus the floor, if any).
    Time,
    /// The ratio of a benchmark's median time to its reference's
    /// ([`BenchResult::ratio_to`], e.g. the process floor).
    Ratio,
    /// Peak resident set size of a whole process (KiB).
    PeakRss,
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
    /// Only in the head run (e.g. a benchmark added since the baseline was
    /// saved); never a failure.
    New,
    /// Only in the baseline; never a failure.
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

    /// Parses [`Verdict::label`] (the verdict tables of the tests).
    pub fn from_label(label: &str) -> Option<Verdict> {
        [
            Verdict::Regressed,
            Verdict::Advisory,
            Verdict::Inconclusive,
            Verdict::Improved,
            Verdict::Unchanged,
            Verdict::New,
            Verdict::Missing,
        ]
        .into_iter()
        .find(|v| v.label() == label)
    }
}

/// One line of the comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Benchmark id.
    pub id: String,
    /// Metric.
    pub metric: Metric,
    /// Base value judged (ns above the base's floor, a ratio, KiB or instructions).
    pub base: Option<f64>,
    /// Head value judged.
    pub head: Option<f64>,
    /// Latency floors subtracted (ns) on the base and head side, each when
    /// positive (time rows only).
    pub floors: (Option<f64>, Option<f64>),
    /// The samples are thread CPU time, not wall time.
    pub cpu_clock: bool,
    /// The reference benchmark of a [`Metric::Ratio`] row.
    pub reference: Option<String>,
    /// Relative change `head / base − 1` of the values shown; `None` when
    /// a side is absent or the base is not positive.
    pub change: Option<f64>,
    /// 95 % confidence interval of the change (time and ratio rows).
    pub ci: Option<(f64, f64)>,
    /// The threshold (fraction).
    pub threshold: f64,
    /// The absolute slowdown a time row must also show (ns; 0 when none).
    pub min_abs_ns: f64,
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

/// The verdict of a bootstrapped change (time or ratio): slower only when
/// the whole relative interval lies above `limit` and the whole absolute
/// interval above `min_abs`; faster in mirror image.
fn bootstrapped_verdict(
    c: &Change,
    limit: f64,
    min_abs: f64,
    advisory: bool,
    busy: bool,
) -> Verdict {
    if c.relative_ci.0 > limit && c.absolute_ci.0 > min_abs {
        if advisory {
            Verdict::Advisory
        } else if busy {
            Verdict::Inconclusive
        } else {
            Verdict::Regressed
        }
    } else if c.relative_ci.1 < -limit && c.absolute_ci.1 < -min_abs {
        Verdict::Improved
    } else {
        Verdict::Unchanged
    }
}

/// The verdict of an exact count (instructions, peak RSS).
fn exact_verdict(base: Option<f64>, head: Option<f64>, limit: f64) -> (Option<f64>, Verdict) {
    let change = match (base, head) {
        (Some(b), Some(h)) => relative(b, h),
        _ => None,
    };
    let verdict = match (base, head, change) {
        (_, _, Some(c)) if c > limit => Verdict::Regressed,
        (_, _, Some(c)) if c < -limit => Verdict::Improved,
        (Some(_), Some(_), _) => Verdict::Unchanged,
        (Some(_), None, _) => Verdict::Missing,
        _ => Verdict::New,
    };
    (change, verdict)
}

/// Samples minus the floor: what a time row judges.
fn over_floor(r: &BenchResult) -> Vec<f64> {
    r.samples_ns.iter().map(|s| s - r.floor()).collect()
}

/// The time row of `id`.
fn time_row(
    id: &str,
    b: Option<&BenchResult>,
    h: Option<&BenchResult>,
    limits: &Limits,
    busy: bool,
) -> Row {
    let positive = |r: Option<&BenchResult>| r.map(BenchResult::floor).filter(|f| *f > 0.0);
    let mut row = Row {
        id: id.to_string(),
        metric: Metric::Time,
        base: b.map(|b| b.median_ns - b.floor()),
        head: h.map(|h| h.median_ns - h.floor()),
        floors: (positive(b), positive(h)),
        cpu_clock: h
            .or(b)
            .is_some_and(|r| r.clock.as_deref() == Some("thread-cpu")),
        reference: None,
        change: None,
        ci: None,
        threshold: limits.time,
        min_abs_ns: limits.min_abs_ns,
        verdict: if h.is_some() {
            Verdict::New
        } else {
            Verdict::Missing
        },
    };
    if let (Some(b), Some(h)) = (b, h)
        && !b.samples_ns.is_empty()
        && !h.samples_ns.is_empty()
    {
        let c = bootstrap_change(id, &over_floor(b), &over_floor(h));
        // The point is the change of the values the row shows.
        row.change = relative(row.base.unwrap_or(0.0), row.head.unwrap_or(0.0));
        row.ci = Some(c.relative_ci);
        row.verdict = bootstrapped_verdict(
            &c,
            limits.time,
            limits.min_abs_ns,
            limits.time_advisory,
            busy,
        );
    }
    row
}

/// The ratio row of `id` when either side names a reference.
fn ratio_row(id: &str, base: &Results, head: &Results, limits: &Limits, busy: bool) -> Option<Row> {
    let named = |r: &Results| {
        r.benchmarks
            .get(id)
            .and_then(|b| b.ratio_to.clone())
            .filter(|to| r.benchmarks.contains_key(to))
    };
    let (to_base, to_head) = (named(base), named(head));
    let reference = to_head.clone().or(to_base.clone())?;
    fn side<'a>(
        r: &'a Results,
        id: &str,
        to: Option<&String>,
        reference: &str,
    ) -> Option<RatioSide<'a>> {
        let to = to.filter(|t| *t == reference)?;
        let (of, to) = (r.benchmarks.get(id)?, r.benchmarks.get(to)?);
        (!of.samples_ns.is_empty() && !to.samples_ns.is_empty()).then_some(RatioSide {
            of: &of.samples_ns,
            to: &to.samples_ns,
        })
    }
    let (b, h) = (
        side(base, id, to_base.as_ref(), &reference),
        side(head, id, to_head.as_ref(), &reference),
    );
    let mut row = Row {
        id: id.to_string(),
        metric: Metric::Ratio,
        base: b.as_ref().and_then(RatioSide::ratio),
        head: h.as_ref().and_then(RatioSide::ratio),
        floors: (None, None),
        cpu_clock: false,
        reference: Some(reference),
        change: None,
        ci: None,
        threshold: limits.ratio,
        min_abs_ns: 0.0,
        verdict: if h.is_some() {
            Verdict::New
        } else {
            Verdict::Missing
        },
    };
    if let (Some(b), Some(h)) = (&b, &h) {
        let c = bootstrap_ratio_change(id, b, h);
        row.change = relative(row.base.unwrap_or(0.0), row.head.unwrap_or(0.0));
        row.ci = Some(c.relative_ci);
        row.verdict = bootstrapped_verdict(&c, limits.ratio, 0.0, false, busy);
    }
    Some(row)
}

/// Compares two runs. Rows: regressions first, then improvements, unchanged,
/// new and missing; by metric and id within each.
///
/// A benchmark, ratio or count present on one side only (a row added since
/// the baseline was saved, or removed) is `new` or `missing`, never a
/// failure: an old baseline stays usable when the suite grows.
pub fn compare(base: &Results, head: &Results, thresholds: &Thresholds) -> Vec<Row> {
    let mut rows = Vec::new();
    let busy = busy_machine(base, head, thresholds).is_some();
    for id in union_keys(&base.benchmarks, &head.benchmarks) {
        let limits = thresholds.limits(id);
        let (b, h) = (base.benchmarks.get(id), head.benchmarks.get(id));
        rows.push(time_row(id, b, h, &limits, busy));
        rows.extend(ratio_row(id, base, head, &limits, busy));
        let rss = |r: Option<&BenchResult>| r.and_then(|r| r.peak_rss_kib).map(|k| k as f64);
        if rss(b).is_some() || rss(h).is_some() {
            let (change, verdict) = exact_verdict(rss(b), rss(h), limits.rss);
            rows.push(Row {
                id: id.clone(),
                metric: Metric::PeakRss,
                base: rss(b),
                head: rss(h),
                floors: (None, None),
                cpu_clock: false,
                reference: None,
                change,
                ci: None,
                threshold: limits.rss,
                min_abs_ns: 0.0,
                verdict,
            });
        }
    }
    for id in union_keys(&base.instructions, &head.instructions) {
        let limit = thresholds.limits(id).instructions;
        let (b, h) = (
            base.instructions.get(id).map(|&v| v as f64),
            head.instructions.get(id).map(|&v| v as f64),
        );
        let (change, verdict) = exact_verdict(b, h, limit);
        rows.push(Row {
            id: id.clone(),
            metric: Metric::Instructions,
            base: b,
            head: h,
            floors: (None, None),
            cpu_clock: false,
            reference: None,
            change,
            ci: None,
            threshold: limit,
            min_abs_ns: 0.0,
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
