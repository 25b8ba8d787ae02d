//! The cloud adapters of a launch or a `sky check`, and the context their
//! checks share: one place that knows which clouds have an adapter of
//! their own.

use std::sync::Arc;

use planner::catalog::slurm::SlurmSettings;
use planner::cloud::CloudId;
use planner::config::SkyConfig;

use super::options::LaunchOptions;
use crate::clouds::aws::{AwsCloud, AwsOptions};
use crate::clouds::gcp::GcpCloud;
use crate::clouds::kubernetes::{ExecCredentials, KubernetesCloud, LazyStateNodeCache};
use crate::clouds::nebius::NebiusCloud;
use crate::clouds::oci::OciCloud;
use crate::clouds::slurm::{LazyStateInventoryCache, SlurmCloud};
use crate::clouds::ssh::SshCloud;
use crate::clouds::{CatalogOnlyCloud, CheckContext, Cloud};

/// The adapters of `clouds`, in that order: AWS (with `aws`), GCP, OCI,
/// Nebius, Kubernetes, SSH and Slurm have their own; every other cloud is
/// checked from its table entry.
pub(super) fn adapters(
    clouds: &[CloudId],
    options: &LaunchOptions,
    sky_config: &SkyConfig,
    aws: &AwsOptions,
) -> Vec<Arc<dyn Cloud>> {
    let kube_options = || {
        let mut kube = options.kubernetes.clone();
        if kube.node_cache.is_none() {
            kube.node_cache = Some(Arc::new(LazyStateNodeCache::new(&options.state_dir)));
        }
        if kube.exec_credentials.is_none() {
            kube.exec_credentials = Some(Arc::new(ExecCredentials::new(
                &options.state_dir,
                &options.env,
            )));
        }
        kube
    };
    clouds
        .iter()
        .filter_map(|&c| -> Option<Arc<dyn Cloud>> {
            Some(match c {
                CloudId::Aws => Arc::new(AwsCloud::new(aws.clone())),
                CloudId::Gcp => Arc::new(GcpCloud::new(options.gcp.clone())),
                CloudId::Oci => Arc::new(OciCloud::new(options.oci.clone())),
                CloudId::Nebius => Arc::new(NebiusCloud::new(options.nebius.clone())),
                CloudId::Kubernetes => Arc::new(KubernetesCloud::new(kube_options())),
                CloudId::Ssh => {
                    let mut ssh = options.ssh.clone();
                    ssh.kubernetes = kube_options();
                    Arc::new(SshCloud::new(ssh, sky_config.ssh_allowed_node_pools()))
                }
                CloudId::Slurm => {
                    let mut slurm = options.slurm.clone();
                    if slurm.cache.is_none() {
                        slurm.cache =
                            Some(Arc::new(LazyStateInventoryCache::new(&options.state_dir)));
                    }
                    let allowed = SlurmSettings::from_config(&sky_config.raw)
                        .ok()
                        .and_then(|s| s.allowed_clusters);
                    Arc::new(SlurmCloud::new(slurm, allowed))
                }
                other => Arc::new(CatalogOnlyCloud::new(other)?),
            })
        })
        .collect()
}

/// The check context shared by all adapters.
pub(super) fn check_context(options: &LaunchOptions, sky_config: &SkyConfig) -> CheckContext {
    CheckContext {
        env: options.env.clone(),
        home: options.home.clone(),
        state_dir: options.state_dir.clone(),
        refresh: options.refresh,
        cloud_timeout: options.cloud_timeout,
        kubernetes_allowed_contexts: sky_config.kubernetes_allowed_contexts.clone(),
        reservation_clouds: sky_config.reservation_lookup_clouds(),
        gcp_project_id: sky_config.gcp_project_id(),
        sky_config: sky_config.clone(),
    }
}
