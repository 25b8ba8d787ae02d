//! Slurm: a virtual catalog over the clusters of `~/.slurm/config`. The
//! instance type is built from the request (`4CPU--16GB--H100:1`), each
//! allowed cluster is a region, its partitions are its zones, and a
//! partition offers the type when one of its nodes fits it; prices come from
//! `slurm.pricing` (per cluster and partition).
//!
//! SkyPilot 0.14.1's `sky/clouds/slurm.py` (`Slurm._get_feasible_launchable_resources`,
//! `regions_with_offering`, `_gpu_partition_map_hint`, `_get_memory_hint`,
//! `instance_type_to_hourly_cost`) and `sky/catalog/slurm_catalog.py`
//! (`get_default_instance_type`, `get_hourly_cost`), including what they log
//! on the way ([`CloudLog`]s, in SkyPilot's order and number).

use crate::catalog::kubernetes::{self, KubeInstanceType};
use crate::catalog::query::RegionZones;
use crate::catalog::slurm::{FitsInput, SlurmCluster, check_instance_fits, typed_gres_nodes};
use crate::cloud::CloudId;
use crate::resources::Resources;
use crate::world::World;

use super::{CloudLog, FeasibleResources, Refusal, candidate};

/// `_DEFAULT_NUM_VCPUS` of `slurm_catalog`.
const DEFAULT_CPUS: f64 = 2.0;
/// `_DEFAULT_MEMORY_CPU_RATIO` of `slurm_catalog`.
const DEFAULT_MEMORY_CPU_RATIO: f64 = 1.0;
/// `Slurm._DEFAULT_NUM_VCPUS_WITH_GPU`.
const DEFAULT_CPUS_PER_GPU: f64 = 4.0;
/// `Slurm._DEFAULT_MEMORY_CPU_RATIO_WITH_GPU`.
const DEFAULT_MEMORY_CPU_RATIO_WITH_GPU: f64 = 4.0;

/// What Slurm logs before its feature check, when the request names no
/// cluster: `existing_allowed_clusters`' skipped-clusters warning.
pub(super) fn pre_logs(world: &World, r: &Resources) -> Vec<CloudLog> {
    if r.region.is_some() {
        return Vec::new();
    }
    skipped_clusters(world).into_iter().collect()
}

/// `_log_skipped_clusters_once`, when `allowed_clusters` names clusters
/// that are not there.
fn skipped_clusters(world: &World) -> Option<CloudLog> {
    let clusters = world.slurm.skipped_clusters();
    (!clusters.is_empty()).then_some(CloudLog::SlurmClustersSkipped { clusters })
}

/// Python's `float(str)` for the request's numbers.
fn py_float(s: &str) -> Option<f64> {
    s.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

/// `slurm_catalog.get_default_instance_type`: `cpus` (default 2, `+`
/// stripped) and `memory` (`N`, `N+`, `Nx` × cpus; unset → 1 × cpus, or 0
/// when no cluster asked tracks memory, with SkyPilot's warning).
fn default_instance_type(
    world: &World,
    r: &Resources,
    logs: &mut Vec<CloudLog>,
) -> Option<KubeInstanceType> {
    let cpus = match r.cpus.as_deref() {
        Some(c) => py_float(c.trim_matches('+'))?,
        None => DEFAULT_CPUS,
    };
    let memory = match r.memory.as_deref() {
        Some(m) => {
            if let Some(n) = m.strip_suffix('+') {
                py_float(n)?
            } else if let Some(n) = m.strip_suffix('x') {
                py_float(n)? * cpus
            } else {
                py_float(m)?
            }
        }
        None => {
            let names: Vec<String> = match &r.region {
                Some(region) => vec![region.clone()],
                None => world.slurm.cluster_names(),
            };
            let mut no_memory: Vec<(String, String)> = Vec::new();
            for name in &names {
                let Some(cluster) = world.slurm.cluster(name) else {
                    continue;
                };
                // A login node that cannot be asked is skipped (logged at debug).
                let Ok(m) = cluster.memory_scheduling() else {
                    continue;
                };
                if let Some(stderr) = m.failed {
                    logs.push(CloudLog::SlurmSelectTypeFailed { stderr });
                }
                if !m.tracked {
                    no_memory.push((
                        name.clone(),
                        m.parameters.unwrap_or_else(|| "unknown".into()),
                    ));
                }
            }
            if !names.is_empty() && no_memory.len() == names.len() {
                logs.push(CloudLog::SlurmMemoryUntracked {
                    clusters: no_memory,
                });
                0.0
            } else {
                cpus * DEFAULT_MEMORY_CPU_RATIO
            }
        }
    };
    // Named and parsed back, as SkyPilot passes the name around.
    KubeInstanceType {
        cpus,
        memory_gib: memory,
        accelerator: None,
    }
    .to_string()
    .parse()
    .ok()
}

/// `Slurm._get_feasible_launchable_resources`.
pub(super) fn feasible(world: &World, r: &Resources) -> FeasibleResources {
    let mut logs = Vec::new();
    if let Some(it) = &r.instance_type {
        let (regions, mut more) = regions_with_offering(world, r, it);
        logs.append(&mut more);
        if regions.is_empty() {
            return FeasibleResources {
                hint: gpu_partition_map_hint(world, it, r.region.as_deref()),
                logs,
                ..Default::default()
            };
        }
        return FeasibleResources {
            resources: vec![candidate(r, CloudId::Slurm, it.clone(), None)],
            logs,
            ..Default::default()
        };
    }
    let Some(default) = default_instance_type(world, r, &mut logs) else {
        return FeasibleResources {
            logs,
            ..Default::default()
        };
    };
    let chosen = match &r.accelerator {
        None => default,
        Some(acc) => {
            let count = acc.count.0;
            let cpus = if r.cpus.is_none() {
                DEFAULT_CPUS_PER_GPU * count
            } else {
                default.cpus
            };
            let memory = match r.memory.as_deref() {
                Some(m) => match py_float(m.trim_matches('+')) {
                    Some(v) => v,
                    // SkyPilot's `float()` fails on `2x` with a GPU.
                    None => {
                        return FeasibleResources {
                            logs,
                            ..Default::default()
                        };
                    }
                },
                None if default.memory_gib == 0.0 => 0.0,
                None => cpus * DEFAULT_MEMORY_CPU_RATIO_WITH_GPU,
            };
            if acc.name.contains(' ') || !count.is_finite() || count.ceil() > f64::from(u32::MAX) {
                return FeasibleResources {
                    logs,
                    ..Default::default()
                };
            }
            let named = KubeInstanceType {
                cpus,
                memory_gib: memory,
                accelerator: Some((acc.name.clone(), count.ceil() as u32)),
            };
            match named.to_string().parse() {
                Ok(t) => t,
                Err(_) => {
                    return FeasibleResources {
                        logs,
                        ..Default::default()
                    };
                }
            }
        }
    };
    let it = chosen.to_string();
    let (regions, mut more) = regions_with_offering(world, r, &it);
    logs.append(&mut more);
    if regions.is_empty() {
        let hint = match gpu_partition_map_hint(world, &it, r.region.as_deref()) {
            Some(h) => Some(h),
            None => memory_hint(world, r, &mut logs),
        };
        return FeasibleResources {
            hint,
            logs,
            ..Default::default()
        };
    }
    FeasibleResources {
        resources: vec![candidate(r, CloudId::Slurm, it, None)],
        logs,
        ..Default::default()
    }
}

/// The partitions of `cluster` to try for `instance`: all of them, narrowed
/// by `gpu_partition_map` (GPU types) or `cpu_partition` (CPU-only types).
fn partitions_to_check(
    world: &World,
    cluster: &str,
    instance: &KubeInstanceType,
    zones: &[String],
    zone: Option<&str>,
    logs: &mut Vec<CloudLog>,
) -> Vec<String> {
    let settings = &world.slurm.settings;
    match instance.gpu() {
        Some((acc, _)) => {
            let Some(mapped) = settings.gpu_partitions(cluster, acc) else {
                return zones.to_vec();
            };
            let kept: Vec<String> = mapped
                .iter()
                .filter(|p| zones.contains(p))
                .cloned()
                .collect();
            if kept.is_empty() {
                logs.push(CloudLog::SlurmGpuPartitionsMissing {
                    accelerator: acc.to_string(),
                    mapped,
                    cluster: cluster.to_string(),
                    requested: zone.map(str::to_string),
                });
            }
            kept
        }
        None => match settings.cpu_partition(cluster) {
            None => zones.to_vec(),
            Some(p) if zones.contains(&p) => vec![p],
            Some(p) => {
                logs.push(CloudLog::SlurmCpuPartitionMissing {
                    partition: p,
                    cluster: cluster.to_string(),
                });
                Vec::new()
            }
        },
    }
}

/// Whether `instance` fits on `partition` of `cluster`, and the warnings
/// `check_instance_fits` logs on the way. A cluster whose nodes cannot be
/// read does not fit (SkyPilot logs that at debug level).
fn fits(
    world: &World,
    cluster: &SlurmCluster,
    instance: &KubeInstanceType,
    partition: &str,
    logs: &mut Vec<CloudLog>,
) -> bool {
    let Ok(nodes) = cluster.nodes() else {
        return false;
    };
    let partitions = cluster.partitions().unwrap_or_default();
    let mapped = instance
        .gpu()
        .and_then(|(acc, _)| world.slurm.settings.gpu_partitions(&cluster.name, acc));
    let input = FitsInput {
        cluster: &cluster.name,
        nodes: &nodes,
        default_partition: crate::catalog::slurm::default_partition(&partitions),
        mapped_partitions: mapped.as_deref(),
    };
    if let Some((acc, _)) = instance.gpu() {
        logs.extend(
            typed_gres_nodes(input, instance, Some(partition))
                .into_iter()
                .map(|n| CloudLog::SlurmTypedGres {
                    accelerator: acc.to_string(),
                    node: n.node.clone(),
                    gres: n.gres.clone(),
                }),
        );
    }
    check_instance_fits(input, instance, Some(partition)).is_ok()
}

/// `Slurm.regions_with_offering(instance_type, region, zone)`: the allowed
/// clusters (the requested one) with the partitions (the requested one)
/// where the type fits; what SkyPilot logs on the way comes with them.
pub(super) fn regions_with_offering(
    world: &World,
    r: &Resources,
    it: &str,
) -> (Vec<RegionZones>, Vec<CloudLog>) {
    let mut logs: Vec<CloudLog> = skipped_clusters(world).into_iter().collect();
    let (allowed, _) = world.slurm.allowed_clusters();
    let mut regions: Vec<(&SlurmCluster, Vec<String>)> = Vec::new();
    for cluster in allowed {
        if r.region.as_deref().is_some_and(|want| want != cluster.name) {
            continue;
        }
        let zones = match cluster.partition_names() {
            Ok(mut names) => {
                if let Some(z) = r.zone.as_deref() {
                    names.retain(|p| p == z);
                }
                names
            }
            Err(error) => {
                logs.push(CloudLog::SlurmPartitionsUnreadable {
                    cluster: cluster.name.clone(),
                    error,
                });
                Vec::new()
            }
        };
        regions.push((cluster, zones));
    }
    let Ok(instance) = it.parse::<KubeInstanceType>() else {
        return (Vec::new(), logs);
    };
    let mut out = Vec::new();
    for (cluster, zones) in regions {
        let to_check = partitions_to_check(
            world,
            &cluster.name,
            &instance,
            &zones,
            r.zone.as_deref(),
            &mut logs,
        );
        let valid: Vec<String> = to_check
            .into_iter()
            .filter(|p| fits(world, cluster, &instance, p, &mut logs))
            .collect();
        if !valid.is_empty() {
            out.push(RegionZones {
                region: cluster.name.clone(),
                zones: valid,
            });
        }
    }
    (out, logs)
}

/// `Slurm._gpu_partition_map_hint`: the pinned cluster's map names only
/// partitions it does not have.
fn gpu_partition_map_hint(world: &World, it: &str, region: Option<&str>) -> Option<Refusal> {
    let region = region?;
    let instance: KubeInstanceType = it.parse().ok()?;
    let (acc, _) = instance
        .accelerator
        .as_ref()
        .map(|(a, n)| (a.as_str(), *n))?;
    let mapped = world.slurm.settings.gpu_partitions(region, acc)?;
    let mut live = world.slurm.cluster(region)?.partition_names().ok()?;
    live.sort();
    if live.is_empty() || mapped.iter().any(|p| live.contains(p)) {
        return None;
    }
    Some(Refusal::GpuPartitionMapUnmatched {
        accelerator: acc.to_string(),
        mapped,
        cluster: region.to_string(),
        available: live,
    })
}

/// `Slurm._get_memory_hint`: a cluster that does not track memory while
/// memory was requested, or whose nodes report (almost) none.
fn memory_hint(world: &World, r: &Resources, logs: &mut Vec<CloudLog>) -> Option<Refusal> {
    for cluster in &world.slurm.clusters {
        let Ok(m) = cluster.memory_scheduling() else {
            continue;
        };
        if let Some(stderr) = m.failed {
            logs.push(CloudLog::SlurmSelectTypeFailed { stderr });
        }
        if !m.tracked && r.memory.is_some() {
            return Some(Refusal::MemoryNotTracked {
                cluster: cluster.name.clone(),
            });
        }
        if m.tracked {
            let Ok(nodes) = cluster.nodes() else {
                continue;
            };
            let mut zero: Vec<String> = nodes
                .iter()
                .filter(|n| n.memory_gb < 0.01)
                .map(|n| n.node.clone())
                .collect();
            zero.sort();
            zero.dedup();
            if !zero.is_empty() {
                return Some(Refusal::ZeroMemoryNodes {
                    cluster: cluster.name.clone(),
                    nodes: zero,
                });
            }
        }
    }
    None
}

/// `slurm_catalog.get_hourly_cost`: the type priced with the pricing of the
/// launchable's cluster and partition.
pub(super) fn hourly_cost(world: &World, r: &Resources, it: &str) -> Result<f64, String> {
    let kit: KubeInstanceType = it
        .parse()
        .map_err(|_| format!("invalid instance type {it}"))?;
    let pricing = world
        .slurm
        .settings
        .pricing(r.region.as_deref(), r.zone.as_deref());
    Ok(kubernetes::hourly_cost(&kit, &pricing))
}
