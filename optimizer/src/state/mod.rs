//! On-disk state: identity and node caches under `~/.sky` (or `SKY_STATE_DIR`).
//!
//! Layout of a state directory:
//!
//! ```text
//! <state>/                  0700, owned by the current user
//!   cache.key               0600, 32 random bytes: the HMAC key for cache keys
//!   <kind>/                 0700, one folder per cache kind (`identity/`, `kube-nodes/`, ...)
//!     <key>.json            0600, one entry: {schema, kind, fetched_at_unix_ms, expires_at_unix_ms, value, mac}
//!     <key>.lock            0600, advisory lock serialising the fetchers of <key>
//!   kube-nodes/listings.json  the one node-cache entry: every context's listing,
//!                           each under an HMAC digest of (context, API server)
//!   catalog-failures/<h>.json 0600, a failed catalog download per file and host
//!                           (time, failures in a row, short reason): its back-off
//! ```
//!
//! Invariants:
//!
//! * directories are 0700 and files 0600 whatever the umask, and everything
//!   must be owned by the current user (a foreign-owned state directory is
//!   refused, a foreign-owned entry is a miss);
//! * entries never hold secrets — but one kind: `kube-exec/` keeps a
//!   Kubernetes exec plugin's short-lived token until it expires
//!   (`clouds::kubernetes::ExecCredentials`, issue 29) — callers store
//!   non-secret values only, and
//!   entry names are [`KeyedHasher`] digests, so neither the file names nor
//!   their contents reveal the inputs (access keys, tokens) that selected them;
//! * writes are atomic (temporary file, then a rename or, for a cache entry, a swap): a concurrent reader sees
//!   the old entry or the new one, never a torn one. Cache entries and
//!   catalog images are not fsynced (`Durability::Cache`): after a power
//!   loss one may be old, or damaged and so a miss, never trusted; the
//!   cache key and user files are (`Durability::Synced`);
//! * a damaged entry of any kind is a [`Lookup::Miss`] and the next
//!   [`CacheStore::put`] replaces it;
//! * entries are trusted only when they are ours: a file that is not 0600,
//!   not owned by the user, or whose `mac` (HMAC-SHA256 under `cache.key`
//!   over the entry's bytes, its kind and its key) does not verify is a
//!   miss — a hand-edited entry with a forged account is never used;
//! * temporary files (`.<name>.<pid>.<hex>.tmp`) never outlive their
//!   writer: an interrupted `sky` removes its own
//!   ([`abandon_pending_writes`]), and opening a state folder removes those
//!   of writers that died.

mod catalog_index;
mod download_backoff;
mod fs_util;
mod key;
mod store;

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

pub use catalog_index::CatalogIndex;
pub use download_backoff::{
    BACKOFF_FIRST, BACKOFF_MAX, DownloadBackoff, DownloadFailure, redact_url, url_host,
};
pub(crate) use fs_util::hex;
pub use fs_util::{Durability, FileMode, TempFile, abandon_pending_writes, write_atomic};
pub use key::KeyedHasher;
pub use store::{CacheLock, CacheStore, Entry, Lookup, MissReason};
pub(crate) use store::{duration_ms, unix_ms};

/// Why the state directory or a cache operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// A file-system operation on a state file or folder failed.
    #[error("cannot {op} {}: {source}", path.display())]
    Io {
        /// What was attempted (`"create"`, `"read"`, `"rename"`, ...).
        op: &'static str,
        /// The file or folder concerned.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A state file or folder belongs to another user, so trusting it could
    /// leak or poison cached identities.
    #[error(
        "refusing to use {}: it is owned by uid {owner}, not by the current user (uid {euid}); \
         change its owner or point SKY_STATE_DIR at a folder you own",
        path.display()
    )]
    ForeignOwner {
        /// The offending path.
        path: PathBuf,
        /// Its owner.
        owner: u32,
        /// The effective uid of this process.
        euid: u32,
    },
    /// The path exists but is not a directory (or not a regular file where a
    /// file is expected).
    #[error("{} is not a {expected}", path.display())]
    WrongFileType {
        /// The offending path.
        path: PathBuf,
        /// `"directory"` or `"regular file"`.
        expected: &'static str,
    },
    /// A cache key or kind that is not a plain file name (`[A-Za-z0-9_-]`, 1 to 128 characters).
    #[error("invalid cache {what} {name:?}: expected 1 to 128 characters from [A-Za-z0-9_-]")]
    InvalidName {
        /// `"key"` or `"kind"`.
        what: &'static str,
        /// The rejected name.
        name: String,
    },
    /// Another process held the lock for longer than the allowed wait.
    #[error("timed out after {waited:?} waiting for the lock {}", path.display())]
    LockTimeout {
        /// The lock file.
        path: PathBuf,
        /// How long this process waited.
        waited: Duration,
    },
    /// The value could not be encoded as JSON.
    #[error("cannot encode the cache entry {}: {source}", path.display())]
    Encode {
        /// The entry being written.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: serde_json::Error,
    },
    /// The encoded entry is larger than its store reads back.
    #[error("cannot write the cache entry {}: {bytes} bytes, more than the {limit} it may hold", path.display())]
    TooLarge {
        /// The entry being written.
        path: PathBuf,
        /// Its encoded size.
        bytes: u64,
        /// The store's limit ([`CacheStore::with_max_entry_bytes`]).
        limit: u64,
    },
    /// The operating system's random number generator failed.
    #[error("cannot generate random bytes: {0}")]
    Random(String),
}

/// A source of wall-clock time, injectable so that expiry can be tested
/// without sleeping.
#[derive(Clone)]
pub struct Clock(Arc<dyn Fn() -> SystemTime + Send + Sync>);

impl Clock {
    /// The real clock ([`SystemTime::now`]).
    pub fn system() -> Self {
        Clock(Arc::new(SystemTime::now))
    }

    /// A clock driven by `now`.
    pub fn from_fn(now: impl Fn() -> SystemTime + Send + Sync + 'static) -> Self {
        Clock(Arc::new(now))
    }

    /// A clock that runs `offset` ahead of the real one (use for "an hour later").
    pub fn ahead_by(offset: Duration) -> Self {
        Clock::from_fn(move || SystemTime::now() + offset)
    }

    /// A clock that runs `offset` behind the real one.
    pub fn behind_by(offset: Duration) -> Self {
        Clock::from_fn(move || SystemTime::now() - offset)
    }

    /// The current time according to this clock.
    pub fn now(&self) -> SystemTime {
        (self.0)()
    }
}

impl Default for Clock {
    fn default() -> Self {
        Clock::system()
    }
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Clock")
    }
}

/// An opened, verified state directory.
///
/// Opening creates the folder (0700) when needed, tightens an existing one
/// of ours to 0700, and refuses one owned by another user.
#[derive(Debug, Clone)]
pub struct StateDir {
    root: PathBuf,
    euid: u32,
}

impl StateDir {
    /// Opens (creating if needed) the state directory at `path`.
    ///
    /// Missing parent folders are created with the default permissions;
    /// only the state folder itself is made private.
    pub fn open(path: impl Into<PathBuf>) -> Result<Self, StateError> {
        let root = path.into();
        let euid = fs_util::euid();
        if let Some(parent) = root.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| StateError::Io {
                op: "create",
                path: parent.to_path_buf(),
                source,
            })?;
        }
        fs_util::ensure_private_dir(&root, euid)?;
        Ok(StateDir { root, euid })
    }

    /// The state directory.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Loads this user's cache key (`<state>/cache.key`), creating it on first use.
    ///
    /// Concurrent first runs agree on one key: the key is published with a
    /// no-clobber link, and the losers read the winner's.
    pub fn hasher(&self) -> Result<KeyedHasher, StateError> {
        key::load_or_create(&self.root, self.euid)
    }

    /// Opens the entry store for one kind of cache (`identity`, `kube-nodes`, ...).
    ///
    /// Entries written with another `schema` are misses, so bumping the
    /// schema invalidates every old entry of this kind.
    pub fn store(&self, kind: &str, schema: u32) -> Result<CacheStore, StateError> {
        let auth = self.hasher()?;
        store::CacheStore::open(&self.root, kind, schema, self.euid, auth)
    }

    /// [`StateDir::store`] and [`StateDir::hasher`] together, the key read
    /// once (a cache whose keys are digests under the same key).
    pub fn store_and_hasher(
        &self,
        kind: &str,
        schema: u32,
    ) -> Result<(CacheStore, KeyedHasher), StateError> {
        let hasher = self.hasher()?;
        let store = store::CacheStore::open(&self.root, kind, schema, self.euid, hasher.clone())?;
        Ok((store, hasher))
    }
}
