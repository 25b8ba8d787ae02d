//! Listing a context's nodes from its API server: concurrently across
//! contexts, each request bounded by a timeout, retried with backoff, and
//! every failure turned into SkyPilot's `KubeAPIUnreachableError` text.
//!
//! SkyPilot 0.14.1's `sky/provision/kubernetes/utils.py::get_kubernetes_nodes`
//! under its `_retry_on_error` decorator (401/403 are not retried unless
//! `_is_cloudflare_403_error`).

use std::time::Duration;

use futures::FutureExt;
use futures::future::{self, Either, join_all};
use kube::config::{KubeConfigOptions, Kubeconfig};
use planner::catalog::kubernetes::{
    KubeContext, KubeNode, ListPage, parse_node_page, parse_pod_page, pod_field_selector,
    unreachable_api_message, unreachable_timeout_message,
};
use planner::gpus::kubernetes::Pods;
use tracing::Instrument;

use crate::clouds::http::{BodyError, MAX_KUBE_PAGE_BYTES, read_capped};

/// Nodes asked for per page: a large cluster's list arrives in pages, each
/// read under [`MAX_KUBE_PAGE_BYTES`], instead of as one unbounded body.
const PAGE_LIMIT: u32 = 500;
/// Most pages followed (50 000 nodes): a server that keeps handing out
/// `continue` tokens cannot keep the listing going forever.
const MAX_PAGES: usize = 100;
/// Longest error body quoted in a message.
const MAX_QUOTED_BODY: usize = 1024;

use super::KubernetesCloud;
use super::backoff::{Backoff, random_unit};
use super::kubeconfig::{cluster_proxy_url, direct_addr};
use super::node_cache::{NodeCache, PreparedNodes};
use super::transport::{ApiClient, ApiResponse};

impl KubernetesCloud {
    /// Lists the nodes of `contexts` concurrently. Each context is bounded by
    /// the per-request timeout × attempts (plus backoff) and, when given, by
    /// `deadline`; failures are SkyPilot's messages in [`KubeContext::nodes`].
    /// With `prepare_for`, each successful listing is also handed to
    /// [`NodeCache::prepare`] as soon as it is listed: while the other
    /// contexts are still answering, not after the last one.
    pub async fn list_contexts(
        &self,
        kubeconfig: &Kubeconfig,
        contexts: &[String],
        deadline: Option<Duration>,
        prepare_for: Option<&dyn NodeCache>,
    ) -> Vec<(KubeContext, Option<PreparedNodes>)> {
        // One timer for every context's deadline: each timer registered
        // before the runtime first parks wakes its driver (an `eventfd`
        // write), 64 of them before the first request went out.
        let timer = deadline.map(|d| (d, tokio::time::sleep(d).shared()));
        // Every connection first, then the clients and requests: see
        // `transport`'s module docs for what interleaving them cost. Those no
        // client took are closed when `early` goes (also when the listing is
        // dropped at a deadline).
        let early = self.transports.connect_early(
            contexts
                .iter()
                .filter_map(|name| direct_addr(kubeconfig, name)),
        );
        let listed = join_all(contexts.iter().map(|name| {
            let span = list_nodes_span(name);
            let timer = timer.clone();
            async move {
                // The last failed attempt: when the deadline cuts the retries
                // short, the reason is what the attempts met (a refused
                // connection, a 503), not "timed out".
                let last = std::sync::Mutex::new(None::<String>);
                let work = std::pin::pin!(self.list_context(kubeconfig, name, &last));
                let nodes = match timer {
                    Some((d, timer)) => match future::select(work, timer).await {
                        Either::Left((nodes, _)) => nodes,
                        Either::Right(((), _)) => {
                            let seen = last.lock().unwrap_or_else(|e| e.into_inner()).take();
                            Err(seen.unwrap_or_else(|| timeout_message(name, d)))
                        }
                    },
                    None => work.await,
                };
                record_outcome(&nodes, "listed");
                let prepared = match (&nodes, prepare_for) {
                    (Ok(nodes), Some(cache)) => cache.prepare(nodes),
                    _ => None,
                };
                let context = KubeContext {
                    name: name.clone(),
                    nodes,
                };
                (context, prepared)
            }
            .instrument(span)
        }))
        .await;
        drop(early);
        listed
    }

    async fn list_context(
        &self,
        kubeconfig: &Kubeconfig,
        context: &str,
        last_failure: &std::sync::Mutex<Option<String>>,
    ) -> Result<Vec<KubeNode>, String> {
        let (mut client, exec_key) = self
            .client_for(kubeconfig, context)
            .await
            .map_err(|f| f.message(context))?;
        let attempts = self.options.service.max_attempts.max(1);
        let mut backoff = Backoff::new(self.options.service.retry_backoff, self.options.backoff);
        let mut last = Failure::Timeout(self.options.service.request_timeout);
        for attempt in 1..=attempts {
            match self.list_once(&mut client).await {
                Ok(nodes) => return Ok(nodes),
                Err(failure) if failure.is_fatal() => {
                    self.forget_rejected(&failure, exec_key.as_deref());
                    return Err(failure.message(context));
                }
                Err(failure) => {
                    let message = failure.message(context);
                    tracing::debug!(context, attempt, error = %message, "node listing failed");
                    *last_failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(message);
                    last = failure;
                }
            }
            if attempt < attempts {
                tokio::time::sleep(backoff.next_wait(random_unit())).await;
            }
        }
        Err(last.message(context))
    }

    /// A 401 means the cached exec credential (if one was used) is no
    /// longer accepted: drop it, so the next client runs the plugin
    /// (client-go's `Authenticator.UpdateTransportConfig` on 401).
    fn forget_rejected(&self, failure: &Failure, exec_key: Option<&str>) {
        if let (Failure::Rejected(401, _), Some(key), Some(cache)) =
            (failure, exec_key, &self.options.exec_credentials)
        {
            tracing::debug!("401: dropping the cached exec credential");
            cache.forget(key);
        }
    }

    /// The client of `context`, and the exec-credential cache key its
    /// credential came under (when an exec plugin's result was used).
    async fn client_for(
        &self,
        kubeconfig: &Kubeconfig,
        context: &str,
    ) -> Result<(ApiClient, Option<String>), Failure> {
        let options = KubeConfigOptions {
            context: Some(context.to_string()),
            ..Default::default()
        };
        let mut only = only_context(kubeconfig, context);
        let exec_key = self.cached_exec_credential(&mut only, context).await?;
        let mut config = kube::Config::from_custom_kubeconfig(only, &options)
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
        let timeout = self.options.service.request_timeout;
        // Every attempt runs under one `request_timeout` of its own
        // (`list_all`), armed before the connection's timers would be: a
        // read or write timeout of the same length never fires first, and
        // each costs a timer set and cleared on every read and write. A
        // shorter connect timeout can fire first, so it is kept.
        let connect = self.options.service.connect_timeout;
        config.connect_timeout = (connect < timeout).then_some(connect);
        config.read_timeout = None;
        config.write_timeout = None;
        config.default_retry = false;
        // Client construction runs an exec credential plugin (or an auth
        // provider's command) synchronously: keep that off the runtime's
        // thread and bound it. Without one it is a little CPU work, done here
        // (a blocking thread for each of 64 contexts cost more than it saved).
        if config.auth_info.exec.is_none() && config.auth_info.auth_provider.is_none() {
            return self
                .transports
                .client(config)
                .map(|c| (c, exec_key))
                .map_err(|e| Failure::Config(e.to_string()));
        }
        let transports = self.transports.clone();
        let build = tokio::task::spawn_blocking(move || transports.client(config));
        match tokio::time::timeout(timeout, build).await {
            Err(_) => Err(Failure::Timeout(timeout)),
            Ok(Err(join)) => Err(Failure::Config(format!(
                "client construction failed: {join}"
            ))),
            Ok(Ok(Err(e))) => Err(Failure::Config(e.to_string())),
            Ok(Ok(Ok(client))) => Ok((client, None)),
        }
    }

    /// Puts the exec plugin's credential into `only` (the kubeconfig of
    /// `context` alone) in place of the plugin, from the exec-credential
    /// cache or by running the plugin once on a blocking thread, within the
    /// request timeout; returns the cache key used. Without a cache, or for
    /// a plugin it does not keep, `only` is left for kube to run the plugin.
    /// A plugin that fails here is left to kube too, whose error says why.
    async fn cached_exec_credential(
        &self,
        only: &mut Kubeconfig,
        context: &str,
    ) -> Result<Option<String>, Failure> {
        let Some(cache) = &self.options.exec_credentials else {
            return Ok(None);
        };
        let Some(auth) = only
            .auth_infos
            .first_mut()
            .and_then(|a| a.auth_info.as_mut())
        else {
            return Ok(None);
        };
        let Some(exec) = auth.exec.clone() else {
            return Ok(None);
        };
        let server = super::kubeconfig::server_of(only, context);
        let cache = std::sync::Arc::clone(cache);
        let timeout = self.options.service.request_timeout;
        let work = tokio::task::spawn_blocking(move || {
            let key = cache.key(&exec, &server)?;
            match cache.credential(&key, &exec) {
                Ok(credential) => Some((key, credential)),
                Err(e) => {
                    tracing::debug!(error = %e, "exec credential not cached");
                    None
                }
            }
        });
        let found = match tokio::time::timeout(timeout, work).await {
            Err(_) => return Err(Failure::Timeout(timeout)),
            Ok(found) => found.ok().flatten(),
        };
        let Some((key, credential)) = found else {
            return Ok(None);
        };
        if let Some(auth) = only
            .auth_infos
            .first_mut()
            .and_then(|a| a.auth_info.as_mut())
        {
            credential.apply(auth);
        }
        Ok(Some(key))
    }

    /// One listing: every page of `/api/v1/nodes`, within the request timeout.
    async fn list_once(&self, client: &mut ApiClient) -> Result<Vec<KubeNode>, Failure> {
        self.list_all(client, "/api/v1/nodes", None, |body| {
            parse_node_page(body).map_err(|e| e.to_string())
        })
        .await
    }

    /// Every page of the list at `path`, within the request timeout.
    async fn list_all<T>(
        &self,
        client: &mut ApiClient,
        path: &str,
        field_selector: Option<&str>,
        parse: impl Fn(&[u8]) -> Result<ListPage<T>, String>,
    ) -> Result<Vec<T>, Failure> {
        let attempt = async {
            let mut items = Vec::new();
            let mut token: Option<String> = None;
            for _ in 0..MAX_PAGES {
                let (page, next) = self
                    .list_page(&mut *client, path, field_selector, token.take(), &parse)
                    .await?;
                items.extend(page);
                match next {
                    Some(t) => token = Some(t),
                    None => return Ok(items),
                }
            }
            Err(Failure::Malformed(format!(
                "the list at {path} did not end after {MAX_PAGES} pages of {PAGE_LIMIT}"
            )))
        };
        tokio::time::timeout(self.options.service.request_timeout, attempt)
            .await
            .unwrap_or(Err(Failure::Timeout(self.options.service.request_timeout)))
    }

    /// One page of a list and the `continue` token of the next.
    async fn list_page<T>(
        &self,
        client: &mut ApiClient,
        path: &str,
        field_selector: Option<&str>,
        token: Option<String>,
        parse: &impl Fn(&[u8]) -> Result<ListPage<T>, String>,
    ) -> Result<ListPage<T>, Failure> {
        let mut params = kube::api::ListParams::default().limit(PAGE_LIMIT);
        if let Some(t) = token {
            params = params.continue_token(&t);
        }
        if let Some(f) = field_selector {
            params = params.fields(f);
        }
        let request = kube::core::Request::new(path)
            .list(&params)
            .map_err(|e| Failure::Config(e.to_string()))?;
        {
            let response = client
                .send(request.map(kube::client::Body::from))
                .await
                .map_err(Failure::from_kube)?;
            let (status, headers) = response.head();
            let cloudflare = headers.iter().any(|(k, v)| {
                let k = k.as_str().to_ascii_lowercase();
                k.contains("cf-ray")
                    || (k.contains("server")
                        && v.to_str()
                            .is_ok_and(|v| v.to_ascii_lowercase().contains("cloudflare")))
            });
            let body = match response {
                ApiResponse::Layered(r) => read_capped(r.into_body(), MAX_KUBE_PAGE_BYTES).await,
                ApiResponse::Kube(r) => read_capped(r.into_body(), MAX_KUBE_PAGE_BYTES).await,
            }
            .map_err(|e| match e {
                BodyError::TooLarge { .. } => Failure::Malformed(e.to_string()),
                BodyError::Read(text) => Failure::Unreachable(text),
            })?;
            if !status.is_success() {
                let shown = String::from_utf8_lossy(&body[..body.len().min(MAX_QUOTED_BODY)]);
                let text = format!(
                    "({})\nReason: {}\nHTTP response body: {shown}\n",
                    status.as_u16(),
                    status.canonical_reason().unwrap_or(""),
                );
                return Err(if matches!(status.as_u16(), 401 | 403) && !cloudflare {
                    Failure::Rejected(status.as_u16(), text)
                } else {
                    Failure::Api(text)
                });
            }
            // The items and the next page's token in one pass over the body.
            parse(&body[..]).map_err(Failure::Malformed)
        }
    }

    /// Lists the pods of every namespace of `context` that are not finished
    /// (SkyPilot's `get_allocated_resources_by_node` call: the same
    /// `fieldSelector`, paging, timeouts and retries as the node listing;
    /// 401/403 are not retried).
    pub(crate) async fn list_pods(&self, kubeconfig: &Kubeconfig, context: &str) -> Pods {
        let span = tracing::info_span!("kubernetes.list_pods", context = %context, pods = tracing::field::Empty);
        async {
            let (mut client, exec_key) = match self.client_for(kubeconfig, context).await {
                Ok(c) => c,
                Err(f) => return Pods::Failed(f.pods_message(context)),
            };
            let selector = pod_field_selector();
            let attempts = self.options.service.max_attempts.max(1);
            let mut backoff =
                Backoff::new(self.options.service.retry_backoff, self.options.backoff);
            let mut last = Failure::Timeout(self.options.service.request_timeout);
            for attempt in 1..=attempts {
                match self
                    .list_all(&mut client, "/api/v1/pods", Some(&selector), |body| {
                        parse_pod_page(body).map_err(|e| e.to_string())
                    })
                    .await
                {
                    Ok(pods) => {
                        tracing::Span::current().record("pods", pods.len());
                        return Pods::Listed(pods);
                    }
                    Err(Failure::Rejected(403, _)) => return Pods::Forbidden,
                    Err(f) if f.is_fatal() => {
                        self.forget_rejected(&f, exec_key.as_deref());
                        return Pods::Failed(f.pods_message(context));
                    }
                    Err(f) => last = f,
                }
                if attempt < attempts {
                    tokio::time::sleep(backoff.next_wait(random_unit())).await;
                }
            }
            Pods::Failed(last.pods_message(context))
        }
        .instrument(span)
        .await
    }
}

/// SkyPilot's timeout text, with the deadline that fired.
fn timeout_message(context: &str, after: Duration) -> String {
    unreachable_timeout_message(context).replacen(
        "Timed out when",
        &format!(
            "Timed out after {} when",
            planner::check::show_duration(after)
        ),
        1,
    )
}

/// What a transport error was, from the I/O error at the bottom of its chain.
fn transport_failure(e: &(dyn std::error::Error + 'static)) -> Failure {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind as K;
            return match io.kind() {
                K::ConnectionRefused => Failure::Refused,
                K::TimedOut => Failure::Timeout(Duration::ZERO),
                K::ConnectionReset | K::ConnectionAborted | K::BrokenPipe | K::UnexpectedEof => {
                    Failure::Unreachable("the connection was reset".into())
                }
                _ => Failure::Unreachable(crate::redact::redact(&io.to_string()).into_owned()),
            };
        }
        source = s.source();
    }
    Failure::Unreachable(crate::redact::redact(&crate::clouds::error_chain(e)).into_owned())
}

/// The part of `kubeconfig` that `context` uses: the context, its cluster
/// and its user. A client is built per context, and cloning the whole file
/// for each of N contexts is N² work (64 contexts: 4096 entries cloned).
fn only_context(kubeconfig: &Kubeconfig, context: &str) -> Kubeconfig {
    let named = kubeconfig.contexts.iter().find(|c| c.name == context);
    let inner = named.and_then(|c| c.context.as_ref());
    let cluster = inner.map(|c| c.cluster.as_str());
    let user = inner.and_then(|c| c.user.as_deref());
    Kubeconfig {
        contexts: named.cloned().into_iter().collect(),
        clusters: kubeconfig
            .clusters
            .iter()
            .filter(|c| Some(c.name.as_str()) == cluster)
            .cloned()
            .collect(),
        auth_infos: kubeconfig
            .auth_infos
            .iter()
            .filter(|a| Some(a.name.as_str()) == user)
            .cloned()
            .collect(),
        preferences: kubeconfig.preferences.clone(),
        current_context: kubeconfig.current_context.clone(),
        extensions: kubeconfig.extensions.clone(),
        kind: kubeconfig.kind.clone(),
        api_version: kubeconfig.api_version.clone(),
        other: kubeconfig.other.clone(),
    }
}

/// The span of one context's node listing; [`record_outcome`] fills in
/// `nodes` and `outcome`.
pub(super) fn list_nodes_span(context: &str) -> tracing::Span {
    tracing::info_span!(
        "kubernetes.list_nodes",
        context = %context,
        nodes = tracing::field::Empty,
        outcome = tracing::field::Empty,
    )
}

/// Records a listing's result on the current span (and logs a failure).
pub(super) fn record_outcome(nodes: &Result<Vec<KubeNode>, String>, ok: &str) {
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
    /// No answer within this deadline (zero: the OS timed the connection out).
    Timeout(Duration),
    /// The API server refused the connection.
    Refused,
    /// The connection failed otherwise (reset, DNS, TLS, a non-HTTP answer).
    Unreachable(String),
    /// A non-2xx answer other than a real 401/403 (retried).
    Api(String),
    /// 401/403 (not a transient Cloudflare 403), with the status: never retried.
    Rejected(u16, String),
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
            other => transport_failure(&other),
        }
    }

    fn is_fatal(&self) -> bool {
        matches!(
            self,
            Failure::Rejected(..) | Failure::Malformed(_) | Failure::Config(_)
        )
    }

    /// SkyPilot's `KubeAPIUnreachableError` text for a pod listing.
    fn pods_message(&self, context: &str) -> String {
        self.message(context)
            .replace("get node info", "get pod info")
            .replace("kubectl get nodes", "kubectl get pods")
    }

    /// SkyPilot's `KubeAPIUnreachableError` text.
    fn message(&self, context: &str) -> String {
        match self {
            Failure::Timeout(d) if d.is_zero() => unreachable_timeout_message(context),
            Failure::Timeout(d) => timeout_message(context, *d),
            // SkyPilot reports every urllib3 `MaxRetryError` as a timeout; a
            // refused or reset connection is said as what it is.
            Failure::Refused => unreachable_timeout_message(context).replacen(
                "Timed out when",
                "Connection refused when",
                1,
            ),
            Failure::Unreachable(why) => unreachable_timeout_message(context).replacen(
                "Timed out when",
                &format!("Could not connect ({why}) when"),
                1,
            ),
            Failure::Api(text) | Failure::Malformed(text) => unreachable_api_message(context, text),
            Failure::Rejected(_, text) => format!("Kubernetes API error: {text}"),
            Failure::Config(text) => format!(
                "Kubernetes configuration error when trying to get node info: {text} Please check if the \
                 cluster is healthy and retry. To debug, run: kubectl get nodes --context {context}"
            ),
        }
    }
}
