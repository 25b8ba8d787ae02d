//! Configuration files (an edge: reads them): every layer of SkyPilot's
//! config a request reads (`SKYPILOT_CONFIG`, the user and project configs,
//! `--config`), read here and merged by the core in one call
//! ([`planner::config::merge`]); and the error type every configuration and
//! catalog problem is reported with.

use std::path::{Path, PathBuf};

use planner::catalog::CatalogError;
use planner::config::{CliConfig, ConfigFile, ConfigLayers};

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
    /// A config file named by an environment variable does not exist.
    #[error(
        "Config file specified by env var {var} ({}) does not exist. Please double check the path or unset the env var: unset {var}",
        planner::pytext::py_str_repr(&.path.display().to_string())
    )]
    MissingConfig {
        /// The variable.
        var: String,
        /// The file it names.
        path: PathBuf,
    },
    /// A volumes file (`SKY_VOLUMES_FILE`) is unreadable or malformed.
    #[error("{0}")]
    Volumes(String),
}

/// The config layers of one request, read (see [`read_layers`]), and the
/// error that stopped the reading, if one did: the layers after it are
/// [`ConfigFile::Unread`], and the core's [`planner::config::merge`] names
/// it by [`MergeError::Unread`](planner::config::MergeError::Unread).
#[derive(Debug)]
pub(crate) struct ReadLayers {
    /// What was read.
    pub(crate) layers: ConfigLayers,
    /// Why reading stopped: `--config`'s file (click's usage error) or
    /// another file.
    pub(crate) stopped: Option<ReadError>,
}

/// A config file that could not be read.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// `--config`'s file (a usage error, as click reports it).
    Cli(ConfigError),
    /// Any other file.
    File(ConfigError),
}

/// How a config file is named in errors and warnings: as the user knows it
/// (`~/.sky/config.yaml`) when it is under `home`.
fn display_name(path: &Path, home: &Path) -> String {
    match path.strip_prefix(home) {
        Ok(rel) if !home.as_os_str().is_empty() => format!("~/{}", rel.display()),
        _ => path.display().to_string(),
    }
}

/// Reads a config file through the capped reader (regular files only, at
/// most [`MAX_CONFIG_FILE_BYTES`](crate::input::MAX_CONFIG_FILE_BYTES));
/// `None` when it does not exist.
fn read_config_text(path: &Path) -> Result<Option<String>, ConfigError> {
    use crate::input::{InputError, MAX_CONFIG_FILE_BYTES, read_regular_text};
    match read_regular_text(path, MAX_CONFIG_FILE_BYTES) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.io_kind() == Some(std::io::ErrorKind::NotFound) => Ok(None),
        Err(InputError::Io { source, .. }) => Err(ConfigError::Io {
            path: path.to_path_buf(),
            source,
        }),
        Err(other) => Err(ConfigError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other(other.cause()),
        }),
    }
}

/// One config file: its text, or [`ConfigFile::Absent`].
fn read_config_file(path: &Path, home: &Path) -> Result<ConfigFile, ConfigError> {
    Ok(match read_config_text(path)? {
        Some(text) => ConfigFile::Text {
            text,
            name: display_name(path, home),
        },
        None => ConfigFile::Absent,
    })
}

/// A file named by an environment variable must exist (`resolve_user_config_path`).
fn required_file(env: &EnvMap, var: &str, home: &Path) -> Result<Option<PathBuf>, ConfigError> {
    match env.get(var) {
        Some(raw) => {
            let path = expand_home(raw, home);
            if path.exists() {
                Ok(Some(path))
            } else {
                Err(ConfigError::MissingConfig {
                    var: var.to_string(),
                    path,
                })
            }
        }
        None => Ok(None),
    }
}

/// Where a request's config comes from besides the environment.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConfigSources<'a> {
    /// `--config` values: one config file, or `key=value` pairs.
    pub(crate) cli_items: &'a [String],
    /// `--workspace`.
    pub(crate) workspace: Option<&'a str>,
    /// The folder whose `.sky.yaml` is the project config; `None` reads none.
    pub(crate) project_dir: Option<&'a Path>,
}

/// Reads every config layer of a request, in the order 0.14.1 reads them,
/// stopping at the first file that cannot be read; the merge is
/// [`planner::config::merge`]'s, in one call.
pub(crate) fn read_layers(env: &EnvMap, home: &Path, sources: ConfigSources<'_>) -> ReadLayers {
    let mut layers = ConfigLayers {
        cli_items: sources.cli_items.to_vec(),
        cli: CliConfig::None,
        workspace: sources.workspace.map(str::to_string),
        internal: None,
        user: ConfigFile::Unread,
        user_name: String::new(),
        project: ConfigFile::Unread,
    };
    let stopped = read_cli(&mut layers, home)
        .map_err(ReadError::Cli)
        .and_then(|()| {
            read_files(&mut layers, env, home, sources.project_dir).map_err(ReadError::File)
        })
        .err();
    ReadLayers { layers, stopped }
}

/// `--config`: the first value's file, when it names one and is the only value.
fn read_cli(layers: &mut ConfigLayers, home: &Path) -> Result<(), ConfigError> {
    let Some(first) = layers.cli_items.first() else {
        return Ok(());
    };
    let first = expand_home(first, home);
    if !first.is_file() {
        layers.cli = CliConfig::Dotlist;
        return Ok(());
    }
    if layers.cli_items.len() != 1 {
        layers.cli = CliConfig::File(ConfigFile::Absent);
        return Ok(());
    }
    layers.cli = CliConfig::File(ConfigFile::Unread);
    let text = read_config_text(&first)?.ok_or_else(|| ConfigError::Io {
        path: first.clone(),
        source: std::io::ErrorKind::NotFound.into(),
    })?;
    layers.cli = CliConfig::File(ConfigFile::Text {
        text,
        name: display_name(&first, home),
    });
    Ok(())
}

/// `SKYPILOT_CONFIG`'s file, else the user and the project config.
fn read_files(
    layers: &mut ConfigLayers,
    env: &EnvMap,
    home: &Path,
    project_dir: Option<&Path>,
) -> Result<(), ConfigError> {
    let internal = env
        .get("SKYPILOT_CONFIG")
        .filter(|p| !p.is_empty())
        .map(|p| expand_home(p, home));
    if let Some(path) = internal {
        layers.internal = Some(ConfigFile::Unread);
        let file = read_config_file(&path, home)?;
        if file == ConfigFile::Absent {
            return Err(ConfigError::MissingConfig {
                var: "SKYPILOT_CONFIG".into(),
                path,
            });
        }
        layers.internal = Some(file);
        return Ok(());
    }
    let user_path = required_file(env, "SKYPILOT_GLOBAL_CONFIG", home)?
        .unwrap_or_else(|| home.join(".sky/config.yaml"));
    layers.user_name = display_name(&user_path, home);
    layers.user = read_config_file(&user_path, home)?;
    let project_path = match required_file(env, "SKYPILOT_PROJECT_CONFIG", home)? {
        Some(p) => Some(p),
        None => project_dir.map(|d| d.join(".sky.yaml")),
    };
    layers.project = match project_path {
        Some(p) => read_config_file(&p, home)?,
        None => ConfigFile::Absent,
    };
    Ok(())
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

    #[test]
    fn reading_stops_at_the_first_file_that_cannot_be_read() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path();
        std::fs::create_dir_all(home.join(".sky")).unwrap();
        std::fs::write(home.join(".sky/config.yaml"), "gcp: {}\n").unwrap();
        std::fs::write(home.join("cli.yaml"), "aws: {}\n").unwrap();
        let missing = home.join("nope.yaml").display().to_string();
        let env: EnvMap = [("SKYPILOT_PROJECT_CONFIG".to_string(), missing)].into();
        let items = vec!["~/cli.yaml".to_string()];
        let sources = ConfigSources {
            cli_items: &items,
            workspace: None,
            project_dir: None,
        };
        let read = read_layers(&env, home, sources);
        assert!(matches!(
            read.layers.cli,
            CliConfig::File(ConfigFile::Text { .. })
        ));
        assert!(matches!(
            &read.layers.user,
            ConfigFile::Text { name, .. } if name == "~/.sky/config.yaml"
        ));
        assert_eq!(read.layers.project, ConfigFile::Unread);
        assert!(matches!(
            read.stopped,
            Some(ReadError::File(ConfigError::MissingConfig { .. }))
        ));
        // A file among several `--config` values is not read at all.
        let items = vec!["~/cli.yaml".to_string(), "a=1".to_string()];
        let sources = ConfigSources {
            cli_items: &items,
            ..sources
        };
        let read = read_layers(&EnvMap::new(), home, sources);
        assert_eq!(read.layers.cli, CliConfig::File(ConfigFile::Absent));
        assert!(read.stopped.is_none());
        assert_eq!(read.layers.project, ConfigFile::Absent);
    }
}
