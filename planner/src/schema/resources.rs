//! A task's `resources:` section (`schemas.get_resources_schema`,
//! `_get_single_resources_schema`): which fields it may have and the form
//! of each, also inside its `any_of`/`ordered` entries.

use serde_yaml_ng::{Mapping, Value};

use super::form::{Field, Ty, check_field, mismatch, one, reject_unknown_keys, violation};
use super::value::{key_text, value_repr};
use crate::pytext::py_str_repr;
use crate::resources::RequestError;

/// How `validate_schema` names the resources schema in its messages.
const PREFIX: &str = "Invalid resources YAML: ";

/// The resources schema's fields (`properties`).
const RESOURCE_KEYS: &[&str] = &[
    "infra",
    "cloud",
    "region",
    "zone",
    "instance_type",
    "cpus",
    "memory",
    "accelerators",
    "gpus",
    "accelerator_args",
    "use_spot",
    "job_recovery",
    "spot_recovery",
    "disk_size",
    "disk_tier",
    "network_tier",
    "image_id",
    "ports",
    "labels",
    "any_of",
    "ordered",
    "local_disk",
    "max_hourly_cost",
    "autostop",
    "priority",
    "priority_class",
    "ephemeral_storage",
    "volumes",
];

/// The forms of the fields whose shape is checked before they are parsed.
const RESOURCE_FIELDS: &[Field] = &[
    one("cloud", &[Ty::Str]),
    one("region", &[Ty::Str]),
    one("zone", &[Ty::Str]),
    one("infra", &[Ty::Str]),
    one("cpus", &[Ty::Str, Ty::Num]),
    one("memory", &[Ty::Str, Ty::Num]),
    Field {
        key: "accelerators",
        forms: &[Ty::Str, Ty::Obj, Ty::Arr],
        items: &[Ty::Str],
    },
    one("instance_type", &[Ty::Str]),
    one("use_spot", &[Ty::Bool]),
    one("job_recovery", &[Ty::Str, Ty::Obj]),
    one("spot_recovery", &[Ty::Str, Ty::Obj]),
    one("volumes", &[Ty::Arr]),
    one("disk_size", &[Ty::Str, Ty::Int]),
    one("disk_tier", &[Ty::Str]),
    one("network_tier", &[Ty::Str]),
    one("local_disk", &[Ty::Str]),
    one("max_hourly_cost", &[Ty::Num]),
    Field {
        key: "ports",
        forms: &[Ty::Str, Ty::Int, Ty::Arr, Ty::Null],
        items: &[Ty::Str, Ty::Int],
    },
    one("labels", &[Ty::Obj]),
    one("accelerator_args", &[Ty::Obj]),
    one("image_id", &[Ty::Str, Ty::Obj, Ty::Null]),
    one("autostop", &[Ty::Bool, Ty::Str, Ty::Int, Ty::Obj]),
    one("priority", &[Ty::Int]),
    one("any_of", &[Ty::Arr]),
    one("ordered", &[Ty::Arr]),
];

/// The resources schema's checks of a `resources:` mapping: no unknown
/// field, then the form of each field, there and in each of its
/// `any_of`/`ordered` entries (`$.any_of[0].use_spot`).
pub fn check_resources(map: &Mapping) -> Result<(), RequestError> {
    reject_unknown_keys("resources", map, RESOURCE_KEYS)?;
    check_resource_fields(map, "$")?;
    for key in ["any_of", "ordered"] {
        if let Some(Value::Sequence(items)) = map.get(key) {
            for (i, item) in items.iter().enumerate() {
                let path = format!("$.{key}[{i}]");
                match item {
                    Value::Mapping(m) => check_resource_fields(m, &path)?,
                    other => {
                        return Err(violation(PREFIX, mismatch(other, &[Ty::Obj]), &path));
                    }
                }
            }
        }
    }
    Ok(())
}

fn check_resource_fields(map: &Mapping, base: &str) -> Result<(), RequestError> {
    for field in RESOURCE_FIELDS {
        let Some(v) = map.get(field.key) else {
            continue;
        };
        // The resources schema is validated without `skip_none`, but a
        // null is what an empty YAML value means and SkyPilot's own
        // `from_yaml_config` drops it first.
        if v.is_null() {
            continue;
        }
        let path = format!("{base}.{}", field.key);
        check_field(PREFIX, field, v, &path)?;
        if field.key == "accelerators"
            && let Value::Mapping(m) = v
        {
            // `{name: count}`: each count a number (or empty).
            for (k, c) in m {
                if !(c.is_null() || c.is_number()) {
                    let at = format!("{path}.{}", key_text(k));
                    return Err(violation(PREFIX, mismatch(c, &[Ty::Null, Ty::Num]), &at));
                }
            }
        }
    }
    Ok(())
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
                "Invalid resources YAML: [1] is not valid under any of the given schemas (expected string or number). Check problematic field(s): $.cpus",
            ),
            (
                "any_of: [{use_spot: maybe}]",
                "Invalid resources YAML: 'maybe' is not of type 'boolean'. Check problematic field(s): $.any_of[0].use_spot",
            ),
            (
                "accelerators: {V100: x}",
                "Invalid resources YAML: 'x' is not valid under any of the given schemas (expected null or number). Check problematic field(s): $.accelerators.V100",
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
