//! Why a cloud has no launchable for a resource, when it did not say so
//! itself: the request's constraints dropped one at a time — the
//! region/zone pin, `max_hourly_cost`, spot, then cpus/memory/disks —
//! and the first whose absence gives the cloud a launchable is the reason.
//! The same feasibility and costing functions the optimizer calls, on a
//! relaxed copy of the resource; what the cloud logs meanwhile is dropped.

use super::{Reason, cheapest_of, costed};
use crate::cloud::CloudId;
use crate::feasibility::{self, FeasibleResources, Refusal};
use crate::optimize::Considered;
use crate::pytext::close_matches;
use crate::resources::Resources;
use crate::task::Task;
use crate::world::World;

/// How many close instance type names are offered.
const CLOSE_INSTANCE_TYPES: usize = 3;
/// `difflib.get_close_matches`' default cutoff.
const CLOSE_CUTOFF: f64 = 0.6;

/// `r` gave no candidate on `cloud` (`feasible` is what the cloud said).
pub(super) fn why_none(
    world: &World,
    task: &Task,
    cloud: CloudId,
    r: &Resources,
    idx: usize,
    feasible: FeasibleResources,
) -> Reason {
    match feasible.hint {
        Some(Refusal::SpotNotOffered) => {
            return Reason::SpotNotOffered {
                on_demand: on_demand(world, task, cloud, r, idx),
            };
        }
        Some(refusal) => return Reason::Refused { refusal },
        None => {}
    }
    if no_nodes(world, cloud) {
        return Reason::NoNodes;
    }
    if let Some(reason) = relaxed(world, task, cloud, r, idx) {
        return reason;
    }
    if let Some(acc) = &r.accelerator {
        return Reason::AcceleratorNotOffered {
            accelerator: acc.short(),
            did_you_mean: feasible.fuzzy,
        };
    }
    if let Some(it) = &r.instance_type
        && !world.instance_type_exists(cloud, it)
    {
        return Reason::InstanceTypeNotOffered {
            instance_type: it.clone(),
            did_you_mean: close_instance_types(world, cloud, it),
        };
    }
    no_match(r)
}

/// `r`'s cheapest candidate on `cloud` has no location the request allows.
pub(super) fn why_unlocated(
    world: &World,
    task: &Task,
    cloud: CloudId,
    r: &Resources,
    idx: usize,
) -> Reason {
    relaxed(world, task, cloud, r, idx).unwrap_or(Reason::LocationPin {
        region: r.region.clone(),
        zone: r.zone.clone(),
        elsewhere: None,
    })
}

/// The first constraint whose absence gives `cloud` a launchable.
fn relaxed(
    world: &World,
    task: &Task,
    cloud: CloudId,
    r: &Resources,
    idx: usize,
) -> Option<Reason> {
    if r.region.is_some() || r.zone.is_some() {
        let mut free = r.clone();
        free.region = None;
        free.zone = None;
        if let Some(row) = cheapest_row(world, task, cloud, &free, idx) {
            return Some(Reason::LocationPin {
                region: r.region.clone(),
                zone: r.zone.clone(),
                elsewhere: Some(row),
            });
        }
    }
    if let Some(max) = r.max_hourly_cost {
        let mut free = r.clone();
        free.max_hourly_cost = None;
        if let Some(row) = cheapest_row(world, task, cloud, &free, idx) {
            return Some(Reason::OverMaxHourlyCost {
                max_hourly_cost: max,
                cheapest: Some(row),
            });
        }
    }
    if r.use_spot
        && let Some(row) = on_demand(world, task, cloud, r, idx)
    {
        return Some(Reason::SpotNotOffered {
            on_demand: Some(row),
        });
    }
    if r.cpus.is_some() || r.memory.is_some() || r.local_disk.is_some() || r.disk_tier.is_some() {
        let mut free = r.clone();
        free.cpus = None;
        free.memory = None;
        free.local_disk = None;
        free.disk_tier = None;
        if cheapest_row(world, task, cloud, &free, idx).is_some() {
            return Some(no_match(r));
        }
    }
    None
}

/// `r`'s cheapest launchable on demand.
fn on_demand(
    world: &World,
    task: &Task,
    cloud: CloudId,
    r: &Resources,
    idx: usize,
) -> Option<Considered> {
    let mut free = r.clone();
    free.use_spot = false;
    cheapest_row(world, task, cloud, &free, idx)
}

/// No instance type meets the request's shape.
fn no_match(r: &Resources) -> Reason {
    Reason::NoMatch {
        cpus: r.cpus.clone(),
        memory: r.memory.clone(),
        local_disk: r.local_disk.clone(),
        disk_tier: r.disk_tier.map(|t| t.as_str()),
        accelerator: r.accelerator.as_ref().map(|a| a.short()),
    }
}

/// The cheapest located launchable of `r` on `cloud`, if any.
fn cheapest_row(
    world: &World,
    task: &Task,
    cloud: CloudId,
    r: &Resources,
    idx: usize,
) -> Option<Considered> {
    let feasible = feasibility::feasible_resources(world, cloud, r, task.num_nodes).ok()?;
    let first = feasible.resources.first()?;
    cheapest_of(costed(world, task, cloud, first, idx).ok()?)
}

/// The catalog's instance types closest to `it` (sorted first: the
/// catalog's index is unordered).
fn close_instance_types(world: &World, cloud: CloudId, it: &str) -> Vec<String> {
    let Some(cat) = world.cloud_catalog(cloud) else {
        return Vec::new();
    };
    let mut names: Vec<&str> = cat.instance_types().collect();
    names.sort_unstable();
    close_matches(it, names, CLOSE_INSTANCE_TYPES, CLOSE_CUTOFF)
}

/// Kubernetes, SSH Node Pools or Slurm with nothing to run on.
fn no_nodes(world: &World, cloud: CloudId) -> bool {
    match cloud {
        CloudId::Kubernetes => world.reachable_contexts().next().is_none(),
        CloudId::Ssh => !world.ssh.contexts.iter().any(|c| c.nodes.is_ok()),
        CloudId::Slurm => world.slurm.clusters.is_empty(),
        _ => false,
    }
}
