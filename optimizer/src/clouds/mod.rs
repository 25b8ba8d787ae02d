//! The cloud adapters — the only code that talks to a cloud — and the one
//! function that runs them concurrently ([`fan_out`]). AWS, GCP, Kubernetes,
//! OCI and Nebius do network I/O, SSH Node Pools (through the Kubernetes
//! listing) and Slurm (SSH to the login nodes) do I/O of their own, one file
//! or folder each; every other
//! cloud is a [`CatalogOnlyCloud`] driven by its entry in the planner's
//! cloud table. `sky check` adds storage checks ([`StorageCheck`]): the AWS
//! and GCP adapters' own, and [`storage`] for the rest.

pub mod aws;
mod cached;
mod catalog_only;
mod credential_files;
mod fanout;
pub mod gcp;
pub mod http;
mod http_client;
pub mod kubernetes;
pub mod nebius;
pub mod oci;
mod options;
pub mod slurm;
pub mod ssh;
pub mod storage;

pub(crate) use catalog_only::CatalogOnlyCloud;

pub use fanout::{FanOutObserver, FanOutOptions, fan_out, fan_out_checks};
pub use options::ServiceOptions;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use futures::future::BoxFuture;
use planner::check::{CheckOutcome, CloudError, StorageOutcome};
use planner::cloud::{CloudId, Provider};
use planner::config::SkyConfig;

/// A snapshot of the process environment, injected so that tests and the
/// harness never reach mocks through hidden globals.
pub type EnvMap = BTreeMap<String, String>;

/// Everything a cloud adapter may consult while checking access.
///
/// Built once per invocation by the binary (or the harness) and shared by all
/// concurrent checks.
#[derive(Debug, Clone)]
pub struct CheckContext {
    /// Environment variables visible to the adapters (`AWS_*`, `KUBECONFIG`, ...).
    pub env: EnvMap,
    /// The user's home directory (credential files are looked up below it).
    pub home: PathBuf,
    /// The state directory (`~/.sky` or `SKY_STATE_DIR`) holding the caches.
    pub state_dir: PathBuf,
    /// Bypass every cache (`--refresh`).
    pub refresh: bool,
    /// Deadline for one cloud's whole check (`--cloud-timeout`).
    pub cloud_timeout: Duration,
    /// Kubernetes contexts allowed by `~/.sky/config.yaml` (`None` = current context only;
    /// `Some(["all"])` = every context).
    pub kubernetes_allowed_contexts: Option<Vec<String>>,
    /// Clouds whose reservations must be looked up: `<cloud>.prioritize_reservations`
    /// or `<cloud>.specific_reservations` in `~/.sky/config.yaml`. Empty (the
    /// usual case) means no adapter makes a reservation call.
    pub reservation_clouds: Vec<CloudId>,
    /// `gcp.project_id` in `~/.sky/config.yaml`: the project whose
    /// reservations are listed (see `clouds::gcp` for the fallbacks).
    pub gcp_project_id: Option<String>,
    /// The whole `~/.sky/config.yaml`, for adapters that read their own
    /// keys (OCI's `oci_config_profile`, Nebius' `tenant_id`, `domain`,
    /// `use_personal_pricing`, `project_id`, workspaces).
    pub sky_config: SkyConfig,
}

/// Whether a cloud's credentials are present on this machine (cheap, local files only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credentials {
    /// Credentials were found; the text says where (`"environment"`, `"~/.aws/credentials"`, ...).
    Present(String),
    /// No credentials; the text says how to set them up.
    Missing(String),
}

/// One cloud adapter: the only place that talks to a cloud.
pub trait Cloud: Send + Sync {
    /// Which cloud this adapter speaks for.
    fn id(&self) -> CloudId;

    /// Looks for credentials on this machine without any network call.
    fn credentials(&self, ctx: &CheckContext) -> Credentials;

    /// Performs the network part of the check (identity, node listing, ...).
    ///
    /// Implementations set explicit timeouts on their SDK clients; the fan-out
    /// additionally wraps the call in `ctx.cloud_timeout`.
    fn check<'a>(
        &'a self,
        ctx: &'a CheckContext,
    ) -> BoxFuture<'a, Result<CheckOutcome, CloudError>>;
}

/// One storage check (SkyPilot's `_check_storage_credentials` /
/// `check_storage_credentials`), made by `sky check` only, never by a
/// launch.
pub trait StorageCheck: Send + Sync {
    /// Whose storage this checks.
    fn provider(&self) -> Provider;

    /// The check. A timeout or server error is [`StorageOutcome::Failed`]
    /// with a transient [`CloudError`] (not a verdict); the fan-out adds
    /// `ctx.cloud_timeout` around it.
    fn check_storage<'a>(&'a self, ctx: &'a CheckContext) -> BoxFuture<'a, StorageOutcome>;
}

/// An error and its sources on one line (a source already contained in an
/// earlier message is skipped: SDK errors often repeat their cause), with
/// URLs and known secrets masked ([`crate::redact::redact`]): transport
/// errors quote the endpoint, user-info and all.
pub(crate) fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    crate::redact::redact(&raw_error_chain(err)).into_owned()
}

fn raw_error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![err.to_string()];
    let mut source = err.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = s.source();
    }
    parts.join(": ")
}
