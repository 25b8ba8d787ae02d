use super::*;
use crate::feasibility::{gpu_request, test_world};
use crate::task::ResourceSet;

/// Two instance types with one GPU each, in two regions with two zones,
/// the cheaper type also in a third region; spot prices differ by zone.
const AWS: &str = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n\
p.big,V100,1,16,128,,4.0,1.5,us-east-1,us-east-1a\n\
p.big,V100,1,16,128,,4.0,1.6,us-east-1,us-east-1b\n\
p.small,V100,1,8,61,,3.0,0.9,us-east-1,us-east-1a\n\
p.small,V100,1,8,61,,3.0,1.0,us-east-1,us-east-1b\n\
p.small,V100,1,8,61,,3.2,1.1,us-west-2,us-west-2a\n\
c.cpu,,,4,16,,0.2,0.1,us-east-1,us-east-1a\n";

fn task(resources: Vec<Resources>, num_nodes: u32) -> Dag {
    Dag {
        tasks: vec![Task {
            name: Some("t".into()),
            num_nodes,
            resources: ResourceSet::AnyOf(resources),
            ..Default::default()
        }],
    }
}

fn world() -> World {
    let mut w = test_world(CloudId::Aws, AWS, "");
    w.catalog.gpu_metadata = vec![crate::catalog::GpuMetadata {
        gpu: "V100".into(),
        memory_gb: 16.0,
        manufacturer: "NVIDIA".into(),
    }];
    w
}

fn places(offers: &[Offer]) -> Vec<String> {
    offers
        .iter()
        .map(|o| {
            format!(
                "{} {} {}{} {}",
                o.instance_type,
                o.region.as_deref().unwrap_or("-"),
                o.zone.as_deref().unwrap_or("-"),
                if o.use_spot { " spot" } else { "" },
                o.price
            )
        })
        .collect()
}

#[test]
fn every_candidate_in_every_region_not_only_the_cheapest() {
    let out = enumerate(
        &world(),
        &task(vec![gpu_request("V100:1")], 1),
        Market::AsRequested,
    );
    assert_eq!(out.len(), 1);
    // The launch keeps only p.small (the cheapest); offers lists both
    // types, on-demand per region as the launch places them.
    assert_eq!(
        places(&out[0].offers),
        [
            "p.small us-east-1 - 3",
            "p.small us-west-2 - 3.2",
            "p.big us-east-1 - 4"
        ]
    );
    let o = &out[0].offers[0];
    assert_eq!(o.accelerator.as_deref(), Some("V100"));
    assert_eq!(o.gpu_memory_gb, Some(16.0));
    assert_eq!((o.vcpus, o.memory_gb), (Some(8.0), Some(61.0)));
}

#[test]
fn spot_offers_are_per_zone_and_any_market_lists_both() {
    let mut spot = gpu_request("V100:1");
    spot.use_spot = true;
    let out = enumerate(&world(), &task(vec![spot], 1), Market::AsRequested);
    assert_eq!(
        places(&out[0].offers),
        [
            "p.small us-east-1 us-east-1a spot 0.9",
            "p.small us-east-1 us-east-1b spot 1",
            "p.small us-west-2 us-west-2a spot 1.1",
            "p.big us-east-1 us-east-1a spot 1.5",
            "p.big us-east-1 us-east-1b spot 1.6"
        ]
    );
    let both = enumerate(&world(), &task(vec![gpu_request("V100:1")], 1), Market::Any);
    let offers = &both[0].offers;
    assert_eq!(offers.len(), 8);
    assert_eq!(offers.iter().filter(|o| o.use_spot).count(), 5);
    // On-demand first, then spot (the enumeration order).
    assert!(!offers[0].use_spot && offers[7].use_spot);
}

#[test]
fn prices_cover_every_node_and_gpu_price_every_gpu() {
    let out = enumerate(
        &world(),
        &task(vec![gpu_request("V100:1")], 3),
        Market::AsRequested,
    );
    let o = &out[0].offers[0];
    assert_eq!(o.price, 9.0);
    assert_eq!(o.total_gpus(), Some(3.0));
    assert_eq!(o.gpu_price(), Some(3.0));
    assert_eq!(o.total_gpu_memory_gb(), Some(16.0));
}

#[test]
fn overlapping_any_of_entries_are_one_offer_each() {
    let pinned = Resources {
        instance_type: Some("p.small".into()),
        ..gpu_request("V100:1")
    };
    let out = enumerate(
        &world(),
        &task(vec![gpu_request("V100:1"), pinned], 1),
        Market::AsRequested,
    );
    assert_eq!(out[0].offers.len(), 3);
    assert!(out[0].offers.iter().all(|o| o.request_index == 0));
}

#[test]
fn a_disabled_cloud_offers_nothing() {
    let r = Resources {
        cloud: Some(CloudId::Gcp),
        ..gpu_request("V100:1")
    };
    let out = enumerate(&world(), &task(vec![r], 1), Market::AsRequested);
    assert!(out[0].offers.is_empty());
}

#[test]
fn a_request_without_accelerators_lists_cpu_offers_without_gpu_price() {
    // (A plain CPU request reads the default families, which this
    // catalog lacks: name the type.)
    let r = Resources {
        instance_type: Some("c.cpu".into()),
        ..Resources::default()
    };
    let out = enumerate(&world(), &task(vec![r], 1), Market::AsRequested);
    let cpu: Vec<&Offer> = out[0]
        .offers
        .iter()
        .filter(|o| o.instance_type == "c.cpu")
        .collect();
    assert_eq!(cpu.len(), 1, "{:?}", places(&out[0].offers));
    assert_eq!(cpu[0].gpu_price(), None);
    assert_eq!(cpu[0].total_gpu_memory_gb(), None);
}
