//! The explanation of small worlds: each reason a cloud can have, ties,
//! the chosen locations, `ordered` lists and chains.

use super::*;
use crate::assemble::Absence;
use crate::catalog::CloudCatalog;
use crate::feasibility::gpu_request;
use crate::optimize::optimize;
use crate::task::Dag;

const HEADER: &str = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Region,SpotPrice,Price\n";

/// Lambda: A100 in two regions at one price, H100 dearer. Fluidstack: A100
/// dearer. RunPod: A100 as cheap as Lambda, but only in one region.
fn world(enabled: &[CloudId]) -> World {
    let lambda = format!(
        "{HEADER}gpu_1x_a100,A100,1,30,200,,us-east-1,,1.29\ngpu_1x_a100,A100,1,30,200,,us-west-1,,1.29\ngpu_1x_h100,H100,1,26,200,,us-east-1,,2.49\n"
    );
    let mut world = crate::feasibility::test_world(CloudId::Lambda, &lambda, "");
    for (cloud, csv) in [
        (
            CloudId::Fluidstack,
            format!(
                "{HEADER}A100_PCIE_80GB::1,A100-80GB,1,28,120,,CANADA,,2.10\nH100_1x,H100,1,24,180,,CANADA,,2.89\n"
            ),
        ),
        (
            CloudId::Runpod,
            format!("{HEADER}1x_A100_SECURE,A100,1,16,117,,CA,0.89,1.29\n"),
        ),
    ] {
        let (cat, warnings) = CloudCatalog::from_bytes(cloud, csv.as_bytes(), "test").unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        world.catalog.insert(cat);
    }
    world.enabled = enabled.to_vec();
    world
}

fn task(resources: Vec<Resources>) -> Task {
    Task {
        name: Some("t".into()),
        resources: ResourceSet::AnyOf(resources),
        ..Default::default()
    }
}

fn explained(world: &World, absent: &[Absent], t: Task) -> TaskExplanation {
    let dag = Dag {
        tasks: vec![t.clone()],
    };
    let optimized = optimize(world, &dag);
    let plan = optimized.result.as_ref().ok().map(|p| &p.tasks[0]);
    explain_task(world, absent, &t, plan)
}

fn verdict(e: &TaskExplanation, cloud: CloudId) -> &Verdict {
    &e.clouds
        .iter()
        .find(|v| v.cloud == cloud)
        .unwrap_or_else(|| panic!("{cloud:?} not listed: {e:#?}"))
        .verdict
}

const ALL3: [CloudId; 3] = [CloudId::Lambda, CloudId::Fluidstack, CloudId::Runpod];

#[test]
fn equal_prices_are_decided_by_enumeration_order() {
    let e = explained(&world(&ALL3), &[], task(vec![gpu_request("A100:1")]));
    let chosen = e.chosen.as_ref().unwrap();
    assert_eq!(chosen.cloud, CloudId::Lambda);
    assert_eq!(chosen.region.as_deref(), Some("us-east-1"));
    // Chosen first, then the offers by price, then the clouds without one.
    assert_eq!(
        e.clouds.iter().map(|v| v.cloud).collect::<Vec<_>>(),
        vec![CloudId::Lambda, CloudId::Runpod, CloudId::Fluidstack]
    );
    match verdict(&e, CloudId::Runpod) {
        Verdict::Offer(o) => {
            assert_eq!(o.gap, Some(0.0));
            assert_eq!(o.cheapest.instance_type, "1x_A100_SECURE");
        }
        other => panic!("{other:?}"),
    }
    let l = e.locations.as_ref().unwrap();
    assert!(l.tie, "{l:?}");
    assert_eq!(l.total, 2);
    assert_eq!(l.cheapest[0].region.as_deref(), Some("us-east-1"));
    assert_eq!(l.cheapest[1].region.as_deref(), Some("us-west-1"));
}

#[test]
fn an_accelerator_a_cloud_lacks_is_named_with_its_close_offers() {
    let e = explained(&world(&ALL3), &[], task(vec![gpu_request("A100:1")]));
    match verdict(&e, CloudId::Fluidstack) {
        Verdict::Nothing(Reason::AcceleratorNotOffered {
            accelerator,
            did_you_mean,
        }) => {
            assert_eq!(accelerator, "A100:1");
            assert_eq!(did_you_mean, &vec!["A100-80GB:1".to_string()]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_price_gap_is_the_offer_less_the_chosen_row() {
    let e = explained(&world(&ALL3), &[], task(vec![gpu_request("H100:1")]));
    assert_eq!(e.chosen.as_ref().unwrap().cloud, CloudId::Lambda);
    match verdict(&e, CloudId::Fluidstack) {
        Verdict::Offer(o) => assert!((o.gap.unwrap() - 0.40).abs() < 1e-9, "{o:?}"),
        other => panic!("{other:?}"),
    }
    let l = e.locations.as_ref().unwrap();
    assert!(!l.tie);
    assert_eq!(l.total, 1);
}

#[test]
fn a_region_pin_names_the_cheapest_launchable_without_it() {
    let mut r = gpu_request("A100:1");
    r.cloud = Some(CloudId::Runpod);
    r.region = Some("US".into());
    let mut other = gpu_request("A100:1");
    other.cloud = Some(CloudId::Lambda);
    other.region = Some("us-west-1".into());
    let e = explained(&world(&ALL3), &[], task(vec![r, other]));
    assert_eq!(e.chosen.as_ref().unwrap().cloud, CloudId::Lambda);
    match verdict(&e, CloudId::Runpod) {
        Verdict::Nothing(Reason::LocationPin {
            region, elsewhere, ..
        }) => {
            assert_eq!(region.as_deref(), Some("US"));
            let c = elsewhere.as_ref().unwrap();
            assert_eq!(c.region.as_deref(), Some("CA"));
        }
        other => panic!("{other:?}"),
    }
    // Fluidstack is named by no resource.
    match verdict(&e, CloudId::Fluidstack) {
        Verdict::Nothing(Reason::PinnedElsewhere { pinned }) => assert_eq!(
            pinned,
            &vec![
                (CloudId::Runpod, Some("US".to_string())),
                (CloudId::Lambda, Some("us-west-1".to_string()))
            ]
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn spot_and_the_price_ceiling_are_reasons_of_their_own() {
    let mut r = gpu_request("A100:1");
    r.use_spot = true;
    let e = explained(&world(&ALL3), &[], task(vec![r]));
    assert_eq!(e.chosen.as_ref().unwrap().cloud, CloudId::Runpod);
    match verdict(&e, CloudId::Lambda) {
        Verdict::Nothing(Reason::Refused {
            refusal: Refusal::Unsupported(features),
        }) => assert_eq!(features[0].0, crate::cloud::Feature::SpotInstance),
        other => panic!("{other:?}"),
    }
    let mut r = gpu_request("H100:1");
    r.max_hourly_cost = Some(2.0);
    let e = explained(&world(&ALL3), &[], task(vec![r]));
    assert!(e.chosen.is_none());
    assert!(e.locations.is_none());
    match verdict(&e, CloudId::Lambda) {
        Verdict::Nothing(Reason::OverMaxHourlyCost {
            max_hourly_cost,
            cheapest,
        }) => {
            assert_eq!(*max_hourly_cost, 2.0);
            assert_eq!(cheapest.as_ref().unwrap().instance_type, "gpu_1x_h100");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn clouds_left_out_keep_the_assemblys_reason() {
    let absent = vec![
        Absent {
            cloud: CloudId::Runpod,
            why: Absence::NoCredentials("RunPod credentials not found.".into()),
        },
        Absent {
            cloud: CloudId::Aws,
            why: Absence::NotInAllowedClouds,
        },
    ];
    let e = explained(
        &world(&[CloudId::Lambda, CloudId::Fluidstack]),
        &absent,
        task(vec![gpu_request("A100:1")]),
    );
    assert_eq!(
        e.clouds.iter().map(|v| v.cloud).collect::<Vec<_>>(),
        vec![
            CloudId::Lambda,
            CloudId::Fluidstack,
            CloudId::Runpod,
            CloudId::Aws
        ]
    );
    assert!(matches!(
        verdict(&e, CloudId::Runpod),
        Verdict::Nothing(Reason::LeftOut {
            why: Absence::NoCredentials(_)
        })
    ));
}

#[test]
fn an_ordered_list_loses_later_entries_on_order_not_price() {
    let t = Task {
        name: None,
        resources: ResourceSet::Ordered(vec![gpu_request("H100:1"), gpu_request("A100:1")]),
        ..Default::default()
    };
    let e = explained(&world(&ALL3), &[], t);
    assert!(e.ordered);
    let chosen = e.chosen.as_ref().unwrap();
    assert_eq!(chosen.instance_type, "gpu_1x_h100");
    // RunPod has only A100s: a later entry, cheaper.
    match verdict(&e, CloudId::Runpod) {
        Verdict::Offer(o) => {
            assert!(o.later_ordered_entry, "{o:?}");
            assert!(o.gap.unwrap() < 0.0);
        }
        other => panic!("{other:?}"),
    }
}

/// A task whose inputs are `gigabytes` in `path`, asking A100:1 of Lambda
/// (the cheapest per hour) and AWS (dearer), explained whole.
fn with_inputs(path: &str, gigabytes: f64) -> (TaskExplanation, Vec<String>) {
    let mut w = world(&[CloudId::Lambda, CloudId::Aws]);
    let aws = format!("{HEADER}a100.xlarge,A100,1,8,64,,us-east-1,,2.00\n");
    let (cat, warnings) = CloudCatalog::from_bytes(CloudId::Aws, aws.as_bytes(), "test").unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    w.catalog.insert(cat);
    let mut t = task(vec![gpu_request("A100:1")]);
    t.spec.inputs = Some(crate::task::DataSize {
        path: path.into(),
        gigabytes,
        shown: format!("{gigabytes}"),
    });
    let dag = Dag { tasks: vec![t] };
    let optimized = optimize(&w, &dag);
    let plan = optimized.result.as_ref().ok();
    let e = explain(&w, &[], Some(&dag), plan);
    let text = crate::render::explain::text(&e);
    (e.tasks[0].clone(), text)
}

#[test]
fn egress_that_decided_the_row_is_named_with_its_figures() {
    // 1,000 GB in S3: Lambda is cheaper per hour but would pay AWS's egress.
    let (e, text) = with_inputs("s3://bucket/data", 1000.0);
    let chosen = e.chosen.as_ref().unwrap();
    assert_eq!(chosen.cloud, CloudId::Aws);
    let decision = e.egress.as_ref().expect("egress decided");
    assert_eq!(decision.chosen, 0.0);
    assert_eq!(decision.moves.len(), 1);
    assert!(decision.moves[0].inputs);
    assert_eq!(decision.moves[0].from, Some(CloudId::Aws));
    let theirs = crate::egress::egress_cost(CloudId::Aws, CloudId::Lambda, 1000.0);
    assert!(theirs > 0.0);
    match verdict(&e, CloudId::Lambda) {
        Verdict::Offer(o) => {
            assert!(o.gap.unwrap() < 0.0, "{o:?}");
            assert_eq!(o.egress, Some(theirs));
        }
        other => panic!("{other:?}"),
    }
    let text = crate::text::strip_ansi(&text.join("\n"));
    assert!(
        text.contains("chosen: the cheapest with its egress"),
        "{text}"
    );
    assert!(!text.contains("the cheapest launchable"), "{text}");
    assert!(!text.contains("Decided by price"), "{text}");
    assert!(
        text.contains("Decided by egress, not the hourly price: SkyPilot adds to each candidate's cost the egress of the task's data (1000 GB of inputs in AWS)."),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "The cheapest per hour, Lambda gpu_1x_a100 at $1.29, would pay ${:.2} of egress (${:.2} in all); AWS a100.xlarge pays $0.00 ($2.00 in all).",
            theirs,
            1.29 + theirs
        )),
        "{text}"
    );
}

#[test]
fn egress_every_cloud_pays_alike_decides_nothing() {
    // In GCS (not a candidate): both clouds pay the same egress, the
    // cheapest per hour wins and the explanation is the usual one.
    let (e, text) = with_inputs("gs://bucket/data", 1000.0);
    assert_eq!(e.chosen.as_ref().unwrap().cloud, CloudId::Lambda);
    assert!(e.egress.is_none());
    assert!(e.clouds.iter().all(|v| match &v.verdict {
        Verdict::Offer(o) => o.egress.is_none(),
        _ => true,
    }));
    let text = crate::text::strip_ansi(&text.join("\n"));
    assert!(text.contains("chosen: the cheapest launchable"), "{text}");
    assert!(!text.contains("egress"), "{text}");
}
