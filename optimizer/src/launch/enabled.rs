//! The enabled set `sky check` leaves for later launches
//! (`<state dir>/enabled-clouds.json`): read by launches, `sky gpus list`
//! and `sky catalog refresh`, written by `sky check`.

use std::path::Path;

use planner::cloud::CloudId;

use crate::config::ConfigError;
use crate::state::{FileMode, StateDir, write_atomic};

/// File (under the state directory) where `sky check` persists the enabled clouds.
pub const ENABLED_CLOUDS_FILE: &str = "enabled-clouds.json";

/// The enabled set persisted by the last `sky check`, if any (order kept).
pub fn persisted_enabled_clouds(state_dir: &Path) -> Option<Vec<CloudId>> {
    let text = std::fs::read_to_string(state_dir.join(ENABLED_CLOUDS_FILE)).ok()?;
    let names: Vec<String> = serde_json::from_str(&text).ok()?;
    Some(names.iter().filter_map(|n| n.parse().ok()).collect())
}

/// Whether `path` is already the private file (0600, owned by the state
/// folder's owner) that holds exactly `body`: then `sky check` leaves it
/// alone. Replacing it atomically costs two `fsync`s and a rename (7-20 ms
/// on a busy disk, more than the rest of a warm `sky check`), and a
/// repeated check mostly finds the same set.
fn holds_already(state: &Path, path: &Path, body: &[u8]) -> bool {
    use std::os::unix::fs::MetadataExt;
    let (Ok(dir), Ok(file)) = (std::fs::metadata(state), std::fs::symlink_metadata(path)) else {
        return false;
    };
    file.is_file()
        && file.mode() & 0o777 == 0o600
        && file.uid() == dir.uid()
        && file.len() == body.len() as u64
        && std::fs::read(path).is_ok_and(|held| held == body)
}

/// Persists the enabled set for later launches (a private file, replaced
/// atomically; left alone when it holds the set already).
pub(super) fn persist_enabled_clouds(
    state_dir: &Path,
    clouds: &[CloudId],
) -> Result<(), ConfigError> {
    let names: Vec<&str> = clouds.iter().map(|c| c.name()).collect();
    let state = StateDir::open(state_dir).map_err(|e| ConfigError::Io {
        path: state_dir.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    })?;
    let body = serde_json::to_vec(&names).unwrap_or_default();
    let path = state.path().join(ENABLED_CLOUDS_FILE);
    if holds_already(state.path(), &path, &body) {
        return Ok(());
    }
    write_atomic(&path, &body, FileMode::Private).map_err(|e| ConfigError::Io {
        path: path.clone(),
        source: std::io::Error::other(e.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    use super::*;

    #[test]
    fn an_unchanged_set_is_not_written_again() {
        let tmp = tempfile::tempdir().unwrap();
        let state = tmp.path().join("state");
        let file = state.join(ENABLED_CLOUDS_FILE);
        persist_enabled_clouds(&state, &[CloudId::Aws, CloudId::Gcp]).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), r#"["aws","gcp"]"#);
        let inode = std::fs::metadata(&file).unwrap().ino();

        // The same set: the file is left as it is (an atomic replace would
        // be a new inode).
        persist_enabled_clouds(&state, &[CloudId::Aws, CloudId::Gcp]).unwrap();
        assert_eq!(std::fs::metadata(&file).unwrap().ino(), inode);

        // Another set, another order, or a file that is not private: replaced.
        persist_enabled_clouds(&state, &[CloudId::Gcp, CloudId::Aws]).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), r#"["gcp","aws"]"#);
        let inode = std::fs::metadata(&file).unwrap().ino();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        persist_enabled_clouds(&state, &[CloudId::Gcp, CloudId::Aws]).unwrap();
        let meta = std::fs::metadata(&file).unwrap();
        assert_ne!(meta.ino(), inode);
        assert_eq!(meta.mode() & 0o777, 0o600);
        assert_eq!(
            persisted_enabled_clouds(&state),
            Some(vec![CloudId::Gcp, CloudId::Aws])
        );
    }
}
