//! What a cloud logs while the optimizer asks it, as data: SkyPilot's
//! `logger.info` / `logger.warning` calls on the optimizer path (a context
//! or cluster that cannot be asked, a setting that does not apply), in
//! SkyPilot's order and number. `render::notices` prints them.

/// One message a cloud logs while it is queried, with the names and
/// numbers it is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CloudLog {
    /// SSH Node Pools of the pools file that are not set up
    /// (`_ssh_log_skipped_contexts_once`).
    SshPoolsSkipped {
        /// The pools' contexts (`ssh-<pool>`), as listed.
        pools: Vec<String>,
        /// The pools file, its path expanded.
        file: String,
    },
    /// A Kubernetes-like context that could not be listed
    /// (`Kubernetes._log_unreachable_context`).
    ContextUnreachable {
        /// The context.
        context: String,
        /// Why (the listing's error, as SkyPilot words it).
        reason: String,
    },
    /// Every allowed context is unreachable (what `_log_unreachable_context`
    /// adds after the last one).
    AllContextsUnreachable,
    /// Slurm: clusters `allowed_clusters` names that `~/.slurm/config` lacks
    /// (`_log_skipped_clusters_once`).
    SlurmClustersSkipped {
        /// Their names, sorted and without repeats (SkyPilot prints a set).
        clusters: Vec<String>,
    },
    /// Slurm: asking for `SelectTypeParameters` failed
    /// (`is_memory_scheduling_enabled`).
    SlurmSelectTypeFailed {
        /// The command's standard error.
        stderr: String,
    },
    /// Slurm: no asked cluster tracks memory, so `--mem` is left out
    /// (`slurm_catalog.get_default_instance_type`).
    SlurmMemoryUntracked {
        /// Each cluster with its `SelectTypeParameters` (`unknown` when unread).
        clusters: Vec<(String, String)>,
    },
    /// Slurm: `gpu_partition_map` maps the accelerator to partitions the
    /// cluster does not have, or not to the requested one
    /// (`Slurm.regions_with_offering`).
    SlurmGpuPartitionsMissing {
        /// The accelerator.
        accelerator: String,
        /// The partitions the map names for it.
        mapped: Vec<String>,
        /// The cluster.
        cluster: String,
        /// The partition the request pins, if any.
        requested: Option<String>,
    },
    /// Slurm: `cpu_partition` names a partition the cluster does not have.
    SlurmCpuPartitionMissing {
        /// The configured partition.
        partition: String,
        /// The cluster.
        cluster: String,
    },
    /// Slurm: `gpu_partition_map` names the accelerator, but a node of the
    /// partition carries a typed GRES (`check_instance_fits`).
    SlurmTypedGres {
        /// The accelerator.
        accelerator: String,
        /// The node.
        node: String,
        /// Its GRES, as `sinfo` gives it.
        gres: String,
    },
    /// Slurm: a cluster's partitions could not be read.
    SlurmPartitionsUnreadable {
        /// The cluster.
        cluster: String,
        /// Why.
        error: String,
    },
    /// Kubernetes (and SSH Node Pools): a disk tier was asked for, which it
    /// cannot provide (`Kubernetes._warn_on_disk_tier`, at the start of
    /// `_get_feasible_launchable_resources`: once per resource asked).
    DiskTierUnsupported {
        /// The tier asked for.
        tier: crate::resources::DiskTier,
    },
    /// SCP: the disk size is outside SCP's limits (`SCP._is_disk_size_allowed`).
    ScpDiskSize {
        /// The requested size (GB).
        size: u64,
        /// `_SCP_MIN_DISK_SIZE_GB`.
        min: u64,
        /// `_SCP_MAX_DISK_SIZE_GB`.
        max: u64,
    },
}

impl CloudLog {
    /// SkyPilot logs it at most once per process (an `lru_cache`d logger);
    /// the others every time they are reached.
    pub fn once(&self) -> bool {
        matches!(
            self,
            CloudLog::SshPoolsSkipped { .. }
                | CloudLog::ContextUnreachable { .. }
                | CloudLog::AllContextsUnreachable
                | CloudLog::SlurmClustersSkipped { .. }
        )
    }
}
