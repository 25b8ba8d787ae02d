//! The Kubernetes virtual catalog: nodes per context and the fits check.
//!
//! This module is the *pure* half of the Kubernetes support: it parses the
//! API server's `NodeList` JSON from any [`Read`](std::io::Read), turns a
//! resource request into SkyPilot's virtual instance type
//! (`4CPU--16GB--H100:1`), decides whether such a type fits on a context's
//! nodes (SkyPilot's `check_instance_fits`, with its error texts), prices it
//! from the `kubernetes.pricing` config, and computes the allowed contexts.
//! There is no network, file system, async or kube/k8s-openapi type here;
//! the I/O edge is `optimizer::clouds::kubernetes`.
//!
//! The parts, one file each (private; everything is re-exported here, so
//! callers write `planner::catalog::kubernetes::KubeNode` and need not know
//! the layout):
//! * `nodes`: contexts, nodes and `NodeList` parsing, and what a context's
//!   nodes say (label formatter, GPU resource key, network);
//! * `pods`: `PodList` parsing and what the pods hold of each node;
//! * `taints`: which taints make a node unschedulable, and the configured
//!   tolerations;
//! * `quantity`: CPU and memory quantities;
//! * `instance_type`: the virtual instance type and the one a request asks for;
//! * `labels`: GPU label conventions, canonical GPU names, TPU names (of
//!   names and label values alone, no node);
//! * `fits`: whether a type fits on a context's nodes;
//! * `pricing`: `kubernetes.pricing` and hourly costs;
//! * `contexts`: the allowed contexts and the unreachable-context messages.
//!
//! Deviations from SkyPilot 0.14.1 that are deliberate:
//! * CPU/memory in [`fits()`] use the node *capacity*, as SkyPilot does; the
//!   allocatable values are kept on [`KubeNode`] for display only.
//! * Labels are kept in a sorted map; SkyPilot iterates them in API order.
//!   This only matters for a node carrying two label keys of the same
//!   formatter (e.g. both GKE GPU and TPU labels).
//! * Inputs SkyPilot would crash on (missing `status.capacity`, malformed
//!   quantities or TPU labels) are tolerated: missing values count as 0.

mod contexts;
mod fits;
mod instance_type;
mod labels;
mod node_page;
mod nodes;
#[cfg(test)]
mod nodes_reference;
mod pods;
mod pricing;
mod quantity;
mod taints;

#[cfg(test)]
mod test_nodes;

pub use contexts::{
    AllowedContexts, allowed_contexts, unreachable_api_message, unreachable_timeout_message,
};
pub use fits::fits;
pub use instance_type::{InvalidInstanceType, KubeInstanceType};
pub use labels::{
    CANONICAL_GPU_NAMES, LabelFormatter, accelerator_name_matches, canonical_gpu_name,
    is_tpu_on_gke, normalize_tpu_accelerator_name,
};
pub use nodes::{
    ACCELERATOR_RESOURCE_KEYS, AMD_GPU_KEY, KubeContext, KubeNode, KubeParseError, KubeTaint,
    ListPage, NEURON_RESOURCE_KEY, NVIDIA_GPU_KEY, TPU_RESOURCE_KEY, TpuSlice,
    detect_label_formatter, gpu_resource_key, has_high_performance_network, parse_node_list,
    parse_node_list_with, parse_node_page, reduce_tpu_topology,
};
pub use pods::{
    EXCLUDED_POD_PHASES, KubePod, NodeAllocation, accelerator_request, allocated_by_node,
    parse_pod_list, parse_pod_page, pod_field_selector,
};
pub use pricing::{KubePricing, KubePricingLevel, PricingConfigError, hourly_cost};
pub use quantity::{parse_cpu_quantity, parse_memory_gib};
pub use taints::{NodeTaint, Toleration, configured_tolerations, node_taints};
