//! The CPU-bound operations, shared by the criterion groups and `bench-ops`
//! (which runs each once under callgrind). An [`Op`]'s [`Op::id`] is its
//! criterion benchmark id, so times and instruction counts share a key.

use std::hint::black_box;

use anyhow::{Context, anyhow};
use mocks::fixtures_dir;
use mocks::{GpuLabel, NodePool, node_list};
use optimizer::catalogs::{load_catalog, load_catalog_indexed};
use optimizer::clouds::CheckContext;
use optimizer::clouds::kubernetes::{
    KubernetesCloud, KubernetesOptions, contexts_from_fixture_dir,
};
use optimizer::state::{CatalogIndex, StateDir};
use planner::catalog::kubernetes::{
    KubeContext, KubeNode, KubePricing, parse_node_list, parse_node_page,
};
use planner::cloud::CloudId;
use planner::feasibility::feasible_resources;
use planner::launch::CatalogSource;
use planner::resources::Resources;
use planner::task::{Dag, Overrides, Task, apply_overrides};
use planner::world::World;

use crate::CATALOG_CLOUDS;

/// A request the feasibility and optimize benchmarks use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedRequest {
    /// Benchmark parameter (`h100x8`, `t4`, `cpu-default`).
    pub name: &'static str,
    /// `--gpus`, if any.
    pub gpus: Option<&'static str>,
}

/// `--gpus H100:8`, `--gpus T4` and no flags (SkyPilot's default CPU instance).
pub const REQUESTS: [NamedRequest; 3] = [
    NamedRequest {
        name: "h100x8",
        gpus: Some("H100:8"),
    },
    NamedRequest {
        name: "t4",
        gpus: Some("T4"),
    },
    NamedRequest {
        name: "cpu-default",
        gpus: None,
    },
];

/// Clouds whose feasibility is benchmarked: the catalog clouds plus Kubernetes
/// (fixture contexts `h100-cluster` and `gke-t4`).
pub fn feasibility_clouds() -> Vec<CloudId> {
    let mut v = CATALOG_CLOUDS.to_vec();
    v.push(CloudId::Kubernetes);
    v
}

/// One CPU-bound operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `load_catalog(Bundled, all 7 catalog clouds)`: parse and index.
    LoadAll,
    /// `load_catalog(Bundled, [aws])`.
    LoadAws,
    /// `load_catalog_indexed(Bundled, all 7)` from their stored images: what
    /// every launch after the first does.
    LoadAllIndexed,
    /// `feasible_resources` of one cloud for one request.
    Feasibility(CloudId, NamedRequest),
    /// `optimize` of a one-task DAG over the whole world.
    Optimize(NamedRequest),
    /// `optimize` of `--gpus H100:8` over Kubernetes alone: 64 contexts of
    /// 4 nodes with 8 H100 each, nodes already parsed (what a launch does
    /// after the last node list answers; issue 29's 64-context row).
    OptimizeKube64,
    /// `framed_table` of the H100:8 "Considered resources" rows.
    Render,
    /// `parse_node_page` of the 64 node lists of scenario `64-contexts-50ms`
    /// (4 H100×8 nodes each, as the Kubernetes mock serves them): what a
    /// `--refresh` launch over 64 contexts reads once their answers arrive.
    ParseNodePages,
    /// The node cache's encoding of those 64 listings
    /// (`serde_json::value::to_raw_value(&[KubeNode])` each).
    EncodeNodes,
    /// `KubernetesCloud::load_kubeconfig` of the kubeconfig scenario
    /// `64-contexts-50ms` writes (64 contexts, clusters and token users,
    /// 14.8 KB, as `mocks::write_kubeconfig` writes it): the file read and
    /// parsed into kube's `Kubeconfig`, before a `--refresh` launch's first
    /// request can leave.
    ReadKubeconfig,
}

impl Op {
    /// Every operation, in suite order.
    pub fn all() -> Vec<Op> {
        let mut v = vec![Op::LoadAll, Op::LoadAws, Op::LoadAllIndexed];
        for cloud in feasibility_clouds() {
            v.extend(REQUESTS.iter().map(|r| Op::Feasibility(cloud, *r)));
        }
        v.extend(REQUESTS.iter().map(|r| Op::Optimize(*r)));
        v.push(Op::OptimizeKube64);
        v.push(Op::Render);
        v.extend([Op::ParseNodePages, Op::EncodeNodes, Op::ReadKubeconfig]);
        v
    }

    /// The criterion benchmark id (`group/function[/parameter]`).
    pub fn id(self) -> String {
        match self {
            Op::LoadAll => "catalog/load-all-7".into(),
            Op::LoadAws => "catalog/load-aws".into(),
            Op::LoadAllIndexed => "catalog/load-all-7-indexed".into(),
            Op::Feasibility(c, r) => format!("feasibility/{}/{}", c.name(), r.name),
            Op::Optimize(r) => format!("optimize/{}", r.name),
            Op::OptimizeKube64 => format!("optimize/{KUBE64_NAME}"),
            Op::Render => "render/framed-table".into(),
            Op::ParseNodePages => "kubernetes/parse-node-pages-64".into(),
            Op::EncodeNodes => "kubernetes/encode-nodes-64".into(),
            Op::ReadKubeconfig => "kubernetes/read-kubeconfig-64".into(),
        }
    }

    /// Runs the operation once on prepared inputs.
    pub fn run(self, inputs: &Inputs) {
        match self {
            Op::LoadAll => {
                black_box(load_catalog(&CatalogSource::Bundled, &CATALOG_CLOUDS).ok());
            }
            Op::LoadAws => {
                black_box(load_catalog(&CatalogSource::Bundled, &[CloudId::Aws]).ok());
            }
            Op::LoadAllIndexed => {
                let index = Some(&inputs.index.1);
                black_box(
                    load_catalog_indexed(&CatalogSource::Bundled, &CATALOG_CLOUDS, index).ok(),
                );
            }
            Op::Feasibility(cloud, r) => {
                black_box(feasible_resources(&inputs.world, cloud, inputs.resources(r), 1).ok());
            }
            Op::Optimize(r) => {
                black_box(planner::optimize::optimize(&inputs.world, inputs.dag(r)));
            }
            Op::OptimizeKube64 => {
                black_box(planner::optimize::optimize(
                    &inputs.kube64,
                    inputs.dag(REQUESTS[0]),
                ));
            }
            Op::Render => {
                black_box(planner::text::framed_table(black_box(&inputs.rows)));
            }
            Op::ParseNodePages => {
                for page in &inputs.node_pages {
                    black_box(parse_node_page(black_box(page)).ok());
                }
            }
            Op::EncodeNodes => {
                for nodes in &inputs.node_listings {
                    black_box(serde_json::value::to_raw_value(black_box(nodes.as_slice())).ok());
                }
            }
            Op::ReadKubeconfig => {
                let k = &inputs.kubeconfig;
                black_box(k.cloud.load_kubeconfig(black_box(&k.ctx)).ok());
            }
        }
    }
}

/// [`Op::OptimizeKube64`]'s parameter (its criterion function name).
pub const KUBE64_NAME: &str = "kubernetes-64x4-h100x8";

/// The world of `fixtures/scenarios/64-contexts-50ms`: Kubernetes alone,
/// 64 contexts, each 4 ready nodes of 192 CPUs, 1024 GiB and 8 H100
/// (GPU feature discovery labels), parsed from the mock's node list.
fn kube64_world() -> anyhow::Result<World> {
    let pool = NodePool {
        count: 4,
        cpu: "192".into(),
        memory: "1024Gi".into(),
        ..NodePool::gpu(4, "H100", 8, GpuLabel::Gfd)
    };
    let json = serde_json::to_vec(&node_list(&[pool])).context("writing the node list")?;
    let nodes = parse_node_list(&json).context("parsing the generated node list")?;
    let kube_contexts = (0..64)
        .map(|i| KubeContext {
            name: format!("ctx-{i:02}"),
            nodes: Ok(nodes.clone()),
        })
        .collect();
    Ok(World {
        catalog: Default::default(),
        enabled: vec![CloudId::Kubernetes],
        kube_contexts,
        kube_pricing: KubePricing::default(),
        reservation_clouds: Vec::new(),
        sky_config: Default::default(),
        ssh: Default::default(),
        slurm: Default::default(),
    })
}

/// Inputs built once: the world, the parsed requests, the table rows.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// All 7 catalogs, every catalog cloud plus Kubernetes enabled.
    pub world: World,
    /// `(request, its one-task DAG)`.
    pub dags: Vec<(NamedRequest, Dag)>,
    /// Kubernetes alone, 64 contexts × 4 H100x8 nodes ([`Op::OptimizeKube64`]).
    pub kube64: World,
    /// Table rows (header first) of the H100:8 plan.
    pub rows: Vec<Vec<String>>,
    /// A state folder holding the images of the bundled catalogs.
    pub index: (std::sync::Arc<tempfile::TempDir>, CatalogIndex),
    /// The 64 node-list answers of scenario `64-contexts-50ms`.
    pub node_pages: Vec<Vec<u8>>,
    /// Those pages' nodes.
    pub node_listings: Vec<Vec<KubeNode>>,
    /// The 64-context kubeconfig on disk ([`Op::ReadKubeconfig`]).
    pub kubeconfig: KubeconfigInput,
}

/// A kubeconfig file and the adapter that reads it.
#[derive(Debug, Clone)]
pub struct KubeconfigInput {
    /// The folder holding the file (removed when the last clone drops).
    pub dir: std::sync::Arc<tempfile::TempDir>,
    /// A Kubernetes adapter whose `kubeconfig` option is that file.
    pub cloud: KubernetesCloud,
    /// An empty environment (the option names the file).
    pub ctx: CheckContext,
}

impl Inputs {
    /// Loads the bundled catalogs, the Kubernetes fixture contexts, parses
    /// the requests and optimises H100:8 once for the table rows.
    pub fn new() -> anyhow::Result<Inputs> {
        let mut loaded = load_catalog(&CatalogSource::Bundled, &CATALOG_CLOUDS)
            .context("loading the bundled catalogs")?;
        loaded.apply_aws_identity(None);
        let contexts = ["h100-cluster".to_string(), "gke-t4".to_string()];
        let world = World {
            catalog: loaded.catalog,
            enabled: feasibility_clouds(),
            kube_contexts: contexts_from_fixture_dir(&fixtures_dir().join("kube-nodes"), &contexts),
            kube_pricing: KubePricing::default(),
            reservation_clouds: Vec::new(),
            sky_config: Default::default(),
            ssh: Default::default(),
            slurm: Default::default(),
        };
        let mut dags = Vec::new();
        for r in REQUESTS {
            let mut dag = Dag {
                tasks: vec![Task::default()],
            };
            let overrides = Overrides {
                gpus: r.gpus.map(str::to_string),
                ..Default::default()
            };
            apply_overrides(&mut dag, &overrides, &world.catalog.gpu_metadata)
                .map_err(|e| anyhow!("request {}: {}", r.name, e.message))?;
            dags.push((r, dag));
        }
        let plan = planner::optimize::optimize(&world, &dags[0].1)
            .result
            .map_err(|e| anyhow!("optimising H100:8: {}", e.message))?;
        let task = plan.tasks.first().context("the H100:8 plan has no task")?;
        let mut rows = vec![
            [
                "INFRA", "INSTANCE", "vCPUs", "Mem(GB)", "GPUS", "COST ($)", "CHOSEN",
            ]
            .map(String::from)
            .to_vec(),
        ];
        for r in &task.table_rows {
            let mut row = planner::render::optimizer::cells(r).to_vec();
            row.push(String::new());
            rows.push(row);
        }
        let state = tempfile::tempdir().context("creating a state folder")?;
        let index = StateDir::open(state.path().join("state"))
            .and_then(|s| CatalogIndex::open(&s))
            .context("opening the catalog index")?;
        // The first indexed load parses and stores the images.
        load_catalog_indexed(&CatalogSource::Bundled, &CATALOG_CLOUDS, Some(&index))
            .context("indexing the bundled catalogs")?;
        let (node_pages, node_listings) = kube_node_pages()?;
        let kubeconfig = kubeconfig_64()?;
        Ok(Inputs {
            world,
            kube64: kube64_world()?,
            dags,
            rows,
            index: (std::sync::Arc::new(state), index),
            node_pages,
            node_listings,
            kubeconfig,
        })
    }

    /// The DAG of a request.
    pub fn dag(&self, r: NamedRequest) -> &Dag {
        self.dags
            .iter()
            .find(|(n, _)| *n == r)
            .map(|(_, d)| d)
            .unwrap_or(&self.dags[0].1)
    }

    /// The (single) resources of a request.
    pub fn resources(&self, r: NamedRequest) -> &Resources {
        &self.dag(r).tasks[0].resources.all()[0]
    }
}

/// Number of contexts of scenario `64-contexts-50ms`.
const KUBE_CONTEXTS: usize = 64;

/// The node-list answers of scenario `64-contexts-50ms` (each context's
/// pool: 4 nodes, 192 CPUs, 1024 GiB, 8 × H100 labelled by GPU feature
/// discovery), as the Kubernetes mock serves them, and their nodes.
type NodePages = (Vec<Vec<u8>>, Vec<Vec<KubeNode>>);

fn kube_node_pages() -> anyhow::Result<NodePages> {
    let pool = mocks::NodePool {
        cpu: "192".into(),
        memory: "1024Gi".into(),
        ..mocks::NodePool::gpu(4, "H100", 8, mocks::GpuLabel::Gfd)
    };
    let page = mocks::node_list(&[pool]).to_string().into_bytes();
    let (nodes, _) = parse_node_page(&page).context("parsing the mock's node list")?;
    anyhow::ensure!(
        nodes.len() == 4,
        "the mock's node list has {} nodes, not 4",
        nodes.len()
    );
    Ok((vec![page; KUBE_CONTEXTS], vec![nodes; KUBE_CONTEXTS]))
}

/// The kubeconfig of scenario `64-contexts-50ms` as `harness mocks` writes
/// it (`mocks::write_kubeconfig`: contexts `mock-<i>`, a server port each,
/// 14,821 bytes with five-digit ports), and an adapter reading it. Checked
/// once: all 64 contexts must be read.
fn kubeconfig_64() -> anyhow::Result<KubeconfigInput> {
    let servers: Vec<(String, String)> = (0..KUBE_CONTEXTS)
        .map(|i| {
            (
                format!("mock-{i}"),
                format!("http://127.0.0.1:{}", 40000 + i),
            )
        })
        .collect();
    let pairs: Vec<(&str, &str)> = servers
        .iter()
        .map(|(n, u)| (n.as_str(), u.as_str()))
        .collect();
    let dir = tempfile::tempdir().context("creating a kubeconfig folder")?;
    let path = mocks::write_kubeconfig(dir.path(), &pairs).context("writing the kubeconfig")?;
    let cloud = KubernetesCloud::new(KubernetesOptions {
        kubeconfig: Some(path),
        ..KubernetesOptions::default()
    });
    let ctx = CheckContext {
        env: Default::default(),
        home: dir.path().to_path_buf(),
        state_dir: dir.path().join("state"),
        refresh: false,
        cloud_timeout: std::time::Duration::from_secs(60),
        kubernetes_allowed_contexts: None,
        reservation_clouds: Vec::new(),
        gcp_project_id: None,
        sky_config: Default::default(),
    };
    let read = cloud
        .load_kubeconfig(&ctx)
        .map_err(|e| anyhow!("reading the 64-context kubeconfig: {e:?}"))?
        .context("the 64-context kubeconfig was not read")?;
    anyhow::ensure!(
        read.contexts.len() == KUBE_CONTEXTS,
        "the kubeconfig has {} contexts, not {KUBE_CONTEXTS}",
        read.contexts.len()
    );
    Ok(KubeconfigInput {
        dir: std::sync::Arc::new(dir),
        cloud,
        ctx,
    })
}
