//! A plan → the task SkyPilot provisions: the same task with its resources
//! pinned to the rows `sky` showed.
//!
//! A confirmed `sky launch` hands the task to SkyPilot's own `sky launch`
//! (the binary's `commands::handoff`). SkyPilot runs its optimizer again on
//! what it is given, so the task carries the plan as SkyPilot's `ordered:`
//! resources list: the chosen row first, then the other rows of the table
//! in the order shown, at most [`MAX_PINNED`] — each pinned by `infra`
//! (cloud/region[/zone]), `instance_type`, `accelerators` and `use_spot`.
//! SkyPilot tries an `ordered` list entry by entry and takes the first that
//! has a launchable (`sky/optimizer.py::Optimizer._optimize_dag`, the
//! `has_resources_ordered` branch), and a pinned entry has exactly one: the
//! row shown. When provisioning that row fails, SkyPilot blocks it and
//! re-optimizes, landing on the next entry — the fail-over follows the
//! table.
//!
//! Everything else in the task file is kept as written (envs, secrets,
//! setup, run, file mounts, the resource fields that are not pins: disk,
//! ports, images, labels, `cpus`/`memory`, ...). Pure: text and plan in,
//! text out.

use serde_yaml_ng::{Mapping, Value};

use crate::cloud::CloudId;
use crate::launch::TaskSource;
use crate::optimize::{Considered, Plan, TaskPlan};

/// How many rows a task's `ordered:` list holds at most: the chosen row and
/// up to four fall-backs, in the table's order. Each entry is one more
/// launchable SkyPilot may fail over to; beyond a handful, a capacity
/// shortage is better answered by a new plan than by a long tail of rows.
pub const MAX_PINNED: usize = 5;

/// The resource keys a pin sets (and so removes from what the task wrote):
/// where, what and which market. `any_of`/`ordered` are replaced by the
/// pinned list itself.
const PIN_KEYS: [&str; 9] = [
    "cloud",
    "region",
    "zone",
    "infra",
    "instance_type",
    "accelerators",
    "use_spot",
    "any_of",
    "ordered",
];

/// Keys a chain's header document may have (`dag_utils._load_chain_dag`).
const HEADER_KEYS: [&str; 2] = ["name", "execution"];

/// One pinned row: what SkyPilot is asked to provision, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Pin {
    /// Cloud.
    pub cloud: CloudId,
    /// Region (Kubernetes/SSH: the context; Slurm: the cluster).
    pub region: Option<String>,
    /// Zone (Slurm: the partition).
    pub zone: Option<String>,
    /// Instance type (virtual on Kubernetes, SSH and Slurm).
    pub instance_type: String,
    /// Accelerator as `NAME:COUNT`.
    pub accelerators: Option<String>,
    /// Spot market.
    pub use_spot: bool,
    /// The row's hourly cost for all nodes, as the table priced it.
    pub cost: f64,
}

impl Pin {
    /// SkyPilot's `infra` string for the row (`InfraInfo.to_str`: the cloud's
    /// lower-case name, region and zone joined with `/`, an SSH context
    /// without its `ssh-` prefix).
    pub fn infra(&self) -> String {
        let mut parts = vec![self.cloud.name().to_ascii_lowercase()];
        if let Some(region) = &self.region {
            parts.push(region.strip_prefix("ssh-").unwrap_or(region).to_string());
            if let Some(zone) = &self.zone {
                parts.push(zone.clone());
            }
        }
        parts.join("/")
    }
}

/// The task handed to SkyPilot.
#[derive(Debug, Clone, PartialEq)]
pub struct Pinned {
    /// The task file: one YAML document per task (a chain keeps its header).
    pub yaml: String,
    /// Per task, the rows pinned, in the order SkyPilot tries them.
    pub tasks: Vec<Vec<Pin>>,
}

/// Why no pinned task could be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HandoffError {
    /// The launch ended without a plan.
    #[error("there is no plan to hand to SkyPilot")]
    NoPlan,
    /// The task file is not the YAML the plan was made of.
    #[error("cannot read the task YAML {path} again: {message}")]
    Yaml {
        /// The path as given.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// The file's documents do not line up with the plan's tasks.
    #[error("the task YAML {path} has {documents} task documents but the plan has {tasks} tasks")]
    Tasks {
        /// The path as given.
        path: String,
        /// Task documents in the file.
        documents: usize,
        /// Tasks in the plan.
        tasks: usize,
    },
}

/// The rows pinned for one task: the chosen row, then the table's other
/// rows in the order shown, at most [`MAX_PINNED`].
pub fn pins(task: &TaskPlan) -> Vec<Pin> {
    let mut out = vec![pin(&task.chosen)];
    for row in &task.table_rows {
        if out.len() == MAX_PINNED {
            break;
        }
        let p = pin(row);
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

fn pin(c: &Considered) -> Pin {
    Pin {
        cloud: c.cloud,
        region: c.region.clone(),
        zone: c.zone.clone(),
        instance_type: c.instance_type.clone(),
        accelerators: c.accelerators.clone(),
        use_spot: c.use_spot,
        cost: c.cost,
    }
}

/// The task of `source` with each task's resources pinned to `plan`'s rows.
///
/// A task YAML keeps every document and field but `resources` (replaced
/// by the pinned `ordered:` list, each entry carrying the fields the task
/// wrote that are not pins, from the `any_of`/`ordered` entry the row came
/// from) and `num_nodes` (the plan's). A command or the flags alone become
/// the task SkyPilot's CLI makes of them (`name: sky-cmd`, `run:`).
pub fn pinned_task(source: &TaskSource, plan: &Plan) -> Result<Pinned, HandoffError> {
    if plan.tasks.is_empty() {
        return Err(HandoffError::NoPlan);
    }
    let tasks: Vec<Vec<Pin>> = plan.tasks.iter().map(pins).collect();
    let mut docs: Vec<Value> = match source {
        TaskSource::Yaml { path, text } => read_documents(path, text)?,
        TaskSource::Flags | TaskSource::Command(_) => {
            let mut doc = Mapping::new();
            doc.insert("name".into(), "sky-cmd".into());
            if let TaskSource::Command(command) = source {
                doc.insert("run".into(), command.as_str().into());
            }
            vec![Value::Mapping(doc)]
        }
        TaskSource::Unreadable { .. } => return Err(HandoffError::NoPlan),
    };
    let header = usize::from(docs.len() == plan.tasks.len() + 1 && is_header(&docs[0]));
    if docs.len() - header != plan.tasks.len() {
        let path = match source {
            TaskSource::Yaml { path, .. } => path.clone(),
            _ => String::new(),
        };
        return Err(HandoffError::Tasks {
            path,
            documents: docs.len() - header,
            tasks: plan.tasks.len(),
        });
    }
    for ((doc, task), task_pins) in docs[header..].iter_mut().zip(&plan.tasks).zip(&tasks) {
        pin_document(doc, task, task_pins);
    }
    let yaml = docs
        .iter()
        .map(|d| serde_yaml_ng::to_string(d).unwrap_or_default())
        .collect::<Vec<_>>()
        .join("---\n");
    Ok(Pinned { yaml, tasks })
}

/// The file's documents, an empty one read as an empty task.
fn read_documents(path: &str, text: &str) -> Result<Vec<Value>, HandoffError> {
    let mut docs = Vec::new();
    for de in serde_yaml_ng::Deserializer::from_str(text) {
        let value = serde::Deserialize::deserialize(de).map_err(|e| HandoffError::Yaml {
            path: path.to_string(),
            message: e.to_string(),
        })?;
        docs.push(match value {
            Value::Null => Value::Mapping(Mapping::new()),
            other => other,
        });
    }
    if docs.is_empty() {
        docs.push(Value::Mapping(Mapping::new()));
    }
    Ok(docs)
}

/// A chain's header document: only `name` (and `execution`).
fn is_header(doc: &Value) -> bool {
    doc.as_mapping().is_some_and(|m| {
        m.contains_key("name")
            && m.keys()
                .all(|k| k.as_str().is_some_and(|k| HEADER_KEYS.contains(&k)))
    })
}

/// Replaces one task document's resources with its pins.
fn pin_document(doc: &mut Value, task: &TaskPlan, task_pins: &[Pin]) {
    if !doc.is_mapping() {
        *doc = Value::Mapping(Mapping::new());
    }
    let Some(map) = doc.as_mapping_mut() else {
        return;
    };
    let base = map
        .get("resources")
        .and_then(Value::as_mapping)
        .cloned()
        .unwrap_or_default();
    // The `any_of`/`ordered` entries the rows were enumerated from, when the
    // file lists them (an accelerator set or list has none: the pin's
    // accelerator is the entry's only difference).
    let entries: Vec<Mapping> = ["any_of", "ordered"]
        .iter()
        .find_map(|k| base.get(*k).and_then(Value::as_sequence))
        .map(|seq| {
            seq.iter()
                .map(|v| v.as_mapping().cloned().unwrap_or_default())
                .collect()
        })
        .unwrap_or_default();
    let ordered: Vec<Value> = task_pins
        .iter()
        .map(|p| {
            let entry = entry_of(task, p).and_then(|i| entries.get(i));
            Value::Mapping(pinned_entry(&base, entry, p))
        })
        .collect();
    let mut resources = Mapping::new();
    resources.insert("ordered".into(), Value::Sequence(ordered));
    map.insert("resources".into(), Value::Mapping(resources));
    map.insert("num_nodes".into(), u64::from(task.num_nodes).into());
}

/// The index of the requested entry `p`'s row was enumerated from.
fn entry_of(task: &TaskPlan, p: &Pin) -> Option<usize> {
    task.considered
        .iter()
        .find(|c| pin(c) == *p)
        .map(|c| c.request_index)
}

/// The task's resource fields (the base, then the entry's own) without the
/// pin keys, then the pins.
fn pinned_entry(base: &Mapping, entry: Option<&Mapping>, p: &Pin) -> Mapping {
    let mut out = Mapping::new();
    for (k, v) in base.iter().chain(entry.into_iter().flatten()) {
        if k.as_str().is_some_and(|k| PIN_KEYS.contains(&k)) {
            continue;
        }
        out.insert(k.clone(), v.clone());
    }
    out.insert("infra".into(), p.infra().into());
    out.insert("instance_type".into(), p.instance_type.as_str().into());
    if let Some(acc) = &p.accelerators {
        out.insert("accelerators".into(), acc.as_str().into());
    }
    out.insert("use_spot".into(), p.use_spot.into());
    out
}

#[cfg(test)]
mod tests;
