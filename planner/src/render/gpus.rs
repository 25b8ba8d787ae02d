//! `sky gpus list` output: SkyPilot 0.14.1's
//! `sky/client/cli/command.py::_show_gpus_impl` tables and hint lines, and
//! its `-o json` document.
//!
//! The text is what SkyPilot writes to stdout, in one piece: the pieces its
//! generator yields, joined, plus the final newline of `click.echo()`
//! (`--all` goes through `echo_via_pager`, which ends with one as well).

use crate::gpus::kubernetes::NodesGpuInfo;
use crate::gpus::sections::{KubeSection, SlurmSection, Utilization};
use crate::gpus::{Num, Offer, Report, Section};
use crate::pytext::{format_fixed, py_float_str};
use crate::text::ansi::{BRIGHT, CYAN, GREEN, LIGHTMAGENTA, NORMAL, RESET, YELLOW};
use crate::text::table::borderless_table;

/// `_list_to_str`: whole floats as integers, the rest as Python prints them.
fn list_to_str(counts: &[f64]) -> String {
    counts
        .iter()
        .map(|c| {
            if c.fract() == 0.0 && c.is_finite() {
                format!("{c:.0}")
            } else {
                py_float_str(*c)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn table(header: &[&str], rows: Vec<Vec<String>>) -> String {
    let mut all = vec![header.iter().map(|h| h.to_string()).collect::<Vec<_>>()];
    all.extend(rows);
    borderless_table(&all)
}

fn cloud_gpus_title() -> String {
    format!("{CYAN}{BRIGHT}Cloud GPUs{RESET}\n")
}

/// The whole text of one `sky gpus list` (tables, hints, trailing newline).
pub fn text(report: &Report) -> String {
    let mut out = String::new();
    for section in &report.sections {
        match section {
            Section::Text(t) => out.push_str(t),
            Section::Log(line) => {
                out.push_str(line);
                out.push('\n');
            }
            Section::Kube(k) => out.push_str(&kube_section(k)),
            Section::Slurm(s) => out.push_str(&slurm_section(s)),
            Section::CloudGpusTitle => out.push_str(&cloud_gpus_title()),
            Section::Counts {
                common,
                tpus,
                other,
            } => {
                let rows = |v: &[(String, Vec<f64>)]| {
                    v.iter()
                        .map(|(n, c)| vec![n.clone(), list_to_str(c)])
                        .collect::<Vec<_>>()
                };
                out.push_str(&table(
                    &["COMMON_GPU", "AVAILABLE_QUANTITIES"],
                    rows(common),
                ));
                // An empty table still prints its header, so this is never skipped.
                out.push_str("\n\n");
                out.push_str(&table(&["GOOGLE_TPU", "AVAILABLE_QUANTITIES"], rows(tpus)));
                if let Some(other) = other {
                    out.push_str("\n\n");
                    out.push_str(&table(&["OTHER_GPU", "AVAILABLE_QUANTITIES"], rows(other)));
                    out.push_str("\n\n");
                }
            }
            Section::Offers { groups, region } => {
                for (i, (_, offers)) in groups.iter().enumerate() {
                    if i != 0 {
                        out.push_str("\n\n");
                    }
                    out.push_str(&offers_table(offers, *region));
                }
            }
        }
    }
    out.push('\n');
    out
}

fn num_or_dash(n: Num, f: impl Fn(f64) -> String) -> String {
    n.get().map_or_else(|| "-".to_string(), f)
}

/// One GPU's table: SkyPilot's nine columns, plus REGION unless `--all`.
fn offers_table(offers: &[Offer], region: bool) -> String {
    let mut header = vec![
        "GPU",
        "QTY",
        "CLOUD",
        "INSTANCE_TYPE",
        "DEVICE_MEM",
        "vCPUs",
        "HOST_MEM",
        "HOURLY_PRICE",
        "HOURLY_SPOT_PRICE",
    ];
    if region {
        header.push("REGION");
    }
    // The CLI rebuilds a DataFrame per GPU: when every vCPU count is an
    // integer the column is int64, and `isinstance(numpy.int64, (float,
    // int))` is false, so SkyPilot prints `-` for the whole column.
    let int_column = offers
        .iter()
        .all(|o| o.cpu_count.int && o.cpu_count.get().is_some());
    let rows = offers
        .iter()
        .map(|o| {
            let cpu_count = if int_column {
                Num::MISSING
            } else {
                o.cpu_count
            };
            let cpus = num_or_dash(cpu_count, |c| {
                if c.trunc() == c {
                    format!("{c:.0}")
                } else {
                    format_fixed(c, 1)
                }
            });
            let mut row = vec![
                o.accelerator_name.clone(),
                // numpy float64 after the CLI's DataFrame: `8.0`.
                py_float_str(o.accelerator_count),
                o.cloud.to_string(),
                o.instance_type
                    .clone()
                    .unwrap_or_else(|| "(attachable)".into()),
                o.device_memory
                    .filter(|m| !m.is_nan())
                    .map_or_else(|| "-".into(), |m| format!("{}GB", format_fixed(m, 0))),
                cpus,
                num_or_dash(o.memory, |m| format!("{}GB", format_fixed(m, 0))),
                num_or_dash(o.price, |p| format!("$ {}", format_fixed(p, 3))),
                num_or_dash(o.spot_price, |p| format!("$ {}", format_fixed(p, 3))),
            ];
            if region {
                row.push(o.region.clone().unwrap_or_else(|| "-".into()));
            }
            row
        })
        .collect();
    table(&header, rows)
}

/// A JSON number as Python's `json.dumps` writes it: integers of integer
/// columns bare, floats in `repr`, missing values `NaN`.
fn json_num(n: Num) -> String {
    match n.get() {
        None if n.int => "null".into(),
        None => "NaN".into(),
        Some(v) if n.int => format!("{v:.0}"),
        Some(v) => py_float_str(v),
    }
}

fn json_str(s: &Option<String>) -> String {
    match s {
        None => "NaN".into(),
        Some(s) => serde_json::to_string(s).unwrap_or_else(|_| "null".into()),
    }
}

/// `-o json`: `{gpu: [InstanceTypeInfo._asdict(), ...]}` as
/// `json.dumps(indent=2)` prints it (schema in the README: the ten fields
/// of SkyPilot's `InstanceTypeInfo`, missing values `NaN`, a device memory
/// SkyPilot cannot read `null`). SkyPilot's unsorted order, per cloud.
pub fn json(listing: &[(String, Vec<Offer>)]) -> String {
    if listing.is_empty() {
        return "{}\n".into();
    }
    let mut out = String::from("{\n");
    for (gi, (gpu, offers)) in listing.iter().enumerate() {
        out.push_str(&format!("  {}: ", json_str(&Some(gpu.clone()))));
        if offers.is_empty() {
            out.push_str("[]");
        } else {
            out.push_str("[\n");
            for (oi, o) in offers.iter().enumerate() {
                // A realtime cloud's offers hold Python `None`s (`null`), not NaNs.
                let none = o.cpu_count.int && o.cpu_count.get().is_none();
                let text = |v: &Option<String>| match v {
                    None if none => "null".to_string(),
                    _ => json_str(v),
                };
                let fields = [
                    ("cloud", json_str(&Some(o.cloud.to_string()))),
                    ("instance_type", text(&o.instance_type)),
                    (
                        "accelerator_name",
                        json_str(&Some(o.accelerator_name.clone())),
                    ),
                    ("accelerator_count", py_float_str(o.accelerator_count)),
                    ("cpu_count", json_num(o.cpu_count)),
                    (
                        "device_memory",
                        o.device_memory.map_or_else(
                            || "null".into(),
                            |m| {
                                if m.is_nan() {
                                    "NaN".into()
                                } else {
                                    py_float_str(m)
                                }
                            },
                        ),
                    ),
                    ("memory", json_num(o.memory)),
                    ("price", json_num(o.price)),
                    ("spot_price", json_num(o.spot_price)),
                    ("region", text(&o.region)),
                ];
                out.push_str("    {\n");
                for (fi, (k, v)) in fields.iter().enumerate() {
                    out.push_str(&format!("      \"{k}\": {v}"));
                    out.push_str(if fi + 1 < fields.len() { ",\n" } else { "\n" });
                }
                out.push_str("    }");
                out.push_str(if oi + 1 < offers.len() { ",\n" } else { "\n" });
            }
            out.push_str("  ]");
        }
        out.push_str(if gi + 1 < listing.len() { ",\n" } else { "\n" });
    }
    out.push_str("}\n");
    out
}

/// `click.UsageError` as click prints it for `sky gpus list` (stderr, exit 2).
pub fn usage_error(message: &str) -> String {
    format!(
        "Usage: sky gpus list [OPTIONS] [ACCELERATOR_STR]\nTry 'sky gpus list --help' for help.\n\nError: {message}"
    )
}

/// Ours: close names after a GPU name matched nothing, in the wording of
/// SkyPilot's catalog (`common.py::validate_region_zone_impl`).
pub fn did_you_mean(suggestions: &[String]) -> String {
    format!(
        "Did you mean one of these: {}?",
        crate::pytext::py_str_repr(&suggestions.join(", "))
    )
}

/// Ours (`-v`): a context left out because it could not be listed.
pub fn context_left_out(context: &str, why: &str) -> String {
    format!("Kubernetes context {context} left out: {why}")
}

fn utilization(u: &Utilization) -> String {
    let available = u
        .available
        .map_or_else(|| "<no permissions>".to_string(), |a| a.to_string());
    let mut s = format!("{available} of {} free", u.capacity);
    if u.not_ready > 0 {
        s.push_str(&format!(" ({} not ready)", u.not_ready));
    }
    s
}

fn counts_str(counts: &[u32]) -> String {
    counts
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn qty_header(filter: bool) -> &'static str {
    if filter {
        "QTY_FILTER"
    } else {
        "REQUESTABLE_QTY_PER_NODE"
    }
}

/// `_format_kubernetes_realtime_gpu`.
fn kube_section(k: &KubeSection) -> String {
    let identity = if k.ssh { "SSH Node Pool" } else { "Kubernetes" };
    let ctx_name = if k.ssh { "SSH Node Pool" } else { "Context" };
    let mut out = format!("{GREEN}{BRIGHT}{identity} GPUs{RESET}");
    if let Some(total) = &k.total {
        out.push('\n');
        out.push_str(&table(
            &["GPU", "UTILIZATION"],
            total
                .iter()
                .map(|(g, u)| vec![g.clone(), utilization(u)])
                .collect(),
        ));
    }
    for (ctx, rows) in &k.contexts {
        out.push('\n');
        let header = if ctx.is_empty() {
            format!("Default {ctx_name}")
        } else {
            format!("{ctx_name}: {ctx}")
        };
        out.push_str(&format!("{CYAN}{header}{RESET}\n"));
        out.push_str(&table(
            &["GPU", qty_header(k.quantity_header), "UTILIZATION"],
            rows.iter()
                .map(|(g, c, u)| vec![g.clone(), counts_str(c), utilization(u)])
                .collect(),
        ));
    }
    if let Some(nodes) = &k.nodes {
        out.push('\n');
        out.push_str(&node_table(
            nodes,
            identity,
            if k.ssh { "NODE_POOL" } else { "CONTEXT" },
        ));
    }
    out
}

/// `x of y free`, or `y` when the free part is unknown; `-` when unknown.
fn of_free(total: Option<f64>, free: Option<f64>) -> String {
    match (total, free) {
        (None, _) => "-".into(),
        (Some(t), None) => format_fixed(t, 0),
        (Some(t), Some(f)) => format!("{} of {} free", format_fixed(f, 0), format_fixed(t, 0)),
    }
}

/// `_format_kubernetes_node_info_combined`.
fn node_table(contexts: &[(String, NodesGpuInfo)], identity: &str, column: &str) -> String {
    let mut hints = Vec::new();
    let mut rows = Vec::new();
    for (ctx, info) in contexts {
        let ctx = if ctx.is_empty() {
            "default"
        } else {
            ctx.as_str()
        };
        if info.multi_host_tpu {
            hints.push(format!(
                "{ctx}: (Note: Multi-host TPUs are detected and excluded from the display as multi-host TPUs are not supported.)"
            ));
        }
        for n in &info.nodes {
            let free = if n.free == -1 {
                "<no permissions>".to_string()
            } else {
                n.free.to_string()
            };
            let mut status: Vec<String> = Vec::new();
            if !n.ready {
                status.push("NotReady".into());
            }
            if n.cordoned {
                status.push("Cordoned".into());
            }
            let mut by_effect: Vec<(&str, Vec<&str>)> = Vec::new();
            for t in n.taints.iter().filter(|t| !t.tolerated) {
                match by_effect.iter_mut().find(|(e, _)| *e == t.effect) {
                    Some((_, keys)) => keys.push(&t.key),
                    None => by_effect.push((&t.effect, vec![&t.key])),
                }
            }
            if !by_effect.is_empty() {
                status.push(
                    by_effect
                        .iter()
                        .map(|(e, keys)| format!("{e} Taint [{}]", keys.join(", ")))
                        .collect::<Vec<_>>()
                        .join(", "),
                );
            }
            rows.push(vec![
                ctx.to_string(),
                n.name.clone(),
                of_free(n.cpus, n.cpus_free),
                of_free(n.memory_gib, n.memory_free_gib),
                n.accelerator.clone().unwrap_or_else(|| "-".into()),
                format!("{free} of {} free", n.total),
                if status.is_empty() {
                    "Healthy".into()
                } else {
                    status.join(", ")
                },
            ]);
        }
    }
    let mut title = format!("{identity} per-node GPU availability");
    if !hints.is_empty() {
        title.push_str(&format!(" ({})", hints.join("; ")));
    }
    format!(
        "{CYAN}{BRIGHT}{title}{RESET}\n{}",
        table(
            &[
                column,
                "NODE",
                "vCPU",
                "Memory (GB)",
                "GPU",
                "GPU UTILIZATION",
                "NODE STATUS"
            ],
            rows
        )
    )
}

/// `_format_slurm_realtime_gpu` (with `_format_slurm_partition_info` for `-v`).
fn slurm_section(s: &SlurmSection) -> String {
    let mut out = format!("{GREEN}{BRIGHT}Slurm GPUs{RESET}\n");
    if let Some(total) = &s.total {
        out.push_str(&table(
            &["GPU", "UTILIZATION"],
            total
                .iter()
                .map(|(g, cap, free)| vec![g.clone(), format!("{free} of {cap} free")])
                .collect(),
        ));
        out.push('\n');
    }
    for (cluster, gpus) in &s.clusters {
        out.push_str(&format!("{CYAN}{BRIGHT}Slurm Cluster: {cluster}{RESET}\n"));
        out.push_str(&table(
            &["GPU", qty_header(s.quantity_header), "UTILIZATION"],
            gpus.iter()
                .map(|g| {
                    vec![
                        g.gpu.clone(),
                        counts_str(&g.counts),
                        format!("{} of {} free", g.available, g.capacity),
                    ]
                })
                .collect(),
        ));
        out.push('\n');
    }
    for (cluster, error) in &s.failed {
        out.push_str(&format!("{CYAN}{BRIGHT}Slurm Cluster: {cluster}{RESET}\n"));
        out.push_str(&format!("{YELLOW}Error: {error}{RESET}\n"));
    }
    if let Some(rows) = &s.partitions {
        out.push_str(&format!(
            "{LIGHTMAGENTA}{NORMAL}Slurm per-partition accelerator availability{RESET}\n"
        ));
        out.push_str(&table(
            &["CLUSTER", "PARTITION", "GPU", "UTILIZATION"],
            rows.iter()
                .map(|(c, p, g, total, free)| {
                    vec![
                        c.clone(),
                        p.clone(),
                        g.clone(),
                        format!("{free} of {total} free"),
                    ]
                })
                .collect(),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_print_like_python() {
        assert_eq!(list_to_str(&[0.167, 0.5, 1.0, 16.0]), "0.167, 0.5, 1, 16");
    }

    #[test]
    fn json_numbers_follow_the_column_type() {
        assert_eq!(
            json_num(Num {
                value: 224.0,
                int: true
            }),
            "224"
        );
        assert_eq!(
            json_num(Num {
                value: 192.0,
                int: false
            }),
            "192.0"
        );
        assert_eq!(json_num(Num::MISSING), "NaN");
    }
}
