//! What a launch (and `sky check`, `sky gpus list`, `sky catalog refresh`)
//! is given: [`LaunchOptions`] (everything that would otherwise come from
//! the process), the [`Request`], and why it may end early ([`LaunchError`]).

use std::path::PathBuf;
use std::time::Duration;

use planner::assemble::NoCloud;
use planner::cloud::{CloudId, Provider, StorageOnly};
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
    /// `sky launch --explain`: the plan stage also explains the plan
    /// ([`LaunchResult::explain`](planner::launch::LaunchResult::explain));
    /// off, a launch computes nothing more.
    pub explain: bool,
    /// Read the entrypoint as a command even when it looks like a task
    /// YAML path: the user answered yes to SkyPilot's `_check_yaml`
    /// question ("…looks like a yaml path but…", `sky` asks it before the
    /// launch), which treats the name as a command to run.
    pub entrypoint_as_command: bool,
}

impl LaunchOptions {
    /// Options from a process environment and home directory, with defaults.
    pub fn from_env(env: EnvMap, home: PathBuf) -> Result<LaunchOptions, ConfigError> {
        let state_dir = path_var(&env, "SKY_STATE_DIR").unwrap_or_else(|| home.join(".sky"));
        let mut warnings = Vec::new();
        let declared_clouds = env.get("SKY_ENABLED_CLOUDS").map(|v| {
            let (clouds, ignored) = planner::config::parse_enabled_clouds(v);
            warnings.extend(ignored.iter().map(ToString::to_string));
            clouds
        });
        let ssh = SshOptions {
            nodes_dir: path_var(&env, "SKY_SSH_NODES_DIR"),
            contexts: list_var(&env, "SKY_SSH_CONTEXTS"),
            ..SshOptions::default()
        };
        let mut slurm = SlurmOptions::default();
        if let Some(program) = env.get("SKY_SLURM_SSH").filter(|s| !s.is_empty()) {
            slurm.ssh_program = program.clone();
        }
        let fanout = FanOutOptions {
            serial: env
                .get("SKY_FANOUT")
                .is_some_and(|v| v.eq_ignore_ascii_case("serial")),
            global_deadline: FanOutOptions::global_deadline_for(DEFAULT_CLOUD_TIMEOUT),
            observer: None,
        };
        Ok(LaunchOptions {
            catalogs: CatalogOptions::from_env(&env),
            kube_nodes_dir: path_var(&env, "SKY_KUBE_NODES_DIR"),
            kube_contexts: list_var(&env, "SKY_KUBE_CONTEXTS"),
            volumes_file: path_var(&env, "SKY_VOLUMES_FILE"),
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
            aws: AwsOptions::default(),
            kubernetes: KubernetesOptions::default(),
            gcp: GcpOptions::default(),
            warnings,
            oci: OciOptions::default(),
            nebius: NebiusOptions::default(),
            huggingface: HuggingFaceOptions::default(),
            ssh,
            slurm,
            config_args: Vec::new(),
            workspace: None,
            project_dir: None,
            explain: false,
            entrypoint_as_command: false,
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
    /// No cloud is enabled: the checks that found no credentials or failed
    /// (`render::pipeline` words it).
    #[error("{0}")]
    NoCloud(NoCloud),
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

/// A path from the environment (unset or empty: none).
fn path_var(env: &EnvMap, var: &str) -> Option<PathBuf> {
    env.get(var).filter(|s| !s.is_empty()).map(PathBuf::from)
}

/// A comma-separated list from the environment (empty items dropped).
fn list_var(env: &EnvMap, var: &str) -> Option<Vec<String>> {
    env.get(var).map(|s| {
        s.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    })
}
