//! Vast: the generic catalog rules ([`super::catalog`], with Vast's entry in
//! the cloud table) on the catalog as `vast.datacenter_only` leaves it
//! (`Vast._get_feasible_launchable_resources` in `sky/clouds/vast.py`).
//! With `datacenter_only: true` the default instance type and the
//! accelerator search (its fuzzy candidates too) see only rows whose
//! `HostingType` is at least 1 (`vast_catalog._apply_datacenter_filter`);
//! a catalog without that column is not filtered at all. Regions and prices
//! of the chosen type still come from the whole catalog, as SkyPilot's
//! `get_region_zones_for_instance_type` and `get_hourly_cost` read `_df`.

use crate::catalog::CloudCatalog;
use crate::cloud::{CatalogRules, CloudId};
use crate::resources::Resources;
use crate::world::World;

use super::{FeasibleResources, catalog};

/// `Vast._get_feasible_launchable_resources`.
pub(super) fn feasible(world: &World, rules: &CatalogRules, r: &Resources) -> FeasibleResources {
    let Some(cat) = world.cloud_catalog(CloudId::Vast) else {
        return FeasibleResources::default();
    };
    // An explicit instance type returns before SkyPilot reads the setting.
    if r.instance_type.is_none()
        && world.sky_config.vast_datacenter_only()
        && let Some(datacenter) = datacenter_only(cat)
    {
        return catalog::feasible_in(&datacenter, CloudId::Vast, rules, r);
    }
    catalog::feasible_in(cat, CloudId::Vast, rules, r)
}

/// `_apply_datacenter_filter(df, True)`: the datacenter-hosted rows, or
/// `None` when the catalog has no `HostingType` column. The header says
/// so (a catalog of selected rows may hold none); rows made without a
/// header have the column when some row has a value.
pub(super) fn datacenter_only(cat: &CloudCatalog) -> Option<CloudCatalog> {
    if !cat.columns().has("HostingType") && cat.rows.iter().all(|row| row.datacenter.is_none()) {
        return None;
    }
    let rows = cat
        .rows
        .iter()
        .filter(|row| row.datacenter == Some(true))
        .cloned()
        .collect();
    Some(CloudCatalog::from_rows(
        cat.cloud,
        rows,
        cat.has_zones,
        cat.schema,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::feasibility::{gpu_request, test_world};

    const HEADER: &str =
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region";
    const ROWS: [&str; 4] = [
        "1x-RTX_4090,RTX4090,1,32,64.0,0.40,0.00,\"Germany, DE, EU\"",
        "1x-RTX_4090,RTX4090,1,32,64.0,0.40,0.00,\"Texas, US, NA\"",
        "2x-RTX_4090,RTX4090,2,32,64.0,0.79,0.00,\"Oregon, US, NA\"",
        "1x-RTX_3060,RTX3060,1,32,64.0,0.23,0.00,\"Sweden, SE, EU\"",
    ];

    /// The catalog with a `HostingType` column (1 for the US rows) or without.
    fn csv(hosting: bool) -> String {
        let mut out = HEADER.to_string() + if hosting { ",HostingType\r\n" } else { "\r\n" };
        for row in ROWS {
            out.push_str(row);
            if hosting {
                out.push_str(if row.contains(", US,") { ",1" } else { ",0" });
            }
            out.push_str("\r\n");
        }
        out
    }

    fn types(f: &FeasibleResources) -> Vec<String> {
        f.resources
            .iter()
            .map(|c| c.instance_type.clone().unwrap())
            .collect()
    }

    fn rules() -> CatalogRules {
        CloudId::Vast.spec().catalog_rules.unwrap()
    }

    #[test]
    fn datacenter_only_narrows_the_default_and_the_accelerator_search() {
        let on = "vast:\n  datacenter_only: true\n";
        let world = test_world(CloudId::Vast, &csv(true), on);
        let f = feasible(&world, &rules(), &Resources::default());
        assert_eq!(
            types(&f),
            ["1x-RTX_4090"],
            "the Swedish 3060 is consumer-hosted"
        );
        let f = feasible(&world, &rules(), &gpu_request("RTX3060:1"));
        assert!(f.resources.is_empty());
        assert!(f.fuzzy.is_empty(), "{:?}", f.fuzzy);
        // An explicit type is not filtered.
        let r = Resources {
            instance_type: Some("1x-RTX_3060".into()),
            ..Resources::default()
        };
        assert_eq!(types(&feasible(&world, &rules(), &r)), ["1x-RTX_3060"]);
        // The type's regions still come from the whole catalog.
        let regions = super::super::catalog::regions_with_offering(
            world.cloud_catalog(CloudId::Vast).unwrap(),
            &Resources::default(),
            "1x-RTX_4090",
        );
        assert_eq!(regions.len(), 2);
    }

    #[test]
    fn without_the_setting_or_the_column_nothing_is_filtered() {
        for (hosting, config) in [
            (true, ""),
            (true, "vast:\n  datacenter_only: false\n"),
            (false, "vast:\n  datacenter_only: true\n"),
        ] {
            let world = test_world(CloudId::Vast, &csv(hosting), config);
            let f = feasible(&world, &rules(), &Resources::default());
            assert_eq!(types(&f), ["1x-RTX_3060"], "{hosting} {config:?}");
            let f = feasible(&world, &rules(), &gpu_request("RTX3060:1"));
            assert_eq!(types(&f), ["1x-RTX_3060"]);
        }
    }

    #[test]
    fn candidates_keep_the_memory_and_drop_cpus_and_accelerators() {
        let world = test_world(CloudId::Vast, &csv(false), "");
        let mut r = gpu_request("RTX4090:1");
        r.cpus = Some("16+".into());
        r.memory = Some("32+".into());
        let f = feasible(&world, &rules(), &r);
        let c = &f.resources[0];
        assert_eq!(c.memory.as_deref(), Some("32+"));
        assert_eq!((c.cpus.as_deref(), c.accelerator.as_ref()), (None, None));
        // Memory is a filter of Vast's accelerator search.
        r.memory = Some("128+".into());
        assert!(feasible(&world, &rules(), &r).resources.is_empty());
    }
}
