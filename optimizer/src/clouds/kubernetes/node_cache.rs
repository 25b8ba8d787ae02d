//! The node cache: successful listings of contexts' nodes, kept on disk for
//! a while so that the next `sky launch` need not ask the API servers.
//!
//! SkyPilot 0.14.1 lists the nodes on every call (per request it memoises
//! `get_kubernetes_nodes` in memory only); the cache is this
//! re-implementation's, keyed by context *and* API server so that a
//! kubeconfig change never serves another cluster's nodes.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, UNIX_EPOCH};

use super::kubeconfig::KubeconfigIdentity;

use planner::catalog::kubernetes::KubeNode;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::state::{duration_ms, unix_ms};

/// Where [`KubernetesCloud`](super::KubernetesCloud) keeps node listings:
/// it consults the cache (unless `ctx.refresh`) before listing contexts and
/// fills it after listing them. Failed listings are never cached. Both
/// calls take every context of a launch at once, so that an on-disk cache
/// can read and write them together. [`LazyStateNodeCache`] is the on-disk
/// one; tests bring their own.
///
/// A context's listing is keyed by the context name and its *target*: what
/// the listing depends on in the kubeconfig (API server, context, cluster
/// and user entries, credentials included), which the cache may only
/// digest, never store. The cache may also remember a kubeconfig's context
/// names under the files' identity, so that a warm launch finds the
/// listings without parsing the kubeconfig ([`recall`](NodeCache::recall)).
pub trait NodeCache: Send + Sync {
    /// For each `(context, target)` of `contexts`, in order: its cached
    /// nodes no older than `max_age` and their age, or `None`.
    fn get(
        &self,
        contexts: &[(&str, &str)],
        max_age: Duration,
    ) -> Vec<Option<(Vec<KubeNode>, Duration)>>;
    /// Stores successful listings: `(context, target, nodes)`, and what
    /// [`remember`](NodeCache::remember) was told since the last `put`.
    fn put(&self, listings: &[(&str, &str, &[KubeNode])], ttl: Duration);
    /// What [`put_later`](NodeCache::put_later) can take of one listing's
    /// nodes ahead of the others: called on each listing as soon as it is
    /// listed, while the other contexts are still answering, so that the
    /// work is done in that wait rather than after the last answer (the
    /// on-disk cache: the nodes' JSON, most of a write's work). `None` (the
    /// default): nothing is prepared, the put takes the nodes themselves.
    fn prepare(&self, nodes: &[KubeNode]) -> Option<PreparedNodes> {
        let _ = nodes;
        None
    }
    /// [`put`](NodeCache::put) in two steps: what needs the listings' nodes
    /// is done now (with what [`prepare`](NodeCache::prepare) made of them),
    /// and the write is returned, to be done later (`sky launch`: once the
    /// table is printed). By default the nodes are copied now and put by the
    /// returned write.
    fn put_later(
        self: Arc<Self>,
        listings: Vec<Listed<'_>>,
        ttl: Duration,
    ) -> Box<dyn FnOnce() + Send>
    where
        Self: 'static,
    {
        let owned: Vec<(String, String, Vec<KubeNode>)> = listings
            .iter()
            .map(|l| {
                (
                    l.context.to_string(),
                    l.target.to_string(),
                    l.nodes.to_vec(),
                )
            })
            .collect();
        Box::new(move || {
            let listings: Vec<(&str, &str, &[KubeNode])> = owned
                .iter()
                .map(|(c, t, n)| (c.as_str(), t.as_str(), &n[..]))
                .collect();
            self.put(&listings, ttl);
        })
    }
    /// Called on a blocking thread while contexts are listed without
    /// consulting the cache (`--refresh`): the on-disk cache reads what the
    /// coming [`put`](NodeCache::put) merges into, so the put need not.
    fn prepare_put(&self) {}
    /// The kubeconfig whose files had `identity` when it was
    /// [remembered](NodeCache::remember): its contexts, and per context
    /// the key its listing is under. `None` (the default): not remembered,
    /// or the files changed since.
    fn recall(&self, identity: &KubeconfigIdentity) -> Option<RememberedKubeconfig> {
        let _ = identity;
        None
    }
    /// For each context of `contexts` (names of `kubeconfig`'s contexts):
    /// its cached nodes no older than `max_age` and their age, or `None`.
    fn get_remembered(
        &self,
        kubeconfig: &RememberedKubeconfig,
        contexts: &[String],
        max_age: Duration,
    ) -> Vec<Option<(Vec<KubeNode>, Duration)>> {
        let _ = (kubeconfig, max_age);
        vec![None; contexts.len()]
    }
    /// Remembers that the kubeconfig files of `identity` hold `contexts`
    /// (each name with its target, in the files' order) and `current`;
    /// written by the next [`put`](NodeCache::put). Does nothing by default.
    fn remember(
        &self,
        identity: &KubeconfigIdentity,
        contexts: &[(&str, &str)],
        current: Option<&str>,
    ) {
        let _ = (identity, contexts, current);
    }
}

/// A kubeconfig as the node cache remembers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RememberedKubeconfig {
    /// HMAC digest of the files' [`KubeconfigIdentity`].
    identity: String,
    /// The context names, in the files' order.
    pub names: Vec<String>,
    /// The `current-context`.
    pub current: Option<String>,
    /// Per name, the key of its listing (an HMAC digest of the context and its target).
    keys: Vec<String>,
}

/// One successful listing handed to [`NodeCache::put_later`]. Its
/// `Debug` leaves the target out: it holds the user's credentials.
pub struct Listed<'a> {
    /// The context's name.
    pub context: &'a str,
    /// What the listing depends on in the kubeconfig (the key's other half;
    /// digested, never stored).
    pub target: &'a str,
    /// The nodes listed.
    pub nodes: &'a [KubeNode],
    /// What [`NodeCache::prepare`] made of `nodes` when they were listed.
    pub prepared: Option<PreparedNodes>,
}

impl std::fmt::Debug for Listed<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Listed")
            .field("context", &self.context)
            .field("target", &"<redacted>")
            .field("nodes", &self.nodes.len())
            .field("prepared", &self.prepared.is_some())
            .finish()
    }
}

/// One listing's nodes as a cache stores them, made by
/// [`NodeCache::prepare`] (the on-disk cache: their JSON). Opaque: only
/// the cache that made it reads it.
#[derive(Debug)]
pub struct PreparedNodes(Box<RawValue>);

/// How many kubeconfigs (identities) the entry remembers: the Kubernetes
/// one, SSH Node Pools', a few `KUBECONFIG`s taken in turn.
const MAX_REMEMBERED: usize = 8;

/// A kubeconfig modified less than this long ago is not remembered: it may
/// be written again within the same timestamp tick, with the same size.
const RACY_WINDOW: Duration = Duration::from_secs(2);

/// Cache kind (folder) of Kubernetes node listings.
pub const NODE_CACHE_KIND: &str = "kube-nodes";

/// Schema version of node cache entries (2: nodes carry taints, capacity
/// devices and the capacity `sky gpus list` shows; 3: every context's
/// listing in one entry; 4: listings keyed by the context's target, and the
/// remembered kubeconfigs beside them).
pub const NODE_CACHE_SCHEMA: u32 = 4;

/// The one entry of the kind: every context's listing.
const ENTRY_KEY: &str = "listings";

/// Largest entry: ~580 bytes a node, so some 55 000 nodes across every
/// context. A larger set of listings is not cached (and a warning says so).
const MAX_ENTRY_BYTES: u64 = 32 << 20;

/// The one entry: every context's listing, and the kubeconfigs remembered.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Entry {
    /// Most recently remembered first, at most [`MAX_REMEMBERED`].
    kubeconfigs: Vec<RememberedKubeconfig>,
    /// The listings.
    listings: Vec<Listing>,
}

/// One context's listing inside the entry.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Listing {
    /// HMAC digest of the context name and its target: the entry names
    /// neither (a server URL or a user entry may carry credentials).
    key: String,
    /// When the nodes were listed, in milliseconds since the Unix epoch.
    listed_at_unix_ms: u64,
    /// When the listing stops being valid, in milliseconds since the Unix epoch.
    expires_at_unix_ms: u64,
    /// The nodes (a JSON array of [`KubeNode`]s), kept as the JSON text
    /// they are in the entry: decoded only for a lookup that uses them,
    /// carried over by a put as they are, and written by a put from the
    /// listed nodes without copying them first.
    nodes: Box<RawValue>,
}

/// The on-disk [`NodeCache`]: one entry holding every context's listing,
/// written atomically by [`crate::state::CacheStore`]. One file, not one
/// per context: 64 contexts cost one read and one replacement rather than
/// 64 (each frees an inode; a rename over an entry cost ~150 µs on ext4).
///
/// The entry is read at most once per process and kept; writes merge into
/// that copy (so concurrent listings of one process keep each other's
/// contexts) and drop expired listings. Two processes writing at once may
/// lose one's listings: those contexts are listed again next time.
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

/// The cache's store once the state folder is open, and the entry as read.
#[derive(Debug)]
struct OpenedNodeCache {
    store: crate::state::CacheStore,
    hasher: crate::state::KeyedHasher,
    /// The entry on disk, once read (`None` before the first read).
    listings: Mutex<Option<Entry>>,
    /// A kubeconfig remembered since the last put, for the next one to write.
    pending: Mutex<Option<RememberedKubeconfig>>,
    /// Whether this process has swept the folder of other entries.
    swept: std::sync::atomic::AtomicBool,
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
            store: state
                .store(NODE_CACHE_KIND, NODE_CACHE_SCHEMA)?
                .with_max_entry_bytes(MAX_ENTRY_BYTES),
            hasher: state.hasher()?,
            listings: Mutex::new(None),
            pending: Mutex::new(None),
            swept: std::sync::atomic::AtomicBool::new(false),
        })
    }

    fn key(&self, context: &str, target: &str) -> String {
        self.hasher.digest(&[
            ("context", context.as_bytes()),
            ("target", target.as_bytes()),
        ])
    }

    fn identity_key(&self, identity: &KubeconfigIdentity) -> String {
        self.hasher
            .digest(&[("kubeconfig", identity.fingerprint.as_bytes())])
    }

    /// The entry, read from disk on first use; any defect of it (absent,
    /// expired, damaged, foreign) leaves none.
    fn with_listings<R>(&self, f: impl FnOnce(&mut Entry) -> R) -> R {
        let mut guard = self.listings.lock().unwrap_or_else(|e| e.into_inner());
        let entry = guard.get_or_insert_with(|| match self.store.get(ENTRY_KEY) {
            crate::state::Lookup::Hit { value, .. } => value,
            crate::state::Lookup::Miss(_) => Entry::default(),
        });
        f(entry)
    }

    /// The fresh nodes of the listing under `key`, and their age.
    fn fresh(
        listings: &[Listing],
        key: &str,
        now: u64,
        max_age: Duration,
    ) -> Option<(Vec<KubeNode>, Duration)> {
        let listing = listings.iter().find(|l| l.key == key)?;
        // Listed in the future (a clock went back): its age is unknown.
        if listing.listed_at_unix_ms > now || now >= listing.expires_at_unix_ms {
            return None;
        }
        let age = Duration::from_millis(now - listing.listed_at_unix_ms);
        if age > max_age {
            return None;
        }
        // Nodes that do not decode (an authenticated entry of this schema
        // always does) are a miss of this context alone.
        let nodes = serde_json::from_str(listing.nodes.get())
            .inspect_err(|e| tracing::debug!(error = %e, "cached nodes unreadable"))
            .ok()?;
        Some((nodes, age))
    }

    fn now_ms(&self) -> u64 {
        unix_ms(self.store.now())
    }
}

impl NodeCache for LazyStateNodeCache {
    fn get(
        &self,
        contexts: &[(&str, &str)],
        max_age: Duration,
    ) -> Vec<Option<(Vec<KubeNode>, Duration)>> {
        let Some(cache) = self.opened() else {
            return vec![None; contexts.len()];
        };
        let now = cache.now_ms();
        let keys: Vec<String> = contexts.iter().map(|(c, t)| cache.key(c, t)).collect();
        cache.with_listings(|entry| {
            keys.iter()
                .map(|key| OpenedNodeCache::fresh(&entry.listings, key, now, max_age))
                .collect()
        })
    }

    fn recall(&self, identity: &KubeconfigIdentity) -> Option<RememberedKubeconfig> {
        let cache = self.opened()?;
        let key = cache.identity_key(identity);
        cache.with_listings(|entry| {
            entry
                .kubeconfigs
                .iter()
                .find(|k| k.identity == key && k.keys.len() == k.names.len())
                .cloned()
        })
    }

    fn get_remembered(
        &self,
        kubeconfig: &RememberedKubeconfig,
        contexts: &[String],
        max_age: Duration,
    ) -> Vec<Option<(Vec<KubeNode>, Duration)>> {
        let Some(cache) = self.opened() else {
            return vec![None; contexts.len()];
        };
        let now = cache.now_ms();
        cache.with_listings(|entry| {
            contexts
                .iter()
                .map(|name| {
                    let at = kubeconfig.names.iter().position(|n| n == name)?;
                    let key = kubeconfig.keys.get(at)?;
                    OpenedNodeCache::fresh(&entry.listings, key, now, max_age)
                })
                .collect()
        })
    }

    fn remember(
        &self,
        identity: &KubeconfigIdentity,
        contexts: &[(&str, &str)],
        current: Option<&str>,
    ) {
        let Some(cache) = self.opened() else {
            return;
        };
        // No file, or one modified just now (or in the future): not remembered.
        let settled = identity.newest_mtime.is_some_and(|mtime| {
            mtime
                .checked_add(RACY_WINDOW)
                .is_some_and(|settled_at| settled_at <= cache.store.now())
        });
        if !settled {
            return;
        }
        let remembered = RememberedKubeconfig {
            identity: cache.identity_key(identity),
            names: contexts.iter().map(|(c, _)| c.to_string()).collect(),
            current: current.map(str::to_string),
            keys: contexts.iter().map(|(c, t)| cache.key(c, t)).collect(),
        };
        *cache.pending.lock().unwrap_or_else(|e| e.into_inner()) = Some(remembered);
    }

    fn prepare_put(&self) {
        if let Some(cache) = self.opened() {
            cache.with_listings(|_| ());
        }
    }

    fn put(&self, new: &[(&str, &str, &[KubeNode])], ttl: Duration) {
        let listed = new.iter().map(|&(context, target, nodes)| Listed {
            context,
            target,
            nodes,
            prepared: None,
        });
        if let Some(encoded) = self.encode(listed) {
            self.put_encoded(encoded, ttl);
        }
    }

    /// The nodes' JSON, the entry's form of them: made as each listing
    /// arrives. Nothing when the cache could not be opened.
    fn prepare(&self, nodes: &[KubeNode]) -> Option<PreparedNodes> {
        // Not opened here: a put opens it (and a disabled cache said so once).
        if matches!(self.opened.get(), Some(None)) {
            return None;
        }
        encode_nodes(nodes).map(PreparedNodes)
    }

    /// The nodes encoded now (unless [`prepare`](NodeCache::prepare) did),
    /// without a copy of them; the merge and the write when called.
    fn put_later(self: Arc<Self>, new: Vec<Listed<'_>>, ttl: Duration) -> Box<dyn FnOnce() + Send> {
        match self.encode(new) {
            Some(encoded) => Box::new(move || self.put_encoded(encoded, ttl)),
            None => Box::new(|| {}),
        }
    }
}

/// A listing's nodes as the entry holds them (never fails in practice:
/// `KubeNode` always encodes; a failure is logged and the put skipped).
fn encode_nodes(nodes: &[KubeNode]) -> Option<Box<RawValue>> {
    serde_json::value::to_raw_value(nodes)
        .inspect_err(|e| tracing::warn!(error = %e, "cannot encode the Kubernetes node listings"))
        .ok()
}

/// Listings ready for the entry: each one's key and its nodes' JSON.
type Encoded = Vec<(String, Box<RawValue>)>;

impl LazyStateNodeCache {
    /// Each listing's key and nodes as the entry holds them (its nodes'
    /// JSON as [`prepare`](NodeCache::prepare) made it, else encoded now);
    /// `None` when there is no cache (or, never in practice, the nodes do
    /// not encode).
    fn encode<'a>(&self, new: impl IntoIterator<Item = Listed<'a>>) -> Option<Encoded> {
        let cache = self.opened()?;
        new.into_iter()
            .map(|l| {
                let nodes = match l.prepared {
                    Some(PreparedNodes(raw)) => raw,
                    None => encode_nodes(l.nodes)?,
                };
                Some((cache.key(l.context, l.target), nodes))
            })
            .collect()
    }

    /// Merges encoded listings (and the kubeconfig remembered since the
    /// last put) into the entry and writes it.
    fn put_encoded(&self, new: Encoded, ttl: Duration) {
        let Some(cache) = self.opened() else {
            return;
        };
        let pending = cache
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if new.is_empty() && pending.is_none() {
            return;
        }
        let now = cache.now_ms();
        let expires = now.saturating_add(duration_ms(ttl));
        let written = cache.with_listings(|entry| {
            let remembered = match pending {
                Some(p) if !entry.kubeconfigs.first().is_some_and(|k| *k == p) => {
                    entry.kubeconfigs.retain(|k| k.identity != p.identity);
                    entry.kubeconfigs.insert(0, p);
                    entry.kubeconfigs.truncate(MAX_REMEMBERED);
                    true
                }
                _ => false,
            };
            if new.is_empty() && !remembered {
                return Ok(());
            }
            let listings = &mut entry.listings;
            listings
                .retain(|l| now < l.expires_at_unix_ms && !new.iter().any(|(k, _)| *k == l.key));
            listings.extend(new.into_iter().map(|(key, nodes)| Listing {
                key,
                listed_at_unix_ms: now,
                expires_at_unix_ms: expires,
                nodes,
            }));
            let until = listings
                .iter()
                .map(|l| l.expires_at_unix_ms)
                .max()
                .unwrap_or(expires);
            cache.store.put_until(
                ENTRY_KEY,
                &*entry,
                UNIX_EPOCH + Duration::from_millis(until),
            )
        });
        if let Err(e) = written {
            tracing::warn!(error = %e, "cannot write the Kubernetes node cache");
            return;
        }
        // Schema 2 kept one entry per context: those files are never read
        // again. Removed once per writing process (a listing of the folder).
        if !cache.swept.swap(true, std::sync::atomic::Ordering::Relaxed)
            && let Err(e) = cache.store.remove_all_but(ENTRY_KEY)
        {
            tracing::debug!(error = %e, "cannot remove old Kubernetes node cache entries");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{Clock, StateDir};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    fn node(name: &str) -> KubeNode {
        serde_json::from_value(serde_json::json!({
            "name": name, "ready": true, "unschedulable": false,
            "cpu_capacity": 8.0, "memory_capacity_gib": 32.0, "ephemeral_storage_gib": 100.0,
            "cpu_allocatable": 8.0, "memory_allocatable_gib": 32.0,
            "accelerator": null, "accelerator_resources": {}, "tpu": null, "labels": {},
            "accelerator_capacity": {}, "taints": [], "capacity_cpus": 8.0, "capacity_memory_gib": 32.0
        }))
        .expect("node")
    }

    /// A cache over `dir` whose clock reads `now` (seconds since the epoch).
    fn cache_at(dir: &std::path::Path, now: &Arc<AtomicU64>) -> LazyStateNodeCache {
        let cache = LazyStateNodeCache::new(dir);
        let state = StateDir::open(dir).expect("state");
        let now = Arc::clone(now);
        let mut opened = OpenedNodeCache::open(&state).expect("open");
        opened.store = opened.store.with_clock(Clock::from_fn(move || {
            UNIX_EPOCH + Duration::from_secs(now.load(Ordering::SeqCst))
        }));
        cache.opened.set(Some(opened)).expect("unset");
        cache
    }

    fn names(got: &[Option<(Vec<KubeNode>, Duration)>]) -> Vec<Option<(Vec<String>, u64)>> {
        got.iter()
            .map(|hit| {
                hit.as_ref().map(|(nodes, age)| {
                    (
                        nodes.iter().map(|n| n.name.clone()).collect(),
                        age.as_secs(),
                    )
                })
            })
            .collect()
    }

    #[test]
    fn listings_of_every_context_share_one_entry_and_expire_one_by_one() {
        let dir = tempfile::tempdir().unwrap();
        let now = Arc::new(AtomicU64::new(1_000_000));
        let ttl = Duration::from_secs(120);
        let max_age = Duration::from_secs(600);
        let a = [node("a1")];
        let b = [node("b1"), node("b2")];
        let writer = cache_at(dir.path(), &now);
        // A per-context entry of schema 2 (and its lock) from an older `sky`.
        let kind_dir = dir.path().join(NODE_CACHE_KIND);
        std::fs::write(kind_dir.join(format!("{}.json", "ab".repeat(32))), "{}").unwrap();
        writer.put(&[("a", "https://a", &a), ("b", "https://b", &b)], ttl);
        now.fetch_add(60, Ordering::SeqCst);
        writer.put(&[("b", "https://b", &b[..1])], ttl);

        let entries: Vec<_> = std::fs::read_dir(&kind_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(entries, [format!("{ENTRY_KEY}.json")]);

        // A new process reads what both puts wrote; a server change is a miss.
        let contexts = [
            ("a", "https://a"),
            ("b", "https://b"),
            ("a", "https://other"),
        ];
        let reader = cache_at(dir.path(), &now);
        assert_eq!(
            names(&reader.get(&contexts, max_age)),
            [
                Some((vec!["a1".into()], 60)),
                Some((vec!["b1".into()], 0)),
                None
            ]
        );
        assert_eq!(
            names(&reader.get(&contexts, Duration::from_secs(30))),
            [None, Some((vec!["b1".into()], 0)), None]
        );
        // 121 s after the first put, `a` has expired and `b` has not.
        now.fetch_add(61, Ordering::SeqCst);
        let later = cache_at(dir.path(), &now);
        assert_eq!(
            names(&later.get(&contexts, max_age)),
            [None, Some((vec!["b1".into()], 61)), None]
        );
        // A put drops the expired listing from the entry.
        later.put(&[("c", "https://c", &a)], ttl);
        let listings = later.opened().unwrap().with_listings(|e| e.listings.len());
        assert_eq!(listings, 2);
    }

    #[test]
    fn a_put_for_later_writes_nothing_until_done_then_what_a_put_writes() {
        let dir = tempfile::tempdir().unwrap();
        let now = Arc::new(AtomicU64::new(1_000_000));
        let ttl = Duration::from_secs(120);
        let a = [node("a1"), node("a2")];
        let cache = Arc::new(cache_at(dir.path(), &now));
        let entry = dir.path().join(NODE_CACHE_KIND).join("listings.json");
        let listed = |prepared| Listed {
            context: "a",
            target: "https://a",
            nodes: &a,
            prepared,
        };
        let write = Arc::clone(&cache).put_later(vec![listed(None)], ttl);
        assert!(!entry.exists(), "written before the write was done");
        write();
        let later = cache_at(dir.path(), &now);
        let got = later.get(&[("a", "https://a")], ttl);
        assert_eq!(names(&got), [Some((vec!["a1".into(), "a2".into()], 0))]);
        assert_eq!(got[0].as_ref().map(|(n, _)| &n[..]), Some(&a[..]));
    }

    #[test]
    fn nodes_prepared_as_they_arrive_are_written_as_a_put_writes_them() {
        let dir = tempfile::tempdir().unwrap();
        let now = Arc::new(AtomicU64::new(1_000_000));
        let ttl = Duration::from_secs(120);
        let a = [node("a1"), node("a2")];
        let b = [node("b1")];
        let cache = Arc::new(cache_at(dir.path(), &now));
        let prepared = cache.prepare(&a);
        assert!(prepared.is_some(), "an open cache prepares the nodes");
        // What is written is what was prepared, not the nodes encoded again:
        // a listing handed `b`'s preparation stores `b`'s nodes.
        let swapped = Listed {
            context: "swapped",
            target: "https://swapped",
            nodes: &a,
            prepared: cache.prepare(&b),
        };
        assert!(!format!("{swapped:?}").contains("https://swapped"));
        Arc::clone(&cache).put_later(vec![swapped], ttl)();
        let stored = cache_at(dir.path(), &now).get(&[("swapped", "https://swapped")], ttl);
        assert_eq!(stored[0].as_ref().map(|(n, _)| &n[..]), Some(&b[..]));
        let listings = vec![
            Listed {
                context: "a",
                target: "https://a",
                nodes: &a,
                prepared,
            },
            Listed {
                context: "b",
                target: "https://b",
                nodes: &b,
                prepared: None,
            },
        ];
        Arc::clone(&cache).put_later(listings, ttl)();
        let later = cache_at(dir.path(), &now);
        let got = later.get(&[("a", "https://a"), ("b", "https://b")], ttl);
        let nodes: Vec<Option<&[KubeNode]>> = got
            .iter()
            .map(|g| g.as_ref().map(|(n, _)| &n[..]))
            .collect();
        assert_eq!(nodes, [Some(&a[..]), Some(&b[..])]);
        let texts = later.opened().unwrap().with_listings(|e| {
            e.listings
                .iter()
                .map(|l| l.nodes.get().to_string())
                .collect::<Vec<_>>()
        });
        let expected = [&b[..], &a[..], &b[..]].map(|n| serde_json::to_string(n).unwrap());
        assert_eq!(texts, expected);
    }

    #[test]
    fn a_cache_that_could_not_open_prepares_nothing() {
        let dir = tempfile::tempdir().unwrap();
        // A file where the state folder belongs: the cache cannot open.
        let state = dir.path().join("state");
        std::fs::write(&state, "not a folder").unwrap();
        let cache = LazyStateNodeCache::new(&state);
        let a = [node("a1")];
        assert_eq!(
            cache
                .get(&[("a", "https://a")], Duration::from_secs(60))
                .len(),
            1
        );
        assert!(cache.opened().is_none());
        assert!(cache.prepare(&a).is_none());
    }

    #[test]
    fn an_entry_over_the_limit_is_refused_not_truncated() {
        let dir = tempfile::tempdir().unwrap();
        let now = Arc::new(AtomicU64::new(1_000_000));
        let cache = cache_at(dir.path(), &now);
        let opened = cache.opened.get().unwrap().as_ref().unwrap();
        let small = opened.store.clone().with_max_entry_bytes(600);
        let written = small.put_until(
            ENTRY_KEY,
            &(0..5).map(|i| node(&format!("n{i}"))).collect::<Vec<_>>(),
            UNIX_EPOCH + Duration::from_secs(2_000_000),
        );
        assert!(
            matches!(
                written,
                Err(crate::state::StateError::TooLarge { limit: 600, .. })
            ),
            "{written:?}"
        );
        assert!(
            !dir.path()
                .join(NODE_CACHE_KIND)
                .join("listings.json")
                .exists()
        );
    }
}
