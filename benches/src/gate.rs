//! The regression gate: portable result files, thresholds and the
//! noise-aware comparison.
//!
//! A result file ([`Results`], `benches/baselines/<NAME>.json` when saved)
//! keeps every criterion sample (per-iteration time of each sample), so a
//! comparison needs nothing from `target/criterion` and survives `cargo clean`,
//! other machines' checkouts and git.
//!
//! **Verdict.** For wall-clock benchmarks the change is
//! `median(head) / median(base) − 1`, where each side is first reduced by its
//! latency floor (the mocked latency on the critical path, recorded by the
//! launch benches; zero for CPU-bound ones). Its 95 % confidence interval
//! comes from a seeded bootstrap (both sides resampled independently), so the
//! same two files always give the same verdict. A benchmark *regresses* when
//! the whole interval lies above its threshold (default +10 %) **and** the
//! absolute slowdown's interval lies above `min_abs_ms` (default 0); it
//! *improved* when the interval lies wholly below −threshold. Instruction
//! counts (callgrind) are exact, so they regress when the change itself
//! exceeds their threshold (default +2 %).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::env_info::Environment;

/// Version tag of [`Results`] files.
pub const SCHEMA: &str = "sky-bench-results/v1";

/// Errors that name the file concerned and, where possible, the fix.
#[derive(Debug)]
pub enum GateError {
    /// A baseline file that does not exist.
    MissingBaseline {
        /// The expected path.
        path: PathBuf,
        /// The name to pass to `just bench-save`.
        name: String,
    },
    /// A file that cannot be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A file that is not what it should be.
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl std::fmt::Display for GateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GateError::MissingBaseline { path, name } => write!(
                f,
                "baseline {} does not exist. Create it on the base revision with `just bench-save {name}` \
                 (or `cargo run --release -p benches --bin bench-gate -- save {name}`)",
                path.display()
            ),
            GateError::Io { path, source } => {
                write!(f, "cannot access {}: {source}", path.display())
            }
            GateError::Parse { path, message } => {
                write!(f, "invalid {}: {message}", path.display())
            }
        }
    }
}

impl std::error::Error for GateError {}

/// One benchmark's measurements.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchResult {
    /// Per-iteration time of each criterion sample, in nanoseconds.
    pub samples_ns: Vec<f64>,
    /// Median of `samples_ns`.
    pub median_ns: f64,
    /// criterion's mean estimate (ns).
    pub mean_ns: f64,
    /// criterion's 95 % confidence interval of the mean (ns).
    pub mean_ci_ns: [f64; 2],
    /// Mocked latency on the critical path (ns); the gate judges `time − floor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor_ns: Option<f64>,
    /// `thread-cpu` when the samples are the benchmark thread's CPU time;
    /// absent for wall-clock time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
}

impl BenchResult {
    /// Builds a result from per-iteration sample times.
    pub fn from_samples(samples_ns: Vec<f64>, floor_ns: Option<f64>) -> BenchResult {
        let median_ns = median(&samples_ns);
        let mean_ns = if samples_ns.is_empty() {
            0.0
        } else {
            samples_ns.iter().sum::<f64>() / samples_ns.len() as f64
        };
        BenchResult {
            samples_ns,
            median_ns,
            mean_ns,
            mean_ci_ns: [mean_ns, mean_ns],
            floor_ns,
            clock: None,
        }
    }

    fn floor(&self) -> f64 {
        self.floor_ns.unwrap_or(0.0).max(0.0)
    }
}

/// A whole run: what [`crate::runner`] measures and `bench-save` stores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Results {
    /// [`SCHEMA`].
    pub schema: String,
    /// Baseline name (`head` for an unsaved run).
    pub name: String,
    /// Where the numbers come from.
    pub environment: Environment,
    /// Wall-clock results by criterion id.
    pub benchmarks: BTreeMap<String, BenchResult>,
    /// Instructions per operation (callgrind), by criterion id.
    #[serde(default)]
    pub instructions: BTreeMap<String, u64>,
    /// Why `instructions` is empty or partial (e.g. valgrind missing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions_note: Option<String>,
    /// CPU cores used by other processes during the criterion run (average).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foreign_cores: Option<f64>,
}

impl Results {
    /// Reads a result file.
    pub fn load(path: &Path) -> Result<Results, GateError> {
        let bytes = std::fs::read(path).map_err(|source| GateError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let r: Results = serde_json::from_slice(&bytes).map_err(|e| GateError::Parse {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        if r.schema != SCHEMA {
            return Err(GateError::Parse {
                path: path.to_path_buf(),
                message: format!(
                    "schema is {:?}, expected {SCHEMA:?}; re-save it with `just bench-save`",
                    r.schema
                ),
            });
        }
        Ok(r)
    }

    /// Writes the file (pretty JSON), creating its folder.
    pub fn save(&self, path: &Path) -> Result<(), GateError> {
        let io = |source| GateError::Io {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let text = serde_json::to_string_pretty(self).map_err(|e| GateError::Parse {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        std::fs::write(path, text + "\n").map_err(io)
    }
}

/// `benches/baselines/<name>.json`, or `name` itself when it is a path
/// (contains `/` or ends in `.json`).
pub fn baseline_path(workspace: &Path, name: &str) -> PathBuf {
    if name.contains('/') || name.ends_with(".json") {
        PathBuf::from(name)
    } else {
        workspace
            .join("benches/baselines")
            .join(format!("{name}.json"))
    }
}

/// Loads a baseline by name or path; a missing file says how to create it.
pub fn load_baseline(workspace: &Path, name: &str) -> Result<Results, GateError> {
    let path = baseline_path(workspace, name);
    if !path.exists() {
        return Err(GateError::MissingBaseline {
            path,
            name: name.to_string(),
        });
    }
    Results::load(&path)
}

#[derive(Deserialize)]
struct SavedSample {
    iters: Vec<f64>,
    times: Vec<f64>,
}

#[derive(Deserialize)]
struct SavedBenchmark {
    full_id: String,
}

#[derive(Deserialize)]
struct SavedInterval {
    lower_bound: f64,
    upper_bound: f64,
}

#[derive(Deserialize)]
struct SavedEstimate {
    point_estimate: f64,
    confidence_interval: SavedInterval,
}

#[derive(Deserialize)]
struct SavedEstimates {
    mean: SavedEstimate,
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, GateError> {
    let bytes = std::fs::read(path).map_err(|source| GateError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_slice(&bytes).map_err(|e| GateError::Parse {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            out.push(p.clone());
            walk(&p, out);
        }
    }
}

/// Every directory below `root` (recursively).
pub fn subdirs(root: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    walk(root, &mut v);
    v
}

/// Reads criterion's `new/{benchmark,sample,estimates}.json` under
/// `criterion_dir` written at or after `since` (older ones are stale results
/// of benchmarks this run did not select). `meta` holds the floors and clocks
/// the benchmarks recorded.
pub fn collect_criterion(
    criterion_dir: &Path,
    since: SystemTime,
    meta: &BTreeMap<String, crate::BenchMeta>,
) -> Result<BTreeMap<String, BenchResult>, GateError> {
    let mut out = BTreeMap::new();
    for dir in subdirs(criterion_dir)
        .into_iter()
        .filter(|d| d.file_name().is_some_and(|n| n == "new"))
    {
        let sample_path = dir.join("sample.json");
        let fresh = std::fs::metadata(&sample_path)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t >= since);
        if !fresh || !dir.join("benchmark.json").exists() {
            continue;
        }
        let bench: SavedBenchmark = read_json(&dir.join("benchmark.json"))?;
        let sample: SavedSample = read_json(&sample_path)?;
        let samples_ns: Vec<f64> = sample
            .iters
            .iter()
            .zip(&sample.times)
            .filter(|(i, _)| **i > 0.0)
            .map(|(i, t)| t / i)
            .collect();
        let mut r = BenchResult::from_samples(
            samples_ns,
            meta.get(&bench.full_id).and_then(|m| m.floor_ns),
        );
        r.clock = meta.get(&bench.full_id).and_then(|m| m.clock.clone());
        if let Ok(est) = read_json::<SavedEstimates>(&dir.join("estimates.json")) {
            r.mean_ns = est.mean.point_estimate;
            r.mean_ci_ns = [
                est.mean.confidence_interval.lower_bound,
                est.mean.confidence_interval.upper_bound,
            ];
        }
        out.insert(bench.full_id, r);
    }
    Ok(out)
}

/// Thresholds (`benches/thresholds.toml`): defaults plus per-benchmark
/// overrides selected by glob patterns (`*` matches anything, `/` included;
/// later overrides win).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Thresholds {
    /// Wall-clock threshold in percent (default 10).
    #[serde(default = "default_time_pct")]
    pub time_pct: f64,
    /// Instruction-count threshold in percent (default 2).
    #[serde(default = "default_instructions_pct")]
    pub instructions_pct: f64,
    /// Minimum absolute slowdown (ms) a wall-clock regression must also show (default 0).
    #[serde(default)]
    pub min_abs_ms: f64,
    /// Above this many cores of other processes' load (average, in either
    /// run) wall-clock regressions are reported as inconclusive instead of
    /// failing; instruction counts still gate (default 0.25).
    #[serde(default = "default_max_foreign_cores")]
    pub max_foreign_cores: f64,
    /// Per-benchmark overrides.
    #[serde(default, rename = "override")]
    pub overrides: Vec<Override>,
}

fn default_time_pct() -> f64 {
    10.0
}

fn default_instructions_pct() -> f64 {
    2.0
}

fn default_max_foreign_cores() -> f64 {
    0.25
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            time_pct: 10.0,
            instructions_pct: 2.0,
            min_abs_ms: 0.0,
            max_foreign_cores: default_max_foreign_cores(),
            overrides: Vec::new(),
        }
    }
}

/// One `[[override]]` table.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Override {
    /// Glob over benchmark ids, e.g. `launch/*/seed-7-clouds`.
    pub pattern: String,
    /// Replaces [`Thresholds::time_pct`].
    pub time_pct: Option<f64>,
    /// Replaces [`Thresholds::instructions_pct`].
    pub instructions_pct: Option<f64>,
    /// Replaces [`Thresholds::min_abs_ms`].
    pub min_abs_ms: Option<f64>,
    /// Time (wall or CPU) only informs, never fails: for benchmarks whose
    /// time varies between processes beyond any useful threshold; their
    /// instruction counts still gate.
    pub time_advisory: Option<bool>,
    /// Why (shown nowhere; for reviewers of the file).
    pub reason: Option<String>,
}

/// The limits that apply to one benchmark.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Wall-clock threshold (fraction).
    pub time: f64,
    /// Instruction threshold (fraction).
    pub instructions: f64,
    /// Minimum absolute slowdown (ns).
    pub min_abs_ns: f64,
    /// Time slowdowns are reported, not failed.
    pub time_advisory: bool,
}

impl Thresholds {
    /// Reads the file; a missing file gives the defaults.
    pub fn load(path: &Path) -> Result<Thresholds, GateError> {
        match std::fs::read_to_string(path) {
            Ok(text) => toml::from_str(&text).map_err(|e| GateError::Parse {
                path: path.to_path_buf(),
                message: e.to_string(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Thresholds::default()),
            Err(source) => Err(GateError::Io {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// The limits for `id`.
    pub fn limits(&self, id: &str) -> Limits {
        let mut l = Limits {
            time: self.time_pct / 100.0,
            instructions: self.instructions_pct / 100.0,
            min_abs_ns: self.min_abs_ms * 1e6,
            time_advisory: false,
        };
        for o in self.overrides.iter().filter(|o| glob_match(&o.pattern, id)) {
            if let Some(v) = o.time_pct {
                l.time = v / 100.0;
            }
            if let Some(v) = o.instructions_pct {
                l.instructions = v / 100.0;
            }
            if let Some(v) = o.min_abs_ms {
                l.min_abs_ns = v * 1e6;
            }
            if let Some(v) = o.time_advisory {
                l.time_advisory = v;
            }
        }
        l
    }
}

/// `*`-glob match over the whole string.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() || !text.ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

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

fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

fn quantile_sorted(s: &[f64], q: f64) -> f64 {
    if s.is_empty() {
        return 0.0;
    }
    let pos = q * (s.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    s[lo] + (s[hi] - s[lo]) * (pos - lo as f64)
}

/// SplitMix64: a tiny seeded generator, so the bootstrap is repeatable.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Bootstrap resamples per comparison.
pub const RESAMPLES: usize = 4000;

/// Smallest overhead used as a denominator (1 µs), so a near-zero base
/// overhead cannot turn jitter into an infinite relative change.
const MIN_OVERHEAD_NS: f64 = 1000.0;

/// Relative-change point estimate and 95 % CIs (relative, absolute) of
/// `median(head) / median(base) − 1`, seeded by `id`.
pub fn bootstrap_change(id: &str, base: &[f64], head: &[f64]) -> (f64, (f64, f64), (f64, f64)) {
    let point = median(head) / median(base).max(MIN_OVERHEAD_NS) - 1.0;
    let mut rng = SplitMix(fnv1a(id));
    let (mut rel, mut abs) = (Vec::with_capacity(RESAMPLES), Vec::with_capacity(RESAMPLES));
    let (mut b, mut h) = (vec![0.0; base.len()], vec![0.0; head.len()]);
    for _ in 0..RESAMPLES {
        for x in b.iter_mut() {
            *x = base[rng.below(base.len())];
        }
        for x in h.iter_mut() {
            *x = head[rng.below(head.len())];
        }
        let (mb, mh) = (median(&b), median(&h));
        rel.push(mh / mb.max(MIN_OVERHEAD_NS) - 1.0);
        abs.push(mh - mb);
    }
    rel.sort_by(f64::total_cmp);
    abs.sort_by(f64::total_cmp);
    let ci = |s: &[f64]| (quantile_sorted(s, 0.025), quantile_sorted(s, 0.975));
    (point, ci(&rel), ci(&abs))
}

/// Compares two runs. Rows: regressions first, then improvements, unchanged,
/// new and missing; by id within each.
pub fn compare(base: &Results, head: &Results, thresholds: &Thresholds) -> Vec<Row> {
    let mut rows = Vec::new();
    let busy = busy_machine(base, head, thresholds).is_some();
    let ids: BTreeSet<&String> = base
        .benchmarks
        .keys()
        .chain(head.benchmarks.keys())
        .collect();
    for id in ids {
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
    let ids: BTreeSet<&String> = base
        .instructions
        .keys()
        .chain(head.instructions.keys())
        .collect();
    for id in ids {
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

fn pct(x: f64) -> String {
    format!("{:+.1} %", x * 100.0)
}

impl Row {
    fn cells(&self) -> [String; 7] {
        let value = |v: Option<f64>| match (v, self.metric) {
            (None, _) => "–".to_string(),
            (Some(v), Metric::Time) => fmt_ns(v),
            (Some(v), Metric::Instructions) => fmt_count(v),
        };
        let judged = match (self.metric, self.floor_ns, self.cpu_clock) {
            (Metric::Instructions, _, _) => "instructions".to_string(),
            (Metric::Time, Some(f), _) => format!("time − {} floor", fmt_ns(f)),
            (Metric::Time, None, true) => "thread CPU time".to_string(),
            (Metric::Time, None, false) => "time".to_string(),
        };
        let ci = match (self.ci, self.metric) {
            (Some((lo, hi)), _) => format!("[{}, {}]", pct(lo), pct(hi)),
            (None, Metric::Instructions) if self.change.is_some() => "exact".into(),
            _ => "–".into(),
        };
        [
            self.id.clone(),
            judged,
            value(self.base),
            value(self.head),
            self.change.map(pct).unwrap_or_else(|| "–".into()),
            ci,
            format!(
                "{} {}",
                self.verdict.label(),
                if self.change.is_some() {
                    format!("(>{})", pct(self.threshold))
                } else {
                    String::new()
                }
            )
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

/// Plain-text table for the terminal.
pub fn text_table(rows: &[Row]) -> String {
    let cells: Vec<[String; 7]> = rows.iter().map(Row::cells).collect();
    let mut widths = HEADERS.map(|h| h.chars().count());
    for c in &cells {
        for (w, s) in widths.iter_mut().zip(c) {
            *w = (*w).max(s.chars().count());
        }
    }
    let line = |c: &[String]| {
        let mut s = String::new();
        for (i, (cell, w)) in c.iter().zip(widths).enumerate() {
            let pad = w.saturating_sub(cell.chars().count());
            if i == 0 || i == 1 || i == 6 {
                s.push_str(cell);
                s.push_str(&" ".repeat(pad));
            } else {
                s.push_str(&" ".repeat(pad));
                s.push_str(cell);
            }
            s.push_str("  ");
        }
        s.trim_end().to_string()
    };
    let mut out = line(&HEADERS.map(String::from));
    out.push('\n');
    out.push_str(&"-".repeat(widths.iter().sum::<usize>() + 2 * (widths.len() - 1)));
    out.push('\n');
    for c in &cells {
        out.push_str(&line(c));
        out.push('\n');
    }
    out
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
/// [`busy_machine`]), comparison table (regressions first), environment of
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
                "\nΔ % is the change of the median (minus the latency floor where one is shown); the CI is a seeded \
                 bootstrap. A benchmark regresses only when its whole CI lies above the threshold (see \
                 `benches/README.md`). Instruction counts are exact (callgrind)."
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
                "| benchmark | median | mean 95 % CI | floor | instructions |\n|---|---|---|---|---|"
            );
            let ids: BTreeSet<&String> = head
                .benchmarks
                .keys()
                .chain(head.instructions.keys())
                .collect();
            for id in ids {
                let r = head.benchmarks.get(id);
                let time =
                    |f: fn(&BenchResult) -> f64| r.map(f).map(fmt_ns).unwrap_or_else(|| "–".into());
                let _ = writeln!(
                    s,
                    "| {id} | {} | [{}, {}] | {} | {} |",
                    time(|r| r.median_ns),
                    time(|r| r.mean_ci_ns[0]),
                    time(|r| r.mean_ci_ns[1]),
                    r.and_then(|r| r.floor_ns)
                        .filter(|f| *f > 0.0)
                        .map(fmt_ns)
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
    fn glob() {
        assert!(glob_match(
            "launch/*/seed-7-clouds",
            "launch/cold-serial/seed-7-clouds"
        ));
        assert!(glob_match("feasibility/*", "feasibility/aws/t4"));
        assert!(glob_match("*", "x"));
        assert!(!glob_match(
            "launch/*/latency-0",
            "launch/cold-serial/seed-7-clouds"
        ));
        assert!(glob_match("catalog/load-aws", "catalog/load-aws"));
        assert!(!glob_match("a*b*c", "abx"));
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

    #[test]
    fn missing_baseline_names_file_and_fix() {
        let err = load_baseline(Path::new("/nonexistent-ws"), "main")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("/nonexistent-ws/benches/baselines/main.json"),
            "{err}"
        );
        assert!(err.contains("just bench-save main"), "{err}");
    }

    #[test]
    fn thresholds_parse_and_override() {
        let t: Thresholds = toml::from_str(
            "time_pct = 10\n[[override]]\npattern = \"launch/*\"\ntime_pct = 25\nmin_abs_ms = 5\n",
        )
        .unwrap();
        let l = t.limits("launch/cold-serial/seed-7-clouds");
        assert_eq!((l.time, l.min_abs_ns), (0.25, 5e6));
        assert_eq!(t.limits("catalog/load-aws").time, 0.10);
        assert!(toml::from_str::<Thresholds>("tim_pct = 3").is_err());
    }
}
