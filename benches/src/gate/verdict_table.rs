//! The gate's verdicts as a table: `benches/fixtures/gate-verdicts.toml`
//! (doubling, halving, steady, near-zero overhead, with and without a floor,
//! ratios, peak RSS, rows on one side only), each case compared end to end
//! through [`compare`] and the printed cells.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::comparison::{Metric, Verdict, compare, regressions};
use super::results::{BenchResult, Environment, Results, SCHEMA};
use super::thresholds::Thresholds;

/// The reference benchmark of a case's ratio when it names none.
const FLOOR_ID: &str = "process/floor/hello-world";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    case: Vec<Case>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    id: String,
    #[serde(default)]
    clock: Option<String>,
    #[serde(default)]
    thresholds: String,
    #[serde(default)]
    reference: Option<String>,
    base: Option<Side>,
    head: Option<Side>,
    expect: Vec<Expect>,
    exit: u8,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Side {
    median_ns: f64,
    #[serde(default)]
    spread: f64,
    #[serde(default)]
    jitter_ns: f64,
    #[serde(default = "default_n")]
    n: usize,
    #[serde(default)]
    floor_ns: f64,
    ref_median_ns: Option<f64>,
    rss_kib: Option<u64>,
    foreign_cores: Option<f64>,
}

fn default_n() -> usize {
    21
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    metric: String,
    verdict: String,
    change_pct: Option<f64>,
    judged_on: Option<String>,
}

/// `n` samples evenly spread around `median` (exactly the median: `n` is odd).
fn samples(floor: f64, median: f64, width: f64, n: usize) -> Vec<f64> {
    assert!(n % 2 == 1, "n must be odd so the median is exact");
    (0..n)
        .map(|i| floor + median + width * (i as f64 / (n - 1).max(1) as f64 - 0.5))
        .collect()
}

impl Side {
    fn results(&self, case: &Case, name: &str) -> Results {
        let width = self.median_ns.abs() * self.spread + self.jitter_ns;
        let floor = (self.floor_ns > 0.0).then_some(self.floor_ns);
        let mut bench =
            BenchResult::from_samples(samples(self.floor_ns, self.median_ns, width, self.n), floor);
        bench.clock = case.clock.clone();
        bench.peak_rss_kib = self.rss_kib;
        let reference = case.reference.as_deref().unwrap_or(FLOOR_ID);
        let mut benchmarks = BTreeMap::new();
        if let Some(m) = self.ref_median_ns {
            bench.ratio_to = Some(reference.to_string());
            benchmarks.insert(
                reference.to_string(),
                BenchResult::from_samples(samples(0.0, m, m * self.spread, self.n), None),
            );
        }
        benchmarks.insert(case.id.clone(), bench);
        Results {
            schema: SCHEMA.into(),
            name: name.into(),
            environment: Environment::default(),
            benchmarks,
            instructions: BTreeMap::new(),
            instructions_note: None,
            foreign_cores: self.foreign_cores,
        }
    }
}

fn empty(name: &str) -> Results {
    Results {
        schema: SCHEMA.into(),
        name: name.into(),
        environment: Environment::default(),
        benchmarks: BTreeMap::new(),
        instructions: BTreeMap::new(),
        instructions_note: None,
        foreign_cores: None,
    }
}

fn metric(name: &str) -> Metric {
    match name {
        "time" => Metric::Time,
        "ratio" => Metric::Ratio,
        "rss" => Metric::PeakRss,
        "instructions" => Metric::Instructions,
        other => panic!("unknown metric {other:?} in the verdict table"),
    }
}

#[test]
fn the_verdict_table_holds() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/gate-verdicts.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let table: Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(table.case.len() >= 20, "{} cases", table.case.len());
    let mut failures = Vec::new();
    for case in &table.case {
        let thresholds: Thresholds = toml::from_str(&case.thresholds)
            .unwrap_or_else(|e| panic!("{}: thresholds: {e}", case.name));
        let base = case
            .base
            .as_ref()
            .map_or_else(|| empty("base"), |s| s.results(case, "base"));
        let head = case
            .head
            .as_ref()
            .map_or_else(|| empty("head"), |s| s.results(case, "head"));
        let rows = compare(&base, &head, &thresholds);
        let mine: Vec<_> = rows.iter().filter(|r| r.id == case.id).collect();
        assert_eq!(
            mine.len(),
            case.expect.len(),
            "{}: rows {mine:#?}",
            case.name
        );
        for e in &case.expect {
            let Some(row) = mine.iter().find(|r| r.metric == metric(&e.metric)) else {
                failures.push(format!("{}: no {} row", case.name, e.metric));
                continue;
            };
            let cells = row.cells();
            let verdict = Verdict::from_label(&e.verdict)
                .unwrap_or_else(|| panic!("{}: unknown verdict {:?}", case.name, e.verdict));
            if row.verdict != verdict {
                failures.push(format!(
                    "{} ({}): verdict {:?}, expected {:?}; cells {cells:?}",
                    case.name, e.metric, row.verdict, verdict
                ));
            }
            // The printed Δ is exactly head / base − 1 of the printed values.
            let printed = match e.change_pct {
                Some(p) => format!("{p:+.1} %").replace("-0.0", "+0.0"),
                None => "–".to_string(),
            };
            if cells[4] != printed {
                failures.push(format!(
                    "{} ({}): Δ printed {:?}, expected {printed:?}",
                    case.name, e.metric, cells[4]
                ));
            }
            if let Some(j) = &e.judged_on
                && &cells[1] != j
            {
                failures.push(format!(
                    "{} ({}): judged on {:?}, expected {j:?}",
                    case.name, e.metric, cells[1]
                ));
            }
        }
        let exit = u8::from(regressions(&rows) > 0);
        if exit != case.exit {
            failures.push(format!(
                "{}: exit {exit}, expected {}",
                case.name, case.exit
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
