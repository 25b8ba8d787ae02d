//! Kubernetes and SSH Node Pools: a virtual catalog. The instance type is
//! built from the request (`4CPU--16GB--H100:1`), each allowed context is a
//! region, and a context offers the type when its nodes fit it
//! (`sky/clouds/kubernetes.py`; `sky/clouds/ssh.py::SSH` inherits all of
//! it and only brings its own contexts, `ssh-<pool>`).

use crate::catalog::kubernetes::{self, KubeInstanceType};
use crate::catalog::query::RegionZones;
use crate::cloud::CloudId;
use crate::resources::Resources;
use crate::world::World;

use super::{CloudLog, FeasibleResources, candidate};

/// What SSH logs when it is asked (`Kubernetes._unsupported_features_for_resources`
/// and `regions_with_offering` under `SSH`): the pools of
/// `~/.sky/ssh_node_pools.yaml` that are not set up (once, unless
/// validation already listed the pools), then each unreachable context in
/// scope (once each) and, when every context is, that they all are. A
/// refused request with a pinned pool never gets to list the pools.
pub(super) fn ssh_logs(world: &World, r: &Resources, refused: bool) -> Vec<CloudLog> {
    let mut logs = Vec::new();
    let pools_skipped = || {
        (!world.ssh.skipped.is_empty() && !world.ssh.skipped_logged).then(|| {
            CloudLog::SshPoolsSkipped {
                pools: world.ssh.skipped.clone(),
                file: world.ssh.pools_file.clone(),
            }
        })
    };
    if r.region.is_none() {
        logs.extend(pools_skipped());
    }
    let contexts = &world.ssh.contexts;
    for ctx in contexts {
        if r.region.as_deref().is_some_and(|reg| reg != ctx.name) {
            continue;
        }
        if let Err(reason) = &ctx.nodes {
            logs.push(CloudLog::ContextUnreachable {
                context: ctx.name.clone(),
                reason: reason.clone(),
            });
        }
    }
    // SkyPilot says so once every allowed context has been logged: all of
    // them when none is pinned, else only if the pinned one is the only one.
    if !contexts.is_empty()
        && contexts.iter().all(|c| c.nodes.is_err())
        && (r.region.is_none() || contexts.len() == 1)
    {
        logs.push(CloudLog::AllContextsUnreachable);
    }
    if r.region.is_some() && !refused {
        logs.extend(pools_skipped());
    }
    logs
}

/// `Kubernetes._get_feasible_launchable_resources` for `cloud` (Kubernetes
/// or SSH): the virtual instance type for the request, if some reachable
/// context of that cloud fits it; with the contexts found fitting it.
pub(super) fn feasible(
    world: &World,
    cloud: CloudId,
    r: &Resources,
) -> (FeasibleResources, Option<Fitting>) {
    // Said first, whether or not a context fits (`_warn_on_disk_tier`).
    let logs: Vec<CloudLog> = r
        .disk_tier
        .map(|tier| CloudLog::DiskTierUnsupported { tier })
        .into_iter()
        .collect();
    let (mut feasible, regions) = offered(world, cloud, r);
    feasible.logs.splice(0..0, logs);
    (feasible, regions)
}

/// [`feasible`]'s answer, before what it logs.
fn offered(world: &World, cloud: CloudId, r: &Resources) -> (FeasibleResources, Option<Fitting>) {
    if let Some(it) = &r.instance_type {
        let Ok(kit) = it.parse::<KubeInstanceType>() else {
            return (FeasibleResources::default(), None);
        };
        let contexts = contexts_fitting(world, cloud, r, &kit);
        if contexts.is_empty() {
            return (FeasibleResources::default(), None);
        }
        let feasible = FeasibleResources {
            resources: vec![candidate(r, cloud, it.clone(), r.accelerator.clone())],
            ..Default::default()
        };
        return (feasible, Some(Fitting { kit, contexts }));
    }
    let acc = r.accelerator.as_ref().map(|a| (a.name.as_str(), a.count.0));
    let Some(kit) = KubeInstanceType::for_request(r.cpus.as_deref(), r.memory.as_deref(), acc)
    else {
        return (FeasibleResources::default(), None);
    };
    let mut c = candidate(r, cloud, kit.to_string(), r.accelerator.clone());
    c.region = r.region.clone();
    let contexts = contexts_fitting(world, cloud, &c, &kit);
    if contexts.is_empty() {
        return (FeasibleResources::default(), None);
    }
    let feasible = FeasibleResources {
        resources: vec![c],
        ..Default::default()
    };
    (feasible, Some(Fitting { kit, contexts }))
}

/// The contexts found fitting a virtual instance type while deciding
/// feasibility: the candidate's regions, unless its instance type's text
/// reads back as another type ([`regions_given`]).
#[derive(Debug)]
pub(crate) struct Fitting {
    kit: KubeInstanceType,
    contexts: Vec<RegionZones>,
}

/// [`regions_with_offering`] of a candidate whose (same region, same disk)
/// request already found `fitting`: its contexts, when `it` reads as the
/// type they were checked for — each context's nodes checked once per
/// launch, not twice.
pub(super) fn regions_given(
    world: &World,
    cloud: CloudId,
    r: &Resources,
    it: &str,
    fitting: Fitting,
) -> Vec<RegionZones> {
    match it.parse::<KubeInstanceType>() {
        Ok(kit) if kit == fitting.kit => fitting.contexts,
        Ok(kit) => contexts_fitting(world, cloud, r, &kit),
        Err(_) => Vec::new(),
    }
}

/// `Kubernetes.regions_with_offering`: the reachable contexts of `cloud`
/// whose nodes fit the virtual instance type.
pub(super) fn regions_with_offering(
    world: &World,
    cloud: CloudId,
    r: &Resources,
    it: &str,
) -> Vec<RegionZones> {
    match it.parse::<KubeInstanceType>() {
        Ok(kit) => contexts_fitting(world, cloud, r, &kit),
        Err(_) => Vec::new(),
    }
}

/// [`regions_with_offering`] for an instance type already parsed.
fn contexts_fitting(
    world: &World,
    cloud: CloudId,
    r: &Resources,
    kit: &KubeInstanceType,
) -> Vec<RegionZones> {
    let region = r.region.as_deref();
    let disk =
        (r.disk_size != crate::resources::DEFAULT_DISK_SIZE_GB).then_some(r.disk_size as f64);
    world
        .contexts_of(cloud)
        .iter()
        .filter(|ctx| region.is_none_or(|reg| reg == ctx.name))
        .filter(|ctx| match &ctx.nodes {
            Ok(nodes) => kubernetes::fits(kit, nodes, disk).is_ok(),
            Err(_) => false,
        })
        .map(|ctx| RegionZones {
            region: ctx.name.clone(),
            zones: Vec::new(),
        })
        .collect()
}

/// The configured pricing of the virtual instance type in the launchable's
/// context: `kubernetes.pricing` (for SSH, with the context's
/// `kubernetes.context_configs.<ssh-pool>.pricing` over it).
pub(super) fn hourly_cost(
    world: &World,
    cloud: CloudId,
    r: &Resources,
    it: &str,
) -> Result<f64, String> {
    let kit: KubeInstanceType = it
        .parse()
        .map_err(|_| format!("invalid instance type {it}"))?;
    Ok(match cloud {
        CloudId::Ssh => kubernetes::hourly_cost(&kit, &world.ssh.pricing_for(r.region.as_deref())),
        _ => kubernetes::hourly_cost(&kit, &world.kube_pricing),
    })
}
