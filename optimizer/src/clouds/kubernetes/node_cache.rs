//! The node cache: a successful listing of a context's nodes, kept on disk
//! for a while so that the next `sky launch` need not ask the API server.
//!
//! SkyPilot 0.14.1 lists the nodes on every call (per request it memoises
//! `get_kubernetes_nodes` in memory only); the cache is this
//! re-implementation's, keyed by context *and* API server so that a
//! kubeconfig change never serves another cluster's nodes.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use planner::catalog::kubernetes::KubeNode;

/// Where [`KubernetesCloud`](super::KubernetesCloud) keeps node listings:
/// it consults the cache (unless `ctx.refresh`) before listing a context and
/// fills it after a successful listing. Failed listings are never cached.
/// [`LazyStateNodeCache`] is the on-disk one; tests bring their own.
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

/// Cache kind (folder) of Kubernetes node listings.
pub const NODE_CACHE_KIND: &str = "kube-nodes";

/// Schema version of node cache entries (2: nodes carry taints, capacity
/// devices and the capacity `sky gpus list` shows).
pub const NODE_CACHE_SCHEMA: u32 = 2;

/// The on-disk [`NodeCache`]: one entry per (context, server), keyed by an
/// HMAC digest, written atomically by [`crate::state::CacheStore`].
///
/// The state folder is opened on first use, from inside the Kubernetes
/// check: opening may create the folder and its key (with fsyncs), and doing
/// that while the adapters are being built would delay every cloud's check,
/// not just this one.
#[derive(Debug)]
pub struct LazyStateNodeCache {
    state_dir: PathBuf,
    opened: OnceLock<Option<OpenedNodeCache>>,
}

/// The cache's store once the state folder is open.
#[derive(Debug)]
struct OpenedNodeCache {
    store: crate::state::CacheStore,
    hasher: crate::state::KeyedHasher,
}

impl LazyStateNodeCache {
    /// A node cache under the state folder `state_dir`, opened when first used.
    pub fn new(state_dir: impl Into<PathBuf>) -> Self {
        LazyStateNodeCache {
            state_dir: state_dir.into(),
            opened: OnceLock::new(),
        }
    }

    fn opened(&self) -> Option<&OpenedNodeCache> {
        self.opened
            .get_or_init(|| {
                crate::state::StateDir::open(&self.state_dir)
                    .and_then(|s| OpenedNodeCache::open(&s))
                    // Without a usable state folder the nodes are simply listed every time.
                    .inspect_err(|e| tracing::warn!(error = %e, "Kubernetes node cache disabled"))
                    .ok()
            })
            .as_ref()
    }
}

impl OpenedNodeCache {
    fn open(state: &crate::state::StateDir) -> Result<Self, crate::state::StateError> {
        Ok(OpenedNodeCache {
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

impl NodeCache for LazyStateNodeCache {
    fn get(
        &self,
        context: &str,
        server: &str,
        max_age: Duration,
    ) -> Option<(Vec<KubeNode>, Duration)> {
        let cache = self.opened()?;
        match cache
            .store
            .get::<Vec<KubeNode>>(&cache.key(context, server))
        {
            crate::state::Lookup::Hit { value, age } if age <= max_age => Some((value, age)),
            _ => None,
        }
    }

    fn put(&self, context: &str, server: &str, nodes: &[KubeNode], ttl: Duration) {
        let Some(cache) = self.opened() else {
            return;
        };
        if let Err(e) = cache.store.put(&cache.key(context, server), &nodes, ttl) {
            tracing::warn!(error = %e, "cannot write the Kubernetes node cache");
        }
    }
}
