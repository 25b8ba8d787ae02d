//! What a Slurm login node answers, and how SkyPilot reads it.
//!
//! On the optimizer path SkyPilot 0.14.1 runs three commands on each
//! cluster's login node (`sky/adaptors/slurm.py::SlurmClient`):
//! `sinfo -h --Node -o "%N\x1f%t\x1f%G\x1f%c\x1f%m\x1f%P"` (`info_nodes`: one
//! line per node and partition), `scontrol show partitions -o`
//! (`get_partitions_info`) and `scontrol show config | grep -i
//! "^SelectTypeParameters"` (`get_select_type_parameters`). The edge runs
//! them and keeps their raw answers ([`CommandOutput`]); this module parses
//! them with SkyPilot's rules and error texts.

use serde::{Deserialize, Serialize};
use std::sync::LazyLock;

use regex::Regex;

use crate::pytext::py_str_repr;

/// `sinfo`'s field separator in SkyPilot's format string: the four
/// characters `\x1f` (a raw string in `sky/adaptors/slurm.py`, which sinfo
/// prints literally).
pub const SINFO_SEP: &str = r"\x1f";

/// `SlurmClient.info_nodes`' command.
pub const INFO_NODES_CMD: &str = r#"sinfo -h --Node -o "%N\x1f%t\x1f%G\x1f%c\x1f%m\x1f%P""#;
/// `SlurmClient.get_partitions_info`' command.
pub const PARTITIONS_CMD: &str = "scontrol show partitions -o";
/// `SlurmClient.get_select_type_parameters`' command.
pub const SELECT_TYPE_CMD: &str = r#"scontrol show config | grep -i "^SelectTypeParameters""#;

/// One command's result on the login node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandOutput {
    /// Exit status (255: ssh itself failed).
    pub returncode: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl CommandOutput {
    /// A successful command with this output.
    pub fn ok(stdout: impl Into<String>) -> CommandOutput {
        CommandOutput {
            returncode: 0,
            stdout: stdout.into(),
            stderr: String::new(),
        }
    }
}

/// The raw answers of one cluster's login node to SkyPilot's commands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlurmInventory {
    /// [`INFO_NODES_CMD`].
    pub nodes: CommandOutput,
    /// [`PARTITIONS_CMD`].
    pub partitions: CommandOutput,
    /// [`SELECT_TYPE_CMD`].
    pub select_type: CommandOutput,
}

/// One cluster of `~/.slurm/config` and what its login node answered.
#[derive(Debug, Clone, PartialEq)]
pub struct SlurmCluster {
    /// The `Host` alias (shown as the region, `Slurm (<cluster>)`).
    pub name: String,
    /// The answers, or why no command could run: the exception SkyPilot
    /// would see as `format_exception` prints it (`FileNotFoundError: SSH
    /// private key not found: /home/me/.ssh/key`, `KeyError: 'user'`, a
    /// timeout).
    pub inventory: Result<SlurmInventory, String>,
}

/// A node line of `sinfo` (SkyPilot's `NodeInfo`).
#[derive(Debug, Clone, PartialEq)]
pub struct SlurmNode {
    /// `%N`.
    pub node: String,
    /// `%t`, the short state (`idle`, `mix`, `alloc`, `down`, ...).
    pub state: String,
    /// `%G`, the GRES (`gpu:H100:8(S:0-1)`, `(null)`).
    pub gres: String,
    /// `%c`.
    pub cpus: i64,
    /// `%m` (MB) / 1024.
    pub memory_gb: f64,
    /// `%P`; the default partition ends with `*`.
    pub partition: String,
}

/// A partition of `scontrol show partitions -o` (SkyPilot's `SlurmPartition`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlurmPartition {
    /// `PartitionName`.
    pub name: String,
    /// `Default=YES`.
    pub is_default: bool,
}

/// `exceptions.CommandError`'s text as `common_utils.format_exception`
/// prints it, for a command that `handle_returncode` rejected.
pub fn command_error_text(command: &str, out: &CommandOutput, error_msg: &str) -> String {
    let command = if command.chars().count() > 100 {
        command.chars().take(100).collect::<String>() + "..."
    } else {
        command.to_string()
    };
    format!(
        "sky.exceptions.CommandError: Command {command} failed with return code {}.\n{error_msg}\n{}\n{}",
        out.returncode, out.stdout, out.stderr
    )
}

/// Python's `int(str)` for base-10 text (whitespace, sign, `_` between digits).
fn py_int(s: &str) -> Option<i64> {
    let t = s.trim();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
        || !digits.chars().all(|c| c.is_ascii_digit() || c == '_')
    {
        return None;
    }
    let v: i64 = digits.replace('_', "").parse().ok()?;
    Some(if neg { -v } else { v })
}

/// SkyPilot's `_parse_info_nodes_output`; the error is its `RuntimeError`
/// text.
pub fn parse_sinfo_nodes(stdout: &str) -> Result<Vec<SlurmNode>, String> {
    let mut nodes = Vec::new();
    for line in stdout.lines() {
        let parts: Vec<&str> = line.split(SINFO_SEP).collect();
        if parts.len() != 6 {
            return Err(format!(
                "Unexpected output format from sinfo: {}",
                py_str_repr(line)
            ));
        }
        let bad = |field: &str| {
            format!(
                "Failed to parse node info from line: {}. Error: invalid literal for int() with base 10: {}",
                py_str_repr(line),
                py_str_repr(field)
            )
        };
        let cpus = py_int(parts[3]).ok_or_else(|| bad(parts[3]))?;
        let memory_mb = py_int(parts[4]).ok_or_else(|| bad(parts[4]))?;
        nodes.push(SlurmNode {
            node: parts[0].to_string(),
            state: parts[1].to_string(),
            gres: parts[2].to_string(),
            cpus,
            memory_gb: memory_mb as f64 / 1024.0,
            partition: parts[5].to_string(),
        });
    }
    Ok(nodes)
}

static PARTITION_NAME_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"PartitionName=(.+?)(?:\s+\w+=|$)").expect("static regex"));

/// SkyPilot's `_parse_partitions_info_output`.
pub fn parse_partitions(stdout: &str) -> Vec<SlurmPartition> {
    stdout
        .trim()
        .lines()
        .filter_map(|line| {
            let name = PARTITION_NAME_RE.captures(line)?[1].trim().to_string();
            (!name.is_empty()).then(|| SlurmPartition {
                name,
                is_default: line.contains("Default=YES"),
            })
        })
        .collect()
}

static SELECT_TYPE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"SelectTypeParameters\s*=\s*(\S+)").expect("static regex"));

/// The value `SlurmClient.get_select_type_parameters` reads from a
/// successful command's output (`CR_Core_Memory`), if any.
pub fn parse_select_type(stdout: &str) -> Option<String> {
    SELECT_TYPE_RE.captures(stdout).map(|c| c[1].to_string())
}

/// SkyPilot's `get_partitions`: the default partition(s) first, the others
/// sorted.
pub fn partition_names(partitions: &[SlurmPartition]) -> Vec<String> {
    let mut defaults: Vec<String> = Vec::new();
    let mut others: Vec<String> = Vec::new();
    // SkyPilot keys them by name (a later duplicate replaces an earlier one).
    let mut by_name: Vec<&SlurmPartition> = Vec::new();
    for p in partitions {
        match by_name.iter_mut().find(|q| q.name == p.name) {
            Some(slot) => *slot = p,
            None => by_name.push(p),
        }
    }
    for p in by_name {
        if p.is_default {
            defaults.push(p.name.clone());
        } else {
            others.push(p.name.clone());
        }
    }
    others.sort();
    defaults.extend(others);
    defaults
}

/// SkyPilot's `get_cluster_default_partition`: the first partition marked
/// `Default=YES`.
pub fn default_partition(partitions: &[SlurmPartition]) -> Option<&str> {
    partitions
        .iter()
        .find(|p| p.is_default)
        .map(|p| p.name.as_str())
}

static GRES_GPU_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bgpu[:=](?:(?P<type>[^:=(,]+)[:=])?(?P<count>\d+)").expect("static regex")
});

/// SkyPilot's `get_gpu_type_and_count`: `gpu:H100:8(S:0-1)` → (`H100`, 8),
/// `gpu:4` → (None, 4), `(null)` → (None, 0).
pub fn gpu_type_and_count(gres: &str) -> (Option<String>, u32) {
    match GRES_GPU_RE.captures(gres) {
        Some(c) => (
            c.name("type").map(|t| t.as_str().to_string()),
            c["count"].parse().unwrap_or(u32::MAX),
        ),
        None => (None, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sinfo_lines() {
        let out = "n1\\x1fidle\\x1fgpu:H100:8(S:0-1)\\x1f96\\x1f1031000\\x1fgpu*\n\
                   n2\\x1fmix\\x1f(null)\\x1f 64 \\x1f2048\\x1fcpu\n";
        let nodes = parse_sinfo_nodes(out).expect("parse");
        assert_eq!(nodes.len(), 2);
        assert_eq!(nodes[0].partition, "gpu*");
        assert_eq!(nodes[1].cpus, 64);
        assert_eq!(nodes[1].memory_gb, 2.0);
        assert_eq!(parse_sinfo_nodes(""), Ok(vec![]));
        for (bad, want) in [
            (
                "n1\\x1fidle",
                "Unexpected output format from sinfo: 'n1\\\\x1fidle'",
            ),
            (
                "n\\x1fidle\\x1f(null)\\x1fmany\\x1f1\\x1fp",
                "Failed to parse node info from line: 'n\\\\x1fidle\\\\x1f(null)\\\\x1fmany\\\\x1f1\\\\x1fp'. Error: invalid literal for int() with base 10: 'many'",
            ),
        ] {
            assert_eq!(parse_sinfo_nodes(bad), Err(want.to_string()), "{bad}");
        }
    }

    #[test]
    fn partitions_and_defaults() {
        let out = "PartitionName=gpu AllowGroups=ALL Default=YES MaxTime=UNLIMITED\n\
                   PartitionName=cpu Default=NO\n\
                   PartitionName=batch long Default=NO\n\
                   garbage line\n";
        let parts = parse_partitions(out);
        assert_eq!(
            parts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
            ["gpu", "cpu", "batch long"]
        );
        assert_eq!(partition_names(&parts), ["gpu", "batch long", "cpu"]);
        assert_eq!(default_partition(&parts), Some("gpu"));
        assert_eq!(
            parse_select_type("SelectTypeParameters    = CR_CORE_MEMORY\n").as_deref(),
            Some("CR_CORE_MEMORY")
        );
        assert_eq!(parse_select_type(""), None);
    }

    #[test]
    fn gres() {
        for (gres, want) in [
            ("gpu:H100:8(S:0-1)", (Some("H100"), 8)),
            ("gpu:nvidia_a100_80gb:4", (Some("nvidia_a100_80gb"), 4)),
            ("gpu:4", (None, 4)),
            ("gres/gpu=2", (None, 2)),
            ("GPU:a10:1", (Some("a10"), 1)),
            ("(null)", (None, 0)),
            ("mps:100", (None, 0)),
        ] {
            let (t, n) = gpu_type_and_count(gres);
            assert_eq!((t.as_deref(), n), want, "{gres}");
        }
    }

    #[test]
    fn command_errors_read_like_skypilot() {
        let out = CommandOutput {
            returncode: 255,
            stdout: String::new(),
            stderr: "ssh: connect to host h port 22: Connection refused\n".into(),
        };
        assert_eq!(
            command_error_text(PARTITIONS_CMD, &out, "Failed to get Slurm partitions."),
            "sky.exceptions.CommandError: Command scontrol show partitions -o failed with return code 255.\nFailed to get Slurm partitions.\n\nssh: connect to host h port 22: Connection refused\n"
        );
        assert_eq!(py_int(" 1_000 "), Some(1000));
        assert_eq!(py_int("1__0"), None);
        assert_eq!(py_int("-3"), Some(-3));
    }
}
