//! What a benchmark's samples mean beyond criterion's own files (its latency
//! floor, its clock, the machine's load), passed from the bench binary to
//! `bench-gate` through a JSON file named by [`FLOORS_ENV`].

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

/// Environment variable naming the JSON file where benchmarks record what
/// their samples mean (`{"<id>": {"floor_ns": …, "clock": …}}`, see
/// [`BenchMeta`]); set by `bench-gate`.
pub const FLOORS_ENV: &str = "SKY_BENCH_META";

/// Key of the whole-run entry in the metadata file.
pub const RUN_KEY: &str = "__run__";

/// What a benchmark's samples mean, beyond criterion's own files.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct BenchMeta {
    /// Mocked latency on the critical path (ns); judged on time − floor.
    pub floor_ns: Option<f64>,
    /// `wall` (default) or `thread-cpu` ([`crate::clock::ThreadCpuTime`]).
    pub clock: Option<String>,
    /// For the [`RUN_KEY`] entry: CPU used by *other* processes during the
    /// run, in cores (see [`crate::clock::Contention`]).
    pub foreign_cores: Option<f64>,
    /// The benchmark this one is also judged against as a ratio of medians.
    pub ratio_to: Option<String>,
    /// Peak RSS of the measured process (KiB).
    pub peak_rss_kib: Option<u64>,
}

impl BenchMeta {
    /// `self` with every field `other` sets replaced.
    fn merged(self, other: BenchMeta) -> BenchMeta {
        BenchMeta {
            floor_ns: other.floor_ns.or(self.floor_ns),
            clock: other.clock.or(self.clock),
            foreign_cores: other.foreign_cores.or(self.foreign_cores),
            ratio_to: other.ratio_to.or(self.ratio_to),
            peak_rss_kib: other.peak_rss_kib.or(self.peak_rss_kib),
        }
    }
}

/// Merges `meta` into `id`'s entry of the file named by [`FLOORS_ENV`], if
/// set (fields `meta` leaves unset keep what was recorded before).
pub fn record_meta(id: &str, meta: BenchMeta) -> anyhow::Result<()> {
    let Some(path) = std::env::var_os(FLOORS_ENV).map(PathBuf::from) else {
        return Ok(());
    };
    let mut all: BTreeMap<String, BenchMeta> = match std::fs::read(&path) {
        Ok(bytes) => {
            serde_json::from_slice(&bytes).with_context(|| format!("parsing {}", path.display()))?
        }
        Err(_) => BTreeMap::new(),
    };
    let entry = all.remove(id).unwrap_or_default().merged(meta);
    all.insert(id.to_string(), entry);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    std::fs::write(&path, serde_json::to_vec_pretty(&all)?)
        .with_context(|| format!("writing {}", path.display()))
}

/// Records a launch benchmark's latency floor (wall clock).
pub fn record_floor(id: &str, floor: Duration) -> anyhow::Result<()> {
    record_meta(
        id,
        BenchMeta {
            floor_ns: Some(floor.as_nanos() as f64),
            ..Default::default()
        },
    )
}

/// Records that `id` is also judged as a ratio to `reference`'s median.
pub fn record_ratio_to(id: &str, reference: &str) -> anyhow::Result<()> {
    record_meta(
        id,
        BenchMeta {
            ratio_to: Some(reference.to_string()),
            ..Default::default()
        },
    )
}

/// Records the peak RSS (KiB) of `id`'s process.
pub fn record_peak_rss(id: &str, kib: u64) -> anyhow::Result<()> {
    record_meta(
        id,
        BenchMeta {
            peak_rss_kib: Some(kib),
            ..Default::default()
        },
    )
}

/// Records that `id` is measured in thread CPU time.
pub fn record_cpu_clock(id: &str) -> anyhow::Result<()> {
    record_meta(
        id,
        BenchMeta {
            clock: Some("thread-cpu".into()),
            ..Default::default()
        },
    )
}
