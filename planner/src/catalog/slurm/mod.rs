//! The Slurm virtual catalog: clusters from `~/.slurm/config`, their nodes
//! and partitions as their login nodes report them, and the fits check.
//!
//! This module is the *pure* half of the Slurm support (SkyPilot 0.14.1's
//! `sky/clouds/slurm.py`, `sky/catalog/slurm_catalog.py` and
//! `sky/provision/slurm/utils.py`): it parses `~/.slurm/config` (an OpenSSH
//! client configuration, one `Host` per cluster), reads the raw answers of
//! `sinfo` / `scontrol` that the edge (`optimizer::clouds::slurm`) fetched
//! over SSH, decides whether a virtual instance type (`4CPU--16GB--H100:1`,
//! the same names as Kubernetes' — [`KubeInstanceType`](crate::catalog::kubernetes::KubeInstanceType)) fits on a
//! partition, and resolves the `slurm:` config section (allowed clusters,
//! `slurm.pricing` per cluster and partition, `cpu_partition`,
//! `gpu_partition_map`). Clusters are regions, partitions are zones.
//!
//! The parts, one file each (re-exported here):
//! * `ssh_config`: `~/.slurm/config` as paramiko reads it;
//! * `inventory`: the commands, their raw answers, their parsing;
//! * `fits`: GRES matching and `check_instance_fits`;
//! * `settings`: the `slurm:` config section.
//!
//! Deviations from SkyPilot 0.14.1 that are deliberate:
//! * clusters are in the order of `~/.slurm/config` (SkyPilot iterates a
//!   Python set); partitions keep SkyPilot's order (default first, then
//!   sorted);
//! * the dynamic feature checks (Pyxis for Docker images, FUSE for storage
//!   mounts) are not made: the optimizer never asks for either feature, so
//!   they cannot change a plan;
//! * `slurm.submit_as_user` and workspace-level `slurm:` settings are not
//!   read (commands run as the SSH user).

mod fits;
mod inventory;
mod settings;
mod ssh_config;

pub use fits::{
    FitsInput, accelerator_matches_gres, check_instance_fits, normalize_gpu_name,
    resolve_gres_gpu_type, typed_gres_nodes,
};
pub use inventory::{
    CommandOutput, INFO_NODES_CMD, PARTITIONS_CMD, SELECT_TYPE_CMD, SINFO_SEP, SlurmCluster,
    SlurmInventory, SlurmNode, SlurmPartition, command_error_text, default_partition,
    gpu_type_and_count, parse_partitions, parse_select_type, parse_sinfo_nodes, partition_names,
};
pub use settings::{SlurmConfigError, SlurmSettings};
pub use ssh_config::{HostConfig, LocalUser, SLURM_CONFIG_PATH, SshConfig, SshConfigError};

pub use crate::catalog::kubernetes::KubeInstanceType as SlurmInstanceType;

/// Everything the planner knows about Slurm: every cluster of
/// `~/.slurm/config` (allowed or not: SkyPilot asks them all whether they
/// track memory) and the `slurm:` config section.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SlurmWorld {
    /// The clusters, in `~/.slurm/config` order.
    pub clusters: Vec<SlurmCluster>,
    /// The `slurm:` config section.
    pub settings: SlurmSettings,
}

/// What SkyPilot's `get_slurm_nodes_info` / `get_partitions` /
/// `get_select_type_parameters` make of one cluster's answers.
impl SlurmCluster {
    /// The nodes (`get_slurm_nodes_info`), or SkyPilot's reason they are unknown.
    pub fn nodes(&self) -> Result<Vec<SlurmNode>, String> {
        let inv = self.inventory.as_ref().map_err(Clone::clone)?;
        if inv.nodes.returncode != 0 {
            return Err(command_error_text(
                INFO_NODES_CMD,
                &inv.nodes,
                "Failed to get Slurm node information.",
            ));
        }
        parse_sinfo_nodes(&inv.nodes.stdout).map_err(|e| format!("RuntimeError: {e}"))
    }

    /// The partitions (`get_partition_infos`), or the text of SkyPilot's
    /// `ValueError` (`Failed to get partitions for cluster <c>: ...`).
    pub fn partitions(&self) -> Result<Vec<SlurmPartition>, String> {
        let failed = |e: String| format!("Failed to get partitions for cluster {}: {e}", self.name);
        let inv = self.inventory.as_ref().map_err(|e| failed(e.clone()))?;
        if inv.partitions.returncode != 0 {
            return Err(failed(command_error_text(
                PARTITIONS_CMD,
                &inv.partitions,
                "Failed to get Slurm partitions.",
            )));
        }
        Ok(parse_partitions(&inv.partitions.stdout))
    }

    /// `get_partitions`: names, default first.
    pub fn partition_names(&self) -> Result<Vec<String>, String> {
        self.partitions().map(|p| partition_names(&p))
    }

    /// `is_memory_scheduling_enabled` and what it logs: `Err` when the
    /// login node could not be asked at all (SkyPilot skips the cluster);
    /// otherwise whether memory is tracked, where a failed command counts as
    /// tracked and leaves its error for SkyPilot's `Failed to get
    /// SelectTypeParameters` warning.
    pub fn memory_scheduling(&self) -> Result<MemoryScheduling, String> {
        let inv = self.inventory.as_ref().map_err(Clone::clone)?;
        let out = &inv.select_type;
        if out.returncode != 0 {
            return Ok(MemoryScheduling {
                tracked: true,
                parameters: None,
                failed: Some(out.stderr.clone()),
            });
        }
        let parameters = parse_select_type(&out.stdout);
        Ok(MemoryScheduling {
            tracked: parameters
                .as_deref()
                .is_none_or(|p| p.to_uppercase().contains("MEMORY")),
            parameters,
            failed: None,
        })
    }
}

/// Whether a cluster's scheduler tracks memory (`SelectTypeParameters`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryScheduling {
    /// Memory is a consumable resource (`CR_*_Memory`), or it is unknown.
    pub tracked: bool,
    /// The raw `SelectTypeParameters`, when read.
    pub parameters: Option<String>,
    /// The command's standard error when it failed (SkyPilot then logs
    /// `Failed to get SelectTypeParameters: <stderr>`).
    pub failed: Option<String>,
}

impl SlurmWorld {
    /// Every cluster name (`get_all_slurm_cluster_names`).
    pub fn cluster_names(&self) -> Vec<String> {
        self.clusters.iter().map(|c| c.name.clone()).collect()
    }

    /// A cluster by name.
    pub fn cluster(&self, name: &str) -> Option<&SlurmCluster> {
        self.clusters.iter().find(|c| c.name == name)
    }

    /// `Slurm.existing_allowed_clusters`: the allowed clusters present in
    /// `~/.slurm/config` (in `allowed_clusters` order when it lists them),
    /// and the listed ones that are not.
    pub fn allowed_clusters(&self) -> (Vec<&SlurmCluster>, Vec<String>) {
        match &self.settings.allowed_clusters {
            None => (self.clusters.iter().collect(), Vec::new()),
            Some(list) => {
                let mut found = Vec::new();
                let mut skipped = Vec::new();
                for name in list {
                    match self.cluster(name) {
                        Some(c) => found.push(c),
                        None => skipped.push(name.clone()),
                    }
                }
                (found, skipped)
            }
        }
    }

    /// The clusters `allowed_clusters` names that are not in
    /// `~/.slurm/config`, sorted and without repeats (SkyPilot warns about
    /// them as a Python set, `_log_skipped_clusters_once`); none when
    /// `~/.slurm/config` lists no cluster at all.
    pub fn skipped_clusters(&self) -> Vec<String> {
        let (_, mut skipped) = self.allowed_clusters();
        if self.clusters.is_empty() {
            return Vec::new();
        }
        skipped.sort();
        skipped.dedup();
        skipped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cluster(name: &str, select: CommandOutput) -> SlurmCluster {
        SlurmCluster {
            name: name.into(),
            inventory: Ok(SlurmInventory {
                nodes: CommandOutput::ok(""),
                partitions: CommandOutput::ok("PartitionName=p Default=YES\n"),
                select_type: select,
            }),
        }
    }

    #[test]
    fn allowed_clusters_and_their_warning() {
        let mut world = SlurmWorld {
            clusters: vec![
                cluster("a", CommandOutput::ok("")),
                cluster("b", CommandOutput::ok("")),
            ],
            settings: SlurmSettings::default(),
        };
        assert_eq!(world.allowed_clusters().0.len(), 2);
        assert!(world.skipped_clusters().is_empty());
        world.settings = SlurmSettings::from_config(
            &serde_yaml_ng::from_str("slurm: {allowed_clusters: [b, z, a, y]}").expect("yaml"),
        )
        .expect("settings");
        let (found, skipped) = world.allowed_clusters();
        assert_eq!(
            found.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            ["b", "a"]
        );
        assert_eq!(skipped, ["z", "y"]);
        assert_eq!(world.skipped_clusters(), ["y", "z"]);
    }

    #[test]
    fn answers_become_skypilot_facts() {
        let ok = cluster("a", CommandOutput::ok("SelectTypeParameters = CR_CPU\n"));
        assert_eq!(ok.partition_names(), Ok(vec!["p".to_string()]));
        let m = ok.memory_scheduling().expect("asked");
        assert!(!m.tracked);
        assert_eq!(m.parameters.as_deref(), Some("CR_CPU"));
        let failed = cluster(
            "b",
            CommandOutput {
                returncode: 255,
                stdout: String::new(),
                stderr: "ssh: boom\n".into(),
            },
        );
        let m = failed.memory_scheduling().expect("asked");
        assert!(m.tracked);
        assert_eq!(m.failed.as_deref(), Some("ssh: boom\n"));
        let unreachable = SlurmCluster {
            name: "c".into(),
            inventory: Err("FileNotFoundError: SSH private key not found: /k".into()),
        };
        assert_eq!(
            unreachable.partitions(),
            Err("Failed to get partitions for cluster c: FileNotFoundError: SSH private key not found: /k".into())
        );
        assert!(unreachable.memory_scheduling().is_err());
        assert!(unreachable.nodes().is_err());
    }
}
