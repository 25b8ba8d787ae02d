//! SkyPilot's own catalog folder and its rules, so that `sky` and SkyPilot
//! can share it without fighting (`sky/catalog/common.py`: `get_catalog_path`,
//! `is_catalog_modified`, `read_catalog` and its `_need_update`).
//!
//! ```text
//! <runtime dir>/.sky/catalogs/v8/          $SKY_RUNTIME_DIR, else ~
//!   <cloud>/vms.csv                         the catalog
//!   common/{accelerators,metadata}.csv
//!   aws/az_mappings-<hash>.csv              zone ID → name, per AWS identity
//!   .meta/<cloud>/vms.csv.md5               md5 of the file as downloaded
//!   .meta/<cloud>/vms.csv.lock              filelock (flock) of the downloaders
//!   .meta/<cloud>/vms.csv.http.json         `sky` only: ETag / Last-Modified
//! ```
//!
//! A file without an md5 record, or whose md5 no longer matches it, was put
//! there or edited by hand: SkyPilot never overwrites it, and neither does
//! `sky`.

use std::fs::{File, Metadata};
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use md5::{Digest, Md5};
use planner::cloud::CatalogPull;

use crate::clouds::EnvMap;
use crate::config::expand_home;

/// `constants.CATALOG_SCHEMA_VERSION`.
pub const SCHEMA_VERSION: &str = "v8";

/// SkyPilot's folder: `$SKY_RUNTIME_DIR/.sky/catalogs/v8`, else
/// `~/.sky/catalogs/v8` (`common._ABSOLUTE_VERSIONED_CATALOG_DIR`, through
/// `runtime_utils.get_runtime_dir_path`). An empty `SKY_RUNTIME_DIR` counts
/// as unset.
pub fn default_folder(env: &EnvMap, home: &Path) -> PathBuf {
    let runtime = env
        .get("SKY_RUNTIME_DIR")
        .filter(|d| !d.is_empty())
        .map(|d| expand_home(d, home))
        .unwrap_or_else(|| home.to_path_buf());
    runtime.join(".sky/catalogs").join(SCHEMA_VERSION)
}

/// A catalog folder laid out as SkyPilot lays it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folder {
    root: PathBuf,
}

/// Where a file stands against its pull period (`_need_update`).
#[derive(Debug)]
pub enum Standing {
    /// Not there: SkyPilot downloads it.
    Missing,
    /// There and within its pull period (or never refreshed).
    Current(Metadata),
    /// There, and older than its pull period: refreshed unless edited by hand.
    Due(Metadata),
}

impl Folder {
    /// The folder at `root`.
    pub fn new(root: impl Into<PathBuf>) -> Folder {
        Folder { root: root.into() }
    }

    /// The folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `<root>/<file>` (`file` like `aws/vms.csv`).
    pub fn path(&self, file: &str) -> PathBuf {
        self.root.join(file)
    }

    /// `<root>/.meta/<file>` + `suffix`.
    fn meta(&self, file: &str, suffix: &str) -> PathBuf {
        let mut p = self.root.join(".meta").join(file).into_os_string();
        p.push(suffix);
        PathBuf::from(p)
    }

    /// The md5 record SkyPilot writes after a download.
    pub fn md5_path(&self, file: &str) -> PathBuf {
        self.meta(file, ".md5")
    }

    /// The lock SkyPilot's downloaders take (`filelock.FileLock(meta + '.lock')`).
    pub fn lock_path(&self, file: &str) -> PathBuf {
        self.meta(file, ".lock")
    }

    /// `sky`'s record of the HTTP validators of the downloaded copy.
    pub fn validators_path(&self, file: &str) -> PathBuf {
        self.meta(file, ".http.json")
    }

    /// Where `file` stands at `now` under `pull` (one `stat`). The md5 is
    /// not looked at: SkyPilot's `_need_update` asks "edited by hand?" only
    /// of a file that would otherwise be refreshed, and the answer cannot
    /// make a current file due, so a current file costs no read.
    pub fn standing(&self, file: &str, pull: CatalogPull, now: SystemTime) -> io::Result<Standing> {
        let meta = match std::fs::metadata(self.path(file)) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Standing::Missing),
            Err(e) => return Err(e),
        };
        Ok(if is_due(&meta, pull, now) {
            Standing::Due(meta)
        } else {
            Standing::Current(meta)
        })
    }

    /// `is_catalog_modified`: no md5 record, or a record that is not the md5
    /// of the file as it is now.
    pub fn is_modified(&self, file: &str) -> io::Result<bool> {
        let record = match std::fs::read_to_string(self.md5_path(file)) {
            Ok(r) => r,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(true),
            Err(e) => return Err(e),
        };
        let bytes = std::fs::read(self.path(file))?;
        Ok(md5_hex(&bytes) != record)
    }
}

/// `last_update + pull_frequency_hours * 3600 < time.time()`; never for a
/// file SkyPilot does not refresh.
pub fn is_due(meta: &Metadata, pull: CatalogPull, now: SystemTime) -> bool {
    let Some(hours) = pull.hours() else {
        return false;
    };
    let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
    modified + Duration::from_secs(u64::from(hours) * 3600) < now
}

/// Lower-case hex md5, as Python's `hashlib.md5(...).hexdigest()`.
pub fn md5_hex(bytes: &[u8]) -> String {
    let digest = Md5::digest(bytes);
    crate::state::hex(&digest)
}

/// Sets the modification time of `path` to `now`, as SkyPilot's
/// `os.utime(catalog_path, None)` does after a failed refresh (and as a
/// 304 confirms the copy is current).
pub fn touch(path: &Path, now: SystemTime) -> io::Result<()> {
    File::options().write(true).open(path)?.set_modified(now)
}

/// The age of a file at `now` (zero when its time is in the future).
pub fn age(meta: &Metadata, now: SystemTime) -> Duration {
    meta.modified()
        .ok()
        .and_then(|m| now.duration_since(m).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_follows_the_runtime_dir_like_skypilot() {
        let home = Path::new("/home/u");
        let mut env = EnvMap::new();
        assert_eq!(
            default_folder(&env, home),
            PathBuf::from("/home/u/.sky/catalogs/v8")
        );
        env.insert("SKY_RUNTIME_DIR".into(), "~/rt".into());
        assert_eq!(
            default_folder(&env, home),
            PathBuf::from("/home/u/rt/.sky/catalogs/v8")
        );
        env.insert("SKY_RUNTIME_DIR".into(), String::new());
        assert_eq!(
            default_folder(&env, home),
            PathBuf::from("/home/u/.sky/catalogs/v8")
        );
        let f = Folder::new("/c");
        assert_eq!(
            f.md5_path("aws/vms.csv"),
            PathBuf::from("/c/.meta/aws/vms.csv.md5")
        );
        assert_eq!(
            f.lock_path("aws/vms.csv"),
            PathBuf::from("/c/.meta/aws/vms.csv.lock")
        );
    }

    #[test]
    fn modified_means_no_record_or_a_different_md5() {
        let tmp = tempfile::tempdir().unwrap();
        let f = Folder::new(tmp.path());
        std::fs::create_dir_all(tmp.path().join("aws")).unwrap();
        std::fs::create_dir_all(tmp.path().join(".meta/aws")).unwrap();
        std::fs::write(f.path("aws/vms.csv"), "a,b\n1,2\n").unwrap();
        assert!(f.is_modified("aws/vms.csv").unwrap(), "no record");
        std::fs::write(f.md5_path("aws/vms.csv"), md5_hex(b"a,b\n1,2\n")).unwrap();
        assert!(!f.is_modified("aws/vms.csv").unwrap());
        // A record with a newline is not SkyPilot's: it no longer matches.
        std::fs::write(
            f.md5_path("aws/vms.csv"),
            format!("{}\n", md5_hex(b"a,b\n1,2\n")),
        )
        .unwrap();
        assert!(f.is_modified("aws/vms.csv").unwrap());
        std::fs::write(f.md5_path("aws/vms.csv"), md5_hex(b"a,b\n1,2\n")).unwrap();
        std::fs::write(f.path("aws/vms.csv"), "a,b\n1,3\n").unwrap();
        assert!(f.is_modified("aws/vms.csv").unwrap(), "edited");
        assert_eq!(md5_hex(b""), "d41d8cd98f00b204e9800998ecf8427e");
    }

    #[test]
    fn due_after_the_pull_period_only() {
        let tmp = tempfile::tempdir().unwrap();
        let f = Folder::new(tmp.path());
        std::fs::create_dir_all(tmp.path().join("aws")).unwrap();
        assert!(matches!(
            f.standing("aws/vms.csv", CatalogPull::EveryHours(7), SystemTime::now())
                .unwrap(),
            Standing::Missing
        ));
        std::fs::write(f.path("aws/vms.csv"), "x").unwrap();
        let now = SystemTime::now();
        let later = now + Duration::from_secs(7 * 3600 + 60);
        let pull = CatalogPull::EveryHours(7);
        assert!(matches!(
            f.standing("aws/vms.csv", pull, now).unwrap(),
            Standing::Current(_)
        ));
        assert!(matches!(
            f.standing("aws/vms.csv", pull, later).unwrap(),
            Standing::Due(_)
        ));
        assert!(matches!(
            f.standing("aws/vms.csv", CatalogPull::IfMissing, later)
                .unwrap(),
            Standing::Current(_)
        ));
        touch(&f.path("aws/vms.csv"), later).unwrap();
        assert!(matches!(
            f.standing("aws/vms.csv", pull, later).unwrap(),
            Standing::Current(_)
        ));
    }
}
