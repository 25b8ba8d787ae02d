//! `sky gpus list` output: SkyPilot 0.14.1's
//! `sky/client/cli/command.py::_show_gpus_impl` tables and hint lines, and
//! its `-o json` document.
//!
//! The text is what SkyPilot writes to stdout, in one piece: the pieces its
//! generator yields, joined, plus the final newline of `click.echo()`
//! (`--all` goes through `echo_via_pager`, which ends with one as well).

use crate::gpus::{Num, Offer, Report, Section};
use crate::pytext::{format_fixed, py_float_str};
use crate::render::ansi::{BRIGHT, CYAN, RESET};
use crate::render::table::borderless_table;

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
                let fields = [
                    ("cloud", json_str(&Some(o.cloud.to_string()))),
                    ("instance_type", json_str(&o.instance_type)),
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
                    ("region", json_str(&o.region)),
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

/// `--infra` on a Kubernetes-like cloud: not listed by this command.
pub fn realtime_not_listed(cloud: crate::cloud::CloudId) -> String {
    format!(
        "sky gpus list --infra {}: the GPUs of {} nodes are not listed by this sky (SkyPilot 0.14.1 reads each node and its pods); `sky launch --dryrun --gpus NAME --infra {}` plans on them.",
        cloud.name(),
        cloud.repr(),
        cloud.name()
    )
}

/// The warning when enabled Kubernetes-like clouds are left out of a listing.
pub fn realtime_left_out(clouds: &[crate::cloud::CloudId]) -> String {
    let names: Vec<&str> = clouds.iter().map(|c| c.repr()).collect();
    format!(
        "{} enabled: their nodes' GPUs are not listed here, only the cloud catalogs (SkyPilot 0.14.1 lists them first).",
        names.join(", ")
    )
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
