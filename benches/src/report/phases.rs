//! Where a report's time goes: each phase (building a side, its criterion
//! suite, instruction counts, profiling, the harness) timed as it runs,
//! printed as it ends and tabled at the end (terminal and `report.md`).

use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// One timed phase.
#[derive(Debug, Clone, PartialEq)]
pub struct Phase {
    /// What ran (`build`, `criterion suite`, …).
    pub name: String,
    /// `base`, `head` or `both`.
    pub side: String,
    /// How long it took.
    pub took: Duration,
}

/// The phases of one report, in the order they ran.
#[derive(Debug, Default, Clone)]
pub struct Phases {
    phases: Vec<Phase>,
}

impl Phases {
    /// Runs `f` as phase `name` of `side`, records and prints its time.
    pub fn time<T>(&mut self, name: &str, side: &str, f: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let out = f();
        let took = started.elapsed();
        eprintln!(
            "bench-gate: [{:>6.1} s] {name} ({side})",
            took.as_secs_f64()
        );
        self.record(name, side, took);
        out
    }

    /// Records a phase timed elsewhere.
    pub fn record(&mut self, name: &str, side: &str, took: Duration) {
        self.phases.push(Phase {
            name: name.to_string(),
            side: side.to_string(),
            took,
        });
    }

    /// Every phase, in order.
    pub fn phases(&self) -> &[Phase] {
        &self.phases
    }

    /// The sum of the phases.
    pub fn total(&self) -> Duration {
        self.phases.iter().map(|p| p.took).sum()
    }

    /// Rows `(phase, side, seconds, share %)`, plus the total.
    fn rows(&self) -> Vec<[String; 4]> {
        let total = self.total().as_secs_f64().max(f64::MIN_POSITIVE);
        let mut rows: Vec<[String; 4]> = self
            .phases
            .iter()
            .map(|p| {
                [
                    p.name.clone(),
                    p.side.clone(),
                    format!("{:.1}", p.took.as_secs_f64()),
                    format!("{:.0} %", 100.0 * p.took.as_secs_f64() / total),
                ]
            })
            .collect();
        rows.push([
            "total".into(),
            String::new(),
            format!("{:.1}", self.total().as_secs_f64()),
            "100 %".into(),
        ]);
        rows
    }

    /// A plain-text table for the terminal.
    pub fn text(&self) -> String {
        let rows = self.rows();
        harness::table::text_table(&["phase", "side", "seconds", "share"], &rows, |i| {
            if i < 2 {
                harness::table::Align::Left
            } else {
                harness::table::Align::Right
            }
        })
    }

    /// A markdown table for `report.md`.
    pub fn markdown(&self) -> String {
        let mut s = String::from("| phase | side | seconds | share |\n|---|---|---|---|\n");
        for [a, b, c, d] in self.rows() {
            let _ = writeln!(s, "| {a} | {b} | {c} | {d} |");
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_add_up_and_table() {
        let mut p = Phases::default();
        p.record("build", "base", Duration::from_secs(30));
        let x = p.time("instruction counts", "both", || 7);
        assert_eq!(x, 7);
        p.record("criterion suite", "head", Duration::from_secs(10));
        assert_eq!(p.phases().len(), 3);
        assert!(p.total() >= Duration::from_secs(40));
        let md = p.markdown();
        assert!(md.contains("| build | base | 30.0 | 75 % |"), "{md}");
        assert!(md.contains("| total |  | 40.0 | 100 % |"), "{md}");
        assert!(p.text().contains("criterion suite"));
    }
}
