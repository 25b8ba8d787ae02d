//! A whole set of upstreams started from one serde spec.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::fleet::Fleet;
use crate::served::Served;
use crate::{
    CatalogOptions, CatalogServer, Ec2Mock, Ec2Options, EndpointOptions, GcpMock, GcpOptions,
    KubeMock, KubeOptions, MockError, NodePool, Recorder, Recording, StsMock, StsOptions,
    kubeconfig,
};

/// Which upstreams to start and how each endpoint behaves; a harness scenario's `[mocks]`.
///
/// A missing section means that upstream is not started; an empty table starts
/// it with defaults.
///
/// ```toml
/// seed = 42
///
/// [sts]
/// get_caller_identity = { latency = { kind = "fixed", ms = 40 } }
///
/// [ec2]                             # the account's zone names (DescribeRegions, DescribeAvailabilityZones)
/// describe_availability_zones = { latency = { kind = "fixed", ms = 80 } }
///
/// [kube]
/// contexts = 3                      # mock-0, mock-1, mock-2, one server each
/// pod_count = 20
/// node_pools = [{ count = 4, gpu = { accelerator = "H100", count = 8, label = "gfd" } }]
/// nodes = { latency = { kind = "lognormal", median_ms = 50, sigma = 0.3 } }
/// overrides.mock-2.nodes = { fault = { kind = "hang" } }
///
/// [gcp]
/// reservation_list = [{ name = "r1", zone = "us-central1-a", machine_type = "a2-highgpu-1g", count = 4 }]
///
/// [catalog]
/// root = "fixtures/catalogs"
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MocksSpec {
    /// Base seed; every endpoint without its own `seed` derives one from this and its name.
    pub seed: u64,
    /// AWS STS.
    pub sts: Option<StsOptions>,
    /// AWS EC2 (`DescribeRegions`, `DescribeAvailabilityZones`): where a
    /// launch without the account's zone-name file fetches it.
    pub ec2: Option<Ec2Options>,
    /// Kubernetes, one server per context.
    pub kube: Option<KubeSpec>,
    /// GCP token + reservations.
    pub gcp: Option<GcpOptions>,
    /// Catalog file server.
    pub catalog: Option<CatalogOptions>,
}

/// Kubernetes part of a [`MocksSpec`]: the same cluster shape served by
/// `contexts` independent servers, with optional per-context endpoint overrides.
/// Fields other than `contexts`, `context_names` and `overrides` mean what they
/// mean in [`KubeOptions`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct KubeSpec {
    /// Number of contexts (servers), named `mock-0`, `mock-1`, … Default 1.
    pub contexts: usize,
    /// Explicit context names; when non-empty, `contexts` must be 1 (the default) or equal its length.
    pub context_names: Vec<String>,
    /// See [`KubeOptions::version`].
    pub version: EndpointOptions,
    /// See [`KubeOptions::nodes`].
    pub nodes: EndpointOptions,
    /// See [`KubeOptions::pods`].
    pub pods: EndpointOptions,
    /// See [`KubeOptions::node_pools`].
    pub node_pools: Vec<NodePool>,
    /// See [`KubeOptions::nodes_file`].
    pub nodes_file: Option<PathBuf>,
    /// See [`KubeOptions::pod_count`].
    pub pod_count: usize,
    /// See [`KubeOptions::pods_file`].
    pub pods_file: Option<PathBuf>,
    /// Endpoint options that replace the shared ones for one context, keyed by context name.
    pub overrides: BTreeMap<String, KubeOverride>,
}

impl Default for KubeSpec {
    fn default() -> Self {
        let o = KubeOptions::default();
        KubeSpec {
            contexts: 1,
            context_names: Vec::new(),
            version: o.version,
            nodes: o.nodes,
            pods: o.pods,
            node_pools: o.node_pools,
            nodes_file: o.nodes_file,
            pod_count: o.pod_count,
            pods_file: o.pods_file,
            overrides: BTreeMap::new(),
        }
    }
}

/// Per-context replacement of [`KubeSpec`] endpoint options.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct KubeOverride {
    /// Replaces [`KubeSpec::version`].
    pub version: Option<EndpointOptions>,
    /// Replaces [`KubeSpec::nodes`].
    pub nodes: Option<EndpointOptions>,
    /// Replaces [`KubeSpec::pods`].
    pub pods: Option<EndpointOptions>,
}

impl KubeSpec {
    /// Context names, in order.
    pub fn names(&self) -> Result<Vec<String>, MockError> {
        if self.context_names.is_empty() {
            return Ok((0..self.contexts).map(|i| format!("mock-{i}")).collect());
        }
        if self.contexts != 1 && self.contexts != self.context_names.len() {
            return Err(MockError::InvalidOption(format!(
                "kube.contexts = {} but {} context_names given",
                self.contexts,
                self.context_names.len()
            )));
        }
        Ok(self.context_names.clone())
    }

    /// The [`KubeOptions`] of one context, overrides applied.
    pub fn options_for(&self, context: &str) -> KubeOptions {
        let o = self.overrides.get(context).cloned().unwrap_or_default();
        KubeOptions {
            version: o.version.unwrap_or(self.version),
            nodes: o.nodes.unwrap_or(self.nodes),
            pods: o.pods.unwrap_or(self.pods),
            node_pools: self.node_pools.clone(),
            nodes_file: self.nodes_file.clone(),
            pod_count: self.pod_count,
            pods_file: self.pods_file.clone(),
        }
    }
}

/// One kubeconfig context and its server.
pub struct KubeContext {
    /// Context (and cluster) name in the kubeconfig.
    pub name: String,
    /// Its server.
    pub mock: KubeMock,
}

/// Running upstreams started from a [`MocksSpec`]. Dropping it stops them.
///
/// All recordings share one clock, [`MockSet::origin`].
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), mocks::MockError> {
/// let spec: mocks::MocksSpec = serde_json::from_str(r#"{ "sts": {}, "kube": { "contexts": 2 } }"#).unwrap();
/// let set = mocks::MockSet::start(&spec).await?;
/// let dir = std::env::temp_dir().join(format!("mocks-set-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let kubeconfig = set.write_kubeconfig(&dir)?;   // contexts mock-0, mock-1
/// let env = set.env();                            // AWS_ENDPOINT_URL_STS=…
/// // ... run the optimizer with KUBECONFIG=kubeconfig and env ...
/// for r in set.recordings() {
///     println!("{} {}", r.endpoint, r.count());   // sts 0, kube/mock-0/version 0, ...
/// }
/// # std::fs::remove_dir_all(dir).unwrap();
/// # Ok(()) }
/// ```
pub struct MockSet {
    origin: Instant,
    /// The servers of the contexts without a fault: held only so that they
    /// stop when the set is dropped.
    _fleet: Option<Fleet>,
    /// AWS STS, if the spec has `[sts]`.
    pub sts: Option<StsMock>,
    /// AWS EC2, if the spec has `[ec2]`.
    pub ec2: Option<Ec2Mock>,
    /// Kubernetes contexts, in spec order.
    pub kube: Vec<KubeContext>,
    /// GCP, if the spec has `[gcp]`.
    pub gcp: Option<GcpMock>,
    /// Catalog server, if the spec has `[catalog]`.
    pub catalog: Option<CatalogServer>,
}

impl MockSet {
    /// Starts every upstream the spec names. Invalid options fail before anything listens.
    pub async fn start(spec: &MocksSpec) -> Result<MockSet, MockError> {
        let origin = Instant::now();
        let seed = spec.seed;
        let kube_plan = match &spec.kube {
            Some(k) => {
                let names = k.names()?;
                if let Some(unknown) = k.overrides.keys().find(|o| !names.contains(o)) {
                    return Err(MockError::InvalidOption(format!(
                        "kube.overrides names unknown context `{unknown}`"
                    )));
                }
                names.into_iter().map(|n| (k.options_for(&n), n)).collect()
            }
            None => Vec::new(),
        };
        let sts = match &spec.sts {
            Some(o) => Some(StsMock::start_with(o.clone(), origin, seed, "sts").await?),
            None => None,
        };
        let ec2 = match &spec.ec2 {
            Some(o) => Some(Ec2Mock::start_with(o.clone(), origin, seed, "ec2").await?),
            None => None,
        };
        // Contexts without a fault are a fleet of servers answered
        // concurrently (see `fleet`); the others share one wiremock server
        // (each under its own path prefix), except those whose raw faults
        // need a gate of their own.
        let mut fleet_routes = Vec::new();
        let mut joining = Vec::new();
        let mut shared: Option<std::sync::Arc<wiremock::MockServer>> = None;
        let mut kube: Vec<Option<KubeContext>> = Vec::with_capacity(kube_plan.len());
        for (i, (opts, name)) in kube_plan.into_iter().enumerate() {
            let endpoint = format!("kube/{name}");
            if KubeMock::can_join_fleet(&opts) {
                let (routes, made) = KubeMock::for_fleet(&opts, origin, seed, &endpoint)?;
                fleet_routes.push(routes);
                joining.push((i, name, made));
                kube.push(None);
                continue;
            }
            let on = match KubeMock::can_share(&opts) {
                true => {
                    let server = match &shared {
                        Some(s) => s.clone(),
                        None => shared
                            .insert(std::sync::Arc::new(Served::bare().await?))
                            .clone(),
                    };
                    Some((server, format!("/ctx/{i}")))
                }
                false => None,
            };
            let mock = KubeMock::start_sharing(opts, origin, seed, &endpoint, on).await?;
            kube.push(Some(KubeContext { name, mock }));
        }
        let fleet = match fleet_routes.is_empty() {
            true => None,
            false => Some(Fleet::start(fleet_routes)?),
        };
        if let Some(fleet) = &fleet {
            for (at, (i, name, made)) in joining.into_iter().enumerate() {
                kube[i] = Some(KubeContext {
                    name,
                    mock: made(fleet.uri(at)),
                });
            }
        }
        let kube: Vec<KubeContext> = kube.into_iter().flatten().collect();
        let gcp = match &spec.gcp {
            Some(o) => Some(GcpMock::start_with(o.clone(), origin, seed, "gcp").await?),
            None => None,
        };
        let catalog = match &spec.catalog {
            Some(o) => Some(CatalogServer::start_with(o.clone(), origin, seed, "catalog").await?),
            None => None,
        };
        Ok(MockSet {
            origin,
            _fleet: fleet,
            sts,
            ec2,
            kube,
            gcp,
            catalog,
        })
    }

    /// The instant all arrival times are measured from.
    pub fn origin(&self) -> Instant {
        self.origin
    }

    /// Every endpoint's live log: sts, ec2 (regions, zones), kube (per
    /// context: version, nodes, pods), gcp, catalog.
    pub fn recorders(&self) -> Vec<&Recorder> {
        let mut out = Vec::new();
        if let Some(s) = &self.sts {
            out.push(s.get_caller_identity());
        }
        if let Some(e) = &self.ec2 {
            out.extend([e.describe_regions(), e.describe_availability_zones()]);
        }
        for k in &self.kube {
            out.extend([k.mock.version(), k.mock.nodes(), k.mock.pods()]);
        }
        if let Some(g) = &self.gcp {
            out.extend([g.token(), g.reservations()]);
        }
        if let Some(c) = &self.catalog {
            out.push(c.files());
        }
        out
    }

    /// Snapshots of every endpoint's log, in [`MockSet::recorders`] order.
    pub fn recordings(&self) -> Vec<Recording> {
        self.recorders().iter().map(|r| r.recording()).collect()
    }

    /// The log of one endpoint by name (`sts`, `kube/mock-0/nodes`, `gcp/token`, `catalog`, …).
    pub fn recorder(&self, endpoint: &str) -> Option<&Recorder> {
        self.recorders()
            .into_iter()
            .find(|r| r.endpoint() == endpoint)
    }

    /// Clears every log (e.g. between benchmark iterations).
    pub fn clear(&self) {
        for r in self.recorders() {
            r.clear();
        }
    }

    /// Writes `<dir>/kubeconfig` for the kube contexts (see [`write_kubeconfig`](crate::write_kubeconfig)).
    pub fn write_kubeconfig(&self, dir: &Path) -> Result<PathBuf, MockError> {
        let uris: Vec<(String, String)> = self
            .kube
            .iter()
            .map(|k| (k.name.clone(), k.mock.uri()))
            .collect();
        let pairs: Vec<(&str, &str)> = uris.iter().map(|(n, u)| (n.as_str(), u.as_str())).collect();
        kubeconfig::write_kubeconfig(dir, &pairs)
    }

    /// Environment for the code under test: the AWS STS variables when STS runs
    /// (see [`aws_sts_env`](crate::aws_sts_env)) and `AWS_ENDPOINT_URL_EC2`
    /// when EC2 does. Add `KUBECONFIG` yourself after
    /// [`MockSet::write_kubeconfig`].
    pub fn env(&self) -> Vec<(&'static str, String)> {
        let mut env = self.sts.as_ref().map(StsMock::aws_env).unwrap_or_default();
        if let Some(e) = &self.ec2 {
            env.push(("AWS_ENDPOINT_URL_EC2", e.uri()));
        }
        env
    }
}
