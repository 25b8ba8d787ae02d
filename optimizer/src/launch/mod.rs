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
mod prepare;

use std::path::PathBuf;
use std::time::Duration;

use planner::cloud::CloudId;
use planner::launch::{LaunchResult, TaskSource};
use planner::task::Overrides;

use crate::clouds::aws::AwsOptions;
use crate::clouds::gcp::GcpOptions;
use crate::clouds::kubernetes::KubernetesOptions;
use crate::clouds::{EnvMap, FanOutOptions};
use crate::config::ConfigError;

pub use check::{ENABLED_CLOUDS_FILE, check};
use prepare::prepare;

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
}

impl LaunchOptions {
    /// Options from a process environment and home directory, with defaults.
    pub fn from_env(env: EnvMap, home: PathBuf) -> Result<LaunchOptions, ConfigError> {
        let state_dir = env
            .get("SKY_STATE_DIR")
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".sky"));
        let declared_clouds = match env.get("SKY_ENABLED_CLOUDS") {
            Some(v) => Some(planner::config::parse_enabled_clouds(v)?),
            None => None,
        };
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
            refresh: false,
            cloud_timeout: DEFAULT_CLOUD_TIMEOUT,
            fanout,
            kube_nodes_dir,
            kube_contexts,
            aws: AwsOptions::default(),
            kubernetes: KubernetesOptions::default(),
            gcp: GcpOptions::default(),
        })
    }

    /// Sets the per-cloud deadline and the global one that goes with it.
    pub fn set_cloud_timeout(&mut self, cloud_timeout: Duration) {
        self.cloud_timeout = cloud_timeout;
        self.fanout.global_deadline = FanOutOptions::global_deadline_for(cloud_timeout);
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

/// What the entrypoint asks to run; a task YAML is read here.
fn read_entrypoint(words: &[String]) -> TaskSource {
    if is_yaml(words) {
        let path = &words[0];
        let _span = tracing::info_span!("read_task_yaml").entered();
        return match std::fs::read_to_string(path) {
            Ok(text) => TaskSource::Yaml {
                path: path.clone(),
                text,
            },
            Err(e) => TaskSource::Unreadable {
                path: path.clone(),
                message: e.to_string(),
            },
        };
    }
    if words.is_empty() {
        TaskSource::Flags
    } else {
        TaskSource::Command(words.join(" "))
    }
}

/// One whole launch: [`prepare`] the world, read the entrypoint, and
/// [`planner::launch::plan`] it.
pub async fn run(options: &LaunchOptions, request: &Request) -> Result<LaunchResult, LaunchError> {
    let prepared = prepare(options).await?;
    let source = read_entrypoint(&request.entrypoint);
    Ok(planner::launch::plan(prepared, source, &request.overrides))
}
