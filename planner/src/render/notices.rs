//! What SkyPilot's optimizer logs before its tables, one entry per
//! `logger.info` / `logger.warning`: the [`Notice`]s, and the
//! [`CloudLog`]s the clouds log while they are asked (`sky/optimizer.py`
//! `_fill_in_launchable_resources`, `_check_specified_clouds`; the clouds'
//! own modules for theirs).

use crate::feasibility::CloudLog;
use crate::optimize::{Notice, Tip, Unsatisfied};
use crate::pytext::{py_float_str, py_list, py_repr_list, py_str_repr};
use crate::text::ansi;

/// The entries one notice logs.
pub fn notice(notice: &Notice) -> Vec<String> {
    match notice {
        Notice::Unsatisfied(u) => unsatisfied(u),
        Notice::CloudsNotEnabled(n) => {
            vec![format!("{}{}{}", ansi::YELLOW, n.message(), ansi::RESET)]
        }
        Notice::CloudLog { log, .. } => vec![cloud_log(log)],
        Notice::OrderedResources {
            task_ordinal,
            resources,
        } => {
            let prefix = match task_ordinal {
                Some(n) => format!(
                    "{}{} task is using user-specified accelerators list ",
                    ansi::YELLOW,
                    ordinal(*n)
                ),
                None => format!("{}Using user-specified accelerators list ", ansi::YELLOW),
            };
            vec![format!(
                "{prefix}{}(will be tried in the listed order): {}",
                ansi::RESET,
                resources.join(", ")
            )]
        }
    }
}

/// The line a cloud logs, with SkyPilot's colours.
pub fn cloud_log(log: &CloudLog) -> String {
    match log {
        CloudLog::SshPoolsSkipped { pools, file } => {
            skipped_pools_warning(pools, file).unwrap_or_default()
        }
        // `Kubernetes._log_unreachable_context` (for SSH Node Pools too).
        CloudLog::ContextUnreachable { context, reason } => {
            format!("Excluding Kubernetes context {context}: {reason}")
        }
        CloudLog::AllContextsUnreachable => format!(
            "All Kubernetes contexts are unreachable. Retry if it is a transient error, or run {}sky check{} to refresh Kubernetes availability if permanent.",
            ansi::BRIGHT,
            ansi::RESET
        ),
        CloudLog::SlurmClustersSkipped { clusters } => {
            let set: Vec<String> = clusters.iter().map(|s| py_str_repr(s)).collect();
            format!(
                "Slurm clusters {{{}}} specified in \"allowed_clusters\" not found in ~/.slurm/config. Ignoring these clusters.",
                set.join(", ")
            )
        }
        CloudLog::SlurmSelectTypeFailed { stderr } => {
            format!("Failed to get SelectTypeParameters: {stderr}")
        }
        CloudLog::SlurmMemoryUntracked { clusters } => {
            let details: Vec<String> = clusters.iter().map(|(c, p)| format!("{c} ({p})")).collect();
            format!(
                "{}Some Slurm cluster(s) do not track memory as a consumable resource: {}. --mem will be omitted from sbatch, and Slurm will use its default allocation.{}",
                ansi::YELLOW,
                details.join(", "),
                ansi::RESET
            )
        }
        CloudLog::SlurmGpuPartitionsMissing {
            accelerator,
            mapped,
            cluster,
            requested,
        } => {
            let text = match requested {
                Some(z) => format!(
                    "gpu_partition_map maps {} to partition(s) {}, but the requested partition {} is not among them. Either add {} to gpu_partition_map or omit the partition from --infra.",
                    py_str_repr(accelerator),
                    py_list(mapped),
                    py_str_repr(z),
                    py_str_repr(z)
                ),
                None => format!(
                    "gpu_partition_map maps {} to partition(s) {}, but none exist on cluster {}. Please double-check the partition names in gpu_partition_map.",
                    py_str_repr(accelerator),
                    py_list(mapped),
                    py_str_repr(cluster)
                ),
            };
            format!("{}{text}{}", ansi::YELLOW, ansi::RESET)
        }
        CloudLog::SlurmCpuPartitionMissing { partition, cluster } => format!(
            "{}cpu_partition is set to {}, but it does not exist on cluster {}. Please double-check the partition name.{}",
            ansi::YELLOW,
            py_str_repr(partition),
            py_str_repr(cluster),
            ansi::RESET
        ),
        CloudLog::SlurmTypedGres {
            accelerator,
            node,
            gres,
        } => format!(
            "gpu_partition_map is configured for {}, but node {} has typed GRES {}. gpu_partition_map may not be needed for this cluster.",
            py_str_repr(accelerator),
            py_str_repr(node),
            py_str_repr(gres)
        ),
        CloudLog::SlurmPartitionsUnreadable { cluster, error } => {
            format!("Failed to get partitions for {cluster}: {error}")
        }
        // `Kubernetes._warn_on_disk_tier`: the tier as `str(DiskTier.BEST)`.
        CloudLog::DiskTierUnsupported { tier } => format!(
            "{}Disk tier DiskTier.{} is not supported by Kubernetes. To add additional disk, use volumes.{}",
            ansi::DIM,
            tier.as_str().to_ascii_uppercase(),
            ansi::RESET
        ),
        CloudLog::ScpDiskSize { size, min, max } => {
            format!("In SCP, the disk size must range between {min} GB and {max} GB. Input: {size}")
        }
    }
}

fn grey(s: &str) -> String {
    format!("{}{s}{}", ansi::LIGHTBLACK, ansi::RESET)
}

fn unsatisfied(u: &Unsatisfied) -> Vec<String> {
    let clouds = if u.clouds.len() > 1 {
        py_repr_list(u.clouds.iter().map(|c| c.repr()))
    } else {
        u.clouds
            .first()
            .map_or("[]".to_string(), |c| c.repr().to_string())
    };
    let nodes = if u.num_nodes > 1 {
        format!("{}x ", u.num_nodes)
    } else {
        String::new()
    };
    let mut out = vec![format!(
        "No resource satisfying {nodes}{} on {clouds}.",
        u.request
    )];
    if !u.fuzzy.is_empty() {
        out.push(format!(
            "Did you mean: {}{}{}",
            ansi::CYAN,
            py_list(&u.fuzzy),
            ansi::RESET
        ));
    }
    for tip in &u.tips {
        out.push(grey(&match tip {
            Tip::Cpus => "- Try specifying a different CPU count, or add \"+\" to the end of the CPU count to allow for larger instances.".to_string(),
            Tip::Memory => "- Try specifying a different memory size, or add \"+\" to the end of the memory size to allow for larger instances.".to_string(),
            Tip::LocalDisk => "- Try using \"+\" suffix for at-least matching (e.g., \"nvme:500+\"), or reduce the size requirement. ".to_string(),
            Tip::MaxHourlyCost(m) => format!(
                "- Max hourly cost limit (${}/hr) may be too restrictive. Try increasing the limit or removing it to see available options.",
                py_float_str(*m)
            ),
        }));
    }
    for (cloud, refusal) in &u.cloud_hints {
        out.push(grey(&format!("{}: {}", cloud.repr(), refusal.hint(*cloud))));
    }
    out
}

fn ordinal(n: usize) -> String {
    let suffix = if (10..=20).contains(&(n % 100)) {
        "th"
    } else {
        match n % 10 {
            1 => "st",
            2 => "nd",
            3 => "rd",
            _ => "th",
        }
    };
    format!("{n}{suffix}")
}

/// SkyPilot's `_ssh_log_skipped_contexts_once` warning; `pools_file` is
/// the file's expanded path, as SkyPilot prints it. The set is printed
/// sorted (SkyPilot prints a Python set).
pub fn skipped_pools_warning(skipped: &[String], pools_file: &str) -> Option<String> {
    let mut unique: Vec<&String> = Vec::new();
    for s in skipped {
        if !unique.contains(&s) {
            unique.push(s);
        }
    }
    if unique.is_empty() {
        return None;
    }
    unique.sort();
    let one = unique.len() == 1;
    let set: Vec<String> = unique.iter().map(|s| py_str_repr(s)).collect();
    Some(format!(
        "SSH Node {} {{{}}} specified in {pools_file} {} not been set up. Skipping {}. Run `sky ssh up` to set up.",
        if one { "Pool" } else { "Pools" },
        set.join(", "),
        if one { "has" } else { "have" },
        if one { "that pool" } else { "those pools" },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cloud_logs_read_as_skypilot_logs_them() {
        for (log, want) in [
            (
                CloudLog::SlurmClustersSkipped {
                    clusters: vec!["y".into(), "z".into()],
                },
                "Slurm clusters {'y', 'z'} specified in \"allowed_clusters\" not found in ~/.slurm/config. Ignoring these clusters.",
            ),
            (
                CloudLog::SlurmSelectTypeFailed {
                    stderr: "ssh: boom\n".into(),
                },
                "Failed to get SelectTypeParameters: ssh: boom\n",
            ),
            (
                CloudLog::ScpDiskSize {
                    size: 99,
                    min: 100,
                    max: 300,
                },
                "In SCP, the disk size must range between 100 GB and 300 GB. Input: 99",
            ),
            (
                CloudLog::SlurmTypedGres {
                    accelerator: "H100".into(),
                    node: "g1".into(),
                    gres: "gpu:H100:8".into(),
                },
                "gpu_partition_map is configured for 'H100', but node 'g1' has typed GRES 'gpu:H100:8'. gpu_partition_map may not be needed for this cluster.",
            ),
            (
                CloudLog::ContextUnreachable {
                    context: "kind".into(),
                    reason: "timed out".into(),
                },
                "Excluding Kubernetes context kind: timed out",
            ),
        ] {
            assert_eq!(cloud_log(&log), want);
        }
    }

    #[test]
    fn ordinals_follow_english() {
        let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 111].map(ordinal).to_vec();
        assert_eq!(
            got,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "111th"
            ]
        );
    }

    #[test]
    fn skipped_pools_warning_words_the_set_as_skypilot() {
        assert_eq!(
            skipped_pools_warning(&["ssh-x".to_string()], "/h/.sky/ssh_node_pools.yaml").as_deref(),
            Some(
                "SSH Node Pool {'ssh-x'} specified in /h/.sky/ssh_node_pools.yaml has not been set up. Skipping that pool. Run `sky ssh up` to set up."
            )
        );
        assert_eq!(
            skipped_pools_warning(&["ssh-y", "ssh-x", "ssh-y"].map(String::from), "f").as_deref(),
            Some(
                "SSH Node Pools {'ssh-x', 'ssh-y'} specified in f have not been set up. Skipping those pools. Run `sky ssh up` to set up."
            )
        );
        assert_eq!(skipped_pools_warning(&[], "f"), None);
    }
}
