//! The GPUs of Slurm clusters, from what their login nodes answer, as
//! SkyPilot 0.14.1 counts them for `sky gpus list`:
//! `sky/provision/slurm/utils.py::_build_slurm_node_info_list` (per node:
//! GPU type, total and free GPUs from `scontrol show node -o`'s TRES or,
//! failing that, `squeue`), `sky/catalog/slurm_catalog.py::
//! list_accelerators_realtime` (per GPU: quantities, capacity, free) and
//! `sky/core.py::realtime_slurm_gpu_availability` (one list per cluster, or
//! the cluster's error).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use regex::Regex;

use super::kubernetes::RealtimeGpu;
use crate::catalog::kubernetes::CANONICAL_GPU_NAMES;
use crate::catalog::slurm::{
    CommandOutput, INFO_NODES_CMD, SINFO_SEP, command_error_text, gpu_type_and_count,
    normalize_gpu_name, parse_sinfo_nodes,
};
use crate::pytext::py_str_repr;

/// `SlurmClient.get_all_node_details`' command.
pub const NODE_DETAILS_CMD: &str = "scontrol show node -o";
/// `SlurmClient.get_all_jobs_gres`' command.
pub const JOBS_GRES_CMD: &str = r#"squeue -h --states=running,completing -o "%N\x1f%b""#;

/// The login node's answers `sky gpus list` reads, in one invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlurmGpuAnswer {
    /// `sinfo` ([`INFO_NODES_CMD`]).
    pub nodes: CommandOutput,
    /// [`NODE_DETAILS_CMD`].
    pub node_details: CommandOutput,
    /// [`JOBS_GRES_CMD`].
    pub jobs: CommandOutput,
}

/// One allowed cluster and its answers, or the exception SkyPilot would
/// see instead, as `format_exception` prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlurmGpuCluster {
    /// The `Host` alias.
    pub name: String,
    /// The answers.
    pub answer: Result<SlurmGpuAnswer, String>,
}

/// One node: SkyPilot's `slurm_node_info` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct SlurmNodeGpus {
    /// `%N`.
    pub node: String,
    /// Partitions, comma-joined as sinfo prints them (`gpu*,debug`).
    pub partition: String,
    /// Canonical GPU type (`None`: no GPU).
    pub gpu_type: Option<String>,
    /// GPUs on the node.
    pub total: u32,
    /// GPUs not allocated.
    pub free: u32,
}

/// Why a cluster has no node list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlurmQueryError {
    /// An error `slurm_node_info` swallows: the cluster counts as having no
    /// nodes (SkyPilot then logs that no GPU node matched).
    NoNodes,
    /// A `ValueError`, which SkyPilot takes for "no GPUs" without a word.
    Silent,
    /// Any other exception: SkyPilot's `format_exception` text.
    Failed(String),
}

static TRES_GPU_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:^|,)gres/gpu(?::(?P<type>[^=,]+))?=(?P<count>\d+)").expect("static regex")
});

/// `get_gpu_count_from_tres`: the untyped `gres/gpu=N`, else the typed ones summed.
pub fn gpu_count_from_tres(tres: &str) -> u32 {
    let mut typed = 0u32;
    for c in TRES_GPU_RE.captures_iter(tres) {
        let n: u32 = c["count"].parse().unwrap_or(u32::MAX);
        if c.name("type").is_none() {
            return n;
        }
        typed = typed.saturating_add(n);
    }
    typed
}

/// `canonicalize_raw_gpu_name`: `nvidia_h100_80gb_hbm3` → `H100-80GB`,
/// unknown names upper-cased.
pub fn canonicalize_raw_gpu_name(raw: &str) -> String {
    let raw_norm = normalize_gpu_name(raw);
    let raw_segments: Vec<&str> = raw_norm.split('-').collect();
    for canonical in CANONICAL_GPU_NAMES {
        let can_norm = normalize_gpu_name(canonical);
        if can_norm == raw_norm {
            return canonical.to_string();
        }
        let can_segments: Vec<&str> = can_norm.split('-').collect();
        if can_segments.len() < raw_segments.len() {
            let mut rest = raw_segments.iter();
            if can_segments.iter().all(|s| rest.any(|x| x == s)) {
                return canonical.to_string();
            }
        }
    }
    raw.to_uppercase()
}

/// Most names one `squeue` node list may expand to.
const MAX_EXPANDED_HOSTS: usize = 100_000;

/// python-hostlist's `expand_hostlist`: `n[01-03],m` → `n01 n02 n03 m`
/// (duplicates dropped, order kept). Malformed lists expand to themselves.
pub fn expand_hostlist(list: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut depth = 0usize;
    let mut start = 0usize;
    let mut parts = Vec::new();
    for (i, c) in list.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&list[start..]);
    for part in parts.into_iter().filter(|p| !p.is_empty()) {
        for host in expand_one(part).unwrap_or_else(|| vec![part.to_string()]) {
            if !out.contains(&host) {
                out.push(host);
            }
        }
    }
    out
}

fn expand_one(pattern: &str) -> Option<Vec<String>> {
    let Some(open) = pattern.find('[') else {
        return Some(vec![pattern.to_string()]);
    };
    let close = open + pattern[open..].find(']')?;
    let (prefix, ranges, rest) = (
        &pattern[..open],
        &pattern[open + 1..close],
        &pattern[close + 1..],
    );
    let mut values = Vec::new();
    for range in ranges.split(',') {
        let (lo, hi) = range.split_once('-').unwrap_or((range, range));
        let (a, b): (u64, u64) = (lo.parse().ok()?, hi.parse().ok()?);
        if b < a || b - a > MAX_EXPANDED_HOSTS as u64 {
            return None;
        }
        let width = lo.len();
        values.extend((a..=b).map(|v| format!("{v:0width$}")));
        if values.len() > MAX_EXPANDED_HOSTS {
            return None;
        }
    }
    let tails = expand_one(rest)?;
    // A hostile list must not expand into millions of names.
    if values.len().saturating_mul(tails.len()) > MAX_EXPANDED_HOSTS {
        return None;
    }
    Some(
        values
            .iter()
            .flat_map(|v| tails.iter().map(move |t| format!("{prefix}{v}{t}")))
            .collect(),
    )
}

/// `_parse_all_node_details_output`: per `NodeName`, its `key=value` fields.
fn parse_node_details(stdout: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for line in stdout.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let fields: BTreeMap<String, String> = line
            .split_whitespace()
            .filter_map(|p| p.split_once('='))
            .map(|(k, v)| (k.to_string(), v.trim_matches(['\'', '"']).to_string()))
            .collect();
        if let Some(name) = fields.get("NodeName").filter(|n| !n.is_empty()) {
            out.insert(name.clone(), fields);
        }
    }
    out
}

/// `get_all_jobs_gres`: per node, the GRES requests of its running jobs.
fn parse_jobs_gres(stdout: &str) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in stdout.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let parts: Vec<&str> = line.split(SINFO_SEP).collect();
        let [nodes, gres] = parts.as_slice() else {
            continue;
        };
        if gres.is_empty() || *gres == "N/A" {
            continue;
        }
        for node in expand_hostlist(nodes) {
            out.entry(node).or_default().push(gres.to_string());
        }
    }
    out
}

/// How SkyPilot's explicit-cluster `slurm_node_info` treats an exception.
fn classify(text: &str) -> SlurmQueryError {
    const SWALLOWED: [&str; 4] = [
        "FileNotFoundError:",
        "RuntimeError:",
        "subprocess.TimeoutExpired:",
        "sky.exceptions.NotSupportedError:",
    ];
    if SWALLOWED.iter().any(|p| text.starts_with(p)) {
        SlurmQueryError::NoNodes
    } else if text.starts_with("ValueError:") {
        SlurmQueryError::Silent
    } else {
        SlurmQueryError::Failed(text.to_string())
    }
}

/// The text of the `CommandError` the batched invocation raises when `ssh`
/// (or the login shell) fails.
pub fn batch_failure_text(out: &CommandOutput) -> String {
    command_error_text(
        "concurrent Slurm inventory commands",
        out,
        "Failed to run concurrent Slurm inventory commands.",
    )
}

/// `slurm_node_info(slurm_cluster_name=...)` for one cluster, plus the
/// warnings SkyPilot logs on the way.
pub fn node_gpus(
    cluster: &SlurmGpuCluster,
    logs: &mut Vec<String>,
) -> Result<Vec<SlurmNodeGpus>, SlurmQueryError> {
    let answer = cluster.answer.as_ref().map_err(|e| classify(e))?;
    if answer.nodes.returncode != 0 {
        return Err(classify(&command_error_text(
            INFO_NODES_CMD,
            &answer.nodes,
            "Failed to get Slurm node information.",
        )));
    }
    let sinfo = parse_sinfo_nodes(&answer.nodes.stdout).map_err(|e| classify(&e))?;
    if sinfo.is_empty() {
        logs.push(format!(
            "`sinfo -N` returned no output on cluster {}. No nodes found?",
            cluster.name
        ));
        return Ok(Vec::new());
    }
    let details = if answer.node_details.returncode == 0 {
        parse_node_details(&answer.node_details.stdout)
    } else {
        BTreeMap::new()
    };
    let mut jobs: Option<BTreeMap<String, Vec<String>>> = None;
    let mut out: Vec<SlurmNodeGpus> = Vec::new();
    for node in &sinfo {
        if let Some(seen) = out.iter_mut().find(|n| n.node == node.node) {
            seen.partition = format!("{},{}", seen.partition, node.partition);
            continue;
        }
        let (raw_type, total) = gpu_type_and_count(&node.gres);
        let gpu_type = (total > 0).then(|| {
            raw_type
                .as_deref()
                .map_or_else(|| "GPU".to_string(), canonicalize_raw_gpu_name)
        });
        let fields = details.get(&node.node);
        let mut allocated = 0u32;
        let mut use_tres = false;
        if let Some(f) = fields.filter(|f| !f.is_empty() && total > 0) {
            let tres = |k: &str| gpu_count_from_tres(f.get(k).map_or("", String::as_str));
            if tres("CfgTRES") >= total {
                allocated = tres("AllocTRES");
                use_tres = true;
            }
        }
        let state = node.state.as_str();
        if !use_tres
            && total > 0
            && ["alloc", "mix", "drain", "drng", "drained", "resv", "comp"].contains(&state)
        {
            {
                if jobs.is_none() {
                    // SkyPilot asks squeue only now, and its failure fails the cluster.
                    if answer.jobs.returncode != 0 {
                        return Err(classify(&command_error_text(
                            JOBS_GRES_CMD,
                            &answer.jobs,
                            "Failed to get all jobs GRES.",
                        )));
                    }
                    jobs = Some(parse_jobs_gres(&answer.jobs.stdout));
                }
                let node_jobs = jobs.as_ref().and_then(|j| j.get(&node.node));
                match node_jobs {
                    Some(list) if !list.is_empty() => {
                        allocated = list
                            .iter()
                            .map(|g| gpu_type_and_count(g).1)
                            .fold(0u32, u32::saturating_add);
                    }
                    _ if state == "alloc" => allocated = total,
                    _ => {}
                }
            }
        }
        let free = if ["down", "drain", "drng", "maint"].contains(&state) {
            0
        } else {
            total.saturating_sub(allocated)
        };
        out.push(SlurmNodeGpus {
            node: node.node.clone(),
            partition: node.partition.clone(),
            gpu_type,
            total,
            free,
        });
    }
    Ok(out)
}

/// One cluster's GPUs, as `realtime_slurm_gpu_availability` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClusterGpus {
    /// The cluster's GPUs (never empty).
    Gpus(Vec<RealtimeGpu>),
    /// Nothing to show (no node, no GPU, no match).
    Nothing,
    /// `Could not query Slurm cluster for info: ...`.
    Failed(String),
}

/// `list_accelerators_realtime` for one cluster and SkyPilot's per-cluster
/// wrapper; `logs` receives what SkyPilot logs meanwhile.
pub fn cluster_gpus(
    cluster: &SlurmGpuCluster,
    name: Option<&str>,
    quantity: Option<u32>,
    logs: &mut Vec<String>,
) -> ClusterGpus {
    let no_match = |logs: &mut Vec<String>| {
        let mut filters = Vec::new();
        if let Some(n) = name {
            filters.push(format!("gpu_name={}", py_str_repr(n)));
        }
        if let Some(q) = quantity.filter(|q| *q > 0) {
            filters.push(format!("quantity>={q}"));
        }
        let mut text = "No matching GPU nodes found in the Slurm cluster".to_string();
        if !filters.is_empty() {
            text.push_str(&format!(" with filters ({})", filters.join(", ")));
        }
        text.push('.');
        logs.push(text);
    };
    let nodes = match node_gpus(cluster, logs) {
        Ok(n) => n,
        Err(SlurmQueryError::NoNodes) => Vec::new(),
        Err(SlurmQueryError::Silent) => return ClusterGpus::Nothing,
        Err(SlurmQueryError::Failed(e)) => {
            return ClusterGpus::Failed(format!("Could not query Slurm cluster for info: {e}"));
        }
    };
    if nodes.is_empty() {
        no_match(logs);
        return ClusterGpus::Nothing;
    }
    let name_re = name.map(|n| {
        regex::RegexBuilder::new(&format!("^(?:{n})"))
            .case_insensitive(true)
            .build()
            .ok()
    });
    let mut counts: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    let mut capacity: BTreeMap<Option<String>, (u32, u32)> = BTreeMap::new();
    for node in &nodes {
        if let Some(re) = &name_re {
            let Some(t) = &node.gpu_type else { continue };
            if !re.as_ref().is_some_and(|re| re.is_match(t)) {
                continue;
            }
        }
        if quantity.is_some_and(|q| q > 0 && node.total < q) {
            continue;
        }
        if node.total > 0 {
            let set = counts
                .entry(node.gpu_type.clone().unwrap_or_default())
                .or_default();
            let mut c = 1u32;
            while c <= node.total {
                set.insert(c);
                c = c.saturating_mul(2);
                if c == u32::MAX {
                    break;
                }
            }
            set.insert(node.total);
        }
        let e = capacity.entry(node.gpu_type.clone()).or_insert((0, 0));
        e.0 = e.0.saturating_add(node.total);
        e.1 = e.1.saturating_add(node.free);
    }
    if capacity.is_empty() {
        no_match(logs);
        return ClusterGpus::Nothing;
    }
    let gpus: Vec<RealtimeGpu> = counts
        .into_iter()
        .map(|(gpu, set)| {
            let (cap, free) = capacity.get(&Some(gpu.clone())).copied().unwrap_or((0, 0));
            RealtimeGpu {
                gpu,
                counts: set.into_iter().collect(),
                capacity: cap,
                available: i64::from(free),
            }
        })
        .collect();
    if gpus.is_empty() {
        ClusterGpus::Nothing
    } else {
        ClusterGpus::Gpus(gpus)
    }
}

/// One row of the per-partition table: cluster, partition, GPU type,
/// total and free GPUs.
pub type PartitionRow = (String, String, String, u32, u32);

/// `_format_slurm_partition_info`'s rows: per (cluster, partition, GPU type)
/// in sorted order, total and free GPUs (CPU-only partitions included).
pub fn partition_rows(clusters: &[(&SlurmGpuCluster, Vec<SlurmNodeGpus>)]) -> Vec<PartitionRow> {
    let mut sums: BTreeMap<(String, String, String), (u32, u32)> = BTreeMap::new();
    for (cluster, nodes) in clusters {
        for node in nodes {
            for partition in node.partition.split(',') {
                let e = sums
                    .entry((
                        cluster.name.clone(),
                        partition.trim().to_string(),
                        node.gpu_type.clone().unwrap_or_default(),
                    ))
                    .or_insert((0, 0));
                e.0 = e.0.saturating_add(node.total);
                e.1 = e.1.saturating_add(node.free);
            }
        }
    }
    sums.into_iter()
        .map(|((c, p, g), (total, free))| (c, p, g, total, free))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_tres_and_hostlists() {
        assert_eq!(
            canonicalize_raw_gpu_name("nvidia_h100_80gb_hbm3"),
            "H100-80GB"
        );
        assert_eq!(canonicalize_raw_gpu_name("nvidia_l40s"), "L40S");
        assert_eq!(canonicalize_raw_gpu_name("H100"), "H100");
        assert_eq!(canonicalize_raw_gpu_name("custom_gpu"), "CUSTOM_GPU");
        assert_eq!(gpu_count_from_tres("cpu=4,gres/gpu=8,gres/gpu:h100=8"), 8);
        assert_eq!(gpu_count_from_tres("gres/gpu:a=2,gres/gpu:b=3"), 5);
        assert_eq!(gpu_count_from_tres(""), 0);
        assert_eq!(
            expand_hostlist("n[01-03],m,r[1-2]x[1,3]"),
            ["n01", "n02", "n03", "m", "r1x1", "r1x3", "r2x1", "r2x3"]
        );
        assert_eq!(expand_hostlist("a[1-2],a1"), ["a1", "a2"]);
        assert_eq!(expand_hostlist("bad[x]"), ["bad[x]"]);
        assert_eq!(
            expand_hostlist("a[1-99999]b[1-99999]"),
            ["a[1-99999]b[1-99999]"]
        );
    }

    fn cluster(sinfo: &str, details: &str, jobs: Option<&str>) -> SlurmGpuCluster {
        let jobs = match jobs {
            Some(j) => CommandOutput::ok(j),
            None => CommandOutput {
                returncode: 1,
                stdout: String::new(),
                stderr: "squeue: error".into(),
            },
        };
        SlurmGpuCluster {
            name: "c".into(),
            answer: Ok(SlurmGpuAnswer {
                nodes: CommandOutput::ok(sinfo),
                node_details: CommandOutput::ok(details),
                jobs,
            }),
        }
    }

    #[test]
    fn free_gpus_from_tres_then_squeue() {
        let sinfo = "a\\x1fmix\\x1fgpu:h100:8\\x1f8\\x1f1024\\x1fgpu*\n\
                     a\\x1fmix\\x1fgpu:h100:8\\x1f8\\x1f1024\\x1fdebug\n\
                     b\\x1falloc\\x1fgpu:h100:8\\x1f8\\x1f1024\\x1fgpu*\n\
                     c\\x1fdrain\\x1fgpu:4\\x1f8\\x1f1024\\x1fgpu*\n";
        let details = "NodeName=a CfgTRES=cpu=8,gres/gpu=8 AllocTRES=gres/gpu=3\n";
        let mut logs = Vec::new();
        let nodes = node_gpus(&cluster(sinfo, details, Some("")), &mut logs).expect("nodes");
        assert_eq!(nodes[0].partition, "gpu*,debug");
        assert_eq!((nodes[0].total, nodes[0].free), (8, 5));
        assert_eq!(nodes[1].free, 0);
        assert_eq!(nodes[2].gpu_type.as_deref(), Some("GPU"));
        // b needs squeue, which failed: the whole cluster fails, as in SkyPilot.
        let failed = cluster_gpus(&cluster(sinfo, details, None), None, None, &mut logs);
        assert!(
            matches!(failed, ClusterGpus::Failed(t) if t.contains("Failed to get all jobs GRES."))
        );
        let ClusterGpus::Gpus(gpus) = cluster_gpus(
            &cluster(sinfo, details, Some("b\\x1fgpu:h100:2\n")),
            None,
            None,
            &mut logs,
        ) else {
            panic!("no GPUs")
        };
        assert_eq!(
            (gpus[1].gpu.as_str(), gpus[1].capacity, gpus[1].available),
            ("H100", 16, 11)
        );
        assert!(logs.is_empty());
        let none = cluster_gpus(
            &cluster(sinfo, details, Some("")),
            Some("A100"),
            None,
            &mut logs,
        );
        assert_eq!(none, ClusterGpus::Nothing);
        assert_eq!(
            logs,
            ["No matching GPU nodes found in the Slurm cluster with filters (gpu_name='A100')."]
        );
        let rows = partition_rows(&[(&cluster(sinfo, details, Some("")), nodes)]);
        assert_eq!(rows[0], ("c".into(), "debug".into(), "H100".into(), 8, 5));
    }
}
