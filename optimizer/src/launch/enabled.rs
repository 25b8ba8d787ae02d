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

/// Persists the enabled set for later launches (a private file, replaced
/// atomically).
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
    write_atomic(&path, &body, FileMode::Private).map_err(|e| ConfigError::Io {
        path: path.clone(),
        source: std::io::Error::other(e.to_string()),
    })
}
