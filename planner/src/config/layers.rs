//! A request's config layers, merged in one call ([`merge`]): the edge
//! reads every file (`SKYPILOT_CONFIG`, the user and project configs,
//! `--config`) into [`ConfigLayers`]; this lays them over each other as
//! 0.14.1's `skypilot_config` does for a request to a local API server,
//! reporting errors in the order it meets them.

use serde_yaml_ng::{Mapping, Value};

use super::{
    ConfigError, SkyConfig, check_sections, overlay, parse_config_document, parse_dotlist,
};

/// One config file as the edge read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigFile {
    /// It does not exist: nothing to lay over.
    Absent,
    /// Its text, and how errors name it (`~/.sky/config.yaml`).
    Text {
        /// The file's contents.
        text: String,
        /// Its name in errors and warnings.
        name: String,
    },
    /// The edge could not read it and holds the error; nothing after it
    /// was read, and [`merge`] stops here ([`MergeError::Unread`]).
    Unread,
}

/// What `--config` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CliConfig {
    /// No `--config`.
    None,
    /// `key=value` pairs ([`ConfigLayers::cli_items`]).
    Dotlist,
    /// The first value names an existing file. It is read only when it is
    /// the one value (more values with a file is an error): else `Absent`.
    File(ConfigFile),
}

/// Every config layer of one request, as the edge read them (in the order
/// [`merge`] lays them): what `skypilot_config` reads for a request to a
/// local API server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigLayers {
    /// The `--config` values as given (its errors quote them).
    pub cli_items: Vec<String>,
    /// What they name.
    pub cli: CliConfig,
    /// `--workspace`: `active_workspace=NAME` laid over `--config`.
    pub workspace: Option<String>,
    /// `SKYPILOT_CONFIG`'s file: when set, the server's config and the
    /// client's base, and `user` and `project` are not read.
    pub internal: Option<ConfigFile>,
    /// The user config (`SKYPILOT_GLOBAL_CONFIG`, else `~/.sky/config.yaml`).
    pub user: ConfigFile,
    /// How errors name the user config, whether or not it exists.
    pub user_name: String,
    /// The project config (`SKYPILOT_PROJECT_CONFIG`, else `.sky.yaml`).
    pub project: ConfigFile,
}

/// The config one request runs with, and what merging it dropped.
#[derive(Debug, Clone, Default)]
pub struct MergedConfig {
    /// The merged document's view.
    pub config: SkyConfig,
    /// Server-owned keys (`api_server`, `workspaces.…` as dotted paths,
    /// quoted) the client set to other values than the server: ignored,
    /// as `override_skypilot_config` ignores them (the server logs it).
    pub ignored_server_keys: Vec<String>,
}

/// Why the config layers do not merge.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// `--config` is neither an existing file nor `key=value` pairs: click's
    /// usage error.
    #[error(
        "Invalid value for '--config': Invalid config override: {}. Check if config file exists or if the dotlist is formatted as: key1=value1,key2=value2.\nDetails: {details}",
        crate::pytext::py_list(.items)
    )]
    Cli {
        /// The `--config` values.
        items: Vec<String>,
        /// What is wrong.
        details: String,
    },
    /// A config document is malformed.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A layer the edge could not read ([`ConfigFile::Unread`]): the edge's
    /// error is the answer.
    #[error("a config file could not be read")]
    Unread,
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

/// The config of one request (`sky/skypilot_config.py`): the client's
/// layers (`SKYPILOT_CONFIG`, else the user then the project config, then
/// `--config` and `--workspace`) laid over the server's own
/// (`SKYPILOT_CONFIG`, else the user config), whose server-owned keys win
/// when the client's differ (`override_skypilot_config`). Errors come in
/// the order 0.14.1 meets them: `--config` first, then each file.
pub fn merge(layers: &ConfigLayers) -> Result<MergedConfig, MergeError> {
    let cli = cli_layer(layers)?;
    let document = |file: &ConfigFile| -> Result<Option<Mapping>, MergeError> {
        match file {
            ConfigFile::Absent => Ok(None),
            ConfigFile::Text { text, name } => Ok(Some(parse_config_document(text, name)?)),
            ConfigFile::Unread => Err(MergeError::Unread),
        }
    };
    let (server, mut client, source) = match &layers.internal {
        Some(file) => {
            // The edge reports a missing `SKYPILOT_CONFIG` file itself.
            let (Some(doc), ConfigFile::Text { name, .. }) = (document(file)?, file) else {
                return Err(MergeError::Unread);
            };
            (doc.clone(), doc, name.clone())
        }
        None => {
            let user = document(&layers.user)?.unwrap_or_default();
            let mut client = user.clone();
            if let Some(project) = document(&layers.project)? {
                overlay(&mut client, &project);
            }
            (user, client, layers.user_name.clone())
        }
    };
    overlay(&mut client, &cli);
    let mut ignored_server_keys = Vec::new();
    for key in SERVER_OWNED_KEYS {
        if let Some(v) = remove_path(&mut client, key)
            && !v.is_null()
            && get_path(&server, key) != Some(&v)
        {
            ignored_server_keys.push(format!("\"{}\"", key.join(".")));
        }
    }
    let mut doc = server;
    overlay(&mut doc, &client);
    Ok(MergedConfig {
        config: SkyConfig::from_document(doc, &source)?,
        ignored_server_keys,
    })
}

/// What `--config` and `--workspace` add on the client
/// (`skypilot_config._compose_cli_config`): one existing file, or `key=value`
/// pairs; `--workspace NAME` is `active_workspace=NAME`.
fn cli_layer(layers: &ConfigLayers) -> Result<Mapping, MergeError> {
    let items = &layers.cli_items;
    let invalid = |details: String| MergeError::Cli {
        items: items.clone(),
        details,
    };
    let mut layer = match &layers.cli {
        CliConfig::None => Mapping::new(),
        CliConfig::File(_) if items.len() != 1 => {
            return Err(invalid(
                "Cannot use multiple --config flags with a config file.".into(),
            ));
        }
        CliConfig::File(ConfigFile::Text { text, name }) => {
            parse_config_document(text, name).map_err(|e| invalid(e.to_string()))?
        }
        CliConfig::File(_) => return Err(MergeError::Unread),
        CliConfig::Dotlist => {
            let layer = parse_dotlist(items).map_err(invalid)?;
            check_sections(&layer)
                .map_err(|m| invalid(format!("Invalid config YAML (CLI). {m}")))?;
            layer
        }
    };
    if let Some(ws) = &layers.workspace {
        let item = format!("active_workspace={ws}");
        let dot =
            parse_dotlist(std::slice::from_ref(&item)).map_err(|details| MergeError::Cli {
                items: vec![item.clone()],
                details,
            })?;
        overlay(&mut layer, &dot);
    }
    Ok(layer)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cloud::CloudId;

    fn text(text: &str, name: &str) -> ConfigFile {
        ConfigFile::Text {
            text: text.into(),
            name: name.into(),
        }
    }

    fn layers() -> ConfigLayers {
        ConfigLayers {
            cli_items: Vec::new(),
            cli: CliConfig::None,
            workspace: None,
            internal: None,
            user: ConfigFile::Absent,
            user_name: "~/.sky/config.yaml".into(),
            project: ConfigFile::Absent,
        }
    }

    #[test]
    fn project_then_cli_then_workspace_lay_over_the_user_config() {
        let mut l = layers();
        l.user = text(
            "gcp:\n  project_id: user\nkubernetes:\n  allowed_contexts: [a]\n",
            "u",
        );
        l.project = text("gcp:\n  project_id: project\n", "p");
        l.cli_items = vec!["kubernetes.allowed_contexts=[b]".into()];
        l.cli = CliConfig::Dotlist;
        l.workspace = Some("team".into());
        let merged = merge(&l).unwrap();
        assert_eq!(merged.config.gcp_project_id().as_deref(), Some("project"));
        assert_eq!(
            merged.config.kubernetes_allowed_contexts,
            Some(vec!["b".to_string()])
        );
        assert_eq!(merged.config.active_workspace(), "team");
        assert!(merged.ignored_server_keys.is_empty());
    }

    #[test]
    fn the_server_keeps_its_own_keys() {
        let mut l = layers();
        l.user = text("allowed_clouds: [aws]\n", "u");
        l.project = text("allowed_clouds: [gcp]\napi_server: {}\n", "p");
        let merged = merge(&l).unwrap();
        assert_eq!(merged.config.allowed_clouds, Some(vec![CloudId::Aws]));
        // In `SKIPPED_CLIENT_OVERRIDE_KEYS` order.
        assert_eq!(
            merged.ignored_server_keys,
            ["\"api_server\"", "\"allowed_clouds\""]
        );
    }

    #[test]
    fn errors_come_in_the_order_the_layers_are_read() {
        // `--config` first: its error wins over a malformed user config.
        let mut l = layers();
        l.user = text("nope: 1\n", "u");
        l.cli_items = vec!["a.b".into()];
        l.cli = CliConfig::Dotlist;
        assert!(matches!(merge(&l), Err(MergeError::Cli { .. })));
        // A file among several `--config` values is refused before it is read.
        l.cli_items = vec!["f.yaml".into(), "x=1".into()];
        l.cli = CliConfig::File(ConfigFile::Absent);
        let e = merge(&l).unwrap_err().to_string();
        assert!(e.contains("Cannot use multiple --config flags"), "{e}");
        // A malformed user config is reported before an unreadable project one.
        l = layers();
        l.user = text("nope: 1\n", "u");
        l.project = ConfigFile::Unread;
        assert!(matches!(merge(&l), Err(MergeError::Config(_))));
        l.user = ConfigFile::Absent;
        assert!(matches!(merge(&l), Err(MergeError::Unread)));
    }

    #[test]
    fn skypilot_config_is_both_the_server_and_the_client_config() {
        let mut l = layers();
        l.internal = Some(text("allowed_clouds: [gcp]\n", "internal.yaml"));
        l.user = ConfigFile::Unread;
        let merged = merge(&l).unwrap();
        assert_eq!(merged.config.allowed_clouds, Some(vec![CloudId::Gcp]));
        l.internal = Some(text("allowed_clouds: aws\n", "internal.yaml"));
        let e = merge(&l).unwrap_err().to_string();
        assert!(e.contains("internal.yaml"), "{e}");
    }
}
