//! Shared setup for the criterion benchmarks (`benches/benches/main.rs`), the
//! instruction counter (`bench-ops`) and the regression gate (`bench-gate`).
//!
//! * [`ops`]: the CPU-bound operations (catalog load, feasibility, optimize,
//!   table rendering), named exactly like their criterion benchmarks so that
//!   wall-clock times and instruction counts line up;
//! * [`LaunchBench`]: one whole in-process launch (`optimizer::launch::run`)
//!   against wiremock upstreams at a [`LatencyModel`], with its latency floor
//!   measured from the mocks' own request logs;
//! * [`clock`]: thread CPU time as a criterion measurement;
//! * [`flame`]: the criterion [`Profiler`](criterion::profiler::Profiler)
//!   (pprof → inferno) that runs only under `--profile-time`;
//! * [`gate`]: portable baselines, the noise-aware comparison and the summary;
//! * [`env_info`]: the machine and revision a result came from.

pub mod clock;
pub mod env_info;
pub mod flame;
pub mod gate;
pub mod ops;
pub mod report;
pub mod runner;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use mocks::{MockSet, MocksSpec};
use optimizer::clouds::EnvMap;
use optimizer::launch::{LaunchOptions, Request};
use planner::cloud::CloudId;
use planner::launch::LaunchResult;
use tempfile::TempDir;

/// Environment variable naming the JSON file where benchmarks record what
/// their samples mean (`{"<id>": {"floor_ns": …, "clock": …}}`, see
/// [`BenchMeta`]); set by `bench-gate`.
pub const FLOORS_ENV: &str = "SKY_BENCH_META";

/// The seven clouds with CSV catalogs, in SkyPilot's enumeration order.
pub const CATALOG_CLOUDS: [CloudId; 7] = [
    CloudId::Aws,
    CloudId::Gcp,
    CloudId::Azure,
    CloudId::Lambda,
    CloudId::Runpod,
    CloudId::Paperspace,
    CloudId::Cudo,
];

/// `SKY_ENABLED_CLOUDS` of the `seed-7-clouds` scenario.
pub const SEED7_CLOUDS: &str = "aws,azure,cudo,gcp,kubernetes,paperspace,runpod";

/// `SKY_ENABLED_CLOUDS` with every catalog cloud (whole-process measurements).
pub const ALL_CATALOG_CLOUDS: &str = "aws,gcp,azure,lambda,runpod,paperspace,cudo";

/// The workspace's `fixtures/` folder.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

/// Mock latencies a launch benchmark runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LatencyModel {
    /// Every upstream answers at once: the launch's own overhead.
    Zero,
    /// The `seed-7-clouds` scenario: STS 1000 ms, Kubernetes 50 ms per request.
    Seed7,
}

impl LatencyModel {
    /// Both models.
    pub const ALL: [LatencyModel; 2] = [LatencyModel::Zero, LatencyModel::Seed7];

    /// Benchmark parameter name.
    pub fn name(self) -> &'static str {
        match self {
            LatencyModel::Zero => "latency-0",
            LatencyModel::Seed7 => "seed-7-clouds",
        }
    }

    /// The upstreams: STS and one Kubernetes context with 4 H100×8 nodes.
    pub fn spec(self) -> anyhow::Result<MocksSpec> {
        let (sts_ms, kube_ms) = match self {
            LatencyModel::Zero => (0, 0),
            LatencyModel::Seed7 => (1000, 50),
        };
        let lat = |ms: u64| serde_json::json!({ "latency": { "kind": "fixed", "ms": ms } });
        let spec = serde_json::json!({
            "seed": 7,
            "sts": { "get_caller_identity": lat(sts_ms) },
            "kube": {
                "contexts": 1,
                "version": lat(kube_ms),
                "nodes": lat(kube_ms),
                "pods": lat(kube_ms),
                "node_pools": [{ "count": 4, "gpu": { "accelerator": "H100", "count": 8, "label": "gfd" } }],
            },
        });
        serde_json::from_value(spec).context("building the mocks spec")
    }
}

/// Whether the identity cache is bypassed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cache {
    /// `--refresh`: every check goes upstream.
    Cold,
    /// The state directory holds a fresh identity from a previous launch.
    Warm,
}

impl Cache {
    /// Benchmark name part.
    pub fn name(self) -> &'static str {
        match self {
            Cache::Cold => "cold",
            Cache::Warm => "warm",
        }
    }
}

/// How the per-cloud checks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fanout {
    /// One cloud after another (SkyPilot before its thread pool).
    Serial,
    /// All clouds at once.
    Concurrent,
}

impl Fanout {
    /// Benchmark name part.
    pub fn name(self) -> &'static str {
        match self {
            Fanout::Serial => "serial",
            Fanout::Concurrent => "concurrent",
        }
    }
}

/// One launch configuration: `sky launch --dryrun --gpus H100:8` in process,
/// against running mocks, with a private home and state directory.
pub struct LaunchBench {
    /// The options passed to [`optimizer::launch::run`].
    pub options: LaunchOptions,
    /// The request (`--gpus H100:8`).
    pub request: Request,
    /// The mocked latency on the critical path of one launch (see [`LaunchBench::start`]).
    pub floor: Duration,
    mocks: MockSet,
    _dir: TempDir,
}

impl LaunchBench {
    /// Starts the mocks, writes the kubeconfig, warms the cache when asked,
    /// then runs one launch and derives the latency floor from what the mocks
    /// recorded: per cloud the sum of the delays its requests were given; the
    /// floor is the sum over clouds when serial, the largest cloud when
    /// concurrent. Fails when the launch does not produce a plan or does not
    /// hit the upstreams the configuration implies (so a bench never silently
    /// measures the wrong thing).
    pub async fn start(
        model: LatencyModel,
        cache: Cache,
        fanout: Fanout,
    ) -> anyhow::Result<LaunchBench> {
        let mocks = MockSet::start(&model.spec()?)
            .await
            .context("starting the mocks")?;
        let dir = tempfile::Builder::new()
            .prefix("sky-bench-")
            .tempdir()
            .context("creating a temp dir")?;
        let kubeconfig = mocks
            .write_kubeconfig(dir.path())
            .context("writing the kubeconfig")?;
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).with_context(|| format!("creating {}", home.display()))?;
        let mut env: EnvMap = mocks
            .env()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        env.insert("KUBECONFIG".into(), kubeconfig.display().to_string());
        env.insert("SKY_ENABLED_CLOUDS".into(), SEED7_CLOUDS.into());
        env.insert(
            "SKY_STATE_DIR".into(),
            dir.path().join("state").display().to_string(),
        );
        let mut options = LaunchOptions::from_env(env, home).context("launch options")?;
        options.fanout.serial = fanout == Fanout::Serial;
        options.aws.endpoint_url = mocks.sts.as_ref().map(|s| s.uri());
        options.kubernetes.kubeconfig = Some(kubeconfig);
        let request = Request {
            entrypoint: Vec::new(),
            overrides: planner::task::Overrides {
                gpus: Some("H100:8".into()),
                ..Default::default()
            },
        };
        let mut bench = LaunchBench {
            options,
            request,
            floor: Duration::ZERO,
            mocks,
            _dir: dir,
        };
        if cache == Cache::Warm {
            bench.run_once().await.context("warming the cache")?;
        }
        bench.options.refresh = cache == Cache::Cold;
        bench.mocks.clear();
        let result = bench.run_once().await?;
        if let Err(e) = &result.optimized.result {
            bail!("the benchmark launch did not produce a plan: {}", e.message);
        }
        let mut per_cloud: BTreeMap<&'static str, Duration> = BTreeMap::new();
        let mut sts_calls = 0;
        for rec in bench.mocks.recordings() {
            let cloud = if rec.endpoint.starts_with("kube/") {
                "kubernetes"
            } else {
                "aws"
            };
            if rec.endpoint == "sts" {
                sts_calls += rec.count();
            }
            *per_cloud.entry(cloud).or_default() +=
                rec.requests.iter().map(|r| r.delay).sum::<Duration>();
        }
        match (cache, sts_calls) {
            (Cache::Cold, 0) => {
                bail!("a cold launch made no STS call: the AWS check is not reaching the mock")
            }
            (Cache::Warm, n) if n > 0 => {
                bail!("a warm launch made {n} STS call(s): the identity cache is not used")
            }
            _ => {}
        }
        let enabled = &result.prepared.world.enabled;
        if !enabled.contains(&CloudId::Aws) || !enabled.contains(&CloudId::Kubernetes) {
            bail!(
                "AWS and Kubernetes must both be enabled, got {enabled:?} (excluded: {:?})",
                result.prepared.excluded
            );
        }
        bench.floor = match fanout {
            Fanout::Serial => per_cloud.values().sum(),
            Fanout::Concurrent => per_cloud.values().copied().max().unwrap_or_default(),
        };
        Ok(bench)
    }

    /// One launch.
    pub async fn run_once(&self) -> anyhow::Result<LaunchResult> {
        optimizer::launch::run(&self.options, &self.request)
            .await
            .context("launch failed")
    }
}

/// What a benchmark's samples mean, beyond criterion's own files.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct BenchMeta {
    /// Mocked latency on the critical path (ns); judged on time − floor.
    pub floor_ns: Option<f64>,
    /// `wall` (default) or `thread-cpu` ([`clock::ThreadCpuTime`]).
    pub clock: Option<String>,
    /// For the [`RUN_KEY`] entry: CPU used by *other* processes during the
    /// run, in cores (see [`clock::Contention`]).
    pub foreign_cores: Option<f64>,
}

/// Key of the whole-run entry in the metadata file.
pub const RUN_KEY: &str = "__run__";

/// Adds `id → meta` to the file named by [`FLOORS_ENV`], if set.
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
    all.insert(id.to_string(), meta);
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

/// The multi-thread runtime the launch benchmarks run on (2 workers, as `sky`).
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("building the tokio runtime")
}
