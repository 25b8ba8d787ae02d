//! The top level of a task file (`schemas.get_task_schema`): which fields
//! it may have and the form of each.

use serde_yaml_ng::Mapping;

use super::form::{Field, Ty, check_field, one, reject_unknown_keys, violation};
use crate::pytext::py_str_repr;
use crate::resources::RequestError;

/// How `validate_schema` names the task schema in its messages.
pub(crate) const PREFIX: &str = "Invalid task YAML: ";

/// The task schema's fields (`properties`), in its order.
const TASK_KEYS: &[&str] = &[
    "name",
    "workdir",
    "num_nodes",
    "resources",
    "envs",
    "secrets",
    "file_mounts",
    "setup",
    "run",
    "inputs",
    "outputs",
    "service",
    "event_callback",
    "config",
    "volumes",
    "_metadata",
    "_user_specified_yaml",
    "pool",
    "file_mounts_mapping",
    "api_server_access",
    "managed_secrets",
    "volume_mounts",
];

/// The forms of the fields this module checks (the others are checked
/// where they are parsed: `num_nodes`, and the sections with modules of
/// their own).
const TASK_FIELDS: &[Field] = &[
    one("name", &[Ty::Str]),
    one("workdir", &[Ty::Str, Ty::Obj]),
    one("event_callback", &[Ty::Str]),
    one("file_mounts", &[Ty::Obj]),
    one("service", &[Ty::Obj]),
    one("pool", &[Ty::Obj]),
    one("setup", &[Ty::Str]),
    one("run", &[Ty::Str]),
    one("envs", &[Ty::Obj]),
    one("secrets", &[Ty::Obj, Ty::Arr]),
    one("config", &[Ty::Obj]),
    one("volumes", &[Ty::Obj]),
];

/// The task schema's checks of the top level: no unknown field, then the
/// form of each (null values are skipped, as `validate_schema(skip_none=True)`
/// does).
pub fn check_task(map: &Mapping) -> Result<(), RequestError> {
    reject_unknown_keys("task", map, TASK_KEYS)?;
    for field in TASK_FIELDS {
        if let Some(v) = map.get(field.key).filter(|v| !v.is_null()) {
            check_field(PREFIX, field, v, &format!("$.{}", field.key))?;
        }
    }
    Ok(())
}

/// The task schema's error for a value of the wrong type at `$.<path>`;
/// `shown` is the value as Python shows it.
pub(crate) fn type_error(shown: &str, ty: &str, path: &str) -> RequestError {
    violation(
        PREFIX,
        format!("{shown} is not of type {}", py_str_repr(ty)),
        &format!("$.{path}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::ErrorKind;

    fn map(yaml: &str) -> Mapping {
        serde_yaml_ng::from_str(yaml).expect("test yaml")
    }

    #[test]
    fn wrong_types_name_the_field_and_the_form() {
        for (yaml, want) in [
            (
                "name: [1]",
                "Invalid task YAML: [1] is not of type 'string'. Check problematic field(s): $.name",
            ),
            (
                "run: {a: 1}",
                "Invalid task YAML: {'a': 1} is not of type 'string'. Check problematic field(s): $.run",
            ),
            (
                "nme: x",
                "Invalid task YAML: Instead of 'nme', did you mean 'name'?",
            ),
        ] {
            let err = check_task(&map(yaml)).unwrap_err();
            assert_eq!(err.message, want, "{yaml}");
            assert_eq!(err.kind, ErrorKind::InvalidConfig);
        }
    }
}
