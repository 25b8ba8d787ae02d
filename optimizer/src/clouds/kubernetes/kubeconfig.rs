//! The kubeconfig: which files, merged how, the allowed contexts in it, and
//! what a context's cluster entry says (API server, proxy).
//!
//! SkyPilot 0.14.1 reads `KUBECONFIG` as
//! `sky/provision/kubernetes/utils.py::get_kubeconfig_paths` does and picks
//! the contexts with `sky/clouds/kubernetes.py::Kubernetes.existing_allowed_contexts`;
//! here the environment and home folder come from the [`CheckContext`],
//! never from the process.
//!
//! A warm launch need not read the files at all: [`KubeconfigIdentity`] is
//! what the files look like on disk (one `stat` each), and the node cache
//! remembers, per identity, the context names and current context a parse
//! gave (see [`NodeCache::recall`](super::NodeCache::recall)).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use kube::config::{AuthInfo, Cluster, Kubeconfig};
use planner::catalog::kubernetes::{AllowedContexts, allowed_contexts};
use planner::check::CloudError;

use super::KubernetesCloud;
use crate::clouds::CheckContext;
use crate::config::expand_home;

/// The kubeconfig and the allowed contexts resolved from it.
#[derive(Debug, Clone)]
pub struct ResolvedContexts {
    /// The merged kubeconfig (first file wins, as with kubectl).
    pub kubeconfig: Kubeconfig,
    /// Allowed contexts and the configured ones missing from the kubeconfig.
    pub allowed: AllowedContexts,
    /// Messages to show the user (SkyPilot's skipped-contexts warning).
    pub warnings: Vec<String>,
}

/// What identifies the kubeconfig files' contents without reading them:
/// the paths that would be read (the override, `KUBECONFIG` or the default)
/// and each one's size, modification and change times, device and inode, or
/// that it is absent. Not secret (never stored: the node cache keeps an HMAC
/// digest of it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeconfigIdentity {
    /// The canonical description digested into the cache key.
    pub fingerprint: String,
    /// The latest modification time among the files present (`None`: no
    /// file). A file modified within the last moments may be modified again
    /// within the same timestamp tick, unseen: such an identity is not
    /// remembered (git's "racily clean" index entries).
    pub newest_mtime: Option<SystemTime>,
}

impl KubernetesCloud {
    /// The identity of the kubeconfig files [`load_kubeconfig`](Self::load_kubeconfig)
    /// would read now: one `stat` per path, no read.
    pub fn kubeconfig_identity(&self, ctx: &CheckContext) -> KubeconfigIdentity {
        use std::fmt::Write;
        let mut fingerprint = String::from("kubeconfig-identity/1");
        let mut newest_mtime: Option<SystemTime> = None;
        for path in self.kubeconfig_paths(ctx) {
            // Debug quoting keeps a path with a newline unambiguous.
            let _ = write!(fingerprint, "\n{:?} ", path.as_os_str());
            match std::fs::metadata(&path) {
                Ok(meta) if meta.is_file() => {
                    fingerprint.push_str(&crate::catalogs::fingerprint(&meta));
                    if let Ok(mtime) = meta.modified() {
                        newest_mtime = Some(newest_mtime.map_or(mtime, |n| n.max(mtime)));
                    }
                }
                Ok(_) => fingerprint.push_str("not a file"),
                Err(_) => fingerprint.push_str("absent"),
            }
        }
        KubeconfigIdentity {
            fingerprint,
            newest_mtime,
        }
    }

    /// The kubeconfig files to read: the override, else `KUBECONFIG` from
    /// `ctx.env` (colon-separated, `~` expanded with `ctx.home`), else
    /// `<home>/.kube/config`.
    pub fn kubeconfig_paths(&self, ctx: &CheckContext) -> Vec<PathBuf> {
        if let Some(path) = &self.options.kubeconfig {
            return vec![path.clone()];
        }
        match ctx.env.get("KUBECONFIG").filter(|v| !v.trim().is_empty()) {
            Some(list) => list
                .split(':')
                .filter(|s| !s.is_empty())
                .map(|s| expand_home(s, &ctx.home))
                .collect(),
            None => vec![ctx.home.join(".kube").join("config")],
        }
    }

    /// Reads and merges the kubeconfig files that exist; `Ok(None)` if none does.
    pub fn load_kubeconfig(&self, ctx: &CheckContext) -> Result<Option<Kubeconfig>, CloudError> {
        let mut merged: Option<Kubeconfig> = None;
        for path in self.kubeconfig_paths(ctx).iter().filter(|p| p.is_file()) {
            let text = crate::input::read_regular_text(path, crate::input::MAX_CONFIG_FILE_BYTES)
                .map_err(|e| CloudError::Config(format!("Invalid kubeconfig {e}")))?;
            // kube's reader, in front of it a fast path for the plain YAML
            // kubectl writes (the same value or error, 1/10th of the work).
            let next = super::plain_yaml::kubeconfig_from_yaml(&text).map_err(|e| {
                CloudError::Config(format!("Invalid kubeconfig {}: {e}", path.display()))
            })?;
            merged = Some(match merged {
                None => next,
                Some(m) => m.merge(next).map_err(|e| {
                    CloudError::Config(format!("Cannot merge kubeconfig {}: {e}", path.display()))
                })?,
            });
        }
        Ok(merged)
    }

    /// Reads the kubeconfig and computes the allowed contexts (SkyPilot's
    /// `existing_allowed_contexts`). Context names are read fresh each time.
    pub fn resolve_contexts(&self, ctx: &CheckContext) -> Result<ResolvedContexts, CloudError> {
        let kubeconfig = self.load_kubeconfig(ctx)?.unwrap_or_default();
        let names: Vec<String> = kubeconfig.contexts.iter().map(|c| c.name.clone()).collect();
        let allowed = allowed_of(ctx, &names, kubeconfig.current_context.as_deref());
        let warnings = allowed.warning().into_iter().collect();
        Ok(ResolvedContexts {
            kubeconfig,
            allowed,
            warnings,
        })
    }
}

/// The allowed contexts among `names` (SkyPilot's `existing_allowed_contexts`):
/// `allowed_contexts` from the config, `SKYPILOT_ALLOW_ALL_KUBERNETES_CONTEXTS`
/// from `ctx.env`, else the current context.
pub(super) fn allowed_of(
    ctx: &CheckContext,
    names: &[String],
    current: Option<&str>,
) -> AllowedContexts {
    let allow_all_env = ctx
        .env
        .get("SKYPILOT_ALLOW_ALL_KUBERNETES_CONTEXTS")
        .is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "true" | "1"));
    allowed_contexts(
        names,
        current,
        ctx.kubernetes_allowed_contexts.as_deref(),
        allow_all_env,
    )
}

/// The name of the cluster entry `context` points at.
fn context_cluster<'a>(kubeconfig: &'a Kubeconfig, context: &str) -> Option<&'a str> {
    let named = kubeconfig.contexts.iter().find(|c| c.name == context)?;
    Some(named.context.as_ref()?.cluster.as_str())
}

/// The cluster entry named `cluster`, if it has a body.
fn cluster_named<'a>(kubeconfig: &'a Kubeconfig, cluster: &str) -> Option<&'a Cluster> {
    kubeconfig
        .clusters
        .iter()
        .find(|c| c.name == cluster)?
        .cluster
        .as_ref()
}

/// The `proxy-url` of a context's cluster, if it names a non-empty one.
pub(super) fn cluster_proxy_url(kubeconfig: &Kubeconfig, context: &str) -> Option<String> {
    cluster_named(kubeconfig, context_cluster(kubeconfig, context)?)?
        .proxy_url
        .clone()
        .filter(|p| !p.is_empty())
}

/// The API server URL of a context (part of the node cache key: the same
/// context name may point at another cluster after a kubeconfig change).
/// Empty when the kubeconfig does not say.
pub(super) fn server_of(kubeconfig: &Kubeconfig, context: &str) -> String {
    // A context without a cluster looks up the cluster named "" (normally none: no server).
    let cluster = context_cluster(kubeconfig, context).unwrap_or_default();
    cluster_named(kubeconfig, cluster)
        .and_then(|c| c.server.clone())
        .unwrap_or_default()
}

/// The user entry `context` points at, if it has a body.
fn user_of<'a>(kubeconfig: &'a Kubeconfig, context: &str) -> Option<&'a AuthInfo> {
    let named = kubeconfig.contexts.iter().find(|c| c.name == context)?;
    let user = named.context.as_ref()?.user.as_deref()?;
    kubeconfig
        .auth_infos
        .iter()
        .find(|a| a.name == user)?
        .auth_info
        .as_ref()
}

/// The address of a context's API server when its connection can be opened
/// before its client is built ([`super::transport::Transports::connect_early`]):
/// the server is an IP address (nothing to resolve), reached without a
/// `proxy-url`, by a user without an exec plugin or auth provider (whose run,
/// up to seconds, would leave the connection idle before its first byte).
pub(super) fn direct_addr(kubeconfig: &Kubeconfig, context: &str) -> Option<SocketAddr> {
    if cluster_proxy_url(kubeconfig, context).is_some() {
        return None;
    }
    if user_of(kubeconfig, context).is_some_and(|u| u.exec.is_some() || u.auth_provider.is_some()) {
        return None;
    }
    let server: http::Uri = server_of(kubeconfig, context).parse().ok()?;
    super::transport::literal_addr(&server)
}

/// What a context's node listing depends on, for the node cache key (only
/// ever digested, never stored): its API server, and the context, cluster
/// and user entries as the kubeconfig says them. Another server, namespace,
/// CA or credential (token, client key, exec plugin) is another key, so a
/// changed context or credential lists the nodes again.
pub(super) fn target_of(kubeconfig: &Kubeconfig, context: &str) -> String {
    let inner = kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.as_ref());
    let cluster = cluster_named(
        kubeconfig,
        context_cluster(kubeconfig, context).unwrap_or_default(),
    );
    let user = user_of(kubeconfig, context);
    // Through `Value`, whose maps are sorted: the same entries give the same
    // text in every process (`AuthInfo` holds a `HashMap`).
    serde_json::to_value((server_of(kubeconfig, context), inner, cluster, user))
        .map(|v| v.to_string())
        .unwrap_or_else(|_| server_of(kubeconfig, context))
}

/// `path` for messages, `~/...` when it is under `home`.
pub(super) fn display_path(path: &Path, home: &Path) -> String {
    match path.strip_prefix(home) {
        Ok(rest) if !home.as_os_str().is_empty() => format!("~/{}", rest.display()),
        _ => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_helpers() {
        let home = Path::new("/home/u");
        assert_eq!(
            expand_home("~/k.yaml", home),
            PathBuf::from("/home/u/k.yaml")
        );
        assert_eq!(expand_home("/abs", home), PathBuf::from("/abs"));
        assert_eq!(
            display_path(Path::new("/home/u/.kube/config"), home),
            "~/.kube/config"
        );
        assert_eq!(display_path(Path::new("/etc/kube"), home), "/etc/kube");
    }
}
