//! One whole-process row, set up and verified: [`ProcessBench`].

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, bail, ensure};
use harness::HarnessError;
use harness::engine::{LaunchOutput, Mode, ModeSetup, ProcessLauncher, sky_path};
use harness::floor::{Deadlines, floor};
use harness::sandbox::Sandbox;
use mocks::{MockSet, Recording, S3Mock};

use super::{BUILD_SKY, Invocation, ProcessConfig};

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

/// `sky offers` with the request (and options) the harness passes a
/// launch of `scenario`: its arguments after `launch --dryrun -c NAME`.
fn offers_args(scenario: &harness::scenario::Scenario, mode: Mode) -> Vec<String> {
    let launch = ProcessLauncher::args(scenario, mode);
    let request = launch
        .iter()
        .position(|a| a == "-c")
        .map_or(launch.len(), |i| i + 2);
    std::iter::once("offers".to_string())
        .chain(launch[request..].iter().cloned())
        .collect()
}

/// Untimed runs whose peak RSS is measured per row (the median is kept);
/// fewer for the rows that wait on a mocked latency.
const RSS_RUNS: usize = 5;
const RSS_RUNS_SLOW: usize = 3;

/// One whole-process row, set up: mocks running, sandbox, warm-up done,
/// verified, floor and peak RSS measured.
pub struct ProcessBench {
    /// The row.
    pub config: ProcessConfig,
    /// The mocked latency on the critical path of one launch.
    pub floor: Duration,
    /// Peak RSS of the row's process (KiB; median of a few untimed runs),
    /// when it could be measured.
    pub peak_rss_kib: Option<u64>,
    program: PathBuf,
    args: Vec<String>,
    setup: ModeSetup<'static>,
    s3: Option<S3Mock>,
    // Dropped after `setup` (fields drop in order): the sandbox holds the
    // state directory and kubeconfig the environment points at.
    _sandbox: Sandbox,
    _catalogs: Option<tempfile::TempDir>,
}

impl ProcessBench {
    /// Starts the mocks (on `rt`, which must outlive the bench), builds the
    /// sandbox, warms the caches and catalog images with one run, then makes
    /// one verification run (after [`ProcessBench::prepare`], like every
    /// measured one), fails unless it did what the row claims, and measures
    /// the peak RSS.
    pub fn start(config: ProcessConfig, rt: &tokio::runtime::Runtime) -> anyhow::Result<Self> {
        let mut scenario = config.scenario()?;
        let catalogs = match config.catalog() {
            Some(folder) => {
                let dir = tempfile::Builder::new()
                    .prefix("bench-catalogs-")
                    .tempdir()
                    .context("creating the catalog folder")?;
                folder.write(dir.path())?;
                // Passed as `--catalog-dir` (`ProcessLauncher::args`).
                scenario.catalog_dir = Some(dir.path().to_path_buf());
                Some(dir)
            }
            None => None,
        };
        let mocks = rt
            .block_on(MockSet::start(&scenario.file.mocks))
            .context("starting the mocks")?;
        let sandbox = Sandbox::new(&scenario).context("creating the sandbox")?;
        let mut env = sandbox
            .mode_env(&scenario, &mocks, "bench", false)
            .context("preparing the launch environment")?;
        // `sky check` lists S3 buckets: keep that on loopback too.
        let s3 = if config.invocation() == Invocation::Check {
            let s3 = rt
                .block_on(S3Mock::start())
                .context("starting the S3 mock")?;
            env.env
                .extend(s3.aws_env().into_iter().map(|(k, v)| (k.to_string(), v)));
            Some(s3)
        } else {
            None
        };
        let (program, args) = match config.invocation() {
            Invocation::Floor => (super::floor::hello_world()?, Vec::new()),
            Invocation::KubeFloor => (super::kube_floor::path()?, Vec::new()),
            Invocation::Launch => (
                release_sky()?,
                ProcessLauncher::args(&scenario, config.mode()),
            ),
            Invocation::GpusListAll => (
                release_sky()?,
                ["gpus", "list", "--all"].map(String::from).to_vec(),
            ),
            Invocation::Check => (release_sky()?, vec!["check".to_string()]),
            Invocation::Offers => (release_sky()?, offers_args(&scenario, config.mode())),
        };
        let mut bench = ProcessBench {
            config,
            floor: Duration::ZERO,
            peak_rss_kib: None,
            program,
            args,
            setup: ModeSetup {
                mode: config.mode(),
                // `ModeSetup` borrows its scenario; a bench lives until the
                // bench process ends, so the few KiB are never reclaimed anyway.
                scenario: Box::leak(Box::new(scenario)),
                env,
                mocks,
            },
            s3,
            _sandbox: sandbox,
            _catalogs: catalogs,
        };
        bench.run_once().context("the warm-up run")?;
        let images_before = bench.images()?;
        bench.prepare()?;
        bench.clear_mocks();
        let out = bench.run_once().context("the verification run")?;
        let recordings = bench.recordings();
        bench.verify(&out, &recordings, &images_before)?;
        bench.floor = floor(
            &recordings,
            false,
            &Deadlines::for_scenario(bench.setup.scenario),
        )
        .total;
        bench.peak_rss_kib = bench.measure_peak_rss()?;
        Ok(bench)
    }

    /// The command line of one run (program and arguments).
    pub fn command_line(&self) -> String {
        std::iter::once(self.program.display().to_string())
            .chain(self.args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The untimed step before each run: make the catalog image stale (one
    /// row) or remove every image (the first-launch rows); nothing for the
    /// others.
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
            ProcessConfig::All7Changed | ProcessConfig::AwsX10First => {
                match std::fs::remove_dir_all(self.index_dir()) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        Err(e).with_context(|| format!("removing {}", self.index_dir().display()))
                    }
                    _ => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }

    /// The row's process, spawned as `harness run` spawns `sky`
    /// (`ProcessLauncher`: an empty environment plus the sandbox's, output
    /// captured).
    fn command(&self) -> Command {
        let mut c = Command::new(&self.program);
        c.env_clear().envs(&self.setup.env.env).args(&self.args);
        c
    }

    /// One run; fails unless the process exits 0.
    pub fn run_once(&mut self) -> anyhow::Result<LaunchOutput> {
        let out = self
            .command()
            .output()
            .with_context(|| format!("running {}", self.program.display()))?;
        let exit_code = out.status.code().unwrap_or(-1);
        ensure!(
            exit_code == 0,
            "`{}` exited {}; stdout:\n{}\nstderr:\n{}",
            self.command_line(),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        Ok(LaunchOutput {
            exit_code,
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        })
    }

    /// [`ProcessBench::prepare`] untimed, then one timed run.
    pub fn timed_launch(&mut self) -> anyhow::Result<Duration> {
        self.prepare()?;
        let mut command = self.command();
        let started = Instant::now();
        let out = command.output();
        let wall = started.elapsed();
        let out = out.with_context(|| format!("running {}", self.program.display()))?;
        ensure!(
            out.status.success(),
            "`{}` exited {}",
            self.command_line(),
            out.status
        );
        Ok(wall)
    }

    /// Peak RSS over a few untimed runs (each after [`ProcessBench::prepare`]):
    /// their median, `None` without GNU `time`.
    fn measure_peak_rss(&self) -> anyhow::Result<Option<u64>> {
        let runs = if self.floor > Duration::ZERO {
            RSS_RUNS_SLOW
        } else {
            RSS_RUNS
        };
        let mut kib = Vec::with_capacity(runs);
        for _ in 0..runs {
            self.prepare()?;
            match crate::rss::peak_rss_kib(&self.command())? {
                Some(k) => kib.push(k),
                None => return Ok(None),
            }
        }
        Ok(harness::stats::middle(&mut kib))
    }

    /// `<state>/catalog-index`.
    fn index_dir(&self) -> PathBuf {
        self.setup.env.state_dir.join("catalog-index")
    }

    fn clear_mocks(&self) {
        self.setup.mocks.clear();
        if let Some(s3) = &self.s3 {
            s3.list_buckets().clear();
        }
    }

    fn recordings(&self) -> Vec<Recording> {
        let mut r = self.setup.mocks.recordings();
        if let Some(gcp) = &self.setup.mocks.gcp {
            r.push(gcp.test_iam_permissions().recording());
        }
        if let Some(s3) = &self.s3 {
            r.extend(s3.recordings());
        }
        r
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

    /// Checks that the verification run measured what the row claims.
    fn verify(
        &self,
        out: &LaunchOutput,
        recordings: &[Recording],
        images_before: &BTreeSet<String>,
    ) -> anyhow::Result<()> {
        let id = self.config.id();
        let hits = |prefix: &str| -> usize {
            recordings
                .iter()
                .filter(|r| r.endpoint.starts_with(prefix))
                .map(|r| r.count())
                .sum()
        };
        match self.config.invocation() {
            Invocation::Floor => {
                return super::floor::verify(&out.stdout).with_context(|| id.clone());
            }
            Invocation::KubeFloor => {
                super::kube_floor::verify(&out.stdout, super::kube_floor::CONTEXTS)
                    .with_context(|| id.clone())?;
                // The node lists and nothing else, once per context.
                let kube: Vec<&Recording> = recordings
                    .iter()
                    .filter(|r| r.endpoint.starts_with("kube/"))
                    .collect();
                let nodes = kube.iter().filter(|r| r.endpoint.ends_with("/nodes"));
                let once = nodes.clone().filter(|r| r.count() == 1).count();
                let others: usize = kube
                    .iter()
                    .filter(|r| !r.endpoint.ends_with("/nodes"))
                    .map(|r| r.count())
                    .sum();
                ensure!(
                    once == super::kube_floor::CONTEXTS && nodes.count() == once && others == 0,
                    "{id}: the bare client should list each of the {} contexts' nodes once and send \
                     nothing else, but {once} node endpoint(s) got exactly one request and the \
                     others {others}",
                    super::kube_floor::CONTEXTS
                );
            }
            Invocation::Launch => ensure!(
                out.stdout.contains("Considered resources"),
                "{id}: the launch printed no table; stdout:\n{}",
                out.stdout
            ),
            Invocation::Offers => ensure!(
                out.stdout.starts_with("Shown ") && out.stdout.contains("H100"),
                "{id}: `sky offers` listed no offers; stdout:\n{}",
                out.stdout
            ),
            Invocation::GpusListAll => ensure!(
                out.stdout.contains("COMMON_GPU") && out.stdout.contains("H100"),
                "{id}: `sky gpus list --all` listed no catalog GPUs; stdout:\n{}",
                out.stdout
            ),
            Invocation::Check => {
                for cloud in ["AWS", "GCP"] {
                    ensure!(
                        out.stdout.contains(&format!("  {cloud}: enabled")),
                        "{id}: `sky check` did not enable {cloud}; stdout:\n{}",
                        out.stdout
                    );
                }
                let (s3, gcp) = (hits("s3"), hits("gcp/test_iam_permissions"));
                ensure!(
                    s3 > 0 && gcp > 0,
                    "{id}: the storage checks did not reach the mocks (S3 {s3}, GCP {gcp} requests)"
                );
            }
        }
        let sts = hits("sts");
        match self.setup.mode {
            Mode::Warm => ensure!(
                sts == 0,
                "{id}: a warm run made {sts} STS request(s): the identity cache is not used"
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
            ProcessConfig::AwsX1Warm | ProcessConfig::AwsX10Warm => ensure!(
                !images_after.is_empty() && images_after == *images_before,
                "{id}: a warm launch should read the stored AWS image unchanged \
                 (before {images_before:?}, after {images_after:?})"
            ),
            ProcessConfig::AwsX10First => ensure!(
                !images_after.is_empty(),
                "{id}: after deleting catalog-index the launch stored no image"
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offers_take_the_launch_s_request_and_options() {
        let scenario = ProcessConfig::Offers22.scenario().unwrap();
        let launch = ProcessLauncher::args(&scenario, Mode::Warm);
        assert_eq!(launch[..4], ["launch", "--dryrun", "-c", "harness"]);
        // Everything after the cluster name, as the launch row passes it.
        assert_eq!(offers_args(&scenario, Mode::Warm)[0], "offers");
        assert_eq!(offers_args(&scenario, Mode::Warm)[1..], launch[4..]);
        assert!(launch[4..].windows(2).any(|w| w == ["--gpus", "H100"]));
        let refresh = offers_args(&scenario, Mode::Concurrent);
        assert_eq!(refresh[..2], ["offers", "--refresh"]);
    }
}
