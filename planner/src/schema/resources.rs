//! A task's `resources:` section (`schemas.get_resources_schema`,
//! `_get_single_resources_schema`): which fields it may have and the form
//! of each, also inside its `any_of`/`ordered` entries.

use serde_yaml_ng::{Mapping, Value};

use super::form::violation;
use super::json_schema::{self, RESOURCES};
use super::value::value_repr;
use crate::pytext::py_str_repr;
use crate::resources::{ErrorKind, RequestError};

/// How `validate_schema` names the resources schema in its messages.
const PREFIX: &str = "Invalid resources YAML: ";

/// `Resources._apply_resource_config_aliases` (`RESOURCE_CONFIG_ALIASES`):
/// `gpus` is read as `accelerators` — moved to the end, as Python's
/// `config[canonical] = config.pop(alias)` does.
pub(crate) fn apply_aliases(map: &mut Mapping) -> Result<(), RequestError> {
    if let Some(v) = map.remove("gpus") {
        if map.contains_key("accelerators") {
            return Err(RequestError::new(
                ErrorKind::InvalidConfig,
                "Cannot specify both gpus and accelerators in config.",
            ));
        }
        map.insert(Value::from("accelerators"), v);
    }
    Ok(())
}

/// The resources schema's checks of a `resources:` mapping
/// (`Resources.from_yaml_config`): the aliases applied to it and to each of
/// its `any_of`/`ordered` items, then `validate_schema(config,
/// get_resources_schema(), 'Invalid resources YAML: ')`. Returns the
/// mapping with the aliases applied.
pub fn check_resources(map: &Mapping) -> Result<Mapping, RequestError> {
    let mut config = map.clone();
    apply_aliases(&mut config)?;
    for key in ["any_of", "ordered"] {
        if let Some(Value::Sequence(items)) = config.get_mut(key) {
            for item in items {
                if let Value::Mapping(m) = item {
                    apply_aliases(m)?;
                }
            }
        }
    }
    // `--gpus NAME[:COUNT]` arrives as `{accelerators: '<string>'}`, which
    // the schema always accepts (`accelerators` is `anyOf` string / object /
    // array, nothing is required): skip loading and walking it on the path
    // every flags-only launch takes.
    let only_accelerator_string =
        config.len() == 1 && matches!(config.get("accelerators"), Some(Value::String(_)));
    if !only_accelerator_string {
        json_schema::validate(&Value::Mapping(config.clone()), &RESOURCES, PREFIX, true)?;
    }
    Ok(config)
}

/// The resources schema's error at `$.<path>` (`Resources.from_yaml_config`
/// validates the `resources:` block on its own).
pub(crate) fn schema_error(message: String, path: &str) -> RequestError {
    violation(PREFIX, message, &format!("$.{path}"))
}

/// The resources schema's error for a value of the wrong type at `$.<path>`.
pub(crate) fn type_error(v: &Value, ty: &str, path: &str) -> RequestError {
    schema_error(
        format!("{} is not of type {}", value_repr(v), py_str_repr(ty)),
        path,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(yaml: &str) -> Mapping {
        serde_yaml_ng::from_str(yaml).expect("test yaml")
    }

    #[test]
    fn wrong_types_name_the_field_and_the_form() {
        for (yaml, want) in [
            (
                "use_spot: maybe",
                "Invalid resources YAML: 'maybe' is not of type 'boolean'. Check problematic field(s): $.use_spot",
            ),
            (
                "accelerators: [1]",
                "Invalid resources YAML: 1 is not of type 'string'. Check problematic field(s): $.accelerators[0]",
            ),
            (
                "cpus: [1]",
                "Invalid resources YAML: [1] is not valid under any of the given schemas. Check problematic field(s): $.cpus",
            ),
            (
                "any_of: [{use_spot: maybe}]",
                "Invalid resources YAML: 'maybe' is not of type 'boolean'. Check problematic field(s): $.any_of[0].use_spot",
            ),
            (
                "accelerators: {V100: x}",
                "Invalid resources YAML: 'x' is not valid under any of the given schemas. Check problematic field(s): $.accelerators.V100",
            ),
            (
                "gpus: V100\naccelerators: V100",
                "Cannot specify both gpus and accelerators in config.",
            ),
            (
                "any_of: [{gpus: A100, accelerators: V100}]",
                "Cannot specify both gpus and accelerators in config.",
            ),
            (
                "cpu: 4",
                "Invalid resources YAML: Instead of 'cpu', did you mean 'cpus'?",
            ),
        ] {
            let err = check_resources(&map(yaml)).unwrap_err();
            assert_eq!(err.message, want, "{yaml}");
        }
        for ok in [
            "use_spot: true",
            "cpus: 4+",
            "cpus: 4",
            "accelerators: {V100: 1}",
            "accelerators: [V100, T4]",
            "ports: [8080, '9000-9010']",
            "disk_size: 100",
            "ports: null",
        ] {
            assert!(check_resources(&map(ok)).is_ok(), "{ok}");
        }
    }
}
