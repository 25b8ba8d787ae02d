//! A task's `envs:` section (`get_task_schema`'s `envs`: names matching
//! `patternProperties`, string values; `validate_schema` words a bad name
//! on its own).

use serde_yaml_ng::Value;

use super::task::{PREFIX, type_error};
use super::value::value_repr;
use crate::pytext::py_str_repr;
use crate::resources::{ErrorKind, RequestError};

/// Checks one `envs:` entry: the name matches `^[a-zA-Z_][a-zA-Z0-9_]*$`,
/// and the value is a scalar (or empty: the task then needs `--env`).
pub(crate) fn check_entry(key: &str, value: &Value) -> Result<(), RequestError> {
    let valid_name = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid_name {
        return Err(RequestError::new(
            ErrorKind::InvalidConfig,
            format!(
                "{PREFIX}The `envs` field contains invalid keys:\n{} does not match any of the regexes: '^[a-zA-Z_][a-zA-Z0-9_]*$'",
                py_str_repr(key)
            ),
        ));
    }
    if let Value::Sequence(_) | Value::Mapping(_) = value {
        return Err(type_error(
            &value_repr(value),
            "string",
            &format!("envs.{key}"),
        ));
    }
    Ok(())
}
