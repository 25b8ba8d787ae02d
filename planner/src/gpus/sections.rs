//! The realtime sections of `sky gpus list` as data: a Kubernetes / SSH
//! Node Pool context's GPUs and their use, a Slurm cluster's GPUs. Built by
//! [`super::show`], carried by [`super::Section`], printed by
//! `render::gpus`.

use super::kubernetes::{NodesGpuInfo, RealtimeGpu};
use super::slurm::PartitionRow;

/// One row of a context's table or of the totals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Utilization {
    /// Free GPUs (`None`: `<no permissions>`).
    pub available: Option<i64>,
    /// GPUs counted.
    pub capacity: i64,
    /// GPUs on not-ready nodes (shown when positive).
    pub not_ready: i64,
}

/// One GPU of a context's table: name, requestable quantities, use.
pub type ContextRow = (String, Vec<u32>, Utilization);

/// A context's accelerators with, per quantity, its hourly price.
pub type PricedQuantities = Vec<(String, Vec<(u32, f64)>)>;

/// `_format_kubernetes_realtime_gpu`'s block, as data.
#[derive(Debug, Clone, PartialEq)]
pub struct KubeSection {
    /// SSH Node Pools rather than Kubernetes.
    pub ssh: bool,
    /// The totals over contexts (more than one context only).
    pub total: Option<Vec<(String, Utilization)>>,
    /// `QTY_FILTER` instead of `REQUESTABLE_QTY_PER_NODE`.
    pub quantity_header: bool,
    /// Per context (pool name for SSH): its GPUs, quantities and use.
    pub contexts: Vec<(String, Vec<ContextRow>)>,
    /// The per-node table (no GPU name given): per context, its nodes.
    pub nodes: Option<Vec<(String, NodesGpuInfo)>>,
}

/// `_format_slurm_realtime_gpu`'s block, as data.
#[derive(Debug, Clone, PartialEq)]
pub struct SlurmSection {
    /// Totals over clusters (more than one cluster listed).
    pub total: Option<Vec<(String, u32, i64)>>,
    /// `QTY_FILTER` header.
    pub quantity_header: bool,
    /// Per cluster, its GPUs.
    pub clusters: Vec<(String, Vec<RealtimeGpu>)>,
    /// Clusters that could not be asked, with SkyPilot's error.
    pub failed: Vec<(String, String)>,
    /// `-v`: rows of (cluster, partition, GPU, total, free).
    pub partitions: Option<Vec<PartitionRow>>,
}
