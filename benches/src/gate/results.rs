//! Result files: one run's measurements ([`Results`], with every criterion
//! sample and the [`Environment`] it came from), stored as portable JSON
//! (`benches/baselines/<NAME>.json` when saved) so a comparison needs nothing
//! from `target/criterion` and survives `cargo clean`, other machines'
//! checkouts and git.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use harness::stats;
use harness::sysinfo::{Machine, UNKNOWN};
use serde::{Deserialize, Serialize};

use super::GateError;

/// Version tag of [`Results`] files.
pub const SCHEMA: &str = "sky-bench-results/v1";

/// The machine and source revision of a benchmark run (the result file's
/// view of a [`Machine`] probe), so two result files can be judged
/// comparable or not.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Environment {
    /// CPU model (`/proc/cpuinfo`).
    pub cpu: String,
    /// Logical cores available to the process.
    pub cores: usize,
    /// `rustc -V`.
    pub rustc: String,
    /// `git rev-parse --short HEAD` of the measured tree.
    pub git_rev: String,
    /// Whether the measured tree had uncommitted changes to tracked files.
    pub git_dirty: bool,
    /// `uname -sr`-like OS description.
    pub os: String,
    /// Host name.
    pub host: String,
    /// Seconds since the Unix epoch when the run finished.
    pub unix_time: u64,
}

impl Environment {
    /// Describes this machine and the git tree at `workspace`, now.
    pub fn capture(workspace: &Path) -> Environment {
        Environment::from(&Machine::probe(workspace))
    }

    /// `abc1234` or `abc1234+dirty`.
    pub fn revision(&self) -> String {
        if self.git_dirty {
            format!("{}+dirty", self.git_rev)
        } else {
            self.git_rev.clone()
        }
    }

    /// One line: `AMD EPYC, 2 cores, rustc 1.95.0, Linux 6.1, rev abc1234`.
    pub fn one_line(&self) -> String {
        format!(
            "{}, {} cores, {}, {}, rev {}",
            self.cpu,
            self.cores,
            self.rustc,
            self.os,
            self.revision()
        )
    }
}

impl From<&Machine> for Environment {
    fn from(m: &Machine) -> Environment {
        Environment {
            cpu: m.cpu.clone(),
            cores: m.cores,
            rustc: m.rustc.clone(),
            git_rev: m
                .git
                .as_ref()
                .map_or_else(|| UNKNOWN.into(), |r| r.short.clone()),
            git_dirty: m.git.as_ref().is_some_and(|r| r.dirty),
            os: m.os.clone(),
            host: m.host.clone().unwrap_or_else(|| UNKNOWN.into()),
            unix_time: m.unix_time(),
        }
    }
}

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
    /// The benchmark this one is also judged against as a ratio of medians
    /// (e.g. the process floor `process/floor/hello-world`); absent in
    /// files written before ratios existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_to: Option<String>,
    /// Peak resident set size of the measured process (KiB, the median of
    /// a few untimed runs); whole-process benchmarks only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_kib: Option<u64>,
}

impl BenchResult {
    /// Builds a result from per-iteration sample times.
    pub fn from_samples(samples_ns: Vec<f64>, floor_ns: Option<f64>) -> BenchResult {
        let median_ns = stats::median(&samples_ns);
        let mean_ns = stats::mean(&samples_ns);
        BenchResult {
            samples_ns,
            median_ns,
            mean_ns,
            mean_ci_ns: [mean_ns, mean_ns],
            floor_ns,
            clock: None,
            ratio_to: None,
            peak_rss_kib: None,
        }
    }

    /// The latency floor the gate subtracts (ns; never negative, 0 when none).
    pub fn floor(&self) -> f64 {
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
        let r: Results = super::read_json(path)?;
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn committed_baselines_load_and_round_trip() {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let main = load_baseline(&workspace, "main").unwrap_or_else(|e| panic!("{e}"));
        assert!(!main.benchmarks.is_empty() && !main.instructions.is_empty());
        let dir = workspace.join("benches/baselines");
        let files = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for path in files.flatten().map(|e| e.path()) {
            if path.extension().is_none_or(|x| x != "json") {
                continue;
            }
            let r = Results::load(&path).unwrap_or_else(|e| panic!("{e}"));
            let text = serde_json::to_string(&r).unwrap_or_default();
            let back: Results = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(back, r, "{}", path.display());
        }
    }
}
