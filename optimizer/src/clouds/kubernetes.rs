//! Kubernetes: kubeconfig contexts and node listing.
//!
//! The I/O edge of the Kubernetes support: it finds the kubeconfig(s) named
//! by the injected environment, works out the allowed contexts (SkyPilot
//! 0.14 §5.3) and lists every allowed context's nodes **concurrently**, each
//! listing bounded by a per-request timeout (on the kube `Config` and by an
//! outer tokio timeout), retried with SkyPilot's backoff, and turned into a
//! [`KubeContext`] whose `nodes` is SkyPilot's error text when the context
//! cannot be listed. An unreachable context is data, never a hang or an
//! abort. Everything about the nodes themselves lives in the pure module
//! [`planner::catalog::kubernetes`]; this module fetches the raw `NodeList`
//! JSON and hands it to [`parse_node_list`].
//!
//! Never reads the process environment or home directory: only the
//! [`CheckContext`]. (kube itself reads `HTTPS_PROXY`; the resulting proxy is
//! discarded unless the kubeconfig cluster names its own `proxy-url`.)

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures::future::{BoxFuture, join_all};
use kube::config::{KubeConfigOptions, Kubeconfig};
use tracing::Instrument;

use super::{CheckContext, Cloud, Credentials};
use planner::catalog::kubernetes::{
    AllowedContexts, KubeContext, KubeNode, allowed_contexts, parse_node_list,
    unreachable_api_message, unreachable_timeout_message,
};
use planner::check::{CacheUse, CheckOutcome, CloudError, CloudFacts};
use planner::cloud::CloudId;

/// SkyPilot's exponential backoff between node-listing attempts
/// (`common_utils.Backoff(initial_backoff=1, max_backoff_factor=3)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BackoffPolicy {
    /// First wait (SkyPilot: 1 s).
    pub initial: Duration,
    /// Growth per attempt (SkyPilot: 1.6).
    pub multiplier: f64,
    /// The un-jittered wait is capped at `initial × max_factor` (SkyPilot: 3).
    pub max_factor: f64,
    /// Relative jitter added to each wait, uniformly in ±`jitter` (SkyPilot: 0.4).
    pub jitter: f64,
}

impl Default for BackoffPolicy {
    fn default() -> Self {
        BackoffPolicy {
            initial: Duration::from_secs(1),
            multiplier: 1.6,
            max_factor: 3.0,
            jitter: 0.4,
        }
    }
}

/// The state of one backoff sequence (jitter is carried into the next step,
/// as SkyPilot's `Backoff.current_backoff` does).
#[derive(Debug, Clone)]
pub struct Backoff {
    policy: BackoffPolicy,
    current: Option<f64>,
}

impl Backoff {
    /// A fresh sequence.
    pub fn new(policy: BackoffPolicy) -> Self {
        Backoff {
            policy,
            current: None,
        }
    }

    /// The next wait; `unit` is a uniform random number in `[0, 1)`.
    pub fn next_wait(&mut self, unit: f64) -> Duration {
        let initial = self.policy.initial.as_secs_f64();
        let max = initial * self.policy.max_factor;
        let base = match self.current {
            None => initial.min(max),
            Some(prev) => (prev * self.policy.multiplier).min(max),
        };
        let jittered = base + (2.0 * unit.clamp(0.0, 1.0) - 1.0) * self.policy.jitter * base;
        self.current = Some(jittered);
        Duration::try_from_secs_f64(jittered.max(0.0)).unwrap_or_default()
    }
}

fn random_unit() -> f64 {
    getrandom::u64().map_or(0.5, |x| (x >> 11) as f64 / (1u64 << 53) as f64)
}

/// The on-disk node cache, to be provided by `optimizer::state`.
///
/// This is the seam for it: [`KubernetesCloud`] consults it (unless
/// `ctx.refresh`) before listing a context and fills it after a successful
/// listing. Failed listings are never cached.
pub trait NodeCache: Send + Sync {
    /// Cached nodes for `context` at API server `server` no older than `max_age`, with their age.
    fn get(
        &self,
        context: &str,
        server: &str,
        max_age: Duration,
    ) -> Option<(Vec<KubeNode>, Duration)>;
    /// Stores a successful listing.
    fn put(&self, context: &str, server: &str, nodes: &[KubeNode], ttl: Duration);
}

/// How [`KubernetesCloud`] reaches the clusters.
#[derive(Clone)]
pub struct KubernetesOptions {
    /// Use this kubeconfig instead of `KUBECONFIG` / `<home>/.kube/config`.
    pub kubeconfig: Option<PathBuf>,
    /// Timeout of one node-listing request (connect, read and the whole
    /// request). SkyPilot: 5 s.
    pub request_timeout: Duration,
    /// Listing attempts per context (SkyPilot: 3). 401/403 are never retried.
    pub attempts: u32,
    /// Waits between attempts.
    pub backoff: BackoffPolicy,
    /// Maximum age of a cached node listing (120 s).
    pub node_cache_ttl: Duration,
    /// The node cache; `None` = always list (until `optimizer::state` provides one).
    pub node_cache: Option<Arc<dyn NodeCache>>,
    /// Offline mode: read `<dir>/<context>.json` NodeLists instead of calling
    /// the API server (see [`contexts_from_fixture_dir`]). Contexts still come
    /// from the kubeconfig.
    pub fixture_dir: Option<PathBuf>,
}

impl Default for KubernetesOptions {
    fn default() -> Self {
        KubernetesOptions {
            kubeconfig: None,
            request_timeout: Duration::from_secs(5),
            attempts: 3,
            backoff: BackoffPolicy::default(),
            node_cache_ttl: Duration::from_secs(120),
            node_cache: None,
            fixture_dir: None,
        }
    }
}

impl fmt::Debug for KubernetesOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KubernetesOptions")
            .field("kubeconfig", &self.kubeconfig)
            .field("request_timeout", &self.request_timeout)
            .field("attempts", &self.attempts)
            .field("backoff", &self.backoff)
            .field("node_cache_ttl", &self.node_cache_ttl)
            .field(
                "node_cache",
                &self.node_cache.as_ref().map(|_| "<dyn NodeCache>"),
            )
            .field("fixture_dir", &self.fixture_dir)
            .finish()
    }
}

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

/// The Kubernetes adapter.
#[derive(Debug, Clone, Default)]
pub struct KubernetesCloud {
    options: KubernetesOptions,
}

/// SkyPilot's message when no allowed context is usable.
const NO_CONTEXT_MESSAGE: &str =
    "No available context found in kubeconfig. Check if you have a valid kubeconfig file";

impl KubernetesCloud {
    /// An adapter with these options.
    pub fn new(options: KubernetesOptions) -> Self {
        KubernetesCloud { options }
    }

    /// The options in use.
    pub fn options(&self) -> &KubernetesOptions {
        &self.options
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
            let next = Kubeconfig::read_from(path).map_err(|e| {
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
        let allow_all_env = ctx
            .env
            .get("SKYPILOT_ALLOW_ALL_KUBERNETES_CONTEXTS")
            .is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "true" | "1"));
        let allowed = allowed_contexts(
            &names,
            kubeconfig.current_context.as_deref(),
            ctx.kubernetes_allowed_contexts.as_deref(),
            allow_all_env,
        );
        let warnings = allowed.warning().into_iter().collect();
        Ok(ResolvedContexts {
            kubeconfig,
            allowed,
            warnings,
        })
    }

    /// Lists the nodes of `contexts` concurrently. Each context is bounded by
    /// the per-request timeout × attempts (plus backoff) and, when given, by
    /// `deadline`; failures are SkyPilot's messages in [`KubeContext::nodes`].
    pub async fn list_contexts(
        &self,
        kubeconfig: &Kubeconfig,
        contexts: &[String],
        deadline: Option<Duration>,
    ) -> Vec<KubeContext> {
        join_all(contexts.iter().map(|name| {
            let span = tracing::info_span!(
                "kubernetes.list_nodes",
                context = %name,
                nodes = tracing::field::Empty,
                outcome = tracing::field::Empty,
            );
            async move {
                let work = self.list_context(kubeconfig, name);
                let nodes = match deadline {
                    Some(d) => tokio::time::timeout(d, work)
                        .await
                        .unwrap_or_else(|_| Err(unreachable_timeout_message(name))),
                    None => work.await,
                };
                record_outcome(&nodes, "listed");
                KubeContext {
                    name: name.clone(),
                    nodes,
                }
            }
            .instrument(span)
        }))
        .await
    }

    async fn list_context(
        &self,
        kubeconfig: &Kubeconfig,
        context: &str,
    ) -> Result<Vec<KubeNode>, String> {
        let client = self
            .client_for(kubeconfig, context)
            .await
            .map_err(|f| f.message(context))?;
        let attempts = self.options.attempts.max(1);
        let mut backoff = Backoff::new(self.options.backoff);
        let mut last = Failure::Timeout;
        for attempt in 1..=attempts {
            match self.list_once(&client).await {
                Ok(nodes) => return Ok(nodes),
                Err(failure) if failure.is_fatal() => return Err(failure.message(context)),
                Err(failure) => {
                    tracing::debug!(context, attempt, error = %failure.message(context), "node listing failed");
                    last = failure;
                }
            }
            if attempt < attempts {
                tokio::time::sleep(backoff.next_wait(random_unit())).await;
            }
        }
        Err(last.message(context))
    }

    async fn client_for(
        &self,
        kubeconfig: &Kubeconfig,
        context: &str,
    ) -> Result<kube::Client, Failure> {
        let options = KubeConfigOptions {
            context: Some(context.to_string()),
            ..Default::default()
        };
        let mut config = kube::Config::from_custom_kubeconfig(kubeconfig.clone(), &options)
            .await
            .map_err(|e| Failure::Config(e.to_string()))?;
        // kube fills `proxy_url` from the *process* HTTPS_PROXY when the cluster
        // has no `proxy-url`; without the `http-proxy` feature that fails client
        // construction, and it is hidden global state. Only honour the kubeconfig.
        if cluster_proxy_url(kubeconfig, context).is_none() {
            config.proxy_url = None;
        }
        // Plain-http API servers (local proxies, tests) never use TLS: an empty
        // root store avoids loading the platform's roots (~70 ms per client in
        // debug builds) for a connector that is never used.
        if config.cluster_url.scheme_str() == Some("http") && config.root_cert.is_none() {
            config.root_cert = Some(Vec::new());
        }
        let timeout = self.options.request_timeout;
        config.connect_timeout = Some(timeout);
        config.read_timeout = Some(timeout);
        config.write_timeout = Some(timeout);
        config.reset_reader_on_write = true;
        config.default_retry = false;
        // Client construction may run an exec credential plugin synchronously:
        // keep it off the async workers and bound it.
        let build = tokio::task::spawn_blocking(move || kube::Client::try_from(config));
        match tokio::time::timeout(timeout, build).await {
            Err(_) => Err(Failure::Timeout),
            Ok(Err(join)) => Err(Failure::Config(format!(
                "client construction failed: {join}"
            ))),
            Ok(Ok(Err(e))) => Err(Failure::Config(e.to_string())),
            Ok(Ok(Ok(client))) => Ok(client),
        }
    }

    async fn list_once(&self, client: &kube::Client) -> Result<Vec<KubeNode>, Failure> {
        let request = kube::core::Request::new("/api/v1/nodes")
            .list(&kube::api::ListParams::default())
            .map_err(|e| Failure::Config(e.to_string()))?;
        let attempt = async {
            let response = client
                .send(request.map(kube::client::Body::from))
                .await
                .map_err(Failure::from_kube)?;
            let status = response.status();
            let cloudflare = response.headers().iter().any(|(k, v)| {
                let k = k.as_str().to_ascii_lowercase();
                k.contains("cf-ray")
                    || (k.contains("server")
                        && v.to_str()
                            .is_ok_and(|v| v.to_ascii_lowercase().contains("cloudflare")))
            });
            let body = response
                .into_body()
                .collect_bytes()
                .await
                .map_err(Failure::from_kube)?;
            if !status.is_success() {
                let text = format!(
                    "({})\nReason: {}\nHTTP response body: {}\n",
                    status.as_u16(),
                    status.canonical_reason().unwrap_or(""),
                    String::from_utf8_lossy(&body)
                );
                return Err(if matches!(status.as_u16(), 401 | 403) && !cloudflare {
                    Failure::Rejected(text)
                } else {
                    Failure::Api(text)
                });
            }
            parse_node_list(&body[..]).map_err(|e| Failure::Malformed(e.to_string()))
        };
        tokio::time::timeout(self.options.request_timeout, attempt)
            .await
            .unwrap_or(Err(Failure::Timeout))
    }

    async fn check_inner(&self, ctx: &CheckContext) -> Result<CheckOutcome, CloudError> {
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

        // Cache first (no network for fresh entries), then list the rest concurrently.
        let cache = self.options.node_cache.as_ref().filter(|_| !ctx.refresh);
        let mut cached: Vec<Option<(Vec<KubeNode>, Duration)>> = contexts
            .iter()
            .map(|c| {
                cache.and_then(|cache| {
                    cache.get(
                        c,
                        &server_of(&resolved.kubeconfig, c),
                        self.options.node_cache_ttl,
                    )
                })
            })
            .collect();
        let to_list: Vec<String> = contexts
            .iter()
            .zip(&cached)
            .filter(|(_, hit)| hit.is_none())
            .map(|(c, _)| c.clone())
            .collect();
        let deadline = (!ctx.cloud_timeout.is_zero()).then(|| ctx.cloud_timeout.mul_f64(0.9));
        let mut listed = self
            .list_contexts(&resolved.kubeconfig, &to_list, deadline)
            .await
            .into_iter();

        let mut out = Vec::with_capacity(contexts.len());
        let mut max_age: Option<Duration> = None;
        for (name, hit) in contexts.iter().zip(cached.iter_mut()) {
            if let Some((nodes, age)) = hit.take() {
                let span = tracing::info_span!("kubernetes.list_nodes", context = %name, nodes = nodes.len(), outcome = "cache_hit");
                let _entered = span.enter();
                max_age = Some(max_age.map_or(age, |m| m.max(age)));
                out.push(KubeContext {
                    name: name.clone(),
                    nodes: Ok(nodes),
                });
            } else if let Some(ctx_result) = listed.next() {
                if let (Some(cache), Ok(nodes)) =
                    (self.options.node_cache.as_ref(), &ctx_result.nodes)
                {
                    cache.put(
                        name,
                        &server_of(&resolved.kubeconfig, name),
                        nodes,
                        self.options.node_cache_ttl,
                    );
                }
                out.push(ctx_result);
            }
        }
        let cache_use = match (&self.options.node_cache, to_list.is_empty(), max_age) {
            (None, _, _) => CacheUse::None,
            (Some(_), true, Some(age)) => CacheUse::Hit { age },
            _ => CacheUse::Miss,
        };
        Ok(CheckOutcome {
            facts: CloudFacts::Kubernetes(out),
            cache: cache_use,
        })
    }
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

/// Offline mode: each context's nodes from `<dir>/<context>.json` (a
/// `NodeList` as `kubectl get nodes -o json` prints it; `/` in a context
/// name becomes `_`). A missing file makes that context unreachable with
/// SkyPilot's timeout message, unless `<dir>/<context>.error` exists, whose
/// text is then the error; an unparsable file gives the API-error message.
pub fn contexts_from_fixture_dir(dir: &Path, contexts: &[String]) -> Vec<KubeContext> {
    contexts
        .iter()
        .map(|name| {
            let span = tracing::info_span!(
                "kubernetes.list_nodes",
                context = %name,
                nodes = tracing::field::Empty,
                outcome = tracing::field::Empty,
            );
            let _entered = span.enter();
            let stem = name.replace('/', "_");
            let json = dir.join(format!("{stem}.json"));
            let nodes = match std::fs::File::open(&json) {
                Ok(file) => {
                    parse_node_list(file).map_err(|e| unreachable_api_message(name, &e.to_string()))
                }
                Err(_) => match std::fs::read_to_string(dir.join(format!("{stem}.error"))) {
                    Ok(text) => Err(text.trim().to_string()),
                    Err(_) => Err(unreachable_timeout_message(name)),
                },
            };
            record_outcome(&nodes, "fixture");
            KubeContext {
                name: name.clone(),
                nodes,
            }
        })
        .collect()
}

fn record_outcome(nodes: &Result<Vec<KubeNode>, String>, ok: &str) {
    let span = tracing::Span::current();
    match nodes {
        Ok(list) => {
            span.record("nodes", list.len());
            span.record("outcome", ok);
        }
        Err(e) => {
            span.record("nodes", 0);
            span.record("outcome", "error");
            tracing::info!(error = %e, "context unreachable");
        }
    }
}

/// Why one listing attempt failed.
#[derive(Debug)]
enum Failure {
    /// Connect/read timeout, connection refused, reset... (urllib3 `MaxRetryError`).
    Timeout,
    /// A non-2xx answer other than a real 401/403 (retried).
    Api(String),
    /// 401/403 (not a transient Cloudflare 403): never retried.
    Rejected(String),
    /// The answer was not a NodeList (not retried).
    Malformed(String),
    /// The kubeconfig/credentials for the context are unusable (not retried).
    Config(String),
}

impl Failure {
    fn from_kube(e: kube::Error) -> Failure {
        match e {
            kube::Error::Auth(e) => Failure::Config(e.to_string()),
            kube::Error::Api(status) => Failure::Api(status.to_string()),
            _ => Failure::Timeout,
        }
    }

    fn is_fatal(&self) -> bool {
        matches!(
            self,
            Failure::Rejected(_) | Failure::Malformed(_) | Failure::Config(_)
        )
    }

    /// SkyPilot's `KubeAPIUnreachableError` text.
    fn message(&self, context: &str) -> String {
        match self {
            Failure::Timeout => unreachable_timeout_message(context),
            Failure::Api(text) | Failure::Malformed(text) => unreachable_api_message(context, text),
            Failure::Rejected(text) => format!("Kubernetes API error: {text}"),
            Failure::Config(text) => format!(
                "Kubernetes configuration error when trying to get node info: {text} Please check if the \
                 cluster is healthy and retry. To debug, run: kubectl get nodes --context {context}"
            ),
        }
    }
}

fn cluster_proxy_url(kubeconfig: &Kubeconfig, context: &str) -> Option<String> {
    let cluster = kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context)?
        .context
        .as_ref()?
        .cluster
        .clone();
    kubeconfig
        .clusters
        .iter()
        .find(|c| c.name == cluster)?
        .cluster
        .as_ref()?
        .proxy_url
        .clone()
        .filter(|p| !p.is_empty())
}

fn expand_home(path: &str, home: &Path) -> PathBuf {
    if path == "~" {
        home.to_path_buf()
    } else if let Some(rest) = path.strip_prefix("~/") {
        home.join(rest)
    } else {
        PathBuf::from(path)
    }
}

fn display_path(path: &Path, home: &Path) -> String {
    match path.strip_prefix(home) {
        Ok(rest) if !home.as_os_str().is_empty() => format!("~/{}", rest.display()),
        _ => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_sequence() {
        let mut b = Backoff::new(BackoffPolicy::default());
        // No jitter (unit = 0.5): 1, 1.6, 2.56, 3 (cap), 3.
        let waits: Vec<f64> = (0..5).map(|_| b.next_wait(0.5).as_secs_f64()).collect();
        for (got, want) in waits.iter().zip([1.0, 1.6, 2.56, 3.0, 3.0]) {
            assert!((got - want).abs() < 1e-9, "{waits:?}");
        }
        let mut b = Backoff::new(BackoffPolicy::default());
        assert!((b.next_wait(0.0).as_secs_f64() - 0.6).abs() < 1e-9);
        assert!((b.next_wait(1.0).as_secs_f64() - 0.96 * 1.4).abs() < 1e-9);
    }

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

/// The API server URL of a context (part of the node cache key: the same
/// context name may point at another cluster after a kubeconfig change).
fn server_of(kubeconfig: &Kubeconfig, context: &str) -> String {
    let cluster = kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.as_ref())
        .map(|c| c.cluster.clone())
        .unwrap_or_default();
    kubeconfig
        .clusters
        .iter()
        .find(|c| c.name == cluster)
        .and_then(|c| c.cluster.as_ref())
        .and_then(|c| c.server.clone())
        .unwrap_or_default()
}

/// The on-disk [`NodeCache`]: one entry per (context, server), keyed by an
/// HMAC digest, written atomically by [`crate::state::CacheStore`].
#[derive(Debug, Clone)]
pub struct StateNodeCache {
    store: crate::state::CacheStore,
    hasher: crate::state::KeyedHasher,
}

/// A [`StateNodeCache`] opened on first use, from inside the Kubernetes
/// check: opening may create the state folder and its key (with fsyncs), and
/// doing that while the adapters are being built would delay every cloud's
/// check, not just this one.
#[derive(Debug)]
pub struct LazyStateNodeCache {
    state_dir: std::path::PathBuf,
    opened: std::sync::OnceLock<Option<StateNodeCache>>,
}

impl LazyStateNodeCache {
    /// A node cache under the state folder `state_dir`, opened when first used.
    pub fn new(state_dir: impl Into<std::path::PathBuf>) -> Self {
        LazyStateNodeCache {
            state_dir: state_dir.into(),
            opened: std::sync::OnceLock::new(),
        }
    }

    fn cache(&self) -> Option<&StateNodeCache> {
        self.opened
            .get_or_init(|| {
                crate::state::StateDir::open(&self.state_dir)
                    .and_then(|s| StateNodeCache::open(&s))
                    // Without a usable state folder the nodes are simply listed every time.
                    .inspect_err(|e| tracing::warn!(error = %e, "Kubernetes node cache disabled"))
                    .ok()
            })
            .as_ref()
    }
}

impl NodeCache for LazyStateNodeCache {
    fn get(
        &self,
        context: &str,
        server: &str,
        max_age: Duration,
    ) -> Option<(Vec<KubeNode>, Duration)> {
        self.cache()?.get(context, server, max_age)
    }

    fn put(&self, context: &str, server: &str, nodes: &[KubeNode], ttl: Duration) {
        if let Some(cache) = self.cache() {
            cache.put(context, server, nodes, ttl);
        }
    }
}

/// Cache kind (folder) of Kubernetes node listings.
pub const NODE_CACHE_KIND: &str = "kube-nodes";

/// Schema version of node cache entries.
pub const NODE_CACHE_SCHEMA: u32 = 1;

impl StateNodeCache {
    /// A node cache under `state`.
    pub fn open(state: &crate::state::StateDir) -> Result<Self, crate::state::StateError> {
        Ok(StateNodeCache {
            store: state.store(NODE_CACHE_KIND, NODE_CACHE_SCHEMA)?,
            hasher: state.hasher()?,
        })
    }

    fn key(&self, context: &str, server: &str) -> String {
        self.hasher.digest(&[
            ("context", context.as_bytes()),
            ("server", server.as_bytes()),
        ])
    }
}

impl NodeCache for StateNodeCache {
    fn get(
        &self,
        context: &str,
        server: &str,
        max_age: Duration,
    ) -> Option<(Vec<KubeNode>, Duration)> {
        match self.store.get::<Vec<KubeNode>>(&self.key(context, server)) {
            crate::state::Lookup::Hit { value, age } if age <= max_age => Some((value, age)),
            _ => None,
        }
    }

    fn put(&self, context: &str, server: &str, nodes: &[KubeNode], ttl: Duration) {
        if let Err(e) = self.store.put(&self.key(context, server), &nodes, ttl) {
            tracing::warn!(error = %e, "cannot write the Kubernetes node cache");
        }
    }
}
