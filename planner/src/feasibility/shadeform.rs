//! Shadeform: `Shadeform._get_feasible_launchable_resources`
//! (`sky/clouds/shadeform.py`) with `sky/catalog/shadeform_catalog.py`. An
//! explicit instance type is taken as it is; the accelerator search looks
//! only at the name, count, spot and price ceiling (no cpus, memory or
//! location) and its candidates keep the requested accelerators; the
//! default instance type is the cheapest row of the catalog — whose
//! GPU-less rows `_get_df` has already dropped (see
//! [`CloudCatalog::from_bytes`]).
//!
//! Without a catalog the planner answers as SkyPilot's `_get_df` means to
//! for a missing file: an empty table (no default type; "No instances
//! available" for an accelerator). SkyPilot 0.14.1 never gets there — its
//! lazy `read_catalog` downloads a missing file first — and neither does
//! `sky`, which loads the bundled copy instead (`optimizer::catalogs`).

use crate::catalog::query::AcceleratorMatch;
use crate::catalog::{CloudCatalog, Schema};
use crate::cloud::CloudId;
use crate::resources::Resources;
use crate::world::World;

use super::{FeasibleResources, Refusal, filter_of};

/// `Shadeform._get_feasible_launchable_resources`.
pub(super) fn feasible(world: &World, r: &Resources) -> FeasibleResources {
    if r.use_spot {
        // Not reached in practice: SPOT_INSTANCE is refused before.
        return FeasibleResources {
            hint: Some(Refusal::SpotNotOffered),
            ..Default::default()
        };
    }
    if let Some(it) = &r.instance_type {
        // Taken as it is; the name doubles as the fuzzy candidate.
        let mut c = r.clone();
        c.cloud = Some(CloudId::Shadeform);
        return FeasibleResources {
            logs: Vec::new(),
            resources: vec![c],
            fuzzy: vec![it.clone()],
            hint: None,
        };
    }
    let empty;
    let cat = match world.cloud_catalog(CloudId::Shadeform) {
        Some(cat) => cat,
        None => {
            empty = CloudCatalog::from_rows(CloudId::Shadeform, Vec::new(), false, Schema::V8);
            &empty
        }
    };
    let candidate = |it: String| {
        let mut c = r.clone();
        c.cloud = Some(CloudId::Shadeform);
        c.instance_type = Some(it);
        c.cpus = None;
        c.memory = None;
        c
    };
    let Some(acc) = &r.accelerator else {
        let mut filter = filter_of(r);
        // `shadeform_catalog.get_default_instance_type` drops `local_disk`.
        filter.local_disk = None;
        return match cat.cheapest_for_cpus_mem(|_| true, &filter, r.use_spot) {
            Some(it) => FeasibleResources {
                resources: vec![candidate(it)],
                ..Default::default()
            },
            None => FeasibleResources::default(),
        };
    };
    // `shadeform_catalog.get_instance_type_for_accelerator` is called with
    // the name, count, spot and price ceiling only.
    let mut filter = filter_of(r);
    filter.cpus = None;
    filter.memory = None;
    filter.region = None;
    filter.zone = None;
    filter.local_disk = None;
    let (types, fuzzy) = match cat.instances_for_accelerator(&acc.name, acc.count.0, &filter, false)
    {
        AcceleratorMatch::Instances(types) => (types, Vec::new()),
        AcceleratorMatch::NoMatch { fuzzy } => (Vec::new(), fuzzy),
    };
    if types.is_empty() {
        // The close matches go into the hint, not the fuzzy list.
        return FeasibleResources {
            hint: Some(Refusal::NoInstanceForAccelerator {
                name: acc.name.clone(),
                count: acc.count,
                fuzzy,
            }),
            ..Default::default()
        };
    }
    FeasibleResources {
        logs: Vec::new(),
        resources: types.iter().cloned().map(candidate).collect(),
        fuzzy: types,
        hint: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::feasibility::{gpu_request, test_world};

    const CSV: &str = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n\
        big_A6000,A6000,1,64,512,0.9,kansascity-usa-1,,\n\
        small_A6000,A6000,1,6,24,0.5,montreal-canada-2,,\n\
        pair_A6000x2,A6000,2,12,48,1.0,montreal-canada-2,,\n\
        cpu_box,,,64,256,0.05,montreal-canada-2,,\n\
        crusoe_A100-80GBx4,A100-80GB,4,48,480,8.0,culpeper-usa-1,,\n";

    fn world() -> World {
        test_world(CloudId::Shadeform, CSV, "")
    }

    #[test]
    fn the_accelerator_search_ignores_cpus_memory_and_location() {
        let mut r = gpu_request("A6000:1");
        r.cpus = Some("64+".into());
        r.memory = Some("1024+".into());
        let f = feasible(&world(), &r);
        let types: Vec<_> = f
            .resources
            .iter()
            .map(|c| c.instance_type.clone().unwrap())
            .collect();
        assert_eq!(types, ["small_A6000", "big_A6000"]);
        assert_eq!(f.fuzzy, types, "the candidate names double as fuzzy list");
        for c in &f.resources {
            assert_eq!(c.accelerator, r.accelerator, "accelerators kept");
            assert_eq!((c.cpus.as_deref(), c.memory.as_deref()), (None, None));
            assert_eq!(c.cloud, Some(CloudId::Shadeform));
        }
    }

    #[test]
    fn an_unknown_accelerator_is_a_hint_listing_the_fuzzy_candidates() {
        let f = feasible(&world(), &gpu_request("A100:3"));
        assert!(f.resources.is_empty() && f.fuzzy.is_empty());
        assert_eq!(
            f.hint
                .as_ref()
                .map(|h| h.hint(CloudId::Shadeform))
                .as_deref(),
            Some("No instances available for accelerator A100: A100-80GB:4")
        );
        let f = feasible(&world(), &gpu_request("H100:1"));
        assert_eq!(
            f.hint
                .as_ref()
                .map(|h| h.hint(CloudId::Shadeform))
                .as_deref(),
            Some("No instances available for accelerator H100")
        );
    }

    #[test]
    fn the_default_is_the_cheapest_gpu_row_and_explicit_types_pass_as_they_are() {
        // `cpu_box` is not part of Shadeform's catalog (no accelerator).
        let f = feasible(&world(), &Resources::default());
        assert_eq!(f.resources[0].instance_type.as_deref(), Some("small_A6000"));
        let r = Resources {
            cpus: Some("32+".into()),
            ..Resources::default()
        };
        let f = feasible(&world(), &r);
        assert_eq!(f.resources[0].instance_type.as_deref(), Some("big_A6000"));
        let r = Resources {
            instance_type: Some("pair_A6000x2".into()),
            ..Resources::default()
        };
        let f = feasible(&world(), &r);
        assert_eq!(f.resources.len(), 1);
        assert_eq!(f.fuzzy, ["pair_A6000x2"]);
    }

    #[test]
    fn without_a_catalog_nothing_is_offered() {
        let mut world = world();
        world.catalog = crate::catalog::Catalog::new();
        assert!(feasible(&world, &Resources::default()).resources.is_empty());
        let f = feasible(&world, &gpu_request("A6000:1"));
        assert!(f.resources.is_empty());
        assert_eq!(
            f.hint
                .as_ref()
                .map(|h| h.hint(CloudId::Shadeform))
                .as_deref(),
            Some("No instances available for accelerator A6000")
        );
    }
}
