//! The inventory cache: a login node's answers kept on disk for a while, so
//! that the next `sky launch` need not SSH to it again.
//!
//! SkyPilot 0.14.1 caches the same answers in its `kv_cache`
//! (`get_slurm_nodes_info`: 30 minutes; partitions and
//! `SelectTypeParameters`: one hour). Here one entry holds the three, keyed
//! by everything that decides which machine answers (cluster, host, port,
//! user, SSH program, proxy), so an edited `~/.slurm/config` never serves
//! another cluster's nodes. Only answers whose `sinfo` succeeded are kept.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use planner::catalog::slurm::SlurmInventory;

/// Where [`SlurmCloud`](super::SlurmCloud) keeps inventories. It consults the
/// cache (unless `ctx.refresh`) before asking a login node and fills it
/// after a successful answer. [`LazyStateInventoryCache`] is the on-disk
/// one; tests bring their own.
pub trait InventoryCache: Send + Sync {
    /// The cached answers for `key` no older than `max_age`, with their age.
    fn get(&self, key: &InventoryKey, max_age: Duration) -> Option<(SlurmInventory, Duration)>;
    /// Stores answers.
    fn put(&self, key: &InventoryKey, inventory: &SlurmInventory, ttl: Duration);
}

/// What selects a login node (none of it secret; it is hashed anyway).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct InventoryKey {
    /// The `Host` alias.
    pub cluster: String,
    /// `HostName`.
    pub hostname: String,
    /// `Port`.
    pub port: u16,
    /// `User`.
    pub user: String,
    /// The SSH program.
    pub program: String,
    /// `ProxyCommand` / `ProxyJump`, joined.
    pub proxy: String,
}

/// Cache kind (folder) of Slurm inventories.
pub const INVENTORY_CACHE_KIND: &str = "slurm-inventory";

/// Schema version of inventory entries.
pub const INVENTORY_CACHE_SCHEMA: u32 = 1;

/// The on-disk [`InventoryCache`], opened on first use (as the Kubernetes
/// node cache: opening may create the state folder and its key).
#[derive(Debug)]
pub struct LazyStateInventoryCache {
    state_dir: PathBuf,
    opened: OnceLock<Option<Opened>>,
}

#[derive(Debug)]
struct Opened {
    store: crate::state::CacheStore,
    hasher: crate::state::KeyedHasher,
}

impl LazyStateInventoryCache {
    /// An inventory cache under the state folder `state_dir`.
    pub fn new(state_dir: impl Into<PathBuf>) -> Self {
        LazyStateInventoryCache {
            state_dir: state_dir.into(),
            opened: OnceLock::new(),
        }
    }

    fn opened(&self) -> Option<&Opened> {
        self.opened
            .get_or_init(|| {
                let open =
                    |s: &crate::state::StateDir| -> Result<Opened, crate::state::StateError> {
                        Ok(Opened {
                            store: s.store(INVENTORY_CACHE_KIND, INVENTORY_CACHE_SCHEMA)?,
                            hasher: s.hasher()?,
                        })
                    };
                crate::state::StateDir::open(&self.state_dir)
                    .and_then(|s| open(&s))
                    // Without a usable state folder the login nodes are simply asked every time.
                    .inspect_err(|e| tracing::warn!(error = %e, "Slurm inventory cache disabled"))
                    .ok()
            })
            .as_ref()
    }
}

impl Opened {
    fn key(&self, k: &InventoryKey) -> String {
        self.hasher.digest(&[
            ("cluster", k.cluster.as_bytes()),
            ("hostname", k.hostname.as_bytes()),
            ("port", k.port.to_string().as_bytes()),
            ("user", k.user.as_bytes()),
            ("program", k.program.as_bytes()),
            ("proxy", k.proxy.as_bytes()),
        ])
    }
}

impl InventoryCache for LazyStateInventoryCache {
    fn get(&self, key: &InventoryKey, max_age: Duration) -> Option<(SlurmInventory, Duration)> {
        let cache = self.opened()?;
        match cache.store.get::<SlurmInventory>(&cache.key(key)) {
            crate::state::Lookup::Hit { value, age } if age <= max_age => Some((value, age)),
            _ => None,
        }
    }

    fn put(&self, key: &InventoryKey, inventory: &SlurmInventory, ttl: Duration) {
        let Some(cache) = self.opened() else {
            return;
        };
        if let Err(e) = cache.store.put(&cache.key(key), inventory, ttl) {
            tracing::warn!(error = %e, "cannot write the Slurm inventory cache");
        }
    }
}
