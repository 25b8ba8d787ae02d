//! Kubernetes: a virtual catalog. The instance type is built from the
//! request (`4CPU--16GB--H100:1`), each allowed context is a region, and a
//! context offers the type when its nodes fit it (`sky/clouds/kubernetes.py`).

use crate::catalog::kubernetes::{self, KubeInstanceType};
use crate::catalog::query::RegionZones;
use crate::cloud::CloudId;
use crate::resources::Resources;
use crate::world::World;

use super::{FeasibleResources, candidate};

/// `Kubernetes._get_feasible_launchable_resources`: the virtual instance
/// type for the request, if some reachable context fits it.
pub(super) fn feasible(world: &World, r: &Resources) -> FeasibleResources {
    if let Some(it) = &r.instance_type {
        if regions_with_offering(world, r, it).is_empty() {
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
    if regions_with_offering(world, &c, &kit.to_string()).is_empty() {
        return FeasibleResources::default();
    }
    FeasibleResources {
        resources: vec![c],
        ..Default::default()
    }
}

/// `Kubernetes.regions_with_offering`: the reachable contexts whose nodes
/// fit the virtual instance type.
pub(super) fn regions_with_offering(world: &World, r: &Resources, it: &str) -> Vec<RegionZones> {
    let region = r.region.as_deref();
    let Ok(kit) = it.parse::<KubeInstanceType>() else {
        return Vec::new();
    };
    let disk =
        (r.disk_size != crate::resources::DEFAULT_DISK_SIZE_GB).then_some(r.disk_size as f64);
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

/// The configured `kubernetes.pricing` of the virtual instance type.
pub(super) fn hourly_cost(world: &World, it: &str) -> Result<f64, String> {
    let kit: KubeInstanceType = it
        .parse()
        .map_err(|_| format!("invalid instance type {it}"))?;
    Ok(kubernetes::hourly_cost(&kit, &world.kube_pricing))
}
