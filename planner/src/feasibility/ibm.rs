//! IBM (`sky/clouds/ibm.py`): the generic catalog planner with IBM's
//! defaults (`bx2-*`, 8+ vCPUs, 32+ GB: see its table entry) and three
//! spot quirks. `IBM._get_feasible_launchable_resources` asks the catalog
//! for accelerator types without passing `use_spot`, so a spot request gets
//! the on-demand candidates; `IBM.regions_with_offering` offers nothing for
//! spot whatever the catalog holds; `IBM.instance_type_to_hourly_cost`
//! always prices on demand. Zones are the catalog's, narrowed exactly to a
//! requested zone (`regions_with_offering` keeps only `z.name == zone`).

use crate::catalog::query::RegionZones;
use crate::cloud::{CatalogRules, CloudId};
use crate::resources::Resources;
use crate::world::World;

use super::{FeasibleResources, catalog};

/// `IBM._get_feasible_launchable_resources`.
pub(super) fn feasible(world: &World, rules: &CatalogRules, r: &Resources) -> FeasibleResources {
    if r.use_spot && r.accelerator.is_some() && r.instance_type.is_none() {
        // `ibm_catalog.get_instance_type_for_accelerator` runs with its
        // default `use_spot=False`: candidates by on-demand price.
        let mut on_demand = r.clone();
        on_demand.use_spot = false;
        let mut found = catalog::feasible(world, CloudId::Ibm, rules, &on_demand);
        for c in &mut found.resources {
            c.use_spot = true;
        }
        return found;
    }
    catalog::feasible(world, CloudId::Ibm, rules, r)
}

/// `IBM.regions_with_offering`: none for spot; else the type's regions and
/// zones, narrowed to the requested region and zone.
pub(super) fn regions_with_offering(world: &World, r: &Resources, it: &str) -> Vec<RegionZones> {
    if r.use_spot {
        return Vec::new();
    }
    match world.cloud_catalog(CloudId::Ibm) {
        Some(cat) => catalog::regions_with_offering(cat, r, it),
        None => Vec::new(),
    }
}

/// `IBM.instance_type_to_hourly_cost`: the on-demand price, spot or not.
pub(super) fn hourly_cost(world: &World, r: &Resources, it: &str) -> Result<f64, String> {
    world
        .cloud_catalog(CloudId::Ibm)
        .ok_or("no catalog")?
        .hourly_cost(it, false, r.region.as_deref(), r.zone.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::kubernetes::KubePricing;
    use crate::catalog::{Catalog, CloudCatalog};
    use crate::resources::{AccCount, Accelerator, ErrorKind};

    /// Rows shaped like the upstream IBM catalog (zones 2 and 3 of jp-tok
    /// without a region), plus a spot price upstream does not have, to
    /// show that IBM ignores it.
    const CSV: &str = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n\
        gx2-8x64x1v100,V100,1.0,8,64,V100,2.497,,us-south,us-south-1\n\
        gx2-8x64x1v100,V100,1.0,8,64,V100,2.821,,jp-tok,jp-tok-1\n\
        gx2-8x64x1v100,V100,1.0,8,64,V100,2.821,,,jp-tok-2\n\
        bx2-8x32,,,8,32,,0.434,0.2,jp-tok,jp-tok-1\n\
        bx2-8x32,,,8,32,,0.434,0.2,,jp-tok-2\n\
        bx2-8x32,,,8,32,,0.384,0.1,us-east,us-east-1\n\
        bx2-2x8,,,2,8,,0.096,,us-east,us-east-1\n\
        cx2-8x16,,,8,16,,0.3,,us-east,us-east-1\n";

    fn world() -> World {
        let (cat, warnings) =
            CloudCatalog::from_bytes(CloudId::Ibm, CSV.as_bytes(), "ibm").unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        let mut catalog = Catalog::new();
        catalog.insert(cat);
        World {
            sky_config: Default::default(),
            ssh: Default::default(),
            slurm: Default::default(),
            catalog,
            enabled: vec![CloudId::Ibm],
            kube_contexts: Vec::new(),
            kube_pricing: KubePricing::default(),
            reservation_clouds: Vec::new(),
        }
    }

    fn rules() -> CatalogRules {
        CloudId::Ibm.spec().catalog_rules.unwrap()
    }

    fn request(edit: impl FnOnce(&mut Resources)) -> Resources {
        let mut r = Resources {
            cloud: Some(CloudId::Ibm),
            ..Resources::default()
        };
        edit(&mut r);
        r
    }

    fn types(f: &FeasibleResources) -> Vec<String> {
        f.resources
            .iter()
            .filter_map(|c| c.instance_type.clone())
            .collect()
    }

    #[test]
    fn default_is_bx2_with_8_vcpus_and_32_gb() {
        let w = world();
        // cx2-8x16 is cheaper but not bx2; bx2-2x8 is too small.
        assert_eq!(
            types(&feasible(&w, &rules(), &request(|_| {}))),
            ["bx2-8x32"]
        );
        // With cpus given, memory stays 32+: no 2-vCPU bx2 has it.
        let two = feasible(&w, &rules(), &request(|r| r.cpus = Some("2".into())));
        assert!(two.resources.is_empty());
        // With memory given, cpus are free: the cheapest bx2 with 8+ GB.
        let mem = feasible(&w, &rules(), &request(|r| r.memory = Some("8+".into())));
        assert_eq!(types(&mem), ["bx2-2x8"]);
    }

    #[test]
    fn spot_gets_on_demand_candidates_but_no_region() {
        let w = world();
        let spot_v100 = request(|r| {
            r.use_spot = true;
            r.accelerator = Some(Accelerator {
                name: "V100".into(),
                count: AccCount(1.0),
            });
        });
        // The generic query finds nothing (no V100 spot price); IBM asks on demand.
        let generic = catalog::feasible(&w, CloudId::Ibm, &rules(), &spot_v100);
        assert!(generic.resources.is_empty());
        let f = feasible(&w, &rules(), &spot_v100);
        assert_eq!(types(&f), ["gx2-8x64x1v100"]);
        assert!(f.resources[0].use_spot);
        // bx2-8x32 has spot prices, yet IBM offers no region for spot.
        let spot = request(|r| r.use_spot = true);
        assert!(
            !catalog::regions_with_offering(
                w.cloud_catalog(CloudId::Ibm).unwrap(),
                &spot,
                "bx2-8x32"
            )
            .is_empty()
        );
        assert!(regions_with_offering(&w, &spot, "bx2-8x32").is_empty());
        assert_eq!(hourly_cost(&w, &spot, "bx2-8x32"), Ok(0.384));
    }

    #[test]
    fn rows_without_a_region_are_kept_but_never_located() {
        let w = world();
        let on_demand = request(|_| {});
        let regions = regions_with_offering(&w, &on_demand, "gx2-8x64x1v100");
        let zones: Vec<(String, Vec<String>)> = regions
            .into_iter()
            .map(|rz| (rz.region, rz.zones))
            .collect();
        assert_eq!(
            zones,
            [
                ("us-south".to_string(), vec!["us-south-1".to_string()]),
                ("jp-tok".to_string(), vec!["jp-tok-1".to_string()]),
            ]
        );
        let zone_pinned = request(|r| r.zone = Some("us-south-1".into()));
        assert_eq!(
            regions_with_offering(&w, &zone_pinned, "gx2-8x64x1v100")[0].zones,
            ["us-south-1"]
        );
        let cat = w.cloud_catalog(CloudId::Ibm).unwrap();
        assert!(!cat.all_regions_lower().contains(&String::new()));
        // Validating the zone finds the region-less rows: SkyPilot keeps
        // NaN as the region and fails on it.
        let mut r = request(|r| r.zone = Some("jp-tok-2".into()));
        let err = crate::validate::validate(&w, &mut r).unwrap_err();
        assert_eq!(err.kind, ErrorKind::AttributeError);
        assert_eq!(err.message, "'float' object has no attribute 'lower'");
        let mut r = request(|r| r.zone = Some("jp-tok-1".into()));
        crate::validate::validate(&w, &mut r).unwrap();
        assert_eq!(r.region.as_deref(), Some("jp-tok"));
        // The region list of an error message leaves the NaN out.
        let mut r = request(|r| r.region = Some("mars".into()));
        let err = crate::validate::validate(&w, &mut r).unwrap_err();
        assert_eq!(
            err.message,
            "Invalid region 'mars'\nList of supported IBM regions: 'jp-tok, us-east, us-south'"
        );
    }
}
