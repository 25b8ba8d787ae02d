//! Tasks and DAGs as SkyPilot parses them from YAML and CLI flags
//! (`sky/task.py::Task.from_yaml_config`, `sky/utils/schemas.py`,
//! `sky/client/cli/command.py::_make_task_or_dag_from_entrypoint_with_overrides`).
//!
//! * `types.rs`: a task, its resources and a chain of tasks;
//! * `yaml.rs`: a task file → a [`Dag`], one task per document, each
//!   checked against the schema ([`crate::schema`]) first;
//! * `resource_set.rs`: the `resources:` section → a [`ResourceSet`];
//! * `env_vars.rs`: `$VAR`s of the envs filled into the sections SkyPilot fills;
//! * `file_mounts.rs`: copy mounts, storages (their schema) and volume copies;
//! * `local_paths.rs`: the client's checks of a task's local workdir and
//!   mount sources, over a [`LocalPaths`] the edge implements;
//! * `sections.rs`: the `envs`, `secrets`, `volumes` and `config` sections;
//! * `overrides.rs`: `sky launch`'s flags over a parsed DAG, and
//!   `notices.rs`: what its CLI says meanwhile, as data ([`ClientNotice`];
//!   `crate::render` words it);
//! * `round_trip.rs`: what SkyPilot's client → server YAML round trip changes.

mod env_vars;
mod file_mounts;
mod local_paths;
mod notices;
mod overrides;
mod resource_set;
mod round_trip;
mod sections;
mod types;
mod yaml;

pub use local_paths::{LocalPaths, check_local_paths, is_cloud_store_url};
pub use notices::{ClientNotice, OverrideParams, ParamValue};
pub use overrides::{Overrides, ProvisionFlags, apply_cli_overrides, apply_overrides};
pub use resource_set::resource_set_from_mapping;
pub use round_trip::ssh_infra_round_trip;
pub use sections::parse_task_config;
pub use types::{
    Dag, DataSize, ResourceSet, ServiceKind, Task, TaskSpec, TaskVolume, VolumeSource, Workdir,
};
pub use yaml::{parse_task_yaml, parse_task_yaml_with};

pub use crate::schema::config::TASK_CONFIG_KEYS;
