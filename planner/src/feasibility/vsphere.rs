//! vSphere (`sky/clouds/vsphere.py`), planned from the catalog SkyPilot
//! built on the user's machine (regions are vCenters, zones their
//! clusters): the generic catalog planner with vSphere's default (2+ vCPUs,
//! 4x memory: see its table entry), and two quirks. `regions_with_offering`
//! ignores the requested zone (a pinned cluster stays on the launchable,
//! whichever clusters offer the type), and every instance costs nothing
//! (`instance_type_to_hourly_cost` returns 0.0 without asking the catalog).

use crate::catalog::query::RegionZones;
use crate::cloud::{CatalogRules, CloudId};
use crate::resources::Resources;
use crate::world::World;

use super::{FeasibleResources, catalog};

/// `Vsphere._get_feasible_launchable_resources`: nothing for spot, else the
/// generic answer.
pub(super) fn feasible(world: &World, rules: &CatalogRules, r: &Resources) -> FeasibleResources {
    if r.use_spot {
        return FeasibleResources::default();
    }
    catalog::feasible(world, CloudId::Vsphere, rules, r)
}

/// `Vsphere.regions_with_offering`: the type's vCenters (with their
/// clusters), narrowed to the requested vCenter but not to the requested
/// cluster (`del accelerators, zone`).
pub(super) fn regions_with_offering(world: &World, r: &Resources, it: &str) -> Vec<RegionZones> {
    match world.cloud_catalog(CloudId::Vsphere) {
        Some(cat) => cat
            .regions_for_instance(it, r.use_spot, None, None)
            .into_iter()
            .filter(|rz| r.region.as_deref().is_none_or(|want| rz.region == want))
            .collect(),
        None => Vec::new(),
    }
}

/// `Vsphere.instance_type_to_hourly_cost`: always 0.0.
pub(super) fn hourly_cost() -> f64 {
    0.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::kubernetes::KubePricing;
    use crate::catalog::{Catalog, CloudCatalog};

    const CSV: &str = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n\
        cpu.small,,,2,4.0,,0.0,0.0,vc-a,c1\n\
        cpu.medium,,,2,8.0,,0.0,0.0,vc-a,c1\n\
        gpu.T4,T4,1,4,16.0,\"{}\",0.0,0.0,vc-a,c1\n\
        cpu.medium,,,2,8.0,,0.0,0.0,vc-a,c2\n\
        cpu.medium,,,2,8.0,,0.0,0.0,vc-b,c3\n";

    fn world() -> World {
        let (cat, warnings) =
            CloudCatalog::from_bytes(CloudId::Vsphere, CSV.as_bytes(), "vsphere").unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        let mut catalog = Catalog::new();
        catalog.insert(cat);
        World {
            sky_config: Default::default(),
            ssh: Default::default(),
            slurm: Default::default(),
            catalog,
            enabled: vec![CloudId::Vsphere],
            kube_contexts: Vec::new(),
            kube_pricing: KubePricing::default(),
            reservation_clouds: Vec::new(),
        }
    }

    fn request(region: Option<&str>, zone: Option<&str>) -> Resources {
        Resources {
            cloud: Some(CloudId::Vsphere),
            region: region.map(str::to_string),
            zone: zone.map(str::to_string),
            ..Resources::default()
        }
    }

    #[test]
    fn default_is_the_first_type_with_two_vcpus_and_four_times_the_memory() {
        let rules = CloudId::Vsphere.spec().catalog_rules.unwrap();
        let f = feasible(&world(), &rules, &request(None, None));
        // cpu.small has 4 GB < 4 x 2; every price is 0.0, so file order decides.
        assert_eq!(f.resources[0].instance_type.as_deref(), Some("cpu.medium"));
        let mut spot = request(None, None);
        spot.use_spot = true;
        assert!(feasible(&world(), &rules, &spot).resources.is_empty());
    }

    #[test]
    fn offering_ignores_the_requested_cluster() {
        let w = world();
        // gpu.T4 is only in cluster c1, yet a request pinned to c2 gets vc-a.
        let regions = regions_with_offering(&w, &request(Some("vc-a"), Some("c2")), "gpu.T4");
        assert_eq!(
            regions,
            vec![RegionZones {
                region: "vc-a".into(),
                zones: vec!["c1".into()],
            }]
        );
        assert!(regions_with_offering(&w, &request(Some("vc-b"), None), "gpu.T4").is_empty());
        let all: Vec<String> = regions_with_offering(&w, &request(None, None), "cpu.medium")
            .into_iter()
            .map(|rz| rz.region)
            .collect();
        assert_eq!(all, ["vc-a", "vc-b"]);
        assert_eq!(hourly_cost(), 0.0);
    }
}
