//! The per-user HMAC key and the digests built from it.

use std::fmt;
use std::fs::{self, Permissions};
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use super::StateError;
use super::fs_util::{self, FILE_MODE, FileMode, io_err};

const KEY_FILE: &str = "cache.key";
const KEY_LEN: usize = 32;
/// Versions the encoding, so a future change cannot collide with today's digests.
const DOMAIN: &[u8] = b"sky-state-digest-v1";

/// Keyed digests for cache keys: HMAC-SHA256 under a per-user random key.
///
/// Cache keys are derived from secrets (access keys, tokens); a keyed digest
/// lets equal inputs find their entry without the file name revealing or
/// allowing an offline guess of those inputs. The key itself is never
/// logged: `Debug` redacts it.
#[derive(Clone)]
pub struct KeyedHasher {
    mac: Hmac<Sha256>,
}

impl KeyedHasher {
    /// A hasher with an explicit key (tests and tools; production code uses
    /// [`StateDir::hasher`](super::StateDir::hasher)).
    pub fn from_key(key: [u8; KEY_LEN]) -> Self {
        // HMAC accepts keys of any length, so this cannot fail; the fallback
        // keeps the I/O path free of panics anyway.
        let mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&key)
            .unwrap_or_else(|_| <Hmac<Sha256> as KeyInit>::new(&Default::default()));
        KeyedHasher { mac }
    }

    /// Full lower-case hex HMAC-SHA256 of the labelled fields.
    ///
    /// The encoding is unambiguous: a domain tag, the field count, then each
    /// label and value prefixed by its length, so `[("a", "bc")]`,
    /// `[("ab", "c")]` and `[("a", "b"), ("c", "")]` all differ.
    pub fn digest(&self, fields: &[(&str, &[u8])]) -> String {
        let mut mac = self.mac.clone();
        let mut put = |bytes: &[u8]| {
            mac.update(&(bytes.len() as u64).to_be_bytes());
            mac.update(bytes);
        };
        put(DOMAIN);
        put(&(fields.len() as u64).to_be_bytes());
        for (label, value) in fields {
            put(label.as_bytes());
            put(value);
        }
        fs_util::hex(&mac.finalize().into_bytes())
    }
}

impl fmt::Debug for KeyedHasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KeyedHasher { key: <redacted> }")
    }
}

/// Reads `<root>/cache.key`, creating it on first use.
///
/// The new key is written to a private temporary file, fsynced, and
/// published with `link(2)`, which refuses to overwrite: the file under its
/// final name is therefore always complete, and when several processes race
/// on a fresh directory exactly one link wins and the others read it.
pub(crate) fn load_or_create(root: &Path, euid: u32) -> Result<KeyedHasher, StateError> {
    let path = root.join(KEY_FILE);
    for _ in 0..4 {
        match read_key(&path, euid)? {
            KeyFile::Valid(key) => return Ok(KeyedHasher::from_key(key)),
            KeyFile::Absent => {
                let key = fs_util::random_bytes::<KEY_LEN>()?;
                let tmp = fs_util::write_temp(
                    root,
                    KEY_FILE,
                    &key,
                    FileMode::Private,
                    fs_util::Durability::Synced,
                )?;
                let linked = fs::hard_link(&tmp, &path);
                let _ = fs::remove_file(&tmp);
                fs_util::forget_temp(&tmp);
                match linked {
                    Ok(()) => {
                        fs_util::sync_dir(root)?;
                        return Ok(KeyedHasher::from_key(key));
                    }
                    // Lost the race: loop round and read the winner's key.
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                    // File systems without hard links: fall back to a rename,
                    // which may clobber a concurrent winner; the only cost is
                    // that entries written under the losing key become misses.
                    Err(_) => return publish_by_rename(&path, key),
                }
            }
            KeyFile::Damaged => {
                // Only an outside hand can damage a linked key; entries
                // keyed under it are unreachable anyway, so replace it.
                tracing::warn!(path = %path.display(), "replacing a damaged cache key");
                let key = fs_util::random_bytes::<KEY_LEN>()?;
                return publish_by_rename(&path, key);
            }
        }
    }
    Err(StateError::Io {
        op: "create",
        path,
        source: io::Error::other("the key file kept changing while it was being read"),
    })
}

fn publish_by_rename(path: &Path, key: [u8; KEY_LEN]) -> Result<KeyedHasher, StateError> {
    fs_util::write_atomic(path, &key, FileMode::Private)?;
    Ok(KeyedHasher::from_key(key))
}

enum KeyFile {
    Valid([u8; KEY_LEN]),
    Absent,
    Damaged,
}

fn read_key(path: &Path, euid: u32) -> Result<KeyFile, StateError> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(KeyFile::Absent),
        Err(source) => {
            return Err(StateError::Io {
                op: "inspect",
                path: path.to_path_buf(),
                source,
            });
        }
    };
    if !meta.is_file() {
        return Err(StateError::WrongFileType {
            path: path.to_path_buf(),
            expected: "regular file",
        });
    }
    fs_util::check_owner(path, &meta, euid)?;
    if meta.mode() & 0o777 != FILE_MODE {
        fs::set_permissions(path, Permissions::from_mode(FILE_MODE))
            .map_err(io_err("set permissions on", path))?;
    }
    let mut bytes = Vec::with_capacity(KEY_LEN + 1);
    fs::File::open(path)
        .and_then(|f| f.take(KEY_LEN as u64 + 1).read_to_end(&mut bytes))
        .map_err(io_err("read", path))?;
    Ok(match <[u8; KEY_LEN]>::try_from(bytes.as_slice()) {
        Ok(key) => KeyFile::Valid(key),
        Err(_) => KeyFile::Damaged,
    })
}
