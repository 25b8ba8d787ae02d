//! One cache entry of an adapter's fetched facts in the state folder, used
//! the way the AWS identity cache is: the key is an HMAC of everything that
//! selects the answer (never the secrets themselves), entries expire, a hit
//! is re-checked under a cross-process lock before fetching, and a rejected
//! credential drops the entry. The cache is an optimisation: when the state
//! folder is unusable, every launch fetches.

use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use tracing::{debug, warn};

use super::CheckContext;
use crate::state::{CacheLock, CacheStore, Clock, Lookup, StateDir};

/// An adapter's cache entry for one check.
pub(crate) struct CachedFacts {
    store: CacheStore,
    key: String,
    what: &'static str,
}

impl CachedFacts {
    /// The entry of `kind` (a folder of the state directory) selected by
    /// `fields`; `None` when the state folder cannot be used. `what` names
    /// the facts in log lines.
    pub(crate) fn open(
        ctx: &CheckContext,
        kind: &str,
        schema: u32,
        clock: &Clock,
        what: &'static str,
        fields: &[(&str, &[u8])],
    ) -> Option<CachedFacts> {
        let opened = StateDir::open(&ctx.state_dir).and_then(|dir| {
            let store = dir.store(kind, schema)?.with_clock(clock.clone());
            Ok((store, dir.hasher()?))
        });
        match opened {
            Ok((store, hasher)) => Some(CachedFacts {
                key: hasher.digest(fields),
                store,
                what,
            }),
            Err(e) => {
                warn!(error = %e, "{what} cache disabled");
                None
            }
        }
    }

    /// A live entry and its age.
    pub(crate) fn lookup<T: DeserializeOwned>(&self) -> Option<(T, Duration)> {
        match self.store.get::<T>(&self.key) {
            Lookup::Hit { value, age } => {
                debug!(
                    cache = "hit",
                    age_ms = age.as_millis() as u64,
                    "{} from the cache",
                    self.what
                );
                Some((value, age))
            }
            Lookup::Miss(reason) => {
                debug!(cache = "miss", reason = %reason, "{} not cached", self.what);
                None
            }
        }
    }

    /// Serialises fetchers of the same entry across processes; a lock that
    /// cannot be had in time only costs a duplicate fetch.
    pub(crate) async fn lock(&self, wait: Duration) -> Option<CacheLock> {
        match self.store.lock(&self.key, wait).await {
            Ok(lock) => Some(lock),
            Err(e) => {
                warn!(error = %e, "fetching the {} without the cache lock", self.what);
                None
            }
        }
    }

    /// Stores `value` for `ttl`.
    pub(crate) fn put<T: Serialize>(&self, value: &T, ttl: Duration) {
        if let Err(e) = self.store.put(&self.key, value, ttl) {
            warn!(error = %e, "cannot cache the {}", self.what);
        }
    }

    /// Drops the entry (its credentials were rejected).
    pub(crate) fn remove(&self) {
        if let Err(e) = self.store.remove(&self.key) {
            warn!(error = %e, "cannot drop the {} from the cache", self.what);
        }
    }
}

/// The share of the cloud deadline an adapter may spend fetching before it
/// falls back to what SkyPilot uses without an answer (the fan-out's own
/// deadline would otherwise turn the fallback into a failed cloud).
pub(crate) fn fetch_budget(cloud_timeout: Duration) -> Duration {
    cloud_timeout.mul_f64(0.8)
}
