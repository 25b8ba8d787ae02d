//! A task's sections besides `resources:` (`sky/task.py::Task.from_yaml_config`):
//! `envs` (with the `--env` overrides applied while loading), `secrets`
//! (names only: values never leave the parser), `volumes` and `config`.

use serde_yaml_ng::{Mapping, Value};

use super::types::{TaskVolume, VolumeSource};
use crate::pytext::py_str_repr;
use crate::resources::RequestError;
use crate::schema::config::check_task_config;
use crate::schema::envs::check_entry as check_env;
use crate::schema::task::type_error;
use crate::schema::value::{value_repr, value_text};

/// `envs:` as the schema and `Task.from_yaml_config` check it: names match
/// `^[a-zA-Z_][a-zA-Z0-9_]*$`; `--env` overrides are applied; a name still
/// without a value is an error.
pub(super) fn parse_envs(
    value: Option<&Value>,
    overrides: &[(String, String)],
) -> Result<Vec<(String, String)>, RequestError> {
    let mut envs: Vec<(String, Option<String>)> = Vec::new();
    match value {
        None | Some(Value::Null) => {}
        Some(Value::Mapping(m)) => {
            for (k, v) in m {
                let key = value_text(k).unwrap_or_default();
                check_env(&key, v)?;
                let v = match v {
                    Value::Null => None,
                    other => value_text(other),
                };
                envs.push((key, v));
            }
        }
        Some(other) => return Err(type_error(&value_repr(other), "object", "envs")),
    }
    for (k, v) in overrides {
        match envs.iter_mut().find(|(name, _)| name == k) {
            Some((_, slot)) => *slot = Some(v.clone()),
            None => envs.push((k.clone(), Some(v.clone()))),
        }
    }
    envs.into_iter()
        .map(|(k, v)| match v {
            Some(v) => Ok((k, v)),
            None => Err(RequestError::value(format!(
                "Environment variable {} is None. Please set a value for it in task YAML or with --env flag. To set it to be empty, use an empty string ({k}: \"\" in task YAML or --env {k}=\"\" in CLI).",
                py_str_repr(&k)
            ))),
        })
        .collect()
}

/// `secrets:` names (dict or `secrets:`-prefixed list); values are dropped here.
pub(super) fn parse_secret_names(value: Option<&Value>) -> Result<Vec<String>, RequestError> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Mapping(m)) => {
            let mut names = Vec::new();
            for (k, v) in m {
                let key = value_text(k).unwrap_or_default();
                if let Some(reference) = key.strip_prefix("secrets:") {
                    if !v.is_null() {
                        return Err(RequestError::value(format!(
                            "Invalid secret {}: secret references (secrets: prefix) must have a null value in dict form. To provide an inline secret value, remove the 'secrets:' prefix.",
                            py_str_repr(&key)
                        )));
                    }
                    names.push(reference.to_string());
                } else {
                    names.push(key);
                }
            }
            Ok(names)
        }
        Some(Value::Sequence(items)) => items
            .iter()
            .map(|item| {
                let text = value_text(item).unwrap_or_default();
                text.strip_prefix("secrets:").map(str::to_string).ok_or_else(|| {
                    RequestError::value(format!(
                        "Invalid secret in array form: {}. Array items must use the secrets: prefix (e.g., secrets:HF_TOKEN). For inline secrets with values, use dict form: secrets: {{MY_SECRET: \"value\"}}",
                        py_str_repr(&text)
                    ))
                })
            })
            .collect(),
        Some(other) => Err(type_error(&value_repr(other), "object", "secrets")),
    }
}

/// Task `volumes:` (`Task.resolve_and_validate_volumes`, the parts that need
/// no volume record): mount path to a volume name, an ephemeral volume
/// (`size`), an external one (`name`), or a Slurm `host_path`.
pub(super) fn parse_task_volumes(value: Option<&Value>) -> Result<Vec<TaskVolume>, RequestError> {
    let Some(Value::Mapping(m)) = value.filter(|v| !v.is_null()) else {
        return match value.filter(|v| !v.is_null()) {
            None => Ok(Vec::new()),
            Some(other) => Err(type_error(&value_repr(other), "object", "volumes")),
        };
    };
    let mut out = Vec::new();
    for (k, v) in m {
        let path = value_text(k).unwrap_or_default();
        let source = match v {
            Value::String(name) => VolumeSource::Named {
                name: name.clone(),
                sub_path: None,
            },
            Value::Mapping(cfg) => {
                let get = |key: &str| cfg.get(key).filter(|v| !v.is_null());
                if get("size").is_some() {
                    VolumeSource::Ephemeral
                } else if let Some(name) = get("name") {
                    VolumeSource::Named {
                        name: value_text(name).unwrap_or_default(),
                        sub_path: get("sub_path").and_then(value_text),
                    }
                } else if get("host_path").is_some() {
                    VolumeSource::HostPath
                } else {
                    return Err(RequestError::value(format!(
                        "Invalid volume config: {path}: {}. One of \"size\" (for an ephemeral volume), \"name\" (for an external volume), or \"host_path\" (for a Slurm host bind) must be set.",
                        value_repr(v)
                    )));
                }
            }
            other => {
                return Err(RequestError::value(format!(
                    "Invalid volume config: {path}: {}",
                    value_repr(other)
                )));
            }
        };
        out.push(TaskVolume { path, source });
    }
    Ok(out)
}

/// A task's `config:` block (`Task.from_yaml_config`: `hooks` taken out,
/// the rest kept as the resources' `_cluster_config_overrides`), its
/// sections checked against the config schema; `None` when empty.
pub fn parse_task_config(value: Option<&Value>) -> Result<Option<Mapping>, RequestError> {
    let mut map = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Mapping(m)) => m.clone(),
        Some(other) => return Err(type_error(&value_repr(other), "object", "config")),
    };
    map.remove("hooks");
    check_task_config(&map)?;
    Ok((!map.is_empty()).then_some(map))
}
