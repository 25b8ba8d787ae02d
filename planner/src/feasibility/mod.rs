//! Per-cloud feasibility: which instance types satisfy a request, in which
//! regions and zones they are offered, and what they cost — SkyPilot's
//! `Cloud.get_feasible_launchable_resources`, `regions_with_offering` and
//! `instance_type_to_hourly_cost` (`sky/clouds/cloud.py` and each
//! `sky/clouds/<cloud>.py`). Catalog clouds share one table-driven planner
//! (`catalog.rs`); GCP, Kubernetes (with SSH Node Pools) and Slurm have their
//! own. Pure: everything comes from the [`World`].

mod catalog;
#[cfg(test)]
mod do_fluidstack_hyperbolic_mithril_primeintellect_tests;
mod gcp;
mod ibm;
mod kubernetes;
mod log;
mod refusal;
mod rows;
#[cfg(test)]
mod rows_differential;
mod scp;
mod seeweb;
mod shadeform;
mod slurm;
mod vast;
mod vsphere;

pub(crate) use kubernetes::Fitting;
pub use log::CloudLog;
pub use refusal::{Refusal, unsupported_message};
pub use rows::{catalog_needs, catalog_needs_given, rows_read, rows_read_given};

use crate::catalog::query::{Amount, Filter, LocalDisk, RegionZones};
use crate::cloud::{CloudId, Feature};
use crate::resources::{Accelerator, DiskTier, ErrorKind, NetworkTier, RequestError, Resources};
use crate::world::World;

/// A launchable candidate: cloud + instance type (+ accelerators) without location.
pub type Candidate = Resources;

/// What one cloud offers for one request.
#[derive(Debug, Clone, Default)]
pub struct FeasibleResources {
    /// Candidates, cheapest first.
    pub resources: Vec<Candidate>,
    /// Close alternatives when the accelerator does not exist as requested.
    pub fuzzy: Vec<String>,
    /// Why the cloud cannot serve the request (SkyPilot's hint:
    /// [`Refusal::hint`]).
    pub hint: Option<Refusal>,
    /// What the cloud logged while it was asked, in order.
    pub logs: Vec<CloudLog>,
}

/// The effective accelerator of a (possibly launchable) resource: explicit or inferred.
pub fn effective_accelerator(world: &World, r: &Resources) -> Option<Accelerator> {
    if let Some(a) = &r.accelerator {
        return Some(a.clone());
    }
    match (r.cloud, &r.instance_type) {
        (Some(c), Some(it)) => world.accelerator_of_instance(c, it),
        _ => None,
    }
}

/// The memory text SkyPilot shows for a resource (explicit or inferred from the instance type).
pub fn effective_memory(world: &World, r: &Resources) -> Option<String> {
    if let Some(m) = &r.memory {
        return Some(m.clone());
    }
    match (r.cloud, &r.instance_type) {
        (Some(c), Some(it)) => world.vcpus_mem(c, it).1.map(crate::pytext::py_float_str),
        _ => None,
    }
}

/// `Resources.get_required_cloud_features` (plus `MULTI_NODE` for several
/// nodes), in the order the hint table lists them (SkyPilot iterates a set).
/// A `docker:` image needs `DOCKER_IMAGE`, VM image ids `IMAGE_ID`
/// (`extract_docker_image` / `get_cloud_image_id`).
pub fn required_features(r: &Resources, num_nodes: u32) -> Vec<Feature> {
    let mut out = Vec::new();
    if r.use_spot {
        out.push(Feature::SpotInstance);
    }
    if num_nodes > 1 {
        out.push(Feature::MultiNode);
    }
    if r.disk_tier.is_some_and(|t| t != DiskTier::Best) {
        out.push(Feature::CustomDiskTier);
    }
    if r.network_tier == Some(NetworkTier::Best) {
        out.push(Feature::CustomNetworkTier);
    }
    if r.local_disk.is_some() {
        out.push(Feature::LocalDisk);
    }
    if let Some(image) = &r.image {
        if image.docker_image(r.region.as_deref()).is_some() {
            out.push(Feature::DockerImage);
        }
        if !image.cloud_ids().is_empty() {
            out.push(Feature::ImageId);
        }
    }
    if r.ports.is_some() {
        out.push(Feature::OpenPorts);
    }
    out
}

/// `Cloud.check_features_are_supported`: the required features `cloud`
/// lacks, with its reasons.
pub fn unsupported_features(
    world: &World,
    cloud: CloudId,
    r: &Resources,
    num_nodes: u32,
) -> Vec<(Feature, &'static str)> {
    missing_features(world, cloud, r, &required_features(r, num_nodes))
}

/// Which of `features` `cloud` lacks for `r`: its table entry, less what
/// its clusters grant ([`lifted`]), plus what the config denies ([`denied`]).
fn missing_features(
    world: &World,
    cloud: CloudId,
    r: &Resources,
    features: &[Feature],
) -> Vec<(Feature, &'static str)> {
    let table = cloud.spec().unsupported;
    let extra = denied(world, cloud, r);
    features
        .iter()
        .copied()
        .filter_map(|f| {
            extra.iter().find(|(g, _)| *g == f).copied().or_else(|| {
                (!lifted(world, cloud, r, f))
                    .then(|| table.iter().find(|(g, _)| *g == f).copied())
                    .flatten()
            })
        })
        .collect()
}

/// Features the config takes away: a GCP managed instance group (DWS) with
/// accelerators cannot stop or use spot (`GCP._unsupported_features_for_resources`);
/// an `ssh_proxy_command` rules out Docker images
/// (`Cloud.check_features_are_supported`).
fn denied(world: &World, cloud: CloudId, r: &Resources) -> Vec<(Feature, &'static str)> {
    let mut out = Vec::new();
    let overrides = r.config_overrides.as_ref();
    if cloud == CloudId::Gcp
        && r.accelerator.is_some()
        && world
            .cloud_config(overrides, cloud, "managed_instance_group")
            .is_some()
    {
        out.push((
            Feature::Stop,
            "Managed Instance Group (MIG) does not support stopping yet.",
        ));
        out.push((
            Feature::SpotInstance,
            "Managed Instance Group with DWS does not support spot instances.",
        ));
    }
    if world
        .cloud_config(None, cloud, "ssh_proxy_command")
        .is_some()
    {
        out.push((Feature::DockerImage, ssh_proxy_docker_reason(cloud)));
    }
    out
}

/// `Docker image is currently not supported on <cloud> when proxy command is set. ...`
fn ssh_proxy_docker_reason(cloud: CloudId) -> &'static str {
    // One static string per cloud: the hint tables hold `&'static str`.
    static REASONS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let reasons = REASONS.get_or_init(|| {
        CloudId::ALL
            .iter()
            .map(|c| {
                format!(
                    "Docker image is currently not supported on {} when proxy command is set. Please remove proxy command in the config.",
                    c.repr()
                )
            })
            .collect()
    });
    &reasons[cloud as usize]
}

/// `provision/nebius/constants.py::INFINIBAND_ACCELERATORS` (lower case).
const NEBIUS_INFINIBAND_ACCELERATORS: &[&str] = &["h100", "h200", "b200", "b300"];
/// `provision/nebius/constants.py::INFINIBAND_GPU_COUNT`.
const NEBIUS_INFINIBAND_GPU_COUNT: f64 = 8.0;

/// Features a cloud's static table denies but its clusters can grant:
/// Kubernetes allows `network_tier: best` when a context's nodes carry a
/// high-performance network (`Kubernetes._unsupported_features_for_resources`
/// via `_detect_network_type`).
///
/// Nebius allows it for InfiniBand-capable accelerators in groups of eight
/// (`Nebius._unsupported_features_for_resources`:
/// `provision/nebius/constants.py::INFINIBAND_ACCELERATORS`, `INFINIBAND_GPU_COUNT`).
fn lifted(world: &World, cloud: CloudId, r: &Resources, f: Feature) -> bool {
    if f != Feature::CustomNetworkTier {
        return false;
    }
    if cloud == CloudId::Nebius {
        return r.accelerator.as_ref().is_some_and(|a| {
            NEBIUS_INFINIBAND_ACCELERATORS.contains(&a.name.to_lowercase().as_str())
                && a.count.0 == NEBIUS_INFINIBAND_GPU_COUNT
        });
    }
    if cloud != CloudId::Kubernetes {
        return false;
    }
    world
        .reachable_contexts()
        .filter(|ctx| r.region.as_deref().is_none_or(|reg| reg == ctx.name))
        .any(|ctx| {
            ctx.nodes.as_ref().is_ok_and(|nodes| {
                nodes
                    .iter()
                    .any(crate::catalog::kubernetes::has_high_performance_network)
            })
        })
}

/// `check_features_are_supported` when it raises: SkyPilot's
/// `NotSupportedError` for `cloud`, or `None` when every feature is there.
pub fn check_features(
    world: &World,
    cloud: CloudId,
    r: &Resources,
    features: &[Feature],
) -> Result<(), RequestError> {
    let missing = missing_features(world, cloud, r, features);
    if missing.is_empty() {
        return Ok(());
    }
    Err(RequestError::new(
        ErrorKind::NotSupported,
        unsupported_message(cloud, &missing),
    ))
}

fn amount(text: Option<&str>) -> Option<Amount> {
    text.and_then(Amount::parse)
}

/// A normalised `local_disk` (`nvme:500+`) as the catalog filter takes it.
pub fn parse_local_disk(text: Option<&str>) -> Option<LocalDisk> {
    let t = text?.to_ascii_lowercase();
    let (mode, size) = t.split_once(':')?;
    let at_least = size.ends_with('+');
    let size_gb: f64 = size.trim_end_matches('+').parse().ok()?;
    Some(LocalDisk {
        nvme: mode == "nvme",
        size_gb,
        at_least,
    })
}

fn filter_of(r: &Resources) -> Filter<'_> {
    Filter {
        cpus: amount(r.cpus.as_deref()),
        memory: amount(r.memory.as_deref()),
        region: r.region.as_deref(),
        zone: r.zone.as_deref(),
        local_disk: parse_local_disk(r.local_disk.as_deref()),
        max_hourly_cost: r.max_hourly_cost,
    }
}

fn candidate(
    r: &Resources,
    cloud: CloudId,
    instance_type: String,
    accelerator: Option<Accelerator>,
) -> Candidate {
    // Field by field, so what the candidate replaces is never copied (a
    // clone would copy the request's accelerator, cpus and memory only to
    // drop them); no `..`: a new field must be placed here.
    Resources {
        cloud: Some(cloud),
        region: r.region.clone(),
        zone: r.zone.clone(),
        instance_type: Some(instance_type),
        cpus: None,
        memory: None,
        accelerator,
        tpu_vm: r.tpu_vm,
        accelerator_args: r.accelerator_args.clone(),
        use_spot: r.use_spot,
        use_spot_specified: r.use_spot_specified,
        disk_size: r.disk_size,
        disk_tier: r.disk_tier,
        ports: r.ports.clone(),
        image: r.image.clone(),
        local_disk: r.local_disk.clone(),
        network_tier: r.network_tier,
        labels: r.labels.clone(),
        priority: r.priority.clone(),
        job_recovery: r.job_recovery.clone(),
        config_overrides: r.config_overrides.clone(),
        max_hourly_cost: r.max_hourly_cost,
        no_missing_accel_warnings: r.no_missing_accel_warnings,
    }
}

/// Checks that an explicit instance type and accelerator agree (ResourcesMismatchError otherwise).
pub fn check_instance_accelerator(world: &World, r: &Resources) -> Result<(), RequestError> {
    let (Some(cloud), Some(it)) = (r.cloud, r.instance_type.as_deref()) else {
        return Ok(());
    };
    if cloud == CloudId::Gcp {
        return gcp::check_attachable(world, r, it);
    }
    let from_instance = world.accelerator_of_instance(cloud, it);
    let equal = match (&r.accelerator, &from_instance) {
        (None, None) => true,
        (None, Some(_)) => true,
        (Some(_), None) => false,
        (Some(a), Some(b)) => {
            a.name.eq_ignore_ascii_case(&b.name)
                && (a.count.0 - b.count.0).abs() <= 1e-9 * a.count.0.abs().max(b.count.0.abs())
        }
    };
    if equal {
        return Ok(());
    }
    let fmt = |a: &Option<Accelerator>| a.as_ref().map_or("None".to_string(), |a| a.dict_repr());
    Err(RequestError::new(
        ErrorKind::ResourcesMismatch,
        format!(
            "Infeasible resource demands found:\n  Instance type requested: {it}\n  Accelerators for {it}: {}\n  Accelerators requested: {}\nTo fix: either only specify instance_type, or change the accelerators field to be consistent.",
            fmt(&from_instance),
            fmt(&r.accelerator)
        ),
    ))
}

/// `cloud.get_feasible_launchable_resources(r, num_nodes)`.
pub fn feasible_resources(
    world: &World,
    cloud: CloudId,
    r: &Resources,
    num_nodes: u32,
) -> Result<FeasibleResources, RequestError> {
    feasible_finding(world, cloud, r, num_nodes, &mut None)
}

/// [`feasible_resources`], and into `found` what the cloud found on the
/// way that placing its first candidate asks again (Kubernetes and SSH: the
/// contexts that fit; [`regions_with_offering_given`]). An out-parameter,
/// not a wider return value: every other cloud's answer moves as it did
/// before, and only the clouds that find something touch it.
pub(crate) fn feasible_finding(
    world: &World,
    cloud: CloudId,
    r: &Resources,
    num_nodes: u32,
    found: &mut Option<Fitting>,
) -> Result<FeasibleResources, RequestError> {
    if r.cloud.is_some() && r.instance_type.is_some() {
        check_instance_accelerator(world, r)?;
    }
    let unsupported = unsupported_features(world, cloud, r, num_nodes);
    // What SSH and Slurm log while their features are checked (their
    // contexts and clusters are listed first), and before their offering.
    let mut logs = match cloud {
        CloudId::Ssh => kubernetes::ssh_logs(world, r, !unsupported.is_empty()),
        CloudId::Slurm => slurm::pre_logs(world, r),
        _ => Vec::new(),
    };
    if !unsupported.is_empty() {
        let refused = FeasibleResources {
            hint: Some(Refusal::Unsupported(unsupported)),
            logs,
            ..Default::default()
        };
        return Ok(refused);
    }
    let mut feasible = match (cloud, &cloud.spec().catalog_rules) {
        (CloudId::Gcp, _) => gcp::feasible(world, r),
        (CloudId::Kubernetes | CloudId::Ssh, _) => {
            let (feasible, fitting) = kubernetes::feasible(world, cloud, r);
            *found = fitting;
            feasible
        }
        (CloudId::Slurm, _) => slurm::feasible(world, r),
        (CloudId::Seeweb, _) => seeweb::feasible(world, r),
        (CloudId::Shadeform, _) => shadeform::feasible(world, r),
        (CloudId::Vast, Some(rules)) => vast::feasible(world, rules, r),
        (CloudId::Ibm, Some(rules)) => ibm::feasible(world, rules, r),
        (CloudId::Scp, Some(rules)) => scp::feasible(world, rules, r),
        (CloudId::Vsphere, Some(rules)) => vsphere::feasible(world, rules, r),
        (_, Some(rules)) => catalog::feasible(world, cloud, rules, r),
        (_, None) => FeasibleResources::default(),
    };
    logs.append(&mut feasible.logs);
    feasible.logs = logs;
    Ok(feasible)
}

/// `cloud.regions_with_offering(...)` for a launchable candidate, filtered by its region/zone.
pub fn regions_with_offering(world: &World, cloud: CloudId, r: &Resources) -> Vec<RegionZones> {
    regions_with_offering_logged(world, cloud, r).0
}

/// [`regions_with_offering_logged`] of the first candidate of
/// [`feasible_finding`], given what it found on the way.
pub(crate) fn regions_with_offering_given(
    world: &World,
    cloud: CloudId,
    r: &Resources,
    found: Option<Fitting>,
) -> (Vec<RegionZones>, Vec<CloudLog>) {
    match (found, r.instance_type.as_deref(), cloud) {
        (Some(fitting), Some(it), CloudId::Kubernetes | CloudId::Ssh) => (
            kubernetes::regions_given(world, cloud, r, it, fitting),
            Vec::new(),
        ),
        _ => regions_with_offering_logged(world, cloud, r),
    }
}

/// [`regions_with_offering`] with what the cloud logs while answering (Slurm
/// asks its clusters for their partitions again, and says when it cannot).
pub fn regions_with_offering_logged(
    world: &World,
    cloud: CloudId,
    r: &Resources,
) -> (Vec<RegionZones>, Vec<CloudLog>) {
    let Some(it) = r.instance_type.as_deref() else {
        return (Vec::new(), Vec::new());
    };
    if cloud == CloudId::Slurm {
        return slurm::regions_with_offering(world, r, it);
    }
    let regions = match cloud {
        CloudId::Kubernetes | CloudId::Ssh => {
            kubernetes::regions_with_offering(world, cloud, r, it)
        }
        CloudId::Gcp => gcp::regions_with_offering(world, r, it),
        CloudId::Seeweb => match world.cloud_catalog(cloud) {
            Some(cat) => seeweb::regions_with_offering(cat, r, it),
            None => Vec::new(),
        },
        CloudId::Ibm => ibm::regions_with_offering(world, r, it),
        CloudId::Scp => scp::regions_with_offering(world, r, it),
        CloudId::Vsphere => vsphere::regions_with_offering(world, r, it),
        _ => match world.cloud_catalog(cloud) {
            Some(cat) => catalog::regions_with_offering(cat, r, it),
            None => Vec::new(),
        },
    };
    (regions, Vec::new())
}

/// Hourly cost of a located launchable (instance + GCP accelerator price).
pub fn hourly_cost(world: &World, r: &Resources) -> Result<f64, String> {
    let cloud = r.cloud.ok_or("no cloud")?;
    let it = r.instance_type.as_deref().ok_or("no instance type")?;
    match cloud {
        CloudId::Kubernetes | CloudId::Ssh => kubernetes::hourly_cost(world, cloud, r, it),
        CloudId::Slurm => slurm::hourly_cost(world, r, it),
        CloudId::Gcp => gcp::hourly_cost(world, r, it),
        CloudId::Ibm => ibm::hourly_cost(world, r, it),
        CloudId::Vsphere => Ok(vsphere::hourly_cost()),
        _ => world.cloud_catalog(cloud).ok_or("no catalog")?.hourly_cost(
            it,
            r.use_spot,
            r.region.as_deref(),
            r.zone.as_deref(),
        ),
    }
}

/// A world of one catalog cloud, from CSV text, for the per-cloud tests.
#[cfg(test)]
pub(crate) fn test_world(cloud: CloudId, csv: &str, config: &str) -> World {
    let (cat, warnings) =
        crate::catalog::CloudCatalog::from_bytes(cloud, csv.as_bytes(), "test").unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let mut catalog = crate::catalog::Catalog::new();
    catalog.insert(cat);
    World {
        catalog,
        enabled: vec![cloud],
        kube_contexts: Vec::new(),
        kube_pricing: Default::default(),
        reservation_clouds: Vec::new(),
        sky_config: crate::config::parse_sky_config(config, "config.yaml").unwrap(),
        ssh: Default::default(),
        slurm: Default::default(),
    }
}

/// A request for `accelerator` (`NAME:COUNT`), for the per-cloud tests.
#[cfg(test)]
pub(crate) fn gpu_request(accelerator: &str) -> Resources {
    Resources {
        accelerator: Some(crate::resources::parse_accelerator(accelerator).unwrap()),
        ..Resources::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_not_supported_table_names_the_class_repr() {
        // Shadeform's objects print `Shadeform`, its class `<Cloud>`.
        let mut r = gpu_request("A6000:1");
        r.use_spot = true;
        let world = test_world(
            CloudId::Shadeform,
            "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\na,A6000,1,6,48,0.5,r\n",
            "",
        );
        for (cloud, name) in [
            (CloudId::Shadeform, "<Cloud>"),
            (CloudId::Seeweb, "Seeweb"),
            (CloudId::Yotta, "Yotta"),
        ] {
            let f = feasible_resources(&world, cloud, &r, 1).unwrap();
            assert!(f.resources.is_empty());
            let hint = f.hint.unwrap().hint(cloud);
            assert!(
                hint.starts_with(&format!(
                    "The following features are not supported by {name}:\n\tFeature"
                )),
                "{hint}"
            );
            assert!(hint.contains("spot_instance"), "{hint}");
        }
        assert_eq!(CloudId::Shadeform.repr(), "Shadeform");
        assert_eq!(CloudId::Vast.class_repr(), "Vast");
        // Vast and Verda sell spot; multi-node is what they refuse.
        assert!(
            feasible_resources(&world, CloudId::Vast, &r, 1)
                .unwrap()
                .hint
                .is_none()
        );
        let two = feasible_resources(&world, CloudId::Verda, &gpu_request("A6000:1"), 2).unwrap();
        assert!(
            two.hint
                .unwrap()
                .hint(CloudId::Verda)
                .contains("multi-node")
        );
    }
}
