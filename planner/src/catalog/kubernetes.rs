//! The Kubernetes virtual catalog: nodes per context and the fits check.
//!
//! This module is the *pure* half of the Kubernetes support: it parses the
//! API server's `NodeList` JSON from any [`Read`], turns a resource request
//! into SkyPilot's virtual instance type (`4CPU--16GB--H100:1`), decides
//! whether such a type fits on a context's nodes (SkyPilot's
//! `check_instance_fits`, with its error texts), prices it from the
//! `kubernetes.pricing` config, and computes the allowed contexts. There is
//! no network, file system, async or kube/k8s-openapi type here; the I/O
//! edge is `optimizer::clouds::kubernetes`.
//!
//! Deviations from SkyPilot 0.14.1 that are deliberate:
//! * CPU/memory in [`fits`] use the node *capacity*, as SkyPilot does; the
//!   allocatable values are kept on [`KubeNode`] for display only.
//! * Labels are kept in a sorted map; SkyPilot iterates them in API order.
//!   This only matters for a node carrying two label keys of the same
//!   formatter (e.g. both GKE GPU and TPU labels).
//! * Inputs SkyPilot would crash on (missing `status.capacity`, malformed
//!   quantities or TPU labels) are tolerated: missing values count as 0.

use crate::pytext::{format_float, py_float_str, py_num, py_str_repr};
use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::str::FromStr;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------------------
// Contexts and nodes
// ---------------------------------------------------------------------------

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
    /// CPU capacity in cores (`status.capacity.cpu`; `3500m` → 3.5). [`fits`] uses this.
    pub cpu_capacity: f64,
    /// Memory capacity in GiB (`status.capacity.memory`). [`fits`] uses this.
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

const GKE_GPU_LABEL: &str = "cloud.google.com/gke-accelerator";
const GKE_TPU_LABEL: &str = "cloud.google.com/gke-tpu-accelerator";
const GKE_ACCELERATOR_COUNT_LABEL: &str = "cloud.google.com/gke-accelerator-count";
const GKE_TPU_TOPOLOGY_LABEL: &str = "cloud.google.com/gke-tpu-topology";

// ---------------------------------------------------------------------------
// NodeList parsing
// ---------------------------------------------------------------------------

/// Why a `NodeList` document could not be parsed at all.
///
/// Individual malformed fields never fail the parse; they read as absent.
#[derive(Debug, thiserror::Error)]
pub enum KubeParseError {
    /// The input is not a JSON `NodeList` (or could not be read).
    #[error("invalid NodeList JSON: {0}")]
    Json(#[from] serde_json::Error),
}

#[derive(Deserialize)]
struct RawNodeList {
    #[serde(default, deserialize_with = "null_as_default")]
    items: Vec<RawNode>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawNode {
    #[serde(deserialize_with = "null_as_default")]
    metadata: RawMeta,
    #[serde(deserialize_with = "null_as_default")]
    spec: RawSpec,
    #[serde(deserialize_with = "null_as_default")]
    status: RawStatus,
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
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawStatus {
    #[serde(deserialize_with = "lenient_string_map")]
    capacity: BTreeMap<String, String>,
    #[serde(deserialize_with = "lenient_string_map")]
    allocatable: BTreeMap<String, String>,
    #[serde(deserialize_with = "null_as_default")]
    conditions: Vec<RawCondition>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawCondition {
    #[serde(rename = "type", deserialize_with = "null_as_default")]
    kind: String,
    #[serde(deserialize_with = "null_as_default")]
    status: String,
}

fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A string map that also accepts numbers/bools as values (`"cpu": 4`) and null.
fn lenient_string_map<'de, D>(d: D) -> Result<BTreeMap<String, String>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let raw: Option<BTreeMap<String, serde_json::Value>> = Option::deserialize(d)?;
    Ok(raw
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(k, v)| match v {
            serde_json::Value::String(s) => Some((k, s)),
            serde_json::Value::Number(n) => Some((k, n.to_string())),
            serde_json::Value::Bool(b) => Some((k, b.to_string())),
            _ => None,
        })
        .collect())
}

/// Parses the API server's `NodeList` JSON (`GET /api/v1/nodes`).
///
/// Missing or malformed fields are tolerated (a node without capacity has 0
/// CPUs); only a document that is not a JSON object with an `items` array
/// (or an unreadable input) is an error.
pub fn parse_node_list(reader: impl Read) -> Result<Vec<KubeNode>, KubeParseError> {
    parse_node_list_with(reader, |_| None)
}

/// Like [`parse_node_list`], with a caller-provided accelerator canonicaliser
/// (e.g. a case-insensitive catalog lookup) tried before SkyPilot's built-in
/// list of canonical GPU names. It receives the label formatter's output
/// (`H100`, `A100-80GB`, `RTX6000-ADA`, ...).
pub fn parse_node_list_with(
    reader: impl Read,
    canonicalise: impl Fn(&str) -> Option<String>,
) -> Result<Vec<KubeNode>, KubeParseError> {
    let list: RawNodeList = serde_json::from_reader(std::io::BufReader::new(reader))?;
    Ok(list
        .items
        .into_iter()
        .map(|raw| node_from_raw(raw, &canonicalise))
        .collect())
}

fn node_from_raw(raw: RawNode, canonicalise: &dyn Fn(&str) -> Option<String>) -> KubeNode {
    let RawNode {
        metadata,
        spec,
        status,
    } = raw;
    let cpu = |m: &BTreeMap<String, String>| m.get("cpu").and_then(|q| parse_cpu_quantity(q));
    let mem = |m: &BTreeMap<String, String>| m.get("memory").and_then(|q| parse_memory_gib(q));
    let ready = status
        .conditions
        .iter()
        .find(|c| c.kind == "Ready")
        .is_some_and(|c| c.status == "True");
    let accelerator_resources = ACCELERATOR_RESOURCE_KEYS
        .iter()
        .filter_map(|k| {
            let q = status.allocatable.get(*k)?;
            let n = q
                .trim()
                .parse::<u32>()
                .ok()
                .or_else(|| parse_cpu_quantity(q).map(|f| f.max(0.0).floor() as u32))?;
            Some((k.to_string(), n))
        })
        .collect();
    let accelerator = node_accelerator(&metadata.labels).map(|acc| {
        canonicalise(&acc)
            .or_else(|| canonical_gpu_name(&acc).map(str::to_string))
            .unwrap_or(acc)
    });
    let tpu = tpu_slice(&metadata.labels);
    KubeNode {
        name: metadata.name,
        ready,
        unschedulable: spec.unschedulable,
        cpu_capacity: cpu(&status.capacity).unwrap_or(0.0),
        memory_capacity_gib: mem(&status.capacity).unwrap_or(0.0),
        ephemeral_storage_gib: status
            .capacity
            .get("ephemeral-storage")
            .and_then(|q| parse_memory_gib(q)),
        cpu_allocatable: cpu(&status.allocatable).unwrap_or(0.0),
        memory_allocatable_gib: mem(&status.allocatable).unwrap_or(0.0),
        accelerator,
        accelerator_resources,
        tpu,
        labels: metadata.labels,
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
fn node_accelerator(labels: &BTreeMap<String, String>) -> Option<String> {
    LabelFormatter::REGISTRY.iter().find_map(|lf| {
        labels.iter().find_map(|(k, v)| {
            if !lf.matches_key(k) || v.trim().is_empty() || lf.validate(v).is_err() {
                return None;
            }
            lf.accelerator_from_value(v).ok().filter(|a| !a.is_empty())
        })
    })
}

// ---------------------------------------------------------------------------
// Quantities and number formatting
// ---------------------------------------------------------------------------

/// Parses a Kubernetes CPU quantity into cores: `3500m` → 3.5, `4` → 4.
///
/// `None` for anything that is not a non-negative finite number.
pub fn parse_cpu_quantity(q: &str) -> Option<f64> {
    let q = q.trim();
    let v = match q.strip_suffix('m') {
        Some(milli) => milli.parse::<f64>().ok()? / 1000.0,
        None => q.parse::<f64>().ok()?,
    };
    (v.is_finite() && v >= 0.0).then_some(v)
}

/// Parses a Kubernetes memory/storage quantity into GiB the way SkyPilot's
/// `parse_memory_resource(unit='G')` does: a bare integer is bytes; otherwise
/// the first letter of the suffix picks a binary multiplier, so `16Gi`, `16G`
/// and `16384Mi` are all 16 GiB (SkyPilot treats SI suffixes as binary).
/// `m` is milli-bytes. `None` for malformed input.
pub fn parse_memory_gib(q: &str) -> Option<f64> {
    const GIB: f64 = (1u64 << 30) as f64;
    let q = q.trim();
    if let Ok(bytes) = q.parse::<u64>() {
        return Some(bytes as f64 / GIB);
    }
    // SkyPilot splits at the first unit letter (`[KMGTPBm]`); `k`/`E` are tolerated too.
    let split = q.find(|c: char| "KkMGTPEBm".contains(c));
    let (number, unit) = match split {
        Some(i) => (&q[..i], &q[i..]),
        None => (q, ""),
    };
    let number: f64 = number.trim().parse().ok()?;
    let multiplier = match unit.chars().next() {
        None | Some('B') => 1.0,
        Some('m') => 0.001,
        Some('K' | 'k') => (1u64 << 10) as f64,
        Some('M') => (1u64 << 20) as f64,
        Some('G') => GIB,
        Some('T') => (1u64 << 40) as f64,
        Some('P') => (1u64 << 50) as f64,
        Some('E') => (1u64 << 60) as f64,
        Some(_) => return None,
    };
    let v = number * multiplier / GIB;
    (v.is_finite() && v >= 0.0).then_some(v)
}

// ---------------------------------------------------------------------------
// Virtual instance types
// ---------------------------------------------------------------------------

/// SkyPilot's virtual Kubernetes instance type, `<cpus>CPU--<mem>GB[--<ACC>:<n>]`.
#[derive(Debug, Clone, PartialEq)]
pub struct KubeInstanceType {
    /// Requested CPU cores.
    pub cpus: f64,
    /// Requested memory in GB (GiB, as SkyPilot means it).
    pub memory_gib: f64,
    /// Accelerator name and integer count, if any.
    pub accelerator: Option<(String, u32)>,
}

/// A string that is not a valid virtual instance type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Invalid instance name: {0}")]
pub struct InvalidInstanceType(pub String);

static INSTANCE_TYPE_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?P<cpus>\d+(\.\d+)?)CPU--(?P<memory>\d+(\.\d+)?)GB(?:--(?P<acc>[\w\d-]+):(?P<count>\d+))?$",
    )
    .expect("static regex")
});

/// SkyPilot's `_DEFAULT_NUM_VCPUS`.
const DEFAULT_CPUS: f64 = 2.0;
/// SkyPilot's `_DEFAULT_MEMORY_CPU_RATIO`.
const DEFAULT_MEMORY_CPU_RATIO: f64 = 1.0;
/// SkyPilot's `_DEFAULT_NUM_VCPUS_WITH_GPU`.
const DEFAULT_CPUS_PER_GPU: f64 = 4.0;
/// SkyPilot's `_DEFAULT_MEMORY_CPU_RATIO_WITH_GPU`.
const DEFAULT_MEMORY_CPU_RATIO_WITH_GPU: f64 = 4.0;

/// Python's `float(str)` for the forms the request fields use.
fn py_parse_float(s: &str) -> Option<f64> {
    let v: f64 = s.trim().parse().ok()?;
    (v.is_finite() && v >= 0.0).then_some(v)
}

impl KubeInstanceType {
    /// The instance type SkyPilot picks for a request
    /// (`get_default_instance_type` + `get_feasible_launchable_resources`).
    ///
    /// * `cpus`: the request's cpus string (`"4"`, `"4+"`); default 2, `+` stripped.
    /// * `memory`: GB string as normalised by the request parser (`"16"`,
    ///   `"16+"`, `"2x"`); CPU-only: `N`/`N+` → N, `Nx` → N×cpus, unset → 1×cpus;
    ///   with accelerators: `N`/`N+` → N, unset → 4×cpus (`Nx` → `None`, as
    ///   SkyPilot fails on it).
    /// * `accelerator`: `(name, count)`; cpus default to 4×count, the count is
    ///   rounded up. Names containing a space give `None` (no candidate).
    ///
    /// The result is normalised through its name, as SkyPilot passes the name
    /// around (`cpus=0.25` → `0.2CPU`). `None` when the request cannot be
    /// expressed (unparsable numbers, invalid name characters).
    pub fn for_request(
        cpus: Option<&str>,
        memory: Option<&str>,
        accelerator: Option<(&str, f64)>,
    ) -> Option<KubeInstanceType> {
        let instance_cpus = match cpus {
            Some(c) => py_parse_float(c.trim_matches('+'))?,
            None => DEFAULT_CPUS,
        };
        let instance_mem = match memory {
            Some(m) => {
                if let Some(n) = m.strip_suffix('+') {
                    py_parse_float(n)?
                } else if let Some(n) = m.strip_suffix('x') {
                    py_parse_float(n)? * instance_cpus
                } else {
                    py_parse_float(m)?
                }
            }
            None => instance_cpus * DEFAULT_MEMORY_CPU_RATIO,
        };
        let default = KubeInstanceType {
            cpus: instance_cpus,
            memory_gib: instance_mem,
            accelerator: None,
        }
        .normalised()?;
        let Some((acc, count)) = accelerator else {
            return Some(default);
        };
        if acc.contains(' ') || !count.is_finite() || count < 0.0 {
            return None;
        }
        let gpu_cpus = if cpus.is_none() {
            DEFAULT_CPUS_PER_GPU * count
        } else {
            default.cpus
        };
        let gpu_mem = match memory {
            Some(m) => py_parse_float(m.trim_matches('+'))?,
            None => gpu_cpus * DEFAULT_MEMORY_CPU_RATIO_WITH_GPU,
        };
        let rounded = count.ceil();
        if rounded > f64::from(u32::MAX) {
            return None;
        }
        KubeInstanceType {
            cpus: gpu_cpus,
            memory_gib: gpu_mem,
            accelerator: Some((acc.to_string(), rounded as u32)),
        }
        .normalised()
    }

    /// Round-trips through the name, as SkyPilot does between choosing a type
    /// and checking/pricing it.
    fn normalised(&self) -> Option<KubeInstanceType> {
        self.to_string().parse().ok()
    }

    /// Accelerator name and count when the count is positive.
    pub fn gpu(&self) -> Option<(&str, u32)> {
        match &self.accelerator {
            Some((name, n)) if *n > 0 => Some((name.as_str(), *n)),
            _ => None,
        }
    }
}

impl fmt::Display for KubeInstanceType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}CPU--{}GB",
            format_float(self.cpus),
            format_float(self.memory_gib)
        )?;
        if let Some((name, count)) = &self.accelerator
            && *count > 0
        {
            write!(f, "--{}:{count}", name.replace(' ', "_"))?;
        }
        Ok(())
    }
}

impl FromStr for KubeInstanceType {
    type Err = InvalidInstanceType;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let invalid = || InvalidInstanceType(s.to_string());
        let caps = INSTANCE_TYPE_RE.captures(s).ok_or_else(invalid)?;
        let cpus: f64 = caps["cpus"].parse().map_err(|_| invalid())?;
        let memory_gib: f64 = caps["memory"].parse().map_err(|_| invalid())?;
        let accelerator = match (caps.name("acc"), caps.name("count")) {
            (Some(acc), Some(count)) => Some((
                acc.as_str().to_string(),
                count.as_str().parse().map_err(|_| invalid())?,
            )),
            _ => None,
        };
        Ok(KubeInstanceType {
            cpus,
            memory_gib,
            accelerator,
        })
    }
}

// ---------------------------------------------------------------------------
// Accelerator labels
// ---------------------------------------------------------------------------

/// SkyPilot's canonical GPU names, most specific first (`gpu_names.CANONICAL_GPU_NAMES`).
pub const CANONICAL_GPU_NAMES: [&str; 34] = [
    "GB300",
    "GB200",
    "B300",
    "B200",
    "B100",
    "GH200",
    "H200",
    "H100-80GB",
    "H100-MEGA",
    "H100",
    "A100-80GB",
    "A100",
    "A10G",
    "A10",
    "A16",
    "A30",
    "A40",
    "RTX6000-Ada",
    "L40S",
    "L40",
    "L4",
    "A6000",
    "A5000",
    "A4000",
    "V100-32GB",
    "V100",
    "P100",
    "P40",
    "P4000",
    "P4",
    "T4g",
    "T4",
    "K80",
    "M60",
];

/// The canonical spelling of a GPU name, case-insensitively (`t4g` → `T4g`).
pub fn canonical_gpu_name(name: &str) -> Option<&'static str> {
    CANONICAL_GPU_NAMES
        .iter()
        .find(|c| c.eq_ignore_ascii_case(name))
        .copied()
}

static GFD_WORD_RES: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
    CANONICAL_GPU_NAMES
        .iter()
        .map(|n| {
            (
                *n,
                Regex::new(&format!(r"\b{}\b", regex::escape(n))).expect("escaped regex"),
            )
        })
        .collect()
});
static GFD_A100_80: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"A100.*-80GB").expect("static regex"));
static GFD_H100_80: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"H100.*-80GB").expect("static regex"));
static MEMORY_SUFFIX_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)-(\d+)\s*gb?(?:-|$)").expect("static regex"));

/// The GPU label conventions SkyPilot recognises, in its priority order
/// (`LABEL_FORMATTER_REGISTRY`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelFormatter {
    /// `skypilot.co/accelerator` (lower-case SkyPilot names).
    SkyPilot,
    /// GKE: `cloud.google.com/gke-accelerator` and `cloud.google.com/gke-tpu-accelerator`.
    Gke,
    /// Karpenter: `karpenter.k8s.aws/instance-gpu-name` (+ Neuron accelerator name).
    Karpenter,
    /// NVIDIA GPU feature discovery: `nvidia.com/gpu.product`.
    Gfd,
    /// CoreWeave: `gpu.nvidia.com/class`.
    CoreWeave,
    /// Nebius: `nebius.com/gpu-name`.
    Nebius,
}

impl LabelFormatter {
    /// All formatters, highest priority first.
    pub const REGISTRY: [LabelFormatter; 6] = [
        LabelFormatter::SkyPilot,
        LabelFormatter::Gke,
        LabelFormatter::Karpenter,
        LabelFormatter::Gfd,
        LabelFormatter::CoreWeave,
        LabelFormatter::Nebius,
    ];

    /// The label keys this formatter reads.
    pub fn label_keys(self) -> &'static [&'static str] {
        match self {
            LabelFormatter::SkyPilot => &["skypilot.co/accelerator"],
            LabelFormatter::Gke => &[GKE_GPU_LABEL, GKE_TPU_LABEL],
            LabelFormatter::Karpenter => &[
                "karpenter.k8s.aws/instance-gpu-name",
                "karpenter.k8s.aws/instance-accelerator-name",
            ],
            LabelFormatter::Gfd => &["nvidia.com/gpu.product"],
            LabelFormatter::CoreWeave => &["gpu.nvidia.com/class"],
            LabelFormatter::Nebius => &["nebius.com/gpu-name"],
        }
    }

    /// Whether `key` is one of this formatter's label keys.
    pub fn matches_key(self, key: &str) -> bool {
        self.label_keys().contains(&key)
    }

    /// SkyPilot's `validate_label_value` (SkyPilot/Karpenter: lower-case;
    /// Nebius: upper-case; GKE: a known name pattern).
    pub fn validate(self, value: &str) -> Result<(), String> {
        let key = self.label_keys()[0];
        match self {
            LabelFormatter::SkyPilot | LabelFormatter::Karpenter
                if value != value.to_lowercase() =>
            {
                Err(format!(
                    "Label value {} must be lowercase if using the {key} label.",
                    py_str_repr(value)
                ))
            }
            LabelFormatter::Nebius if value != value.to_uppercase() => Err(format!(
                "Label value {} must be uppercase if using the {key} label.",
                py_str_repr(value)
            )),
            LabelFormatter::Gke => self.accelerator_from_value(value).map(|_| ()),
            _ => Ok(()),
        }
    }

    /// SkyPilot's `get_accelerator_from_label_value`.
    pub fn accelerator_from_value(self, value: &str) -> Result<String, String> {
        Ok(match self {
            LabelFormatter::SkyPilot | LabelFormatter::Nebius => value.to_uppercase(),
            LabelFormatter::Karpenter => match value.to_lowercase().as_str() {
                "inferentia" => "Inferentia".into(),
                "inferentia2" => "Inferentia2".into(),
                "trainium" => "Trainium".into(),
                "trainium2" => "Trainium2".into(),
                _ => value.to_uppercase(),
            },
            LabelFormatter::CoreWeave => match value {
                "H100_NVLINK_80GB" => "H100".into(),
                _ => value.to_string(),
            },
            LabelFormatter::Gke => {
                if let Some(rest) = value.strip_prefix("nvidia-tesla-") {
                    rest.to_uppercase()
                } else if let Some(rest) = value.strip_prefix("nvidia-") {
                    match rest.to_uppercase().as_str() {
                        "H100-80GB" => "H100".into(),
                        "H200-141GB" => "H200".into(),
                        acc => acc.to_string(),
                    }
                } else if is_tpu_on_gke(value) || value.is_empty() {
                    value.to_string()
                } else {
                    return Err(format!("Invalid accelerator name in GKE cluster: {value}"));
                }
            }
            LabelFormatter::Gfd => gfd_accelerator(value),
        })
    }
}

fn gfd_accelerator(value: &str) -> String {
    // `A100-80GB`/`H100-80GB` also match `A100-SXM4-80GB`-style products;
    // every name matches on word boundaries, most specific name first.
    for (name, word) in GFD_WORD_RES.iter() {
        let hit = (*name == "A100-80GB" && GFD_A100_80.is_match(value))
            || (*name == "H100-80GB" && GFD_H100_80.is_match(value))
            || word.is_match(value);
        if hit {
            return (*name).to_string();
        }
    }
    value
        .to_uppercase()
        .replace("NVIDIA-", "")
        .replace("GEFORCE-", "")
        .replace("RTX-", "RTX")
}

/// SkyPilot's `normalize_tpu_accelerator_name`: `tpu-v6e-8` → (`tpu-v6e-slice`, 8).
pub fn normalize_tpu_accelerator_name(accelerator: &str) -> (String, u32) {
    const PATTERNS: [(&str, &str); 5] = [
        ("tpu-v6e-", "tpu-v6e-slice"),
        ("tpu-v5p-", "tpu-v5p-slice"),
        ("tpu-v5litepod-", "tpu-v5-lite-podslice"),
        ("tpu-v5lite-", "tpu-v5-lite-device"),
        ("tpu-v4-", "tpu-v4-podslice"),
    ];
    for (prefix, replacement) in PATTERNS {
        if let Some(n) = accelerator.strip_prefix(prefix)
            && !n.is_empty()
            && n.bytes().all(|b| b.is_ascii_digit())
            && let Ok(count) = n.parse()
        {
            return (replacement.to_string(), count);
        }
    }
    (accelerator.to_string(), 1)
}

/// Whether the accelerator (after normalisation) is a GKE TPU type.
pub fn is_tpu_on_gke(accelerator: &str) -> bool {
    matches!(
        normalize_tpu_accelerator_name(accelerator).0.as_str(),
        "tpu-v4-podslice"
            | "tpu-v5-lite-device"
            | "tpu-v5-lite-podslice"
            | "tpu-v5p-slice"
            | "tpu-v6e-slice"
    )
}

fn gpu_device_memory_gib(name: &str) -> Option<u32> {
    let lower = name.to_lowercase();
    let bare = |n: &str| match n {
        "a100" => Some(40),
        "v100" => Some(16),
        _ => None,
    };
    if let Some(m) = bare(&lower) {
        return Some(m);
    }
    let caps = MEMORY_SUFFIX_RE.captures(&lower)?;
    let start = caps.get(0)?.start();
    bare(&lower[..start])?;
    caps[1].parse().ok()
}

/// SkyPilot's `_accelerator_name_matches`: case-insensitive equality, or one
/// name a `-`-separated prefix of the other, unless the request implies more
/// device memory than the node's name (`A100-80GB` never matches `A100`).
pub fn accelerator_name_matches(requested: &str, viable: &[&str]) -> bool {
    let req = requested.to_lowercase();
    viable.iter().any(|v| {
        let v = v.to_lowercase();
        if req == v {
            return true;
        }
        let (shorter, longer) = if req.len() <= v.len() {
            (&req, &v)
        } else {
            (&v, &req)
        };
        if !longer.starts_with(shorter.as_str())
            || longer.as_bytes().get(shorter.len()) != Some(&b'-')
        {
            return false;
        }
        !matches!(
            (gpu_device_memory_gib(&req), gpu_device_memory_gib(&v)),
            (Some(r), Some(n)) if r > n
        )
    })
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

// ---------------------------------------------------------------------------
// Fits
// ---------------------------------------------------------------------------

/// Finds the label key/value that selects nodes with `acc` (SkyPilot's
/// `get_accelerator_label_key_values` without an autoscaler).
fn accelerator_label(
    nodes: &[KubeNode],
    acc: &str,
    count: u32,
) -> Result<(String, String), String> {
    let cloud_name = "Kubernetes cluster";
    let has_accelerators = {
        let gpu_key = gpu_resource_key(nodes);
        nodes.iter().any(|n| {
            [gpu_key, TPU_RESOURCE_KEY, NEURON_RESOURCE_KEY]
                .iter()
                .any(|k| n.accelerator_resources.contains_key(*k))
        })
    };
    if !has_accelerators {
        return Err(format!(
            "Could not detect GPU/TPU resources ('{AMD_GPU_KEY}', '{NVIDIA_GPU_KEY}' or \
             '{TPU_RESOURCE_KEY}') in Kubernetes cluster. If this cluster contains GPUs, please \
             ensure GPU drivers are installed on the node. Check if the GPUs are setup correctly by \
             running `kubectl describe nodes` and looking for the '{AMD_GPU_KEY}', \
             '{NVIDIA_GPU_KEY}' or '{TPU_RESOURCE_KEY}' resource. Please refer to the \
             documentation on how to set up GPUs."
        ));
    }
    let Some(lf) = detect_label_formatter(nodes) else {
        return Err(format!(
            "Could not detect GPU labels in {cloud_name}. Run `sky check ssh` to debug."
        ));
    };
    for node in nodes {
        for (k, v) in &node.labels {
            if lf.matches_key(k)
                && let Err(reason) = lf.validate(v)
            {
                return Err(format!(
                    "Node {} in {cloud_name} has invalid GPU label: {k}={v}. {reason}",
                    py_str_repr(&node.name)
                ));
            }
        }
    }
    let wants_tpu = is_tpu_on_gke(acc);
    for node in nodes {
        if node.tpu.as_ref().is_some_and(TpuSlice::is_multi_host) {
            continue;
        }
        for (k, v) in &node.labels {
            if !lf.matches_key(k) {
                continue;
            }
            let Ok(name) = lf.accelerator_from_value(v) else {
                continue;
            };
            if !accelerator_name_matches(acc, &[v.as_str(), name.as_str()]) {
                continue;
            }
            if wants_tpu {
                let topology_chips = node
                    .labels
                    .get(GKE_TPU_LABEL)
                    .filter(|t| t.as_str() == acc)
                    .and_then(|_| node.labels.get(GKE_TPU_TOPOLOGY_LABEL))
                    .and_then(|t| reduce_tpu_topology(t));
                if topology_chips == Some(count) {
                    return Ok((k.clone(), v.clone()));
                }
                continue;
            }
            return Ok((k.clone(), v.clone()));
        }
    }
    Err(format!(
        "Could not find any node in the {cloud_name} with {acc}. Please ensure at least one node in \
         the cluster has {acc} and node labels are setup correctly. Please refer to the \
         documentation for more. . Note that multi-host TPU podslices are currently not unsupported."
    ))
}

/// Whether `instance` fits on some node of a context (SkyPilot's
/// `check_instance_fits`); the error is SkyPilot's reason text.
///
/// A node qualifies when it is ready, carries the accelerator label that
/// SkyPilot selects for the requested accelerator (with ≥ n allocatable
/// devices; TPUs: exactly n chips on a single-host slice), and its capacity
/// has CPU ≥ cpus, memory ≥ mem and, when `disk_size_gib` is given (the user
/// set `disk_size` explicitly), ephemeral storage ≥ disk.
pub fn fits(
    instance: &KubeInstanceType,
    nodes: &[KubeNode],
    disk_size_gib: Option<f64>,
) -> Result<(), String> {
    let eph_reason = disk_size_gib
        .map(|d| format!(" and/or ephemeral storage (>= {} G)", py_num(d)))
        .unwrap_or_default();
    let cpus = py_float_str(instance.cpus);
    let mem = py_float_str(instance.memory_gib);
    let (candidates, prefix): (Vec<&KubeNode>, String) = match &instance.accelerator {
        Some((acc, count)) => {
            let (key, value) = accelerator_label(nodes, acc, *count)?;
            let gpu_nodes: Vec<&KubeNode> = nodes
                .iter()
                .filter(|n| n.ready && n.labels.get(&key) == Some(&value))
                .collect();
            if gpu_nodes.is_empty() {
                return Err(format!(
                    "No ready GPU nodes found with {acc} on the cluster"
                ));
            }
            let mut acc_name = acc.clone();
            let gpu_nodes = if is_tpu_on_gke(acc) {
                let (tpu_type, _) = normalize_tpu_accelerator_name(acc);
                check_tpu_fits(&tpu_type, *count, &gpu_nodes)?;
                acc_name = tpu_type;
                gpu_nodes
            } else {
                let gpu_key = gpu_resource_key(nodes);
                let enough: Vec<&KubeNode> = gpu_nodes
                    .into_iter()
                    .filter(|n| n.accelerator_count_for(gpu_key) >= *count)
                    .collect();
                if enough.is_empty() {
                    return Err(format!("No GPU nodes found with {count} or more GPUs."));
                }
                enough
            };
            let prefix = format!(
                "GPU nodes with {acc_name} do not have enough CPU (>= {cpus} CPUs) and/or memory \
                 (>= {mem} G){eph_reason}. "
            );
            (gpu_nodes, prefix)
        }
        None => {
            let ready: Vec<&KubeNode> = nodes.iter().filter(|n| n.ready).collect();
            if ready.is_empty() {
                return Err("No ready nodes found in the cluster.".to_string());
            }
            let prefix = format!(
                "No nodes found with enough CPU (>= {cpus} CPUs) and/or memory (>= {mem} G){eph_reason}. "
            );
            (ready, prefix)
        }
    };
    let (mut max_cpu, mut max_mem, mut max_eph) = (0.0f64, 0.0f64, 0.0f64);
    for node in candidates {
        // SkyPilot rounds millicore capacities up (`parse_cpu_or_gpu_resource`).
        let node_cpus = node.cpu_capacity.ceil();
        let node_eph = node.ephemeral_storage_gib.unwrap_or(0.0);
        if node_cpus > max_cpu {
            (max_cpu, max_mem, max_eph) = (node_cpus, node.memory_capacity_gib, node_eph);
        }
        if node_cpus >= instance.cpus
            && node.memory_capacity_gib >= instance.memory_gib
            && disk_size_gib.is_none_or(|d| node_eph >= d)
        {
            return Ok(());
        }
    }
    Err(format!(
        "{prefix}Maximum resources found on a single node: {} CPUs, {}G Memory, {}G Ephemeral Storage",
        py_float_str(max_cpu),
        format_float(max_mem),
        format_float(max_eph)
    ))
}

fn check_tpu_fits(tpu_type: &str, count: u32, nodes: &[&KubeNode]) -> Result<(), String> {
    let mut found = Vec::new();
    for node in nodes {
        let Some(tpu) = &node.tpu else { continue };
        if tpu.accelerator != tpu_type || tpu.is_multi_host() {
            continue;
        }
        found.push(format!("{tpu_type}:{}", tpu.chips));
        if tpu.chips == count {
            return Ok(());
        }
    }
    Err(format!(
        "Requested TPU type was not found in the cluster. TPU types found in the cluster: {}. Note \
         that multi-host TPU podslices are currently not unsupported.",
        found.join(",")
    ))
}

// ---------------------------------------------------------------------------
// Pricing
// ---------------------------------------------------------------------------

/// Prices for virtual instance types (`kubernetes.pricing` in `~/.sky/config.yaml`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct KubePricing {
    /// $ per CPU-hour (CPU-only types).
    pub cpu: f64,
    /// $ per GB-hour of memory (CPU-only types).
    pub memory: f64,
    /// $ per accelerator-hour by accelerator name (matched case-insensitively).
    pub accelerators: BTreeMap<String, f64>,
}

/// One level of pricing config (global or per context); absent keys do not override.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub struct KubePricingLevel {
    /// `cpu` rate, if set at this level.
    #[serde(default)]
    pub cpu: Option<f64>,
    /// `memory` rate, if set at this level.
    #[serde(default)]
    pub memory: Option<f64>,
    /// `accelerators` rates set at this level (merged key by key).
    #[serde(default)]
    pub accelerators: Option<BTreeMap<String, f64>>,
}

/// A `kubernetes.pricing` section that is not a mapping of numbers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {path} in config: {message}")]
pub struct PricingConfigError {
    /// The config path, e.g. `kubernetes.context_configs.kind.pricing`.
    pub path: String,
    /// The deserialisation error.
    pub message: String,
}

impl KubePricing {
    /// Applies one level over this one (SkyPilot's `merge_pricing_dicts`:
    /// scalars replaced, `accelerators` merged key by key).
    pub fn merge(&mut self, level: &KubePricingLevel) {
        if let Some(cpu) = level.cpu {
            self.cpu = cpu;
        }
        if let Some(memory) = level.memory {
            self.memory = memory;
        }
        if let Some(accs) = &level.accelerators {
            self.accelerators
                .extend(accs.iter().map(|(k, v)| (k.clone(), *v)));
        }
    }

    /// Resolves the pricing for `context` from the whole config document:
    /// `kubernetes.pricing` deep-merged with `kubernetes.context_configs.<context>.pricing`.
    pub fn from_config(
        config: &serde_yaml_ng::Value,
        context: Option<&str>,
    ) -> Result<KubePricing, PricingConfigError> {
        let mut pricing = KubePricing::default();
        let k8s = config.get("kubernetes");
        let mut levels = vec![(
            "kubernetes.pricing".to_string(),
            k8s.and_then(|k| k.get("pricing")),
        )];
        if let Some(ctx) = context {
            levels.push((
                format!("kubernetes.context_configs.{ctx}.pricing"),
                k8s.and_then(|k| k.get("context_configs"))
                    .and_then(|c| c.get(ctx))
                    .and_then(|c| c.get("pricing")),
            ));
        }
        for (path, value) in levels {
            let Some(value) = value.filter(|v| !v.is_null()) else {
                continue;
            };
            let level: KubePricingLevel =
                serde_yaml_ng::from_value(value.clone()).map_err(|e| PricingConfigError {
                    path,
                    message: e.to_string(),
                })?;
            pricing.merge(&level);
        }
        Ok(pricing)
    }
}

/// Hourly price of a virtual instance type: accelerator types cost
/// count × the accelerator's rate (case-insensitive; unlisted → 0), CPU-only
/// types cost cpus × `cpu` + memory × `memory`.
pub fn hourly_cost(instance: &KubeInstanceType, pricing: &KubePricing) -> f64 {
    if let Some((name, count)) = instance.gpu() {
        let rate = pricing
            .accelerators
            .iter()
            .find(|(k, _)| k.to_lowercase() == name.to_lowercase())
            .map_or(0.0, |(_, r)| *r);
        return f64::from(count) * rate;
    }
    instance.cpus * pricing.cpu + instance.memory_gib * pricing.memory
}

// ---------------------------------------------------------------------------
// Allowed contexts
// ---------------------------------------------------------------------------

/// The contexts the optimizer may use, and the configured ones that are missing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AllowedContexts {
    /// Allowed contexts present in the kubeconfig, in configuration (or kubeconfig) order.
    pub contexts: Vec<String>,
    /// Configured contexts missing from the kubeconfig (reported, then ignored).
    pub skipped: Vec<String>,
}

impl AllowedContexts {
    /// SkyPilot's warning for [`Self::skipped`], if any.
    pub fn warning(&self) -> Option<String> {
        if self.skipped.is_empty() {
            return None;
        }
        let set: Vec<String> = self.skipped.iter().map(|s| py_str_repr(s)).collect();
        Some(format!(
            "Kubernetes contexts {{{}}} specified in \"allowed_contexts\" not found in kubeconfig. Ignoring these contexts.",
            set.join(", ")
        ))
    }
}

/// SkyPilot's `existing_allowed_contexts` (without in-cluster auth).
///
/// * `kubeconfig_contexts`: context names in kubeconfig order;
/// * `current`: the kubeconfig's current context;
/// * `allowed`: `kubernetes.allowed_contexts` — `None` → the current context,
///   exactly `["all"]` → every context;
/// * `allow_all_env`: `SKYPILOT_ALLOW_ALL_KUBERNETES_CONTEXTS` is true (only
///   consulted when `allowed` is `None`).
///
/// Contexts starting with `ssh-` (SSH node pools) are never returned nor
/// reported as missing. Duplicates are dropped.
pub fn allowed_contexts(
    kubeconfig_contexts: &[String],
    current: Option<&str>,
    allowed: Option<&[String]>,
    allow_all_env: bool,
) -> AllowedContexts {
    let mut all: Vec<&str> = Vec::new();
    for c in kubeconfig_contexts {
        if !c.starts_with("ssh-") && !all.contains(&c.as_str()) {
            all.push(c);
        }
    }
    if kubeconfig_contexts.is_empty() {
        return AllowedContexts::default();
    }
    let is_all =
        matches!(allowed, Some([only]) if only == "all") || (allowed.is_none() && allow_all_env);
    let wanted: Vec<&str> = if is_all {
        all.clone()
    } else if let Some(list) = allowed {
        list.iter().map(String::as_str).collect()
    } else {
        current.into_iter().collect()
    };
    let mut out = AllowedContexts::default();
    for c in wanted {
        if all.contains(&c) {
            if !out.contexts.iter().any(|x| x == c) {
                out.contexts.push(c.to_string());
            }
        } else if !c.starts_with("ssh-") && !out.skipped.iter().any(|x| x == c) {
            out.skipped.push(c.to_string());
        }
    }
    out
}

/// SkyPilot's message when a context's node listing timed out.
pub fn unreachable_timeout_message(context: &str) -> String {
    format!(
        "Timed out when trying to get node info from Kubernetes cluster. Please check if the cluster \
         is healthy and retry. To debug, run: kubectl get nodes --context {context}"
    )
}

/// SkyPilot's message when the API server answered a node listing with an error.
pub fn unreachable_api_message(context: &str, error: &str) -> String {
    format!(
        "Kubernetes API error when trying to get node info: {error} Please check if the cluster is \
         healthy and retry. To debug, run: kubectl get nodes --context {context}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    type DisplayCase<'a> = (&'a str, f64, f64, Option<(&'a str, u32)>);
    type RequestCase<'a> = (
        Option<&'a str>,
        Option<&'a str>,
        Option<(&'a str, f64)>,
        Option<&'a str>,
    );
    type FitsCase<'a> = (&'a str, &'a [KubeNode], Option<f64>, Result<(), &'a str>);
    type AllowedCase<'a> = (
        Option<Vec<String>>,
        Option<&'a str>,
        bool,
        Vec<String>,
        Vec<String>,
    );

    fn node(json: &str) -> KubeNode {
        let doc = format!(r#"{{"kind":"NodeList","items":[{json}]}}"#);
        parse_node_list(doc.as_bytes()).expect("parse").remove(0)
    }

    fn gpu_node(
        name: &str,
        label: (&str, &str),
        gpus: u32,
        cpu: &str,
        mem: &str,
        ready: bool,
    ) -> KubeNode {
        node(&format!(
            r#"{{"metadata":{{"name":"{name}","labels":{{"{}":"{}"}}}},
               "status":{{"capacity":{{"cpu":"{cpu}","memory":"{mem}","nvidia.com/gpu":"{gpus}"}},
                          "allocatable":{{"cpu":"{cpu}","memory":"{mem}","nvidia.com/gpu":"{gpus}"}},
                          "conditions":[{{"type":"Ready","status":"{}"}}]}}}}"#,
            label.0,
            label.1,
            if ready { "True" } else { "False" }
        ))
    }

    fn cpu_node(name: &str, cpu: &str, mem: &str, eph: Option<&str>) -> KubeNode {
        let eph = eph
            .map(|e| format!(r#","ephemeral-storage":"{e}""#))
            .unwrap_or_default();
        node(&format!(
            r#"{{"metadata":{{"name":"{name}"}},
               "status":{{"capacity":{{"cpu":"{cpu}","memory":"{mem}"{eph}}},
                          "allocatable":{{"cpu":"{cpu}","memory":"{mem}"}},
                          "conditions":[{{"type":"Ready","status":"True"}}]}}}}"#
        ))
    }

    #[test]
    fn cpu_quantities() {
        for (q, want) in [
            ("3500m", Some(3.5)),
            ("4", Some(4.0)),
            ("0.5", Some(0.5)),
            (" 8 ", Some(8.0)),
            ("250m", Some(0.25)),
            ("", None),
            ("abc", None),
            ("-1", None),
            ("m", None),
        ] {
            assert_eq!(parse_cpu_quantity(q), want, "{q:?}");
        }
    }

    #[test]
    fn memory_quantities() {
        for (q, want) in [
            ("16Gi", Some(16.0)),
            ("16384Mi", Some(16.0)),
            ("17179869184", Some(16.0)),
            ("16G", Some(16.0)),
            ("16777216Ki", Some(16.0)),
            ("1Ti", Some(1024.0)),
            ("512Mi", Some(0.5)),
            ("1073741824000m", Some(1.0)),
            ("1.5Gi", Some(1.5)),
            ("", None),
            ("lots", None),
            ("16Xi", None),
        ] {
            assert_eq!(parse_memory_gib(q), want, "{q:?}");
        }
    }

    #[test]
    fn float_formatting() {
        for (x, want) in [
            (2.0, "2"),
            (0.5, "0.5"),
            (1.5, "1.5"),
            (0.25, "0.2"),
            (0.35, "0.3"),
            (16.0, "16"),
            (2.45, "2.5"),
        ] {
            assert_eq!(format_float(x), want, "{x}");
        }
    }

    #[test]
    fn instance_type_display_and_parse() {
        let cases: [DisplayCase; 5] = [
            ("2CPU--2GB", 2.0, 2.0, None),
            ("0.5CPU--1.5GB", 0.5, 1.5, None),
            ("4CPU--16GB--H100:1", 4.0, 16.0, Some(("H100", 1))),
            (
                "32CPU--128GB--A100-80GB:8",
                32.0,
                128.0,
                Some(("A100-80GB", 8)),
            ),
            (
                "8CPU--32GB--tpu-v5-lite-podslice:4",
                8.0,
                32.0,
                Some(("tpu-v5-lite-podslice", 4)),
            ),
        ];
        for (name, cpus, mem, acc) in cases {
            let it: KubeInstanceType = name.parse().expect(name);
            assert_eq!(it.cpus, cpus);
            assert_eq!(it.memory_gib, mem);
            assert_eq!(it.accelerator, acc.map(|(a, n)| (a.to_string(), n)));
            assert_eq!(it.to_string(), name);
        }
        for bad in [
            "",
            "2CPU",
            "2CPU--2GB--",
            "2CPU--2GB--H100",
            "2CPU--2GB--H 100:1",
            "-2CPU--2GB",
            "2CPU--2GB--A.1:1",
            "2cpu--2gb",
        ] {
            assert_eq!(
                bad.parse::<KubeInstanceType>(),
                Err(InvalidInstanceType(bad.to_string())),
                "{bad:?}"
            );
        }
        let spaced = KubeInstanceType {
            cpus: 1.0,
            memory_gib: 2.0,
            accelerator: Some(("RTX 4090".into(), 1)),
        };
        assert_eq!(spaced.to_string(), "1CPU--2GB--RTX_4090:1");
        let zero = KubeInstanceType {
            cpus: 1.0,
            memory_gib: 2.0,
            accelerator: Some(("T4".into(), 0)),
        };
        assert_eq!(zero.to_string(), "1CPU--2GB");
    }

    #[test]
    fn instance_type_for_request() {
        let cases: [RequestCase; 18] = [
            (None, None, None, Some("2CPU--2GB")),
            (Some("4"), None, None, Some("4CPU--4GB")),
            (Some("4+"), None, None, Some("4CPU--4GB")),
            (Some("4"), Some("16"), None, Some("4CPU--16GB")),
            (Some("4"), Some("16+"), None, Some("4CPU--16GB")),
            (Some("4"), Some("2x"), None, Some("4CPU--8GB")),
            (None, Some("2x"), None, Some("2CPU--4GB")),
            (Some("0.5"), None, None, Some("0.5CPU--0.5GB")),
            (Some("0.25"), None, None, Some("0.2CPU--0.2GB")),
            (None, None, Some(("H100", 1.0)), Some("4CPU--16GB--H100:1")),
            (
                None,
                None,
                Some(("H100", 8.0)),
                Some("32CPU--128GB--H100:8"),
            ),
            (
                Some("8"),
                None,
                Some(("H100", 1.0)),
                Some("8CPU--32GB--H100:1"),
            ),
            (
                Some("8+"),
                Some("64+"),
                Some(("A100", 2.0)),
                Some("8CPU--64GB--A100:2"),
            ),
            (None, None, Some(("L4", 0.5)), Some("2CPU--8GB--L4:1")),
            (None, None, Some(("RTX 4090", 1.0)), None),
            (None, Some("2x"), Some(("T4", 1.0)), None),
            (Some("many"), None, None, None),
            (None, None, Some(("A.B", 1.0)), None),
        ];
        for (cpus, mem, acc, want) in cases {
            let got = KubeInstanceType::for_request(cpus, mem, acc).map(|t| t.to_string());
            assert_eq!(got.as_deref(), want, "{cpus:?} {mem:?} {acc:?}");
        }
    }

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
        let custom = parse_node_list_with(
            r#"{"items":[{"metadata":{"name":"x","labels":{"skypilot.co/accelerator":"mi300x"}}}]}"#.as_bytes(),
            |a| (a == "MI300X").then(|| "MI300x".to_string()),
        )
        .expect("parse");
        assert_eq!(custom[0].accelerator.as_deref(), Some("MI300x"));
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
    fn name_matching() {
        for (req, viable, want) in [
            ("H100", "h100-80gb", true),
            ("h100-80gb", "H100", true),
            ("A100", "a100-80gb", true),
            ("A100-80GB", "a100", false),
            ("A100-80G", "a100", false),
            ("H200", "h200-sxm-80gb", true),
            ("H10", "h100", false),
            ("T4", "t4", true),
            ("L4", "l40s", false),
        ] {
            assert_eq!(
                accelerator_name_matches(req, &[viable]),
                want,
                "{req} vs {viable}"
            );
        }
    }

    #[test]
    fn fits_cases() {
        let h100 = gpu_node(
            "h100",
            ("skypilot.co/accelerator", "h100"),
            8,
            "96",
            "1024Gi",
            true,
        );
        let a100 = gpu_node(
            "a100",
            ("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB"),
            4,
            "48",
            "256Gi",
            true,
        );
        let t4_down = gpu_node(
            "t4",
            ("skypilot.co/accelerator", "t4"),
            1,
            "8",
            "32Gi",
            false,
        );
        let cpu = cpu_node("cpu", "8", "32Gi", Some("100Gi"));
        let gfd_cluster = vec![a100.clone(), cpu.clone()];
        let sky_cluster = vec![h100.clone(), t4_down.clone(), cpu.clone()];
        let cpu_cluster = vec![cpu.clone()];
        let it = |s: &str| s.parse::<KubeInstanceType>().expect(s);
        let cases: Vec<FitsCase> = vec![
            ("2CPU--2GB", &cpu_cluster, None, Ok(())),
            ("8CPU--32GB", &cpu_cluster, None, Ok(())),
            ("8CPU--32GB", &cpu_cluster, Some(100.0), Ok(())),
            (
                "8CPU--32GB",
                &cpu_cluster,
                Some(256.0),
                Err(
                    "No nodes found with enough CPU (>= 8.0 CPUs) and/or memory (>= 32.0 G) and/or ephemeral storage (>= 256 G). Maximum resources found on a single node: 8.0 CPUs, 32G Memory, 100G Ephemeral Storage",
                ),
            ),
            (
                "16CPU--16GB",
                &cpu_cluster,
                None,
                Err(
                    "No nodes found with enough CPU (>= 16.0 CPUs) and/or memory (>= 16.0 G). Maximum resources found on a single node: 8.0 CPUs, 32G Memory, 100G Ephemeral Storage",
                ),
            ),
            (
                "2CPU--2GB",
                &[],
                None,
                Err("No ready nodes found in the cluster."),
            ),
            ("4CPU--16GB--H100:1", &sky_cluster, None, Ok(())),
            ("32CPU--128GB--H100:8", &sky_cluster, None, Ok(())),
            ("4CPU--16GB--h100:1", &sky_cluster, None, Ok(())),
            (
                "4CPU--16GB--H100:16",
                &sky_cluster,
                None,
                Err("No GPU nodes found with 16 or more GPUs."),
            ),
            (
                "128CPU--16GB--H100:1",
                &sky_cluster,
                None,
                Err(
                    "GPU nodes with H100 do not have enough CPU (>= 128.0 CPUs) and/or memory (>= 16.0 G). Maximum resources found on a single node: 96.0 CPUs, 1024G Memory, 0G Ephemeral Storage",
                ),
            ),
            (
                "4CPU--16GB--T4:1",
                &sky_cluster,
                None,
                Err("No ready GPU nodes found with T4 on the cluster"),
            ),
            ("4CPU--16GB--A100:1", &gfd_cluster, None, Ok(())),
            (
                "4CPU--16GB--A100-80GB:1",
                &gfd_cluster,
                None,
                Err(
                    "Could not find any node in the Kubernetes cluster with A100-80GB. Please ensure at least one node in the cluster has A100-80GB and node labels are setup correctly. Please refer to the documentation for more. . Note that multi-host TPU podslices are currently not unsupported.",
                ),
            ),
            (
                "4CPU--16GB--T4:1",
                &cpu_cluster,
                None,
                Err(
                    "Could not detect GPU/TPU resources ('amd.com/gpu', 'nvidia.com/gpu' or 'google.com/tpu') in Kubernetes cluster. If this cluster contains GPUs, please ensure GPU drivers are installed on the node. Check if the GPUs are setup correctly by running `kubectl describe nodes` and looking for the 'amd.com/gpu', 'nvidia.com/gpu' or 'google.com/tpu' resource. Please refer to the documentation on how to set up GPUs.",
                ),
            ),
        ];
        for (name, nodes, disk, want) in cases {
            assert_eq!(
                fits(&it(name), nodes, disk),
                want.map_err(str::to_string),
                "{name} disk={disk:?}"
            );
        }
        let unlabeled = vec![node(
            r#"{"metadata":{"name":"g"},"status":{"capacity":{"cpu":"8","memory":"8Gi"},"allocatable":{"nvidia.com/gpu":"1"},"conditions":[{"type":"Ready","status":"True"}]}}"#,
        )];
        assert_eq!(
            fits(&it("4CPU--16GB--T4:1"), &unlabeled, None),
            Err(
                "Could not detect GPU labels in Kubernetes cluster. Run `sky check ssh` to debug."
                    .into()
            )
        );
    }

    #[test]
    fn fits_tpu() {
        let tpu = |name: &str, topo: &str, chips: &str| {
            node(&format!(
                r#"{{"metadata":{{"name":"{name}","labels":{{"cloud.google.com/gke-tpu-accelerator":"tpu-v5-lite-podslice",
                   "cloud.google.com/gke-tpu-topology":"{topo}","cloud.google.com/gke-accelerator-count":"{chips}"}}}},
                   "status":{{"capacity":{{"cpu":"24","memory":"48Gi"}},"allocatable":{{"google.com/tpu":"{chips}"}},
                   "conditions":[{{"type":"Ready","status":"True"}}]}}}}"#
            ))
        };
        let nodes = vec![tpu("single", "2x2", "4"), tpu("multi", "4x4", "4")];
        assert!(nodes[1].tpu.as_ref().is_some_and(TpuSlice::is_multi_host));
        let it = |s: &str| s.parse::<KubeInstanceType>().expect(s);
        assert_eq!(
            fits(&it("8CPU--32GB--tpu-v5-lite-podslice:4"), &nodes, None),
            Ok(())
        );
        assert!(fits(&it("8CPU--32GB--tpu-v5-lite-podslice:16"), &nodes, None).is_err());
        assert_eq!(
            nodes[0].accelerator.as_deref(),
            Some("tpu-v5-lite-podslice")
        );
        assert_eq!(
            normalize_tpu_accelerator_name("tpu-v6e-8"),
            ("tpu-v6e-slice".to_string(), 8)
        );
        assert_eq!(
            normalize_tpu_accelerator_name("tpu-v5litepod-4"),
            ("tpu-v5-lite-podslice".to_string(), 4)
        );
        assert_eq!(reduce_tpu_topology("2x2x1"), Some(4));
        assert_eq!(reduce_tpu_topology("2xz"), None);
    }

    #[test]
    fn pricing() {
        let yaml = r#"
kubernetes:
  pricing:
    cpu: 0.05
    memory: 0.01
    accelerators: {H100: 2.5, a100: 1.0}
  context_configs:
    prod:
      pricing:
        cpu: 0.1
        accelerators: {h100: 3.0}
"#;
        let config: serde_yaml_ng::Value = serde_yaml_ng::from_str(yaml).expect("yaml");
        let global = KubePricing::from_config(&config, None).expect("global");
        let prod = KubePricing::from_config(&config, Some("prod")).expect("prod");
        let none = KubePricing::from_config(&serde_yaml_ng::Value::Null, Some("x")).expect("none");
        let it = |s: &str| s.parse::<KubeInstanceType>().expect(s);
        let cases: [(&str, &KubePricing, f64); 7] = [
            ("2CPU--2GB", &global, 0.12),
            ("2CPU--2GB", &prod, 0.22),
            ("4CPU--16GB--H100:2", &global, 5.0),
            ("4CPU--16GB--A100:1", &prod, 1.0),
            ("4CPU--16GB--T4:1", &global, 0.0),
            ("2CPU--2GB", &none, 0.0),
            ("4CPU--16GB--H100:1", &none, 0.0),
        ];
        for (name, pricing, want) in cases {
            assert!(
                (hourly_cost(&it(name), pricing) - want).abs() < 1e-9,
                "{name}"
            );
        }
        // The context level overrides `h100`; `H100` from the global level stays listed too.
        assert_eq!(prod.accelerators.len(), 3);
        let bad: serde_yaml_ng::Value =
            serde_yaml_ng::from_str("kubernetes: {pricing: {cpu: cheap}}").expect("yaml");
        assert!(KubePricing::from_config(&bad, None).is_err());
    }

    #[test]
    fn allowed_context_rules() {
        let kc: Vec<String> = ["kind-a", "gke-b", "ssh-pool"].map(String::from).to_vec();
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let cases: Vec<AllowedCase> = vec![
            (None, Some("gke-b"), false, s(&["gke-b"]), s(&[])),
            (None, None, false, s(&[]), s(&[])),
            (None, Some("kind-a"), true, s(&["kind-a", "gke-b"]), s(&[])),
            (
                Some(s(&["all"])),
                Some("kind-a"),
                false,
                s(&["kind-a", "gke-b"]),
                s(&[]),
            ),
            (
                Some(s(&["gke-b", "missing", "ssh-x", "kind-a", "gke-b"])),
                None,
                false,
                s(&["gke-b", "kind-a"]),
                s(&["missing"]),
            ),
            (Some(s(&["ssh-pool"])), None, false, s(&[]), s(&[])),
            (None, Some("ssh-pool"), false, s(&[]), s(&[])),
            (Some(s(&[])), Some("kind-a"), true, s(&[]), s(&[])),
        ];
        for (allowed, current, env, want, skipped) in cases {
            let got = allowed_contexts(&kc, current, allowed.as_deref(), env);
            assert_eq!(
                got,
                AllowedContexts {
                    contexts: want,
                    skipped
                },
                "{allowed:?} {current:?} {env}"
            );
        }
        let got = allowed_contexts(&kc, None, Some(&s(&["x", "it's"])), false);
        assert_eq!(
            got.warning().as_deref(),
            Some(
                "Kubernetes contexts {'x', \"it's\"} specified in \"allowed_contexts\" not found in kubeconfig. Ignoring these contexts."
            )
        );
        assert_eq!(
            allowed_contexts(&[], Some("a"), None, false),
            AllowedContexts::default()
        );
    }
}
