//! Small file-system helpers shared by the key and the entry store.

use std::fs::{self, DirBuilder, File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::StateError;

pub(crate) const DIR_MODE: u32 = 0o700;
pub(crate) const FILE_MODE: u32 = 0o600;

pub(crate) fn euid() -> u32 {
    rustix::process::geteuid().as_raw()
}

pub(crate) fn io_err(op: &'static str, path: &Path) -> impl FnOnce(io::Error) -> StateError {
    let path = path.to_path_buf();
    move |source| StateError::Io { op, path, source }
}

/// Creates `path` as a 0700 folder, or verifies and tightens an existing one.
///
/// The mode is set explicitly after creation because `mkdir`'s mode is
/// filtered by the umask only in the restrictive direction; an existing
/// folder of ours is tightened since the cache key lives in it.
///
/// Returns how many entries the folder holds after the sweep (the sweep
/// lists it anyway: a caller asking "is anything cached here?" need not
/// list it again).
pub(crate) fn ensure_private_dir(path: &Path, euid: u32) -> Result<usize, StateError> {
    match DirBuilder::new().mode(DIR_MODE).create(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(source) => {
            return Err(StateError::Io {
                op: "create",
                path: path.to_path_buf(),
                source,
            });
        }
    }
    let meta = fs::metadata(path).map_err(io_err("inspect", path))?;
    if !meta.is_dir() {
        return Err(StateError::WrongFileType {
            path: path.to_path_buf(),
            expected: "directory",
        });
    }
    check_owner(path, &meta, euid)?;
    if meta.mode() & 0o7777 != DIR_MODE {
        fs::set_permissions(path, Permissions::from_mode(DIR_MODE))
            .map_err(io_err("set permissions on", path))?;
    }
    // Every run that opens a state folder sweeps what killed runs left there.
    let Sweep { removed, kept } = remove_stale_temps(path);
    if removed > 0 {
        tracing::debug!(folder = %path.display(), swept = removed, "removed stale temporary files");
    }
    Ok(kept)
}

pub(crate) fn check_owner(path: &Path, meta: &fs::Metadata, euid: u32) -> Result<(), StateError> {
    if meta.uid() != euid {
        return Err(StateError::ForeignOwner {
            path: path.to_path_buf(),
            owner: meta.uid(),
            euid,
        });
    }
    Ok(())
}

/// Who may read a file this crate writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileMode {
    /// 0600 whatever the umask: everything in the state folder.
    Private,
    /// 0666 narrowed by the umask, like any file the user creates (a plan
    /// written with `--plan-out`).
    User,
}

/// A new, empty file that did not exist before (never follows a planted symlink).
fn create_file(path: &Path, mode: FileMode) -> Result<File, StateError> {
    let bits = match mode {
        FileMode::Private => FILE_MODE,
        FileMode::User => 0o666,
    };
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(bits)
        .open(path)
        .map_err(io_err("create", path))?;
    if mode == FileMode::Private {
        // Explicit, like the folders: the creation mode is only ever narrowed
        // by the umask, but a stricter umask must not leave us unable to read back.
        file.set_permissions(Permissions::from_mode(FILE_MODE))
            .map_err(io_err("set permissions on", path))?;
    }
    Ok(file)
}

/// How much a write promises after a crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// The new contents survive a power loss once the write returns
    /// (fsync of the file and of its folder): user files, the cache key,
    /// downloaded catalogs.
    Synced,
    /// A power loss may bring back the old contents, or leave a file its
    /// reader rejects (every cache entry is validated when read: an HMAC,
    /// an image's own checks), which then counts as a miss and is written
    /// again. A crash of the process alone still leaves the old file or the
    /// new one. For caches, where two fsyncs (~1–2 ms) per entry would be
    /// paid on the launch's critical path for no loss a reader can see.
    Cache,
}

/// Writes `bytes` to a new temporary file in `dir`, fsynced when `durability`
/// says so.
///
/// The caller publishes it (rename or link) and removes it on failure.
pub(crate) fn write_temp(
    dir: &Path,
    stem: &str,
    bytes: &[u8],
    mode: FileMode,
    durability: Durability,
) -> Result<PathBuf, StateError> {
    // The writer's pid is in the name, so a later run can tell the leftovers
    // of a killed writer from a live writer's file ([`remove_stale_temps`]).
    let tmp = dir.join(format!(
        ".{stem}.{}.{}{TEMP_SUFFIX}",
        std::process::id(),
        random_hex(8)?
    ));
    let result = {
        let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
        if pending.closed {
            // The process is being interrupted: write nothing new.
            return Err(StateError::Io {
                op: "create",
                path: tmp,
                source: io::Error::new(io::ErrorKind::Interrupted, "interrupted"),
            });
        }
        let created = create_file(&tmp, mode);
        if created.is_ok() {
            pending.paths.push(tmp.clone());
        }
        created
    }
    .and_then(|mut file| {
        file.write_all(bytes).map_err(io_err("write", &tmp))?;
        match durability {
            Durability::Synced => file.sync_all().map_err(io_err("fsync", &tmp)),
            Durability::Cache => Ok(()),
        }
    });
    match result {
        Ok(()) => Ok(tmp),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            forget_temp(&tmp);
            Err(e)
        }
    }
}

/// How the temporary files of [`write_temp`] end.
pub(crate) const TEMP_SUFFIX: &str = ".tmp";

/// The temporary files this process has created and not yet published or
/// removed, so that an interrupted run can remove them before it exits.
struct Pending {
    paths: Vec<PathBuf>,
    /// Set by [`abandon_pending_writes`]: no new temporary file is created.
    closed: bool,
}

static PENDING: std::sync::Mutex<Pending> = std::sync::Mutex::new(Pending {
    paths: Vec::new(),
    closed: false,
});

/// `tmp` was published (renamed or linked) or removed.
pub(crate) fn forget_temp(tmp: &Path) {
    let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    pending.paths.retain(|p| p != tmp);
}

/// Removes every temporary file this process has not yet published and
/// refuses new ones: called when `sky` is interrupted (SIGINT/SIGTERM), so
/// that writes still running on other threads leave nothing behind. An
/// entry already renamed into place is complete; one not yet renamed is
/// absent. Returns how many files were removed.
pub fn abandon_pending_writes() -> usize {
    let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    pending.closed = true;
    let mut removed = 0;
    for path in pending.paths.drain(..) {
        if fs::remove_file(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// Temporary files older than this are removed whoever wrote them: no write
/// of a few hundred bytes takes that long.
const STALE_TEMP_AGE: std::time::Duration = std::time::Duration::from_secs(600);

/// Removes the temporary files in `dir` left by writers that died (SIGKILL,
/// power loss) before publishing them: those whose writer pid no longer
/// runs, and any older than ten minutes. A live writer's file is kept.
pub(crate) fn remove_stale_temps(dir: &Path) -> Sweep {
    let mut sweep = Sweep::default();
    let Ok(entries) = fs::read_dir(dir) else {
        return sweep;
    };
    let own = std::process::id();
    for entry in entries.flatten() {
        sweep.kept += 1;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !(name.starts_with('.') && name.ends_with(TEMP_SUFFIX)) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        if !meta.is_file() {
            continue;
        }
        let old = meta
            .modified()
            .ok()
            .and_then(|m| m.elapsed().ok())
            .is_some_and(|age| age > STALE_TEMP_AGE);
        let writer = temp_writer_pid(name);
        let dead = writer.is_some_and(|pid| pid != own && !process_alive(pid));
        // A name without a pid comes from an older version: only age tells.
        if (dead || old) && fs::remove_file(entry.path()).is_ok() {
            sweep.removed += 1;
            sweep.kept -= 1;
        }
    }
    sweep
}

/// What [`remove_stale_temps`] did to a folder.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sweep {
    /// Temporary files removed.
    pub(crate) removed: usize,
    /// Entries left (files and folders of any name).
    pub(crate) kept: usize,
}

/// The pid in `.<stem>.<pid>.<hex>.tmp`.
fn temp_writer_pid(name: &str) -> Option<u32> {
    let inner = name.strip_suffix(TEMP_SUFFIX)?;
    let mut parts = inner.rsplit('.');
    let hex = parts.next()?;
    let pid = parts.next()?;
    (hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| pid.parse().ok())
        .flatten()
}

/// Whether a process with this pid exists (signal 0 probes without sending).
fn process_alive(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    match rustix::process::test_kill_process(pid) {
        Ok(()) => true,
        // It exists but is someone else's: alive.
        Err(e) => e == rustix::io::Errno::PERM,
    }
}

/// Atomically replaces `target` with `bytes` (temp file, fsync, rename,
/// fsync folder): an interrupted write never leaves a truncated file.
pub fn write_atomic(target: &Path, bytes: &[u8], mode: FileMode) -> Result<(), StateError> {
    replace(target, bytes, mode, Durability::Synced)
}

/// Atomically replaces the cache file `target` with `bytes` (temp file,
/// swapped with the old file, which is then removed; renamed when there is
/// none), with [`Durability::Cache`]: only for files whose reader rejects
/// anything damaged. A process killed between the swap and the removal
/// leaves the old file under its temporary name (0600) until the next
/// process sweeps it.
pub(crate) fn write_cache_atomic(
    target: &Path,
    bytes: &[u8],
    mode: FileMode,
) -> Result<(), StateError> {
    replace(target, bytes, mode, Durability::Cache)
}

fn replace(
    target: &Path,
    bytes: &[u8],
    mode: FileMode,
    durability: Durability,
) -> Result<(), StateError> {
    let dir = parent_of(target);
    let stem = target
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("entry");
    let tmp = write_temp(dir, stem, bytes, mode, durability)?;
    if durability == Durability::Cache && exchange(&tmp, target) {
        // `tmp` now names the old entry: no longer needed by anyone. If it
        // cannot go now, it stays a tracked temp file (removed on an
        // interrupt, swept by the next process once this one is gone).
        match fs::remove_file(&tmp) {
            Ok(()) => forget_temp(&tmp),
            Err(e) => tracing::debug!(error = %e, "the replaced cache entry stays until the sweep"),
        }
        return Ok(());
    }
    let renamed = fs::rename(&tmp, target);
    forget_temp(&tmp);
    if let Err(source) = renamed {
        let _ = fs::remove_file(&tmp);
        return Err(StateError::Io {
            op: "rename into",
            path: target.to_path_buf(),
            source,
        });
    }
    match durability {
        Durability::Synced => sync_dir(dir),
        Durability::Cache => Ok(()),
    }
}

/// Swaps `tmp` and an existing `target` in one step (`renameat2`'s
/// `RENAME_EXCHANGE`): readers of `target` see the old file or the new
/// one, as with a rename over it. `false` when there is nothing to swap
/// with (no `target` yet) or the file system cannot swap: the caller
/// renames.
///
/// Why not a plain rename for a cache entry: on ext4 (default
/// `auto_da_alloc`) a rename *over* an existing file starts the new
/// file's writeback on the spot (`ext4_rename` -> `ext4_alloc_da_blocks`,
/// the replace-via-rename heuristic for writers that skip fsync), and the
/// next launch's rename then drops an inode whose pages are still being
/// written, waiting for the disk. Back-to-back launches of 64 Kubernetes
/// contexts (a 150 KB node cache entry): that rename took 0.4-5 ms, after
/// the table; the swap and the unlink of the old file (dirty pages never
/// written, dropped without I/O) ~0.1 ms. A power loss may then leave a
/// damaged entry: [`Durability::Cache`] readers reject it (its MAC).
#[cfg(any(target_os = "linux", target_os = "android"))]
fn exchange(tmp: &Path, target: &Path) -> bool {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    // Only a file (or a symlink: the swap, like a rename, moves the link
    // itself) is swapped: a directory where an entry belongs would be
    // moved aside whole, where a rename over it fails.
    let swappable = fs::symlink_metadata(target).is_ok_and(|m| !m.is_dir());
    swappable && renameat_with(CWD, tmp, CWD, target, RenameFlags::EXCHANGE).is_ok()
}

/// No atomic swap here: the caller renames.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn exchange(_tmp: &Path, _target: &Path) -> bool {
    false
}

/// Makes a rename or unlink in `dir` durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<(), StateError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_err("fsync", dir))
}

/// The folder holding `path` (`.` for a bare file name).
pub(crate) fn parent_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| Path::new("."))
}

pub(crate) fn random_bytes<const N: usize>() -> Result<[u8; N], StateError> {
    let mut buf = [0u8; N];
    getrandom::fill(&mut buf).map_err(|e| StateError::Random(e.to_string()))?;
    Ok(buf)
}

fn random_hex(len: usize) -> Result<String, StateError> {
    let bytes: [u8; 16] = random_bytes()?;
    Ok(hex(&bytes[..len.min(16)]))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    // sha2/hmac 0.11 arrays no longer implement LowerHex.
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

/// Names become file names: keep them to a safe alphabet so a key can never
/// escape its folder or collide with the temporary and lock files.
pub(crate) fn check_name(what: &'static str, name: &str) -> Result<(), StateError> {
    let ok = (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(StateError::InvalidName {
            what,
            name: name.to_string(),
        })
    }
}

/// A file written piece by piece beside its target (`.<name>.<pid>.<hex>.tmp`,
/// tracked like [`write_temp`]'s), then renamed over it ([`TempFile::persist`]);
/// dropped unpersisted, it is removed. What a download streams its body into,
/// so that the body is never held in memory and a half body is never seen.
#[derive(Debug)]
pub struct TempFile {
    path: PathBuf,
    target: PathBuf,
    file: Option<File>,
}

impl TempFile {
    /// A new temporary file for `target`, in its folder.
    pub fn create(target: &Path, mode: FileMode) -> Result<TempFile, StateError> {
        let dir = parent_of(target);
        let stem = target
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("entry");
        let path = dir.join(format!(
            ".{stem}.{}.{}{TEMP_SUFFIX}",
            std::process::id(),
            random_hex(8)?
        ));
        let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
        if pending.closed {
            return Err(StateError::Io {
                op: "create",
                path,
                source: io::Error::new(io::ErrorKind::Interrupted, "interrupted"),
            });
        }
        let file = create_file(&path, mode)?;
        pending.paths.push(path.clone());
        Ok(TempFile {
            path,
            target: target.to_path_buf(),
            file: Some(file),
        })
    }

    /// Appends `bytes`.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), StateError> {
        match &mut self.file {
            Some(file) => file.write_all(bytes).map_err(io_err("write", &self.path)),
            None => Err(StateError::Io {
                op: "write",
                path: self.path.clone(),
                source: io::Error::other("already closed"),
            }),
        }
    }

    /// The temporary file (to read it back before it is published).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// fsyncs it, renames it over the target and fsyncs the folder.
    pub fn persist(mut self) -> Result<(), StateError> {
        if let Some(file) = self.file.take() {
            file.sync_all().map_err(io_err("fsync", &self.path))?;
        }
        fs::rename(&self.path, &self.target).map_err(io_err("rename into", &self.target))?;
        forget_temp(&self.path);
        sync_dir(parent_of(&self.target))
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        self.file.take();
        // Published: the rename moved it (removing is a no-op then).
        let _ = fs::remove_file(&self.path);
        forget_temp(&self.path);
    }
}
