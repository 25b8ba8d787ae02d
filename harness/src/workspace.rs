//! Where the workspace is: the one place the harness learns its root, so
//! that every module needing a path below it (the machine probe, the report
//! folders, the SkyPilot engine's venv) asks a leaf, not the runner.

use std::path::{Path, PathBuf};

/// The workspace root (parent of `fixtures/`), resolved at compile time.
pub fn workspace_root() -> PathBuf {
    let f = mocks::fixtures_dir();
    f.parent().map(Path::to_path_buf).unwrap_or(f)
}
