//! The GPUs of Kubernetes and SSH Node Pool contexts, from their nodes and
//! pods, as SkyPilot 0.14.1 counts them for `sky gpus list`:
//! `sky/catalog/kubernetes_catalog.py::_list_accelerators` (requestable
//! quantities, capacity and free GPUs), `sky/core.py::
//! realtime_kubernetes_gpu_availability` (one list per context) and
//! `sky/provision/kubernetes/utils.py::_get_kubernetes_node_info` (the
//! per-node table).

use std::collections::{BTreeMap, BTreeSet};

use crate::catalog::kubernetes::{
    AMD_GPU_KEY, KubeNode, KubePod, LabelFormatter, NEURON_RESOURCE_KEY, NVIDIA_GPU_KEY,
    NodeAllocation, NodeTaint, TPU_RESOURCE_KEY, Toleration, allocated_by_node,
    detect_label_formatter, is_tpu_on_gke, node_taints,
};

/// What listing a context's pods gave.
#[derive(Debug, Clone, PartialEq)]
pub enum Pods {
    /// The pods (all namespaces, finished ones filtered by the server).
    Listed(Vec<KubePod>),
    /// 403: the user may not list pods; free GPUs are unknown.
    Forbidden,
    /// Not asked (the context has no accelerator nodes).
    NotListed,
    /// The listing failed otherwise (SkyPilot aborts the command; here the
    /// context is left out): the error.
    Failed(String),
}

/// One context's nodes and pods, with its configured tolerations.
#[derive(Debug, Clone, Copy)]
pub struct ContextGpuInput<'a> {
    /// The context name (`ssh-<pool>` for a pool).
    pub name: &'a str,
    /// Its nodes.
    pub nodes: &'a [KubeNode],
    /// Its pods.
    pub pods: &'a Pods,
    /// `kubernetes.pod_config.spec.tolerations` for it (`None`: none configured).
    pub tolerations: Option<&'a [Toleration]>,
}

/// One GPU of a context: SkyPilot's `RealtimeGpuAvailability`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RealtimeGpu {
    /// Accelerator name as the label formatter reads it.
    pub gpu: String,
    /// Quantities one node can give (powers of two and each node's total).
    pub counts: Vec<u32>,
    /// GPUs in the context (in whole quantity-filter groups).
    pub capacity: u32,
    /// Free GPUs (in whole groups); `-1`: pods could not be listed.
    pub available: i64,
}

/// The cluster's GPU resource key (`_gpu_resource_key_helper`: AMD when any
/// node's capacity has it, else NVIDIA).
pub fn gpu_resource_key(nodes: &[KubeNode]) -> &'static str {
    if nodes
        .iter()
        .any(|n| n.accelerator_capacity.contains_key(AMD_GPU_KEY))
    {
        AMD_GPU_KEY
    } else {
        NVIDIA_GPU_KEY
    }
}

/// `detect_accelerator_resource`: some node can schedule GPUs, TPUs or
/// Neuron devices.
fn has_accelerator_resource(nodes: &[KubeNode], gpu_key: &str) -> bool {
    nodes.iter().any(|n| {
        [gpu_key, TPU_RESOURCE_KEY, NEURON_RESOURCE_KEY]
            .iter()
            .any(|k| n.accelerator_resources.contains_key(*k))
    })
}

/// The label formatter and whether a node carries one of its keys, when the
/// context's GPUs can be listed at all.
fn formatter(nodes: &[KubeNode]) -> Option<(LabelFormatter, bool)> {
    if !has_accelerator_resource(nodes, gpu_resource_key(nodes)) {
        return None;
    }
    let lf = detect_label_formatter(nodes)?;
    let labelled = nodes
        .iter()
        .any(|n| lf.label_keys().iter().any(|k| n.labels.contains_key(*k)));
    Some((lf, labelled))
}

/// Whether [`realtime_gpus`] and [`node_info`] need the context's pods: it
/// has accelerator resources and labelled accelerator nodes (SkyPilot lists
/// the pods of no other context that `sky gpus list` shows).
pub fn needs_pods(nodes: &[KubeNode]) -> bool {
    formatter(nodes).is_some_and(|(_, labelled)| labelled)
}

/// Python's `re.match(pattern, text, re.IGNORECASE)`; an invalid pattern
/// matches nothing.
fn matches_at_start(pattern: &str, text: &str) -> bool {
    regex::RegexBuilder::new(&format!("^(?:{pattern})"))
        .case_insensitive(true)
        .build()
        .is_ok_and(|re| re.is_match(text))
}

/// pandas' `str.contains(pattern, case=False)`; an invalid pattern is
/// searched for literally. Built once per pattern: compiling the regex
/// for every GPU of every context cost more than the rest of the listing.
enum Contains {
    Regex(regex::Regex),
    Literal(String),
}

impl Contains {
    fn new(pattern: &str) -> Contains {
        match regex::RegexBuilder::new(pattern)
            .case_insensitive(true)
            .build()
        {
            Ok(re) => Contains::Regex(re),
            Err(_) => Contains::Literal(pattern.to_lowercase()),
        }
    }

    fn is_in(&self, text: &str) -> bool {
        match self {
            Contains::Regex(re) => re.is_match(text),
            Contains::Literal(lower) => text.to_lowercase().contains(lower.as_str()),
        }
    }
}

fn untolerated(taints: &[NodeTaint]) -> bool {
    taints.iter().any(|t| !t.tolerated)
}

fn allocation(pods: &Pods, gpu_key: &str) -> BTreeMap<String, NodeAllocation> {
    match pods {
        Pods::Listed(list) => allocated_by_node(list, gpu_key),
        Pods::Forbidden | Pods::NotListed | Pods::Failed(_) => BTreeMap::new(),
    }
}

/// One context's GPUs (`_list_accelerators(realtime=True)` and
/// `_realtime_kubernetes_gpu_availability_single`), by name. `name` is a
/// regular expression matched at the start of the accelerator name,
/// `quantity` SkyPilot's quantity filter. Empty: the context has no GPU
/// (or none that matches).
pub fn realtime_gpus(
    ctx: &ContextGpuInput<'_>,
    name: Option<&str>,
    quantity: Option<u32>,
) -> Vec<RealtimeGpu> {
    let Some((lf, labelled)) = formatter(ctx.nodes) else {
        return Vec::new();
    };
    let gpu_key = gpu_resource_key(ctx.nodes);
    let forbidden = labelled && matches!(ctx.pods, Pods::Forbidden);
    let allocated = if labelled {
        allocation(ctx.pods, gpu_key)
    } else {
        BTreeMap::new()
    };
    let min_quantity = quantity.filter(|q| *q > 0).unwrap_or(1);
    let mut qtys: BTreeSet<(String, u32)> = BTreeSet::new();
    let mut capacity: BTreeMap<String, u32> = BTreeMap::new();
    let mut available: BTreeMap<String, i64> = BTreeMap::new();
    for node in ctx.nodes {
        let tainted = untolerated(&node_taints(node, false, ctx.tolerations));
        for key in lf.label_keys() {
            let Some(value) = node.labels.get(*key) else {
                continue;
            };
            let Ok(acc) = lf.accelerator_from_value(value) else {
                continue;
            };
            if acc.is_empty() || node.tpu.as_ref().is_some_and(|t| t.is_multi_host()) {
                continue;
            }
            if name.is_some_and(|n| !matches_at_start(n, &acc)) {
                continue;
            }
            let count = node.accelerator_count_for(gpu_key);
            let cap = node.capacity_count_for(gpu_key).max(count);
            if cap > 0 {
                if is_tpu_on_gke(&acc) {
                    qtys.insert((acc.clone(), cap));
                } else {
                    let mut c = 1u32;
                    while c <= cap {
                        qtys.insert((acc.clone(), c));
                        c = c.saturating_mul(2);
                        if c == u32::MAX {
                            break;
                        }
                    }
                    qtys.insert((acc.clone(), cap));
                }
            }
            if cap >= min_quantity {
                *capacity.entry(acc.clone()).or_insert(0) += min_quantity * (cap / min_quantity);
            }
            let entry = available.entry(acc.clone()).or_insert(0);
            if !node.ready || node.unschedulable || tainted {
                continue;
            }
            if forbidden {
                *entry = -1;
                continue;
            }
            let used = allocated.get(&node.name).map_or(0, |a| a.accelerators);
            let free = i64::from(count) - i64::from(used);
            let q = i64::from(min_quantity);
            if free >= q {
                let quantized = q * (free / q);
                if quantized > 0 {
                    *entry += quantized;
                }
            }
        }
    }
    // `list_accelerators_impl` over the quantities: the name searched, the
    // context (SkyPilot's region filter) searched in itself, the exact quantity.
    let mut counts: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    let name = name.map(Contains::new);
    let context_matches = Contains::new(ctx.name).is_in(ctx.name);
    for (acc, c) in qtys {
        if name.as_ref().is_some_and(|n| !n.is_in(&acc))
            || !context_matches
            || quantity.is_some_and(|q| q != c)
        {
            continue;
        }
        counts.entry(acc).or_default().push(c);
    }
    let keys: BTreeSet<&String> = counts
        .keys()
        .chain(capacity.keys())
        .chain(available.keys())
        .collect();
    keys.into_iter()
        .map(|gpu| RealtimeGpu {
            gpu: gpu.clone(),
            counts: counts.get(gpu).cloned().unwrap_or_default(),
            capacity: capacity.get(gpu).copied().unwrap_or(0),
            available: available.get(gpu).copied().unwrap_or(0),
        })
        .collect()
}

/// One node of the per-node table: SkyPilot's `KubernetesNodeInfo`.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeGpuInfo {
    /// Node name.
    pub name: String,
    /// The accelerator its label names (may be empty; `None`: no label).
    pub accelerator: Option<String>,
    /// Accelerator devices (capacity, or allocatable when larger).
    pub total: u32,
    /// Free devices; `-1`: unknown (pods could not be listed).
    pub free: i64,
    /// CPU capacity.
    pub cpus: Option<f64>,
    /// Memory capacity in GiB.
    pub memory_gib: Option<f64>,
    /// CPUs not requested by pods (`None`: unknown).
    pub cpus_free: Option<f64>,
    /// Memory not requested by pods, GiB (`None`: unknown).
    pub memory_free_gib: Option<f64>,
    /// `Ready`.
    pub ready: bool,
    /// Cordoned.
    pub cordoned: bool,
    /// Taints that count, role taints left out.
    pub taints: Vec<NodeTaint>,
}

/// A context's per-node information: SkyPilot's `KubernetesNodesInfo`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NodesGpuInfo {
    /// The nodes, in API order (multi-host TPU nodes left out).
    pub nodes: Vec<NodeGpuInfo>,
    /// Whether multi-host TPU nodes were left out (SkyPilot's hint).
    pub multi_host_tpu: bool,
}

impl NodesGpuInfo {
    /// `_count_not_ready_gpus`: devices on not-ready, cordoned or tainted
    /// nodes, per accelerator.
    pub fn not_ready(&self) -> BTreeMap<String, u32> {
        let mut out = BTreeMap::new();
        for n in &self.nodes {
            let Some(acc) = n.accelerator.as_ref().filter(|a| !a.is_empty()) else {
                continue;
            };
            if n.total > 0 && (!n.ready || n.cordoned || untolerated(&n.taints)) {
                *out.entry(acc.clone()).or_insert(0) += n.total;
            }
        }
        out
    }
}

/// `_get_kubernetes_node_info` for one context.
pub fn node_info(ctx: &ContextGpuInput<'_>) -> NodesGpuInfo {
    let gpu_key = gpu_resource_key(ctx.nodes);
    let lf = detect_label_formatter(ctx.nodes);
    let has_accelerator_nodes = ctx
        .nodes
        .iter()
        .any(|n| n.accelerator_count_for(gpu_key) > 0 || n.capacity_count_for(gpu_key) > 0);
    let unknown = matches!(ctx.pods, Pods::Forbidden);
    let allocated = allocation(ctx.pods, gpu_key);
    let mut out = NodesGpuInfo::default();
    for node in ctx.nodes {
        let accelerator = lf.and_then(|lf| {
            let key = lf
                .label_keys()
                .iter()
                .find(|k| node.labels.contains_key(**k))?;
            lf.accelerator_from_value(&node.labels[*key]).ok()
        });
        let allocatable = node.accelerator_count_for(gpu_key);
        let total = node.capacity_count_for(gpu_key).max(allocatable);
        let used = allocated.get(&node.name).copied().unwrap_or_default();
        let known =
            !unknown && (node.capacity_cpus.is_some() || node.capacity_memory_gib.is_some());
        let taints = node_taints(node, true, ctx.tolerations);
        let mut info = NodeGpuInfo {
            name: node.name.clone(),
            accelerator,
            total,
            free: 0,
            cpus: node.capacity_cpus,
            memory_gib: node.capacity_memory_gib,
            cpus_free: node
                .capacity_cpus
                .filter(|_| known)
                .map(|c| (c - used.cpus).max(0.0)),
            memory_free_gib: node
                .capacity_memory_gib
                .filter(|_| known)
                .map(|m| (m - used.memory_gib).max(0.0)),
            ready: node.ready,
            cordoned: node.unschedulable,
            taints,
        };
        if total == 0 {
            out.nodes.push(info);
            continue;
        }
        info.free = if !node.ready || node.unschedulable || untolerated(&info.taints) {
            0
        } else if !has_accelerator_nodes || unknown {
            -1
        } else {
            (i64::from(allocatable) - i64::from(used.accelerators)).max(0)
        };
        if node.tpu.as_ref().is_some_and(|t| t.is_multi_host()) {
            out.multi_host_tpu = true;
            continue;
        }
        out.nodes.push(info);
    }
    out
}

/// The accelerator quantities of a context for `-o json`
/// (`kubernetes_catalog.list_accelerators`: no pods, every label counted),
/// per accelerator in name order, each with its quantities ascending.
pub fn quantities(
    ctx: &ContextGpuInput<'_>,
    name: Option<&str>,
    quantity: Option<u32>,
) -> Vec<(String, Vec<u32>)> {
    let listed = realtime_gpus(
        &ContextGpuInput {
            pods: &Pods::NotListed,
            ..*ctx
        },
        name,
        quantity,
    );
    listed
        .into_iter()
        .filter(|g| !g.counts.is_empty())
        .map(|g| (g.gpu, g.counts))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::kubernetes::{parse_node_list, parse_pod_list};

    fn nodes() -> Vec<KubeNode> {
        parse_node_list(
            r#"{"items":[
              {"metadata":{"name":"a","labels":{"skypilot.co/accelerator":"h100"}},
               "status":{"capacity":{"cpu":"8","memory":"32Gi","nvidia.com/gpu":"8"},
                         "allocatable":{"cpu":"8","memory":"32Gi","nvidia.com/gpu":"6"},
                         "conditions":[{"type":"Ready","status":"True"}]}},
              {"metadata":{"name":"b","labels":{"skypilot.co/accelerator":"h100"}},
               "spec":{"taints":[{"key":"dedicated","effect":"NoSchedule"}]},
               "status":{"capacity":{"cpu":"3500m","nvidia.com/gpu":"4"},
                         "allocatable":{"nvidia.com/gpu":"4"},
                         "conditions":[{"type":"Ready","status":"True"}]}},
              {"metadata":{"name":"c"},"status":{"capacity":{"cpu":"2","memory":"4Gi"},
               "conditions":[{"type":"Ready","status":"False"}]}}
            ]}"#
            .as_bytes(),
        )
        .expect("nodes")
    }

    #[test]
    fn counts_capacity_and_free_gpus() {
        let nodes = nodes();
        let pods = Pods::Listed(
            parse_pod_list(
                r#"{"items":[{"metadata":{"namespace":"x"},"spec":{"nodeName":"a","containers":[
                   {"resources":{"requests":{"nvidia.com/gpu":"3","cpu":"2","memory":"8Gi"}}}]},
                   "status":{"phase":"Running"}}]}"#
                    .as_bytes(),
            )
            .expect("pods"),
        );
        let ctx = ContextGpuInput {
            name: "ctx",
            nodes: &nodes,
            pods: &pods,
            tolerations: None,
        };
        assert!(needs_pods(&nodes));
        let gpus = realtime_gpus(&ctx, None, None);
        assert_eq!(
            gpus,
            [RealtimeGpu {
                gpu: "H100".into(),
                counts: vec![1, 2, 4, 8],
                capacity: 12,
                available: 3,
            }]
        );
        let by4 = realtime_gpus(&ctx, Some("h1"), Some(4));
        assert_eq!(
            (by4[0].capacity, by4[0].available, by4[0].counts.clone()),
            (12, 0, vec![4])
        );
        assert!(realtime_gpus(&ctx, Some("A100"), None).is_empty());
        let info = node_info(&ctx);
        assert_eq!(info.nodes.len(), 3);
        assert_eq!((info.nodes[0].total, info.nodes[0].free), (8, 3));
        assert_eq!(info.nodes[0].cpus_free, Some(6.0));
        assert_eq!(info.nodes[1].free, 0);
        assert_eq!(info.nodes[1].cpus, Some(4.0));
        assert_eq!(info.nodes[1].memory_gib, None);
        assert_eq!(info.not_ready()["H100"], 4);
        let forbidden = ContextGpuInput {
            pods: &Pods::Forbidden,
            ..ctx
        };
        assert_eq!(realtime_gpus(&forbidden, None, None)[0].available, -1);
        assert_eq!(node_info(&forbidden).nodes[0].cpus_free, None);
        assert_eq!(
            quantities(&ctx, None, Some(2)),
            [("H100".to_string(), vec![2])]
        );
    }
}
