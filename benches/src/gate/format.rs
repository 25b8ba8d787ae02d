//! Showing a comparison: the terminal table and `summary.md`.

use std::fmt::Write as _;

use harness::table::{Align, text_table as layout};

use super::comparison::{Metric, Row, Verdict, regressions, union_keys};
use super::results::{BenchResult, Environment, Results};

/// `1.23 ms`, `456 µs`, `1.002 s`.
pub fn fmt_ns(ns: f64) -> String {
    let a = ns.abs();
    if a >= 1e9 {
        format!("{:.3} s", ns / 1e9)
    } else if a >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if a >= 1e3 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

fn fmt_count(n: f64) -> String {
    if n >= 1e9 {
        format!("{:.3} G", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.3} M", n / 1e6)
    } else if n >= 1e3 {
        format!("{:.1} k", n / 1e3)
    } else {
        format!("{n:.0}")
    }
}

/// `+12.3 %`; an unbounded change (see [`super::statistics`]) is `+∞ %`.
fn pct(x: f64) -> String {
    if x == f64::INFINITY {
        "+∞ %".into()
    } else if x == f64::NEG_INFINITY {
        "−∞ %".into()
    } else {
        format!("{:+.1} %", x * 100.0)
    }
}

/// `11.2 MiB` from KiB.
fn fmt_kib(kib: f64) -> String {
    format!("{:.1} MiB", kib / 1024.0)
}

impl Row {
    /// What the row judges, e.g. `time − 1.000 s floor`, `thread CPU time`,
    /// `ratio to process/floor/hello-world`.
    pub fn judged_on(&self) -> String {
        match self.metric {
            Metric::Instructions => "instructions".into(),
            Metric::PeakRss => "peak RSS".into(),
            Metric::Ratio => format!(
                "ratio to {}",
                self.reference.as_deref().unwrap_or("its reference")
            ),
            Metric::Time => match self.floors {
                (Some(b), Some(h)) if b != h => {
                    format!("time − floor (base {}, head {})", fmt_ns(b), fmt_ns(h))
                }
                (Some(f), _) | (None, Some(f)) => format!("time − {} floor", fmt_ns(f)),
                (None, None) if self.cpu_clock => "thread CPU time".into(),
                (None, None) => "time".into(),
            },
        }
    }

    /// The row's cells, in [`HEADERS`] order.
    pub fn cells(&self) -> [String; 7] {
        let value = |v: Option<f64>| match (v, self.metric) {
            (None, _) => "–".to_string(),
            (Some(v), Metric::Time) => fmt_ns(v),
            (Some(v), Metric::Ratio) => format!("{v:.2}×"),
            (Some(v), Metric::PeakRss) => fmt_kib(v),
            (Some(v), Metric::Instructions) => fmt_count(v),
        };
        let ci = match (self.ci, self.metric) {
            (Some((lo, hi)), _) => format!("[{}, {}]", pct(lo), pct(hi)),
            (None, Metric::Instructions) if self.change.is_some() => "exact".into(),
            _ => "–".into(),
        };
        let judged = self.change.is_some() || self.ci.is_some();
        let threshold = match (judged, self.min_abs_ns > 0.0) {
            (false, _) => String::new(),
            (true, false) => format!("(>{})", pct(self.threshold)),
            (true, true) => format!(
                "(>{} and >{})",
                pct(self.threshold),
                fmt_ns(self.min_abs_ns)
            ),
        };
        [
            self.id.clone(),
            self.judged_on(),
            value(self.base),
            value(self.head),
            self.change.map(pct).unwrap_or_else(|| "–".into()),
            ci,
            format!("{} {threshold}", self.verdict.label())
                .trim_end()
                .to_string(),
        ]
    }
}

/// Column headers of the comparison.
pub const HEADERS: [&str; 7] = [
    "benchmark",
    "judged on",
    "base",
    "head",
    "Δ %",
    "95 % CI of Δ",
    "verdict (threshold)",
];

/// Plain-text table for the terminal (benchmark, basis and verdict left-aligned, numbers right).
pub fn text_table(rows: &[Row]) -> String {
    let cells: Vec<[String; 7]> = rows.iter().map(Row::cells).collect();
    layout(&HEADERS, &cells, |i| {
        if matches!(i, 0 | 1 | 6) {
            Align::Left
        } else {
            Align::Right
        }
    })
}

/// `of process/floor/hello-world`: what a ratio is taken against.
fn to_name(r: &BenchResult) -> String {
    r.ratio_to
        .as_deref()
        .map(|t| format!("of {t}"))
        .unwrap_or_default()
}

fn env_table(base: Option<&Results>, head: &Results) -> String {
    let mut s = String::new();
    let fields = |e: &Environment| {
        [
            ("CPU", e.cpu.clone()),
            ("cores", e.cores.to_string()),
            ("rustc", e.rustc.clone()),
            ("git revision", e.revision()),
            ("OS", e.os.clone()),
            ("host", e.host.clone()),
            ("finished (unix time)", e.unix_time.to_string()),
        ]
    };
    let load = |r: &Results| {
        r.foreign_cores
            .map(|c| format!("{c:.2} cores"))
            .unwrap_or_else(|| "not measured".into())
    };
    match base {
        Some(b) => {
            let _ = writeln!(s, "| | base (`{}`) | head |\n|---|---|---|", b.name);
            for ((k, bv), (_, hv)) in fields(&b.environment)
                .into_iter()
                .zip(fields(&head.environment))
            {
                let flag = if bv != hv && matches!(k, "CPU" | "cores" | "rustc") {
                    " ⚠ differs"
                } else {
                    ""
                };
                let _ = writeln!(s, "| {k} | {bv} | {hv}{flag} |");
            }
            let _ = writeln!(
                s,
                "| other processes' load | {} | {} |",
                load(b),
                load(head)
            );
        }
        None => {
            let _ = writeln!(s, "| | head |\n|---|---|");
            for (k, v) in fields(&head.environment) {
                let _ = writeln!(s, "| {k} | {v} |");
            }
            let _ = writeln!(s, "| other processes' load | {} |", load(head));
        }
    }
    s
}

/// `target/bench/summary.md`: verdict line, busy-machine banner (`busy` =
/// [`busy_machine`](super::busy_machine)), comparison table (regressions first), environment of
/// both sides.
pub fn summary_markdown(
    base: Option<&Results>,
    head: &Results,
    rows: &[Row],
    busy: Option<f64>,
) -> String {
    let mut s = String::new();
    match base {
        Some(b) => {
            let n = regressions(rows);
            let _ = writeln!(
                s,
                "# Benchmarks: head `{}` vs baseline `{}` (`{}`)\n",
                head.environment.revision(),
                b.name,
                b.environment.revision()
            );
            let _ = writeln!(
                s,
                "**{}** — {} wall-clock and {} instruction-count comparisons.\n",
                if n == 0 {
                    "No regression".to_string()
                } else {
                    format!("{n} regression(s)")
                },
                rows.iter().filter(|r| r.metric == Metric::Time).count(),
                rows.iter()
                    .filter(|r| r.metric == Metric::Instructions)
                    .count()
            );
            if let Some(cores) = busy {
                let _ = writeln!(
                    s,
                    "> **Busy machine:** other processes used {cores:.2} cores on average during a run (limit in \
                     `benches/thresholds.toml`: `max_foreign_cores`). Wall-clock slowdowns are reported as \
                     *inconclusive*, not as failures; instruction counts still gate. Re-run on an idle machine to \
                     judge wall time.\n"
                );
            }
            let _ = writeln!(s, "| {} |", HEADERS.join(" | "));
            let _ = writeln!(s, "|{}", "---|".repeat(HEADERS.len()));
            for r in rows {
                let mut c = r.cells();
                if r.verdict == Verdict::Regressed {
                    c[6] = format!("**{}**", c[6]);
                }
                let _ = writeln!(s, "| {} |", c.join(" | "));
            }
            let _ = writeln!(
                s,
                "\nΔ % is head / base − 1 of the values shown (medians, minus each side's latency floor where one \
                 is shown; \"–\" when the base is not above zero); the CI is a seeded bootstrap. A benchmark \
                 regresses only when its whole CI lies above the threshold and, where one is given, its absolute \
                 slowdown above the stated time (see `benches/README.md`). A ratio row is a benchmark's median \
                 over its reference's (e.g. the process floor), judged the same way. Instruction counts \
                 (callgrind) and peak RSS are compared directly. Rows on one side only are `new` or `missing`, \
                 never failures."
            );
            for note in [&b.instructions_note, &head.instructions_note]
                .into_iter()
                .flatten()
            {
                let _ = writeln!(s, "\nNote: {note}");
            }
        }
        None => {
            let _ = writeln!(
                s,
                "# Benchmarks: `{}` (no baseline)\n",
                head.environment.revision()
            );
            let _ = writeln!(
                s,
                "| benchmark | median | mean 95 % CI | floor | ratio | peak RSS | instructions |\n|---|---|---|---|---|---|---|"
            );
            for id in union_keys(&head.benchmarks, &head.instructions) {
                let r = head.benchmarks.get(id);
                let time =
                    |f: fn(&BenchResult) -> f64| r.map(f).map(fmt_ns).unwrap_or_else(|| "–".into());
                let ratio = r
                    .and_then(|r| Some((r, head.benchmarks.get(r.ratio_to.as_ref()?)?)))
                    .filter(|(_, to)| to.median_ns > 0.0)
                    .map(|(r, to)| format!("{:.2}× {}", r.median_ns / to.median_ns, to_name(r)))
                    .unwrap_or_else(|| "–".into());
                let _ = writeln!(
                    s,
                    "| {id} | {} | [{}, {}] | {} | {ratio} | {} | {} |",
                    time(|r| r.median_ns),
                    time(|r| r.mean_ci_ns[0]),
                    time(|r| r.mean_ci_ns[1]),
                    r.and_then(|r| r.floor_ns)
                        .filter(|f| *f > 0.0)
                        .map(fmt_ns)
                        .unwrap_or_else(|| "–".into()),
                    r.and_then(|r| r.peak_rss_kib)
                        .map(|k| fmt_kib(k as f64))
                        .unwrap_or_else(|| "–".into()),
                    head.instructions
                        .get(id)
                        .map(|&n| fmt_count(n as f64))
                        .unwrap_or_else(|| "–".into())
                );
            }
            if let Some(note) = &head.instructions_note {
                let _ = writeln!(s, "\nNote: {note}");
            }
        }
    }
    let _ = writeln!(s, "\n## Environment\n\n{}", env_table(base, head));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, metric: Metric, verdict: Verdict) -> Row {
        Row {
            id: id.into(),
            metric,
            base: Some(1.5e6),
            head: Some(2.25e6),
            floors: (None, (metric == Metric::Time).then_some(1e9)),
            cpu_clock: false,
            reference: None,
            change: Some(0.5),
            ci: (metric == Metric::Time).then_some((0.4, 0.6)),
            threshold: 0.1,
            min_abs_ns: 0.0,
            verdict,
        }
    }

    #[test]
    fn terminal_table_layout() {
        let rows = [
            row(
                "launch/cold-serial/seed-7-clouds",
                Metric::Time,
                Verdict::Regressed,
            ),
            row("op", Metric::Instructions, Verdict::Unchanged),
        ];
        let expected = "\
benchmark                         judged on                base     head      Δ %        95 % CI of Δ  verdict (threshold)
---------------------------------------------------------------------------------------------------------------------------
launch/cold-serial/seed-7-clouds  time − 1.000 s floor  1.50 ms  2.25 ms  +50.0 %  [+40.0 %, +60.0 %]  REGRESSED (>+10.0 %)
op                                instructions          1.500 M  2.250 M  +50.0 %               exact  ok (>+10.0 %)
";
        assert_eq!(text_table(&rows), expected);
    }

    #[test]
    fn summary_without_baseline_lists_every_benchmark() {
        let mut head = Results {
            schema: super::super::SCHEMA.into(),
            name: "head".into(),
            environment: Environment::default(),
            benchmarks: [(
                "x".to_string(),
                BenchResult::from_samples(vec![1e6, 3e6], Some(5e5)),
            )]
            .into(),
            instructions: [("y".to_string(), 2_000_000)].into(),
            instructions_note: None,
            foreign_cores: None,
        };
        head.environment.git_rev = "abc1234".into();
        let md = summary_markdown(None, &head, &[], None);
        assert!(
            md.starts_with("# Benchmarks: `abc1234` (no baseline)"),
            "{md}"
        );
        assert!(
            md.contains("| x | 2.00 ms | [2.00 ms, 2.00 ms] | 500.0 µs | – | – | – |"),
            "{md}"
        );
        assert!(
            md.contains("| y | – | [–, –] | – | – | – | 2.000 M |"),
            "{md}"
        );
        assert!(md.contains("## Environment"), "{md}");
    }
}
