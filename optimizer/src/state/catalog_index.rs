//! Pre-indexed catalog images (`<state>/catalog-index/*.idx`).
//!
//! A launch loads a catalog from its image when one exists for exactly the
//! same input, and parses the CSV (then writes the image) otherwise. Nothing
//! here is secret; the files follow the state folder's rules anyway (0700
//! folder, 0600 files, atomic replace), so a concurrent or interrupted writer
//! can never leave a half-written image behind.

use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::fs_util::{self, FileMode};
use super::{StateDir, StateError};

/// The folder of catalog images.
#[derive(Debug, Clone)]
pub struct CatalogIndex {
    dir: PathBuf,
}

fn short_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    fs_util::hex(&digest[..12])
}

impl CatalogIndex {
    /// Opens (creating if needed) `<state>/catalog-index/`.
    pub fn open(state: &StateDir) -> Result<Self, StateError> {
        let dir = state.path().join("catalog-index");
        fs_util::ensure_private_dir(&dir, state.euid)?;
        Ok(CatalogIndex { dir })
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `<hash(source)>-<hash(fingerprint)>.idx`: one image per input, and a
    /// new fingerprint (the file changed, or another build) is another name.
    fn entry(&self, source: &str, fingerprint: &str) -> (String, PathBuf) {
        let prefix = format!("{}-", short_hash(source));
        let name = format!(
            "{prefix}{}.idx",
            short_hash(&format!("{fingerprint}\0{}", env!("CARGO_PKG_VERSION")))
        );
        let path = self.dir.join(&name);
        (prefix, path)
    }

    /// The image stored for `source` at `fingerprint`, if any.
    ///
    /// `source` names the input (`bundled/aws`, a CSV's path); `fingerprint`
    /// changes whenever its content may have (bundled build id, or the file's
    /// size, times and inode).
    pub fn read(&self, source: &str, fingerprint: &str) -> Option<Vec<u8>> {
        let (_, path) = self.entry(source, fingerprint);
        fs::read(path).ok()
    }

    /// The image stored for `source` at `fingerprint`, mapped rather than
    /// read: a launch touches the pages of the runs it decodes, not the
    /// whole file, and copies nothing (the ×10 AWS image is 4.3 MB, most
    /// of which `--gpus H100:8` never reads). An empty or unopenable file is
    /// `None`.
    pub fn map(&self, source: &str, fingerprint: &str) -> Option<memmap2::Mmap> {
        let (_, path) = self.entry(source, fingerprint);
        map_file(&path)
    }

    /// `bundled-<hash(fingerprint)>.pack`: the pack of the bundled
    /// catalogs' images of one build (`planner::catalog::image::ImagePack`).
    fn pack_path(&self, fingerprint: &str) -> PathBuf {
        self.dir.join(format!(
            "{PACK_PREFIX}{}.pack",
            short_hash(&format!("{fingerprint}\0{}", env!("CARGO_PKG_VERSION")))
        ))
    }

    /// The pack of images stored at `fingerprint`, mapped (see
    /// [`CatalogIndex::map`]): one file for every bundled catalog, so a
    /// launch opens and maps one file, not one per cloud.
    pub fn map_pack(&self, fingerprint: &str) -> Option<memmap2::Mmap> {
        map_file(&self.pack_path(fingerprint))
    }

    /// Stores the pack at `fingerprint`, and removes the packs of other
    /// fingerprints.
    pub fn write_pack(&self, fingerprint: &str, pack: &[u8]) -> Result<(), StateError> {
        let path = self.pack_path(fingerprint);
        fs_util::write_cache_atomic(&path, pack, FileMode::Private)?;
        self.prune(PACK_PREFIX, ".pack", &path);
        Ok(())
    }

    /// Stores the image for `source` at `fingerprint`, and removes the
    /// images of older fingerprints of the same source.
    pub fn write(&self, source: &str, fingerprint: &str, image: &[u8]) -> Result<(), StateError> {
        let (prefix, path) = self.entry(source, fingerprint);
        // Images are validated whole when read: a damaged one is parsed again.
        fs_util::write_cache_atomic(&path, image, FileMode::Private)?;
        self.prune(&prefix, ".idx", &path);
        Ok(())
    }

    /// Removes the files named `<prefix>...<suffix>` but `keep`.
    fn prune(&self, prefix: &str, suffix: &str, keep: &Path) {
        if let Ok(entries) = fs::read_dir(&self.dir) {
            for e in entries.flatten() {
                let name = e.file_name();
                let name = name.to_string_lossy();
                if name.starts_with(prefix) && name.ends_with(suffix) && e.path() != keep {
                    let _ = fs::remove_file(e.path());
                }
            }
        }
    }
}

/// The name every pack starts with (an image's name is two hex hashes).
const PACK_PREFIX: &str = "bundled-";

/// `path` mapped read-only; an empty or unopenable file is `None`.
fn map_file(path: &Path) -> Option<memmap2::Mmap> {
    let file = fs::File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() == 0 {
        return None;
    }
    // The length just read: without it the map would `stat` the file again.
    let len = usize::try_from(meta.len()).ok()?;
    // SAFETY: the mapping is read-only and private to this process. An
    // image or pack is never written in place: `write`/`write_pack` rename
    // a complete new file over the old name, so the inode mapped here keeps
    // its bytes for as long as the map lives. Only the user (0700 folder,
    // 0600 file) could truncate it underneath us, and every byte read is
    // validated by the decoder as if it came from `read`.
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::MmapOptions::new().len(len).map(&file) }.ok()?;
    Some(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn images_are_private_replaced_and_pruned() {
        let tmp = tempfile::tempdir().unwrap();
        let state = StateDir::open(tmp.path().join("state")).unwrap();
        let index = CatalogIndex::open(&state).unwrap();
        assert_eq!(
            fs::metadata(index.dir()).unwrap().permissions().mode() & 0o777,
            0o700
        );
        assert!(index.read("bundled/aws", "v1").is_none());
        index.write("bundled/aws", "v1", b"one").unwrap();
        index.write("bundled/gcp", "v1", b"gcp").unwrap();
        assert_eq!(
            index.read("bundled/aws", "v1").as_deref(),
            Some(&b"one"[..])
        );
        index.write("bundled/aws", "v2", b"two").unwrap();
        assert!(
            index.read("bundled/aws", "v1").is_none(),
            "old image pruned"
        );
        assert_eq!(
            index.read("bundled/aws", "v2").as_deref(),
            Some(&b"two"[..])
        );
        assert_eq!(
            index.map("bundled/aws", "v2").as_deref(),
            Some(&b"two"[..]),
            "mapped as read"
        );
        assert!(index.map("bundled/aws", "v1").is_none());
        index.write("bundled/empty", "v1", b"").unwrap();
        assert!(index.map("bundled/empty", "v1").is_none(), "nothing to map");
        assert_eq!(
            index.read("bundled/gcp", "v1").as_deref(),
            Some(&b"gcp"[..])
        );
        for e in fs::read_dir(index.dir()).unwrap() {
            let e = e.unwrap();
            assert_eq!(e.metadata().unwrap().permissions().mode() & 0o777, 0o600);
        }
        assert_eq!(fs::read_dir(index.dir()).unwrap().count(), 3);
    }
}
