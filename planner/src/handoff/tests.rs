//! The pinned task: what it holds, and that the optimizer, run again on it
//! (as SkyPilot runs its own), picks the row the plan chose.

use super::*;
use crate::catalog::{Catalog, CloudCatalog};
use crate::optimize::optimize;
use crate::task::parse_task_yaml;
use crate::world::World;

const AWS: &str = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone
p3.2xlarge,V100,1.0,8.0,61.0,,3.06,0.9,us-east-1,us-east-1a
p3.2xlarge,V100,1.0,8.0,61.0,,3.06,0.8,us-east-1,us-east-1b
p3.2xlarge,V100,1.0,8.0,61.0,,3.30,0.7,us-west-2,us-west-2a
g5.xlarge,A10G,1.0,4.0,16.0,,1.01,0.4,us-east-1,us-east-1a
m6i.xlarge,,,4.0,16.0,,0.19,0.08,us-east-1,us-east-1a
m6i.2xlarge,,,8.0,32.0,,0.38,0.16,us-east-1,us-east-1a
";

const LAMBDA: &str =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice
gpu_1x_a10,A10,1.0,30.0,200.0,0.75,us-east-1,,
gpu_1x_v100,V100,1.0,6.0,46.0,0.5,us-south-1,,
gpu_1x_v100,V100,1.0,6.0,46.0,0.5,us-west-1,,
";

fn world() -> World {
    let mut catalog = Catalog::new();
    for (cloud, csv) in [(CloudId::Aws, AWS), (CloudId::Lambda, LAMBDA)] {
        let (cat, warnings) = CloudCatalog::from_bytes(cloud, csv.as_bytes(), "test").unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        catalog.insert(cat);
    }
    World {
        catalog,
        enabled: vec![CloudId::Aws, CloudId::Lambda],
        kube_contexts: Vec::new(),
        kube_pricing: Default::default(),
        reservation_clouds: Vec::new(),
        sky_config: crate::config::parse_sky_config("", "config.yaml").unwrap(),
        ssh: Default::default(),
        slurm: Default::default(),
    }
}

fn plan_of(world: &World, text: &str) -> Plan {
    let mut dag = parse_task_yaml(text, "task.yaml", &world.catalog.gpu_metadata).unwrap();
    crate::validate::validate_dag(world, &mut dag).unwrap();
    optimize(world, &dag).result.unwrap()
}

fn yaml_source(text: &str) -> TaskSource {
    TaskSource::Yaml {
        path: "task.yaml".into(),
        text: text.into(),
    }
}

/// The chosen rows of a plan, as pins.
fn chosen(plan: &Plan) -> Vec<Pin> {
    plan.tasks.iter().map(|t| pin(&t.chosen)).collect()
}

/// Plans `text`, pins it, plans the pinned task again: the same rows win.
fn round_trip(text: &str) -> (Plan, Pinned) {
    let world = world();
    let plan = plan_of(&world, text);
    let pinned = pinned_task(&yaml_source(text), &plan).unwrap();
    let again = plan_of(&world, &pinned.yaml);
    assert_eq!(chosen(&again), chosen(&plan), "{}", pinned.yaml);
    (plan, pinned)
}

#[test]
fn a_gpu_task_is_pinned_to_the_table_rows_in_order_and_keeps_its_other_fields() {
    let text = "name: train\nsetup: pip install torch\nrun: python train.py\nenvs:\n  LR: '0.1'\nresources:\n  accelerators: V100\n  disk_size: 100\n  ports: 8080\n";
    let (plan, pinned) = round_trip(text);
    assert_eq!(plan.tasks[0].chosen.cloud, CloudId::Lambda);
    assert_eq!(
        pinned.yaml,
        "name: train
setup: pip install torch
run: python train.py
envs:
  LR: '0.1'
resources:
  ordered:
  - disk_size: 100
    ports: 8080
    infra: lambda/us-south-1
    instance_type: gpu_1x_v100
    accelerators: V100:1
    use_spot: false
  - disk_size: 100
    ports: 8080
    infra: aws/us-east-1
    instance_type: p3.2xlarge
    accelerators: V100:1
    use_spot: false
num_nodes: 1
"
    );
    assert_eq!(
        pinned.tasks[0].iter().map(Pin::infra).collect::<Vec<_>>(),
        ["lambda/us-south-1", "aws/us-east-1"]
    );
}

#[test]
fn spot_rows_are_pinned_to_their_zone() {
    let (_, pinned) =
        round_trip("resources:\n  accelerators: V100\n  use_spot: true\n  infra: aws\n");
    let pins = &pinned.tasks[0];
    assert_eq!(pins[0].infra(), "aws/us-west-2/us-west-2a");
    assert!(pins.iter().all(|p| p.use_spot));
    assert!(pinned.yaml.contains("use_spot: true"), "{}", pinned.yaml);
}

#[test]
fn multi_node_tasks_keep_their_node_count() {
    let (plan, pinned) = round_trip("num_nodes: 4\nresources:\n  cpus: 8+\n");
    assert_eq!(plan.tasks[0].num_nodes, 4);
    assert!(pinned.yaml.contains("num_nodes: 4"), "{}", pinned.yaml);
    assert!(pinned.yaml.contains("cpus: 8+"), "{}", pinned.yaml);
    assert_eq!(pinned.tasks[0][0].instance_type, "m6i.2xlarge");
}

#[test]
fn an_any_of_entry_s_own_fields_follow_its_rows() {
    let text = "resources:\n  disk_size: 64\n  any_of:\n    - accelerators: A10G\n      infra: aws/us-east-1\n      image_id: ami-a10g\n    - accelerators: A10\n      infra: lambda\n";
    let (plan, pinned) = round_trip(text);
    assert_eq!(plan.tasks[0].chosen.instance_type, "gpu_1x_a10");
    let doc: Value = serde_yaml_ng::from_str(&pinned.yaml).unwrap();
    let entries = doc["resources"]["ordered"].as_sequence().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0]["infra"], "lambda/us-east-1");
    assert_eq!(entries[0]["disk_size"], 64);
    assert!(entries[0].get("image_id").is_none());
    assert_eq!(entries[1]["instance_type"], "g5.xlarge");
    assert_eq!(entries[1]["image_id"], "ami-a10g");
    assert!(entries.iter().all(|e| e.get("any_of").is_none()));
}

#[test]
fn an_ordered_request_hands_over_its_first_feasible_entry_first() {
    let text = "resources:\n  ordered:\n    - accelerators: H100\n    - accelerators: A10G\n    - accelerators: V100\n";
    let (plan, pinned) = round_trip(text);
    assert_eq!(plan.tasks[0].chosen.instance_type, "g5.xlarge");
    assert_eq!(pinned.tasks[0][0].instance_type, "g5.xlarge");
}

#[test]
fn a_chain_pins_each_task() {
    let text =
        "name: prep\nresources:\n  cpus: 4\n---\nname: train\nresources:\n  accelerators: V100\n";
    let (plan, pinned) = round_trip(text);
    assert_eq!(plan.tasks.len(), 2);
    let docs: Vec<Value> = serde_yaml_ng::Deserializer::from_str(&pinned.yaml)
        .map(|d| serde::Deserialize::deserialize(d).unwrap())
        .collect();
    assert_eq!(docs.len(), 2);
    assert_eq!(docs[0]["name"], "prep");
    assert_eq!(
        docs[0]["resources"]["ordered"][0]["instance_type"],
        "m6i.xlarge"
    );
    assert_eq!(
        docs[1]["resources"]["ordered"][0]["instance_type"],
        "gpu_1x_v100"
    );
}

#[test]
fn a_chain_header_the_plan_has_no_task_for_is_kept_as_written() {
    let world = world();
    let plan = plan_of(
        &world,
        "name: prep\nresources:\n  cpus: 4\n---\nname: train\nresources:\n  accelerators: V100\n",
    );
    let text = "name: pipeline\n---\nname: prep\nresources:\n  cpus: 4\n---\nname: train\nresources:\n  accelerators: V100\n";
    let pinned = pinned_task(&yaml_source(text), &plan).unwrap();
    assert!(
        pinned.yaml.starts_with("name: pipeline\n---\nname: prep\n"),
        "{}",
        pinned.yaml
    );
}

#[test]
fn a_command_becomes_the_task_skypilot_s_cli_makes_of_it() {
    let world = world();
    let plan = plan_of(&world, "resources:\n  accelerators: A10G\n");
    let pinned = pinned_task(&TaskSource::Command("python x.py".into()), &plan).unwrap();
    assert!(
        pinned
            .yaml
            .starts_with("name: sky-cmd\nrun: python x.py\nresources:\n"),
        "{}",
        pinned.yaml
    );
    let flags = pinned_task(&TaskSource::Flags, &plan).unwrap();
    assert!(!flags.yaml.contains("run:"), "{}", flags.yaml);
}

#[test]
fn the_list_is_capped() {
    let world = world();
    let mut plan = plan_of(&world, "resources:\n  accelerators: V100\n");
    let row = plan.tasks[0].table_rows[1].clone();
    plan.tasks[0].table_rows = (0..10)
        .map(|i| {
            let mut r = row.clone();
            r.instance_type = format!("t{i}");
            r
        })
        .collect();
    assert_eq!(pins(&plan.tasks[0]).len(), MAX_PINNED);
}

#[test]
fn a_file_that_does_not_match_the_plan_is_an_error() {
    let world = world();
    let plan = plan_of(&world, "resources:\n  cpus: 4\n");
    let err = pinned_task(&yaml_source("run: a\n---\nrun: b\n"), &plan).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the task YAML task.yaml has 2 task documents but the plan has 1 tasks"
    );
    let err = pinned_task(&yaml_source("a: [\n"), &plan).unwrap_err();
    assert!(matches!(err, HandoffError::Yaml { .. }), "{err}");
}

#[test]
fn infra_strings_are_skypilot_s() {
    let p = |cloud, region: Option<&str>, zone: Option<&str>| Pin {
        cloud,
        region: region.map(Into::into),
        zone: zone.map(Into::into),
        instance_type: String::new(),
        accelerators: None,
        use_spot: false,
        cost: 0.0,
    };
    assert_eq!(
        p(CloudId::Aws, Some("us-east-1"), None).infra(),
        "aws/us-east-1"
    );
    assert_eq!(
        p(CloudId::Gcp, Some("us-central1"), Some("us-central1-a")).infra(),
        "gcp/us-central1/us-central1-a"
    );
    assert_eq!(
        p(CloudId::Kubernetes, Some("kind-a"), None).infra(),
        "kubernetes/kind-a"
    );
    assert_eq!(p(CloudId::Ssh, Some("ssh-lab"), None).infra(), "ssh/lab");
}
