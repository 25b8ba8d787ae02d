//! Per-cloud feasibility (spec §2.6–§2.8, §3.3–§3.4): which instance types
//! satisfy a request, and in which regions/zones they can be launched.
//! Pure: everything comes from the [`World`].

use crate::catalog::CloudCatalog;
use crate::catalog::gcp;
use crate::catalog::kubernetes::{self, KubeInstanceType};
use crate::catalog::query::{AcceleratorMatch, Amount, Filter, LocalDisk, RegionZones};
use crate::cloud::CloudId;
use crate::resources::{Accelerator, ErrorKind, RequestError, Resources};
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
    /// Why the cloud cannot serve the request (unsupported features).
    pub hint: Option<String>,
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

fn unsupported_features(
    cloud: CloudId,
    r: &Resources,
    num_nodes: u32,
) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let repr = cloud.repr();
    if r.use_spot {
        let reason = match cloud {
            CloudId::Lambda => Some(format!("Spot instances are not supported in {repr}.")),
            CloudId::Paperspace => Some(format!("Spot instances are not supported in {repr}.")),
            CloudId::Cudo => {
                Some("Spot is not supported, as Cudo API does not implement spot.".to_string())
            }
            CloudId::Kubernetes => {
                Some("Spot instances are not supported in Kubernetes.".to_string())
            }
            _ => None,
        };
        if let Some(reason) = reason {
            out.push(("spot_instance", reason));
        }
    }
    if num_nodes > 1 && cloud == CloudId::Runpod {
        out.push((
            "multi-node",
            "Multi-node not supported yet, as the interconnection among nodes are non-trivial on RunPod.".to_string(),
        ));
    }
    if r.disk_tier
        .is_some_and(|t| t != crate::resources::DiskTier::Best)
    {
        let reason = match cloud {
            CloudId::Lambda => Some(format!("Custom disk tiers are not supported in {repr}.")),
            CloudId::Paperspace => Some(format!("Custom disk tiers is not supported in {repr}.")),
            CloudId::Cudo => {
                Some("Custom disk tier is currently not supported on Cudo Compute".to_string())
            }
            CloudId::Runpod => {
                Some("Customizing disk tier is not supported yet on RunPod.".to_string())
            }
            CloudId::Kubernetes => {
                Some("Custom disk tiers are not supported in Kubernetes.".to_string())
            }
            _ => None,
        };
        if let Some(reason) = reason {
            out.push(("custom_disk_tier", reason));
        }
    }
    if r.local_disk.is_some() && cloud != CloudId::Aws {
        out.push((
            "local_disk",
            format!("Local disk is not supported on {repr}"),
        ));
    }
    if r.image_id.is_some() {
        let reason = match cloud {
            CloudId::Lambda => Some(format!("Specifying image ID is not supported in {repr}.")),
            CloudId::Paperspace => {
                Some(format!("Specifying image ID is not supported for {repr}."))
            }
            CloudId::Cudo => Some("Image ID is currently not supported on Cudo. ".to_string()),
            _ => None,
        };
        if let Some(reason) = reason {
            out.push(("image_id", reason));
        }
    }
    out
}

/// `NotSupportedError` text: a tab-indented borderless table of features.
fn not_supported_hint(cloud: CloudId, features: &[(&'static str, String)]) -> String {
    let mut rows: Vec<Vec<String>> = vec![vec!["Feature".into(), "Reason".into()]];
    for (f, r) in features {
        rows.push(vec![(*f).to_string(), r.clone()]);
    }
    let table = crate::render::borderless_table(&rows);
    format!(
        "The following features are not supported by {}:\n\t{}",
        cloud.repr(),
        table.replace('\n', "\n\t")
    )
}

fn amount(text: Option<&str>) -> Option<Amount> {
    text.and_then(Amount::parse)
}

fn parse_local_disk(text: Option<&str>) -> Option<LocalDisk> {
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
    let mut c = r.clone();
    c.cloud = Some(cloud);
    c.instance_type = Some(instance_type);
    c.accelerator = accelerator;
    c.cpus = None;
    c.memory = None;
    c
}

/// Checks that an explicit instance type and accelerator agree (ResourcesMismatchError otherwise).
pub fn check_instance_accelerator(world: &World, r: &Resources) -> Result<(), RequestError> {
    let (Some(cloud), Some(it)) = (r.cloud, r.instance_type.as_deref()) else {
        return Ok(());
    };
    if cloud == CloudId::Gcp {
        return check_gcp_attachable(world, r, it);
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

fn check_gcp_attachable(world: &World, r: &Resources, it: &str) -> Result<(), RequestError> {
    let Some(acc) = &r.accelerator else {
        return Ok(());
    };
    let mismatch = |m: String| Err(RequestError::new(ErrorKind::ResourcesMismatch, m));
    let exists = world.cloud_catalog(CloudId::Gcp).is_some_and(|c| {
        c.rows.iter().any(|row| {
            row.accelerator_name
                .as_deref()
                .is_some_and(|n| n.eq_ignore_ascii_case(&acc.name))
        })
    });
    if !exists {
        return mismatch(format!(
            "{} is not available in GCP. See 'sky gpus list --cloud gcp'",
            acc.name
        ));
    }
    if acc.name.starts_with("tpu-") {
        if it != "TPU-VM" && !it.starts_with("n1-") {
            return mismatch(
                "TPU Nodes can be only used with N1 machines. Please refer to: https://cloud.google.com/compute/docs/general-purpose-machines#n1_machines"
                    .into(),
            );
        }
        return Ok(());
    }
    let count = acc.count.0;
    let fixed = gcp::fixed_machine_types(&acc.name);
    if let Some(table) = fixed {
        let matching: Vec<&str> = table
            .iter()
            .find(|(c, _)| *c as f64 == count)
            .map(|(_, t)| t.to_vec())
            .unwrap_or_default();
        if !matching.contains(&it) {
            let list: Vec<String> = matching.iter().map(|s| format!("'{s}'")).collect();
            return mismatch(format!(
                "{} GPUs cannot be attached to {it}. Use one of [{}] instead. Please refer to https://cloud.google.com/compute/docs/gpus",
                acc.name,
                list.join(", ")
            ));
        }
    } else if !it.starts_with("n1-") {
        return mismatch(format!(
            "{} GPUs cannot be attached to {it}. Use N1 instance types instead. Please refer to: https://cloud.google.com/compute/docs/machine-types#gpus",
            acc.name
        ));
    }
    let valid_counts: Vec<u32> = match fixed {
        Some(table) => table.iter().map(|(c, _)| *c).collect(),
        None => gcp::max_host_counts(&acc.name),
    };
    if !valid_counts.iter().any(|c| *c as f64 == count) {
        return mismatch(format!(
            "{}:{} is not launchable on GCP. The valid {} counts are [{}].",
            acc.name,
            acc.count,
            acc.name,
            valid_counts
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if fixed.is_some() {
        return Ok(());
    }
    if let Some((max_cpus, max_mem)) = gcp::max_host_cpu_mem(&acc.name, count as u32) {
        let (cpus, mem) = world.vcpus_mem(CloudId::Gcp, it);
        if cpus.is_some_and(|c| c > max_cpus) {
            return mismatch(format!(
                "{}:{} cannot be attached to {it}. The maximum number of vCPUs is {}. Please refer to: https://cloud.google.com/compute/docs/gpus",
                acc.name, acc.count, max_cpus as i64
            ));
        }
        if mem.is_some_and(|m| m > max_mem) {
            return mismatch(format!(
                "{}:{} cannot be attached to {it}. The maximum CPU memory is {} GB. Please refer to: https://cloud.google.com/compute/docs/gpus",
                acc.name, acc.count, max_mem as i64
            ));
        }
    }
    Ok(())
}

/// `cloud.get_feasible_launchable_resources(r, num_nodes)`.
pub fn feasible_resources(
    world: &World,
    cloud: CloudId,
    r: &Resources,
    num_nodes: u32,
) -> Result<FeasibleResources, RequestError> {
    if r.cloud.is_some() && r.instance_type.is_some() {
        check_instance_accelerator(world, r)?;
    }
    let unsupported = unsupported_features(cloud, r, num_nodes);
    if !unsupported.is_empty() {
        return Ok(FeasibleResources {
            hint: Some(not_supported_hint(cloud, &unsupported)),
            ..Default::default()
        });
    }
    Ok(match cloud {
        CloudId::Gcp => gcp_feasible(world, r),
        CloudId::Kubernetes => kube_feasible(world, r, num_nodes),
        _ => generic_feasible(world, cloud, r),
    })
}

fn default_family(cloud: CloudId) -> fn(&str) -> bool {
    match cloud {
        CloudId::Aws => |it| {
            [
                "m6i.", "m6id.", "m7i.", "r6i.", "r6id.", "r7i.", "c6i.", "c6id.", "c7i.",
            ]
            .iter()
            .any(|p| it.starts_with(p))
        },
        CloudId::Azure => |it| {
            // Families Ds_v5, Es_v5, Fs_v2: Standard_D<n>s_v5, Standard_E<n>s_v5, Standard_F<n>s_v2.
            azure_family(it).is_some_and(|f| f == "Ds_v5" || f == "Es_v5" || f == "Fs_v2")
        },
        _ => |_| true,
    }
}

/// Azure instance family as SkyPilot derives it (`Standard_D8s_v5` → `Ds_v5`).
fn azure_family(it: &str) -> Option<String> {
    let rest = it.strip_prefix("Standard_")?;
    let (head, version) = rest.split_once('_')?;
    let letters: String = head.chars().filter(|c| !c.is_ascii_digit()).collect();
    Some(format!("{letters}_{version}"))
}

fn default_cpus_mem(cloud: CloudId, r: &Resources) -> (Option<String>, Option<String>) {
    let (default_cpus, ratio): (Option<&str>, Option<&str>) = match cloud {
        CloudId::Aws | CloudId::Gcp | CloudId::Azure => (Some("8+"), Some("4x")),
        CloudId::Lambda => (Some("30+"), Some("4x")),
        CloudId::Cudo => (Some("8+"), Some("2x")),
        _ => (None, None),
    };
    let cpus = match (&r.cpus, &r.memory) {
        (None, None) => default_cpus.map(str::to_string),
        (c, _) => c.clone(),
    };
    let memory = r.memory.clone().or(ratio.map(str::to_string));
    (cpus, memory)
}

fn default_instance_type(world: &World, cloud: CloudId, r: &Resources) -> Option<String> {
    let cat = world.cloud_catalog(cloud)?;
    let (cpus, memory) = default_cpus_mem(cloud, r);
    let mut filter = filter_of(r);
    filter.cpus = amount(cpus.as_deref());
    filter.memory = amount(memory.as_deref());
    let family: Box<dyn Fn(&str) -> bool> = if cloud == CloudId::Gcp {
        Box::new(|it: &str| gcp::DEFAULT_FAMILIES.iter().any(|p| it.starts_with(p)))
    } else {
        Box::new(default_family(cloud))
    };
    cat.cheapest_for_cpus_mem(family, &filter, r.use_spot)
}

fn generic_feasible(world: &World, cloud: CloudId, r: &Resources) -> FeasibleResources {
    if cloud == CloudId::Azure && r.disk_tier == Some(crate::resources::DiskTier::Ultra) {
        // Azure has no ultra disks: no instance type passes its disk-tier filter.
        return FeasibleResources::default();
    }
    let Some(cat) = world.cloud_catalog(cloud) else {
        return FeasibleResources::default();
    };
    if let Some(it) = &r.instance_type {
        if cloud == CloudId::Aws && regions_with_offering(world, cloud, r).is_empty() {
            return FeasibleResources::default();
        }
        return FeasibleResources {
            resources: vec![candidate(r, cloud, it.clone(), None)],
            ..Default::default()
        };
    }
    let Some(acc) = &r.accelerator else {
        return match default_instance_type(world, cloud, r) {
            Some(it) => FeasibleResources {
                resources: vec![candidate(r, cloud, it, None)],
                ..Default::default()
            },
            None => FeasibleResources::default(),
        };
    };
    let mut filter = filter_of(r);
    if cloud == CloudId::Runpod && r.accelerator.is_some() {
        // RunPod ignores the memory filter for GPU requests.
        filter.memory = None;
    }
    match cat.instances_for_accelerator(&acc.name, acc.count.0, &filter, r.use_spot) {
        AcceleratorMatch::NoMatch { fuzzy } => FeasibleResources {
            fuzzy,
            ..Default::default()
        },
        AcceleratorMatch::Instances(types) => {
            let resources = types
                .into_iter()
                .map(|it| {
                    let mut c = candidate(r, cloud, it, None);
                    if cloud == CloudId::Runpod {
                        c.memory = r.memory.clone();
                    }
                    c
                })
                .collect();
            FeasibleResources {
                resources,
                ..Default::default()
            }
        }
    }
}

fn gcp_feasible(world: &World, r: &Resources) -> FeasibleResources {
    let Some(cat) = world.cloud_catalog(CloudId::Gcp) else {
        return FeasibleResources::default();
    };
    if let Some(it) = &r.instance_type {
        return FeasibleResources {
            resources: vec![candidate(
                r,
                CloudId::Gcp,
                it.clone(),
                r.accelerator.clone(),
            )],
            ..Default::default()
        };
    }
    let Some(acc) = &r.accelerator else {
        return match default_instance_type(world, CloudId::Gcp, r) {
            Some(it) => FeasibleResources {
                resources: vec![candidate(r, CloudId::Gcp, it, None)],
                ..Default::default()
            },
            None => FeasibleResources::default(),
        };
    };
    let use_tpu_vm = acc.name.starts_with("tpu-") && r.tpu_vm;
    let mut filter = filter_of(r);
    if use_tpu_vm {
        filter.cpus = None;
        filter.memory = None;
    }
    // The generic query only decides "exists or fuzzy": GCP accelerator rows have no instance type.
    let fuzzy = match instances_for_gcp_accelerator(cat, acc, &filter, r.use_spot) {
        Err(fuzzy) => {
            return FeasibleResources {
                fuzzy,
                ..Default::default()
            };
        }
        Ok(()) => Vec::new(),
    };
    let host = if use_tpu_vm {
        let (max_cpus, max_mem) = gcp::tpu_vm_host(&acc.name);
        let fits = |req: Option<&str>, have: f64| match req {
            None => true,
            Some(t) => match t.strip_suffix('+') {
                Some(n) => n.parse::<f64>().is_ok_and(|n| n <= have),
                None => t.parse::<f64>().is_ok_and(|n| n == have),
            },
        };
        if !fits(r.cpus.as_deref(), max_cpus) || !fits(r.memory.as_deref(), max_mem) {
            return FeasibleResources {
                fuzzy,
                ..Default::default()
            };
        }
        Some("TPU-VM".to_string())
    } else if let Some(table) = gcp::fixed_machine_types(&acc.name) {
        let Some((_, types)) = table.iter().find(|(c, _)| *c as f64 == acc.count.0) else {
            return FeasibleResources::default();
        };
        let f = Filter {
            cpus: amount(r.cpus.as_deref()),
            memory: amount(r.memory.as_deref()),
            ..Default::default()
        };
        cat.cheapest_for_cpus_mem(|it| types.contains(&it), &f, false)
    } else {
        let count = acc.count.0.round() as u32;
        let (cpus, memory) = match (&r.cpus, &r.memory) {
            (None, None) => {
                let Some(host_cpus) = gcp::default_host_cpus(&acc.name, count) else {
                    return FeasibleResources::default();
                };
                (
                    Some(format!("{host_cpus}+")),
                    Some(format!("{}+", host_cpus * 4)),
                )
            }
            (Some(c), None) => {
                let n: f64 = c.trim_end_matches(['+', 'x']).parse().unwrap_or(0.0);
                (Some(c.clone()), Some(format!("{}+", (n as i64) * 4)))
            }
            (c, m) => (c.clone(), m.clone()),
        };
        let f = Filter {
            cpus: amount(cpus.as_deref()),
            memory: amount(memory.as_deref()),
            ..Default::default()
        };
        cat.cheapest_for_cpus_mem(
            |it| gcp::HOST_VM_FAMILIES.iter().any(|p| it.starts_with(p)),
            &f,
            false,
        )
    };
    match host {
        Some(h) => FeasibleResources {
            resources: vec![candidate(r, CloudId::Gcp, h, Some(acc.clone()))],
            fuzzy,
            hint: None,
        },
        None => FeasibleResources {
            fuzzy,
            ..Default::default()
        },
    }
}

fn instances_for_gcp_accelerator(
    cat: &CloudCatalog,
    acc: &Accelerator,
    filter: &Filter<'_>,
    spot: bool,
) -> Result<(), Vec<String>> {
    let loc = Filter {
        region: filter.region,
        zone: filter.zone,
        ..Default::default()
    };
    let pattern = crate::catalog::query::NamePattern::new(&acc.name);
    let any = cat.rows.iter().any(|r| {
        r.accelerator_name
            .as_deref()
            .is_some_and(|n| pattern.full_match(n))
            && r.accelerator_count()
                .is_some_and(|c| (c - acc.count.0).abs() <= 0.01)
            && filter
                .region
                .is_none_or(|reg| r.region.eq_ignore_ascii_case(reg))
            && filter.zone.is_none_or(|z| {
                r.zone
                    .as_deref()
                    .is_some_and(|rz| rz.eq_ignore_ascii_case(z))
            })
    });
    let _ = spot;
    if any {
        Ok(())
    } else {
        Err(cat.fuzzy_accelerators(&pattern, acc.count.0, &loc))
    }
}

fn kube_feasible(world: &World, r: &Resources, num_nodes: u32) -> FeasibleResources {
    let _ = num_nodes;
    if let Some(it) = &r.instance_type {
        if regions_with_offering(world, CloudId::Kubernetes, r).is_empty() {
            return FeasibleResources::default();
        }
        return FeasibleResources {
            resources: vec![candidate(
                r,
                CloudId::Kubernetes,
                it.clone(),
                r.accelerator.clone(),
            )],
            ..Default::default()
        };
    }
    let acc = r.accelerator.as_ref().map(|a| (a.name.as_str(), a.count.0));
    let Some(kit) = KubeInstanceType::for_request(r.cpus.as_deref(), r.memory.as_deref(), acc)
    else {
        return FeasibleResources::default();
    };
    let mut c = candidate(
        r,
        CloudId::Kubernetes,
        kit.to_string(),
        r.accelerator.clone(),
    );
    c.region = r.region.clone();
    if regions_with_offering(world, CloudId::Kubernetes, &c).is_empty() {
        return FeasibleResources::default();
    }
    FeasibleResources {
        resources: vec![c],
        ..Default::default()
    }
}

fn gcp_accelerator_regions(cat: &CloudCatalog, acc: &Accelerator, spot: bool) -> Vec<RegionZones> {
    let pattern = crate::catalog::query::NamePattern::new(&acc.name);
    cat.region_zones_of(
        cat.rows.iter().filter(|row| {
            row.instance_type.is_none()
                && row
                    .accelerator_name
                    .as_deref()
                    .is_some_and(|n| pattern.full_match(n))
                && row.accelerator_count() == Some(acc.count.0)
        }),
        spot,
    )
}

/// `cloud.regions_with_offering(...)` for a launchable candidate, filtered by its region/zone.
pub fn regions_with_offering(world: &World, cloud: CloudId, r: &Resources) -> Vec<RegionZones> {
    let Some(it) = r.instance_type.as_deref() else {
        return Vec::new();
    };
    let region = r.region.as_deref();
    let zone = r.zone.as_deref();
    match cloud {
        CloudId::Kubernetes => {
            let Ok(kit) = it.parse::<KubeInstanceType>() else {
                return Vec::new();
            };
            let disk = (r.disk_size != crate::resources::DEFAULT_DISK_SIZE_GB)
                .then_some(r.disk_size as f64);
            world
                .reachable_contexts()
                .filter(|ctx| region.is_none_or(|reg| reg == ctx.name))
                .filter(|ctx| match &ctx.nodes {
                    Ok(nodes) => kubernetes::fits(&kit, nodes, disk).is_ok(),
                    Err(_) => false,
                })
                .map(|ctx| RegionZones {
                    region: ctx.name.clone(),
                    zones: Vec::new(),
                })
                .collect()
        }
        CloudId::Gcp => {
            let Some(cat) = world.cloud_catalog(CloudId::Gcp) else {
                return Vec::new();
            };
            let acc = effective_accelerator(world, r);
            let mut regions = match &acc {
                None => cat.regions_for_instance(it, r.use_spot, None, None),
                Some(a) => {
                    let acc_regions = gcp_accelerator_regions(cat, a, r.use_spot);
                    if it == "TPU-VM" {
                        acc_regions
                    } else {
                        let vm = cat.regions_for_instance(it, r.use_spot, None, None);
                        let mut out = Vec::new();
                        for r1 in acc_regions {
                            if let Some(r2) = vm.iter().find(|v| v.region == r1.region) {
                                let zones: Vec<String> = r1
                                    .zones
                                    .iter()
                                    .filter(|z| r2.zones.contains(z))
                                    .cloned()
                                    .collect();
                                if !zones.is_empty() {
                                    out.push(RegionZones {
                                        region: r1.region,
                                        zones,
                                    });
                                }
                            }
                        }
                        out
                    }
                }
            };
            if let Some(reg) = region {
                regions.retain(|r| r.region == reg);
            }
            if let Some(z) = zone {
                for r in regions.iter_mut() {
                    r.zones.retain(|x| x == z);
                }
                regions.retain(|r| !r.zones.is_empty());
            }
            regions
        }
        _ => {
            let Some(cat) = world.cloud_catalog(cloud) else {
                return Vec::new();
            };
            cat.regions_for_instance(it, r.use_spot, region, zone)
        }
    }
}

/// Hourly cost of a located launchable (instance + GCP accelerator price).
pub fn hourly_cost(world: &World, r: &Resources) -> Result<f64, String> {
    let cloud = r.cloud.ok_or("no cloud")?;
    let it = r.instance_type.as_deref().ok_or("no instance type")?;
    let region = r.region.as_deref();
    let zone = r.zone.as_deref();
    match cloud {
        CloudId::Kubernetes => {
            let kit: KubeInstanceType = it
                .parse()
                .map_err(|_| format!("invalid instance type {it}"))?;
            Ok(kubernetes::hourly_cost(&kit, &world.kube_pricing))
        }
        CloudId::Gcp => {
            let cat = world.cloud_catalog(CloudId::Gcp).ok_or("no GCP catalog")?;
            let vm = if it == "TPU-VM" {
                0.0
            } else {
                cat.hourly_cost(it, r.use_spot, region, zone)?
            };
            let acc_cost = match effective_accelerator(world, r) {
                None => 0.0,
                Some(a) => gcp_accelerator_cost(cat, &a, r.use_spot, region, zone),
            };
            Ok(vm + acc_cost)
        }
        _ => world
            .cloud_catalog(cloud)
            .ok_or("no catalog")?
            .hourly_cost(it, r.use_spot, region, zone),
    }
}

fn gcp_accelerator_cost(
    cat: &CloudCatalog,
    acc: &Accelerator,
    spot: bool,
    region: Option<&str>,
    zone: Option<&str>,
) -> f64 {
    let pattern = crate::catalog::query::NamePattern::new(&acc.name);
    let rows: Vec<_> = cat
        .rows
        .iter()
        .filter(|row| {
            row.accelerator_name
                .as_deref()
                .is_some_and(|n| pattern.full_match(n))
                && row.accelerator_count() == Some(acc.count.0)
                && region.is_none_or(|r| *row.region == *r)
                && zone.is_none_or(|z| row.zone.as_deref() == Some(z))
        })
        .collect();
    let min_price = rows
        .iter()
        .filter_map(|r| r.price())
        .fold(f64::NAN, f64::min);
    if !spot {
        return min_price;
    }
    let min_spot = rows
        .iter()
        .filter_map(|r| r.spot_price())
        .fold(f64::NAN, f64::min);
    if min_spot.is_nan() {
        min_price
    } else {
        min_spot
    }
}
