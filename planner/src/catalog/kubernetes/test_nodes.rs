//! Nodes for the tests of this module, built from `NodeList` JSON so that
//! they are exactly what [`parse_node_list`] makes of an API answer.

use super::{KubeNode, parse_node_list};

/// The one node in a `NodeList` whose only item is `json`.
pub(super) fn node(json: &str) -> KubeNode {
    let doc = format!(r#"{{"kind":"NodeList","items":[{json}]}}"#);
    parse_node_list(doc.as_bytes()).expect("parse").remove(0)
}

/// A node with `cpu`/`mem` as both capacity and allocatable. `labels`,
/// `capacity` and `allocatable` are extra JSON members (`capacity` and
/// `allocatable` start with a comma).
fn node_with(
    name: &str,
    labels: &str,
    cpu: &str,
    mem: &str,
    capacity: &str,
    allocatable: &str,
    ready: bool,
) -> KubeNode {
    let ready = if ready { "True" } else { "False" };
    node(&format!(
        r#"{{"metadata":{{"name":"{name}","labels":{{{labels}}}}},
           "status":{{"capacity":{{"cpu":"{cpu}","memory":"{mem}"{capacity}}},
                      "allocatable":{{"cpu":"{cpu}","memory":"{mem}"{allocatable}}},
                      "conditions":[{{"type":"Ready","status":"{ready}"}}]}}}}"#
    ))
}

/// A node with one accelerator label and `gpus` NVIDIA devices.
pub(super) fn gpu_node(
    name: &str,
    label: (&str, &str),
    gpus: u32,
    cpu: &str,
    mem: &str,
    ready: bool,
) -> KubeNode {
    let labels = format!(r#""{}":"{}""#, label.0, label.1);
    let gpus = format!(r#","nvidia.com/gpu":"{gpus}""#);
    node_with(name, &labels, cpu, mem, &gpus, &gpus, ready)
}

/// A ready node without labels or accelerators, with ephemeral storage if given.
pub(super) fn cpu_node(name: &str, cpu: &str, mem: &str, eph: Option<&str>) -> KubeNode {
    let eph = eph
        .map(|e| format!(r#","ephemeral-storage":"{e}""#))
        .unwrap_or_default();
    node_with(name, "", cpu, mem, &eph, "", true)
}
