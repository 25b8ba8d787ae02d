//! Where a report's time goes: each phase (building a side, its criterion
//! suite, instruction counts, profiling, the harness) timed as it runs,
//! printed as it ends and tabled at the end (terminal and `report.md`).
//!
//! Each phase also states when it started (UTC), the machine's load average
//! at its start and end (`/proc/loadavg`: on a shared machine a phase's
//! seconds mean little without it), the CPU time it used (this process and
//! the children it waited for: cargo and rustc, criterion, callgrind, the
//! harness), and its **work** — a count that does not depend on load (units
//! compiled, benchmarks and samples, callgrind passes, launches). CPU time
//! and work are what estimate the phase on another machine: a build's wall
//! time on an idle 2-core machine is at least its CPU time / 2.

use std::fmt::Write as _;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// One timed phase.
#[derive(Debug, Clone, PartialEq)]
pub struct Phase {
    /// What ran (`build`, `criterion suite`, …).
    pub name: String,
    /// `base`, `head` or `both`.
    pub side: String,
    /// How long it took.
    pub took: Duration,
    /// When it started, `HH:MM:SS` UTC (empty when recorded afterwards).
    pub started: String,
    /// 1-minute load average at its start and end, when known.
    pub load: Option<(f64, f64)>,
    /// CPU time used by this process and its waited-for children, when known.
    pub cpu: Option<Duration>,
    /// What it did, counted independently of load (empty: not counted).
    pub work: String,
}

/// The 1-minute load average (`/proc/loadavg`), where the system has one.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// `USER_HZ`: the unit of `/proc/self/stat`'s times (100 on Linux).
const TICKS_PER_SECOND: u64 = 100;

/// CPU time (user + system) of this process and of every child it has
/// waited for (`/proc/self/stat`: utime, stime, cutime, cstime).
pub fn cpu_with_children() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name: utime is field 14.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = (11..=14)
        .map(|i| fields.get(i)?.parse::<u64>().ok())
        .sum::<Option<u64>>()?;
    Some(Duration::from_millis(ticks * 1000 / TICKS_PER_SECOND))
}

/// `HH:MM:SS` UTC of `t`.
pub fn utc_clock(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) % 86_400;
    format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
}

/// The phases of one report, in the order they ran.
#[derive(Debug, Default, Clone)]
pub struct Phases {
    phases: Vec<Phase>,
}

impl Phases {
    /// Runs `f` as phase `name` of `side`, records and prints its time.
    pub fn time<T>(&mut self, name: &str, side: &str, f: impl FnOnce() -> T) -> T {
        let clock = utc_clock(SystemTime::now());
        let load_before = load_average();
        let cpu_before = cpu_with_children();
        eprintln!("bench-gate: {clock} UTC: {name} ({side}) starts");
        let started = Instant::now();
        let out = f();
        let took = started.elapsed();
        let load = load_before.zip(load_average());
        let cpu = cpu_before
            .zip(cpu_with_children())
            .map(|(a, b)| b.saturating_sub(a));
        eprintln!(
            "bench-gate: [{:>6.1} s] {name} ({side}){}{}",
            took.as_secs_f64(),
            cpu.map(|c| format!(", {:.1} s CPU", c.as_secs_f64()))
                .unwrap_or_default(),
            load.map(|(a, b)| format!(", load {a:.1} → {b:.1}"))
                .unwrap_or_default()
        );
        self.phases.push(Phase {
            name: name.to_string(),
            side: side.to_string(),
            took,
            started: clock,
            load,
            cpu,
            work: String::new(),
        });
        out
    }

    /// States the last phase's work (see [`Phase::work`]) and prints it.
    pub fn work(&mut self, text: impl Into<String>) {
        if let Some(p) = self.phases.last_mut() {
            p.work = text.into();
            eprintln!("bench-gate:          {} ({}): {}", p.name, p.side, p.work);
        }
    }

    /// Records a phase timed elsewhere.
    pub fn record(&mut self, name: &str, side: &str, took: Duration) {
        self.phases.push(Phase {
            name: name.to_string(),
            side: side.to_string(),
            took,
            started: String::new(),
            load: None,
            cpu: None,
            work: String::new(),
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

    /// Rows `(phase, side, started, seconds, share %, CPU seconds, load,
    /// work)`, plus the total.
    fn rows(&self) -> Vec<[String; 8]> {
        let total = self.total().as_secs_f64().max(f64::MIN_POSITIVE);
        let load = |l: Option<(f64, f64)>| {
            l.map(|(a, b)| format!("{a:.1} → {b:.1}"))
                .unwrap_or_default()
        };
        let cpu = |c: Option<Duration>| {
            c.map(|c| format!("{:.1}", c.as_secs_f64()))
                .unwrap_or_default()
        };
        let mut rows: Vec<[String; 8]> = self
            .phases
            .iter()
            .map(|p| {
                [
                    p.name.clone(),
                    p.side.clone(),
                    p.started.clone(),
                    format!("{:.1}", p.took.as_secs_f64()),
                    format!("{:.0} %", 100.0 * p.took.as_secs_f64() / total),
                    cpu(p.cpu),
                    load(p.load),
                    p.work.clone(),
                ]
            })
            .collect();
        let first = self.phases.iter().find_map(|p| p.load.map(|l| l.0));
        let last = self.phases.iter().rev().find_map(|p| p.load.map(|l| l.1));
        rows.push([
            "total".into(),
            String::new(),
            String::new(),
            format!("{:.1}", self.total().as_secs_f64()),
            "100 %".into(),
            cpu(self.phases.iter().map(|p| p.cpu).sum()),
            load(first.zip(last)),
            String::new(),
        ]);
        rows
    }

    /// A plain-text table for the terminal.
    pub fn text(&self) -> String {
        let rows = self.rows();
        harness::table::text_table(&HEADER, &rows, |i| {
            if right_aligned(i) {
                harness::table::Align::Right
            } else {
                harness::table::Align::Left
            }
        })
    }

    /// A markdown table for `report.md`.
    pub fn markdown(&self) -> String {
        let align: Vec<&str> = (0..HEADER.len())
            .map(|i| if right_aligned(i) { "--:" } else { "---" })
            .collect();
        let mut s = format!("| {} |\n|{}|\n", HEADER.join(" | "), align.join("|"));
        for row in self.rows() {
            let _ = writeln!(s, "| {} |", row.join(" | "));
        }
        s
    }
}

/// Whether column `i` of [`HEADER`] holds numbers (seconds, share, CPU).
fn right_aligned(i: usize) -> bool {
    matches!(i, 3..=5)
}

/// The columns of the phase table.
const HEADER: [&str; 8] = [
    "phase",
    "side",
    "started (UTC)",
    "seconds",
    "share",
    "CPU s",
    "load (1 min)",
    "work",
];

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
        assert!(
            md.contains("| build | base |  | 30.0 | 75 % |  |  |  |"),
            "{md}"
        );
        assert!(md.contains("| total |  |  | 40.0 | 100 % |"), "{md}");
        assert!(md.contains("\n|---|---|---|--:|--:|--:|---|---|\n"), "{md}");
        // A phase timed here states its CPU time (a total is summed only
        // when every phase has one).
        assert!(p.phases()[1].cpu.is_some());
        assert!(p.text().contains("criterion suite"));
        // A timed phase states when it started; work is stated afterwards.
        assert_eq!(p.phases()[1].started.len(), "HH:MM:SS".len());
        p.work("3 of 9 units compiled (2 workspace)");
        assert_eq!(p.phases()[2].work, "3 of 9 units compiled (2 workspace)");
        assert!(
            p.markdown()
                .contains("| 3 of 9 units compiled (2 workspace) |")
        );
    }

    #[test]
    fn clock_is_utc() {
        let t = UNIX_EPOCH + Duration::from_secs(86_400 * 3 + 13 * 3600 + 40 * 60 + 5);
        assert_eq!(utc_clock(t), "13:40:05");
    }
}
