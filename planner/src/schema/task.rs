//! The top level of a task file (`schemas.get_task_schema`): which fields
//! it may have and the form of each.

use serde_yaml_ng::{Mapping, Value};

use super::form::violation;
use super::json_schema::{self, TASK};
use super::value::value_text;
use crate::pytext::py_str_repr;
use crate::resources::RequestError;

/// How `validate_schema` names the task schema in its messages.
pub(crate) const PREFIX: &str = "Invalid task YAML: ";

/// The task schema's checks of a task document (`Task.from_yaml_config`):
/// `_user_specified_yaml` popped, `envs`/`secrets` keys and values made
/// strings (a null kept), then `validate_schema(config, get_task_schema(),
/// 'Invalid task YAML: ')` — null top-level values skipped.
pub fn check_task(map: &Mapping) -> Result<(), RequestError> {
    let mut config = map.clone();
    config.remove("_user_specified_yaml");
    for key in ["envs", "secrets"] {
        let as_str = |v: &Value| value_text(v).map_or(Value::Null, Value::String);
        let coerced = match config.get(key) {
            Some(Value::Mapping(m)) => Value::Mapping(
                m.iter()
                    .map(|(k, v)| {
                        (
                            Value::String(value_text(k).unwrap_or_else(|| "None".into())),
                            as_str(v),
                        )
                    })
                    .collect(),
            ),
            Some(Value::Sequence(items)) if key == "secrets" => Value::Sequence(
                items
                    .iter()
                    .map(|i| Value::String(value_text(i).unwrap_or_else(|| "None".into())))
                    .collect(),
            ),
            _ => continue,
        };
        config.insert(Value::from(key), coerced);
    }
    json_schema::validate(&Value::Mapping(config), &TASK, PREFIX, true)
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
            (
                "build: {gpu: true}\npredict: p.py:P",
                "Invalid task YAML: Found unsupported field 'build'. Found unsupported field 'predict'.",
            ),
        ] {
            let err = check_task(&map(yaml)).unwrap_err();
            assert_eq!(err.message, want, "{yaml}");
            assert_eq!(err.kind, ErrorKind::InvalidConfig);
        }
        // Env values are strings once loaded; `_user_specified_yaml` is popped.
        for ok in [
            "envs: {A: 1, B: true, C: null}",
            "_user_specified_yaml: x\nrun: echo",
        ] {
            assert!(check_task(&map(ok)).is_ok(), "{ok}");
        }
    }
}
