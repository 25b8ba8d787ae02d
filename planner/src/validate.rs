//! `Resources.validate()` (`sky/resources.py`: `_try_canonicalize_accelerators`,
//! `_try_validate_and_set_region_zone`, `_try_validate_instance_type`,
//! `_try_validate_cpus_mem`, `_try_validate_image_id`, `_try_validate_ports`):
//! canonicalise accelerators, infer and check cloud/region/zone and instance
//! type, check cpus/memory, images and ports against the cloud's features.

use crate::cloud::CloudId;
use crate::pytext::py_float_str;
use crate::pytext::{py_repr_list, py_str_repr};
use crate::resources::{ErrorKind, ImageTags, RequestError, Resources};
use crate::task::Dag;
use crate::world::World;

/// A list of clouds as SkyPilot prints a Python list of cloud objects:
/// `[AWS, GCP]`.
fn clouds_repr(clouds: &[CloudId]) -> String {
    py_repr_list(clouds.iter().map(|c| c.repr()))
}

/// Validates every resource of every task in place (no `images.csv`:
/// `skypilot:` tags are accepted).
pub fn validate_dag(world: &World, dag: &mut Dag) -> Result<(), RequestError> {
    validate_dag_with(world, &ImageTags::none(), dag)
}

/// Validates every resource of every task in place, `skypilot:` image tags
/// against `tags` (the clouds' `images.csv`).
pub fn validate_dag_with(
    world: &World,
    tags: &ImageTags,
    dag: &mut Dag,
) -> Result<(), RequestError> {
    for task in &mut dag.tasks {
        let list = match &mut task.resources {
            crate::task::ResourceSet::AnyOf(v) | crate::task::ResourceSet::Ordered(v) => v,
        };
        for r in list.iter_mut() {
            validate_with(world, tags, r)?;
        }
    }
    Ok(())
}

/// Whether validating `dag` lists the SSH Node Pools: some resource names a
/// region or zone and its cloud is SSH, or unset while SSH is enabled
/// (`SSH.validate_region_zone` then calls `existing_allowed_contexts`,
/// which logs the skipped-pools warning where nobody sees it).
pub fn lists_ssh_pools(world: &World, dag: &Dag) -> bool {
    dag.tasks.iter().any(|t| {
        t.resources.all().iter().any(|r| {
            (r.region.is_some() || r.zone.is_some())
                && match r.cloud {
                    Some(c) => c == CloudId::Ssh,
                    None => world.enabled.contains(&CloudId::Ssh),
                }
        })
    })
}

/// Validates one resource in SkyPilot's order (`Resources.validate`), with
/// no `images.csv` (`skypilot:` tags accepted).
pub fn validate(world: &World, r: &mut Resources) -> Result<(), RequestError> {
    validate_with(world, &ImageTags::none(), r)
}

/// [`validate`], `skypilot:` image tags checked against `tags`.
pub fn validate_with(
    world: &World,
    tags: &ImageTags,
    r: &mut Resources,
) -> Result<(), RequestError> {
    tpu_cloud(r)?;
    canonicalize_accelerator(world, r)?;
    validate_region_zone(world, r)?;
    validate_instance_type(world, r)?;
    validate_cpus_mem(world, r)?;
    validate_image_id(world, tags, r)?;
    validate_disk_tier(r)?;
    validate_ports(world, r)?;
    validate_labels(world, r)?;
    validate_local_disk(world, r)?;
    Ok(())
}

/// `provision/gcp/constants.py::GCP_GPU_DIRECT_IMAGE_ID`: the image GCP uses
/// for `network_tier: best` when none is given.
pub const GCP_GPU_DIRECT_IMAGE_ID: &str =
    "docker:us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/nccl-plugin-gpudirecttcpx";
/// `provision/nebius/constants.py::INFINIBAND_IMAGE_ID`.
pub const NEBIUS_INFINIBAND_IMAGE_ID: &str =
    "docker:cr.eu-north1.nebius.cloud/nebius-benchmarks/nccl-tests:2.23.4-ubu22.04-cu12.4";

/// `Resources._try_validate_image_id`: the network tier's default images,
/// Docker images against `DOCKER_IMAGE`, VM images against `IMAGE_ID`, and
/// per-region ids narrowed to the resource's region, `skypilot:` tags
/// against the cloud's `images.csv` (`tags`).
fn validate_image_id(
    world: &World,
    tags: &ImageTags,
    r: &mut Resources,
) -> Result<(), RequestError> {
    use crate::cloud::Feature;
    use crate::resources::ImageSpec;
    if r.network_tier == Some(crate::resources::NetworkTier::Best) {
        match (r.cloud, &r.image) {
            (Some(CloudId::Gcp), None) => {
                r.image = Some(ImageSpec::single(
                    r.region.as_deref(),
                    GCP_GPU_DIRECT_IMAGE_ID,
                ));
            }
            (Some(CloudId::Nebius), None) => {
                r.image = Some(ImageSpec::single(
                    r.region.as_deref(),
                    NEBIUS_INFINIBAND_IMAGE_ID,
                ));
            }
            (Some(CloudId::Gcp | CloudId::Nebius), Some(_)) | (_, None) => {}
            (_, Some(image)) => {
                let non_docker: Vec<String> = image
                    .ids
                    .iter()
                    .filter(|(_, v)| !v.starts_with("docker:"))
                    .map(|(k, v)| format!("{v} (region: {})", k.as_deref().unwrap_or("None")))
                    .collect();
                if !non_docker.is_empty() {
                    return Err(RequestError::value(format!(
                        "When using network_tier=BEST, image_id must be a docker image. Found non-docker images: {}. Please either: (1) use a docker image (prefix with \"docker:\"), or (2) leave image_id empty to use the default",
                        non_docker.join(", ")
                    )));
                }
            }
        }
    }
    let Some(image) = r.image.clone() else {
        return Ok(());
    };
    if image.docker.is_some() {
        if let Some(cloud) = r.cloud {
            crate::feasibility::check_features(world, cloud, r, &[Feature::DockerImage])?;
        }
        if image.ids.is_empty() {
            return Ok(());
        }
    }
    if image.docker.is_none() && image.docker_image(r.region.as_deref()).is_some() {
        // The legacy `image_id: docker:<image>`: a container, no VM image.
        if let Some(cloud) = r.cloud {
            crate::feasibility::check_features(world, cloud, r, &[Feature::DockerImage])?;
        }
        return Ok(());
    }
    let Some(cloud) = r.cloud else {
        return Err(RequestError::value(
            "Cloud must be specified when image_id is provided.",
        ));
    };
    if crate::feasibility::check_features(world, cloud, r, &[Feature::ImageId]).is_err() {
        return Err(RequestError::value(if cloud == CloudId::Lambda {
            "Lambda cloud only supports Docker images. Please prefix your image with \"docker:\" (e.g., image_id: docker:your-image-name)."
        } else {
            "image_id is only supported for AWS/GCP/Azure/IBM/OCI/Kubernetes/Nebius. For Lambda cloud, use \"docker:\" prefix for Docker images."
        }));
    }
    let mut ids = image.ids.clone();
    if let Some(region) = r.region.clone() {
        if let Some(any) = ids
            .iter()
            .find(|(k, _)| k.is_none())
            .map(|(_, v)| v.clone())
        {
            ids = vec![(Some(region), any)];
        } else if let Some(found) = ids.iter().find(|(k, _)| k.as_deref() == Some(&region)) {
            ids = vec![found.clone()];
        } else {
            let shown = ImageSpec {
                ids: ids.clone(),
                docker: None,
            };
            return Err(RequestError::value(format!(
                "image_id {} should contain the image for the specified region {region}.",
                shown.repr()
            )));
        }
    }
    for (region, id) in &ids {
        // `cloud.is_image_tag_valid(image_id, region)` comes first.
        if id.starts_with("skypilot:") && tags.is_valid(cloud, id, region.as_deref()) == Some(false)
        {
            return Err(crate::resources::invalid_tag(cloud, id, region.as_deref()));
        }
        if cloud == CloudId::Aws && !id.starts_with("skypilot:") && region.is_none() {
            return Err(RequestError::value(
                "image_id is only supported for AWS in a specific region, please explicitly specify the region.",
            ));
        }
    }
    if let Some(spec) = r.image.as_mut() {
        spec.ids = ids;
    }
    Ok(())
}

/// `Resources._try_validate_ports`: the cloud must open ports, or (without
/// a cloud) at least one enabled cloud can.
fn validate_ports(world: &World, r: &Resources) -> Result<(), RequestError> {
    use crate::cloud::Feature;
    if r.ports.is_none() {
        return Ok(());
    }
    match r.cloud {
        Some(cloud) => crate::feasibility::check_features(world, cloud, r, &[Feature::OpenPorts]),
        None => {
            let any = world.enabled.iter().any(|&c| {
                crate::feasibility::check_features(world, c, r, &[Feature::OpenPorts]).is_ok()
            });
            if any {
                Ok(())
            } else {
                Err(RequestError::value(
                    "No enabled clouds support opening ports. To fix: do not specify resources.ports, or enable a cloud that does support this feature.",
                ))
            }
        }
    }
}

/// `Resources._try_validate_labels`: each label against the resource's
/// cloud, or every enabled cloud (the first that rejects it is named).
fn validate_labels(world: &World, r: &Resources) -> Result<(), RequestError> {
    let Some(labels) = &r.labels else {
        return Ok(());
    };
    let clouds: Vec<CloudId> = match r.cloud {
        Some(c) => vec![c],
        None => world.enabled.clone(),
    };
    let mut rows = vec![vec!["Label".to_string(), "Reason".to_string()]];
    for (key, value) in labels {
        for &cloud in &clouds {
            if let Some(reason) = crate::resources::label_error(cloud, key, value) {
                rows.push(vec![
                    format!("{key}: {value}"),
                    format!("Label rejected due to {}: {reason}", cloud.repr()),
                ]);
                break;
            }
        }
    }
    if rows.len() == 1 {
        return Ok(());
    }
    Err(RequestError::value(format!(
        "The following labels are invalid:\n\t{}",
        crate::text::borderless_table(&rows).replace('\n', "\n\t")
    )))
}

/// `Resources._try_validate_local_disk`: the cloud (or some enabled cloud)
/// must select local disks, and an explicit instance type must have the disk.
fn validate_local_disk(world: &World, r: &Resources) -> Result<(), RequestError> {
    use crate::cloud::Feature;
    let Some(disk) = &r.local_disk else {
        return Ok(());
    };
    match r.cloud {
        Some(cloud) => {
            crate::feasibility::check_features(world, cloud, r, &[Feature::LocalDisk])?;
        }
        None => {
            let any = world.enabled.iter().any(|&c| {
                crate::feasibility::check_features(world, c, r, &[Feature::LocalDisk]).is_ok()
            });
            if !any {
                return Err(RequestError::value(
                    "No enabled cloud supports local disk selection. To fix: enable a cloud that supports this feature.",
                ));
            }
        }
    }
    if let (Some(it), Some(cloud)) = (&r.instance_type, r.cloud)
        && let Some(cat) = world.cloud_catalog(cloud)
    {
        let wanted = crate::feasibility::parse_local_disk(Some(disk));
        let has = cat
            .instance_rows(it)
            .next()
            .is_some_and(|row| crate::catalog::query::local_disk_ok(row, wanted));
        if !has {
            return Err(RequestError::value(format!(
                "Specified instance type {it} does not have specified local disk {disk}."
            )));
        }
    }
    Ok(())
}

fn validate_disk_tier(r: &Resources) -> Result<(), RequestError> {
    use crate::resources::DiskTier;
    let (Some(tier), Some(cloud)) = (r.disk_tier, r.cloud) else {
        return Ok(());
    };
    let supported = match cloud {
        CloudId::Aws | CloudId::Gcp => true,
        // `_SUPPORTED_DISK_TIERS`: every tier but ultra.
        CloudId::Azure | CloudId::Oci | CloudId::Nebius => tier != DiskTier::Ultra,
        _ => tier == DiskTier::Best,
    };
    if supported {
        return Ok(());
    }
    Err(RequestError::value(format!(
        "Disk tier {} is not supported for instance type {}.",
        tier.as_str(),
        r.instance_type.as_deref().unwrap_or("None")
    )))
}

fn tpu_cloud(r: &mut Resources) -> Result<(), RequestError> {
    let Some(acc) = &r.accelerator else {
        return Ok(());
    };
    if !acc.name.to_lowercase().contains("tpu") {
        return Ok(());
    }
    if r.cloud.is_none() {
        r.cloud = Some(CloudId::Gcp);
    }
    if !matches!(r.cloud, Some(CloudId::Gcp | CloudId::Kubernetes)) {
        return Err(RequestError::new(
            ErrorKind::AssertionError,
            "Cloud must be GCP or Kubernetes for TPU accelerators.",
        ));
    }
    let has_runtime = r
        .accelerator_args
        .as_ref()
        .is_some_and(|a| a.iter().any(|(k, _)| k == "runtime_version"));
    if r.cloud == Some(CloudId::Gcp) && !has_runtime {
        let version = if !r.tpu_vm {
            "2.12.0"
        } else if acc.name.starts_with("tpu-v5") {
            "v2-alpha-tpuv5"
        } else if acc.name.starts_with("tpu-v6e") {
            "v2-alpha-tpuv6e"
        } else {
            "tpu-vm-base"
        };
        r.accelerator_args
            .get_or_insert_with(Vec::new)
            .push(("runtime_version".into(), py_str_repr(version)));
    }
    if r.cloud == Some(CloudId::Gcp)
        && r.tpu_vm
        && let Some(it) = &r.instance_type
        && it != "TPU-VM"
    {
        return Err(RequestError::value(format!(
            "Cannot specify instance type (got {}) for TPU VM.",
            py_str_repr(it)
        )));
    }
    Ok(())
}

/// `accelerator_registry.canonicalize_accelerator_name`.
pub fn canonicalize_name(
    world: &World,
    name: &str,
    cloud: Option<CloudId>,
) -> Result<String, RequestError> {
    if name.to_lowercase().starts_with("tpu-") {
        return Ok(name.to_lowercase());
    }
    let pattern = crate::catalog::query::NamePattern::new(name);
    let matches: Vec<(&str, &str)> = world
        .catalog
        .accelerators
        .entries()
        .filter(|(n, _)| pattern.contains(n))
        .collect();
    if let Some((exact, _)) = matches.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
        return Ok(exact.to_string());
    }
    let mut names: Vec<String> = match cloud {
        Some(c) => matches
            .iter()
            .filter(|(_, clouds)| clouds.contains(c.repr()))
            .map(|(n, _)| n.to_string())
            .collect(),
        None => matches.iter().map(|(n, _)| n.to_string()).collect(),
    };
    if names.is_empty() && matches!(cloud, None | Some(CloudId::Kubernetes)) {
        // Ask the Kubernetes clusters for accelerators containing the name.
        for ctx in world.reachable_contexts() {
            if let Ok(nodes) = &ctx.nodes {
                for n in nodes {
                    if let Some(a) = &n.accelerator
                        && pattern.contains(a)
                        && !names.contains(a)
                    {
                        names.push(a.clone());
                    }
                }
            }
        }
    }
    match names.len() {
        0 => Ok(name.to_string()),
        1 => Ok(names.remove(0)),
        _ => {
            names.sort();
            Err(RequestError::value(format!(
                "Accelerator name {} is ambiguous. Please choose one of {}.",
                py_str_repr(name),
                crate::pytext::py_list(&names)
            )))
        }
    }
}

fn canonicalize_accelerator(world: &World, r: &mut Resources) -> Result<(), RequestError> {
    if let Some(acc) = &r.accelerator {
        let name = canonicalize_name(world, &acc.name, r.cloud)?;
        if let Some(a) = r.accelerator.as_mut() {
            a.name = name;
        }
    }
    Ok(())
}

fn validate_region_zone_for(
    world: &World,
    cloud: CloudId,
    region: Option<&str>,
    zone: Option<&str>,
) -> Result<(Option<String>, Option<String>), String> {
    match cloud {
        CloudId::Kubernetes => {
            if zone.is_some() {
                return Err(
                    "Kubernetes zones are not supported. Zone is not allowed for Kubernetes."
                        .into(),
                );
            }
            if let Some(reg) = region
                && !world.kube_contexts.iter().any(|c| c.name == reg)
            {
                let names: Vec<String> =
                    world.kube_contexts.iter().map(|c| c.name.clone()).collect();
                return Err(format!(
                    "Context {reg} not found in kubeconfig. Kubernetes only supports context names as regions. Available contexts: {}",
                    crate::pytext::py_list(&names)
                ));
            }
            Ok((region.map(str::to_string), None))
        }
        // Shadeform has no `validate_region_zone` of its own: `Cloud`'s asks
        // the catalog module of `_REPR.lower()`, `<cloud>`, which is none.
        CloudId::Shadeform => Err(format!(
            "Cannot find module \"sky.catalog.{0}_catalog\" for cloud \"{0}\".",
            cloud.class_repr().to_lowercase()
        )),
        // `SSH.validate_region_zone`.
        CloudId::Ssh => {
            if let Some(reg) = region
                && !world.ssh.contexts.iter().any(|c| c.name == reg)
            {
                let pools = world.ssh.pool_names();
                let mut message = format!(
                    "SSH Node Pool {} is not set up. Run `sky check` for more details. ",
                    py_str_repr(crate::catalog::ssh::pool_name(reg))
                );
                if !pools.is_empty() {
                    message.push_str(&format!(
                        "Available node pools: {}",
                        crate::pytext::py_list(&pools)
                    ));
                }
                return Err(message);
            }
            if zone.is_some() {
                return Err("SSH Node Pools do not support setting zone.".into());
            }
            Ok((region.map(str::to_string), None))
        }
        // `Slurm.validate_region_zone`: clusters are regions, partitions zones.
        CloudId::Slurm => {
            let names = world.slurm.cluster_names();
            if let Some(reg) = region.filter(|r| !r.is_empty())
                && !names.iter().any(|n| n == reg)
            {
                return Err(format!(
                    "Cluster {reg} not found in Slurm config. Slurm only supports cluster names as regions. Available clusters: {}",
                    crate::pytext::py_list(&names)
                ));
            }
            if let Some(z) = zone {
                let Some(reg) = region else {
                    return Err(
                        "Cannot specify partition (zone) without specifying cluster (region) for Slurm."
                            .into(),
                    );
                };
                let partitions = match world.slurm.cluster(reg) {
                    Some(c) => c.partition_names()?,
                    None => Vec::new(),
                };
                if !partitions.iter().any(|p| p == z) {
                    return Err(format!(
                        "Partition {} not found in cluster {}. Available partitions: {}",
                        py_str_repr(z),
                        py_str_repr(reg),
                        crate::pytext::py_list(&partitions)
                    ));
                }
            }
            Ok((region.map(str::to_string), zone.map(str::to_string)))
        }
        _ => {
            // A catalog cloud without zones says so (its table entry).
            if zone.is_some()
                && let Some(m) = cloud.spec().no_zones
            {
                return Err(m.into());
            }
            let Some(cat) = world.cloud_catalog(cloud) else {
                return Err(format!("No catalog loaded for {}.", cloud.repr()));
            };
            cat.validate_region_zone(region, zone)
        }
    }
}

fn validate_region_zone(world: &World, r: &mut Resources) -> Result<(), RequestError> {
    if r.region.is_none() && r.zone.is_none() {
        return Ok(());
    }
    let cloud = match r.cloud {
        Some(c) => c,
        None => {
            let mut valid = Vec::new();
            let mut errors: Vec<(CloudId, String)> = Vec::new();
            for &c in &world.enabled {
                match validate_region_zone_for(world, c, r.region.as_deref(), r.zone.as_deref()) {
                    Ok(_) => valid.push(c),
                    Err(e) => errors.push((c, e)),
                }
            }
            let reg = r.region.as_deref().map_or("None".to_string(), py_str_repr);
            let zone = r.zone.as_deref().map_or("None".to_string(), py_str_repr);
            if valid.is_empty() {
                let cloud_str = if world.enabled.len() == 1 {
                    format!("for cloud {}", world.enabled[0].repr())
                } else {
                    format!("for any cloud among {}", clouds_repr(&world.enabled))
                };
                let hint = if errors.len() == 1 {
                    errors[0].1.clone()
                } else {
                    let mut rows = vec![
                        vec!["Cloud".to_string(), "Hint".to_string()],
                        vec!["-----".into(), "----".into()],
                    ];
                    for (c, e) in &errors {
                        rows.push(vec![
                            c.repr().to_string(),
                            crate::pytext::wrap(e, 80).join("\n"),
                        ]);
                    }
                    crate::text::borderless_table(&rows)
                };
                return Err(RequestError::value(format!(
                    "Invalid (region {reg}, zone {zone}) {cloud_str}. Details:\n{hint}"
                )));
            }
            if valid.len() > 1 {
                return Err(RequestError::value(format!(
                    "Cannot infer cloud from (region {reg}, zone {zone}). Multiple enabled clouds have region/zone of the same names: {}. To fix: explicitly specify `cloud`.",
                    clouds_repr(&valid)
                )));
            }
            r.cloud = Some(valid[0]);
            valid[0]
        }
    };
    // A cloud that is not enabled has no catalog here (only the enabled
    // clouds' catalogs are loaded). SkyPilot checks the region against that
    // cloud's catalog all the same; without it the region cannot be
    // checked, and the optimizer's enabled-cloud check
    // (`_check_specified_clouds`) gives SkyPilot's answer for a valid
    // region: `Task requires <cloud> which is not enabled`.
    if !world.enabled.contains(&cloud)
        && world.cloud_catalog(cloud).is_none()
        && !matches!(
            cloud,
            CloudId::Kubernetes | CloudId::Ssh | CloudId::Slurm | CloudId::Shadeform
        )
        && (r.zone.is_none() || cloud.spec().no_zones.is_none())
    {
        return Ok(());
    }
    let (region, zone) =
        validate_region_zone_for(world, cloud, r.region.as_deref(), r.zone.as_deref())
            .map_err(RequestError::value)?;
    if region.as_deref() == Some("") {
        // The zone's catalog rows have no region (IBM's upstream catalog):
        // SkyPilot stores pandas' NaN as the region, and validating the
        // resources again in the optimizer calls `.lower()` on it.
        return Err(RequestError::new(
            ErrorKind::AttributeError,
            "'float' object has no attribute 'lower'",
        ));
    }
    r.region = region;
    r.zone = zone;
    Ok(())
}

fn validate_instance_type(world: &World, r: &mut Resources) -> Result<(), RequestError> {
    let Some(it) = r.instance_type.clone() else {
        return Ok(());
    };
    match r.cloud {
        Some(c) => {
            if !world.instance_type_exists(c, &it) {
                // SkyPilot's client fails first, looking up the type's memory for display.
                return Err(RequestError::value(format!("No instance type {it} found.")));
            }
        }
        None => {
            let valid: Vec<CloudId> = world
                .enabled
                .iter()
                .copied()
                .filter(|&c| world.instance_type_exists(c, &it))
                .collect();
            if valid.is_empty() {
                let cloud_str = if world.enabled.len() == 1 {
                    format!("for cloud {}", world.enabled[0].repr())
                } else {
                    format!("for any cloud among {}", clouds_repr(&world.enabled))
                };
                return Err(RequestError::value(format!(
                    "Invalid instance type {} {cloud_str}.",
                    py_str_repr(&it)
                )));
            }
            if valid.len() > 1 {
                return Err(RequestError::value(format!(
                    "Ambiguous instance type {}. Please specify cloud explicitly among {}.",
                    py_str_repr(&it),
                    clouds_repr(&valid)
                )));
            }
            r.cloud = Some(valid[0]);
        }
    }
    Ok(())
}

fn validate_cpus_mem(world: &World, r: &Resources) -> Result<(), RequestError> {
    let (Some(it), Some(cloud)) = (&r.instance_type, r.cloud) else {
        return Ok(());
    };
    let (cpus, mem) = world.vcpus_mem(cloud, it);
    if let (Some(req), Some(have)) = (&r.cpus, cpus) {
        let have_s = py_float_str(have);
        if let Some(n) = req.strip_suffix('+') {
            if have < n.parse::<f64>().unwrap_or(0.0) {
                return Err(RequestError::value(format!(
                    "{it} does not have enough vCPUs. {it} has {have_s} vCPUs, but {req} is requested."
                )));
            }
        } else if have != req.parse::<f64>().unwrap_or(f64::NAN) {
            return Err(RequestError::value(format!(
                "{it} does not have the requested number of vCPUs. {it} has {have_s} vCPUs, but {req} is requested."
            )));
        }
    }
    if let (Some(req), Some(have)) = (&r.memory, mem) {
        let have_s = py_float_str(have);
        if let Some(n) = req.strip_suffix('+') {
            if have < n.parse::<f64>().unwrap_or(0.0) {
                return Err(RequestError::value(format!(
                    "{it} does not have enough memory. {it} has {have_s} GB memory, but {req} is requested."
                )));
            }
        } else if !req.ends_with('x') && have != req.parse::<f64>().unwrap_or(f64::NAN) {
            return Err(RequestError::value(format!(
                "{it} does not have the requested memory. {it} has {have_s} GB memory, but {req} is requested."
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::feasibility::test_world;

    const CSV: &str = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n\
        a,A6000,1,8,32,0.5,it-fr2\n\
        a,A6000,1,8,32,0.5,ch-lug1\n";

    fn check(cloud: CloudId, region: Option<&str>, zone: Option<&str>) -> Result<(), String> {
        let world = test_world(cloud, CSV, "");
        let mut r = Resources {
            cloud: Some(cloud),
            region: region.map(str::to_string),
            zone: zone.map(str::to_string),
            ..Resources::default()
        };
        validate_region_zone(&world, &mut r).map_err(|e| e.message)
    }

    #[test]
    fn zones_and_regions_as_each_cloud_refuses_them() {
        let zone = Some("it-fr2-a");
        for (cloud, text) in [
            (CloudId::Seeweb, "Seeweb does not support zones."),
            (CloudId::Vast, "Vast does not support zones."),
            (CloudId::Verda, "Verda does not support zones."),
            (CloudId::Yotta, "Yotta does not support zones."),
        ] {
            assert_eq!(check(cloud, Some("it-fr2"), zone), Err(text.to_string()));
            assert_eq!(check(cloud, Some("it-fr2"), None), Ok(()));
        }
        // Shadeform's class asks for the catalog module of `<cloud>`.
        let shadeform =
            Err("Cannot find module \"sky.catalog.<cloud>_catalog\" for cloud \"<cloud>\".".into());
        assert_eq!(check(CloudId::Shadeform, Some("it-fr2"), None), shadeform);
        assert_eq!(check(CloudId::Shadeform, None, zone), shadeform);
        // The list of regions is headed by the name each catalog passes.
        let listed = |cloud| check(cloud, Some("us-east-1"), None).unwrap_err();
        assert!(
            listed(CloudId::Seeweb)
                .ends_with("List of supported Seeweb regions: 'ch-lug1, it-fr2'"),
            "{}",
            listed(CloudId::Seeweb)
        );
        assert!(
            listed(CloudId::Vast).ends_with("List of supported vast regions: 'ch-lug1, it-fr2'")
        );
    }

    /// A region pinned on a cloud that is not enabled (no catalog loaded)
    /// is left to the optimizer's enabled-cloud check; a zone on a cloud
    /// without zones is still refused by the cloud's own rule.
    #[test]
    fn a_region_of_a_cloud_not_enabled_is_left_to_the_enabled_check() {
        let world = test_world(CloudId::Seeweb, CSV, "");
        let mut r = Resources {
            cloud: Some(CloudId::Nebius),
            region: Some("eu-north1".into()),
            ..Resources::default()
        };
        assert_eq!(validate_region_zone(&world, &mut r), Ok(()));
        assert_eq!(r.region.as_deref(), Some("eu-north1"));
        let mut r = Resources {
            cloud: Some(CloudId::Vast),
            region: Some("x".into()),
            zone: Some("x-a".into()),
            ..Resources::default()
        };
        assert_eq!(
            validate_region_zone(&world, &mut r).map_err(|e| e.message),
            Err("Vast does not support zones.".to_string())
        );
    }
}
