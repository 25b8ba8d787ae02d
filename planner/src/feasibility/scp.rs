//! SCP, Samsung Cloud Platform (`sky/clouds/scp.py`): the generic catalog
//! planner with SCP's default (exactly 8 vCPUs, 2x memory: see its table
//! entry), behind SCP's disk-size limits, and SCP's region order. SCP has
//! no zones: its catalog has no `AvailabilityZone` column and
//! `scp_catalog.validate_region_zone` refuses any zone.

use crate::catalog::query::RegionZones;
use crate::cloud::{CatalogRules, CloudId};
use crate::resources::Resources;
use crate::world::World;

use super::{FeasibleResources, catalog};

/// `_SCP_MIN_DISK_SIZE_GB`.
const MIN_DISK_SIZE_GB: u64 = 100;
/// `_SCP_MAX_DISK_SIZE_GB`.
const MAX_DISK_SIZE_GB: u64 = 300;

/// `SCP._get_feasible_launchable_resources`: nothing (and a logged line)
/// when the disk size is outside SCP's limits, else the generic answer.
pub(super) fn feasible(world: &World, rules: &CatalogRules, r: &Resources) -> FeasibleResources {
    // `SCP._is_disk_size_allowed` (a disk size of 0 is not checked).
    if r.disk_size != 0 && !(MIN_DISK_SIZE_GB..=MAX_DISK_SIZE_GB).contains(&r.disk_size) {
        return FeasibleResources {
            logs: vec![super::CloudLog::ScpDiskSize {
                size: r.disk_size,
                min: MIN_DISK_SIZE_GB,
                max: MAX_DISK_SIZE_GB,
            }],
            ..Default::default()
        };
    }
    catalog::feasible(world, CloudId::Scp, rules, r)
}

/// `SCP.regions_with_offering`: the type's regions in the catalog's price
/// order, narrowed to the requested region, except that regions whose name
/// contains `SCP` come first (`scp_catalog.get_region_zones_for_instance_type`:
/// "Enforce default regions are always tried first").
pub(super) fn regions_with_offering(world: &World, r: &Resources, it: &str) -> Vec<RegionZones> {
    let Some(cat) = world.cloud_catalog(CloudId::Scp) else {
        return Vec::new();
    };
    // SCP ignores the zone here (there are none).
    let (default, other): (Vec<RegionZones>, Vec<RegionZones>) = cat
        .regions_for_instance(it, r.use_spot, None, None)
        .into_iter()
        .partition(|rz| rz.region.contains("SCP"));
    default
        .into_iter()
        .chain(other)
        .filter(|rz| r.region.as_deref().is_none_or(|want| rz.region == want))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::kubernetes::KubePricing;
    use crate::catalog::{Catalog, CloudCatalog};

    const HEADER: &str = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n";

    fn world(rows: &str) -> World {
        let csv = format!("{HEADER}{rows}");
        let (cat, warnings) =
            CloudCatalog::from_bytes(CloudId::Scp, csv.as_bytes(), "scp").unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        let mut catalog = Catalog::new();
        catalog.insert(cat);
        World {
            sky_config: Default::default(),
            ssh: Default::default(),
            slurm: Default::default(),
            catalog,
            enabled: vec![CloudId::Scp],
            kube_contexts: Vec::new(),
            kube_pricing: KubePricing::default(),
            reservation_clouds: Vec::new(),
        }
    }

    fn rules() -> CatalogRules {
        CloudId::Scp.spec().catalog_rules.unwrap()
    }

    fn request(args: impl FnOnce(&mut Resources)) -> Resources {
        let mut r = Resources {
            cloud: Some(CloudId::Scp),
            ..Resources::default()
        };
        args(&mut r);
        r
    }

    const ROWS: &str = "s1v8m16,,,8.0,16.0,0.41,KOREA-EAST-1-CCN-FIN-B001,,\n\
        s1v8m16,,,8.0,16.0,0.41,KOREA-WEST-1-SCP-B001,,\n\
        s1v8m32,,,8.0,32.0,0.42,KOREA-WEST-1-SCP-B001,,\n\
        s1v16m32,,,16.0,32.0,0.40,KOREA-WEST-1-SCP-B001,,\n";

    #[test]
    fn default_is_exactly_eight_vcpus_with_twice_the_memory() {
        let w = world(ROWS);
        // s1v16m32 is cheaper but has 16 vCPUs: `'8'` is not `8+`.
        let f = feasible(&w, &rules(), &request(|_| {}));
        let types: Vec<_> = f
            .resources
            .iter()
            .map(|c| c.instance_type.clone())
            .collect();
        assert_eq!(types, vec![Some("s1v8m16".to_string())]);
        assert!(f.logs.is_empty());
    }

    #[test]
    fn disk_sizes_outside_the_limits_are_refused_with_a_logged_line() {
        let w = world(ROWS);
        for (size, refused) in [
            (99, true),
            (100, false),
            (256, false),
            (300, false),
            (301, true),
        ] {
            let f = feasible(&w, &rules(), &request(|r| r.disk_size = size));
            assert_eq!(f.resources.is_empty(), refused, "disk {size}");
            let want = refused.then_some(crate::feasibility::CloudLog::ScpDiskSize {
                size,
                min: 100,
                max: 300,
            });
            assert_eq!(f.logs.first(), want.as_ref(), "disk {size}");
        }
    }

    #[test]
    fn regions_named_scp_come_first() {
        let w = world(ROWS);
        let regions: Vec<String> = regions_with_offering(&w, &request(|_| {}), "s1v8m16")
            .into_iter()
            .map(|rz| rz.region)
            .collect();
        // By price and name, the CCN region would come first.
        assert_eq!(
            regions,
            ["KOREA-WEST-1-SCP-B001", "KOREA-EAST-1-CCN-FIN-B001"]
        );
        let pinned = request(|r| r.region = Some("KOREA-EAST-1-CCN-FIN-B001".into()));
        let regions: Vec<String> = regions_with_offering(&w, &pinned, "s1v8m16")
            .into_iter()
            .map(|rz| rz.region)
            .collect();
        assert_eq!(regions, ["KOREA-EAST-1-CCN-FIN-B001"]);
    }
}
