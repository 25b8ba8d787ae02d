//! Configuration files (an edge: reads them): `~/.sky/config.yaml` and the
//! error type every configuration and catalog problem is reported with.

use std::path::{Path, PathBuf};

use planner::catalog::CatalogError;
use planner::config::{SkyConfig, parse_config_document};
use serde_yaml_ng::{Mapping, Value};

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
    /// `--config` is neither an existing file nor `key=value` pairs.
    #[error(
        "Invalid value for '--config': Invalid config override: {}. Check if config file exists or if the dotlist is formatted as: key1=value1,key2=value2.\nDetails: {details}",
        planner::pytext::py_list(.items)
    )]
    CliConfig {
        /// The `--config` values.
        items: Vec<String>,
        /// What is wrong.
        details: String,
    },
    /// A volumes file (`SKY_VOLUMES_FILE`) is unreadable or malformed.
    #[error("{0}")]
    Volumes(String),
}

/// The SkyPilot config a launch runs with, resolved as 0.14.1 resolves it
/// for a request to a local API server (`sky/skypilot_config.py`).
#[derive(Debug, Clone, Default)]
pub(crate) struct LoadedConfig {
    /// Its parsed view.
    pub(crate) config: SkyConfig,
    /// What the server logs when it drops client-side keys it owns
    /// (`override_skypilot_config`), to print before the optimizer's output.
    pub(crate) server_warnings: Vec<String>,
}

/// `SKIPPED_CLIENT_OVERRIDE_KEYS` (`sky/skylet/constants.py`): keys only the
/// server's own config sets; a client's differing value is ignored.
const SERVER_OWNED_KEYS: &[&[&str]] = &[
    &["api_server"],
    &["allowed_clouds"],
    &["workspaces"],
    &["db"],
    &["daemons"],
    &["metrics"],
    &["jobs", "controller", "consolidation_mode"],
    &["serve", "controller", "consolidation_mode"],
    &["jobs", "controller", "controller_logs_gc_retention_hours"],
    &["jobs", "controller", "task_logs_gc_retention_hours"],
];

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

/// One config document from `path` (`None` when the file does not exist).
fn read_config_file(path: &Path, home: &Path) -> Result<Option<Mapping>, ConfigError> {
    match read_config_text(path)? {
        Some(text) => Ok(Some(parse_config_document(
            &text,
            &display_name(path, home),
        )?)),
        None => Ok(None),
    }
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

fn get_path<'a>(m: &'a Mapping, path: &[&str]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    let v = m.get(*first)?;
    if rest.is_empty() {
        return Some(v);
    }
    match v {
        Value::Mapping(inner) => get_path(inner, rest),
        _ => None,
    }
}

fn remove_path(m: &mut Mapping, path: &[&str]) -> Option<Value> {
    let (first, rest) = path.split_first()?;
    if rest.is_empty() {
        return m.remove(*first);
    }
    match m.get_mut(*first) {
        Some(Value::Mapping(inner)) => remove_path(inner, rest),
        _ => None,
    }
}

/// What `--config` and `--workspace` add on the client
/// (`skypilot_config._compose_cli_config`): one existing file, or `key=value`
/// pairs; `--workspace NAME` is `active_workspace=NAME`.
pub(crate) fn cli_layer(
    items: &[String],
    workspace: Option<&str>,
    home: &Path,
) -> Result<Mapping, ConfigError> {
    let mut layer = Mapping::new();
    if !items.is_empty() {
        let invalid = |details: String| ConfigError::CliConfig {
            items: items.to_vec(),
            details,
        };
        let first = expand_home(&items[0], home);
        if first.is_file() {
            if items.len() != 1 {
                return Err(invalid(
                    "Cannot use multiple --config flags with a config file.".into(),
                ));
            }
            let text = read_config_text(&first)?.ok_or_else(|| ConfigError::Io {
                path: first.clone(),
                source: std::io::ErrorKind::NotFound.into(),
            })?;
            layer = parse_config_document(&text, &display_name(&first, home))
                .map_err(|e| invalid(e.to_string()))?;
        } else {
            layer = planner::config::parse_dotlist(items).map_err(invalid)?;
            planner::config::check_sections(&layer)
                .map_err(|m| invalid(format!("Invalid config YAML (CLI). {m}")))?;
        }
    }
    if let Some(ws) = workspace {
        let dot = planner::config::parse_dotlist(&[format!("active_workspace={ws}")]).map_err(
            |details| ConfigError::CliConfig {
                items: vec![format!("active_workspace={ws}")],
                details,
            },
        )?;
        planner::config::overlay(&mut layer, &dot);
    }
    Ok(layer)
}

/// The config of one launch: the client's layers (`SKYPILOT_CONFIG`, else
/// the user config — `SKYPILOT_GLOBAL_CONFIG` or `~/.sky/config.yaml` — and
/// the project config — `SKYPILOT_PROJECT_CONFIG` or `.sky.yaml` in
/// `project_dir` — then `cli`) laid over the server's own (`SKYPILOT_CONFIG`,
/// else the user config), whose server-owned keys win with a warning when
/// the client's differ (`override_skypilot_config`).
pub(crate) fn load_config(
    env: &EnvMap,
    home: &Path,
    project_dir: Option<&Path>,
    cli: &Mapping,
) -> Result<LoadedConfig, ConfigError> {
    let internal = env
        .get("SKYPILOT_CONFIG")
        .filter(|p| !p.is_empty())
        .map(|p| expand_home(p, home));
    let (server, mut client, source) = match internal {
        Some(path) => {
            let doc = read_config_file(&path, home)?.ok_or_else(|| ConfigError::MissingConfig {
                var: "SKYPILOT_CONFIG".into(),
                path: path.clone(),
            })?;
            (doc.clone(), doc, display_name(&path, home))
        }
        None => {
            let user_path = required_file(env, "SKYPILOT_GLOBAL_CONFIG", home)?
                .unwrap_or_else(|| home.join(".sky/config.yaml"));
            let user = read_config_file(&user_path, home)?.unwrap_or_default();
            let project_path = match required_file(env, "SKYPILOT_PROJECT_CONFIG", home)? {
                Some(p) => Some(p),
                None => project_dir.map(|d| d.join(".sky.yaml")),
            };
            let mut client = user.clone();
            if let Some(p) = project_path
                && let Some(project) = read_config_file(&p, home)?
            {
                planner::config::overlay(&mut client, &project);
            }
            (user, client, display_name(&user_path, home))
        }
    };
    planner::config::overlay(&mut client, cli);
    let mut server_warnings = Vec::new();
    let mut differing = Vec::new();
    for key in SERVER_OWNED_KEYS {
        if let Some(v) = remove_path(&mut client, key)
            && !v.is_null()
            && get_path(&server, key) != Some(&v)
        {
            differing.push(format!("\"{}\"", key.join(".")));
        }
    }
    if !differing.is_empty() {
        server_warnings.push(format!(
            "The following keys ([{}]) have different values in the client SkyPilot config with the server and will be ignored. Remove these keys to disable this warning. If you want to specify it, please modify it on server side or contact your administrator.",
            differing.join(", ")
        ));
    }
    let mut doc = server;
    planner::config::overlay(&mut doc, &client);
    let config = SkyConfig::from_document(doc, &source)?;
    Ok(LoadedConfig {
        config,
        server_warnings,
    })
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
