//! Whether a virtual instance type fits on a cluster's partition, with
//! SkyPilot's reasons when it does not.
//!
//! SkyPilot 0.14.1's `sky/provision/slurm/utils.py::check_instance_fits`,
//! `resolve_gres_gpu_type` and `_accelerator_name_matches_slurm`. The reason
//! texts are SkyPilot's (it logs them at debug level only).

use super::inventory::{SlurmNode, gpu_type_and_count};
use crate::catalog::kubernetes::KubeInstanceType;
use crate::pytext::{format_float, py_float_str, py_list, py_str_repr};

/// Vendor prefixes dropped before comparing GPU names (`_GPU_VENDOR_PREFIXES`).
const GPU_VENDOR_PREFIXES: [&str; 4] = ["nvidia", "amd", "intel", "tesla"];

/// `_normalize_gpu_name`: `nvidia_h100_80gb_hbm3` → `h100-80gb-hbm3`.
pub fn normalize_gpu_name(name: &str) -> String {
    let lowered = name.to_lowercase().replace('_', "-");
    for prefix in GPU_VENDOR_PREFIXES {
        if let Some(rest) = lowered.strip_prefix(&format!("{prefix}-")) {
            return rest.to_string();
        }
    }
    lowered
}

/// `_is_segment_subsequence`: `a`'s segments appear in order within `b`'s.
fn is_segment_subsequence(a: &[&str], b: &[&str]) -> bool {
    let mut rest = b.iter();
    a.iter().all(|seg| rest.any(|x| x == seg))
}

/// `_accelerator_name_matches_slurm`: whether a requested accelerator
/// (`H100`, `A100-80GB`) names a raw GRES type (`nvidia_h100_80gb_hbm3`).
pub fn accelerator_matches_gres(requested: &str, raw: &str) -> bool {
    if requested.to_lowercase() == raw.to_lowercase() {
        return true;
    }
    let req = normalize_gpu_name(requested);
    let cand = normalize_gpu_name(raw);
    if req == cand {
        return true;
    }
    let r: Vec<&str> = req.split('-').collect();
    let c: Vec<&str> = cand.split('-').collect();
    match r.len().cmp(&c.len()) {
        std::cmp::Ordering::Less => is_segment_subsequence(&r, &c),
        std::cmp::Ordering::Greater => is_segment_subsequence(&c, &r),
        std::cmp::Ordering::Equal => false,
    }
}

/// The nodes of `partition`, reading the default partition's `name*` as `name`.
fn in_partition<'a>(
    nodes: &'a [SlurmNode],
    default_partition: Option<&str>,
    partition: Option<&str>,
) -> Vec<&'a SlurmNode> {
    let Some(partition) = partition else {
        return nodes.iter().collect();
    };
    nodes
        .iter()
        .filter(|n| {
            let mut p = n.partition.as_str();
            if let Some(stripped) = p.strip_suffix('*')
                && Some(stripped) == default_partition
            {
                p = stripped;
            }
            p == partition
        })
        .collect()
}

/// `resolve_gres_gpu_type`: the raw GRES type the scheduler would be asked
/// for (exact name first, then the type on most nodes, then alphabetical);
/// the error is SkyPilot's `ResourcesUnavailableError` text.
pub fn resolve_gres_gpu_type(
    cluster: &str,
    nodes: &[SlurmNode],
    default_partition: Option<&str>,
    requested: &str,
    count: u32,
    partition: Option<&str>,
) -> Result<String, String> {
    let mut all_types: Vec<String> = Vec::new();
    let mut candidates: Vec<(String, usize)> = Vec::new();
    for node in in_partition(nodes, default_partition, partition) {
        let (Some(raw), n) = gpu_type_and_count(&node.gres) else {
            continue;
        };
        if !all_types.contains(&raw) {
            all_types.push(raw.clone());
        }
        if n < count || !accelerator_matches_gres(requested, &raw) {
            continue;
        }
        match candidates.iter_mut().find(|(t, _)| *t == raw) {
            Some((_, c)) => *c += 1,
            None => candidates.push((raw, 1)),
        }
    }
    let best = candidates.iter().min_by(|(a, na), (b, nb)| {
        let exact = |t: &str| t.to_lowercase() != requested.to_lowercase();
        (exact(a), std::cmp::Reverse(*na), a.as_str()).cmp(&(
            exact(b),
            std::cmp::Reverse(*nb),
            b.as_str(),
        ))
    });
    match best {
        Some((t, _)) => Ok(t.clone()),
        None => {
            let partition_msg = partition
                .map(|p| format!(" in partition {}", py_str_repr(p)))
                .unwrap_or_default();
            let discovered = if all_types.is_empty() {
                " No GPU nodes found on cluster.".to_string()
            } else {
                all_types.sort();
                format!(" Discovered GPU types on cluster: {}", py_list(&all_types))
            };
            Err(format!(
                "No GPU nodes matching {} (count>={count}) found on Slurm cluster {}{partition_msg}.{discovered}",
                py_str_repr(requested),
                py_str_repr(cluster)
            ))
        }
    }
}

/// One cluster as [`check_instance_fits`] needs it.
#[derive(Debug, Clone, Copy)]
pub struct FitsInput<'a> {
    /// The cluster's name.
    pub cluster: &'a str,
    /// Its nodes (`sinfo`).
    pub nodes: &'a [SlurmNode],
    /// Its default partition.
    pub default_partition: Option<&'a str>,
    /// `gpu_partition_map`'s partitions for the requested accelerator, when
    /// the map names it (GRES is then matched by count only).
    pub mapped_partitions: Option<&'a [String]>,
}

/// `check_instance_fits(cluster, instance_type, partition)`: some node of
/// the partition has the GPUs (the resolved raw GRES type, or any type when
/// `gpu_partition_map` maps the accelerator), the CPUs and — unless the type
/// asks for 0 GB — the memory. Capacities, not free resources, are compared,
/// and node states are not looked at, as in SkyPilot.
pub fn check_instance_fits(
    input: FitsInput<'_>,
    instance: &KubeInstanceType,
    partition: Option<&str>,
) -> Result<(), String> {
    let nodes = in_partition(input.nodes, input.default_partition, partition);
    let partition_suffix = partition
        .map(|p| format!(" in partition {p}"))
        .unwrap_or_default();
    let skip_mem = instance.memory_gib == 0.0;
    let mut req = format!("CPU (>= {} CPUs)", py_float_str(instance.cpus));
    if !skip_mem {
        req.push_str(&format!(
            " and/or memory (>= {} G)",
            py_float_str(instance.memory_gib)
        ));
    }
    let (candidates, prefix): (Vec<&SlurmNode>, String) = match instance.gpu() {
        None => (
            nodes,
            format!("No nodes found with enough {req}{partition_suffix}. "),
        ),
        Some((acc, count)) => match input.mapped_partitions {
            Some(_) => (
                nodes
                    .into_iter()
                    .filter(|n| gpu_type_and_count(&n.gres).1 >= count)
                    .collect(),
                format!(
                    "GPU nodes (mapped via gpu_partition_map for {}){partition_suffix} do not have enough {req}. ",
                    py_str_repr(acc)
                ),
            ),
            None => {
                let resolved = resolve_gres_gpu_type(
                    input.cluster,
                    input.nodes,
                    input.default_partition,
                    acc,
                    count,
                    partition,
                )?;
                (
                    nodes
                        .into_iter()
                        .filter(|n| {
                            let (t, c) = gpu_type_and_count(&n.gres);
                            t.as_deref() == Some(resolved.as_str()) && c >= count
                        })
                        .collect(),
                    format!("GPU nodes with {acc}{partition_suffix} do not have enough {req}. "),
                )
            }
        },
    };
    let (mut max_cpu, mut max_mem) = (0i64, 0.0f64);
    for node in candidates {
        if node.cpus > max_cpu {
            (max_cpu, max_mem) = (node.cpus, node.memory_gb);
        }
        if node.cpus as f64 >= instance.cpus && (skip_mem || node.memory_gb >= instance.memory_gib)
        {
            return Ok(());
        }
    }
    Err(format!(
        "{prefix}Max found: {max_cpu} CPUs, {}G memory",
        format_float(max_mem)
    ))
}

/// The nodes `check_instance_fits` warns about when `gpu_partition_map`
/// names the accelerator: those of the partition that carry a typed GRES
/// (in `sinfo` order; the map may not be needed on such a cluster).
pub fn typed_gres_nodes<'a>(
    input: FitsInput<'a>,
    instance: &KubeInstanceType,
    partition: Option<&str>,
) -> Vec<&'a SlurmNode> {
    let (Some(_), Some(_)) = (instance.gpu(), input.mapped_partitions) else {
        return Vec::new();
    };
    in_partition(input.nodes, input.default_partition, partition)
        .into_iter()
        .filter(|n| gpu_type_and_count(&n.gres).0.is_some())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::slurm::inventory::parse_sinfo_nodes;

    fn nodes() -> Vec<SlurmNode> {
        parse_sinfo_nodes(
            "g1\\x1fidle\\x1fgpu:H100:8(S:0-1)\\x1f96\\x1f1031000\\x1fgpu*\n\
             g2\\x1fmix\\x1fgpu:nvidia_h100_80gb_hbm3:4\\x1f48\\x1f515000\\x1fgpu*\n\
             a1\\x1fidle\\x1fgpu:nvidia_a100_sxm4_80gb:4\\x1f64\\x1f515000\\x1fa100\n\
             u1\\x1fidle\\x1fgpu:2\\x1f16\\x1f64000\\x1funtyped\n\
             c1\\x1fidle\\x1f(null)\\x1f64\\x1f257000\\x1fcpu\n\
             c1\\x1fidle\\x1f(null)\\x1f64\\x1f257000\\x1fgpu*\n",
        )
        .expect("sinfo")
    }

    #[test]
    fn names_match_like_skypilot() {
        for (req, raw, want) in [
            ("H100", "H100", true),
            ("h100", "H100", true),
            ("H100", "nvidia_h100_80gb_hbm3", true),
            ("A100-80GB", "nvidia_a100_sxm4_80gb", true),
            ("A100-80GB", "nvidia_a100_sxm4_40gb", false),
            ("L4", "nvidia_l40", false),
            ("V100-32GB", "tesla_v100_pcie_16gb", false),
            ("nvidia_h100_80gb_hbm3", "H100", true),
        ] {
            assert_eq!(accelerator_matches_gres(req, raw), want, "{req} {raw}");
        }
        assert_eq!(normalize_gpu_name("Tesla_T4"), "t4");
    }

    #[test]
    fn gres_types_resolve_exact_first_then_most_nodes() {
        let n = nodes();
        let r = |acc: &str, count: u32, p: Option<&str>| {
            resolve_gres_gpu_type("c", &n, Some("gpu"), acc, count, p)
        };
        assert_eq!(r("H100", 1, None).as_deref(), Ok("H100"));
        // Both types match fuzzily on one node each: the alphabetical
        // tie-break puts `H100` first (SkyPilot 0.14.1's
        // `resolve_gres_gpu_type` answers the same).
        assert_eq!(r("H100-80GB", 1, Some("gpu")).as_deref(), Ok("H100"));
        // An exact (case-insensitive) name wins over fuzzy matches.
        assert_eq!(
            r("NVIDIA_H100_80GB_HBM3", 1, Some("gpu")).as_deref(),
            Ok("nvidia_h100_80gb_hbm3")
        );
        assert_eq!(r("H100", 8, Some("gpu")).as_deref(), Ok("H100"));
        assert_eq!(
            r("A100-80GB", 8, None),
            Err("No GPU nodes matching 'A100-80GB' (count>=8) found on Slurm cluster 'c'. Discovered GPU types on cluster: ['H100', 'nvidia_a100_sxm4_80gb', 'nvidia_h100_80gb_hbm3']".into())
        );
        assert_eq!(
            r("T4", 1, Some("cpu")),
            Err("No GPU nodes matching 'T4' (count>=1) found on Slurm cluster 'c' in partition 'cpu'. No GPU nodes found on cluster.".into())
        );
    }

    type FitsCase<'a> = (
        &'a str,
        Option<&'a str>,
        Option<&'a [String]>,
        Result<(), &'a str>,
    );

    #[test]
    fn fits_cases() {
        let n = nodes();
        let mapped = vec!["untyped".to_string()];
        let cases: Vec<FitsCase> = vec![
            ("2CPU--2GB", Some("cpu"), None, Ok(())),
            // The default partition's `gpu*` is `gpu`; a CPU-only type fits a GPU node.
            ("90CPU--900GB", Some("gpu"), None, Ok(())),
            (
                "128CPU--2GB",
                Some("gpu"),
                None,
                Err(
                    "No nodes found with enough CPU (>= 128.0 CPUs) and/or memory (>= 2.0 G) in partition gpu. Max found: 96 CPUs, 1006.8G memory",
                ),
            ),
            // 0 GB: memory is not compared (nor named).
            (
                "128CPU--0GB",
                None,
                None,
                Err(
                    "No nodes found with enough CPU (>= 128.0 CPUs). Max found: 96 CPUs, 1006.8G memory",
                ),
            ),
            ("4CPU--16GB--H100:8", Some("gpu"), None, Ok(())),
            (
                "100CPU--16GB--H100:1",
                Some("gpu"),
                None,
                Err(
                    "GPU nodes with H100 in partition gpu do not have enough CPU (>= 100.0 CPUs) and/or memory (>= 16.0 G). Max found: 96 CPUs, 1006.8G memory",
                ),
            ),
            (
                "4CPU--16GB--A100:1",
                Some("gpu"),
                None,
                Err(
                    "No GPU nodes matching 'A100' (count>=1) found on Slurm cluster 'c' in partition 'gpu'. Discovered GPU types on cluster: ['H100', 'nvidia_h100_80gb_hbm3']",
                ),
            ),
            ("4CPU--16GB--A100:2", Some("untyped"), Some(&mapped), Ok(())),
            (
                "4CPU--16GB--A100:4",
                Some("untyped"),
                Some(&mapped),
                Err(
                    "GPU nodes (mapped via gpu_partition_map for 'A100') in partition untyped do not have enough CPU (>= 4.0 CPUs) and/or memory (>= 16.0 G). Max found: 0 CPUs, 0G memory",
                ),
            ),
        ];
        for (it, partition, mapped_partitions, want) in cases {
            let input = FitsInput {
                cluster: "c",
                nodes: &n,
                default_partition: Some("gpu"),
                mapped_partitions,
            };
            let kit: KubeInstanceType = it.parse().expect(it);
            assert_eq!(
                check_instance_fits(input, &kit, partition),
                want.map_err(str::to_string),
                "{it} {partition:?}"
            );
        }
        let input = FitsInput {
            cluster: "c",
            nodes: &n,
            default_partition: Some("gpu"),
            mapped_partitions: Some(&mapped),
        };
        let kit: KubeInstanceType = "4CPU--16GB--H100:1".parse().expect("type");
        assert_eq!(typed_gres_nodes(input, &kit, Some("gpu")).len(), 2);
        assert!(typed_gres_nodes(input, &kit, Some("untyped")).is_empty());
    }
}
