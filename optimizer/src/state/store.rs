//! A folder of JSON cache entries of one kind, with per-key fetch locks.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::fs_util::{self, FILE_MODE, FileMode, io_err};
use super::{Clock, KeyedHasher, StateError};

/// How an entry's MAC ends the file: `…,"mac":"<64 hex>"}`.
const MAC_FIELD: &[u8] = b",\"mac\":\"";
/// Hex digits of an HMAC-SHA256.
const MAC_HEX_LEN: usize = 64;

/// Entries dated further in the future than this are distrusted: clocks of
/// processes on one machine agree to well within it, so such an entry was
/// written by a broken clock or by hand and its age cannot be known.
const FUTURE_SKEW: Duration = Duration::from_secs(60);
/// Most entries are a few hundred bytes; anything this large is not ours
/// unless the store says otherwise ([`CacheStore::with_max_entry_bytes`]).
const DEFAULT_MAX_ENTRY_BYTES: u64 = 1 << 20;
const POLL_MIN: Duration = Duration::from_millis(2);
const POLL_MAX: Duration = Duration::from_millis(25);

/// One cache entry as stored on disk (`<kind>/<key>.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry<T> {
    /// Layout version of `value`; entries of another schema are misses.
    pub schema: u32,
    /// The cache kind (`identity`, `kube-nodes`, ...), equal to the folder name.
    pub kind: String,
    /// When the value was fetched, in milliseconds since the Unix epoch.
    pub fetched_at_unix_ms: u64,
    /// When the value stops being valid, in milliseconds since the Unix epoch.
    pub expires_at_unix_ms: u64,
    /// The cached, non-secret value.
    pub value: T,
}

/// The answer of [`CacheStore::get`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup<T> {
    /// A valid, unexpired entry.
    Hit {
        /// The cached value.
        value: T,
        /// How long ago it was fetched.
        age: Duration,
    },
    /// No usable entry; the next `put` replaces whatever is there.
    Miss(MissReason),
}

/// Why [`CacheStore::get`] found no usable entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MissReason {
    /// There is no entry.
    Absent,
    /// The file is empty (e.g. a crash of a non-atomic writer).
    Empty,
    /// The JSON ends early.
    Truncated,
    /// The file is not JSON, or not an entry of the expected shape.
    Unparsable,
    /// The entry was written with another schema version.
    WrongSchema,
    /// The entry belongs to another cache kind.
    WrongKind,
    /// The entry claims to be fetched in the future (beyond a small clock skew).
    FutureDated,
    /// The entry has expired.
    Expired,
    /// The file belongs to another user.
    ForeignOwner,
    /// The path is not a regular file (a symlink, a folder, ...).
    NotAFile,
    /// The file's permissions are not 0600 (others could have written it).
    OpenPermissions,
    /// The entry's MAC is missing or does not verify (edited by hand, or
    /// written under another key).
    Unauthenticated,
    /// The file could not be read, or the key is malformed.
    Unreadable,
}

impl MissReason {
    /// A short lower-case name, for logs.
    pub fn as_str(self) -> &'static str {
        match self {
            MissReason::Absent => "absent",
            MissReason::Empty => "empty",
            MissReason::Truncated => "truncated",
            MissReason::Unparsable => "unparsable",
            MissReason::WrongSchema => "wrong-schema",
            MissReason::WrongKind => "wrong-kind",
            MissReason::FutureDated => "future-dated",
            MissReason::Expired => "expired",
            MissReason::ForeignOwner => "foreign-owner",
            MissReason::NotAFile => "not-a-file",
            MissReason::OpenPermissions => "open-permissions",
            MissReason::Unauthenticated => "unauthenticated",
            MissReason::Unreadable => "unreadable",
        }
    }
}

impl fmt::Display for MissReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The entries of one cache kind: `<state>/<kind>/<key>.{json,lock}`.
///
/// Keys must be file-name safe (`[A-Za-z0-9_-]`, at most 128 characters);
/// use [`KeyedHasher::digest`](super::KeyedHasher::digest) to derive them.
#[derive(Debug, Clone)]
pub struct CacheStore {
    dir: PathBuf,
    kind: String,
    schema: u32,
    euid: u32,
    clock: Clock,
    /// Largest entry read or written; larger files are not this store's.
    max_entry_bytes: u64,
    /// Authenticates entries (the per-user cache key).
    auth: KeyedHasher,
    /// Whether the folder held any file when the store was opened.
    held_entries: bool,
}

/// An exclusive, advisory lock on one key, released on drop.
///
/// Based on `flock(2)` (through `std::fs::File::lock`), so it is released
/// by the kernel when the holder dies, and it also excludes other threads of
/// the same process that open the lock file themselves.
#[derive(Debug)]
pub struct CacheLock {
    file: File,
    path: PathBuf,
}

impl CacheLock {
    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for CacheLock {
    fn drop(&mut self) {
        // Closing the file releases the lock as well; unlocking first just
        // makes the release independent of when the descriptor is closed.
        let _ = self.file.unlock();
    }
}

impl CacheStore {
    pub(crate) fn open(
        root: &Path,
        kind: &str,
        schema: u32,
        euid: u32,
        auth: KeyedHasher,
    ) -> Result<Self, StateError> {
        fs_util::check_name("kind", kind)?;
        let dir = root.join(kind);
        let entries = fs_util::ensure_private_dir(&dir, euid)?;
        Ok(CacheStore {
            dir,
            kind: kind.to_string(),
            schema,
            euid,
            clock: Clock::system(),
            max_entry_bytes: DEFAULT_MAX_ENTRY_BYTES,
            auth,
            held_entries: entries > 0,
        })
    }

    /// Whether the store's folder held any file (an entry, a lock, a
    /// temporary file of a live writer) when it was opened: when it held
    /// none, no lookup can hit. Read from the opening's own listing.
    pub fn held_entries_when_opened(&self) -> bool {
        self.held_entries
    }

    /// The same store, holding entries of up to `bytes` (1 MiB unless told):
    /// for kinds whose values grow with what they describe, such as the
    /// nodes of every Kubernetes context.
    pub fn with_max_entry_bytes(mut self, bytes: u64) -> Self {
        self.max_entry_bytes = bytes;
        self
    }

    /// The time as this store reads it (its [`Clock`]).
    pub fn now(&self) -> SystemTime {
        self.clock.now()
    }

    /// The same store, reading the time from `clock` (for expiry tests).
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// The folder holding this kind's entries.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The cache kind (the folder name).
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// The path of the entry for `key` (whether or not it exists).
    pub fn entry_path(&self, key: &str) -> Result<PathBuf, StateError> {
        fs_util::check_name("key", key)?;
        Ok(self.dir.join(format!("{key}.json")))
    }

    /// Looks `key` up. Every defect of the stored file is a miss, never an error.
    pub fn get<T: DeserializeOwned>(&self, key: &str) -> Lookup<T> {
        match self.entry_path(key) {
            Ok(path) => self.read_entry(&path),
            Err(_) => Lookup::Miss(MissReason::Unreadable),
        }
    }

    fn read_entry<T: DeserializeOwned>(&self, path: &Path) -> Lookup<T> {
        let meta = match fs::symlink_metadata(path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Lookup::Miss(MissReason::Absent);
            }
            Err(_) => return Lookup::Miss(MissReason::Unreadable),
        };
        if !meta.is_file() {
            return Lookup::Miss(MissReason::NotAFile);
        }
        if meta.uid() != self.euid {
            return Lookup::Miss(MissReason::ForeignOwner);
        }
        if meta.mode() & 0o7777 != FILE_MODE {
            // Group- or world-writable (or merely readable): someone else
            // could have written it. A miss; the next put replaces it 0600.
            return Lookup::Miss(MissReason::OpenPermissions);
        }
        // Sized from the metadata just read: the entry comes in one read
        // (and the read that says end of file), not in doubling pieces.
        let expected = meta.len().min(self.max_entry_bytes);
        let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0) + 1);
        let read =
            File::open(path).and_then(|f| f.take(self.max_entry_bytes).read_to_end(&mut bytes));
        if read.is_err() {
            return Lookup::Miss(MissReason::Unreadable);
        }
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Lookup::Miss(MissReason::Empty);
        }
        let key = path
            .file_stem()
            .and_then(|k| k.to_str())
            .unwrap_or_default();
        match self.decode(&bytes) {
            // Checked last, so a damaged entry is still told by its defect.
            Lookup::Hit { .. } if !self.authentic(key, &bytes) => {
                Lookup::Miss(MissReason::Unauthenticated)
            }
            found => found,
        }
    }

    /// The MAC of an entry's bytes (without its `mac` field), bound to this
    /// kind and `key`: an entry copied under another key does not verify.
    fn mac(&self, key: &str, body: &[u8]) -> String {
        self.auth.digest(&[
            ("entry-mac", b"v1"),
            ("kind", self.kind.as_bytes()),
            ("key", key.as_bytes()),
            ("body", body),
        ])
    }

    /// Whether `bytes` end in a `mac` field that verifies over the rest.
    fn authentic(&self, key: &str, bytes: &[u8]) -> bool {
        let text = bytes.trim_ascii_end();
        let tail = MAC_FIELD.len() + MAC_HEX_LEN + 2;
        if text.len() < tail + 1 || !text.ends_with(b"\"}") {
            return false;
        }
        let (head, rest) = text.split_at(text.len() - tail);
        if !rest.starts_with(MAC_FIELD) {
            return false;
        }
        let given = &rest[MAC_FIELD.len()..MAC_FIELD.len() + MAC_HEX_LEN];
        let mut body = head.to_vec();
        body.push(b'}');
        let want = self.mac(key, &body);
        // Constant time: the comparison must not tell how much of a guess matched.
        want.len() == given.len()
            && want
                .bytes()
                .zip(given)
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }

    fn decode<T: DeserializeOwned>(&self, bytes: &[u8]) -> Lookup<T> {
        // A sound entry of this schema in one pass: the two steps below,
        // through a `serde_json::Value`, doubled the cost of large entries
        // (every Kubernetes context's nodes) and are only needed to tell
        // what is wrong with an entry.
        if let Ok(entry) = serde_json::from_slice::<Entry<T>>(bytes)
            && entry.schema == self.schema
        {
            return self.judge(entry);
        }
        // Two steps, so that a newer schema whose fields changed shape is
        // reported as a schema change rather than as garbage.
        let json: serde_json::Value = match serde_json::from_slice(bytes) {
            Ok(json) => json,
            Err(e) if e.is_eof() => return Lookup::Miss(MissReason::Truncated),
            Err(_) => return Lookup::Miss(MissReason::Unparsable),
        };
        match json.get("schema").and_then(serde_json::Value::as_u64) {
            Some(schema) if schema == u64::from(self.schema) => {}
            Some(_) => return Lookup::Miss(MissReason::WrongSchema),
            None => return Lookup::Miss(MissReason::Unparsable),
        }
        match serde_json::from_value(json) {
            Ok(entry) => self.judge(entry),
            Err(_) => Lookup::Miss(MissReason::Unparsable),
        }
    }

    /// Whether a decoded entry of this schema may be used: its kind, its
    /// dates.
    fn judge<T>(&self, entry: Entry<T>) -> Lookup<T> {
        if entry.kind != self.kind {
            return Lookup::Miss(MissReason::WrongKind);
        }
        let now = unix_ms(self.clock.now());
        if entry.fetched_at_unix_ms > now.saturating_add(duration_ms(FUTURE_SKEW)) {
            return Lookup::Miss(MissReason::FutureDated);
        }
        if now >= entry.expires_at_unix_ms {
            return Lookup::Miss(MissReason::Expired);
        }
        let age = Duration::from_millis(now.saturating_sub(entry.fetched_at_unix_ms));
        Lookup::Hit {
            value: entry.value,
            age,
        }
    }

    /// Stores `value` under `key` for `ttl` from now, atomically.
    pub fn put<T: Serialize>(&self, key: &str, value: &T, ttl: Duration) -> Result<(), StateError> {
        let now = self.clock.now();
        self.write(key, value, now, now.checked_add(ttl).unwrap_or(now))
    }

    /// Stores `value` under `key` until `expires_at`, atomically.
    ///
    /// Writes a 0600 temporary file in the same folder and swaps it with
    /// the entry (`RENAME_EXCHANGE`, then the old file is removed; a rename
    /// where there is no entry yet or no swap): readers in other processes
    /// see the old entry or the new one. Not fsynced ([`Durability::Cache`](super::fs_util::Durability)):
    /// after a power loss the entry may be old, or damaged and so a miss.
    pub fn put_until<T: Serialize>(
        &self,
        key: &str,
        value: &T,
        expires_at: SystemTime,
    ) -> Result<(), StateError> {
        self.write(key, value, self.clock.now(), expires_at)
    }

    fn write<T: Serialize>(
        &self,
        key: &str,
        value: &T,
        fetched_at: SystemTime,
        expires_at: SystemTime,
    ) -> Result<(), StateError> {
        let path = self.entry_path(key)?;
        let entry = EntryRef {
            schema: self.schema,
            kind: &self.kind,
            fetched_at_unix_ms: unix_ms(fetched_at),
            expires_at_unix_ms: unix_ms(expires_at),
            value,
        };
        let mut bytes = serde_json::to_vec(&entry).map_err(|source| StateError::Encode {
            path: path.clone(),
            source,
        })?;
        // `{…}` becomes `{…,"mac":"<hex>"}`, the MAC taken over `{…}`.
        let mac = self.mac(key, &bytes);
        bytes.pop();
        bytes.extend_from_slice(MAC_FIELD);
        bytes.extend_from_slice(mac.as_bytes());
        bytes.extend_from_slice(b"\"}");
        let size = bytes.len() as u64;
        if size > self.max_entry_bytes {
            // A read would stop at the limit and find the entry truncated.
            return Err(StateError::TooLarge {
                path,
                bytes: size,
                limit: self.max_entry_bytes,
            });
        }
        // Entries are authenticated when read: a damaged one is a miss.
        fs_util::write_cache_atomic(&path, &bytes, FileMode::Private)
    }

    /// Deletes the entry for `key`, if any.
    pub fn remove(&self, key: &str) -> Result<(), StateError> {
        let path = self.entry_path(key)?;
        match fs::remove_file(&path) {
            Ok(()) => fs_util::sync_dir(&self.dir),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(StateError::Io {
                op: "remove",
                path,
                source,
            }),
        }
    }

    /// Deletes every entry but `keep`'s (a kind whose layout changed from
    /// many entries to one), with one directory sync for all of them.
    /// Returns how many were deleted.
    pub fn remove_all_but(&self, keep: &str) -> Result<usize, StateError> {
        let mut removed = 0;
        for key in self.keys()?.into_iter().filter(|k| k != keep) {
            let path = self.entry_path(&key)?;
            match fs::remove_file(&path) {
                Ok(()) => removed += 1,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(source) => {
                    return Err(StateError::Io {
                        op: "remove",
                        path,
                        source,
                    });
                }
            }
        }
        if removed > 0 {
            fs_util::sync_dir(&self.dir)?;
        }
        Ok(removed)
    }

    /// The keys that have an entry file (valid or not), sorted.
    pub fn keys(&self) -> Result<Vec<String>, StateError> {
        let mut keys = Vec::new();
        for dirent in fs::read_dir(&self.dir).map_err(io_err("list", &self.dir))? {
            let dirent = dirent.map_err(io_err("list", &self.dir))?;
            let name = dirent.file_name();
            let Some(key) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
                continue;
            };
            if fs_util::check_name("key", key).is_ok() {
                keys.push(key.to_string());
            }
        }
        keys.sort();
        Ok(keys)
    }

    /// Takes the fetch lock for `key` if no one holds it.
    pub fn try_lock(&self, key: &str) -> Result<Option<CacheLock>, StateError> {
        fs_util::check_name("key", key)?;
        let path = self.dir.join(format!("{key}.lock"));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(FILE_MODE)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(&path)
            .map_err(io_err("open", &path))?;
        let meta = file.metadata().map_err(io_err("inspect", &path))?;
        fs_util::check_owner(&path, &meta, self.euid)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(CacheLock { file, path })),
            Err(fs::TryLockError::WouldBlock) => Ok(None),
            Err(fs::TryLockError::Error(source)) => Err(StateError::Io {
                op: "lock",
                path,
                source,
            }),
        }
    }

    /// Waits up to `max_wait` for the fetch lock on `key`, without blocking
    /// the async runtime (polls [`try_lock`](Self::try_lock) with short sleeps).
    ///
    /// After it returns, re-check the cache: the previous holder has usually
    /// just filled it.
    pub async fn lock(&self, key: &str, max_wait: Duration) -> Result<CacheLock, StateError> {
        let start = Instant::now();
        let mut pause = POLL_MIN;
        loop {
            if let Some(lock) = self.try_lock(key)? {
                return Ok(lock);
            }
            let waited = start.elapsed();
            if waited >= max_wait {
                return Err(self.lock_timeout(key, waited));
            }
            tokio::time::sleep(pause.min(max_wait - waited)).await;
            pause = (pause * 2).min(POLL_MAX);
        }
    }

    /// [`lock`](Self::lock) for synchronous callers.
    pub fn lock_blocking(&self, key: &str, max_wait: Duration) -> Result<CacheLock, StateError> {
        let start = Instant::now();
        let mut pause = POLL_MIN;
        loop {
            if let Some(lock) = self.try_lock(key)? {
                return Ok(lock);
            }
            let waited = start.elapsed();
            if waited >= max_wait {
                return Err(self.lock_timeout(key, waited));
            }
            std::thread::sleep(pause.min(max_wait - waited));
            pause = (pause * 2).min(POLL_MAX);
        }
    }

    fn lock_timeout(&self, key: &str, waited: Duration) -> StateError {
        StateError::LockTimeout {
            path: self.dir.join(format!("{key}.lock")),
            waited,
        }
    }
}

/// [`Entry`] borrowing its parts, so writing needs no clone of the value.
#[derive(Serialize)]
struct EntryRef<'a, T> {
    schema: u32,
    kind: &'a str,
    fetched_at_unix_ms: u64,
    expires_at_unix_ms: u64,
    value: &'a T,
}

/// Milliseconds since the Unix epoch, as entries store times (0 before it).
pub(crate) fn unix_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map(duration_ms).unwrap_or(0)
}

/// Whole milliseconds, saturating.
pub(crate) fn duration_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
