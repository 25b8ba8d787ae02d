//! Seeweb: `Seeweb._get_feasible_launchable_resources` and
//! `regions_with_offering` (`sky/clouds/seeweb.py`), with
//! `sky/catalog/seeweb_catalog.py`. Unlike the generic catalog clouds it
//! proposes one instance type only — the cheapest with the accelerator —
//! and keeps the request as it was (cpus, memory, accelerators) on it; its
//! default instance type is the cheapest of the whole catalog for the
//! requested cpus/memory, wherever it is offered; and its regions put
//! `it-fr2` (Frosinone) first.

use crate::catalog::CloudCatalog;
use crate::catalog::query::{AcceleratorMatch, RegionZones};
use crate::cloud::CloudId;
use crate::resources::Resources;
use crate::world::World;

use super::{FeasibleResources, Refusal, filter_of};

/// `seeweb_catalog.get_region_zones_for_instance_type`'s `priority_regions`.
const PRIORITY_REGIONS: &[&str] = &["it-fr2"];

/// `Seeweb._get_feasible_launchable_resources`.
pub(super) fn feasible(world: &World, r: &Resources) -> FeasibleResources {
    if r.use_spot {
        // Not reached in practice: SPOT_INSTANCE is refused before.
        return hint_only(Refusal::SpotNotOffered, Vec::new());
    }
    let empty;
    let cat = match world.cloud_catalog(CloudId::Seeweb) {
        Some(cat) => cat,
        None => {
            empty = CloudCatalog::from_rows(
                CloudId::Seeweb,
                Vec::new(),
                false,
                crate::catalog::Schema::V8,
            );
            &empty
        }
    };
    let mut chosen = r.clone();
    if r.instance_type.is_none() {
        let instance_type = match &r.accelerator {
            Some(acc) => {
                let mut filter = filter_of(r);
                // `get_instance_type_for_accelerator` drops `local_disk`.
                filter.local_disk = None;
                let (types, fuzzy) = match cat.instances_for_accelerator(
                    &acc.name,
                    acc.count.0,
                    &filter,
                    r.use_spot,
                ) {
                    AcceleratorMatch::Instances(types) => (types, Vec::new()),
                    AcceleratorMatch::NoMatch { fuzzy } => (Vec::new(), fuzzy),
                };
                match types.into_iter().next() {
                    // "Use the first (cheapest) instance type".
                    Some(cheapest) => cheapest,
                    None => {
                        return hint_only(
                            Refusal::NoInstanceForAccelerator {
                                name: acc.name.clone(),
                                count: acc.count,
                                fuzzy: fuzzy.clone(),
                            },
                            fuzzy,
                        );
                    }
                }
            }
            None => match default_instance_type(cat, r) {
                Some(it) => it,
                None => {
                    return hint_only(
                        Refusal::NoInstanceForCpusMemory {
                            cpus: r.cpus.clone(),
                            memory: r.memory.clone(),
                        },
                        Vec::new(),
                    );
                }
            },
        };
        chosen.instance_type = Some(instance_type);
    }
    if let Some(it) = &chosen.instance_type
        && !cat.has_instance_type(it)
    {
        return hint_only(
            Refusal::InstanceTypeNotOffered {
                instance_type: it.clone(),
            },
            Vec::new(),
        );
    }
    chosen.cloud = Some(CloudId::Seeweb);
    FeasibleResources {
        resources: vec![chosen],
        ..Default::default()
    }
}

/// `Seeweb.get_default_instance_type`: the cheapest type for the requested
/// cpus and memory (no defaults of its own) over the whole catalog —
/// `region` and `zone` are dropped before the catalog is asked.
pub(super) fn default_instance_type(cat: &CloudCatalog, r: &Resources) -> Option<String> {
    let mut filter = filter_of(r);
    filter.region = None;
    filter.zone = None;
    filter.local_disk = None;
    cat.cheapest_for_cpus_mem(|_| true, &filter, r.use_spot)
}

fn hint_only(hint: Refusal, fuzzy: Vec<String>) -> FeasibleResources {
    FeasibleResources {
        logs: Vec::new(),
        resources: Vec::new(),
        fuzzy,
        hint: Some(hint),
    }
}

/// `Seeweb.regions_with_offering`: none for spot; otherwise the type's
/// regions in `get_region_zones` order with `it-fr2` moved first, narrowed
/// to the requested region.
pub(super) fn regions_with_offering(
    cat: &CloudCatalog,
    r: &Resources,
    instance_type: &str,
) -> Vec<RegionZones> {
    if r.use_spot {
        return Vec::new();
    }
    let regions = cat.regions_for_instance(instance_type, false, None, None);
    let (mut first, rest): (Vec<RegionZones>, Vec<RegionZones>) = regions
        .into_iter()
        .partition(|rz| PRIORITY_REGIONS.contains(&rz.region.as_str()));
    first.sort_by_key(|rz| PRIORITY_REGIONS.iter().position(|p| *p == rz.region));
    first
        .into_iter()
        .chain(rest)
        .filter(|rz| r.region.as_deref().is_none_or(|want| rz.region == want))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::feasibility::{gpu_request, test_world};

    const CSV: &str = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\r\n\
        eCS1,,,1,1.0,0.019,ch-lug1,,\r\n\
        eCS1,,,1,1.0,0.019,it-fr2,,\r\n\
        eCS1,,,1,1.0,0.019,bg-sof1,,\r\n\
        eCS3,,,4,4.0,0.048,it-mi2,,\r\n\
        ECS1GPU,RTX6000,1,8,32.0,0.29,it-fr2,,\r\n\
        ECS1GPU3,A100,1,16,120.0,1.89,it-fr2,,\r\n\
        ECS1GPU3-B,A100,1,16,120.0,1.5,it-mi2,,\r\n\
        ECS2GPU3,A100,2,32,240.0,3.78,it-fr2,,\r\n";

    fn world() -> World {
        test_world(CloudId::Seeweb, CSV, "")
    }

    #[test]
    fn only_the_cheapest_type_with_the_accelerator_and_the_request_kept() {
        let mut r = gpu_request("A100:1");
        r.cpus = Some("8+".into());
        r.memory = Some("64+".into());
        let f = feasible(&world(), &r);
        assert_eq!(f.resources.len(), 1, "{:?}", f.resources);
        let c = &f.resources[0];
        assert_eq!(c.instance_type.as_deref(), Some("ECS1GPU3-B"));
        assert_eq!(c.cloud, Some(CloudId::Seeweb));
        // `resources.copy(instance_type=...)`: cpus, memory, accelerators stay.
        assert_eq!(c.cpus.as_deref(), Some("8+"));
        assert_eq!(c.memory.as_deref(), Some("64+"));
        assert_eq!(c.accelerator, r.accelerator);
        assert!(f.hint.is_none());
    }

    #[test]
    fn no_type_for_the_accelerator_is_seeweb_s_hint_with_the_fuzzy_list() {
        let f = feasible(&world(), &gpu_request("A100:3"));
        assert!(f.resources.is_empty());
        assert_eq!(
            f.hint.as_ref().map(|h| h.hint(CloudId::Seeweb)).as_deref(),
            Some("No instance type found for acceleratorA100:3 on Seeweb")
        );
        assert!(f.fuzzy.is_empty(), "no A100 with 3 or more: {:?}", f.fuzzy);
        let f = feasible(&world(), &gpu_request("A10:1"));
        assert_eq!(f.fuzzy, ["A100:1", "A100:2"]);
        let mut pinned = gpu_request("A100:2");
        pinned.region = Some("ch-lug1".into());
        let f = feasible(&world(), &pinned);
        assert_eq!(
            f.hint.as_ref().map(|h| h.hint(CloudId::Seeweb)).as_deref(),
            Some("No instance type found for acceleratorA100:2 on Seeweb")
        );
    }

    #[test]
    fn the_default_type_is_the_cheapest_anywhere_even_a_gpu_type() {
        let w = world();
        let cat = w.cloud_catalog(CloudId::Seeweb).unwrap();
        let mut r = Resources::default();
        assert_eq!(default_instance_type(cat, &r).as_deref(), Some("eCS1"));
        // The region is not asked: eCS1 is not in it-mi2, yet it is chosen.
        r.region = Some("it-mi2".into());
        assert_eq!(default_instance_type(cat, &r).as_deref(), Some("eCS1"));
        r.cpus = Some("8".into());
        r.memory = Some("32".into());
        assert_eq!(default_instance_type(cat, &r).as_deref(), Some("ECS1GPU"));
        r.cpus = Some("64".into());
        let f = feasible(&w, &r);
        assert_eq!(
            f.hint.as_ref().map(|h| h.hint(CloudId::Seeweb)).as_deref(),
            Some("No suitable instance type found forcpus=64, memory=32")
        );
        r.memory = None;
        let f = feasible(&w, &r);
        assert_eq!(
            f.hint.as_ref().map(|h| h.hint(CloudId::Seeweb)).as_deref(),
            Some("No suitable instance type found forcpus=64, memory=None")
        );
    }

    #[test]
    fn regions_put_it_fr2_first_and_none_for_spot() {
        let w = world();
        let cat = w.cloud_catalog(CloudId::Seeweb).unwrap();
        let mut r = Resources::default();
        let names = |r: &Resources| -> Vec<String> {
            regions_with_offering(cat, r, "eCS1")
                .into_iter()
                .map(|rz| rz.region)
                .collect()
        };
        // Equal prices: region order, then it-fr2 moved to the front.
        assert_eq!(names(&r), ["it-fr2", "bg-sof1", "ch-lug1"]);
        r.region = Some("ch-lug1".into());
        assert_eq!(names(&r), ["ch-lug1"]);
        r.region = None;
        r.use_spot = true;
        assert!(names(&r).is_empty());
    }
}
