//! Kubernetes nodes as the optimizer sees them, and the API server's
//! `NodeList` JSON they are parsed from.
//!
//! A node keeps what SkyPilot 0.14.1 reads from it in
//! `sky/provision/kubernetes/utils.py` (`V1Node.from_dict`, `V1Node.is_ready`,
//! `get_node_accelerator_count`, `is_multi_host_tpu`): capacities, allocatable
//! accelerators, the GKE TPU slice and the labels; and what a context's
//! nodes say about the cluster (`detect_gpu_label_formatter`,
//! `get_gpu_resource_key`, the network scan of `_detect_network_type`). The JSON comes from any
//! [`Read`], so the listing itself (network, fixtures, cache) stays in the
//! `optimizer` crate.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::labels::{
    GKE_ACCELERATOR_COUNT_LABEL, GKE_TPU_LABEL, GKE_TPU_TOPOLOGY_LABEL, LabelFormatter,
    canonical_gpu_name,
};
use super::quantity::{parse_cpu_quantity, parse_memory_gib};

/// One allowed kubeconfig context and what listing its nodes gave.
#[derive(Debug, Clone, PartialEq)]
pub struct KubeContext {
    /// The context name (shown as the region, `Kubernetes (<context>)`).
    pub name: String,
    /// The nodes, or why they could not be listed (the context is then excluded).
    pub nodes: Result<Vec<KubeNode>, String>,
}

/// The parts of a Kubernetes node the optimizer looks at.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct KubeNode {
    /// Node name (`metadata.name`).
    pub name: String,
    /// Whether the `Ready` condition is `True`.
    pub ready: bool,
    /// Whether the node is cordoned (`spec.unschedulable`).
    pub unschedulable: bool,
    /// CPU capacity in cores (`status.capacity.cpu`; `3500m` → 3.5). [`fits`](fn@super::fits) uses this.
    pub cpu_capacity: f64,
    /// Memory capacity in GiB (`status.capacity.memory`). [`fits`](fn@super::fits) uses this.
    pub memory_capacity_gib: f64,
    /// Ephemeral-storage capacity in GiB, when the node reports it.
    pub ephemeral_storage_gib: Option<f64>,
    /// Allocatable CPU cores (`status.allocatable.cpu`).
    pub cpu_allocatable: f64,
    /// Allocatable memory in GiB (`status.allocatable.memory`).
    pub memory_allocatable_gib: f64,
    /// Accelerator name read from the node labels, canonicalised as SkyPilot
    /// does (`nvidia-tesla-t4` → `T4`, `NVIDIA-A100-SXM4-80GB` → `A100-80GB`,
    /// `h100` → `H100`, TPUs keep their GKE name such as `tpu-v5-lite-podslice`).
    pub accelerator: Option<String>,
    /// Allocatable accelerator devices by resource name, for the resource keys
    /// SkyPilot knows ([`ACCELERATOR_RESOURCE_KEYS`]), e.g. `nvidia.com/gpu → 8`.
    pub accelerator_resources: BTreeMap<String, u32>,
    /// Single-host/multi-host TPU slice information (GKE TPU nodes only).
    pub tpu: Option<TpuSlice>,
    /// All node labels.
    pub labels: BTreeMap<String, String>,
    /// Accelerator devices in `status.capacity`, for the keys of
    /// [`ACCELERATOR_RESOURCE_KEYS`]: they include devices the device plugin
    /// withdrew from scheduling, which `accelerator_resources` drops.
    pub accelerator_capacity: BTreeMap<String, u32>,
    /// Taints (`spec.taints`), in API order.
    pub taints: Vec<KubeTaint>,
    /// `status.capacity.cpu` as `sky gpus list` reads it
    /// (`float(parse_cpu_or_gpu_resource(...))`: millicores rounded up);
    /// `None` when absent or unparsable.
    pub capacity_cpus: Option<f64>,
    /// `status.capacity.memory` in GiB as `sky gpus list` reads it; `None`
    /// when absent, unparsable, or the CPU quantity already failed (SkyPilot
    /// parses both in one `try`).
    pub capacity_memory_gib: Option<f64>,
}

/// A node taint (`spec.taints[]`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct KubeTaint {
    /// `key`.
    pub key: String,
    /// `value`, when set and not empty.
    pub value: Option<String>,
    /// `effect` (`NoSchedule`, `PreferNoSchedule`, `NoExecute`).
    pub effect: String,
}

/// A GKE TPU node's slice, from its labels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TpuSlice {
    /// `cloud.google.com/gke-tpu-accelerator`, e.g. `tpu-v5-lite-podslice`.
    pub accelerator: String,
    /// `cloud.google.com/gke-tpu-topology`, e.g. `2x2`.
    pub topology: String,
    /// Chips on this node (`cloud.google.com/gke-accelerator-count`).
    pub chips: u32,
    /// Chips in the whole slice (product of the topology dimensions).
    pub topology_chips: u32,
}

impl TpuSlice {
    /// Whether the slice spans several hosts (SkyPilot skips those).
    pub fn is_multi_host(&self) -> bool {
        self.chips != self.topology_chips
    }
}

impl KubeNode {
    /// Allocatable accelerator count as SkyPilot's `get_node_accelerator_count`
    /// reads it (GPU key, then `google.com/tpu`, then `aws.amazon.com/neuron`),
    /// assuming the cluster's GPU resource key is `gpu_key`.
    pub fn accelerator_count_for(&self, gpu_key: &str) -> u32 {
        [gpu_key, TPU_RESOURCE_KEY, NEURON_RESOURCE_KEY]
            .iter()
            .find_map(|k| self.accelerator_resources.get(*k).copied())
            .unwrap_or(0)
    }

    /// `status.capacity` accelerator count, read like
    /// [`accelerator_count_for`](Self::accelerator_count_for).
    pub fn capacity_count_for(&self, gpu_key: &str) -> u32 {
        [gpu_key, TPU_RESOURCE_KEY, NEURON_RESOURCE_KEY]
            .iter()
            .find_map(|k| self.accelerator_capacity.get(*k).copied())
            .unwrap_or(0)
    }

    /// Allocatable GPU/TPU/Neuron count (NVIDIA key first, then AMD, TPU, Neuron).
    pub fn gpu_count(&self) -> u32 {
        let gpu_key = if self.accelerator_resources.contains_key(NVIDIA_GPU_KEY) {
            NVIDIA_GPU_KEY
        } else {
            AMD_GPU_KEY
        };
        self.accelerator_count_for(gpu_key)
    }
}

/// SkyPilot's `detect_gpu_label_formatter` over a context's nodes.
pub fn detect_label_formatter(nodes: &[KubeNode]) -> Option<LabelFormatter> {
    LabelFormatter::REGISTRY.into_iter().find(|lf| {
        for node in nodes {
            for (k, v) in &node.labels {
                if !lf.matches_key(k) || v.trim().is_empty() {
                    continue;
                }
                // The first non-empty matching label decides for this formatter.
                return lf.validate(v).is_ok();
            }
        }
        false
    })
}

/// The cluster's GPU resource key: `amd.com/gpu` if any node has it, else `nvidia.com/gpu`.
pub fn gpu_resource_key(nodes: &[KubeNode]) -> &'static str {
    if nodes
        .iter()
        .any(|n| n.accelerator_resources.contains_key(AMD_GPU_KEY))
    {
        AMD_GPU_KEY
    } else {
        NVIDIA_GPU_KEY
    }
}

/// Whether a node belongs to a cluster with high-performance networking
/// (`Kubernetes._detect_network_type` for `network_tier: best`, the node
/// scan): Nebius, CoreWeave InfiniBand, Together, OCI RoCE and AWS EKS nodes
/// by label prefix, GKE A3/A4 GPUDirect machines by machine family or type.
/// The autoscaler-based cold-start fallbacks (no such node running yet) are
/// not modelled: they need the autoscaler's machine list.
pub fn has_high_performance_network(node: &KubeNode) -> bool {
    const PREFIXES: [&str; 7] = [
        "nebius.com/",
        "ib.coreweave.cloud/",
        "node-role.together.ai/",
        "oci.oraclecloud.com/rdma.",
        "k8s.io/cloud-provider-aws",
        "topology.k8s.aws",
        "topology.ebs.csi.aws.com",
    ];
    if node
        .labels
        .keys()
        .any(|k| PREFIXES.iter().any(|p| k.starts_with(p)))
    {
        return true;
    }
    let label = |k: &str| node.labels.get(k).map(String::as_str).unwrap_or("");
    let family = label("cloud.google.com/machine-family");
    let instance_type = label("node.kubernetes.io/instance-type");
    if matches!(family, "a3" | "a4")
        && ([
            "a3-highgpu-8g",
            "a3-edgegpu-8g",
            "a3-megagpu-8g",
            "a4-highgpu-8g",
            "a3-ultragpu-8g",
        ]
        .iter()
        .any(|t| instance_type.contains(t))
            || family == "a4")
    {
        return true;
    }
    // `gcp_constants.GPU_DIRECT_TCPX_INSTANCE_TYPES` with a high-end GPU.
    let gke_accelerator = label("cloud.google.com/gke-accelerator");
    ["a3-edgegpu-8g", "a3-highgpu-8g"].contains(&instance_type)
        && ["nvidia-h100", "nvidia-h200", "nvidia-b200"]
            .iter()
            .any(|g| gke_accelerator.contains(g))
}

/// NVIDIA device-plugin resource.
pub const NVIDIA_GPU_KEY: &str = "nvidia.com/gpu";
/// AMD device-plugin resource.
pub const AMD_GPU_KEY: &str = "amd.com/gpu";
/// Google TPU resource.
pub const TPU_RESOURCE_KEY: &str = "google.com/tpu";
/// AWS Neuron (Trainium/Inferentia) resource.
pub const NEURON_RESOURCE_KEY: &str = "aws.amazon.com/neuron";
/// Accelerator resource keys kept in [`KubeNode::accelerator_resources`].
pub const ACCELERATOR_RESOURCE_KEYS: [&str; 4] = [
    AMD_GPU_KEY,
    NVIDIA_GPU_KEY,
    TPU_RESOURCE_KEY,
    NEURON_RESOURCE_KEY,
];

/// Why a `NodeList` document could not be parsed at all.
///
/// Individual malformed fields never fail the parse; they read as absent.
#[derive(Debug, thiserror::Error)]
pub enum KubeParseError {
    /// The input is not a JSON `NodeList` (or could not be read).
    #[error("invalid NodeList JSON: {0}")]
    Json(#[from] serde_json::Error),
}

// The part of the API's `NodeList` that is read, as serde structs rather than
// k8s-openapi types (this crate has no Kubernetes dependency). Every field may
// be absent or null, so that one odd node never fails the whole listing.
//
// The list itself is read by `node_page::NodePage`, which makes each item
// a `KubeNode` as soon as it is read.

/// `metadata.continue` of a list, when a non-empty string: the token of the
/// next page. Any other `metadata` (absent, null, not an object, no token)
/// is no next page, never an error. Read in place: only the token is kept
/// (a later duplicate `continue` wins, as in a JSON object read whole).
pub(super) fn continue_token<'de, D>(d: D) -> Result<Option<String>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    use serde::de::IgnoredAny;
    /// Any metadata value; a map is searched for `continue`.
    struct Meta;
    impl<'de> serde::de::Visitor<'de> for Meta {
        type Value = Option<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("any valid JSON value")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Option<String>, A::Error> {
            let mut token = None;
            while let Some(is_continue) = map.next_key_seed(KeyIs("continue"))? {
                if is_continue {
                    token = map.next_value::<NonEmptyString>()?.0;
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(token)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Option<String>, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Option<String>, D::Error> {
            d.deserialize_any(Meta)
        }
        fn visit_none<E>(self) -> Result<Option<String>, E> {
            Ok(None)
        }
        fn visit_unit<E>(self) -> Result<Option<String>, E> {
            Ok(None)
        }
        fn visit_bool<E>(self, _: bool) -> Result<Option<String>, E> {
            Ok(None)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Option<String>, E> {
            Ok(None)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Option<String>, E> {
            Ok(None)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Option<String>, E> {
            Ok(None)
        }
        fn visit_str<E>(self, _: &str) -> Result<Option<String>, E> {
            Ok(None)
        }
    }
    d.deserialize_any(Meta)
}

/// A map key compared with one name (`true`: it is that name), read
/// without allocating.
pub(super) struct KeyIs(pub(super) &'static str);

impl<'de> serde::de::DeserializeSeed<'de> for KeyIs {
    type Value = bool;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeyIs {
    type Value = bool;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a string key")
    }
    fn visit_str<E>(self, v: &str) -> Result<bool, E> {
        Ok(v == self.0)
    }
}

/// A non-empty JSON string; any other value reads as `None`.
struct NonEmptyString(Option<String>);

impl<'de> Deserialize<'de> for NonEmptyString {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(NonEmptyString(match AnyString::deserialize(d)?.0 {
            Some(s) if !s.is_empty() => Some(s),
            _ => None,
        }))
    }
}

/// A JSON value: `Some` for a string, `None` for anything else (skipped).
struct AnyString(Option<String>);

impl<'de> Deserialize<'de> for AnyString {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::IgnoredAny;
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = AnyString;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any valid JSON value")
            }
            fn visit_str<E>(self, v: &str) -> Result<AnyString, E> {
                Ok(AnyString(Some(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<AnyString, E> {
                Ok(AnyString(Some(v)))
            }
            fn visit_bool<E>(self, _: bool) -> Result<AnyString, E> {
                Ok(AnyString(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<AnyString, E> {
                Ok(AnyString(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<AnyString, E> {
                Ok(AnyString(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<AnyString, E> {
                Ok(AnyString(None))
            }
            fn visit_unit<E>(self) -> Result<AnyString, E> {
                Ok(AnyString(None))
            }
            fn visit_none<E>(self) -> Result<AnyString, E> {
                Ok(AnyString(None))
            }
            fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<AnyString, D::Error> {
                AnyString::deserialize(d)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<AnyString, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(AnyString(None))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<AnyString, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(AnyString(None))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawNode<'a> {
    #[serde(deserialize_with = "null_as_default")]
    metadata: RawMeta,
    #[serde(deserialize_with = "null_as_default")]
    spec: RawSpec,
    #[serde(borrow, deserialize_with = "null_as_default")]
    status: RawStatus<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawMeta {
    #[serde(deserialize_with = "null_as_default")]
    name: String,
    #[serde(deserialize_with = "lenient_string_map")]
    labels: BTreeMap<String, String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawSpec {
    #[serde(deserialize_with = "null_as_default")]
    unschedulable: bool,
    #[serde(deserialize_with = "null_as_default")]
    taints: Vec<RawTaint>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawTaint {
    #[serde(deserialize_with = "null_as_default")]
    key: String,
    #[serde(deserialize_with = "null_as_default")]
    value: Option<String>,
    #[serde(deserialize_with = "null_as_default")]
    effect: String,
}

// The status is read in place where it can be (its strings borrowed from
// the answer): only what the node keeps is copied.
#[derive(Deserialize, Default)]
#[serde(default)]
struct RawStatus<'a> {
    #[serde(borrow)]
    capacity: RawResources<'a>,
    #[serde(borrow)]
    allocatable: RawResources<'a>,
    #[serde(deserialize_with = "null_as_default")]
    conditions: Readiness,
}

/// `status.conditions` read as `Vec<RawCondition>` reads it (null: none;
/// otherwise a sequence of conditions, each read whole), keeping only what
/// the node is told: whether the first `Ready` condition says `True`.
#[derive(Default)]
struct Readiness(Option<bool>);

impl<'de> Deserialize<'de> for Readiness {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Conditions;
        impl<'de> serde::de::Visitor<'de> for Conditions {
            type Value = Readiness;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Readiness, A::Error> {
                let mut ready = None;
                while let Some(c) = seq.next_element::<RawCondition<'de>>()? {
                    if ready.is_none() && c.kind.0 == "Ready" {
                        ready = Some(c.status.0 == "True");
                    }
                }
                Ok(Readiness(ready))
            }
        }
        d.deserialize_seq(Conditions)
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawCondition<'a> {
    #[serde(rename = "type", borrow, deserialize_with = "null_as_default")]
    kind: Str<'a>,
    #[serde(borrow, deserialize_with = "null_as_default")]
    status: Str<'a>,
}

/// A JSON string as `String` reads it (anything else is the same error,
/// "expected a string"), borrowed from the answer when it has no escapes.
#[derive(Default)]
struct Str<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Cow<'de, str>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
                Ok(Cow::Borrowed(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Cow<'de, str>, E> {
                Ok(Cow::Owned(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<Cow<'de, str>, E> {
                Ok(Cow::Owned(v))
            }
        }
        d.deserialize_str(V).map(Str)
    }
}

/// The resource names a node's `capacity` / `allocatable` is read for:
/// CPU, memory, ephemeral storage and [`ACCELERATOR_RESOURCE_KEYS`].
const RESOURCE_NAMES: [&str; 7] = [
    "cpu",
    "memory",
    "ephemeral-storage",
    AMD_GPU_KEY,
    NVIDIA_GPU_KEY,
    TPU_RESOURCE_KEY,
    NEURON_RESOURCE_KEY,
];

/// A `status.capacity` / `status.allocatable` map as [`lenient_string_map`]
/// reads it (scalars as strings, a later duplicate wins, a value that is not
/// a scalar drops its key; null or absent: empty), keeping only the entries
/// of [`RESOURCE_NAMES`]: the others (`pods`, `hugepages-*`, device plugins
/// the optimizer does not know) are skipped without being copied.
#[derive(Default)]
struct RawResources<'a>([Option<Cow<'a, str>>; RESOURCE_NAMES.len()]);

impl RawResources<'_> {
    /// The quantity of `name`, one of [`RESOURCE_NAMES`].
    fn get(&self, name: &str) -> Option<&str> {
        let i = RESOURCE_NAMES.iter().position(|n| *n == name)?;
        self.0[i].as_deref()
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for RawResources<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        /// The index in [`RESOURCE_NAMES`] of a key, read without allocating.
        struct Name;
        impl<'de> serde::de::DeserializeSeed<'de> for Name {
            type Value = Option<usize>;
            fn deserialize<D: serde::Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Option<usize>, D::Error> {
                d.deserialize_str(self)
            }
        }
        impl<'de> serde::de::Visitor<'de> for Name {
            type Value = Option<usize>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string key")
            }
            fn visit_str<E>(self, v: &str) -> Result<Option<usize>, E> {
                Ok(RESOURCE_NAMES.iter().position(|n| *n == v))
            }
        }
        struct Entries;
        impl<'de> serde::de::Visitor<'de> for Entries {
            type Value = RawResources<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<RawResources<'de>, A::Error> {
                let mut out = RawResources::default();
                while let Some(name) = map.next_key_seed(Name)? {
                    match name {
                        Some(i) => out.0[i] = map.next_value::<LenientScalar<'de>>()?.0,
                        None => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(out)
            }
        }
        /// `null` is an empty map; anything else must be a map.
        struct Nullable;
        impl<'de> serde::de::Visitor<'de> for Nullable {
            type Value = RawResources<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_none<E>(self) -> Result<RawResources<'de>, E> {
                Ok(RawResources::default())
            }
            fn visit_unit<E>(self) -> Result<RawResources<'de>, E> {
                Ok(RawResources::default())
            }
            fn visit_some<D: serde::Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<RawResources<'de>, D::Error> {
                d.deserialize_map(Entries)
            }
        }
        d.deserialize_option(Nullable)
    }
}

pub(super) fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A string map that also accepts numbers/bools as values (`"cpu": 4`) and null.
///
/// Read entry by entry, as `BTreeMap<String, serde_json::Value>` then
/// filtered would read it (a later duplicate key wins; a value that is not
/// a scalar drops its key), without building a `Value` per entry: labels and
/// resource maps are most of a node list.
pub(super) fn lenient_string_map<'de, D>(d: D) -> Result<BTreeMap<String, String>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let raw: Option<LenientMap> = Option::deserialize(d)?;
    Ok(raw.map(|m| m.0).unwrap_or_default())
}

/// A JSON object's scalar entries as strings (see [`lenient_string_map`]).
struct LenientMap(BTreeMap<String, String>);

impl<'de> Deserialize<'de> for LenientMap {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> serde::de::Visitor<'de> for Entries {
            type Value = LenientMap;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<LenientMap, A::Error> {
                let mut out = BTreeMap::new();
                while let Some((key, LenientScalar(value))) =
                    map.next_entry::<String, LenientScalar<'de>>()?
                {
                    match value {
                        Some(v) => {
                            out.insert(key, v.into_owned());
                        }
                        None => {
                            out.remove(&key);
                        }
                    }
                }
                Ok(LenientMap(out))
            }
        }
        d.deserialize_map(Entries)
    }
}

/// A JSON value as `serde_json::Value`'s display of it when it is a string,
/// number or bool; `None` for anything else (read and skipped). A string
/// without escapes is borrowed from the answer.
struct LenientScalar<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for LenientScalar<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::IgnoredAny;
        struct Scalar;
        impl<'de> serde::de::Visitor<'de> for Scalar {
            type Value = LenientScalar<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any valid JSON value")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<LenientScalar<'de>, E> {
                Ok(LenientScalar(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E>(self, v: &str) -> Result<LenientScalar<'de>, E> {
                Ok(LenientScalar(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E>(self, v: String) -> Result<LenientScalar<'de>, E> {
                Ok(LenientScalar(Some(Cow::Owned(v))))
            }
            fn visit_u64<E>(self, v: u64) -> Result<LenientScalar<'de>, E> {
                Ok(LenientScalar(Some(Cow::Owned(
                    serde_json::Number::from(v).to_string(),
                ))))
            }
            fn visit_i64<E>(self, v: i64) -> Result<LenientScalar<'de>, E> {
                Ok(LenientScalar(Some(Cow::Owned(
                    serde_json::Number::from(v).to_string(),
                ))))
            }
            fn visit_f64<E>(self, v: f64) -> Result<LenientScalar<'de>, E> {
                // `Value` keeps a non-finite float as null.
                Ok(LenientScalar(
                    serde_json::Number::from_f64(v).map(|n| Cow::Owned(n.to_string())),
                ))
            }
            fn visit_bool<E>(self, v: bool) -> Result<LenientScalar<'de>, E> {
                Ok(LenientScalar(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_unit<E>(self) -> Result<LenientScalar<'de>, E> {
                Ok(LenientScalar(None))
            }
            fn visit_none<E>(self) -> Result<LenientScalar<'de>, E> {
                Ok(LenientScalar(None))
            }
            fn visit_some<D: serde::Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<LenientScalar<'de>, D::Error> {
                LenientScalar::deserialize(d)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<LenientScalar<'de>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(LenientScalar(None))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<LenientScalar<'de>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LenientScalar(None))
            }
        }
        d.deserialize_any(Scalar)
    }
}

/// Parses the API server's `NodeList` JSON (`GET /api/v1/nodes`).
///
/// Missing or malformed fields are tolerated (a node without capacity has 0
/// CPUs); only a document that is not a JSON object with an `items` array
/// (or an unreadable input) is an error.
pub fn parse_node_list(json: &[u8]) -> Result<Vec<KubeNode>, KubeParseError> {
    parse_node_list_with(json, |_| None)
}

/// One page of a list answer: its items, and the `metadata.continue` token
/// of the next page (`None`: the last page).
pub type ListPage<T> = (Vec<T>, Option<String>);

/// Like [`parse_node_list`], for one page of a paged listing: the nodes and
/// the next page's token, in one pass over the answer.
pub fn parse_node_page(json: &[u8]) -> Result<ListPage<KubeNode>, KubeParseError> {
    super::node_page::read_node_page(json, &|_| None)
}

/// `json` read by serde_json as `from_slice` reads it, faster: a body that
/// is UTF-8 throughout (every real answer) is checked once, whole, and read
/// as a `str`, instead of each string being checked as it is read (a tenth
/// of a node page's parse). Any other body is read by `from_slice`, so
/// what is accepted and every error message are the same either way.
pub(super) fn from_json<'de, T: Deserialize<'de>>(json: &'de [u8]) -> serde_json::Result<T> {
    match std::str::from_utf8(json) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(json),
    }
}

/// Like [`parse_node_list`], with a caller-provided accelerator canonicaliser
/// (e.g. a case-insensitive catalog lookup) tried before SkyPilot's built-in
/// list of canonical GPU names. It receives the label formatter's output
/// (`H100`, `A100-80GB`, `RTX6000-ADA`, ...).
pub fn parse_node_list_with(
    json: &[u8],
    canonicalise: impl Fn(&str) -> Option<String>,
) -> Result<Vec<KubeNode>, KubeParseError> {
    // From a slice: serde_json's reader path goes byte by byte (it was 8 %
    // of a 64-context launch).
    Ok(super::node_page::read_node_page(json, &canonicalise)?.0)
}

pub(super) fn node_from_raw(
    raw: RawNode<'_>,
    canonicalise: &dyn Fn(&str) -> Option<String>,
    seen: &mut AcceleratorsSeen,
) -> KubeNode {
    let RawNode {
        metadata,
        spec,
        status,
    } = raw;
    let cpu = |m: &RawResources| m.get("cpu").and_then(parse_cpu_quantity);
    let ready = status.conditions.0 == Some(true);
    // Inserted one by one: `collect` into a map sorts a buffer first, which
    // cost more than the rest of the node's resources for one or two keys.
    let devices = |m: &RawResources| -> BTreeMap<String, u32> {
        let mut out = BTreeMap::new();
        for k in ACCELERATOR_RESOURCE_KEYS {
            if let Some(n) = m.get(k).and_then(device_count) {
                out.insert(k.to_string(), n);
            }
        }
        out
    };
    let accelerator_resources = devices(&status.allocatable);
    let accelerator_capacity = devices(&status.capacity);
    // Read once: the capacity's memory is both `memory_capacity_gib` and,
    // unless the CPU quantity failed, `capacity_memory_gib`.
    let memory_capacity = status.capacity.get("memory").and_then(parse_memory_gib);
    let capacity_cpus = status.capacity.get("cpu").map(parse_cpu_display);
    let capacity_memory_gib = match capacity_cpus {
        Some(None) => None,
        _ => memory_capacity,
    };
    let accelerator = node_accelerator(&metadata.labels, seen).map(|acc| {
        canonicalise(&acc)
            .or_else(|| canonical_gpu_name(&acc).map(str::to_string))
            .unwrap_or(acc)
    });
    let tpu = tpu_slice(&metadata.labels);
    let taints = spec
        .taints
        .into_iter()
        .map(|t| KubeTaint {
            key: t.key,
            value: t.value.filter(|v| !v.is_empty()),
            effect: t.effect,
        })
        .collect();
    KubeNode {
        name: metadata.name,
        ready,
        unschedulable: spec.unschedulable,
        cpu_capacity: cpu(&status.capacity).unwrap_or(0.0),
        memory_capacity_gib: memory_capacity.unwrap_or(0.0),
        ephemeral_storage_gib: status
            .capacity
            .get("ephemeral-storage")
            .and_then(parse_memory_gib),
        cpu_allocatable: cpu(&status.allocatable).unwrap_or(0.0),
        memory_allocatable_gib: status
            .allocatable
            .get("memory")
            .and_then(parse_memory_gib)
            .unwrap_or(0.0),
        accelerator,
        accelerator_resources,
        tpu,
        labels: metadata.labels,
        accelerator_capacity,
        taints,
        capacity_cpus: capacity_cpus.flatten(),
        capacity_memory_gib,
    }
}

/// A device count (`int(...)` in SkyPilot; fractional quantities are floored).
pub(super) fn device_count(q: &str) -> Option<u32> {
    q.trim()
        .parse::<u32>()
        .ok()
        .or_else(|| parse_cpu_quantity(q).map(|f| f.max(0.0).floor() as u32))
}

/// SkyPilot's `parse_cpu_or_gpu_resource`: `3500m` → 4 (millicores rounded
/// up), `3.5` → 3.5.
fn parse_cpu_display(q: &str) -> Option<f64> {
    let q = q.trim();
    match q.strip_suffix('m') {
        Some(milli) => milli.parse::<u64>().ok().map(|m| m.div_ceil(1000) as f64),
        None => q.parse::<f64>().ok().filter(|v| v.is_finite()),
    }
}

fn tpu_slice(labels: &BTreeMap<String, String>) -> Option<TpuSlice> {
    let accelerator = labels.get(GKE_TPU_LABEL)?.clone();
    let topology = labels
        .get(GKE_TPU_TOPOLOGY_LABEL)
        .cloned()
        .unwrap_or_default();
    let chips = labels
        .get(GKE_ACCELERATOR_COUNT_LABEL)
        .and_then(|c| c.trim().parse().ok())
        .unwrap_or(0);
    let topology_chips = reduce_tpu_topology(&topology).unwrap_or(chips);
    Some(TpuSlice {
        accelerator,
        topology,
        chips,
        topology_chips,
    })
}

/// Chips in a TPU topology (`2x2x1` → 4); `None` if malformed.
pub fn reduce_tpu_topology(topology: &str) -> Option<u32> {
    topology
        .split('x')
        .map(|d| d.trim().parse::<u32>().ok())
        .try_fold(1u32, |acc, d| acc.checked_mul(d?))
}

/// The accelerator a single node advertises: the first formatter (in
/// SkyPilot's priority order) with a non-empty, valid label on this node.
fn node_accelerator(
    labels: &BTreeMap<String, String>,
    seen: &mut AcceleratorsSeen,
) -> Option<String> {
    LabelFormatter::REGISTRY.iter().find_map(|lf| {
        labels.iter().find_map(|(k, v)| {
            if !lf.matches_key(k) || v.trim().is_empty() {
                return None;
            }
            seen.accelerator(*lf, v)
        })
    })
}

/// What the label values met so far in one answer name, by formatter and
/// value: a cluster's nodes mostly carry the same few GPU labels, and
/// reading a value (`gfd_accelerator` searches ~30 GPU names) cost more
/// than the rest of a node's parse.
#[derive(Default)]
pub(super) struct AcceleratorsSeen(Vec<(LabelFormatter, String, Option<String>)>);

impl AcceleratorsSeen {
    /// The accelerator `lf` reads from label value `value`: `None` when the
    /// value is invalid for it or names none.
    fn accelerator(&mut self, lf: LabelFormatter, value: &str) -> Option<String> {
        if let Some((_, _, known)) = self.0.iter().find(|(f, v, _)| *f == lf && v == value) {
            return known.clone();
        }
        let read = match lf.validate(value) {
            Ok(()) => lf
                .accelerator_from_value(value)
                .ok()
                .filter(|a| !a.is_empty()),
            Err(_) => None,
        };
        self.0.push((lf, value.to_string(), read.clone()));
        read
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::kubernetes::test_nodes::gpu_node;

    #[test]
    fn accelerator_labels() {
        let cases = [
            ("skypilot.co/accelerator", "h100", Some("H100")),
            ("skypilot.co/accelerator", "a100-80gb", Some("A100-80GB")),
            ("skypilot.co/accelerator", "t4g", Some("T4g")),
            (
                "skypilot.co/accelerator",
                "rtx6000-ada",
                Some("RTX6000-Ada"),
            ),
            ("skypilot.co/accelerator", "H100", None), // invalid: must be lower-case
            (
                "nvidia.com/gpu.product",
                "NVIDIA-H100-80GB-HBM3",
                Some("H100-80GB"),
            ),
            (
                "nvidia.com/gpu.product",
                "NVIDIA-A100-SXM4-40GB",
                Some("A100"),
            ),
            (
                "nvidia.com/gpu.product",
                "NVIDIA-A100-SXM4-80GB",
                Some("A100-80GB"),
            ),
            ("nvidia.com/gpu.product", "Tesla-T4", Some("T4")),
            ("nvidia.com/gpu.product", "NVIDIA-L40S", Some("L40S")),
            (
                "nvidia.com/gpu.product",
                "NVIDIA-GeForce-RTX-3070",
                Some("RTX3070"),
            ),
            ("nvidia.com/gpu.product", "NVIDIA-RTX-A6000", Some("A6000")),
            (
                "cloud.google.com/gke-accelerator",
                "nvidia-tesla-t4",
                Some("T4"),
            ),
            ("cloud.google.com/gke-accelerator", "nvidia-l4", Some("L4")),
            (
                "cloud.google.com/gke-accelerator",
                "nvidia-h100-80gb",
                Some("H100"),
            ),
            (
                "cloud.google.com/gke-accelerator",
                "nvidia-h100-mega-80gb",
                Some("H100-MEGA-80GB"),
            ),
            (
                "cloud.google.com/gke-accelerator",
                "nvidia-h200-141gb",
                Some("H200"),
            ),
            (
                "cloud.google.com/gke-accelerator",
                "nvidia-a100-80gb",
                Some("A100-80GB"),
            ),
            ("cloud.google.com/gke-accelerator", "weird", None),
            (
                "cloud.google.com/gke-tpu-accelerator",
                "tpu-v5-lite-podslice",
                Some("tpu-v5-lite-podslice"),
            ),
            ("karpenter.k8s.aws/instance-gpu-name", "a10g", Some("A10G")),
            (
                "karpenter.k8s.aws/instance-accelerator-name",
                "trainium2",
                Some("Trainium2"),
            ),
            ("gpu.nvidia.com/class", "H100_NVLINK_80GB", Some("H100")),
            ("nebius.com/gpu-name", "H200", Some("H200")),
            ("example.com/other", "h100", None),
        ];
        for (key, value, want) in cases {
            let n = gpu_node("n", (key, value), 1, "8", "32Gi", true);
            assert_eq!(n.accelerator.as_deref(), want, "{key}={value}");
        }
    }

    #[test]
    fn nodes_of_one_page_read_their_labels_as_nodes_alone_do() {
        // The page remembers what each (formatter, value) named: repeated,
        // invalid and mixed labels still read as they do on a node alone.
        let labels = [
            r#"{"nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3"}"#,
            r#"{"skypilot.co/accelerator":"H100"}"#,
            r#"{"skypilot.co/accelerator":"h100"}"#,
            r#"{"nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3","skypilot.co/accelerator":"a100"}"#,
            r#"{"skypilot.co/accelerator":"H100","nvidia.com/gpu.product":"Tesla-T4"}"#,
            r#"{"cloud.google.com/gke-accelerator":"weird"}"#,
            r#"{"cloud.google.com/gke-accelerator":"nvidia-l4"}"#,
            r#"{"skypilot.co/accelerator":"h100"}"#,
            r#"{"nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3"}"#,
            r#"{"cloud.google.com/gke-accelerator":"weird"}"#,
        ];
        let node = |l: &str| format!(r#"{{"metadata":{{"name":"n","labels":{l}}}}}"#);
        let page = format!(r#"{{"items":[{}]}}"#, labels.map(node).join(","));
        let (together, _) = parse_node_page(page.as_bytes()).expect("page");
        let alone: Vec<KubeNode> = labels
            .iter()
            .map(|l| {
                let doc = format!(r#"{{"items":[{}]}}"#, node(l));
                parse_node_page(doc.as_bytes()).expect("node").0.remove(0)
            })
            .collect();
        assert_eq!(together, alone);
        let names: Vec<Option<&str>> = together.iter().map(|n| n.accelerator.as_deref()).collect();
        assert_eq!(
            names,
            [
                Some("H100-80GB"),
                None,
                Some("H100"),
                Some("A100"),
                Some("T4"),
                None,
                Some("L4"),
                Some("H100"),
                Some("H100-80GB"),
                None
            ]
        );
    }

    #[test]
    fn a_page_says_its_continue_token_and_odd_metadata_is_no_token() {
        let items = r#""items":[{"metadata":{"name":"n1"}}]"#;
        for (metadata, want) in [
            (
                r#","metadata":{"continue":"abc","resourceVersion":"1"}"#,
                Some("abc"),
            ),
            (r#","metadata":{"continue":""}"#, None),
            (r#","metadata":{"continue":7}"#, None),
            (r#","metadata":{"continue":null}"#, None),
            (r#","metadata":{"continue":"a","continue":"b"}"#, Some("b")),
            (r#","metadata":{"continue":"a","continue":[1]}"#, None),
            (
                r#","metadata":{"cont\u0069nue":"esc","x":{"continue":"no"}}"#,
                Some("esc"),
            ),
            (r#","metadata":[{"continue":"no"}]"#, None),
            (r#","metadata":7"#, None),
            (r#","metadata":"odd""#, None),
            (r#","metadata":null"#, None),
            ("", None),
        ] {
            let doc = format!("{{{items}{metadata}}}");
            let (nodes, next) = parse_node_page(doc.as_bytes()).expect(&doc);
            assert_eq!(nodes.len(), 1, "{doc}");
            assert_eq!(next.as_deref(), want, "{doc}");
            let pods = format!(r#"{{"items":[]{metadata}}}"#);
            let (_, next) =
                crate::catalog::kubernetes::parse_pod_page(pods.as_bytes()).expect(&pods);
            assert_eq!(next.as_deref(), want, "{pods}");
        }
    }

    #[test]
    fn lenient_maps_read_as_through_serde_json_value() {
        // The reading this replaced: a `Value` map, scalars kept as strings.
        fn through_value(json: &str) -> Option<BTreeMap<String, String>> {
            let raw: Option<BTreeMap<String, serde_json::Value>> =
                serde_json::from_str(json).ok()?;
            Some(
                raw.unwrap_or_default()
                    .into_iter()
                    .filter_map(|(k, v)| match v {
                        serde_json::Value::String(s) => Some((k, s)),
                        serde_json::Value::Number(n) => Some((k, n.to_string())),
                        serde_json::Value::Bool(b) => Some((k, b.to_string())),
                        _ => None,
                    })
                    .collect(),
            )
        }
        #[derive(Deserialize)]
        struct Holder(#[serde(deserialize_with = "lenient_string_map")] BTreeMap<String, String>);
        for json in [
            r#"{"cpu":"4","memory":"16Gi","n":4,"f":2.50,"big":1e400,"neg":-3,"huge":18446744073709551616,"t":true,"z":null,"o":{"a":[1,{"b":2}]},"l":[1,"x"]}"#,
            r#"{"a":"1","a":{"x":1}}"#,
            r#"{"a":{"x":1},"a":"2"}"#,
            r#"{"e":1.0,"g":-0.0,"h":0.1,"u":"\u00e9"}"#,
            "{}",
            "null",
            r#""text""#,
            "[1]",
            "7",
        ] {
            let ours = serde_json::from_str::<Holder>(json).ok().map(|h| h.0);
            assert_eq!(ours, through_value(json), "{json}");
        }
    }

    #[test]
    fn resource_maps_keep_what_the_lenient_map_keeps_of_their_names() {
        #[derive(Deserialize)]
        struct Lenient(#[serde(deserialize_with = "lenient_string_map")] BTreeMap<String, String>);
        for json in [
            r#"{"cpu":"4","memory":"16Gi","pods":"110","nvidia.com/gpu":8,"ephemeral-storage":"100Gi"}"#,
            r#"{"cpu":4.5,"memory":true,"amd.com/gpu":"2","google.com/tpu":{"x":1},"aws.amazon.com/neuron":[1]}"#,
            r#"{"cpu":"1","cpu":{"x":1}}"#,
            r#"{"cpu":{"x":1},"cpu":"2","cpu":"3"}"#,
            r#"{"memory":null,"hugepages-1Gi":"0","cpu":1e400}"#,
            "{}",
            "null",
            r#""text""#,
            "[1]",
        ] {
            let ours = serde_json::from_str::<RawResources>(json).ok().map(|r| {
                RESOURCE_NAMES
                    .iter()
                    .filter_map(|n| Some((n.to_string(), r.get(n)?.to_string())))
                    .collect::<BTreeMap<_, _>>()
            });
            let lenient = serde_json::from_str::<Lenient>(json).ok().map(|l| {
                l.0.into_iter()
                    .filter(|(k, _)| RESOURCE_NAMES.contains(&k.as_str()))
                    .collect::<BTreeMap<_, _>>()
            });
            assert_eq!(ours, lenient, "{json}");
        }
    }

    #[test]
    fn tolerant_parsing() {
        let nodes = parse_node_list(
            r#"{"items":[{},{"metadata":null,"status":{"capacity":{"cpu":4,"memory":"bad"},"conditions":null}},
                {"metadata":{"name":"n","labels":null},"status":{"allocatable":{"nvidia.com/gpu":"2"}}}]}"#
                .as_bytes(),
        )
        .expect("parse");
        assert_eq!(nodes.len(), 3);
        assert_eq!(nodes[0], KubeNode::default());
        assert_eq!(nodes[1].cpu_capacity, 4.0);
        assert_eq!(nodes[1].memory_capacity_gib, 0.0);
        assert!(!nodes[1].ready);
        assert_eq!(nodes[2].gpu_count(), 2);
        assert!(parse_node_list(&b"{}"[..]).expect("empty").is_empty());
        assert!(parse_node_list(&b"not json"[..]).is_err());
        assert!(parse_node_list(&b"[1,2]"[..]).is_err());
    }

    #[test]
    fn caller_canonicaliser_goes_first() {
        let custom = parse_node_list_with(
            r#"{"items":[{"metadata":{"name":"x","labels":{"skypilot.co/accelerator":"mi300x"}}}]}"#.as_bytes(),
            |a| (a == "MI300X").then(|| "MI300x".to_string()),
        )
        .expect("parse");
        assert_eq!(custom[0].accelerator.as_deref(), Some("MI300x"));
    }

    #[test]
    fn tpu_topology() {
        assert_eq!(reduce_tpu_topology("2x2x1"), Some(4));
        assert_eq!(reduce_tpu_topology("2xz"), None);
    }
}
