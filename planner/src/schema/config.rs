//! A task's `config:` block (`schemas._task_config_schema`): the config
//! schema's sections, of which a section with task-overrideable keys keeps
//! only those.

use serde_yaml_ng::Mapping;

use super::task::PREFIX;
use super::value::value_text;
use crate::pytext::py_str_repr;
use crate::resources::{ErrorKind, RequestError};

/// The keys a task's `config:` block may set
/// (`sky/skylet/constants.py::OVERRIDEABLE_CONFIG_KEYS_IN_TASK`), plus
/// `hooks`, which `Task.from_yaml_config` takes out first.
pub const TASK_CONFIG_KEYS: &[&[&str]] = &[
    &["docker", "run_options"],
    &["nvidia_gpus", "disable_ecc"],
    &["ssh", "custom_metadata"],
    &["ssh", "pod_config"],
    &["ssh", "provision_timeout"],
    &["kubernetes", "custom_metadata"],
    &["kubernetes", "pod_config"],
    &["kubernetes", "provision_timeout"],
    &["kubernetes", "dws"],
    &["kubernetes", "kueue"],
    &["kubernetes", "quota"],
    &["kubernetes", "remote_identity"],
    &["kubernetes", "enable_docker"],
    &["kubernetes", "set_pod_resource_limits"],
    &["azure", "remote_identity"],
    &["azure", "vpc_name"],
    &["gcp", "vpc_name"],
    &["gcp", "subnet_names"],
    &["gcp", "managed_instance_group"],
    &["gcp", "enable_gvnic"],
    &["gcp", "enable_gpu_direct"],
    &["gcp", "placement_policy"],
    &["vast", "datacenter_only"],
    &["vast", "create_instance_kwargs"],
    &["slurm", "sbatch_options"],
    &["slurm", "quota"],
    &["slurm", "cpu_partition"],
    &["active_workspace"],
];

/// Checks a task's `config:` block (`hooks` already taken out): its
/// sections against the config schema, then the task-overrideable fields.
pub(crate) fn check_task_config(map: &Mapping) -> Result<(), RequestError> {
    crate::config::check_sections(map).map_err(|message| {
        RequestError::new(
            ErrorKind::InvalidConfig,
            format!("{PREFIX}{message}. Check problematic field(s): $.config"),
        )
    })?;
    check_overrideable_fields(map)
}

/// `schemas._task_config_schema`: a section that has task-overrideable keys
/// ([`TASK_CONFIG_KEYS`], e.g. `gcp`) keeps only those in the task schema,
/// so any other field in it is rejected as `validate_schema` words an
/// `additionalProperties` error (`Found unsupported field 'labels'.`, or
/// `Instead of 'x', did you mean 'y'?`). Sections with no such keys pass
/// through (the client allows unknown properties there).
fn check_overrideable_fields(map: &Mapping) -> Result<(), RequestError> {
    for (section, body) in map {
        let Some(section) = section.as_str() else {
            continue;
        };
        let paths: Vec<&[&str]> = TASK_CONFIG_KEYS
            .iter()
            .copied()
            .filter(|p| p.first() == Some(&section))
            .collect();
        if paths.is_empty() || paths.iter().any(|p| p.len() == 1) {
            continue;
        }
        let known: Vec<&str> = paths.iter().filter_map(|p| p.get(1).copied()).collect();
        let Some(body) = body.as_mapping() else {
            continue;
        };
        let messages: Vec<String> = body
            .keys()
            .filter_map(value_text)
            .filter(|k| !known.contains(&k.as_str()))
            .map(|k| {
                match crate::pytext::close_matches(&k, known.iter().copied(), 1, 0.6).first() {
                    Some(m) => format!(
                        "Instead of {}, did you mean {}?",
                        py_str_repr(&k),
                        py_str_repr(m)
                    ),
                    None => format!("Found unsupported field {}.", py_str_repr(&k)),
                }
            })
            .collect();
        if !messages.is_empty() {
            return Err(RequestError::new(
                ErrorKind::InvalidConfig,
                format!("{PREFIX}{}", messages.join(" ")),
            ));
        }
    }
    Ok(())
}
