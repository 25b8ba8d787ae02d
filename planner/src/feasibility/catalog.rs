//! Catalog clouds: everything SkyPilot plans from a `vms.csv` with the
//! generic queries of `sky/catalog/common.py`, parameterised per cloud by its
//! [`CatalogRules`] (defaults and quirks, from the cloud table).

use crate::catalog::CloudCatalog;
use crate::catalog::query::{AcceleratorMatch, RegionZones};
use crate::cloud::{CatalogRules, CloudId};
use crate::resources::{DiskTier, Resources};
use crate::world::World;

use super::{FeasibleResources, amount, candidate, filter_of};

/// `_get_feasible_launchable_resources` of a catalog cloud: the explicit
/// instance type, the default one, or every type with the accelerator.
pub(super) fn feasible(
    world: &World,
    cloud: CloudId,
    rules: &CatalogRules,
    r: &Resources,
) -> FeasibleResources {
    if rules.rejects_ultra_disk && r.disk_tier == Some(DiskTier::Ultra) {
        return FeasibleResources::default();
    }
    let Some(cat) = world.cloud_catalog(cloud) else {
        return FeasibleResources::default();
    };
    if let Some(it) = &r.instance_type {
        if rules.instance_type_needs_offering && regions_with_offering(cat, r, it).is_empty() {
            return FeasibleResources::default();
        }
        return FeasibleResources {
            resources: vec![candidate(r, cloud, it.clone(), None)],
            ..Default::default()
        };
    }
    let Some(acc) = &r.accelerator else {
        return match default_instance_type(cat, rules, r) {
            Some(it) => FeasibleResources {
                resources: vec![candidate(r, cloud, it, None)],
                ..Default::default()
            },
            None => FeasibleResources::default(),
        };
    };
    let mut filter = filter_of(r);
    if rules.accelerator_ignores_memory {
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
                    if rules.candidates_keep_memory {
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

/// `<cloud>_catalog.get_default_instance_type`: the cheapest type of the
/// default family with the default vCPUs (unless the request names cpus or
/// memory) and memory (unless it names memory).
pub(super) fn default_instance_type(
    cat: &CloudCatalog,
    rules: &CatalogRules,
    r: &Resources,
) -> Option<String> {
    let cpus = match (&r.cpus, &r.memory) {
        (None, None) => rules.default_cpus.map(str::to_string),
        (c, _) => c.clone(),
    };
    let memory = r
        .memory
        .clone()
        .or(rules.default_memory.map(str::to_string));
    let mut filter = filter_of(r);
    filter.cpus = amount(cpus.as_deref());
    filter.memory = amount(memory.as_deref());
    if rules.default_ignores_location {
        filter.region = None;
        filter.zone = None;
    }
    let family = rules.default_family;
    cat.cheapest_for_cpus_mem(|it| family.contains(it), &filter, r.use_spot)
}

/// `regions_with_offering` of a catalog cloud: the type's regions and zones,
/// narrowed to the request's.
pub(super) fn regions_with_offering(
    cat: &CloudCatalog,
    r: &Resources,
    it: &str,
) -> Vec<RegionZones> {
    cat.regions_for_instance(it, r.use_spot, r.region.as_deref(), r.zone.as_deref())
}
