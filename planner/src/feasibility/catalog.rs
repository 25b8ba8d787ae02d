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
    match world.cloud_catalog(cloud) {
        Some(cat) => feasible_in(cat, cloud, rules, r),
        None => FeasibleResources::default(),
    }
}

/// [`feasible`] on a given catalog: the cloud's own, or a part of it (Vast
/// with `vast.datacenter_only`).
pub(super) fn feasible_in(
    cat: &CloudCatalog,
    cloud: CloudId,
    rules: &CatalogRules,
    r: &Resources,
) -> FeasibleResources {
    if rules.rejects_ultra_disk && r.disk_tier == Some(DiskTier::Ultra) {
        return FeasibleResources::default();
    }
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
    if rules.default_rejects_ultra_disk && r.disk_tier == Some(DiskTier::Ultra) {
        return None;
    }
    let cpus = match (&r.cpus, &r.memory) {
        (None, None) => rules.default_cpus.map(str::to_string),
        (None, Some(_)) if rules.default_cpus_with_memory => rules.default_cpus.map(str::to_string),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::feasibility::{gpu_request, test_world};

    const YOTTA: &str = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Region,SpotPrice,Price\n\
        1x14v119g,RTX5090,1.0,14.0,119.0,,us-east-2,,0.65\n\
        1x30v115g,RTX5090,1.0,30.0,115.0,,us-central-2,,0.65\n\
        2x60v230g,RTX5090,2.0,60.0,230.0,,us-central-2,,1.3";

    const VERDA: &str = "InstanceType,UpstreamCloudId,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,Price,SpotPrice\r\n\
        1A100.22V,1A100.22V,22.0,120.0,A100-80GB,1.0,,FIN-01,1.16,0.58\r\n\
        1V100.6V,1V100.6V,6.0,23.0,Tesla-V100,1.0,,FIN-03,0.14,0.07\r\n";

    fn first_type(world: &World, cloud: CloudId, r: &Resources) -> Option<String> {
        let rules = cloud.spec().catalog_rules.unwrap();
        feasible(world, cloud, &rules, r)
            .resources
            .first()
            .and_then(|c| c.instance_type.clone())
    }

    #[test]
    fn yotta_chooses_its_default_over_every_region() {
        let world = test_world(CloudId::Yotta, YOTTA, "");
        let r = Resources {
            region: Some("us-central-2".into()),
            ..Resources::default()
        };
        // The first of the two cheapest, though it is not in us-central-2.
        assert_eq!(
            first_type(&world, CloudId::Yotta, &r).as_deref(),
            Some("1x14v119g")
        );
        // A generic cloud with the same catalog honours the region.
        let runpod = CloudId::Runpod.spec().catalog_rules.unwrap();
        assert!(!runpod.default_ignores_location);
        let cat = world.cloud_catalog(CloudId::Yotta).unwrap();
        assert_eq!(
            default_instance_type(cat, &runpod, &r).as_deref(),
            Some("1x30v115g")
        );
    }

    #[test]
    fn verda_and_yotta_search_accelerators_without_the_memory_and_keep_it() {
        let world = test_world(CloudId::Verda, VERDA, "");
        let mut r = gpu_request("A100-80GB:1");
        r.memory = Some("500+".into());
        let rules = CloudId::Verda.spec().catalog_rules.unwrap();
        let f = feasible(&world, CloudId::Verda, &rules, &r);
        assert_eq!(f.resources.len(), 1);
        assert_eq!(f.resources[0].memory.as_deref(), Some("500+"));
        let world = test_world(CloudId::Yotta, YOTTA, "");
        let mut r = gpu_request("RTX5090:2");
        r.memory = Some("1000+".into());
        assert_eq!(
            first_type(&world, CloudId::Yotta, &r).as_deref(),
            Some("2x60v230g")
        );
        // Without a request the default is the cheapest row: no 8+ vCPUs rule.
        let world = test_world(CloudId::Verda, VERDA, "");
        assert_eq!(
            first_type(&world, CloudId::Verda, &Resources::default()).as_deref(),
            Some("1V100.6V")
        );
    }
}
