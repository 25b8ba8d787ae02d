//! Configuration files (an edge: reads them): `~/.sky/config.yaml` and the
//! error type every configuration and catalog problem is reported with.

use std::path::{Path, PathBuf};

use planner::catalog::CatalogError;
use planner::config::{SkyConfig, parse_sky_config};

use crate::clouds::EnvMap;

/// Errors while resolving configuration. Each names the file and the fix.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A catalog file is missing.
    #[error(
        "catalog file {path} does not exist. Point --catalog-dir (or SKY_CATALOG_DIR) at a SkyPilot catalog folder containing <cloud>/vms.csv, or unset it to use the bundled catalogs"
    )]
    MissingCatalog {
        /// The missing file.
        path: PathBuf,
    },
    /// An explicit catalog folder does not exist.
    #[error(
        "catalog folder {path} does not exist. Point --catalog-dir (or SKY_CATALOG_DIR) at a SkyPilot catalog folder containing <cloud>/vms.csv, or unset both to use SkyPilot's folder (~/.sky/catalogs/v8)"
    )]
    MissingCatalogDir {
        /// The folder.
        path: PathBuf,
    },
    /// `sky catalog refresh` was pointed at a folder it must not write.
    #[error(
        "sky catalog refresh writes SkyPilot's catalog folder only, not {what}: unset --catalog-dir, SKY_CATALOG_DIR and SKY_BUNDLED_CATALOGS"
    )]
    NotSharedFolder {
        /// What was selected instead.
        what: String,
    },
    /// A catalog file could not be used.
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// `~/.sky/config.yaml` or `SKY_ENABLED_CLOUDS` is unusable.
    #[error(transparent)]
    Planner(#[from] planner::config::ConfigError),
}

/// Reads `SKYPILOT_CONFIG` or `~/.sky/config.yaml`; a missing file is an empty config.
pub(crate) fn load_sky_config(env: &EnvMap, home: &Path) -> Result<SkyConfig, ConfigError> {
    let path = env
        .get("SKYPILOT_CONFIG")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".sky/config.yaml"));
    // Named as the user knows it (`~/.sky/config.yaml`) in errors and warnings.
    let name = match path.strip_prefix(home) {
        Ok(rel) if !home.as_os_str().is_empty() => format!("~/{}", rel.display()),
        _ => path.display().to_string(),
    };
    use crate::input::{InputError, MAX_CONFIG_FILE_BYTES, read_regular_text};
    match read_regular_text(&path, MAX_CONFIG_FILE_BYTES) {
        Ok(text) => Ok(parse_sky_config(&text, &name)?),
        Err(e) if e.io_kind() == Some(std::io::ErrorKind::NotFound) => Ok(SkyConfig::default()),
        Err(InputError::Io { source, .. }) => Err(ConfigError::Io { path, source }),
        Err(other) => Err(ConfigError::Io {
            path,
            source: std::io::Error::other(other.cause()),
        }),
    }
}

/// Python's `os.path.expanduser` for the current user: `~` and `~/...`
/// resolved against `home`; anything else (`~user/...` too) as given.
pub(crate) fn expand_home(raw: &str, home: &Path) -> PathBuf {
    match raw.strip_prefix('~') {
        Some("") => home.to_path_buf(),
        Some(rest) if rest.starts_with('/') => home.join(rest.trim_start_matches('/')),
        _ => PathBuf::from(raw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_is_expanded_like_python() {
        let home = Path::new("/home/u");
        assert_eq!(expand_home("~", home), PathBuf::from("/home/u"));
        assert_eq!(expand_home("~/a/b", home), PathBuf::from("/home/u/a/b"));
        assert_eq!(expand_home("~//a", home), PathBuf::from("/home/u/a"));
        assert_eq!(expand_home("~other/a", home), PathBuf::from("~other/a"));
        assert_eq!(expand_home("/abs", home), PathBuf::from("/abs"));
    }
}
