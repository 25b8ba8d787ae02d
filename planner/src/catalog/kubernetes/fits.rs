//! Whether a virtual instance type fits on a context's nodes, with SkyPilot's
//! reasons when it does not.
//!
//! SkyPilot 0.14.1's `sky/provision/kubernetes/utils.py::check_instance_fits`
//! (and `get_accelerator_label_key_values` for the node label that selects
//! the accelerator), without autoscalers. The error texts are SkyPilot's,
//! byte for byte: the optimizer shows them.

use std::borrow::Cow;

use super::instance_type::KubeInstanceType;
use super::labels::{
    GKE_TPU_LABEL, GKE_TPU_TOPOLOGY_LABEL, LabelFormatter, accelerator_name_matches, is_tpu_on_gke,
    normalize_tpu_accelerator_name,
};
#[cfg(doc)]
use super::nodes::detect_label_formatter;
use super::nodes::{
    AMD_GPU_KEY, KubeNode, NEURON_RESOURCE_KEY, NVIDIA_GPU_KEY, TPU_RESOURCE_KEY, TpuSlice,
    gpu_resource_key, reduce_tpu_topology,
};
use crate::pytext::{format_float, py_float_str, py_num, py_str_repr};

/// Finds the label key/value that selects nodes with `acc` (SkyPilot's
/// `get_accelerator_label_key_values` without an autoscaler). `gpu_key` is
/// [`gpu_resource_key`] of `nodes`.
///
/// Every context is asked twice per launch (feasibility, then the
/// launchable's regions), so the label scans are single passes: the
/// formatter from one pass over the labels ([`label_formatter`]), and a
/// value repeated on the next node is not validated or matched again.
fn accelerator_label<'a>(
    nodes: &'a [KubeNode],
    gpu_key: &str,
    acc: &str,
    count: u32,
) -> Result<(&'a str, &'a str), String> {
    let cloud_name = "Kubernetes cluster";
    let has_accelerators = nodes.iter().any(|n| {
        [gpu_key, TPU_RESOURCE_KEY, NEURON_RESOURCE_KEY]
            .iter()
            .any(|k| n.accelerator_resources.contains_key(*k))
    });
    if !has_accelerators {
        return Err(format!(
            "Could not detect GPU/TPU resources ('{AMD_GPU_KEY}', '{NVIDIA_GPU_KEY}' or \
             '{TPU_RESOURCE_KEY}') in Kubernetes cluster. If this cluster contains GPUs, please \
             ensure GPU drivers are installed on the node. Check if the GPUs are setup correctly by \
             running `kubectl describe nodes` and looking for the '{AMD_GPU_KEY}', \
             '{NVIDIA_GPU_KEY}' or '{TPU_RESOURCE_KEY}' resource. Please refer to the \
             documentation on how to set up GPUs."
        ));
    }
    let Some(lf) = label_formatter(nodes) else {
        return Err(format!(
            "Could not detect GPU labels in {cloud_name}. Run `sky check ssh` to debug."
        ));
    };
    // Validation is a pure function of the value: a value already found
    // valid is valid on the next node too.
    let mut valid: Option<&str> = None;
    for node in nodes {
        for (k, v) in &node.labels {
            if !lf.matches_key(k) || valid == Some(v.as_str()) {
                continue;
            }
            if let Err(reason) = lf.validate(v) {
                return Err(format!(
                    "Node {} in {cloud_name} has invalid GPU label: {k}={v}. {reason}",
                    py_str_repr(&node.name)
                ));
            }
            valid = Some(v);
        }
    }
    let wants_tpu = is_tpu_on_gke(acc);
    // The last value looked at and whether it names `acc`.
    let mut seen: Option<(&str, bool)> = None;
    for node in nodes {
        if node.tpu.as_ref().is_some_and(TpuSlice::is_multi_host) {
            continue;
        }
        for (k, v) in &node.labels {
            if !lf.matches_key(k) {
                continue;
            }
            let names_acc = match seen {
                Some((value, names_acc)) if value == v => names_acc,
                _ => {
                    let names_acc = lf
                        .accelerator_from_value(v)
                        .is_ok_and(|name| accelerator_name_matches(acc, &[v.as_str(), &name]));
                    seen = Some((v, names_acc));
                    names_acc
                }
            };
            if !names_acc {
                continue;
            }
            if wants_tpu {
                let topology_chips = node
                    .labels
                    .get(GKE_TPU_LABEL)
                    .filter(|t| t.as_str() == acc)
                    .and_then(|_| node.labels.get(GKE_TPU_TOPOLOGY_LABEL))
                    .and_then(|t| reduce_tpu_topology(t));
                if topology_chips == Some(count) {
                    return Ok((k, v));
                }
                continue;
            }
            return Ok((k, v));
        }
    }
    Err(format!(
        "Could not find any node in the {cloud_name} with {acc}. Please ensure at least one node in \
         the cluster has {acc} and node labels are setup correctly. Please refer to the \
         documentation for more. . Note that multi-host TPU podslices are currently not unsupported."
    ))
}

/// SkyPilot's `detect_gpu_label_formatter` ([`detect_label_formatter`]) in
/// one pass over the labels: each formatter's first non-empty label (in
/// node, then key order) decides for it, and the first formatter in
/// [`LabelFormatter::REGISTRY`] order whose value validates wins.
fn label_formatter(nodes: &[KubeNode]) -> Option<LabelFormatter> {
    let mut first: [Option<&str>; LabelFormatter::REGISTRY.len()] =
        [None; LabelFormatter::REGISTRY.len()];
    for node in nodes {
        for (k, v) in &node.labels {
            let Some(lf) = LabelFormatter::of_key(k) else {
                continue;
            };
            let slot = &mut first[lf.priority()];
            if slot.is_none() && !v.trim().is_empty() {
                *slot = Some(v);
            }
        }
    }
    LabelFormatter::REGISTRY
        .into_iter()
        .find(|lf| first[lf.priority()].is_some_and(|v| lf.validate(v).is_ok()))
}

/// Whether `instance` fits on some node of a context (SkyPilot's
/// `check_instance_fits`); the error is SkyPilot's reason text.
///
/// A node qualifies when it is ready, carries the accelerator label that
/// SkyPilot selects for the requested accelerator (with ≥ n allocatable
/// devices; TPUs: exactly n chips on a single-host slice), and its capacity
/// has CPU ≥ cpus, memory ≥ mem and, when `disk_size_gib` is given (the user
/// set `disk_size` explicitly), ephemeral storage ≥ disk.
pub fn fits(
    instance: &KubeInstanceType,
    nodes: &[KubeNode],
    disk_size_gib: Option<f64>,
) -> Result<(), String> {
    // The candidate nodes, and the name the "not enough" message uses
    // (the TPU type for TPUs; `None` for CPU-only requests).
    let (candidates, acc_name): (Vec<&KubeNode>, Option<Cow<'_, str>>) = match &instance.accelerator
    {
        Some((acc, count)) => {
            let gpu_key = gpu_resource_key(nodes);
            let (key, value) = accelerator_label(nodes, gpu_key, acc, *count)?;
            let gpu_nodes: Vec<&KubeNode> = nodes
                .iter()
                .filter(|n| n.ready && n.labels.get(key).is_some_and(|v| v == value))
                .collect();
            if gpu_nodes.is_empty() {
                return Err(format!(
                    "No ready GPU nodes found with {acc} on the cluster"
                ));
            }
            if is_tpu_on_gke(acc) {
                let (tpu_type, _) = normalize_tpu_accelerator_name(acc);
                check_tpu_fits(&tpu_type, *count, &gpu_nodes)?;
                (gpu_nodes, Some(Cow::Owned(tpu_type)))
            } else {
                let enough: Vec<&KubeNode> = gpu_nodes
                    .into_iter()
                    .filter(|n| n.accelerator_count_for(gpu_key) >= *count)
                    .collect();
                if enough.is_empty() {
                    return Err(format!("No GPU nodes found with {count} or more GPUs."));
                }
                (enough, Some(Cow::Borrowed(acc.as_str())))
            }
        }
        None => {
            let ready: Vec<&KubeNode> = nodes.iter().filter(|n| n.ready).collect();
            if ready.is_empty() {
                return Err("No ready nodes found in the cluster.".to_string());
            }
            (ready, None)
        }
    };
    let (mut max_cpu, mut max_mem, mut max_eph) = (0.0f64, 0.0f64, 0.0f64);
    for node in candidates {
        // SkyPilot rounds millicore capacities up (`parse_cpu_or_gpu_resource`).
        let node_cpus = node.cpu_capacity.ceil();
        let node_eph = node.ephemeral_storage_gib.unwrap_or(0.0);
        if node_cpus > max_cpu {
            (max_cpu, max_mem, max_eph) = (node_cpus, node.memory_capacity_gib, node_eph);
        }
        if node_cpus >= instance.cpus
            && node.memory_capacity_gib >= instance.memory_gib
            && disk_size_gib.is_none_or(|d| node_eph >= d)
        {
            return Ok(());
        }
    }
    // The message is built only when nothing fits: every candidate context
    // is checked on every launch, and most fit.
    let eph_reason = disk_size_gib
        .map(|d| format!(" and/or ephemeral storage (>= {} G)", py_num(d)))
        .unwrap_or_default();
    let cpus = py_float_str(instance.cpus);
    let mem = py_float_str(instance.memory_gib);
    let prefix = match acc_name {
        Some(acc_name) => format!(
            "GPU nodes with {acc_name} do not have enough CPU (>= {cpus} CPUs) and/or memory \
             (>= {mem} G){eph_reason}. "
        ),
        None => format!(
            "No nodes found with enough CPU (>= {cpus} CPUs) and/or memory (>= {mem} G){eph_reason}. "
        ),
    };
    Err(format!(
        "{prefix}Maximum resources found on a single node: {} CPUs, {}G Memory, {}G Ephemeral Storage",
        py_float_str(max_cpu),
        format_float(max_mem),
        format_float(max_eph)
    ))
}

fn check_tpu_fits(tpu_type: &str, count: u32, nodes: &[&KubeNode]) -> Result<(), String> {
    let mut found = Vec::new();
    for node in nodes {
        let Some(tpu) = &node.tpu else { continue };
        if tpu.accelerator != tpu_type || tpu.is_multi_host() {
            continue;
        }
        found.push(format!("{tpu_type}:{}", tpu.chips));
        if tpu.chips == count {
            return Ok(());
        }
    }
    Err(format!(
        "Requested TPU type was not found in the cluster. TPU types found in the cluster: {}. Note \
         that multi-host TPU podslices are currently not unsupported.",
        found.join(",")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::kubernetes::detect_label_formatter;
    use crate::catalog::kubernetes::test_nodes::{cpu_node, gpu_node, node};

    type FitsCase<'a> = (&'a str, &'a [KubeNode], Option<f64>, Result<(), &'a str>);

    #[test]
    fn fits_cases() {
        let h100 = gpu_node(
            "h100",
            ("skypilot.co/accelerator", "h100"),
            8,
            "96",
            "1024Gi",
            true,
        );
        let a100 = gpu_node(
            "a100",
            ("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB"),
            4,
            "48",
            "256Gi",
            true,
        );
        let t4_down = gpu_node(
            "t4",
            ("skypilot.co/accelerator", "t4"),
            1,
            "8",
            "32Gi",
            false,
        );
        let cpu = cpu_node("cpu", "8", "32Gi", Some("100Gi"));
        let gfd_cluster = vec![a100.clone(), cpu.clone()];
        let sky_cluster = vec![h100.clone(), t4_down.clone(), cpu.clone()];
        let cpu_cluster = vec![cpu.clone()];
        let it = |s: &str| s.parse::<KubeInstanceType>().expect(s);
        let cases: Vec<FitsCase> = vec![
            ("2CPU--2GB", &cpu_cluster, None, Ok(())),
            ("8CPU--32GB", &cpu_cluster, None, Ok(())),
            ("8CPU--32GB", &cpu_cluster, Some(100.0), Ok(())),
            (
                "8CPU--32GB",
                &cpu_cluster,
                Some(256.0),
                Err(
                    "No nodes found with enough CPU (>= 8.0 CPUs) and/or memory (>= 32.0 G) and/or ephemeral storage (>= 256 G). Maximum resources found on a single node: 8.0 CPUs, 32G Memory, 100G Ephemeral Storage",
                ),
            ),
            (
                "16CPU--16GB",
                &cpu_cluster,
                None,
                Err(
                    "No nodes found with enough CPU (>= 16.0 CPUs) and/or memory (>= 16.0 G). Maximum resources found on a single node: 8.0 CPUs, 32G Memory, 100G Ephemeral Storage",
                ),
            ),
            (
                "2CPU--2GB",
                &[],
                None,
                Err("No ready nodes found in the cluster."),
            ),
            ("4CPU--16GB--H100:1", &sky_cluster, None, Ok(())),
            ("32CPU--128GB--H100:8", &sky_cluster, None, Ok(())),
            ("4CPU--16GB--h100:1", &sky_cluster, None, Ok(())),
            (
                "4CPU--16GB--H100:16",
                &sky_cluster,
                None,
                Err("No GPU nodes found with 16 or more GPUs."),
            ),
            (
                "128CPU--16GB--H100:1",
                &sky_cluster,
                None,
                Err(
                    "GPU nodes with H100 do not have enough CPU (>= 128.0 CPUs) and/or memory (>= 16.0 G). Maximum resources found on a single node: 96.0 CPUs, 1024G Memory, 0G Ephemeral Storage",
                ),
            ),
            (
                "4CPU--16GB--T4:1",
                &sky_cluster,
                None,
                Err("No ready GPU nodes found with T4 on the cluster"),
            ),
            ("4CPU--16GB--A100:1", &gfd_cluster, None, Ok(())),
            (
                "4CPU--16GB--A100-80GB:1",
                &gfd_cluster,
                None,
                Err(
                    "Could not find any node in the Kubernetes cluster with A100-80GB. Please ensure at least one node in the cluster has A100-80GB and node labels are setup correctly. Please refer to the documentation for more. . Note that multi-host TPU podslices are currently not unsupported.",
                ),
            ),
            (
                "4CPU--16GB--T4:1",
                &cpu_cluster,
                None,
                Err(
                    "Could not detect GPU/TPU resources ('amd.com/gpu', 'nvidia.com/gpu' or 'google.com/tpu') in Kubernetes cluster. If this cluster contains GPUs, please ensure GPU drivers are installed on the node. Check if the GPUs are setup correctly by running `kubectl describe nodes` and looking for the 'amd.com/gpu', 'nvidia.com/gpu' or 'google.com/tpu' resource. Please refer to the documentation on how to set up GPUs.",
                ),
            ),
        ];
        for (name, nodes, disk, want) in cases {
            assert_eq!(
                fits(&it(name), nodes, disk),
                want.map_err(str::to_string),
                "{name} disk={disk:?}"
            );
        }
        let unlabeled = vec![node(
            r#"{"metadata":{"name":"g"},"status":{"capacity":{"cpu":"8","memory":"8Gi"},"allocatable":{"nvidia.com/gpu":"1"},"conditions":[{"type":"Ready","status":"True"}]}}"#,
        )];
        assert_eq!(
            fits(&it("4CPU--16GB--T4:1"), &unlabeled, None),
            Err(
                "Could not detect GPU labels in Kubernetes cluster. Run `sky check ssh` to debug."
                    .into()
            )
        );
    }

    #[test]
    fn one_pass_formatter_agrees_with_detect_label_formatter() {
        let labelled = |name: &str, labels: &[(&str, &str)]| {
            let labels: Vec<String> = labels.iter().map(|(k, v)| format!("{k:?}:{v:?}")).collect();
            node(&format!(
                r#"{{"metadata":{{"name":"{name}","labels":{{{}}}}},"status":{{"capacity":{{"cpu":"8","memory":"8Gi"}},"allocatable":{{"nvidia.com/gpu":"1"}}}}}}"#,
                labels.join(",")
            ))
        };
        let labels: [(&str, &str); 12] = [
            ("skypilot.co/accelerator", "h100"),
            ("skypilot.co/accelerator", "H100"),
            ("skypilot.co/accelerator", " "),
            ("cloud.google.com/gke-accelerator", "nvidia-tesla-t4"),
            ("cloud.google.com/gke-accelerator", "bogus"),
            (
                "cloud.google.com/gke-tpu-accelerator",
                "tpu-v5-lite-podslice",
            ),
            ("karpenter.k8s.aws/instance-gpu-name", "a10g"),
            ("karpenter.k8s.aws/instance-accelerator-name", "Inferentia"),
            ("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"),
            ("gpu.nvidia.com/class", "H100_NVLINK_80GB"),
            ("nebius.com/gpu-name", "h100"),
            ("kubernetes.io/hostname", "n"),
        ];
        // Every pair of labels on one node, and split over two nodes.
        for a in labels {
            for b in labels {
                let one = [labelled("n0", &[a, b])];
                let two = [labelled("n0", &[a]), labelled("n1", &[b])];
                for nodes in [&one[..], &two[..]] {
                    assert_eq!(
                        label_formatter(nodes),
                        detect_label_formatter(nodes),
                        "{a:?} {b:?} on {} node(s)",
                        nodes.len()
                    );
                }
            }
        }
        assert_eq!(label_formatter(&[]), None);
    }

    #[test]
    fn fits_tpu() {
        let tpu = |name: &str, topo: &str, chips: &str| {
            node(&format!(
                r#"{{"metadata":{{"name":"{name}","labels":{{"cloud.google.com/gke-tpu-accelerator":"tpu-v5-lite-podslice",
                   "cloud.google.com/gke-tpu-topology":"{topo}","cloud.google.com/gke-accelerator-count":"{chips}"}}}},
                   "status":{{"capacity":{{"cpu":"24","memory":"48Gi"}},"allocatable":{{"google.com/tpu":"{chips}"}},
                   "conditions":[{{"type":"Ready","status":"True"}}]}}}}"#
            ))
        };
        let nodes = vec![tpu("single", "2x2", "4"), tpu("multi", "4x4", "4")];
        assert!(nodes[1].tpu.as_ref().is_some_and(TpuSlice::is_multi_host));
        let it = |s: &str| s.parse::<KubeInstanceType>().expect(s);
        assert_eq!(
            fits(&it("8CPU--32GB--tpu-v5-lite-podslice:4"), &nodes, None),
            Ok(())
        );
        assert!(fits(&it("8CPU--32GB--tpu-v5-lite-podslice:16"), &nodes, None).is_err());
        assert_eq!(
            nodes[0].accelerator.as_deref(),
            Some("tpu-v5-lite-podslice")
        );
    }
}
