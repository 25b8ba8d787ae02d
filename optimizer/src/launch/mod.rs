//! The one launch pipeline: `sky launch`, the harness's in-process launcher
//! and the launch benchmarks all call [`run`] (and `sky check` calls
//! [`check`]).
//!
//! [`run`] gathers the world — config, the cloud checks fanned out
//! concurrently while the catalogs load ([`prepare`]) — reads the entrypoint,
//! and hands both to the pure [`planner::launch::plan`]. What it returns is
//! data; [`planner::render::launch`] prints it and
//! [`planner::launch::LaunchResult::exit`] picks the exit code.

mod check;
mod gpus;
mod prepare;
mod refresh;

use std::path::PathBuf;
use std::time::Duration;

use planner::cloud::{CloudId, Provider, StorageOnly};
use planner::launch::{LaunchResult, TaskSource};
use planner::task::Overrides;

use crate::catalogs::CatalogOptions;
use crate::clouds::aws::AwsOptions;
use crate::clouds::gcp::GcpOptions;
use crate::clouds::kubernetes::KubernetesOptions;
use crate::clouds::nebius::NebiusOptions;
use crate::clouds::oci::OciOptions;
use crate::clouds::slurm::SlurmOptions;
use crate::clouds::ssh::SshOptions;
use crate::clouds::storage::HuggingFaceOptions;
use crate::clouds::{EnvMap, FanOutOptions};
use crate::config::ConfigError;

pub use check::{ENABLED_CLOUDS_FILE, check};
pub use gpus::{GpusListError, GpusOutcome, gpus_list};
use prepare::prepare;
pub use refresh::refresh_catalogs;

/// The per-cloud deadline when `--cloud-timeout` is not given.
pub const DEFAULT_CLOUD_TIMEOUT: Duration = Duration::from_secs(5);

/// Options for [`run`] and [`check`]. Every input that would otherwise come
/// from the process (environment, home, endpoints) is a field, so tests and
/// the harness inject them.
#[derive(Debug, Clone)]
pub struct LaunchOptions {
    /// Environment variables the adapters and loaders may read.
    pub env: EnvMap,
    /// Home directory (credential files, `~/.sky`).
    pub home: PathBuf,
    /// State directory for caches (`SKY_STATE_DIR`, default `~/.sky`).
    pub state_dir: PathBuf,
    /// `--catalog-dir`.
    pub catalog_dir: Option<PathBuf>,
    /// Clouds declared enabled (`SKY_ENABLED_CLOUDS`), in enumeration order;
    /// `None` = detect from credentials like `sky check`.
    pub declared_clouds: Option<Vec<CloudId>>,
    /// Storage-only providers named on `sky check`'s command line (with
    /// `declared_clouds` set: the clouds named beside them, maybe none).
    /// Launches never read it.
    pub declared_storage_only: Vec<StorageOnly>,
    /// Everything `sky check`'s command line names, in the order named and
    /// with repeats, as 0.14.1 checks and reports them (`clouds_to_check`;
    /// `-o json` keys follow it). `None`: the declared clouds, then the
    /// declared storage-only providers. Launches never read it.
    pub declared_order: Option<Vec<Provider>>,
    /// A name on `sky check`'s command line that is neither a cloud nor a
    /// storage-only provider (lower-cased, as the CLI passes it on):
    /// [`check`] then reports it as 0.14.1 does — the header, then
    /// [`CheckReport::invalid`](planner::check::CheckReport::invalid) — and
    /// checks nothing.
    pub declared_unknown: Option<String>,
    /// Bypass caches (`--refresh`).
    pub refresh: bool,
    /// Per-cloud deadline (`--cloud-timeout`); set it with
    /// [`LaunchOptions::set_cloud_timeout`] to keep the global one in step.
    pub cloud_timeout: Duration,
    /// Fan-out mode and global deadline.
    pub fanout: FanOutOptions,
    /// Offline Kubernetes: read `<dir>/<context>.json` NodeLists (`SKY_KUBE_NODES_DIR`).
    pub kube_nodes_dir: Option<PathBuf>,
    /// Offline Kubernetes contexts (`SKY_KUBE_CONTEXTS`).
    pub kube_contexts: Option<Vec<String>>,
    /// AWS adapter options (timeouts, endpoint).
    pub aws: AwsOptions,
    /// Kubernetes adapter options.
    pub kubernetes: KubernetesOptions,
    /// GCP adapter options (reservation lookup: endpoint, timeouts, cache TTL).
    pub gcp: GcpOptions,
    /// Where catalogs come from and how they are refreshed.
    pub catalogs: CatalogOptions,
    /// Problems found in the options themselves (an unknown name in
    /// `SKY_ENABLED_CLOUDS`), printed as warnings by the launch.
    pub warnings: Vec<String>,
    /// OCI adapter options (region subscriptions: endpoint, offline
    /// answers, timeouts, cache TTL).
    pub oci: OciOptions,
    /// Nebius adapter options (tenant prices: endpoint, offline answers,
    /// timeouts, cache TTL).
    pub nebius: NebiusOptions,
    /// `sky check`'s Hugging Face storage check (endpoint, timeouts).
    pub huggingface: HuggingFaceOptions,
    /// SSH Node Pools adapter options. Offline mode: `SKY_SSH_NODES_DIR`
    /// (`<dir>/<ssh-pool>.json` NodeLists) with `SKY_SSH_CONTEXTS` (the
    /// `ssh-<pool>` contexts the kubeconfig would have).
    pub ssh: SshOptions,
    /// Slurm adapter options. `SKY_SLURM_SSH` names the program run as `ssh`
    /// to the login nodes (tests use `fixtures/slurm/fake-ssh`).
    pub slurm: SlurmOptions,
    /// `--config` values: one config file, or `key=value` pairs.
    pub config_args: Vec<String>,
    /// `--workspace` (`-w`): shorthand for `--config active_workspace=NAME`.
    pub workspace: Option<String>,
    /// The folder whose `.sky.yaml` is the project config (the working
    /// directory for `sky`); `None` reads no project config.
    pub project_dir: Option<PathBuf>,
    /// `SKY_VOLUMES_FILE`: the user's volumes as `sky volumes ls -o json`
    /// prints them, for task `volumes:`.
    pub volumes_file: Option<PathBuf>,
}

impl LaunchOptions {
    /// Options from a process environment and home directory, with defaults.
    pub fn from_env(env: EnvMap, home: PathBuf) -> Result<LaunchOptions, ConfigError> {
        let state_dir = env
            .get("SKY_STATE_DIR")
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".sky"));
        let mut warnings = Vec::new();
        let declared_clouds = env.get("SKY_ENABLED_CLOUDS").map(|v| {
            let (clouds, ignored) = planner::config::parse_enabled_clouds(v);
            warnings.extend(ignored.iter().map(ToString::to_string));
            clouds
        });
        let catalogs = CatalogOptions::from_env(&env);
        let kube_nodes_dir = env
            .get("SKY_KUBE_NODES_DIR")
            .filter(|s| !s.is_empty())
            .map(PathBuf::from);
        let kube_contexts = env.get("SKY_KUBE_CONTEXTS").map(|s| {
            s.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        });
        let list = |var: &str| {
            env.get(var).map(|s| {
                s.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
        };
        let ssh = SshOptions {
            nodes_dir: env
                .get("SKY_SSH_NODES_DIR")
                .filter(|s| !s.is_empty())
                .map(PathBuf::from),
            contexts: list("SKY_SSH_CONTEXTS"),
            ..SshOptions::default()
        };
        let mut slurm = SlurmOptions::default();
        if let Some(program) = env.get("SKY_SLURM_SSH").filter(|s| !s.is_empty()) {
            slurm.ssh_program = program.clone();
        }
        let volumes_file = env
            .get("SKY_VOLUMES_FILE")
            .filter(|s| !s.is_empty())
            .map(PathBuf::from);
        let fanout = FanOutOptions {
            serial: env
                .get("SKY_FANOUT")
                .is_some_and(|v| v.eq_ignore_ascii_case("serial")),
            global_deadline: FanOutOptions::global_deadline_for(DEFAULT_CLOUD_TIMEOUT),
            observer: None,
        };
        Ok(LaunchOptions {
            env,
            home,
            state_dir,
            catalog_dir: None,
            declared_clouds,
            declared_storage_only: Vec::new(),
            declared_order: None,
            declared_unknown: None,
            refresh: false,
            cloud_timeout: DEFAULT_CLOUD_TIMEOUT,
            fanout,
            kube_nodes_dir,
            kube_contexts,
            aws: AwsOptions::default(),
            kubernetes: KubernetesOptions::default(),
            gcp: GcpOptions::default(),
            catalogs,
            warnings,
            oci: OciOptions::default(),
            nebius: NebiusOptions::default(),
            huggingface: HuggingFaceOptions::default(),
            ssh,
            slurm,
            config_args: Vec::new(),
            workspace: None,
            project_dir: None,
            volumes_file,
        })
    }

    /// Sets the per-cloud deadline, the global one that goes with it, and
    /// the adapters' whole-call deadlines (STS, GCP REST): the deadline in
    /// force is then the one the user gave, and a timeout names it.
    pub fn set_cloud_timeout(&mut self, cloud_timeout: Duration) {
        self.cloud_timeout = cloud_timeout;
        self.fanout.global_deadline = FanOutOptions::global_deadline_for(cloud_timeout);
        self.aws.operation_timeout = cloud_timeout;
        self.gcp.service.request_timeout = cloud_timeout;
        self.huggingface.service.request_timeout = cloud_timeout;
    }
}

/// Why a launch ended before planning.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// Configuration or catalogs unusable.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// No cloud is enabled.
    #[error("{0}")]
    NoCloud(String),
    /// A flag's value is unusable (`--config`): click's usage error text.
    #[error("{0}")]
    Usage(String),
}

/// A launch request, as `sky launch` takes it.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// The entrypoint words: one task YAML path, or a command (joined with
    /// spaces), or nothing (a task made of the flags).
    pub entrypoint: Vec<String>,
    /// Flag overrides (`--gpus`, `--cpus`, ...).
    pub overrides: Overrides,
}

/// Whether an entrypoint is a task YAML: one word ending in `.yaml`/`.yml`
/// (SkyPilot's `_check_yaml` then reads it; anything else is a command).
fn is_yaml(words: &[String]) -> bool {
    match words {
        [one] => (one.ends_with(".yaml") || one.ends_with(".yml")) && !one.contains(' '),
        _ => false,
    }
}

/// What the entrypoint asks to run; a task YAML is read here — a regular
/// file of at most [`MAX_TASK_FILE_BYTES`](crate::input::MAX_TASK_FILE_BYTES)
/// (a FIFO, a device or a huge file is refused, never read).
fn read_entrypoint(words: &[String]) -> TaskSource {
    if is_yaml(words) {
        let path = &words[0];
        let _span = tracing::info_span!("read_task_yaml").entered();
        let read = crate::input::read_regular_text(
            std::path::Path::new(path),
            crate::input::MAX_TASK_FILE_BYTES,
        );
        return match read {
            Ok(text) => TaskSource::Yaml {
                path: path.clone(),
                text,
            },
            Err(e) => TaskSource::Unreadable {
                path: path.clone(),
                message: e.cause(),
            },
        };
    }
    if words.is_empty() {
        TaskSource::Flags
    } else {
        TaskSource::Command(words.join(" "))
    }
}

/// One whole launch: read the entrypoint, [`prepare`] the world, and
/// [`planner::launch::plan`] it.
///
/// The entrypoint is read first: the catalogs then decode only the rows the
/// request can match ([`planner::launch::catalog_needs`]).
pub async fn run(options: &LaunchOptions, request: &Request) -> Result<LaunchResult, LaunchError> {
    let source = read_entrypoint(&request.entrypoint);
    let rows_of: crate::catalogs::RowsOf = {
        let source = source.clone();
        let overrides = request.overrides.clone();
        Box::new(move |metadata| {
            planner::launch::catalog_needs(&source, &overrides, metadata, &CloudId::ALL)
        })
    };
    let prepared = prepare(options, rows_of).await?;
    Ok(planner::launch::plan(prepared, source, &request.overrides))
}
