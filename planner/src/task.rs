//! Tasks and DAGs as SkyPilot parses them from YAML and CLI flags
//! (`sky/task.py::Task.from_yaml_config`, `sky/utils/schemas.py`,
//! `sky/client/cli/command.py::_make_task_or_dag_from_entrypoint_with_overrides`).

use serde_yaml_ng::{Mapping, Value};

use crate::catalog::GpuMetadata;
use crate::pytext::py_str_repr;
use crate::resource_fields::{
    ImageSpec, NetworkTier, PRIORITY_RANGE, Priority, check_priority, normalize_local_disk,
};
use crate::resources::{
    self, Accelerator, DiskTier, RequestError, Resources, check_acc_count, parse_accelerator,
    parse_infra,
};

/// The requested resources of a task.
#[derive(Debug, Clone, PartialEq)]
pub enum ResourceSet {
    /// `any_of` (or a multi-accelerator set): the cheapest of all.
    AnyOf(Vec<Resources>),
    /// `ordered` (or an accelerator list): the first feasible entry, in order.
    Ordered(Vec<Resources>),
}

impl ResourceSet {
    /// All entries.
    pub fn all(&self) -> &[Resources] {
        match self {
            ResourceSet::AnyOf(v) | ResourceSet::Ordered(v) => v,
        }
    }

    /// All entries, to change in place.
    pub fn all_mut(&mut self) -> &mut Vec<Resources> {
        match self {
            ResourceSet::AnyOf(v) | ResourceSet::Ordered(v) => v,
        }
    }
}

/// One task.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// Name.
    pub name: Option<String>,
    /// Number of nodes.
    pub num_nodes: u32,
    /// Requested resources.
    pub resources: ResourceSet,
    /// The `run` command, if any.
    pub run: Option<String>,
    /// The fields that matter only when the task runs: environment, secret
    /// names, workdir, service, volumes.
    pub spec: TaskSpec,
}

impl Default for Task {
    fn default() -> Self {
        Task {
            name: None,
            num_nodes: 1,
            resources: ResourceSet::AnyOf(vec![Resources::default()]),
            run: None,
            spec: TaskSpec::default(),
        }
    }
}

/// What a task carries besides its resources (`sky/task.py::Task`): validated
/// as SkyPilot validates it, shown in the `-o json` plan, never provisioned.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TaskSpec {
    /// `envs`, after `--env`/`--env-file` overrides, in order.
    pub envs: Vec<(String, String)>,
    /// Names of the `secrets` (inline and managed references). Values never
    /// leave the parser: nothing this tool prints or writes may hold them.
    pub secret_names: Vec<String>,
    /// `workdir`: a local folder, or a git repository (`--git-url`/`--git-ref`).
    pub workdir: Option<Workdir>,
    /// `setup` commands, if any.
    pub setup: Option<String>,
    /// A `service:` or `pool:` section, which `sky launch` ignores (with a
    /// notice).
    pub service: Option<ServiceKind>,
    /// Task `volumes:`, by mount path.
    pub volumes: Vec<TaskVolume>,
}

/// Where a task's working directory comes from.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Workdir {
    /// A local folder, as written.
    Local {
        /// The path.
        path: String,
    },
    /// A git repository.
    Git {
        /// `--git-url` / `workdir.url`.
        url: String,
        /// `--git-ref` / `workdir.ref`.
        #[serde(rename = "ref")]
        reference: Option<String>,
    },
}

/// A `service:` section (SkyServe) or a `pool:` section (a jobs pool).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServiceKind {
    /// `service:`.
    Service,
    /// `pool:` (or a `service:` with `pool: true`).
    Pool,
}

/// One entry of a task's `volumes:` (`Task.resolve_and_validate_volumes`).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskVolume {
    /// Mount path on the node.
    pub path: String,
    /// What is mounted.
    pub source: VolumeSource,
}

/// How a task volume is given.
#[derive(Debug, Clone, PartialEq)]
pub enum VolumeSource {
    /// An existing volume, by name (`sky volumes apply`), optionally a sub-path of it.
    Named {
        /// Volume name.
        name: String,
        /// `sub_path`.
        sub_path: Option<String>,
    },
    /// An ephemeral volume (`size: ...`), created with the cluster: no topology.
    Ephemeral,
    /// A Slurm host path bind.
    HostPath,
}

/// A chain of tasks (multi-document YAML).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Dag {
    /// Tasks in chain order.
    pub tasks: Vec<Task>,
}

/// CLI flags that override every resource of every task (`Resources.copy(**overrides)`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overrides {
    /// `--infra` (or `--cloud/--region/--zone` combined).
    pub infra: Option<String>,
    /// `--cloud`.
    pub cloud: Option<String>,
    /// `--region`.
    pub region: Option<String>,
    /// `--zone`.
    pub zone: Option<String>,
    /// `--gpus`.
    pub gpus: Option<String>,
    /// `--cpus`.
    pub cpus: Option<String>,
    /// `--memory`.
    pub memory: Option<String>,
    /// `--instance-type`.
    pub instance_type: Option<String>,
    /// `--use-spot` / `--no-use-spot`.
    pub use_spot: Option<bool>,
    /// `--disk-size`.
    pub disk_size: Option<u64>,
    /// `--disk-tier`.
    pub disk_tier: Option<String>,
    /// `--image-id`.
    pub image_id: Option<String>,
    /// `--ports`.
    pub ports: Vec<String>,
    /// `--num-nodes`.
    pub num_nodes: Option<u32>,
    /// `--name` of the task (not the cluster).
    pub name: Option<String>,
    /// `--network-tier`.
    pub network_tier: Option<String>,
    /// `--local-disk`.
    pub local_disk: Option<String>,
    /// `--priority`: an integer, a priority class name, or `none`.
    pub priority: Option<String>,
    /// `--env`, `--env-file` (merged as SkyPilot merges them: `--env` wins),
    /// values resolved by the edge from the local environment where only a
    /// name was given.
    pub envs: Vec<(String, String)>,
    /// Names given by `--secret` / `--secret-file` (their values stay in the edge).
    pub secret_names: Vec<String>,
    /// `--workdir`.
    pub workdir: Option<String>,
    /// `--git-url`.
    pub git_url: Option<String>,
    /// `--git-ref`.
    pub git_ref: Option<String>,
    /// `--config` as a document (the dot-list or the file), also carried on
    /// each resource as SkyPilot's `_cluster_config_overrides`.
    pub config: Option<Mapping>,
    /// Flags that matter only when provisioning.
    pub provision: ProvisionFlags,
}

/// The `sky launch` flags that only matter when a cluster is provisioned
/// (`sky/client/cli/command.py::launch`): accepted and validated as
/// SkyPilot does, reported in the `-o json` plan, never acted on.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct ProvisionFlags {
    /// `-d/--detach-run`.
    pub detach_run: bool,
    /// The backend (`cloudvmray`, or `docker` from the hidden `--docker`).
    pub backend: Option<String>,
    /// `-i/--idle-minutes-to-autostop`.
    pub idle_minutes_to_autostop: Option<i64>,
    /// `--wait-for`.
    pub wait_for: Option<String>,
    /// `--down`.
    pub down: bool,
    /// `-r/--retry-until-up`.
    pub retry_until_up: bool,
    /// `--no-setup`.
    pub no_setup: bool,
    /// `--clone-disk-from`.
    pub clone_disk_from: Option<String>,
    /// `--fast`.
    pub fast: bool,
    /// `--resize`.
    pub resize: bool,
    /// `--async`.
    pub async_call: bool,
}

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

/// SkyPilot's schema error for an unknown key, with its did-you-mean.
fn unknown_field(what: &str, key: &str, known: &[&str]) -> RequestError {
    let close = crate::pytext::close_matches(key, known.iter().copied(), 1, 0.6);
    let message = match close.first() {
        Some(k) => format!(
            "Invalid {what} YAML: Instead of {}, did you mean {}?",
            py_str_repr(key),
            py_str_repr(k)
        ),
        None => format!(
            "Invalid {what} YAML: Additional properties are not allowed ({} was unexpected). Known fields: {}.",
            py_str_repr(key),
            known.join(", ")
        ),
    };
    RequestError::new(crate::resources::ErrorKind::InvalidConfig, message)
}

fn value_text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::Bool(b) => Some(if *b { "True".into() } else { "False".into() }),
        Value::Number(n) => Some(if let Some(i) = n.as_i64() {
            i.to_string()
        } else {
            crate::pytext::py_float_str(n.as_f64().unwrap_or(f64::NAN))
        }),
        Value::String(s) => Some(s.clone()),
        // Python's repr, never Rust's debug text (`Sequence [...]`): the
        // schema checks reject these forms where a scalar belongs, so this
        // only shows up inside messages.
        other => Some(crate::schema::py_value_repr(other)),
    }
}

/// A mapping key as text (a path segment in schema messages).
pub(crate) fn key_text(k: &Value) -> String {
    value_text(k).unwrap_or_default()
}

/// Parses a task YAML (one or more `---`-separated documents). `source` names the file in errors.
pub fn parse_task_yaml(
    text: &str,
    source: &str,
    metadata: &[GpuMetadata],
) -> Result<Dag, RequestError> {
    parse_task_yaml_with(text, source, metadata, &[])
}

/// [`parse_task_yaml`] with the `--env` overrides SkyPilot applies while it
/// loads each task (`Task.from_yaml_config(env_overrides=...)`), before it
/// rejects an `envs:` entry without a value.
pub fn parse_task_yaml_with(
    text: &str,
    source: &str,
    metadata: &[GpuMetadata],
    env_overrides: &[(String, String)],
) -> Result<Dag, RequestError> {
    // Checked before the YAML parser runs: its scanner slows down faster
    // than linearly on deep nesting before its own recursion limit stops it.
    if let Some(line) = crate::schema::depth_exceeds(text, crate::schema::MAX_YAML_DEPTH) {
        return Err(RequestError::value(format!(
            "Invalid YAML in {source}: nested deeper than {} levels at line {line}.",
            crate::schema::MAX_YAML_DEPTH
        )));
    }
    let mut tasks = Vec::new();
    let mut all_empty = true;
    for doc in serde_yaml_ng::Deserializer::from_str(text) {
        if tasks.len() == crate::schema::MAX_TASKS {
            return Err(RequestError::value(format!(
                "Invalid task YAML {source}: more than {} tasks in one file.",
                crate::schema::MAX_TASKS
            )));
        }
        let value = <Value as serde::Deserialize>::deserialize(doc)
            .map_err(|e| RequestError::value(format!("Invalid YAML in {source}: {e}")))?;
        crate::schema::reject_tags(&value, source)?;
        if !value.is_null() {
            all_empty = false;
        }
        let map = match value {
            Value::Null => Mapping::new(),
            Value::Mapping(m) => m,
            other => {
                return Err(RequestError::value(format!(
                    "Invalid task YAML {source}: expected a mapping at the top level, found {}.",
                    kind_name(&other)
                )));
            }
        };
        tasks.push(task_from_mapping(&map, source, metadata, env_overrides)?);
    }
    if tasks.is_empty() || all_empty {
        return Err(RequestError::value(format!(
            "{} is empty or contains no task definition. Add at least a `run:` (or `setup:`) field.",
            py_str_repr(source)
        )));
    }
    Ok(Dag { tasks })
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}

/// The task schema's error for a value of the wrong type at `$.<path>`.
fn schema_type_error(shown: &str, ty: &str, path: &str) -> RequestError {
    RequestError::new(
        crate::resources::ErrorKind::InvalidConfig,
        format!(
            "Invalid task YAML: {shown} is not of type {}. Check problematic field(s): $.{path}",
            py_str_repr(ty)
        ),
    )
}

/// The resources schema's error for a value of the wrong type at `$.<path>`
/// (`Resources.from_yaml_config` validates the `resources:` block on its own).
fn resources_schema_error(message: String, path: &str) -> RequestError {
    RequestError::new(
        crate::resources::ErrorKind::InvalidConfig,
        format!("Invalid resources YAML: {message}. Check problematic field(s): $.{path}"),
    )
}

fn resources_type_error(v: &Value, ty: &str, path: &str) -> RequestError {
    resources_schema_error(
        format!("{} is not of type {}", value_repr(v), py_str_repr(ty)),
        path,
    )
}

/// Python's `repr` of a YAML value, as jsonschema quotes it in messages.
fn value_repr(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::String(s) => py_str_repr(s),
        Value::Sequence(items) => format!(
            "[{}]",
            items.iter().map(value_repr).collect::<Vec<_>>().join(", ")
        ),
        Value::Mapping(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", value_repr(k), value_repr(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => value_text(other).unwrap_or_default(),
    }
}

/// `envs:` as the schema and `Task.from_yaml_config` check it: names match
/// `^[a-zA-Z_][a-zA-Z0-9_]*$`; `--env` overrides are applied; a name still
/// without a value is an error.
fn parse_envs(
    value: Option<&Value>,
    overrides: &[(String, String)],
) -> Result<Vec<(String, String)>, RequestError> {
    let mut envs: Vec<(String, Option<String>)> = Vec::new();
    match value {
        None | Some(Value::Null) => {}
        Some(Value::Mapping(m)) => {
            for (k, v) in m {
                let key = value_text(k).unwrap_or_default();
                let valid_name = key
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !valid_name {
                    return Err(RequestError::new(
                        crate::resources::ErrorKind::InvalidConfig,
                        format!(
                            "Invalid task YAML: The `envs` field contains invalid keys:\n{} does not match any of the regexes: '^[a-zA-Z_][a-zA-Z0-9_]*$'",
                            py_str_repr(&key)
                        ),
                    ));
                }
                let v = match v {
                    Value::Null => None,
                    Value::Sequence(_) | Value::Mapping(_) => {
                        return Err(schema_type_error(
                            &value_repr(v),
                            "string",
                            &format!("envs.{key}"),
                        ));
                    }
                    other => value_text(other),
                };
                envs.push((key, v));
            }
        }
        Some(other) => return Err(schema_type_error(&value_repr(other), "object", "envs")),
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
fn parse_secret_names(value: Option<&Value>) -> Result<Vec<String>, RequestError> {
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
        Some(other) => Err(schema_type_error(&value_repr(other), "object", "secrets")),
    }
}

/// Task `volumes:` (`Task.resolve_and_validate_volumes`, the parts that need
/// no volume record): mount path to a volume name, an ephemeral volume
/// (`size`), an external one (`name`), or a Slurm `host_path`.
fn parse_task_volumes(value: Option<&Value>) -> Result<Vec<TaskVolume>, RequestError> {
    let Some(Value::Mapping(m)) = value.filter(|v| !v.is_null()) else {
        return match value.filter(|v| !v.is_null()) {
            None => Ok(Vec::new()),
            Some(other) => Err(schema_type_error(&value_repr(other), "object", "volumes")),
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

/// A task's `config:` block (`Task.from_yaml_config`: `hooks` taken out,
/// the rest kept as the resources' `_cluster_config_overrides`), its
/// sections checked against the config schema; `None` when empty.
pub fn parse_task_config(value: Option<&Value>) -> Result<Option<Mapping>, RequestError> {
    let mut map = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Mapping(m)) => m.clone(),
        Some(other) => return Err(schema_type_error(&value_repr(other), "object", "config")),
    };
    map.remove("hooks");
    crate::config::check_sections(&map).map_err(|message| {
        RequestError::new(
            crate::resources::ErrorKind::InvalidConfig,
            format!("Invalid task YAML: {message}. Check problematic field(s): $.config"),
        )
    })?;
    check_overrideable_fields(&map)?;
    Ok((!map.is_empty()).then_some(map))
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
                crate::resources::ErrorKind::InvalidConfig,
                format!("Invalid task YAML: {}", messages.join(" ")),
            ));
        }
    }
    Ok(())
}

fn task_from_mapping(
    map: &Mapping,
    source: &str,
    metadata: &[GpuMetadata],
    env_overrides: &[(String, String)],
) -> Result<Task, RequestError> {
    for k in map.keys() {
        let key = value_text(k).unwrap_or_default();
        if !TASK_KEYS.contains(&key.as_str()) {
            return Err(unknown_field("task", &key, TASK_KEYS));
        }
    }
    crate::schema::check_task(map)?;
    let name = map.get("name").and_then(value_text);
    let num_nodes = match map.get("num_nodes") {
        None | Some(Value::Null) => 1,
        Some(v) => parse_num_nodes(v)?,
    };
    let envs = parse_envs(map.get("envs"), env_overrides)?;
    let secret_names = parse_secret_names(map.get("secrets"))?;
    let config = parse_task_config(map.get("config"))?;
    let mut resources = match map.get("resources") {
        None | Some(Value::Null) => ResourceSet::AnyOf(vec![Resources::default()]),
        Some(Value::Mapping(m)) => resource_set_from_mapping(m, metadata)?,
        Some(other) => {
            return Err(RequestError::value(format!(
                "Invalid task YAML {source}: \"resources\" must be a mapping, found {}.",
                kind_name(other)
            )));
        }
    };
    if let Some(cfg) = &config {
        for r in resources.all_mut() {
            r.config_overrides = Some(cfg.clone());
        }
    }
    let workdir = match map.get("workdir") {
        None | Some(Value::Null) => None,
        Some(Value::Mapping(m)) => Some(Workdir::Git {
            url: m.get("url").and_then(value_text).unwrap_or_default(),
            reference: m.get("ref").and_then(value_text),
        }),
        Some(other) => value_text(other).map(|path| Workdir::Local { path }),
    };
    let service = match (map.get("service"), map.get("pool")) {
        (Some(s), Some(p)) if !s.is_null() && !p.is_null() => {
            return Err(RequestError::value(
                "Cannot set both service and pool in the same task.",
            ));
        }
        (Some(s), _) if !s.is_null() => Some(
            if s.get("pool")
                .is_some_and(|p| !p.is_null() && p != &Value::Bool(false))
            {
                ServiceKind::Pool
            } else {
                ServiceKind::Service
            },
        ),
        (_, Some(p)) if !p.is_null() => Some(ServiceKind::Pool),
        _ => None,
    };
    let run = map.get("run").and_then(value_text);
    Ok(Task {
        name,
        num_nodes,
        resources,
        run,
        spec: TaskSpec {
            envs,
            secret_names,
            workdir,
            setup: map.get("setup").and_then(value_text),
            service,
            volumes: parse_task_volumes(map.get("volumes"))?,
        },
    })
}

fn parse_num_nodes(v: &Value) -> Result<u32, RequestError> {
    let shown = value_text(v).unwrap_or_default();
    let bad = || RequestError::value(format!("num_nodes should be a positive int. Got: {shown}"));
    // The task schema rejects non-integers before SkyPilot's own check.
    let schema = |shown: String| {
        RequestError::new(
            crate::resources::ErrorKind::InvalidConfig,
            format!(
                "Invalid task YAML: {shown} is not of type 'integer'. Check problematic field(s): $.num_nodes"
            ),
        )
    };
    match v {
        Value::Number(n) => match n.as_i64() {
            Some(i) if i > 0 && i <= u32::MAX as i64 => Ok(i as u32),
            Some(_) => Err(bad()),
            // 1.0 passes the schema (an integral float) and fails SkyPilot's check.
            None if n.as_f64().is_some_and(|f| f.fract() == 0.0) => Err(bad()),
            None => Err(schema(shown.clone())),
        },
        _ => Err(schema(py_str_repr(&shown))),
    }
}

/// Expands memory-based GPU specs (`32GB+`, `nvidia:16GB`, `32GB:2`) through `common/metadata.csv`.
/// Returns `(accelerator string, user_specified)` pairs.
fn expand_accelerator_str(
    spec: &str,
    metadata: &[GpuMetadata],
) -> Result<Vec<(String, bool)>, RequestError> {
    // By suffix, not by byte offset: `s[..len - 2]` would cut a multi-byte
    // character (`😀`, a full-width digit) in two.
    let is_mem = |s: &str| {
        let s = s.strip_suffix('+').unwrap_or(s).to_ascii_lowercase();
        ["gb", "mb", "tb"].iter().any(|unit| {
            s.strip_suffix(unit)
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
    };
    let split: Vec<&str> = spec.split(':').collect();
    let (manufacturer, memory, count) = match split.as_slice() {
        [m, mem, c] if is_mem(mem) => (Some(*m), *mem, *c),
        [mem, c] if is_mem(mem) => (None, *mem, *c),
        [m, mem] if is_mem(mem) => (Some(*m), *mem, "1"),
        [mem] if is_mem(mem) => (None, *mem, "1"),
        _ => return Ok(vec![(spec.to_string(), true)]),
    };
    let count: u32 = count.trim().parse().map_err(|_| {
        RequestError::value(format!(
            "Invalid accelerator count in {}.",
            py_str_repr(spec)
        ))
    })?;
    let parsed = resources::parse_memory(memory).map_err(|_| {
        RequestError::value(format!(
            "\"accelerators\" field should be a number (e.g. \"16\") or \"<number><unit>\" where unit is one of KB/MB/GB/TB/PB (e.g. \"16GB\") or \"<number>+\" for \"at least\". Got: {}",
            py_str_repr(memory)
        ))
    })?;
    let plus = parsed.ends_with('+');
    let gb: f64 = parsed.trim_end_matches('+').parse().unwrap_or(0.0);
    let gb = gb.trunc();
    Ok(metadata
        .iter()
        .filter(|m| {
            if plus {
                m.memory_gb >= gb
            } else {
                m.memory_gb == gb
            }
        })
        .filter(|m| manufacturer.is_none_or(|man| m.manufacturer.eq_ignore_ascii_case(man)))
        .map(|m| (format!("{}:{count}", m.gpu), false))
        .collect())
}

/// Parses a `resources:` mapping (with `any_of`/`ordered` and multi-accelerator forms).
pub fn resource_set_from_mapping(
    map: &Mapping,
    metadata: &[GpuMetadata],
) -> Result<ResourceSet, RequestError> {
    for k in map.keys() {
        let key = value_text(k).unwrap_or_default();
        if !RESOURCE_KEYS.contains(&key.as_str()) {
            return Err(unknown_field("resources", &key, RESOURCE_KEYS));
        }
    }
    crate::schema::check_resources(map)?;
    let mut base = map.clone();
    if base.contains_key("gpus") {
        if base.contains_key("accelerators") {
            return Err(RequestError::value(
                "Cannot specify both gpus and accelerators in config.",
            ));
        }
        let v = base.remove("gpus").unwrap_or(Value::Null);
        base.insert(Value::from("accelerators"), v);
    }
    let any_of = base.remove("any_of");
    let ordered = base.remove("ordered");
    if any_of.is_some() && ordered.is_some() {
        return Err(RequestError::value(
            "Cannot specify both \"any_of\" and \"ordered\" in resources.",
        ));
    }
    let accelerators = base.get("accelerators").cloned();
    let mut accel_list: Option<(Vec<(String, bool)>, bool)> = None; // (entries, is_list)
    if let Some(acc) = accelerators.filter(|v| !v.is_null()) {
        let mut entries: Vec<(String, bool)> = Vec::new();
        let mut push_all = |spec: &str| -> Result<(), RequestError> {
            for (a, user) in expand_accelerator_str(spec, metadata)? {
                match entries.iter_mut().find(|(x, _)| *x == a) {
                    Some((_, u)) => *u = *u || user,
                    None => entries.push((a, user)),
                }
            }
            Ok(())
        };
        let is_list = matches!(acc, Value::Sequence(_));
        match &acc {
            Value::String(s) => push_all(s)?,
            Value::Mapping(m) => {
                for (k, v) in m {
                    let k = value_text(k).unwrap_or_default();
                    match value_text(v) {
                        Some(c) => push_all(&format!("{k}:{c}"))?,
                        None => push_all(&k)?,
                    }
                }
            }
            Value::Sequence(items) => {
                for item in items {
                    push_all(&value_text(item).unwrap_or_default())?;
                }
            }
            other => push_all(&value_text(other).unwrap_or_default())?,
        }
        if entries.len() > 1 && ordered.is_some() {
            return Err(RequestError::value(
                "Cannot specify multiple \"accelerators\" with \"ordered\" in resources.",
            ));
        }
        if entries.len() > 1 && any_of.is_some() && is_list {
            return Err(RequestError::value(
                "Cannot specify multiple \"accelerators\" with preferred order (i.e., list of accelerators) with \"any_of\" in resources.",
            ));
        }
        accel_list = Some((entries, is_list));
    }
    let alternatives =
        |v: Option<Value>, what: &str| -> Result<Option<Vec<Resources>>, RequestError> {
            let Some(v) = v else { return Ok(None) };
            let Value::Sequence(items) = v else {
                return Err(RequestError::value(format!(
                    "\"{what}\" must be a list of resource mappings."
                )));
            };
            let mut out = Vec::new();
            for item in items {
                let mut merged = base.clone();
                if let Value::Mapping(m) = item {
                    for (k, v) in m {
                        if value_text(&k).as_deref() == Some("gpus") {
                            merged.insert(Value::from("accelerators"), v);
                        } else {
                            merged.insert(k, v);
                        }
                    }
                }
                out.push(single_from_mapping(&merged)?);
            }
            Ok(Some(out))
        };
    if let Some(list) = alternatives(any_of, "any_of")? {
        return Ok(ResourceSet::AnyOf(list));
    }
    if let Some(list) = alternatives(ordered, "ordered")? {
        return Ok(ResourceSet::Ordered(list));
    }
    if let Some((entries, is_list)) = accel_list {
        let mut out = Vec::new();
        for (acc, user) in entries {
            let mut m = base.clone();
            m.insert(Value::from("accelerators"), Value::from(acc));
            let mut r = single_from_mapping(&m)?;
            r.no_missing_accel_warnings = !user;
            out.push(r);
        }
        if out.is_empty() {
            // A memory spec that matched no GPU: nothing to try.
            return Ok(ResourceSet::AnyOf(Vec::new()));
        }
        return Ok(if is_list {
            ResourceSet::Ordered(out)
        } else {
            ResourceSet::AnyOf(out)
        });
    }
    Ok(ResourceSet::AnyOf(vec![single_from_mapping(&base)?]))
}

fn single_from_mapping(map: &Mapping) -> Result<Resources, RequestError> {
    let mut r = Resources::default();
    let get = |k: &str| map.get(k).filter(|v| !v.is_null());
    let text = |k: &str| get(k).and_then(value_text);
    let infra = text("infra");
    let (cloud, region, zone) = (text("cloud"), text("region"), text("zone"));
    if let Some(i) = &infra {
        if cloud.is_some() || region.is_some() || zone.is_some() {
            return Err(RequestError::value(format!(
                "Cannot specify both `infra` and `cloud`, `region`, or `zone` parameters. Got: infra={i}, cloud={}, region={}, zone={}",
                cloud.as_deref().unwrap_or("None"),
                region.as_deref().unwrap_or("None"),
                zone.as_deref().unwrap_or("None")
            )));
        }
        let parsed = parse_infra(i)?;
        r.cloud = parsed.cloud;
        r.region = parsed.region;
        r.zone = parsed.zone;
    } else {
        if let Some(c) = &cloud {
            r.cloud = Some(
                c.parse()
                    .map_err(|e: crate::cloud::UnknownCloud| RequestError::value(e.to_string()))?,
            );
        }
        r.region = region;
        r.zone = zone;
    }
    r.instance_type = text("instance_type");
    if let Some(v) = get("cpus") {
        r.cpus = Some(match v {
            Value::Number(n) => {
                resources::cpus_from_number(n.as_f64().unwrap_or(0.0), n.is_i64() || n.is_u64())?
            }
            other => resources::parse_cpus(&value_text(other).unwrap_or_default())?,
        });
    }
    if let Some(v) = get("memory") {
        r.memory = Some(resources::parse_memory(&value_text(v).unwrap_or_default())?);
    }
    if let Some(v) = get("accelerators") {
        r.accelerator = Some(match v {
            Value::Mapping(m) if m.len() == 1 => {
                let null = Value::Null;
                let (k, c) = m
                    .iter()
                    .next()
                    .map(|(k, c)| (value_text(k).unwrap_or_default(), c))
                    .unwrap_or((String::new(), &null));
                match c {
                    Value::Number(n) => {
                        let count = n.as_f64().unwrap_or(0.0);
                        check_acc_count(&k, count, &value_text(c).unwrap_or_default())?;
                        Accelerator {
                            name: k,
                            count: resources::AccCount(count),
                        }
                    }
                    Value::Null => Accelerator {
                        name: k,
                        count: resources::AccCount(1.0),
                    },
                    other => parse_accelerator(&format!(
                        "{k}:{}",
                        value_text(other).unwrap_or_default()
                    ))?,
                }
            }
            other => parse_accelerator(&value_text(other).unwrap_or_default())?,
        });
    }
    if let Some(Value::Mapping(args)) = get("accelerator_args") {
        let mut shown = Vec::new();
        for (k, v) in args {
            let key = value_text(k).unwrap_or_default();
            if key == "tpu_vm"
                && let Value::Bool(b) = v
            {
                r.tpu_vm = *b;
            }
            let repr = match v {
                Value::String(s) => py_str_repr(s),
                other => value_text(other).unwrap_or_else(|| "None".into()),
            };
            shown.push((key, repr));
        }
        r.accelerator_args = Some(shown);
    }
    if let Some(v) = get("use_spot") {
        r.use_spot = matches!(v, Value::Bool(true));
        r.use_spot_specified = true;
    }
    if let Some(v) = get("disk_size") {
        let size = v.as_i64().filter(|s| *s > 0).ok_or_else(|| {
            RequestError::value(format!(
                "\"disk_size\" must be a positive integer (in GB). Got: {}.",
                value_text(v).unwrap_or_default()
            ))
        })?;
        r.disk_size = size as u64;
    }
    if let Some(v) = text("disk_tier") {
        r.disk_tier = Some(DiskTier::parse(&v)?);
    }
    if let Some(v) = get("image_id") {
        r.image = match v {
            Value::Mapping(m) => ImageSpec::from_pairs(
                r.region.as_deref(),
                m.iter()
                    .map(|(k, v)| (value_text(k), value_text(v).unwrap_or_default()))
                    .collect(),
            )?,
            other => Some(ImageSpec::single(
                r.region.as_deref(),
                &value_text(other).unwrap_or_default(),
            )),
        };
    }
    if let Some(v) = text("network_tier") {
        r.network_tier = Some(NetworkTier::parse(&v)?);
    }
    if let Some(v) = text("local_disk") {
        r.local_disk = Some(normalize_local_disk(&v)?);
    }
    if let Some(v) = get("max_hourly_cost") {
        let c = match v {
            Value::Number(n) => n.as_f64().unwrap_or(0.0),
            other => {
                return Err(resources_type_error(other, "number", "max_hourly_cost"));
            }
        };
        if c <= 0.0 {
            return Err(RequestError::value(format!(
                "max_hourly_cost must be a positive number, got {}",
                value_text(v).unwrap_or_default()
            )));
        }
        r.max_hourly_cost = Some(c);
    }
    if let Some(v) = get("ports") {
        let given: Vec<String> = match v {
            Value::Sequence(items) => items.iter().filter_map(value_text).collect(),
            other => vec![value_text(other).unwrap_or_default()],
        };
        r.ports = resources::parse_ports(&given)?;
    }
    if let Some(v) = get("labels") {
        let Value::Mapping(m) = v else {
            return Err(resources_type_error(v, "object", "labels"));
        };
        let mut labels = Vec::new();
        for (k, val) in m {
            let key = value_text(k).unwrap_or_default();
            match val {
                Value::String(s) => labels.push((key, s.clone())),
                other => {
                    return Err(resources_type_error(
                        other,
                        "string",
                        &format!("labels.{key}"),
                    ));
                }
            }
        }
        r.labels = (!labels.is_empty()).then_some(labels);
    }
    if let Some(v) = get("priority") {
        let p = match v {
            Value::Number(n) if n.as_i64().is_some() => n.as_i64().unwrap_or_default(),
            other => {
                return Err(resources_type_error(other, "integer", "priority"));
            }
        };
        if !PRIORITY_RANGE.contains(&p) {
            let bound = if p < *PRIORITY_RANGE.start() {
                format!("less than the minimum of {}", PRIORITY_RANGE.start())
            } else {
                format!("greater than the maximum of {}", PRIORITY_RANGE.end())
            };
            return Err(resources_schema_error(
                format!("{p} is {bound}"),
                "priority",
            ));
        }
        r.priority = Some(Priority::Value(p));
    }
    if let Some(v) = text("priority_class")
        && r.priority.is_none()
    {
        let v = v.trim();
        r.priority = (!v.is_empty()).then(|| Priority::Class(v.to_string()));
    }
    if let Some(v) = get("job_recovery") {
        let strategy = match v {
            Value::Mapping(m) => m.get("strategy").and_then(value_text),
            other => value_text(other),
        };
        // `strategy: none` turns recovery off; a missing strategy still
        // counts as "job_recovery specified" (the default strategy).
        r.job_recovery = match strategy {
            Some(s) if s == "none" => None,
            Some(s) => Some(s.to_uppercase()),
            None => Some(String::new()),
        };
    }
    Ok(r)
}

/// The client → server round trip of SSH resources: the DAG travels as YAML
/// (`Resources.to_yaml_config` writes `infra` with `InfraInfo.to_str`, which
/// drops the `ssh-` prefix and joins region and zone; the server parses it
/// back with `InfraInfo.from_str`, whose SSH branch reads everything after
/// `ssh/` as the pool). So `cloud: ssh, region: lab` becomes the context
/// `ssh-lab`, and a zone becomes part of the pool name (`ssh-*/rack-1`).
pub fn ssh_infra_round_trip(dag: &mut Dag) {
    for task in &mut dag.tasks {
        for r in task.resources.all_mut() {
            if r.cloud != Some(crate::cloud::CloudId::Ssh) {
                continue;
            }
            let region = r
                .region
                .as_deref()
                .map(|reg| reg.strip_prefix("ssh-").unwrap_or(reg));
            let mut parts = vec![region.unwrap_or("*"), r.zone.as_deref().unwrap_or("*")];
            while parts.last() == Some(&"*") {
                parts.pop();
            }
            r.region = (!parts.is_empty()).then(|| format!("ssh-{}", parts.join("/")));
            r.zone = None;
        }
    }
}

/// What SkyPilot's CLI says while it builds the task, before the request
/// reaches the optimizer (`_make_task_or_dag_from_entrypoint_with_overrides`
/// and `launch` in `sky/client/cli/command.py`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientNotice {
    /// A multi-task YAML ignores the resource flags; the text is SkyPilot's
    /// Python repr of the ignored `override_params`.
    OverridesIgnored(String),
    /// `sky launch` ignores a `service:` (or `pool:`) section.
    ServiceIgnored(ServiceKind),
}

/// Applies CLI overrides to every resource of every task (SkyPilot's
/// `Resources.copy(**overrides)`) as `sky launch` does, and returns what
/// its CLI prints meanwhile: a multi-task YAML keeps its resources (the flags
/// are ignored with a warning), only `--env`, `--secret` and `--workdir`
/// reach its tasks.
pub fn apply_cli_overrides(
    dag: &mut Dag,
    o: &Overrides,
    metadata: &[GpuMetadata],
) -> Result<Vec<ClientNotice>, RequestError> {
    if o.infra.is_some() && (o.cloud.is_some() || o.region.is_some() || o.zone.is_some()) {
        return Err(RequestError::value(
            "Cannot specify both --infra and --cloud, --region, or --zone.",
        ));
    }
    if o.ports.len() > 1 && o.ports.iter().any(|p| p.eq_ignore_ascii_case("none")) {
        return Err(RequestError::value(
            "Cannot specify both \"none\" and other ports.",
        ));
    }
    let mut notices = Vec::new();
    for task in &mut dag.tasks {
        for (k, v) in &o.envs {
            match task.spec.envs.iter_mut().find(|(name, _)| name == k) {
                Some((_, slot)) => *slot = v.clone(),
                None => task.spec.envs.push((k.clone(), v.clone())),
            }
        }
        for name in &o.secret_names {
            if !task.spec.secret_names.contains(name) {
                task.spec.secret_names.push(name.clone());
            }
        }
        update_workdir(&mut task.spec, o);
    }
    if dag.tasks.len() > 1 {
        if let Some(params) = override_params_repr(o)? {
            notices.push(ClientNotice::OverridesIgnored(params));
        }
        return Ok(notices);
    }
    apply_overrides(dag, o, metadata)?;
    if let Some(kind) = dag.tasks.first().and_then(|t| t.spec.service) {
        notices.push(ClientNotice::ServiceIgnored(kind));
    }
    Ok(notices)
}

/// `Task.update_workdir`: `--workdir` replaces a local workdir, `--git-url`
/// and `--git-ref` make or update a git one.
fn update_workdir(spec: &mut TaskSpec, o: &Overrides) {
    match &mut spec.workdir {
        None | Some(Workdir::Local { .. }) => {
            if let Some(path) = &o.workdir {
                spec.workdir = Some(Workdir::Local { path: path.clone() });
            } else if let Some(url) = &o.git_url {
                spec.workdir = Some(Workdir::Git {
                    url: url.clone(),
                    reference: o.git_ref.clone(),
                });
            }
        }
        Some(Workdir::Git { url, reference }) => {
            if let Some(u) = &o.git_url {
                *url = u.clone();
            }
            if let Some(r) = &o.git_ref {
                *reference = Some(r.clone());
            }
        }
    }
}

/// SkyPilot's `override_params` dict (`_parse_override_params`), as Python
/// prints it, or `None` when no resource flag was given.
fn override_params_repr(o: &Overrides) -> Result<Option<String>, RequestError> {
    let is_none = |s: &str| s.eq_ignore_ascii_case("none");
    let opt = |v: Option<&str>| v.map_or("None".to_string(), py_str_repr);
    let mut items: Vec<String> = Vec::new();
    // `--infra` becomes cloud/region/zone, `*` for the parts it leaves open.
    let (cloud, region, zone) = match &o.infra {
        Some(i) => {
            let parsed = parse_infra(i)?;
            (
                Some(
                    parsed
                        .cloud
                        .map_or("*".to_string(), |c| c.name().to_string()),
                ),
                Some(parsed.region.unwrap_or_else(|| "*".into())),
                Some(parsed.zone.unwrap_or_else(|| "*".into())),
            )
        }
        None => (o.cloud.clone(), o.region.clone(), o.zone.clone()),
    };
    if let Some(c) = cloud {
        let shown = if is_none(&c) || c == "*" {
            "None".to_string()
        } else {
            c.parse::<crate::cloud::CloudId>()
                .map_err(|e| RequestError::value(e.to_string()))?
                .repr()
                .to_string()
        };
        items.push(format!("'cloud': {shown}"));
    }
    for (key, v) in [("region", region), ("zone", zone)] {
        if let Some(v) = v {
            let shown = if is_none(&v) || v == "*" {
                "None".into()
            } else {
                py_str_repr(&v)
            };
            items.push(format!("'{key}': {shown}"));
        }
    }
    for (key, v) in [
        ("accelerators", &o.gpus),
        ("cpus", &o.cpus),
        ("memory", &o.memory),
        ("instance_type", &o.instance_type),
    ] {
        if let Some(v) = v {
            items.push(format!(
                "'{key}': {}",
                opt(Some(v.as_str()).filter(|v| !is_none(v)))
            ));
        }
    }
    if let Some(s) = o.use_spot {
        items.push(format!("'use_spot': {}", if s { "True" } else { "False" }));
    }
    if let Some(v) = &o.image_id {
        items.push(format!(
            "'image_id': {}",
            opt(Some(v.as_str()).filter(|v| !is_none(v)))
        ));
    }
    if let Some(d) = o.disk_size {
        items.push(format!("'disk_size': {d}"));
    }
    for (key, v) in [
        ("disk_tier", &o.disk_tier),
        ("network_tier", &o.network_tier),
        ("local_disk", &o.local_disk),
    ] {
        if let Some(v) = v {
            items.push(format!(
                "'{key}': {}",
                opt(Some(v.as_str()).filter(|v| !is_none(v)))
            ));
        }
    }
    if !o.ports.is_empty() {
        if o.ports.iter().any(|p| is_none(p)) {
            items.push("'ports': None".into());
        } else {
            let ports: Vec<String> = o.ports.iter().map(|p| py_str_repr(p)).collect();
            let trailing = if ports.len() == 1 { "," } else { "" };
            items.push(format!("'ports': ({}{trailing})", ports.join(", ")));
        }
    }
    if let Some(p) = &o.priority {
        let p = p.trim();
        let (value, class) = if is_none(p) || p.is_empty() {
            ("None".to_string(), "None".to_string())
        } else if let Ok(n) = p.parse::<i64>() {
            (n.to_string(), "None".to_string())
        } else {
            ("None".to_string(), py_str_repr(p))
        };
        items.push(format!("'priority': {value}"));
        items.push(format!("'priority_class': {class}"));
    }
    if let Some(cfg) = o.config.as_ref().filter(|c| !c.is_empty()) {
        items.push(format!(
            "'_cluster_config_overrides': {}",
            value_repr(&Value::Mapping(cfg.clone()))
        ));
    }
    Ok((!items.is_empty()).then(|| format!("{{{}}}", items.join(", "))))
}

/// Applies CLI overrides to every resource of every task (SkyPilot's
/// `Resources.copy(**overrides)`), whatever the number of tasks (the
/// optimizer benchmarks and the harness call it directly).
pub fn apply_overrides(
    dag: &mut Dag,
    o: &Overrides,
    metadata: &[GpuMetadata],
) -> Result<(), RequestError> {
    if o.infra.is_some() && (o.cloud.is_some() || o.region.is_some() || o.zone.is_some()) {
        return Err(RequestError::value(
            "Cannot specify both --infra and --cloud, --region, or --zone.",
        ));
    }
    let infra = match &o.infra {
        Some(i) => Some(parse_infra(i)?),
        None => None,
    };
    let is_none = |s: &Option<String>| s.as_deref().is_some_and(|v| v.eq_ignore_ascii_case("none"));
    let legacy_cloud = match o.cloud.as_deref() {
        Some(c) if !c.eq_ignore_ascii_case("none") => Some(
            c.parse::<crate::cloud::CloudId>()
                .map_err(|e| RequestError::value(e.to_string()))?,
        ),
        _ => None,
    };
    let cpus = match &o.cpus {
        Some(c) if !is_none(&o.cpus) => Some(resources::parse_cpus(c)?),
        _ => None,
    };
    let memory = match &o.memory {
        Some(m) if !is_none(&o.memory) => Some(resources::parse_memory(m)?),
        _ => None,
    };
    let disk_tier = match &o.disk_tier {
        Some(t) if !is_none(&o.disk_tier) => Some(DiskTier::parse(t)?),
        _ => None,
    };
    if let Some(size) = o.disk_size
        && size == 0
    {
        return Err(RequestError::value(
            "\"disk_size\" must be a positive integer (in GB). Got: 0.",
        ));
    }
    let network_tier = match &o.network_tier {
        Some(t) if !is_none(&o.network_tier) => Some(NetworkTier::parse(t)?),
        _ => None,
    };
    let local_disk = match &o.local_disk {
        Some(d) if !is_none(&o.local_disk) => Some(normalize_local_disk(d)?),
        _ => None,
    };
    let ports = if o.ports.is_empty() || o.ports.iter().any(|p| p.eq_ignore_ascii_case("none")) {
        None
    } else {
        resources::parse_ports(&o.ports)?
    };
    // `--priority`: an integer is a priority, anything else a class; both
    // are cleared first, and `none` (or nothing) leaves them cleared.
    let priority = match o.priority.as_deref().map(str::trim) {
        None => None,
        Some(p) if p.is_empty() || p.eq_ignore_ascii_case("none") => Some(None),
        Some(p) => Some(Some(match p.parse::<i64>() {
            Ok(n) => Priority::Value(check_priority(n)?),
            Err(_) => Priority::Class(p.to_string()),
        })),
    };
    let config = o
        .config
        .as_ref()
        .map(|c| crate::config::task_overrideable(c, TASK_CONFIG_KEYS));
    // --gpus goes through the config path so memory-based specs expand like in SkyPilot's server.
    let gpu_set = match &o.gpus {
        Some(g) if !is_none(&o.gpus) => {
            // The client builds a Resources first, which parses NAME[:COUNT] strictly.
            parse_accelerator(g)?;
            let mut m = Mapping::new();
            m.insert(Value::from("accelerators"), Value::from(g.clone()));
            Some(resource_set_from_mapping(&m, metadata)?)
        }
        _ => None,
    };
    for task in &mut dag.tasks {
        if let Some(n) = o.num_nodes {
            task.num_nodes = n;
        }
        if let Some(name) = &o.name {
            task.name = Some(name.clone());
        }
        if let Some(set) = &gpu_set {
            // Each existing resource is crossed with the requested accelerators.
            let mut expanded = Vec::new();
            for base in task.resources.all() {
                for g in set.all() {
                    let mut r = base.clone();
                    r.accelerator = g.accelerator.clone();
                    r.no_missing_accel_warnings = g.no_missing_accel_warnings;
                    expanded.push(r);
                }
            }
            task.resources = match set {
                ResourceSet::Ordered(_) => ResourceSet::Ordered(expanded),
                ResourceSet::AnyOf(_) => ResourceSet::AnyOf(expanded),
            };
        }
        for r in task.resources.all_mut() {
            if let Some(i) = &infra {
                r.cloud = i.cloud;
                r.region = i.region.clone();
                r.zone = i.zone.clone();
            }
            if o.cloud.is_some() {
                r.cloud = legacy_cloud;
            }
            if o.region.is_some() {
                r.region = o.region.clone().filter(|_| !is_none(&o.region));
            }
            if o.zone.is_some() {
                r.zone = o.zone.clone().filter(|_| !is_none(&o.zone));
            }
            if o.instance_type.is_some() {
                r.instance_type = o
                    .instance_type
                    .clone()
                    .filter(|_| !is_none(&o.instance_type));
            }
            if o.cpus.is_some() {
                r.cpus = cpus.clone();
            }
            if o.memory.is_some() {
                r.memory = memory.clone();
            }
            if let Some(s) = o.use_spot {
                r.use_spot = s;
                r.use_spot_specified = true;
            }
            if let Some(d) = o.disk_size {
                r.disk_size = d;
            }
            if o.disk_tier.is_some() {
                r.disk_tier = disk_tier;
            }
            if let Some(image) = &o.image_id {
                r.image =
                    (!is_none(&o.image_id)).then(|| ImageSpec::single(r.region.as_deref(), image));
            }
            if o.network_tier.is_some() {
                r.network_tier = network_tier;
            }
            if o.local_disk.is_some() {
                r.local_disk = local_disk.clone();
            }
            if !o.ports.is_empty() {
                r.ports = ports.clone();
            }
            if let Some(p) = &priority {
                r.priority = p.clone();
            }
            if let Some(cfg) = &config {
                r.config_overrides =
                    crate::config::overlay_task_config(r.config_overrides.as_ref(), cfg);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod ssh_round_trip_tests {
    use super::*;
    use crate::cloud::CloudId;

    #[test]
    fn ssh_resources_survive_the_yaml_round_trip_as_skypilot_s_do() {
        type Case = (
            Option<CloudId>,
            Option<&'static str>,
            Option<&'static str>,
            Option<&'static str>,
            Option<&'static str>,
        );
        let cases: [Case; 6] = [
            (Some(CloudId::Ssh), Some("lab"), None, Some("ssh-lab"), None),
            (
                Some(CloudId::Ssh),
                Some("ssh-lab"),
                None,
                Some("ssh-lab"),
                None,
            ),
            (
                Some(CloudId::Ssh),
                None,
                Some("rack-1"),
                Some("ssh-*/rack-1"),
                None,
            ),
            (Some(CloudId::Ssh), Some("ssh-*"), None, None, None),
            (Some(CloudId::Ssh), None, None, None, None),
            // Other clouds are left alone.
            (
                Some(CloudId::Aws),
                Some("us-east-1"),
                Some("us-east-1a"),
                Some("us-east-1"),
                Some("us-east-1a"),
            ),
        ];
        for (cloud, region, zone, want_region, want_zone) in cases {
            let mut dag = Dag {
                tasks: vec![Task {
                    resources: ResourceSet::AnyOf(vec![Resources {
                        cloud,
                        region: region.map(str::to_string),
                        zone: zone.map(str::to_string),
                        ..Resources::default()
                    }]),
                    ..Task::default()
                }],
            };
            ssh_infra_round_trip(&mut dag);
            let r = &dag.tasks[0].resources.all()[0];
            assert_eq!(
                (r.region.as_deref(), r.zone.as_deref()),
                (want_region, want_zone),
                "{cloud:?} {region:?} {zone:?}"
            );
        }
    }
}
