//! Kubernetes: kubeconfig contexts and node listing.
//!
//! The I/O edge of the Kubernetes support: it finds the kubeconfig(s) named
//! by the injected environment, works out the allowed contexts (SkyPilot
//! 0.14.1's `sky/clouds/kubernetes.py::Kubernetes.existing_allowed_contexts`)
//! and lists every allowed context's nodes **concurrently**, each
//! listing bounded by a per-request timeout (on the kube `Config` and by an
//! outer tokio timeout), retried with SkyPilot's backoff, and turned into a
//! [`KubeContext`] whose `nodes` is SkyPilot's error text when the context
//! cannot be listed. An unreachable context is data, never a hang or an
//! abort. Everything about the nodes themselves lives in the pure module
//! [`planner::catalog::kubernetes`]; this module fetches the raw `NodeList`
//! JSON and hands it to [`parse_node_list`](planner::catalog::kubernetes::parse_node_list).
//!
//! Never reads the process environment or home directory: only the
//! [`CheckContext`]. (kube itself reads `HTTPS_PROXY`; the resulting proxy is
//! discarded unless the kubeconfig cluster names its own `proxy-url`.)
//!
//! This file is the adapter behind [`Cloud`]: its options and the check,
//! which puts the cache, the listing and the fixture mode together. The
//! parts, re-exported here:
//! * `kubeconfig`: kubeconfig files, allowed contexts, a context's cluster entry;
//! * `plain_yaml`: the fast path that reads a plain kubeconfig as kube does;
//! * `listing`: node and pod listing with timeouts, retries and SkyPilot's
//!   error texts;
//! * `transport`: kube's request layers over one hyper client per TLS
//!   setup, shared by the contexts;
//! * `backoff`: the waits between listing attempts;
//! * `fixture`: offline mode, nodes and pods read from `NodeList` /
//!   `PodList` files;
//! * `node_cache`: the on-disk cache of successful listings;
//! * `exec_credentials`: exec-plugin credentials kept until they expire;
//! * `write_behind`: the node cache's write-back queued until the table
//!   is printed, done before exit.

mod backoff;
mod exec_credentials;
mod fixture;
mod kubeconfig;
mod listing;
mod node_cache;
mod plain_yaml;
#[cfg(test)]
mod remembered_tests;
mod transport;
#[cfg(test)]
mod transport_tests;
mod write_behind;

pub use backoff::BackoffPolicy;
pub use exec_credentials::{
    EXEC_CREDENTIALS_KIND, EXEC_CREDENTIALS_SCHEMA, EXPIRY_MARGIN, ExecCredentials,
};
pub use fixture::{contexts_from_fixture_dir, pods_from_fixture_dir};
pub use kubeconfig::KubeconfigIdentity;
pub(crate) use node_cache::LazyStateNodeCache;
pub use node_cache::{
    Listed, NODE_CACHE_KIND, NODE_CACHE_SCHEMA, NodeCache, PreparedNodes, RememberedKubeconfig,
};
pub use write_behind::{WaitGuard, WriteBehind};

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use planner::catalog::kubernetes::{KubeContext, KubeNode};
use planner::check::{CacheUse, CheckOutcome, CloudError, CloudFacts};
use planner::cloud::CloudId;

use super::{CheckContext, Cloud, Credentials, ServiceOptions};
use kubeconfig::{allowed_of, display_path, target_of};

/// How [`KubernetesCloud`] reaches the clusters.
#[derive(Clone)]
pub struct KubernetesOptions {
    /// Use this kubeconfig instead of `KUBECONFIG` / `<home>/.kube/config`.
    pub kubeconfig: Option<PathBuf>,
    /// The node and pod listings, as SkyPilot makes them: `connect_timeout`
    /// and `request_timeout` bound one listing request (its connect; its
    /// reads, writes and whole) — default here: 5 s each; `max_attempts`
    /// listings per context (default here: 3; 401/403 are never retried),
    /// the first wait between them `retry_backoff` (default here: 1 s) and
    /// the later ones as [`backoff`](Self::backoff) grows it; `cache_ttl` the
    /// maximum age of a cached node listing (default here: 120 s).
    /// `lock_wait` and `clock` are not read: the node cache
    /// ([`node_cache`](Self::node_cache)) keeps its own.
    pub service: ServiceOptions,
    /// How the waits between attempts grow (SkyPilot's `Backoff`).
    pub backoff: BackoffPolicy,
    /// The node cache; `None` = always list (until `optimizer::state` provides one).
    pub node_cache: Option<Arc<dyn NodeCache>>,
    /// Exec-plugin credentials kept across launches until they expire;
    /// `None` = run the plugin for every client, as kube does.
    pub exec_credentials: Option<Arc<ExecCredentials>>,
    /// Where the node cache's write-back goes once the nodes are listed:
    /// `None` (the default) writes it before the check returns; `Some`
    /// queues it, and the caller does it ([`WriteBehind::wait`]) before
    /// exiting (`sky launch` does, after printing the table).
    pub write_behind: Option<Arc<WriteBehind>>,
    /// Offline mode: read `<dir>/<context>.json` NodeLists instead of calling
    /// the API server (see [`contexts_from_fixture_dir`]). Contexts still come
    /// from the kubeconfig.
    pub fixture_dir: Option<PathBuf>,
}

impl Default for KubernetesOptions {
    fn default() -> Self {
        KubernetesOptions {
            kubeconfig: None,
            service: ServiceOptions {
                connect_timeout: Duration::from_secs(5),
                request_timeout: Duration::from_secs(5),
                max_attempts: 3,
                retry_backoff: Duration::from_secs(1),
                cache_ttl: Duration::from_secs(120),
                ..ServiceOptions::default()
            },
            backoff: BackoffPolicy::default(),
            node_cache: None,
            exec_credentials: None,
            write_behind: None,
            fixture_dir: None,
        }
    }
}

impl fmt::Debug for KubernetesOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KubernetesOptions")
            .field("kubeconfig", &self.kubeconfig)
            .field("service", &self.service)
            .field("backoff", &self.backoff)
            .field(
                "node_cache",
                &self.node_cache.as_ref().map(|_| "<dyn NodeCache>"),
            )
            .field("exec_credentials", &self.exec_credentials.is_some())
            .field("write_behind", &self.write_behind.is_some())
            .field("fixture_dir", &self.fixture_dir)
            .finish()
    }
}

/// The Kubernetes adapter.
#[derive(Debug, Clone, Default)]
pub struct KubernetesCloud {
    options: KubernetesOptions,
    /// The hyper clients the listings share (one per TLS setup).
    transports: transport::Transports,
}

/// SkyPilot's message when no allowed context is usable.
const NO_CONTEXT_MESSAGE: &str =
    "No available context found in kubeconfig. Check if you have a valid kubeconfig file";

impl KubernetesCloud {
    /// An adapter with these options.
    pub fn new(options: KubernetesOptions) -> Self {
        KubernetesCloud {
            options,
            transports: transport::Transports::default(),
        }
    }

    /// The options in use.
    pub fn options(&self) -> &KubernetesOptions {
        &self.options
    }

    async fn check_inner(&self, ctx: &CheckContext) -> Result<CheckOutcome, CloudError> {
        // The node cache's kubeconfig is read by identity (a `stat` per file).
        let remembering = self
            .options
            .node_cache
            .as_ref()
            .filter(|_| self.options.fixture_dir.is_none())
            .map(|cache| (cache, self.kubeconfig_identity(ctx)));
        if let Some((cache, identity)) = &remembering
            && !ctx.refresh
            && let Some(outcome) = self.check_remembered(ctx, cache.as_ref(), identity)
        {
            return Ok(outcome);
        }
        let resolved = self.resolve_contexts(ctx)?;
        for warning in &resolved.warnings {
            tracing::warn!("{warning}");
        }
        let contexts = &resolved.allowed.contexts;
        if contexts.is_empty() {
            return Err(CloudError::Config(NO_CONTEXT_MESSAGE.to_string()));
        }
        if let Some(dir) = &self.options.fixture_dir {
            let listed = contexts_from_fixture_dir(dir, contexts);
            return Ok(CheckOutcome {
                facts: CloudFacts::Kubernetes(listed),
                cache: CacheUse::None,
            });
        }
        // The kubeconfig is remembered (its targets digested) while the API
        // servers answer, not before the first request is sent.
        let identity = remembering.as_ref().map(|(_, identity)| identity);
        let (out, cache) = self
            .list_and_remember(ctx, &resolved.kubeconfig, contexts, identity)
            .await;
        Ok(CheckOutcome {
            facts: CloudFacts::Kubernetes(out),
            cache,
        })
    }

    /// The check of a warm launch, without reading the kubeconfig: when the
    /// node cache remembers the files as they are (`identity`) and holds a
    /// fresh listing of every allowed context. `None`: the check reads the
    /// kubeconfig (and lists what is not cached) as usual.
    fn check_remembered(
        &self,
        ctx: &CheckContext,
        cache: &dyn NodeCache,
        identity: &KubeconfigIdentity,
    ) -> Option<CheckOutcome> {
        let remembered = cache.recall(identity)?;
        let allowed = allowed_of(ctx, &remembered.names, remembered.current.as_deref());
        if allowed.contexts.is_empty() {
            return None;
        }
        let hits = cache.get_remembered(
            &remembered,
            &allowed.contexts,
            self.options.service.cache_ttl,
        );
        let hits: Vec<(Vec<KubeNode>, Duration)> = hits.into_iter().collect::<Option<_>>()?;
        if let Some(warning) = allowed.warning() {
            tracing::warn!("{warning}");
        }
        let age = hits.iter().map(|(_, age)| *age).max()?;
        let contexts = allowed
            .contexts
            .into_iter()
            .zip(hits)
            .map(|(name, (nodes, _))| {
                let span = tracing::info_span!("kubernetes.list_nodes", context = %name, nodes = nodes.len(), outcome = "cache_hit");
                let _entered = span.enter();
                KubeContext {
                    name,
                    nodes: Ok(nodes),
                }
            })
            .collect();
        Some(CheckOutcome {
            facts: CloudFacts::Kubernetes(contexts),
            cache: CacheUse::Hit { age },
        })
    }

    /// The nodes of `contexts`, from the node cache when fresh, else listed
    /// concurrently (and cached when successful), with what the cache did.
    /// SSH Node Pools list their `ssh-<pool>` contexts through this too.
    pub(crate) async fn list_with_cache(
        &self,
        ctx: &CheckContext,
        kubeconfig: &kube::config::Kubeconfig,
        contexts: &[String],
    ) -> (Vec<KubeContext>, CacheUse) {
        self.list_and_remember(ctx, kubeconfig, contexts, None)
            .await
    }

    /// [`list_with_cache`](Self::list_with_cache), and when `remember` is
    /// given, the node cache told that the kubeconfig files of that identity
    /// hold these contexts ([`NodeCache::remember`]).
    ///
    /// Only what must come first happens before the requests are sent (the
    /// cache lookup, which needs each context's target, unless `--refresh`
    /// skips it); the rest — every context's target, the remembered
    /// kubeconfig and the read of the entry the put merges into — is done
    /// once the listings have sent their requests, while the API servers
    /// answer: anything before the first request adds to the wait itself.
    async fn list_and_remember(
        &self,
        ctx: &CheckContext,
        kubeconfig: &kube::config::Kubeconfig,
        contexts: &[String],
        remember: Option<&KubeconfigIdentity>,
    ) -> (Vec<KubeContext>, CacheUse) {
        let cache = self.options.node_cache.as_ref().filter(|_| !ctx.refresh);
        // Cache first (no network for fresh entries), then list the rest concurrently.
        let early: Option<Vec<String>> =
            cache.map(|_| contexts.iter().map(|c| target_of(kubeconfig, c)).collect());
        let mut cached: Vec<Option<(Vec<KubeNode>, Duration)>> = match (cache, &early) {
            (Some(cache), Some(servers)) => {
                let keys: Vec<(&str, &str)> = contexts
                    .iter()
                    .zip(servers)
                    .map(|(c, s)| (c.as_str(), s.as_str()))
                    .collect();
                cache.get(&keys, self.options.service.cache_ttl)
            }
            _ => vec![None; contexts.len()],
        };
        let to_list: Vec<String> = contexts
            .iter()
            .zip(&cached)
            .filter(|(_, hit)| hit.is_none())
            .map(|(c, _)| c.clone())
            .collect();
        let deadline = (!ctx.cloud_timeout.is_zero()).then(|| ctx.cloud_timeout.mul_f64(0.9));
        // Each listing's nodes are prepared for the cache's write as they
        // arrive (their JSON, for 64 contexts ~0.7 ms), not after the last.
        let listing = self.list_contexts(
            kubeconfig,
            &to_list,
            deadline,
            self.options.node_cache.as_deref(),
        );
        let meanwhile = async {
            if !to_list.is_empty() {
                // A few turns of the runtime: the clients connect and the
                // requests are written before this thread does anything else.
                for _ in 0..REQUESTS_SENT_AFTER_TURNS {
                    tokio::task::yield_now().await;
                }
            }
            let servers = self.targets_remembered(kubeconfig, contexts, early, remember);
            // Under `--refresh` nothing was read from the cache; it reads
            // what its write will merge into while the API servers answer.
            let prepared = self
                .options
                .node_cache
                .as_ref()
                .filter(|_| ctx.refresh && !to_list.is_empty())
                .map(|cache| {
                    let cache = Arc::clone(cache);
                    tokio::task::spawn_blocking(move || cache.prepare_put())
                });
            if let Some(prepared) = prepared {
                let _ = prepared.await;
            }
            servers
        };
        let (listed, servers) = futures::join!(listing, meanwhile);
        let mut listed = listed.into_iter();

        let mut out = Vec::with_capacity(contexts.len());
        let mut max_age: Option<Duration> = None;
        // Each context with the target its nodes were just listed from (`None`: cached).
        for ((name, hit), server) in contexts.iter().zip(cached.iter_mut()).zip(&servers) {
            if let Some((nodes, age)) = hit.take() {
                let span = tracing::info_span!("kubernetes.list_nodes", context = %name, nodes = nodes.len(), outcome = "cache_hit");
                let _entered = span.enter();
                max_age = Some(max_age.map_or(age, |m| m.max(age)));
                out.push((
                    KubeContext {
                        name: name.clone(),
                        nodes: Ok(nodes),
                    },
                    None,
                ));
            } else if let Some((ctx_result, prepared)) = listed.next() {
                out.push((ctx_result, Some((server.as_str(), prepared))));
            }
        }
        if let Some(cache) = &self.options.node_cache {
            let listings: Vec<Listed<'_>> = out
                .iter_mut()
                .filter_map(|(listed, server)| match (&listed.nodes, server) {
                    (Ok(nodes), Some((target, prepared))) => Some(Listed {
                        context: listed.name.as_str(),
                        target,
                        nodes,
                        prepared: prepared.take(),
                    }),
                    _ => None,
                })
                .collect();
            let ttl = self.options.service.cache_ttl;
            // The listings go on to the plan: what the write needs of them
            // (the on-disk cache: their JSON, made as they arrived) is taken
            // now, instead of a copy of them.
            let write = Arc::clone(cache).put_later(listings, ttl);
            let put = move || {
                let _span = tracing::info_span!("kubernetes.node_cache_put").entered();
                write();
            };
            match &self.options.write_behind {
                Some(behind) => behind.defer(put),
                None => put(),
            }
        }
        if let Some(behind) = &self.options.write_behind {
            // The listings' connections stay open until the answer is out:
            // closing them (64 contexts: a shutdown, a deregistration and a
            // close each, and their tasks' last turns) came between the last
            // answer and the table. The process ends right after, and the
            // kernel closes what is left.
            let connections = self.transports.clone();
            behind.defer(move || drop(connections));
        }
        let out: Vec<KubeContext> = out.into_iter().map(|(c, _)| c).collect();
        let cache_use = match (&self.options.node_cache, to_list.is_empty(), max_age) {
            (None, _, _) => CacheUse::None,
            (Some(_), true, Some(age)) => CacheUse::Hit { age },
            _ => CacheUse::Miss,
        };
        (out, cache_use)
    }
}

impl KubernetesCloud {
    /// Each of `contexts`' target (`early`, when the cache lookup already
    /// made them), after telling the node cache, when `remember` is given,
    /// which contexts the kubeconfig files of that identity hold. Every
    /// context's target is made once, for both.
    fn targets_remembered(
        &self,
        kubeconfig: &kube::config::Kubeconfig,
        contexts: &[String],
        early: Option<Vec<String>>,
        remember: Option<&KubeconfigIdentity>,
    ) -> Vec<String> {
        let cache = self.options.node_cache.as_ref();
        let Some((cache, identity)) = cache.zip(remember) else {
            return early
                .unwrap_or_else(|| contexts.iter().map(|c| target_of(kubeconfig, c)).collect());
        };
        let targets: Vec<String> = kubeconfig
            .contexts
            .iter()
            .map(|c| target_of(kubeconfig, &c.name))
            .collect();
        let named: Vec<(&str, &str)> = kubeconfig
            .contexts
            .iter()
            .zip(&targets)
            .map(|(c, t)| (c.name.as_str(), t.as_str()))
            .collect();
        cache.remember(identity, &named, kubeconfig.current_context.as_deref());
        early.unwrap_or_else(|| {
            // `target_of` reads the first context of a name, as `find` does here.
            contexts
                .iter()
                .map(|c| match named.iter().find(|(n, _)| n == c) {
                    Some((_, t)) => t.to_string(),
                    None => target_of(kubeconfig, c),
                })
                .collect()
        })
    }
}

/// Turns of the runtime the listings get, once polled, before the work
/// that can wait for their answers: on loopback the connections complete
/// and the requests are written within two (the rest are a margin: a turn
/// in which every listing is still waiting costs next to nothing); on a
/// real network the work then overlaps the connections instead.
const REQUESTS_SENT_AFTER_TURNS: usize = 16;

/// What `sky gpus list` reads of one context: its nodes (node cache
/// first) and, when they have labelled accelerators, its pods.
pub(crate) async fn context_gpu_data(
    cloud: &KubernetesCloud,
    ctx: &CheckContext,
    kubeconfig: &kube::config::Kubeconfig,
    context: &str,
) -> planner::gpus::show::ContextData {
    use planner::gpus::kubernetes::{Pods, needs_pods};
    let (mut listed, _) = cloud
        .list_with_cache(ctx, kubeconfig, &[context.to_string()])
        .await;
    let nodes = listed.pop().map(|c| c.nodes).unwrap_or_else(|| {
        Err(planner::catalog::kubernetes::unreachable_timeout_message(
            context,
        ))
    });
    let pods = match &nodes {
        Ok(n) if needs_pods(n) => cloud.list_pods(kubeconfig, context).await,
        _ => Pods::NotListed,
    };
    planner::gpus::show::ContextData { nodes, pods }
}

impl Cloud for KubernetesCloud {
    fn id(&self) -> CloudId {
        CloudId::Kubernetes
    }

    fn credentials(&self, ctx: &CheckContext) -> Credentials {
        let paths = self.kubeconfig_paths(ctx);
        let found: Vec<String> = paths
            .iter()
            .filter(|p| p.is_file())
            .map(|p| display_path(p, &ctx.home))
            .collect();
        if found.is_empty() {
            let looked: Vec<String> = paths.iter().map(|p| display_path(p, &ctx.home)).collect();
            Credentials::Missing(format!(
                "{NO_CONTEXT_MESSAGE} (looked for {}). Set KUBECONFIG or create ~/.kube/config.",
                looked.join(", ")
            ))
        } else {
            Credentials::Present(found.join(":"))
        }
    }

    fn check<'a>(
        &'a self,
        ctx: &'a CheckContext,
    ) -> BoxFuture<'a, Result<CheckOutcome, CloudError>> {
        Box::pin(self.check_inner(ctx))
    }
}
