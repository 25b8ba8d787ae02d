//! What SkyPilot's CLI says while it builds the task, as data
//! (`planner::render` words it): the resource flags a multi-task file
//! ignores, and the `service:`/`pool:` section `sky launch` ignores.
//! `overrides.rs` builds them.

use serde_yaml_ng::Value;

use super::types::ServiceKind;
use crate::cloud::CloudId;

/// What SkyPilot's CLI says while it builds the task, before the request
/// reaches the optimizer (`_make_task_or_dag_from_entrypoint_with_overrides`
/// and `launch` in `sky/client/cli/command.py`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientNotice {
    /// A multi-task YAML ignores the resource flags given.
    OverridesIgnored(OverrideParams),
    /// `sky launch` ignores a `service:` (or `pool:`) section.
    ServiceIgnored(ServiceKind),
}

/// SkyPilot's `override_params` dict (`_parse_override_params`): the
/// resource flags given, in the dict's order, each with the value the dict
/// holds. Never empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverrideParams(pub Vec<(&'static str, ParamValue)>);

/// One value of [`OverrideParams`], as the Python object it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamValue {
    /// `None` (the flag was `none`, or `*` in `--infra`).
    None,
    /// A cloud object (`--cloud`, or the cloud of `--infra`).
    Cloud(CloudId),
    /// A string.
    Str(String),
    /// An integer (`--disk-size`, `--priority`).
    Int(i128),
    /// A boolean (`--use-spot`).
    Bool(bool),
    /// A tuple of strings (`--ports`).
    Tuple(Vec<String>),
    /// A YAML document as loaded (`--config`'s `_cluster_config_overrides`).
    Yaml(Value),
}
