//! What a task is once parsed: its resources, the fields that matter only
//! when it runs, and a chain of tasks (`sky/task.py::Task`, `sky/dag.py`).

use crate::resources::Resources;

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

    /// All entries, taken out of the set.
    pub fn into_all(self) -> Vec<Resources> {
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
    /// The copy mounts of `file_mounts:`, `(target, source)` as written
    /// (after `$VAR` substitution), in YAML order: what the client checks
    /// exists locally before launching.
    pub file_mounts: Vec<(String, String)>,
    /// A `service:` or `pool:` section, which `sky launch` ignores (with a
    /// notice).
    pub service: Option<ServiceKind>,
    /// Task `volumes:`, by mount path.
    pub volumes: Vec<TaskVolume>,
    /// `inputs:` — where the task's input data lives and its estimated
    /// size (SkyPilot's experimental egress planning).
    pub inputs: Option<DataSize>,
    /// `outputs:` — the task's output data and its estimated size.
    pub outputs: Option<DataSize>,
}

/// One `inputs:`/`outputs:` entry (`Task.set_inputs` / `set_outputs`): a
/// path and its estimated size in gigabytes, which the optimizer charges
/// as egress between clouds (`sky/optimizer.py::_egress_cost`).
#[derive(Debug, Clone, PartialEq)]
pub struct DataSize {
    /// The path as written (`gs://bucket/dir`, `s3://…`, or a name).
    pub path: String,
    /// The estimated size (GB).
    pub gigabytes: f64,
    /// The size as Python prints the YAML number (`70`, `0.1`).
    pub shown: String,
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
