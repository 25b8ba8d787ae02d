//! Pods, and what they hold of each node: the API server's `PodList` JSON
//! and SkyPilot 0.14.1's per-node sums of the pods' requests
//! (`sky/provision/kubernetes/utils.py::get_allocated_resources_by_node`,
//! `V1Pod.from_dict`, `should_exclude_pod_from_gpu_allocation`).
//!
//! Only what those sums read is kept: namespace, phase, node and each
//! container's requests for CPU, memory and the accelerator resources.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::nodes::{
    ACCELERATOR_RESOURCE_KEYS, KubeParseError, ListPage, NEURON_RESOURCE_KEY, TPU_RESOURCE_KEY,
    continue_token, device_count, lenient_string_map, null_as_default,
};
use super::quantity::{parse_cpu_quantity, parse_memory_gib};

/// The phases SkyPilot's field selector leaves out
/// (`status.phase!=Succeeded,...`: every `POD_STATUSES` but `Running` and
/// `Pending`). The API server applies it; it is applied again here so that
/// a server ignoring field selectors (or an offline fixture) counts the same.
pub const EXCLUDED_POD_PHASES: [&str; 4] = ["Failed", "Succeeded", "Terminating", "Unknown"];

/// The `fieldSelector` SkyPilot lists pods with.
pub fn pod_field_selector() -> String {
    EXCLUDED_POD_PHASES
        .iter()
        .map(|p| format!("status.phase!={p}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// Namespace of CoreWeave's low-priority verification pods, which SkyPilot
/// does not count (`should_exclude_pod_from_gpu_allocation`).
const EXCLUDED_NAMESPACE: &str = "cw-hpc-verification";

/// The parts of a pod that count towards its node's allocation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KubePod {
    /// `metadata.namespace`.
    pub namespace: String,
    /// `status.phase`.
    pub phase: String,
    /// `spec.nodeName` (empty: not scheduled).
    pub node_name: String,
    /// Per container with requests: the CPU, memory and accelerator requests.
    pub requests: Vec<BTreeMap<String, String>>,
}

/// What the pods hold of one node.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct NodeAllocation {
    /// Accelerator devices requested.
    pub accelerators: u32,
    /// CPU cores requested.
    pub cpus: f64,
    /// Memory requested, in GiB.
    pub memory_gib: f64,
}

#[derive(Deserialize)]
struct RawPodList {
    #[serde(default, deserialize_with = "null_as_default")]
    items: Vec<RawPod>,
    #[serde(default, deserialize_with = "continue_token")]
    metadata: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawPod {
    #[serde(deserialize_with = "null_as_default")]
    metadata: RawPodMeta,
    #[serde(deserialize_with = "null_as_default")]
    spec: RawPodSpec,
    #[serde(deserialize_with = "null_as_default")]
    status: RawPodStatus,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawPodMeta {
    #[serde(deserialize_with = "null_as_default")]
    namespace: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawPodSpec {
    #[serde(rename = "nodeName", deserialize_with = "null_as_default")]
    node_name: String,
    #[serde(deserialize_with = "null_as_default")]
    containers: Vec<RawContainer>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawContainer {
    #[serde(deserialize_with = "null_as_default")]
    resources: RawResources,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawResources {
    #[serde(deserialize_with = "lenient_string_map")]
    requests: BTreeMap<String, String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawPodStatus {
    #[serde(deserialize_with = "null_as_default")]
    phase: String,
}

/// Parses the API server's `PodList` JSON (`GET /api/v1/pods`). Malformed
/// fields read as absent; only a document that is not a JSON object with an
/// `items` array is an error.
pub fn parse_pod_list(json: &[u8]) -> Result<Vec<KubePod>, KubeParseError> {
    parse_pod_page(json).map(|(pods, _)| pods)
}

/// Like [`parse_pod_list`], for one page of a paged listing: the pods and
/// the next page's token, in one pass over the answer.
pub fn parse_pod_page(json: &[u8]) -> Result<ListPage<KubePod>, KubeParseError> {
    let list: RawPodList = super::nodes::from_json(json)?;
    let next = list.metadata;
    let pods = list
        .items
        .into_iter()
        .map(|raw| KubePod {
            namespace: raw.metadata.namespace,
            phase: raw.status.phase,
            node_name: raw.spec.node_name,
            requests: raw
                .spec
                .containers
                .into_iter()
                .map(|c| {
                    c.resources
                        .requests
                        .into_iter()
                        .filter(|(k, _)| {
                            k == "cpu"
                                || k == "memory"
                                || ACCELERATOR_RESOURCE_KEYS.contains(&k.as_str())
                        })
                        .collect::<BTreeMap<_, _>>()
                })
                .filter(|r| !r.is_empty())
                .collect(),
        })
        .collect();
    Ok((pods, next))
}

/// `get_node_accelerator_count` over a request or resource map: the GPU key,
/// then TPUs, then Neuron devices.
pub fn accelerator_request(requests: &BTreeMap<String, String>, gpu_key: &str) -> u32 {
    [gpu_key, TPU_RESOURCE_KEY, NEURON_RESOURCE_KEY]
        .iter()
        .find_map(|k| requests.get(*k))
        .and_then(|q| device_count(q))
        .unwrap_or(0)
}

/// SkyPilot's `get_allocated_resources_by_node`: per node name, the summed
/// requests of its pods that are neither finished nor CoreWeave verification
/// pods, with `gpu_key` the cluster's GPU resource.
pub fn allocated_by_node(pods: &[KubePod], gpu_key: &str) -> BTreeMap<String, NodeAllocation> {
    let mut out: BTreeMap<String, NodeAllocation> = BTreeMap::new();
    for pod in pods {
        if pod.namespace == EXCLUDED_NAMESPACE
            || EXCLUDED_POD_PHASES.contains(&pod.phase.as_str())
            || pod.node_name.is_empty()
        {
            continue;
        }
        let mut sum = NodeAllocation::default();
        for requests in &pod.requests {
            sum.accelerators = sum
                .accelerators
                .saturating_add(accelerator_request(requests, gpu_key));
            sum.cpus += requests
                .get("cpu")
                .and_then(|q| parse_cpu_quantity(q))
                .unwrap_or(0.0);
            sum.memory_gib += requests
                .get("memory")
                .and_then(|q| parse_memory_gib(q))
                .unwrap_or(0.0);
        }
        if sum.accelerators > 0 || sum.cpus > 0.0 || sum.memory_gib > 0.0 {
            let entry = out.entry(pod.node_name.clone()).or_default();
            entry.accelerators = entry.accelerators.saturating_add(sum.accelerators);
            entry.cpus += sum.cpus;
            entry.memory_gib += sum.memory_gib;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_what_skypilot_counts() {
        let pods = parse_pod_list(
            r#"{"items":[
              {"metadata":{"namespace":"a"},"spec":{"nodeName":"n1","containers":[
                {"resources":{"requests":{"nvidia.com/gpu":"2","cpu":"500m","memory":"1Gi"}}},
                {"resources":{"requests":{"cpu":1}}},{"resources":null}]},"status":{"phase":"Running"}},
              {"metadata":{"namespace":"a"},"spec":{"nodeName":"n1","containers":[
                {"resources":{"requests":{"nvidia.com/gpu":"8"}}}]},"status":{"phase":"Succeeded"}},
              {"metadata":{"namespace":"cw-hpc-verification"},"spec":{"nodeName":"n1","containers":[
                {"resources":{"requests":{"nvidia.com/gpu":"8"}}}]},"status":{"phase":"Running"}},
              {"metadata":{"namespace":"a"},"spec":{"containers":[
                {"resources":{"requests":{"nvidia.com/gpu":"8"}}}]},"status":{"phase":"Pending"}},
              {"metadata":{"namespace":"a"},"spec":{"nodeName":"n2","containers":[
                {"resources":{"requests":{"google.com/tpu":"4"}}}]},"status":{"phase":"Pending"}}
            ]}"#
            .as_bytes(),
        )
        .expect("parse");
        let by_node = allocated_by_node(&pods, "nvidia.com/gpu");
        let n1 = by_node["n1"];
        assert_eq!(n1.accelerators, 2);
        assert!((n1.cpus - 1.5).abs() < 1e-9);
        assert!((n1.memory_gib - 1.0).abs() < 1e-9);
        assert_eq!(by_node["n2"].accelerators, 4);
        assert_eq!(by_node.len(), 2);
        assert!(parse_pod_list(&b"[1,2]"[..]).is_err());
        assert!(parse_pod_list(&b"not json"[..]).is_err());
        assert_eq!(
            pod_field_selector(),
            "status.phase!=Failed,status.phase!=Succeeded,status.phase!=Terminating,status.phase!=Unknown"
        );
    }
}
