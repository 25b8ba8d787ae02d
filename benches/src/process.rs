//! Whole-process launches as benchmarks: the release `sky` binary, started
//! as a child process per iteration exactly as `harness run` starts it
//! ([`ProcessLauncher`]: its arguments, an empty environment plus the
//! sandbox's [`ModeEnv`]), against mocks. Process start-up, argument
//! parsing, state-folder I/O and catalog images are all inside the time,
//! which the in-process `launch/*` group cannot see.
//!
//! Each row ([`ProcessConfig`]) is a harness [`Scenario`] text, and its
//! latency floor is the harness's [`floor`] model on what the mocks recorded
//! during one verification launch, as for the in-process group.
//!
//! | id | per iteration (untimed) | what it shows |
//! |---|---|---|
//! | `process/warm/7-clouds` | nothing | a launch as users repeat it: identity cached, catalog images current |
//! | `process/warm/25-clouds` | nothing | the same with every cloud `sky` knows declared |
//! | `process/first-launch/one-catalog-changed` | bump `aws/vms.csv`'s mtime | one catalog re-parsed (a refreshed download) |
//! | `process/first-launch/all-7-changed` | delete `catalog-index/` | every catalog parsed, identity still cached |
//! | `process/cold-identity/sts-1000ms` | nothing (`--refresh`) | identity checked upstream, judged above the 1 s floor |
//! | `process/kubernetes/64-contexts-50ms` | nothing (`--refresh`) | 64 contexts listed concurrently, judged above the floor |
//!
//! In `25-clouds` every cloud of [`CloudId::ALL`] is in the scenario's
//! `clouds` (declared through `SKY_ENABLED_CLOUDS`), but the harness sandbox
//! can give fake credentials only to AWS (keys, STS mock), Kubernetes
//! (kubeconfig, kube mock) and the six file-based clouds of
//! [`harness::sandbox::CREDENTIAL_FILES`]; the other 17 run on being
//! declared, with no credential file, their catalogs bundled.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, bail, ensure};
use harness::HarnessError;
use harness::engine::{LaunchOutput, Launcher, Mode, ModeSetup, ProcessLauncher, sky_path};
use harness::floor::{Deadlines, floor};
use harness::sandbox::Sandbox;
use harness::scenario::Scenario;
use mocks::{MockSet, Recording};
use planner::cloud::CloudId;

use crate::launch::seed7_scenario_text;

/// The command that builds the binary these benchmarks run.
pub const BUILD_SKY: &str = "cargo build --release -p optimizer --bin sky";

/// One row of the `process` group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessConfig {
    /// `process/warm/7-clouds`: the seven catalog clouds, bundled catalogs,
    /// identity and catalog images from an earlier launch.
    Warm7,
    /// `process/warm/25-clouds`: every cloud declared, one Kubernetes context.
    Warm25,
    /// `process/first-launch/one-catalog-changed`: the seven clouds from a
    /// catalog folder whose `aws/vms.csv` changes before every launch.
    OneCatalogChanged,
    /// `process/first-launch/all-7-changed`: the seven clouds, bundled, with
    /// no catalog image left before every launch.
    All7Changed,
    /// `process/cold-identity/sts-1000ms`: the seed-7-clouds cloud set,
    /// `--refresh`, STS answering after 1 s.
    ColdIdentity,
    /// `process/kubernetes/64-contexts-50ms`: Kubernetes alone, 64 contexts,
    /// `--refresh`, each request answered after 50 ms.
    Kube64,
}

impl ProcessConfig {
    /// Every row, in report order.
    pub const ALL: [ProcessConfig; 6] = [
        ProcessConfig::Warm7,
        ProcessConfig::Warm25,
        ProcessConfig::OneCatalogChanged,
        ProcessConfig::All7Changed,
        ProcessConfig::ColdIdentity,
        ProcessConfig::Kube64,
    ];

    /// criterion function name (the id's middle part).
    pub fn function(self) -> &'static str {
        match self {
            ProcessConfig::Warm7 | ProcessConfig::Warm25 => "warm",
            ProcessConfig::OneCatalogChanged | ProcessConfig::All7Changed => "first-launch",
            ProcessConfig::ColdIdentity => "cold-identity",
            ProcessConfig::Kube64 => "kubernetes",
        }
    }

    /// criterion parameter (the id's last part).
    pub fn parameter(self) -> &'static str {
        match self {
            ProcessConfig::Warm7 => "7-clouds",
            ProcessConfig::Warm25 => "25-clouds",
            ProcessConfig::OneCatalogChanged => "one-catalog-changed",
            ProcessConfig::All7Changed => "all-7-changed",
            ProcessConfig::ColdIdentity => "sts-1000ms",
            ProcessConfig::Kube64 => "64-contexts-50ms",
        }
    }

    /// The full benchmark id, `process/<function>/<parameter>`.
    pub fn id(self) -> String {
        format!("process/{}/{}", self.function(), self.parameter())
    }

    /// The harness mode the launches run in: [`Mode::Concurrent`] passes
    /// `--refresh` (every check upstream), [`Mode::Warm`] does not.
    pub fn mode(self) -> Mode {
        match self {
            ProcessConfig::ColdIdentity | ProcessConfig::Kube64 => Mode::Concurrent,
            _ => Mode::Warm,
        }
    }

    /// The row as a `harness.toml` (`harness run` accepts the same text;
    /// [`ProcessConfig::Kube64`]'s is `fixtures/scenarios/64-contexts-50ms`).
    /// The first-launch row's catalog folder is not in the text: it is a
    /// temporary copy made at setup.
    pub fn scenario_text(self) -> String {
        let id = self.id();
        match self {
            ProcessConfig::Warm7
            | ProcessConfig::OneCatalogChanged
            | ProcessConfig::All7Changed => seven_clouds_text(&id),
            ProcessConfig::Warm25 => all_clouds_text(&id),
            ProcessConfig::ColdIdentity => seed7_scenario_text(
                &format!(
                    "criterion process benchmark, {id}: --gpus H100:8, --refresh, STS 1000 ms, Kubernetes 0 ms"
                ),
                1000,
                0,
            ),
            ProcessConfig::Kube64 => kube64_text(),
        }
    }

    /// The row, parsed and checked like a scenario file.
    pub fn scenario(self) -> anyhow::Result<Scenario> {
        let name = format!("bench-{}-{}", self.function(), self.parameter());
        let path = format!("benches/process/{name}/harness.toml");
        Scenario::parse(&name, path.as_ref(), &self.scenario_text())
            .with_context(|| format!("the {} configuration", self.id()))
    }
}

/// `{ latency = { kind = "fixed", ms = N } }`.
fn fixed(ms: u64) -> String {
    format!("{{ latency = {{ kind = \"fixed\", ms = {ms} }} }}")
}

/// The seven catalog clouds, all with fake credentials, STS at 0 ms.
fn seven_clouds_text(id: &str) -> String {
    let clouds = crate::CATALOG_CLOUDS.map(|c| format!("\"{}\"", c.name()));
    format!(
        r#"description = "criterion process benchmark, {id}: --gpus H100:8, the 7 catalog clouds, STS 0 ms"
clouds = [{clouds}]

[request]
gpus = "H100:8"

[mocks]
sts.get_caller_identity = {sts}
"#,
        clouds = clouds.join(", "),
        sts = fixed(0),
    )
}

/// The clouds the harness sandbox can give fake credentials.
const CREDENTIALED: [&str; 8] = [
    "aws",
    "gcp",
    "azure",
    "lambda",
    "runpod",
    "paperspace",
    "cudo",
    "kubernetes",
];

/// Every cloud of [`CloudId::ALL`] declared; credentials where the sandbox
/// has them; one Kubernetes context (4 H100×8 nodes) at 0 ms.
fn all_clouds_text(id: &str) -> String {
    let quote = |names: &mut dyn Iterator<Item = &str>| {
        names
            .map(|n| format!("\"{n}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        r#"description = "criterion process benchmark, {id}: --gpus H100:8, all 25 clouds declared, STS and Kubernetes 0 ms"
clouds = [{clouds}]
fake_credentials = [{credentialed}]

[request]
gpus = "H100:8"

[mocks]
sts.get_caller_identity = {zero}

[mocks.kube]
contexts = 1
version = {zero}
nodes = {zero}
pods = {zero}
node_pools = [{{ count = 4, gpu = {{ accelerator = "H100", count = 8, label = "gfd" }} }}]
"#,
        clouds = quote(&mut CloudId::ALL.iter().map(|c| c.name())),
        credentialed = quote(&mut CREDENTIALED.into_iter()),
        zero = fixed(0),
    )
}

/// 64 allowed contexts whose version, node and pod lists answer after 50 ms.
fn kube64_text() -> String {
    format!(
        r#"# 64 Kubernetes contexts, all allowed, every request answered after a fixed
# 50 ms: the whole-process criterion row process/kubernetes/64-contexts-50ms
# (benches/src/process.rs builds the same text; a test keeps them equal).
description = "64 Kubernetes contexts (all allowed), version, node and pod lists fixed 50 ms, 4 H100x8 nodes each; --gpus H100:8"
clouds = ["kubernetes"]
sky_config = """
kubernetes:
  allowed_contexts: all
"""
notes = [
    "Contexts are listed concurrently inside the Kubernetes check, so the floor is one context's lane of requests, not 64 of them.",
    "Nodes have 192 CPUs and 1024 GiB so that an H100:8 pod fits (the mock's default 8 CPUs / 32 GiB do not).",
]

[request]
gpus = "H100:8"

[mocks]
seed = 64

[mocks.kube]
contexts = 64
version = {lat}
nodes = {lat}
pods = {lat}
node_pools = [{{ count = 4, cpu = "192", memory = "1024Gi", gpu = {{ accelerator = "H100", count = 8, label = "gfd" }} }}]
"#,
        lat = fixed(50),
    )
}

/// The release `sky` next to the running bench executable, or an error
/// saying how to build it.
pub fn release_sky() -> anyhow::Result<PathBuf> {
    match sky_path() {
        Ok(p) => Ok(p),
        Err(HarnessError::SkyMissing { path, .. }) => bail!(
            "the release `sky` binary is missing at {}: run `{BUILD_SKY}` first \
             (`bench-gate` builds it before the suite)",
            path.display()
        ),
        Err(e) => Err(e.into()),
    }
}

/// One whole-process row, set up: mocks running, sandbox, warm-up done,
/// verified, floor measured.
pub struct ProcessBench {
    /// The row.
    pub config: ProcessConfig,
    /// The mocked latency on the critical path of one launch.
    pub floor: Duration,
    launcher: ProcessLauncher,
    setup: ModeSetup<'static>,
    // Dropped after `setup` (fields drop in order): the sandbox holds the
    // state directory and kubeconfig the environment points at.
    _sandbox: Sandbox,
    _catalogs: Option<tempfile::TempDir>,
}

impl ProcessBench {
    /// Starts the mocks (on `rt`, which must outlive the bench), builds the
    /// sandbox, warms the identity cache and catalog images with one launch,
    /// then makes one verification launch (after [`ProcessBench::prepare`],
    /// like every measured one) and fails unless it did what the row claims.
    pub fn start(config: ProcessConfig, rt: &tokio::runtime::Runtime) -> anyhow::Result<Self> {
        let launcher = ProcessLauncher::new(release_sky()?);
        let mut scenario = config.scenario()?;
        let catalogs = if config == ProcessConfig::OneCatalogChanged {
            let dir = tempfile::Builder::new()
                .prefix("bench-catalogs-")
                .tempdir()
                .context("creating the catalog folder")?;
            copy_dir(&mocks::fixtures_dir().join("catalogs"), dir.path())?;
            // `ProcessLauncher::args` passes it as `--catalog-dir`.
            scenario.catalog_dir = Some(dir.path().to_path_buf());
            Some(dir)
        } else {
            None
        };
        let mocks = rt
            .block_on(MockSet::start(&scenario.file.mocks))
            .context("starting the mocks")?;
        let sandbox = Sandbox::new(&scenario).context("creating the sandbox")?;
        let env = sandbox
            .mode_env(&scenario, &mocks, "bench", false)
            .context("preparing the launch environment")?;
        let mut bench = ProcessBench {
            config,
            floor: Duration::ZERO,
            launcher,
            setup: ModeSetup {
                mode: config.mode(),
                // `ModeSetup` borrows its scenario; a bench lives until the
                // bench process ends, so the few KiB are never reclaimed anyway.
                scenario: Box::leak(Box::new(scenario)),
                env,
                mocks,
            },
            _sandbox: sandbox,
            _catalogs: catalogs,
        };
        bench.launch_once().context("the warm-up launch")?;
        let images_before = bench.images()?;
        bench.prepare()?;
        bench.setup.mocks.clear();
        let out = bench.launch_once().context("the verification launch")?;
        let recordings = bench.setup.mocks.recordings();
        bench.verify(&out, &recordings, &images_before)?;
        bench.floor = floor(
            &recordings,
            false,
            &Deadlines::for_scenario(bench.setup.scenario),
        )
        .total;
        Ok(bench)
    }

    /// The untimed step before each launch: make the catalog image stale
    /// (one row) or remove every image (another); nothing for the others.
    pub fn prepare(&self) -> anyhow::Result<()> {
        match self.config {
            ProcessConfig::OneCatalogChanged => {
                let dir = self
                    .setup
                    .scenario
                    .catalog_dir
                    .as_deref()
                    .context("no catalog folder")?;
                let csv = dir.join("aws/vms.csv");
                // The image fingerprint holds size, mtime, ctime and inode:
                // a new mtime (which also moves ctime) makes it stale.
                std::fs::File::options()
                    .write(true)
                    .open(&csv)
                    .and_then(|f| f.set_modified(SystemTime::now()))
                    .with_context(|| format!("touching {}", csv.display()))
            }
            ProcessConfig::All7Changed => match std::fs::remove_dir_all(self.index_dir()) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    Err(e).with_context(|| format!("removing {}", self.index_dir().display()))
                }
                _ => Ok(()),
            },
            _ => Ok(()),
        }
    }

    /// One launch; fails unless `sky` exits 0.
    pub fn launch_once(&mut self) -> anyhow::Result<LaunchOutput> {
        let out = self.launcher.launch(&self.setup)?;
        ensure!(
            out.exit_code == 0,
            "`sky` exited {}; stdout:\n{}",
            out.exit_code,
            out.stdout
        );
        Ok(out)
    }

    /// [`ProcessBench::prepare`] untimed, then one timed launch.
    pub fn timed_launch(&mut self) -> anyhow::Result<Duration> {
        self.prepare()?;
        let started = Instant::now();
        let out = self.launcher.launch(&self.setup);
        let wall = started.elapsed();
        let out = out?;
        ensure!(out.exit_code == 0, "`sky` exited {}", out.exit_code);
        Ok(wall)
    }

    /// `<state>/catalog-index`.
    fn index_dir(&self) -> PathBuf {
        self.setup.env.state_dir.join("catalog-index")
    }

    /// The names of the stored catalog images.
    fn images(&self) -> anyhow::Result<BTreeSet<String>> {
        let dir = self.index_dir();
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeSet::new()),
            Err(e) => return Err(e).with_context(|| format!("reading {}", dir.display())),
        };
        Ok(entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".idx"))
            .collect())
    }

    /// Checks that the verification launch measured what the row claims.
    fn verify(
        &self,
        out: &LaunchOutput,
        recordings: &[Recording],
        images_before: &BTreeSet<String>,
    ) -> anyhow::Result<()> {
        let id = self.config.id();
        ensure!(
            out.stdout.contains("Considered resources"),
            "{id}: the launch printed no table; stdout:\n{}",
            out.stdout
        );
        let hits = |prefix: &str| -> usize {
            recordings
                .iter()
                .filter(|r| r.endpoint.starts_with(prefix))
                .map(|r| r.count())
                .sum()
        };
        let sts = hits("sts");
        match self.setup.mode {
            Mode::Warm => ensure!(
                sts == 0,
                "{id}: a warm launch made {sts} STS request(s): the identity cache is not used"
            ),
            _ if self.setup.scenario.file.mocks.sts.is_some() => ensure!(
                sts > 0,
                "{id}: a --refresh launch made no STS request: the AWS check is not reaching the mock"
            ),
            _ => {}
        }
        let images_after = self.images()?;
        match self.config {
            ProcessConfig::OneCatalogChanged => {
                let gone: Vec<_> = images_before.difference(&images_after).collect();
                let made: Vec<_> = images_after.difference(images_before).collect();
                ensure!(
                    gone.len() == 1 && made.len() == 1,
                    "{id}: touching aws/vms.csv should replace exactly one catalog image, \
                     but {gone:?} went and {made:?} came (in {})",
                    self.index_dir().display()
                );
            }
            ProcessConfig::All7Changed => ensure!(
                images_after.len() >= crate::CATALOG_CLOUDS.len(),
                "{id}: after deleting catalog-index the launch stored {} image(s), expected one per catalog cloud (7)",
                images_after.len()
            ),
            ProcessConfig::Kube64 => {
                let contexts = recordings
                    .iter()
                    .filter(|r| r.endpoint.starts_with("kube/") && r.endpoint.ends_with("/nodes"))
                    .filter(|r| r.count() > 0)
                    .count();
                ensure!(
                    contexts == 64,
                    "{id}: the launch listed the nodes of {contexts} context(s), expected 64"
                );
            }
            _ => {}
        }
        Ok(())
    }
}

/// Copies the folder `from` into `to` (created), recursively.
fn copy_dir(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target).with_context(|| {
                format!("copying {} to {}", entry.path().display(), target.display())
            })?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configurations_are_valid_scenarios() {
        for config in ProcessConfig::ALL {
            let s = config.scenario().unwrap_or_else(|e| panic!("{e:#}"));
            assert_eq!(s.file.request.gpus.as_deref(), Some("H100:8"), "{config:?}");
            let expected_clouds = match config {
                ProcessConfig::Warm25 => CloudId::ALL.len(),
                ProcessConfig::Kube64 => 1,
                _ => 7,
            };
            assert_eq!(s.clouds.len(), expected_clouds, "{config:?}");
            if s.clouds.contains(&CloudId::Aws) {
                assert!(s.fake_credentials.contains(&CloudId::Aws), "{config:?}");
            }
        }
        assert_eq!(
            ProcessConfig::ALL.map(ProcessConfig::id),
            [
                "process/warm/7-clouds",
                "process/warm/25-clouds",
                "process/first-launch/one-catalog-changed",
                "process/first-launch/all-7-changed",
                "process/cold-identity/sts-1000ms",
                "process/kubernetes/64-contexts-50ms",
            ]
        );
    }

    #[test]
    fn kube64_fixture_is_the_bench_scenario() {
        let path = mocks::fixtures_dir().join("scenarios/64-contexts-50ms/harness.toml");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(text, ProcessConfig::Kube64.scenario_text());
    }

    #[test]
    fn cold_identity_is_seed7_with_kubernetes_at_zero() {
        let s = ProcessConfig::ColdIdentity.scenario().unwrap();
        assert_eq!(
            s.enabled_clouds_env(),
            "aws,azure,cudo,gcp,kubernetes,paperspace,runpod"
        );
        assert_eq!(s.fake_credentials, [CloudId::Aws, CloudId::Kubernetes]);
    }
}
