//! Why a cloud offers nothing for a request, as data ([`Refusal`]), and the
//! hint SkyPilot's `_get_feasible_launchable_resources` returns for it.
//!
//! SkyPilot passes a cloud's hint around as a string: the optimizer puts it
//! into the `ResourcesUnavailableError` it raises ("Hint: Check Per Resource
//! Hint") and into the line it logs before. [`Refusal::hint`] is that
//! string, built below the optimizer that raises the error, from the leaf
//! helpers only (ARCHITECTURE.md, "Rendering in one place"); the reason
//! itself stays typed, with the names and numbers it is made of.

use crate::cloud::{CloudId, Feature};
use crate::pytext::{py_list, py_str_repr};
use crate::resources::AccCount;
use crate::text::{ansi, borderless_table};

/// Why a cloud has no candidate for a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// Required features the cloud lacks (`Cloud.check_features_are_supported`),
    /// each with SkyPilot's reason, in the hint table's order.
    Unsupported(Vec<(Feature, &'static str)>),
    /// Spot instances asked of a cloud that sells none (Seeweb's and
    /// Shadeform's own checks; the feature check refuses first in practice).
    SpotNotOffered,
    /// No instance type carries the accelerator in that count.
    NoInstanceForAccelerator {
        /// The accelerator's name, as requested.
        name: String,
        /// Its count.
        count: AccCount,
        /// Offered accelerators close to it (`NAME:COUNT`).
        fuzzy: Vec<String>,
    },
    /// No instance type has the requested cpus and memory.
    NoInstanceForCpusMemory {
        /// `cpus`, as requested.
        cpus: Option<String>,
        /// `memory`, as requested.
        memory: Option<String>,
    },
    /// The requested instance type is not in the cloud's catalog.
    InstanceTypeNotOffered {
        /// The instance type.
        instance_type: String,
    },
    /// Slurm: `gpu_partition_map` names only partitions the pinned cluster
    /// does not have (`Slurm._gpu_partition_map_hint`).
    GpuPartitionMapUnmatched {
        /// The accelerator.
        accelerator: String,
        /// The partitions the map names for it.
        mapped: Vec<String>,
        /// The cluster.
        cluster: String,
        /// The cluster's partitions, sorted.
        available: Vec<String>,
    },
    /// Slurm: memory was requested of a cluster that does not track it
    /// (`Slurm._get_memory_hint`).
    MemoryNotTracked {
        /// The cluster.
        cluster: String,
    },
    /// Slurm: nodes of a cluster that tracks memory report (almost) none
    /// (`Slurm._get_memory_hint`).
    ZeroMemoryNodes {
        /// The cluster.
        cluster: String,
        /// The nodes, sorted, without repeats.
        nodes: Vec<String>,
    },
}

impl Refusal {
    /// SkyPilot's hint string for `cloud`, with its colours: each cloud
    /// words its own (`sky/clouds/shadeform.py`, `seeweb.py`, `slurm.py`;
    /// in 0.14.1 the other clouds give no hint beyond unsupported features).
    pub fn hint(&self, cloud: CloudId) -> String {
        match self {
            Refusal::Unsupported(features) => unsupported_message(cloud, features),
            Refusal::SpotNotOffered => match cloud {
                CloudId::Shadeform => "Spot instances are not supported on Shadeform.".into(),
                _ => format!("Spot instances not supported on {}", cloud.repr()),
            },
            Refusal::NoInstanceForAccelerator { name, count, fuzzy } => match cloud {
                CloudId::Shadeform => {
                    let mut hint = format!("No instances available for accelerator {name}");
                    if !fuzzy.is_empty() {
                        hint.push_str(": ");
                        hint.push_str(&fuzzy.join("; "));
                    }
                    hint
                }
                // Seeweb's f-string has no space before the name.
                _ => format!(
                    "No instance type found for accelerator{name}:{count} on {}",
                    cloud.repr()
                ),
            },
            Refusal::NoInstanceForCpusMemory { cpus, memory } => {
                let shown = |v: &Option<String>| v.as_deref().unwrap_or("None").to_string();
                format!(
                    "No suitable instance type found forcpus={}, memory={}",
                    shown(cpus),
                    shown(memory)
                )
            }
            Refusal::InstanceTypeNotOffered { instance_type } => {
                format!(
                    "Instance type {instance_type} not available on {}",
                    cloud.repr()
                )
            }
            Refusal::GpuPartitionMapUnmatched {
                accelerator,
                mapped,
                cluster,
                available,
            } => format!(
                "None of the partitions {} in gpu_partition_map for accelerator {} exist on cluster {}. Available partitions: {}.",
                py_list(mapped),
                py_str_repr(accelerator),
                py_str_repr(cluster),
                py_list(available)
            ),
            Refusal::MemoryNotTracked { cluster } => format!(
                "{}Cluster {} does not track memory as a consumable resource. Specifying --memory may cause failures when RealMemory is not set in slurm.conf. Try omitting --memory.{}",
                ansi::YELLOW,
                py_str_repr(cluster),
                ansi::RESET
            ),
            Refusal::ZeroMemoryNodes { cluster, nodes } => {
                let mut names = nodes
                    .iter()
                    .take(5)
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join(", ");
                if nodes.len() > 5 {
                    names.push_str(&format!(" (and {} more)", nodes.len() - 5));
                }
                format!(
                    "{}{} node(s) in cluster {} report zero memory: {names}. Please ask your cluster administrator to set RealMemory in slurm.conf.{}",
                    ansi::YELLOW,
                    nodes.len(),
                    py_str_repr(cluster),
                    ansi::RESET
                )
            }
        }
    }
}

/// `NotSupportedError`'s text (`check_features_are_supported`): a
/// tab-indented borderless table of the features `cloud` lacks.
pub fn unsupported_message(cloud: CloudId, features: &[(Feature, &'static str)]) -> String {
    let mut rows: Vec<Vec<String>> = vec![vec!["Feature".into(), "Reason".into()]];
    for (f, reason) in features {
        rows.push(vec![f.value().to_string(), (*reason).to_string()]);
    }
    let table = borderless_table(&rows);
    format!(
        "The following features are not supported by {}:\n\t{}",
        cloud.class_repr(),
        table.replace('\n', "\n\t")
    )
}
