//! Whole in-process launches as benchmarks. A configuration is a harness
//! [`Scenario`] ([`LatencyModel::scenario_text`]) set up through
//! [`harness::in_process`] and [`Sandbox`] exactly like `harness run
//! --engine in-process` sets up its launches, and its latency floor is the
//! harness's [`floor`] model on the mocks' recordings, so the bench report
//! and a harness report of the same scenario quote the same floor.

use std::time::Duration;

use anyhow::{Context, bail};
use harness::floor::{Deadlines, floor};
use harness::in_process;
use harness::sandbox::Sandbox;
use harness::scenario::Scenario;
use mocks::MockSet;
use optimizer::launch::{LaunchOptions, Request};
use planner::cloud::CloudId;
use planner::launch::LaunchResult;

/// Mock latencies a launch benchmark runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LatencyModel {
    /// Every upstream answers at once: the launch's own overhead.
    Zero,
    /// The `seed-7-clouds` latencies: STS 1000 ms, Kubernetes 50 ms per request.
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

    /// The configuration as a `harness.toml`: the seed-7-clouds cloud set
    /// (only AWS and Kubernetes have credentials), `--gpus H100:8`, STS and
    /// one Kubernetes context with 4 H100×8 nodes. `harness run` accepts the
    /// same text.
    pub fn scenario_text(self) -> String {
        let (sts_ms, kube_ms) = match self {
            LatencyModel::Zero => (0, 0),
            LatencyModel::Seed7 => (1000, 50),
        };
        let description = format!(
            "criterion launch benchmark, {}: --gpus H100:8, STS {sts_ms} ms, Kubernetes {kube_ms} ms per request",
            self.name()
        );
        seed7_scenario_text(&description, sts_ms, kube_ms)
    }

    /// The configuration, parsed and checked like a scenario file.
    pub fn scenario(self) -> anyhow::Result<Scenario> {
        let name = format!("bench-{}", self.name());
        let path = format!("benches/launch/{name}/harness.toml");
        Scenario::parse(&name, path.as_ref(), &self.scenario_text())
            .with_context(|| format!("the {} launch configuration", self.name()))
    }
}

/// A `harness.toml` with the seed-7-clouds cloud set (only AWS and
/// Kubernetes have credentials), `--gpus H100:8`, an STS mock answering after
/// `sts_ms` and one Kubernetes context (4 H100×8 nodes) whose version, node
/// and pod lists answer after `kube_ms`. Shared by the in-process launch
/// benchmarks and the whole-process ones, so both measure the same scenario.
pub fn seed7_scenario_text(description: &str, sts_ms: u64, kube_ms: u64) -> String {
    let lat = |ms: u64| format!("{{ latency = {{ kind = \"fixed\", ms = {ms} }} }}");
    format!(
        r#"description = "{description}"
clouds = ["aws", "azure", "cudo", "gcp", "kubernetes", "paperspace", "runpod"]
fake_credentials = ["aws", "kubernetes"]

[request]
gpus = "H100:8"

[mocks]
seed = 7
sts.get_caller_identity = {sts}

[mocks.kube]
contexts = 1
version = {kube}
nodes = {kube}
pods = {kube}
node_pools = [{{ count = 4, gpu = {{ accelerator = "H100", count = 8, label = "gfd" }} }}]
"#,
        sts = lat(sts_ms),
        kube = lat(kube_ms),
    )
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
/// against running mocks, in a private sandbox (home, state directory,
/// kubeconfig).
pub struct LaunchBench {
    /// The options passed to [`optimizer::launch::run`].
    pub options: LaunchOptions,
    /// The request (`--gpus H100:8`).
    pub request: Request,
    /// The mocked latency on the critical path of one launch (see [`LaunchBench::start`]).
    pub floor: Duration,
    mocks: MockSet,
    _sandbox: Sandbox,
}

impl LaunchBench {
    /// Starts the mocks, builds the sandbox and the options `sky` would use,
    /// warms the cache when asked, then runs one launch and takes its latency
    /// floor from what the mocks recorded ([`harness::floor`]: lanes of
    /// requests per cloud, summed over clouds when serial, the slowest cloud
    /// when concurrent). Fails when the launch does not produce a plan or
    /// does not hit the upstreams the configuration implies (so a bench
    /// never silently measures the wrong thing).
    pub async fn start(
        model: LatencyModel,
        cache: Cache,
        fanout: Fanout,
    ) -> anyhow::Result<LaunchBench> {
        let scenario = model.scenario()?;
        let mocks = MockSet::start(&scenario.file.mocks)
            .await
            .context("starting the mocks")?;
        let sandbox = Sandbox::new(&scenario).context("creating the sandbox")?;
        let serial = fanout == Fanout::Serial;
        let env = sandbox
            .mode_env(&scenario, &mocks, "bench", serial)
            .context("preparing the launch environment")?;
        let options =
            in_process::launch_options(&scenario, &env, false, serial).context("launch options")?;
        let mut bench = LaunchBench {
            options,
            request: in_process::request(&scenario),
            floor: Duration::ZERO,
            mocks,
            _sandbox: sandbox,
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
        let recordings = bench.mocks.recordings();
        let sts_calls: usize = recordings
            .iter()
            .filter(|r| r.endpoint == "sts")
            .map(|r| r.count())
            .sum();
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
        bench.floor = floor(&recordings, serial, &Deadlines::for_scenario(&scenario)).total;
        Ok(bench)
    }

    /// One launch.
    pub async fn run_once(&self) -> anyhow::Result<LaunchResult> {
        optimizer::launch::run(&self.options, &self.request)
            .await
            .context("launch failed")
    }
}

/// The multi-thread runtime the launch benchmarks run on (2 workers, as `sky`).
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    in_process::runtime_builder()
        .build()
        .context("building the tokio runtime")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configurations_are_valid_scenarios() {
        for model in LatencyModel::ALL {
            let s = model.scenario().unwrap_or_else(|e| panic!("{e:#}"));
            assert_eq!(s.clouds.len(), 7, "{}", model.name());
            assert_eq!(s.fake_credentials, [CloudId::Aws, CloudId::Kubernetes]);
            assert_eq!(s.file.request.gpus.as_deref(), Some("H100:8"));
            assert!(s.file.mocks.sts.is_some() && s.file.mocks.kube.is_some());
        }
    }
}
