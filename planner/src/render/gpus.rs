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
use crate::text::table::{BorderlessCells, borderless_table};

/// `_list_to_str`: whole floats as integers, the rest as Python prints them.
fn push_list(out: &mut String, counts: &[f64]) {
    for (i, c) in counts.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if c.fract() == 0.0 && c.is_finite() {
            push_whole(out, *c);
        } else {
            out.push_str(&py_float_str(*c));
        }
    }
}

/// A quantity table: each GPU name and its `_list_to_str` counts.
fn counts_table(title: &str, rows: &[(String, Vec<f64>)]) -> String {
    let mut cells = BorderlessCells::new(&[title, "AVAILABLE_QUANTITIES"], rows.len());
    for (name, counts) in rows {
        cells.cell(name);
        push_list(cells.text(), counts);
        cells.end();
    }
    cells.finish()
}

fn table(header: &[&str], rows: Vec<Vec<String>>) -> String {
    let mut all = vec![header.iter().map(|h| h.to_string()).collect::<Vec<_>>()];
    all.extend(rows);
    borderless_table(&all)
}

/// `f"{x:.0f}"` of a whole `x` (Python's `{:.0f}` and Rust's `{:.0}`):
/// below 2^53 its integer digits, written as an integer (negative zero
/// keeps its sign, as Python keeps it).
fn push_whole(out: &mut String, x: f64) {
    use std::fmt::Write;
    if x.abs() < 9_007_199_254_740_992.0 {
        if x.is_sign_negative() {
            out.push('-');
        }
        // Whole and below 2^53: the conversion is exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        push_digits(out, x.abs() as u64, 0);
    } else {
        let _ = write!(out, "{x:.0}");
    }
}

/// [`py_float_str`] written into `out`: a whole float below 2^53 is its
/// integer digits and `.0`; the rest as `py_float_str` prints it.
fn push_py_float(out: &mut String, x: f64) {
    if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 {
        push_whole(out, x);
        out.push_str(".0");
    } else {
        out.push_str(&py_float_str(x));
    }
}

/// [`format_fixed`] (Python's `f"{x:.{digits}f}"`: the exact binary value
/// rounded half to even) written into `out` without formatting a float:
/// `y = x * 10^digits` is within 1.2e-4 of the exact product when below
/// 10^12 (one rounding, relative error 2^-53, and `10^digits` is exact),
/// so when `y` is more than 0.001 from a half its nearest integer `n` is the
/// exact product's, and the answer is `n`'s digits with a point put in.
/// Near a half (a possible tie), and for large or odd values,
/// `format_fixed`.
fn push_fixed(out: &mut String, x: f64, digits: usize) {
    const SCALE: [f64; 7] = [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6];
    let y = match SCALE.get(digits) {
        Some(scale) if x.is_finite() => x * scale,
        _ => f64::INFINITY,
    };
    let n = y.round();
    if !(y.abs() < 1e12 && (y - n).abs() < 0.499) {
        out.push_str(&format_fixed(x, digits));
        return;
    }
    if x.is_sign_negative() {
        // Python keeps the sign of a negative value rounded to zero (`-0.000`).
        out.push('-');
    }
    // Whole and below 10^12: the conversion is exact.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    push_digits(out, n.abs() as u64, digits);
}

/// `n`'s decimal digits, at least `decimals + 1` of them (zeros in front),
/// with a point before the last `decimals`; pushed one by one (a price has
/// a handful: cheaper than a formatter or a checked slice).
fn push_digits(out: &mut String, mut n: u64, decimals: usize) {
    // Least significant first; a `u64` has at most 20 digits, `decimals` ≤ 6.
    let mut digits = [b'0'; 24];
    let mut len = 0;
    loop {
        // A digit: `n % 10 < 10`.
        #[allow(clippy::cast_possible_truncation)]
        let digit = (n % 10) as u8;
        digits[len] = b'0' + digit;
        len += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let len = len.max(decimals + 1);
    out.reserve(len + 1);
    for i in (0..len).rev() {
        out.push(char::from(digits[i]));
        if i == decimals && decimals > 0 {
            out.push('.');
        }
    }
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
                out.push_str(&counts_table("COMMON_GPU", common));
                // An empty table still prints its header, so this is never skipped.
                out.push_str("\n\n");
                out.push_str(&counts_table("GOOGLE_TPU", tpus));
                if let Some(other) = other {
                    out.push_str("\n\n");
                    out.push_str(&counts_table("OTHER_GPU", other));
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
    let mut cells = BorderlessCells::new(&header, offers.len());
    for o in offers {
        cells.cell(&o.accelerator_name);
        // numpy float64 after the CLI's DataFrame: `8.0`.
        push_py_float(cells.text(), o.accelerator_count);
        cells.end();
        cells.cell(o.cloud);
        cells.cell(o.instance_type.as_deref().unwrap_or("(attachable)"));
        match o.device_memory.filter(|m| !m.is_nan()) {
            Some(m) => {
                push_fixed(cells.text(), m, 0);
                cells.text().push_str("GB");
            }
            None => cells.text().push('-'),
        }
        cells.end();
        match o.cpu_count.get().filter(|_| !int_column) {
            Some(c) if c.trunc() == c => push_whole(cells.text(), c),
            Some(c) => push_fixed(cells.text(), c, 1),
            None => cells.text().push('-'),
        }
        cells.end();
        match o.memory.get() {
            Some(m) => {
                push_fixed(cells.text(), m, 0);
                cells.text().push_str("GB");
            }
            None => cells.text().push('-'),
        }
        cells.end();
        for price in [o.price, o.spot_price] {
            match price.get() {
                Some(p) => {
                    cells.text().push_str("$ ");
                    push_fixed(cells.text(), p, 3);
                }
                None => cells.text().push('-'),
            }
            cells.end();
        }
        if region {
            cells.cell(o.region.as_deref().unwrap_or("-"));
        }
    }
    cells.finish()
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

fn json_str(s: Option<&str>) -> String {
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
        out.push_str(&format!("  {}: ", json_str(Some(gpu))));
        if offers.is_empty() {
            out.push_str("[]");
        } else {
            out.push_str("[\n");
            for (oi, o) in offers.iter().enumerate() {
                // A realtime cloud's offers hold Python `None`s (`null`), not NaNs.
                let none = o.cpu_count.int && o.cpu_count.get().is_none();
                let text = |v: Option<&str>| match v {
                    None if none => "null".to_string(),
                    _ => json_str(v),
                };
                let fields = [
                    ("cloud", json_str(Some(o.cloud))),
                    ("instance_type", text(o.instance_type.as_deref())),
                    ("accelerator_name", json_str(Some(&o.accelerator_name))),
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
                    ("region", text(o.region.as_deref())),
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
        let mut s = String::new();
        push_list(&mut s, &[0.167, 0.5, 1.0, 16.0]);
        assert_eq!(s, "0.167, 0.5, 1, 16");
    }

    /// Catalog-like numbers (prices of up to 6 decimals, their halves and
    /// neighbours, ties, carries, large and odd values) and random bit patterns.
    fn numbers() -> Vec<f64> {
        let mut xs = vec![
            0.0,
            -0.0,
            0.125,
            0.375,
            2.675,
            1.005,
            17.15,
            0.384,
            3.06,
            9.9996,
            99.9995,
            -0.0004,
            -9.9996,
            0.0005,
            0.5,
            1.5,
            2.5,
            1e-7,
            123456789.987654,
            1e9,
            1e12,
            1e17,
            0.1 + 0.2,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            f64::MAX,
        ];
        for scale in [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6] {
            for i in 0..1500u32 {
                let v = f64::from(i * 37 + i % 7) / scale;
                xs.extend([v, -v, v / 3.0, v + 0.0005, v * 1.000_000_1]);
            }
        }
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            xs.push(f64::from_bits(state));
            xs.push(f64::from_bits(state) % 1e6);
        }
        xs
    }

    #[test]
    fn numbers_written_in_place_read_as_pythons_formatting() {
        for x in numbers() {
            for digits in 0..=7 {
                let mut s = String::from("$ ");
                push_fixed(&mut s, x, digits);
                assert_eq!(s[2..], format_fixed(x, digits), "{x:e} at {digits}");
            }
            let mut s = String::new();
            push_py_float(&mut s, x);
            assert_eq!(s, py_float_str(x), "{x:e}");
            if x.fract() == 0.0 || x.is_infinite() {
                let mut s = String::new();
                push_whole(&mut s, x);
                assert_eq!(s, format!("{x:.0}"), "{x:e}");
            }
        }
    }

    #[test]
    fn cells_lay_out_as_the_borderless_table() {
        let rows: Vec<Vec<String>> = vec![
            vec!["GPU".into(), "QTY".into(), "NOTE".into()],
            vec!["A100".into(), "8.0".into(), "".into()],
            vec!["\x1b[1mH100\x1b[0m".into(), "1.0".into(), "表格".into()],
            vec!["".into(), "".into(), "-".into()],
        ];
        let build = |rows: &[Vec<String>]| {
            let header: Vec<&str> = rows[0].iter().map(String::as_str).collect();
            let mut cells = BorderlessCells::new(&header, rows.len() - 1);
            for r in &rows[1..] {
                for c in r {
                    cells.cell(c);
                }
            }
            cells.finish()
        };
        assert_eq!(build(&rows), borderless_table(&rows));
        let mut multi = rows.clone();
        multi[2][1] = "two\nlines".into();
        assert_eq!(build(&multi), borderless_table(&multi));
        assert_eq!(build(&rows[..1]), borderless_table(&rows[..1]));
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
