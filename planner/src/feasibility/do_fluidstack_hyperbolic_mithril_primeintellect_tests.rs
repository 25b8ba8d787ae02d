//! The quirks of DO, Fluidstack, Hyperbolic, Mithril and PrimeIntellect as
//! SkyPilot 0.14.1 has them (`sky/clouds/<cloud>.py`,
//! `sky/catalog/<cloud>_catalog.py`), on small catalogs written so that each
//! quirk decides the answer: the same rows give a different answer on a cloud
//! without it.

use crate::catalog::kubernetes::KubePricing;
use crate::catalog::{Catalog, CloudCatalog};
use crate::cloud::CloudId;
use crate::resources::{ErrorKind, Resources, parse_accelerator};
use crate::validate;
use crate::world::World;

use super::{feasible_resources, regions_with_offering};

/// A world whose only cloud is `cloud`, with `csv` as its catalog.
fn world(cloud: CloudId, csv: &str) -> World {
    let (cat, warnings) = CloudCatalog::from_bytes(cloud, csv.as_bytes(), "test/vms.csv")
        .expect("test catalog parses");
    assert!(warnings.is_empty(), "{warnings:?}");
    let mut catalog = Catalog::new();
    catalog.insert(cat);
    World {
        sky_config: Default::default(),
        ssh: Default::default(),
        slurm: Default::default(),
        catalog,
        enabled: vec![cloud],
        kube_contexts: Vec::new(),
        kube_pricing: KubePricing::default(),
        reservation_clouds: Vec::new(),
    }
}

fn request(cloud: CloudId) -> Resources {
    Resources {
        cloud: Some(cloud),
        ..Resources::default()
    }
}

/// Instance types of the feasible candidates.
fn feasible_types(world: &World, r: &Resources, num_nodes: u32) -> Vec<String> {
    feasible_resources(
        world,
        r.cloud.expect("request names its cloud"),
        r,
        num_nodes,
    )
    .expect("feasibility does not fail")
    .resources
    .into_iter()
    .filter_map(|c| c.instance_type)
    .collect()
}

const REGIONS: &str =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice
gpu-1,H100,1,28,180.0,2.0,CANADA,,
gpu-1,H100,1,28,180.0,2.0,us-east-1,,
gpu-1,H100,1,28,180.0,2.0,ARIZONA_USA,,
gpu-1,H100,1,28,180.0,3.0,us-west-1,,
";

#[test]
fn fluidstack_lists_us_regions_first_and_other_clouds_by_price_then_name() {
    // `fluidstack_catalog.get_region_zones_for_instance_type` moves `us-`
    // regions ahead of the price order; every other catalog keeps it.
    let cases: &[(CloudId, &[&str])] = &[
        (
            CloudId::Fluidstack,
            &["us-east-1", "us-west-1", "ARIZONA_USA", "CANADA"],
        ),
        (
            CloudId::Do,
            &["ARIZONA_USA", "CANADA", "us-east-1", "us-west-1"],
        ),
        (
            CloudId::Mithril,
            &["ARIZONA_USA", "CANADA", "us-east-1", "us-west-1"],
        ),
    ];
    for (cloud, want) in cases {
        let w = world(*cloud, REGIONS);
        let mut r = request(*cloud);
        r.instance_type = Some("gpu-1".into());
        let got: Vec<String> = regions_with_offering(&w, *cloud, &r)
            .into_iter()
            .map(|rz| rz.region)
            .collect();
        assert_eq!(got, *want, "{cloud:?}");
    }
}

const SHAPES: &str =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice
small,,,4,16.0,0.10,r1,,
lowmem,,,8,16.0,0.20,r1,,
roomy,,,8,32.0,0.40,r1,,
";

/// (cloud, cpus, memory, the default instance type expected).
type DefaultCase = (
    CloudId,
    Option<&'static str>,
    Option<&'static str>,
    Option<&'static str>,
);

#[test]
fn default_instance_types_follow_each_catalogs_defaults() {
    // Fluidstack: `_DEFAULT_NUM_VCPUS = 6` and `_DEFAULT_MEMORY_CPU_RATIO = 4`
    // (memory stays `4x` when only cpus are given); the others have no
    // defaults, so the cheapest type wins.
    let cases: &[DefaultCase] = &[
        (CloudId::Fluidstack, None, None, Some("roomy")),
        (CloudId::Fluidstack, Some("8"), None, Some("roomy")),
        (CloudId::Fluidstack, None, Some("16"), Some("small")),
        (CloudId::Fluidstack, Some("4"), None, Some("small")),
        (CloudId::Fluidstack, Some("16+"), None, None),
        (CloudId::Do, None, None, Some("small")),
        (CloudId::Do, Some("8"), None, Some("lowmem")),
        (CloudId::Hyperbolic, None, None, Some("small")),
        (CloudId::Mithril, None, Some("32+"), Some("roomy")),
        (CloudId::PrimeIntellect, Some("8+"), None, Some("lowmem")),
    ];
    for &(cloud, cpus, memory, want) in cases {
        let w = world(cloud, SHAPES);
        let mut r = request(cloud);
        r.cpus = cpus.map(str::to_string);
        r.memory = memory.map(str::to_string);
        let got = feasible_types(&w, &r, 1);
        let want: Vec<String> = want.into_iter().map(str::to_string).collect();
        assert_eq!(got, want, "{cloud:?} cpus={cpus:?} memory={memory:?}");
    }
}

const TWO_REGIONS: &str = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Region,AvailabilityZone,Price,SpotPrice
cpu-fi,,0.0,4.0,16,,FI,FIN-01,0.03,
cpu-us,,0.0,4.0,16,,US,us-east1-a,0.10,
";

#[test]
fn primeintellect_picks_its_default_type_ignoring_the_pinned_region() {
    // `PrimeIntellect._get_feasible_launchable_resources` calls
    // `get_default_instance_type` without the region: the FI type is chosen
    // for a US request, and then offered nowhere in US.
    let w = world(CloudId::PrimeIntellect, TWO_REGIONS);
    let mut r = request(CloudId::PrimeIntellect);
    r.region = Some("US".into());
    let feasible = feasible_resources(&w, CloudId::PrimeIntellect, &r, 1).unwrap();
    assert_eq!(
        feasible.resources[0].instance_type.as_deref(),
        Some("cpu-fi")
    );
    assert!(regions_with_offering(&w, CloudId::PrimeIntellect, &feasible.resources[0]).is_empty());

    // The same rows on DO (which passes the region) give the US type.
    let w = world(CloudId::Do, TWO_REGIONS);
    let mut r = request(CloudId::Do);
    r.region = Some("US".into());
    assert_eq!(feasible_types(&w, &r, 1), ["cpu-us"]);
}

const GPUS: &str =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice
h100-small,H100,1,16,200.0,2.0,r1,,
h100-big,H100,1,28,1200.0,3.0,r1,,
";

#[test]
fn accelerator_searches_apply_memory_where_skypilot_passes_it() {
    // PrimeIntellect does not pass `memory` to
    // `get_instance_type_for_accelerator`, and its `_make` (like DO's) copies
    // the request's memory onto the candidates; Fluidstack, Hyperbolic and
    // Mithril filter by it and clear it.
    let cases: &[(CloudId, &[&str], Option<&str>)] = &[
        (
            CloudId::PrimeIntellect,
            &["h100-small", "h100-big"],
            Some("1000+"),
        ),
        (CloudId::Do, &["h100-big"], Some("1000+")),
        (CloudId::Fluidstack, &["h100-big"], None),
        (CloudId::Hyperbolic, &["h100-big"], None),
        (CloudId::Mithril, &["h100-big"], None),
    ];
    for &(cloud, want, kept) in cases {
        let w = world(cloud, GPUS);
        let mut r = request(cloud);
        r.accelerator = Some(parse_accelerator("H100:1").unwrap());
        r.memory = Some("1000+".into());
        let feasible = feasible_resources(&w, cloud, &r, 1).unwrap();
        let types: Vec<&str> = feasible
            .resources
            .iter()
            .filter_map(|c| c.instance_type.as_deref())
            .collect();
        assert_eq!(types, want, "{cloud:?}");
        for c in &feasible.resources {
            assert_eq!(c.memory.as_deref(), kept, "{cloud:?}");
            assert_eq!(c.cpus, None, "{cloud:?}");
        }
    }
}

#[test]
fn spot_and_multi_node_are_refused_where_the_table_says_so() {
    // (cloud, spot supported, multi-node supported), from
    // `_CLOUD_UNSUPPORTED_FEATURES`: Mithril's and PrimeIntellect's catalogs
    // have spot prices; Hyperbolic and PrimeIntellect are single-node.
    let cases = [
        (CloudId::Do, false, true),
        (CloudId::Fluidstack, false, true),
        (CloudId::Hyperbolic, false, false),
        (CloudId::Mithril, true, true),
        (CloudId::PrimeIntellect, true, false),
    ];
    let csv = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice
gpu-1,H100,1,16,200.0,2.0,r1,,1.0
";
    for (cloud, spot_ok, multi_ok) in cases {
        let w = world(cloud, csv);
        let mut r = request(cloud);
        r.accelerator = Some(parse_accelerator("H100:1").unwrap());
        r.use_spot = true;
        let spot = feasible_resources(&w, cloud, &r, 1).unwrap();
        assert_eq!(spot.resources.is_empty(), !spot_ok, "{cloud:?} spot");
        if !spot_ok {
            let hint = spot
                .hint
                .expect("a refused feature comes with a hint")
                .hint(cloud);
            assert!(
                hint.starts_with(&format!(
                    "The following features are not supported by {}:",
                    cloud.repr()
                )) && hint.contains("spot_instance"),
                "{cloud:?}: {hint}"
            );
        }
        r.use_spot = false;
        let multi = feasible_resources(&w, cloud, &r, 2).unwrap();
        assert_eq!(multi.resources.is_empty(), !multi_ok, "{cloud:?} nodes");
        assert_eq!(
            multi
                .hint
                .is_some_and(|h| h.hint(cloud).contains("multi-node")),
            !multi_ok,
            "{cloud:?} nodes"
        );
    }
}

#[test]
fn zones_are_refused_with_each_clouds_message() {
    let csv = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice
cpu-1,,,4,16.0,0.1,r1,,
";
    let cases = [
        (CloudId::Do, "DO does not support zones."),
        (
            CloudId::Fluidstack,
            "FluidStack Cloud does not support zones.",
        ),
        (CloudId::Hyperbolic, "Hyperbolic does not support zones."),
        (CloudId::Mithril, "Mithril does not support zones."),
    ];
    for (cloud, want) in cases {
        let w = world(cloud, csv);
        let mut r = request(cloud);
        r.region = Some("r1".into());
        r.zone = Some("r1-a".into());
        let err = validate::validate(&w, &mut r).unwrap_err();
        assert_eq!(
            (err.kind, err.message.as_str()),
            (ErrorKind::ValueError, want)
        );
    }
    // PrimeIntellect has zones: a known one validates and names its region.
    let w = world(CloudId::PrimeIntellect, TWO_REGIONS);
    let mut r = request(CloudId::PrimeIntellect);
    r.zone = Some("FIN-01".into());
    validate::validate(&w, &mut r).unwrap();
    assert_eq!(r.region.as_deref(), Some("FI"));
}

#[test]
fn unknown_regions_name_the_catalogs_own_spelling_of_the_cloud() {
    // `do_catalog` passes `'DO'` to `validate_region_zone_impl`; the others
    // pass their registry name.
    let csv = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice
cpu-1,,,4,16.0,0.1,nyc1,,
";
    for (cloud, name) in [
        (CloudId::Do, "DO"),
        (CloudId::Fluidstack, "fluidstack"),
        (CloudId::Hyperbolic, "hyperbolic"),
        (CloudId::Mithril, "mithril"),
    ] {
        let w = world(cloud, csv);
        let mut r = request(cloud);
        r.region = Some("zzz9".into());
        let err = validate::validate(&w, &mut r).unwrap_err();
        assert_eq!(
            err.message,
            format!("Invalid region 'zzz9'\nList of supported {name} regions: 'nyc1'"),
            "{cloud:?}"
        );
    }
}

#[test]
fn images_and_ports_are_checked_against_the_clouds_features() {
    let csv = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice
cpu-1,,,4,16.0,0.1,r1,,
";
    // (cloud, docker image ok, VM image ok, ports ok)
    let cases = [
        (CloudId::Do, true, true, true),
        (CloudId::Fluidstack, true, false, true),
        (CloudId::Hyperbolic, false, false, false),
        (CloudId::Mithril, true, false, false),
        (CloudId::PrimeIntellect, false, false, true),
    ];
    for (cloud, docker_ok, image_ok, ports_ok) in cases {
        let w = world(cloud, csv);
        let check = |image: Option<&str>, ports: bool| {
            let mut r = request(cloud);
            r.image = image.map(|i| crate::resources::ImageSpec::single(None, i));
            r.ports = ports.then(|| vec!["8080".to_string()]);
            validate::validate(&w, &mut r)
                .map(|_| ())
                .map_err(|e| e.kind)
        };
        let docker = check(Some("docker:ubuntu"), false);
        assert_eq!(docker.is_ok(), docker_ok, "{cloud:?} docker");
        if !docker_ok {
            assert_eq!(docker, Err(ErrorKind::NotSupported), "{cloud:?}");
        }
        let image = check(Some("my-image"), false);
        assert_eq!(image.is_ok(), image_ok, "{cloud:?} image");
        if !image_ok {
            assert_eq!(image, Err(ErrorKind::ValueError), "{cloud:?}");
        }
        let ports = check(None, true);
        assert_eq!(ports.is_ok(), ports_ok, "{cloud:?} ports");
        if !ports_ok {
            assert_eq!(ports, Err(ErrorKind::NotSupported), "{cloud:?}");
        }
    }
}
