//! SSH Node Pools: the `ssh-<pool>` kubeconfig contexts, through the
//! Kubernetes adapter.
//!
//! SkyPilot 0.14.1 runs every pool `sky ssh up` set up as a Kubernetes
//! cluster whose context is `ssh-<pool>` in the global kubeconfig
//! (`sky/clouds/ssh.py::SSH`). This adapter finds the pools
//! (`~/.sky/ssh_node_pools.yaml`), keeps the `ssh-` contexts of the
//! kubeconfig that are pools (`SSH.existing_allowed_contexts`, the pure
//! [`ssh_allowed_contexts`]) and lists their nodes with the Kubernetes
//! adapter's machinery — per-request timeouts, retries, the node cache —
//! which keeps Kubernetes and SSH apart: Kubernetes never uses an `ssh-`
//! context and this adapter nothing else.
//!
//! Credentials, as `SSH._check_compute_credentials` (files and environment
//! only): `socat` and `nc` on `PATH` (port-forward networking), then at
//! least one pool up.
//!
//! Offline mode (`SKY_SSH_NODES_DIR` + `SKY_SSH_CONTEXTS`, for tests and the
//! conformance scenarios): the contexts stand in for the kubeconfig's and
//! the nodes are read from `<dir>/<context>.json` NodeLists (as
//! [`contexts_from_fixture_dir`] reads Kubernetes'); the pools file is still
//! read and the dependency check is skipped (the fixture stands in for the
//! machine too).

use std::path::{Path, PathBuf};

use futures::future::BoxFuture;
use planner::catalog::ssh::{
    SSH_NODE_POOLS_PATH, SshContexts, no_pools_message, node_pool_contexts, port_forward_reasons,
    ssh_allowed_contexts,
};
use planner::check::{CacheUse, CheckOutcome, CloudError, CloudFacts, SshFacts};
use planner::cloud::CloudId;

use super::kubernetes::{KubernetesCloud, KubernetesOptions, contexts_from_fixture_dir};
use super::{CheckContext, Cloud, Credentials};
use crate::config::expand_home;

/// How [`SshCloud`] finds the pools and reaches their clusters.
#[derive(Debug, Clone, Default)]
pub struct SshOptions {
    /// The pools file instead of `<home>/.sky/ssh_node_pools.yaml`.
    pub node_pools_file: Option<PathBuf>,
    /// Offline mode: read `<dir>/<context>.json` NodeLists (`SKY_SSH_NODES_DIR`).
    pub nodes_dir: Option<PathBuf>,
    /// Offline mode: the `ssh-<pool>` contexts the kubeconfig would have
    /// (`SKY_SSH_CONTEXTS`).
    pub contexts: Option<Vec<String>>,
    /// The node listing: kubeconfig, timeouts, retries, node cache.
    pub kubernetes: KubernetesOptions,
}

/// The SSH Node Pools adapter.
#[derive(Debug, Clone)]
pub struct SshCloud {
    options: SshOptions,
    /// `ssh.allowed_node_pools` from `~/.sky/config.yaml`.
    allowed_node_pools: Option<Vec<String>>,
}

/// The pools' contexts as `sky gpus list` lists them.
#[derive(Default)]
pub(crate) struct PoolContexts {
    /// The kubeconfig they are in (none offline).
    pub(crate) kubeconfig: Option<kube::config::Kubeconfig>,
    /// `ssh-<pool>` contexts, allowed and up.
    pub(crate) contexts: Vec<String>,
    /// Offline: the folder of their `NodeList`s.
    pub(crate) nodes_dir: Option<PathBuf>,
}

/// Which contexts are pools, and the kubeconfig they came from (none offline).
struct Resolved {
    kubeconfig: Option<kube::config::Kubeconfig>,
    contexts: SshContexts,
}

impl SshCloud {
    /// An adapter with these options and `ssh.allowed_node_pools`.
    pub fn new(options: SshOptions, allowed_node_pools: Option<Vec<String>>) -> Self {
        SshCloud {
            options,
            allowed_node_pools,
        }
    }

    fn offline(&self) -> bool {
        self.options.nodes_dir.is_some()
    }

    /// The pools file this adapter reads.
    pub fn pools_file(&self, ctx: &CheckContext) -> PathBuf {
        self.options
            .node_pools_file
            .clone()
            .unwrap_or_else(|| expand_home(SSH_NODE_POOLS_PATH, &ctx.home))
    }

    /// `get_ssh_node_pool_contexts`: `None` without a pools file; like
    /// SkyPilot, an unreadable file gives no pools.
    fn pool_contexts(&self, ctx: &CheckContext) -> Option<Vec<String>> {
        let path = self.pools_file(ctx);
        if !path.exists() {
            return None;
        }
        Some(
            std::fs::read_to_string(&path)
                .map(|text| node_pool_contexts(&text))
                .unwrap_or_default(),
        )
    }

    fn resolve(&self, ctx: &CheckContext) -> Result<Resolved, CloudError> {
        let (kubeconfig, names) = match &self.options.contexts {
            Some(names) if self.offline() => (None, names.clone()),
            _ => {
                let kube = KubernetesCloud::new(self.options.kubernetes.clone());
                let config = kube.load_kubeconfig(ctx)?.unwrap_or_default();
                let names = config.contexts.iter().map(|c| c.name.clone()).collect();
                (Some(config), names)
            }
        };
        let pools = self.pool_contexts(ctx);
        let contexts =
            ssh_allowed_contexts(&names, pools.as_deref(), self.allowed_node_pools.as_deref());
        Ok(Resolved {
            kubeconfig,
            contexts,
        })
    }

    /// The pools' contexts (`SSH.existing_allowed_contexts`), the kubeconfig
    /// they are in (none offline) and the offline `NodeList` folder.
    pub(crate) fn gpu_contexts(&self, ctx: &CheckContext) -> Result<PoolContexts, CloudError> {
        let resolved = self.resolve(ctx)?;
        Ok(PoolContexts {
            kubeconfig: resolved.kubeconfig,
            contexts: resolved.contexts.contexts,
            nodes_dir: self.options.nodes_dir.clone(),
        })
    }

    /// The Kubernetes adapter the pools are listed through.
    pub(crate) fn kubernetes(&self) -> KubernetesCloud {
        KubernetesCloud::new(self.options.kubernetes.clone())
    }

    async fn check_inner(&self, ctx: &CheckContext) -> Result<CheckOutcome, CloudError> {
        let resolved = self.resolve(ctx)?;
        let names = &resolved.contexts.contexts;
        if names.is_empty() {
            return Err(CloudError::Config(no_pools_message(
                &self.pools_file(ctx).display().to_string(),
            )));
        }
        let (contexts, cache) = match (&self.options.nodes_dir, &resolved.kubeconfig) {
            (Some(dir), _) => (contexts_from_fixture_dir(dir, names), CacheUse::None),
            (None, Some(kubeconfig)) => {
                KubernetesCloud::new(self.options.kubernetes.clone())
                    .list_with_cache(ctx, kubeconfig, names)
                    .await
            }
            (None, None) => (Vec::new(), CacheUse::None),
        };
        Ok(CheckOutcome {
            facts: CloudFacts::Ssh(SshFacts {
                contexts,
                skipped: resolved.contexts.skipped,
            }),
            cache,
        })
    }
}

/// Whether an executable named `name` is on the injected `PATH`.
fn on_path(ctx: &CheckContext, name: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let Some(path) = ctx.env.get("PATH") else {
        return false;
    };
    path.split(':')
        .filter(|d| !d.is_empty())
        .map(|d| Path::new(d).join(name))
        .any(|p| {
            std::fs::metadata(&p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

impl Cloud for SshCloud {
    fn id(&self) -> CloudId {
        CloudId::Ssh
    }

    fn credentials(&self, ctx: &CheckContext) -> Credentials {
        if !self.offline()
            && let Some(reasons) = port_forward_reasons(on_path(ctx, "socat"), on_path(ctx, "nc"))
        {
            return Credentials::Missing(reasons);
        }
        match self.resolve(ctx) {
            Err(e) => Credentials::Missing(format!("Failed to get SSH contexts: {e}")),
            Ok(r) if r.contexts.contexts.is_empty() => Credentials::Missing(no_pools_message(
                &self.pools_file(ctx).display().to_string(),
            )),
            Ok(r) => Credentials::Present(r.contexts.contexts.join(", ")),
        }
    }

    fn check<'a>(
        &'a self,
        ctx: &'a CheckContext,
    ) -> BoxFuture<'a, Result<CheckOutcome, CloudError>> {
        Box::pin(self.check_inner(ctx))
    }
}
