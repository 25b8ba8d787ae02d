//! The Kubernetes API: `/version`, `/api/v1/nodes`, `/api/v1/pods`.

use std::path::PathBuf;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use wiremock::MockServer;

use crate::endpoint::{EndpointState, exact, ok_fixed};
use crate::flavor::Flavor;
use crate::fleet::FleetRoute;
use crate::served::{Route, Served};
use crate::{EndpointOptions, Fault, Latency, MockError, Recorder, Recording, fixtures};

/// Which GPU label scheme a node pool carries, as SkyPilot 0.14's label
/// formatters read them (`sky/provision/kubernetes/utils.py`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GpuLabel {
    /// `skypilot.co/accelerator: h100` (lower-case accelerator name).
    #[default]
    Skypilot,
    /// NVIDIA GPU feature discovery: `nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3`.
    Gfd,
    /// GKE: `cloud.google.com/gke-accelerator: nvidia-h100-80gb` / `nvidia-tesla-t4`,
    /// plus `cloud.google.com/gke-accelerator-count`.
    Gke,
    /// Karpenter: `karpenter.k8s.aws/instance-gpu-name: a10g`, plus `…/instance-gpu-count`.
    Karpenter,
}

impl GpuLabel {
    /// The label key.
    pub fn key(self) -> &'static str {
        match self {
            GpuLabel::Skypilot => "skypilot.co/accelerator",
            GpuLabel::Gfd => "nvidia.com/gpu.product",
            GpuLabel::Gke => "cloud.google.com/gke-accelerator",
            GpuLabel::Karpenter => "karpenter.k8s.aws/instance-gpu-name",
        }
    }

    /// The label value a real cluster would carry for SkyPilot accelerator `acc` (e.g. `H100`).
    pub fn value_for(self, acc: &str) -> String {
        match self {
            GpuLabel::Skypilot | GpuLabel::Karpenter => acc.to_lowercase(),
            GpuLabel::Gfd => match acc {
                "H100" => "NVIDIA-H100-80GB-HBM3".into(),
                "A100" => "NVIDIA-A100-SXM4-40GB".into(),
                "A100-80GB" => "NVIDIA-A100-SXM4-80GB".into(),
                "V100" => "Tesla-V100-SXM2-16GB".into(),
                "T4" => "Tesla-T4".into(),
                other => format!("NVIDIA-{}", other.to_uppercase()),
            },
            // sky.provision.kubernetes.utils.get_gke_accelerator_name
            GpuLabel::Gke => {
                let acc = if acc == "H100" { "H100-80GB" } else { acc };
                if ["A100-80GB", "L4", "H100-80GB", "H100-MEGA-80GB", "B200"].contains(&acc) {
                    format!("nvidia-{}", acc.to_lowercase())
                } else if acc == "H200" {
                    "nvidia-h200-141gb".into()
                } else if acc.starts_with("tpu-") || acc.starts_with("amd-") {
                    acc.into()
                } else {
                    format!("nvidia-tesla-{}", acc.to_lowercase())
                }
            }
        }
    }
}

/// GPUs on every node of a [`NodePool`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuSpec {
    /// SkyPilot accelerator name, e.g. `H100`, `A100-80GB`, `T4`.
    pub accelerator: String,
    /// GPUs per node: `status.allocatable["nvidia.com/gpu"]`. Default 1.
    #[serde(default = "one")]
    pub count: u32,
    /// Label scheme. Default `skypilot`.
    #[serde(default)]
    pub label: GpuLabel,
    /// Exact label value, overriding [`GpuLabel::value_for`].
    #[serde(default)]
    pub label_value: Option<String>,
}

fn one() -> u32 {
    1
}

/// A group of identical generated nodes.
///
/// ```toml
/// node_pools = [
///   { count = 2 },                                                       # CPU nodes
///   { count = 4, gpu = { accelerator = "H100", count = 8, label = "gfd" } },
/// ]
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NodePool {
    /// Number of nodes. Default 1.
    pub count: usize,
    /// Node names are `<name_prefix>-<index>`, the index counting across all pools. Default `mock-node`.
    pub name_prefix: String,
    /// `allocatable.cpu`. Default `8`.
    pub cpu: String,
    /// `allocatable.memory`. Default `32Gi`.
    pub memory: String,
    /// `allocatable.ephemeral-storage`. Default `100Gi`.
    pub ephemeral_storage: String,
    /// `node.kubernetes.io/instance-type` label, if any.
    pub instance_type: Option<String>,
    /// Status of the `Ready` condition. Default `true`.
    pub ready: bool,
    /// GPUs and their label; `None` for CPU nodes.
    pub gpu: Option<GpuSpec>,
}

impl Default for NodePool {
    fn default() -> Self {
        NodePool {
            count: 1,
            name_prefix: "mock-node".into(),
            cpu: "8".into(),
            memory: "32Gi".into(),
            ephemeral_storage: "100Gi".into(),
            instance_type: None,
            ready: true,
            gpu: None,
        }
    }
}

impl NodePool {
    /// `count` CPU-only nodes.
    pub fn cpu(count: usize) -> Self {
        NodePool {
            count,
            ..NodePool::default()
        }
    }

    /// `count` nodes with `gpus` × `accelerator` each, labelled with `label`.
    pub fn gpu(count: usize, accelerator: &str, gpus: u32, label: GpuLabel) -> Self {
        NodePool {
            count,
            gpu: Some(GpuSpec {
                accelerator: accelerator.into(),
                count: gpus,
                label,
                label_value: None,
            }),
            ..NodePool::default()
        }
    }
}

/// Options of a [`KubeMock`]; also its builder.
///
/// The node list is generated from `node_pools` unless `nodes_file` names a
/// NodeList JSON file, which is then served byte for byte. Pods are generated
/// (`pod_count` pods round-robin over the nodes, `Running`, each requesting
/// `500m` CPU, `1Gi` memory and, on GPU nodes, one `nvidia.com/gpu`) unless
/// `pods_file` is given. Query strings (`labelSelector`, `fieldSelector`, `limit`)
/// are ignored: lists always come back whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct KubeOptions {
    /// `GET /version`.
    pub version: EndpointOptions,
    /// `GET /api/v1/nodes`.
    pub nodes: EndpointOptions,
    /// `GET /api/v1/pods` (all namespaces).
    pub pods: EndpointOptions,
    /// Generated nodes. Default: one CPU node and one node with 8 × H100 (`skypilot.co/accelerator`).
    pub node_pools: Vec<NodePool>,
    /// Serve this NodeList JSON file as-is instead of generating nodes.
    pub nodes_file: Option<PathBuf>,
    /// Number of generated pods. Default 0.
    pub pod_count: usize,
    /// Serve this PodList JSON file as-is instead of generating pods.
    pub pods_file: Option<PathBuf>,
}

impl Default for KubeOptions {
    fn default() -> Self {
        KubeOptions {
            version: EndpointOptions::default(),
            nodes: EndpointOptions::default(),
            pods: EndpointOptions::default(),
            node_pools: vec![
                NodePool::cpu(1),
                NodePool::gpu(1, "H100", 8, GpuLabel::Skypilot),
            ],
            nodes_file: None,
            pod_count: 0,
            pods_file: None,
        }
    }
}

impl KubeOptions {
    /// Sets the latency of all three endpoints.
    pub fn latency(mut self, latency: Latency) -> Self {
        for e in [&mut self.version, &mut self.nodes, &mut self.pods] {
            e.latency = latency;
        }
        self
    }

    /// Sets the fault of all three endpoints.
    pub fn fault(mut self, fault: Fault) -> Self {
        for e in [&mut self.version, &mut self.nodes, &mut self.pods] {
            e.fault = fault;
        }
        self
    }

    /// Replaces the generated node pools.
    pub fn node_pools(mut self, pools: Vec<NodePool>) -> Self {
        self.node_pools = pools;
        self
    }

    /// Serves a NodeList file as-is.
    pub fn nodes_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.nodes_file = Some(path.into());
        self
    }

    /// Sets the number of generated pods.
    pub fn pod_count(mut self, n: usize) -> Self {
        self.pod_count = n;
        self
    }

    /// Serves a PodList file as-is.
    pub fn pods_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.pods_file = Some(path.into());
        self
    }

    /// Starts the mock.
    pub async fn start(self) -> Result<KubeMock, MockError> {
        KubeMock::start_with(self, Instant::now(), 0, "kube").await
    }
}

/// Builds the NodeList generated from `pools`.
pub fn node_list(pools: &[NodePool]) -> Value {
    let mut items = Vec::new();
    for pool in pools {
        for _ in 0..pool.count {
            let i = items.len();
            let name = format!("{}-{i}", pool.name_prefix);
            let mut labels = serde_json::Map::new();
            labels.insert("kubernetes.io/hostname".into(), json!(name));
            labels.insert("kubernetes.io/os".into(), json!("linux"));
            labels.insert("kubernetes.io/arch".into(), json!("amd64"));
            if let Some(t) = &pool.instance_type {
                labels.insert("node.kubernetes.io/instance-type".into(), json!(t));
            }
            let mut alloc = json!({
                "cpu": pool.cpu, "memory": pool.memory,
                "ephemeral-storage": pool.ephemeral_storage, "pods": "110",
            });
            if let Some(gpu) = &pool.gpu {
                let value = gpu
                    .label_value
                    .clone()
                    .unwrap_or_else(|| gpu.label.value_for(&gpu.accelerator));
                labels.insert(gpu.label.key().into(), json!(value));
                match gpu.label {
                    GpuLabel::Gke => {
                        labels.insert(
                            "cloud.google.com/gke-accelerator-count".into(),
                            json!(gpu.count.to_string()),
                        );
                    }
                    GpuLabel::Karpenter => {
                        labels.insert(
                            "karpenter.k8s.aws/instance-gpu-count".into(),
                            json!(gpu.count.to_string()),
                        );
                    }
                    GpuLabel::Skypilot | GpuLabel::Gfd => {}
                }
                alloc["nvidia.com/gpu"] = json!(gpu.count.to_string());
            }
            let (status, reason) = if pool.ready {
                ("True", "KubeletReady")
            } else {
                ("False", "KubeletNotReady")
            };
            items.push(json!({
                "metadata": {
                    "name": name,
                    "uid": format!("00000000-0000-4000-8000-{i:012}"),
                    "labels": labels,
                },
                "spec": {},
                "status": {
                    "capacity": alloc.clone(),
                    "allocatable": alloc,
                    "conditions": [{
                        "type": "Ready", "status": status, "reason": reason,
                        "lastHeartbeatTime": "2025-06-01T00:00:00Z",
                        "lastTransitionTime": "2025-06-01T00:00:00Z",
                    }],
                    "addresses": [
                        { "type": "InternalIP", "address": format!("10.{}.{}.{}", (i >> 16) & 255, (i >> 8) & 255, i & 255) },
                        { "type": "Hostname", "address": name },
                    ],
                },
            }));
        }
    }
    json!({ "kind": "NodeList", "apiVersion": "v1", "metadata": { "resourceVersion": "1000" }, "items": items })
}

/// Builds `count` pods spread round-robin over the nodes of `node_list`.
pub fn pod_list(node_list: &Value, count: usize) -> Value {
    let nodes: Vec<(String, bool)> = node_list["items"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|n| {
                    let name = n["metadata"]["name"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned();
                    let gpu = n["status"]["allocatable"].get("nvidia.com/gpu").is_some();
                    (name, gpu)
                })
                .collect()
        })
        .unwrap_or_default();
    let items: Vec<Value> = (0..count)
        .map(|j| {
            let node = nodes.get(j % nodes.len().max(1));
            let mut requests = json!({ "cpu": "500m", "memory": "1Gi" });
            let mut limits = json!({});
            if node.is_some_and(|(_, gpu)| *gpu) {
                requests["nvidia.com/gpu"] = json!("1");
                limits["nvidia.com/gpu"] = json!("1");
            }
            let mut spec = json!({
                "containers": [{ "name": "main", "image": "busybox",
                                 "resources": { "requests": requests, "limits": limits } }],
            });
            if let Some((name, _)) = node {
                spec["nodeName"] = json!(name);
            }
            json!({
                "metadata": { "name": format!("mock-pod-{j}"), "namespace": "default",
                              "uid": format!("00000000-0000-4000-9000-{j:012}"),
                              "labels": { "app": "mock" } },
                "spec": spec,
                "status": { "phase": "Running" },
            })
        })
        .collect();
    json!({ "kind": "PodList", "apiVersion": "v1", "metadata": { "resourceVersion": "1000" }, "items": items })
}

/// A Kubernetes API server on 127.0.0.1 (one per kubeconfig context).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), mocks::MockError> {
/// use mocks::{GpuLabel, KubeMock, NodePool};
///
/// let kube = KubeMock::builder()
///     .node_pools(vec![NodePool::gpu(4, "A100", 8, GpuLabel::Gke)])
///     .pod_count(10)
///     .start()
///     .await?;
/// let dir = std::env::temp_dir();
/// let kubeconfig = mocks::write_kubeconfig(&dir, &[("mock-0", kube.uri().as_str())])?;
/// # let _ = std::fs::remove_file(kubeconfig);
/// kube.nodes().check_count(0)?;
/// # Ok(()) }
/// ```
pub struct KubeMock {
    served: KubeServed,
    version: Recorder,
    nodes: Recorder,
    pods: Recorder,
}

/// Where a [`KubeMock`] is served.
enum KubeServed {
    /// By wiremock (a server of its own, or a tenant of a shared one).
    Wire(Served),
    /// By a [`MockSet`](crate::MockSet)'s fleet, at this URL.
    Fleet(String),
}

/// One endpoint of a [`KubeMock`], before it is served.
struct Endpoint {
    path: &'static str,
    state: std::sync::Arc<EndpointState>,
    body: Vec<u8>,
    expect: Option<u64>,
}

impl KubeMock {
    /// Default options, to be adjusted and then `.start()`ed.
    pub fn builder() -> KubeOptions {
        KubeOptions::default()
    }

    /// Starts a mock with default options.
    pub async fn start() -> Result<KubeMock, MockError> {
        KubeOptions::default().start().await
    }

    pub(crate) async fn start_with(
        opts: KubeOptions,
        origin: Instant,
        base_seed: u64,
        name: &str,
    ) -> Result<KubeMock, MockError> {
        Self::start_sharing(opts, origin, base_seed, name, None).await
    }

    /// Whether a mock with these options can share a server with others
    /// (no raw fault, which needs a gate of its own).
    pub(crate) fn can_share(opts: &KubeOptions) -> bool {
        ![&opts.version, &opts.nodes, &opts.pods]
            .iter()
            .any(|e| e.fault.is_raw())
    }

    /// Whether a mock with these options can be one of a
    /// [`Fleet`](crate::fleet::Fleet)'s servers: no fault and no wiremock
    /// expectation on any endpoint (those need wiremock's responder).
    pub(crate) fn can_join_fleet(opts: &KubeOptions) -> bool {
        [&opts.version, &opts.nodes, &opts.pods]
            .iter()
            .all(|e| e.fault == Fault::None && e.expect.is_none())
    }

    /// The three endpoints of a mock: path, state, success body, expectation.
    fn endpoints(
        opts: &KubeOptions,
        origin: Instant,
        base_seed: u64,
        name: &str,
    ) -> Result<Vec<Endpoint>, MockError> {
        let (nodes_body, nodes_value) = match &opts.nodes_file {
            Some(path) => {
                let bytes = fixtures::read(path)?;
                let value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
                (bytes, value)
            }
            None => {
                let value = node_list(&opts.node_pools);
                (value.to_string().into_bytes(), value)
            }
        };
        let pods_body = match &opts.pods_file {
            Some(path) => fixtures::read(path)?,
            None => pod_list(&nodes_value, opts.pod_count)
                .to_string()
                .into_bytes(),
        };
        let state = |endpoint: &str, o: &EndpointOptions| {
            EndpointState::new(
                &format!("{name}/{endpoint}"),
                o,
                base_seed,
                origin,
                Flavor::Kube,
            )
        };
        Ok(vec![
            Endpoint {
                path: "/version",
                state: state("version", &opts.version)?,
                body: fixtures::KUBE_VERSION_JSON.as_bytes().to_vec(),
                expect: opts.version.expect,
            },
            Endpoint {
                path: "/api/v1/nodes",
                state: state("nodes", &opts.nodes)?,
                body: nodes_body,
                expect: opts.nodes.expect,
            },
            Endpoint {
                path: "/api/v1/pods",
                state: state("pods", &opts.pods)?,
                body: pods_body,
                expect: opts.pods.expect,
            },
        ])
    }

    fn from_endpoints(endpoints: &[Endpoint], served: KubeServed) -> KubeMock {
        let recorder = |i: usize| endpoints[i].state.recorder.clone();
        KubeMock {
            served,
            version: recorder(0),
            nodes: recorder(1),
            pods: recorder(2),
        }
    }

    /// Starts the mock on a server of its own, or on `shared` (a server and
    /// this mock's path prefix, e.g. `/ctx/3`), see [`Served::start_on`].
    pub(crate) async fn start_sharing(
        opts: KubeOptions,
        origin: Instant,
        base_seed: u64,
        name: &str,
        shared: Option<(std::sync::Arc<MockServer>, String)>,
    ) -> Result<KubeMock, MockError> {
        let endpoints = Self::endpoints(&opts, origin, base_seed, name)?;
        let json = "application/json";
        let routes = endpoints
            .iter()
            .map(|e| Route {
                method: "GET",
                path: exact(e.path),
                body_contains: None,
                state: e.state.clone(),
                ok: ok_fixed(e.body.clone(), json),
                expect: e.expect,
            })
            .collect();
        let served = match shared {
            Some((server, base)) => Served::start_on(server, base, routes).await?,
            None => Served::start(routes).await?,
        };
        Ok(Self::from_endpoints(&endpoints, KubeServed::Wire(served)))
    }

    /// Prepares the mock as one of a [`Fleet`](crate::fleet::Fleet)'s
    /// servers: its routes for [`Fleet::start`](crate::fleet::Fleet::start),
    /// and the mock once the fleet gives it its URL.
    pub(crate) fn for_fleet(
        opts: &KubeOptions,
        origin: Instant,
        base_seed: u64,
        name: &str,
    ) -> Result<(Vec<FleetRoute>, impl FnOnce(String) -> KubeMock + use<>), MockError> {
        let endpoints = Self::endpoints(opts, origin, base_seed, name)?;
        let routes = endpoints
            .iter()
            .map(|e| FleetRoute {
                path: e.path,
                state: e.state.clone(),
                body: e.body.clone().into(),
            })
            .collect();
        Ok((routes, move |uri| {
            Self::from_endpoints(&endpoints, KubeServed::Fleet(uri))
        }))
    }

    /// Base URL, `http://127.0.0.1:PORT` (with a path, `/ctx/<i>`, when the
    /// server is shared by a [`MockSet`](crate::MockSet)'s contexts); the
    /// kubeconfig `server:`.
    pub fn uri(&self) -> String {
        match &self.served {
            KubeServed::Wire(served) => served.uri(),
            KubeServed::Fleet(uri) => uri.clone(),
        }
    }

    /// The `/version` request log.
    pub fn version(&self) -> &Recorder {
        &self.version
    }

    /// The `/api/v1/nodes` request log.
    pub fn nodes(&self) -> &Recorder {
        &self.nodes
    }

    /// The `/api/v1/pods` request log.
    pub fn pods(&self) -> &Recorder {
        &self.pods
    }

    /// Snapshots of every endpoint's log.
    pub fn recordings(&self) -> Vec<Recording> {
        [&self.version, &self.nodes, &self.pods]
            .iter()
            .map(|r| r.recording())
            .collect()
    }

    /// The underlying wiremock server; `None` for a context a
    /// [`MockSet`](crate::MockSet) serves without wiremock (one without
    /// faults: see its `fleet` module).
    pub fn server(&self) -> Option<&MockServer> {
        match &self.served {
            KubeServed::Wire(served) => Some(served.server()),
            KubeServed::Fleet(_) => None,
        }
    }
}
