//! `sky offers`: the offers of each task as a table (or, with
//! `--group-by`, one row per group), and the `-o json` document (schema
//! [`OFFERS_SCHEMA`], documented in the README and
//! `docs/sky-offers-v1.schema.json`). Warnings, the clouds left out and a
//! launch's error are worded as `sky launch` words them.

use super::launch::{Line, Stream, error, warning};
use crate::launch::Stage;
use crate::offers::{Group, Listing, Offer, OffersResult};
use crate::pytext::{format_fixed, py_str_repr};
use crate::resources::infra_display;
use crate::text::{format_number, framed_table, strip_ansi};

/// Version tag of `sky offers -o json`.
pub const OFFERS_SCHEMA: &str = "sky-offers/v1";

fn out(text: impl Into<String>) -> Line {
    Line {
        stream: Stream::Stdout,
        text: text.into(),
    }
}

fn err(text: impl Into<String>) -> Line {
    Line {
        stream: Stream::Stderr,
        text: text.into(),
    }
}

/// Everything `sky offers` prints for `result`.
pub fn offers(result: &OffersResult, json: bool) -> Vec<Line> {
    let prepared = &result.launch.prepared;
    let mut lines: Vec<Line> = prepared.warnings.iter().map(|w| warning(w)).collect();
    lines.extend(prepared.excluded.iter().map(|e| {
        warning(&format!(
            "{} left out of the offers: {}",
            e.cloud.repr(),
            e.reason
        ))
    }));
    if json {
        lines.push(out(
            serde_json::to_string_pretty(&document(result)).unwrap_or_default()
        ));
    } else if result.launch.error().is_none() {
        lines.extend(text(result).into_iter().map(out));
    }
    if let Some(e) = result.launch.error() {
        lines.push(err(error(e)));
    }
    lines
}

/// The tables, one per task (a chain's tasks each under their name).
pub fn text(result: &OffersResult) -> Vec<String> {
    let listings = result.listings();
    let multi = result.tasks.len() > 1;
    let mut lines = Vec::new();
    for (i, (task, listing)) in result.tasks.iter().zip(&listings).enumerate() {
        if multi {
            if i > 0 {
                lines.push(String::new());
            }
            lines.push(match task.name.as_deref() {
                Some(name) => format!("Task {} {}:", i + 1, py_str_repr(name)),
                None => format!("Task {}:", i + 1),
            });
        }
        lines.push(summary(listing, task.num_nodes));
        if listing.query.group_by.is_some() {
            if !listing.groups.is_empty() {
                lines.push(group_table(listing));
            }
        } else if !listing.offers.is_empty() {
            lines.push(offer_table(&listing.offers));
        }
    }
    lines
}

/// `$1.23`.
fn dollars(x: f64) -> String {
    format!("${}", format_fixed(x, 2))
}

/// The line above a table: what is shown of how many, and their prices.
fn summary(l: &Listing<'_>, num_nodes: u32) -> String {
    let nodes = if num_nodes > 1 {
        format!(" for {num_nodes} nodes")
    } else {
        String::new()
    };
    let filtered = if l.matched < l.enumerated {
        format!(" ({} of {} pass the filters)", l.matched, l.enumerated)
    } else {
        String::new()
    };
    let Some((lo, hi)) = l.price_range else {
        return if l.enumerated == 0 {
            format!("No offers{nodes}.")
        } else {
            format!(
                "No offers{nodes} pass the filters ({} enumerated).",
                l.enumerated
            )
        };
    };
    let prices = if lo == hi {
        format!("{} per hour", dollars(lo))
    } else {
        format!("{}-{} per hour", dollars(lo), dollars(hi))
    };
    match l.query.group_by {
        None => format!(
            "Shown {} of {} offers{nodes}, {prices}{filtered}:",
            l.offers.len(),
            l.matched
        ),
        Some(by) => format!(
            "Shown {} of {} groups by {} ({} offers{nodes}, {prices}){filtered}:",
            l.shown_groups().len(),
            l.groups.len(),
            by.name(),
            l.matched
        ),
    }
}

/// INSTANCE as the launch's table shows it (virtual types hidden, `[Spot]`).
fn instance(o: &Offer) -> String {
    use crate::cloud::CloudId;
    let mut s = if matches!(o.cloud, CloudId::Kubernetes | CloudId::Ssh | CloudId::Slurm) {
        if o.use_spot {
            String::new()
        } else {
            "-".into()
        }
    } else {
        o.instance_type.clone()
    };
    if o.use_spot {
        s.push_str("[Spot]");
    }
    s
}

fn gpus(o: &Offer) -> String {
    match (&o.accelerator, o.accelerator_count) {
        (Some(name), Some(count)) => format!("{name}:{}", crate::resources::AccCount(count)),
        _ => "-".into(),
    }
}

fn gpu_memory(o: &Offer) -> String {
    o.total_gpu_memory_gb()
        .map_or_else(|| "-".into(), |m| format!("{}GB", format_number(Some(m))))
}

fn gpu_price(o: &Offer) -> String {
    o.gpu_price()
        .map_or_else(|| "-".into(), |p| format_fixed(p, 2))
}

fn offer_table(offers: &[&Offer]) -> String {
    let header = [
        "INFRA", "INSTANCE", "vCPUs", "Mem(GB)", "GPUS", "GPU_MEM", "$/h", "$/GPU-h",
    ];
    let mut rows = vec![header.iter().map(|s| s.to_string()).collect::<Vec<_>>()];
    for o in offers {
        rows.push(vec![
            infra_display(Some(o.cloud), o.region.as_deref(), o.zone.as_deref()),
            instance(o),
            format_number(o.vcpus),
            format_number(o.memory_gb),
            gpus(o),
            gpu_memory(o),
            format_fixed(o.price, 2),
            gpu_price(o),
        ]);
    }
    framed_table(&rows)
}

fn group_table(l: &Listing<'_>) -> String {
    let by = l.query.group_by.map_or("", |b| b.name()).to_uppercase();
    let header = [by.as_str(), "OFFERS", "$/h", "CHEAPEST", "GPUS", "$/GPU-h"];
    let mut rows = vec![header.iter().map(|s| s.to_string()).collect::<Vec<_>>()];
    for g in l.shown_groups() {
        let o = g.cheapest;
        let range = if g.min_price == g.max_price {
            format_fixed(g.min_price, 2)
        } else {
            format!(
                "{}-{}",
                format_fixed(g.min_price, 2),
                format_fixed(g.max_price, 2)
            )
        };
        let inst = instance(o);
        let infra = infra_display(Some(o.cloud), o.region.as_deref(), o.zone.as_deref());
        rows.push(vec![
            g.key.clone(),
            g.count.to_string(),
            range,
            format!("{infra} {inst}").trim_end().to_string(),
            gpus(o),
            gpu_price(o),
        ]);
    }
    framed_table(&rows)
}

fn offer_json(o: &Offer) -> serde_json::Value {
    serde_json::json!({
        "cloud": o.cloud,
        "instance_type": o.instance_type,
        "region": o.region,
        "zone": o.zone,
        "accelerator": o.accelerator,
        "accelerator_count": o.accelerator_count,
        "gpu_memory_gb": o.gpu_memory_gb,
        "total_gpu_memory_gb": o.total_gpu_memory_gb(),
        "use_spot": o.use_spot,
        "vcpus": o.vcpus,
        "memory_gb": o.memory_gb,
        "num_nodes": o.num_nodes,
        "price": o.price,
        "gpu_price": o.gpu_price(),
    })
}

fn group_json(g: &Group<'_>) -> serde_json::Value {
    serde_json::json!({
        "key": g.key,
        "count": g.count,
        "min_price": g.min_price,
        "max_price": g.max_price,
        "cheapest": offer_json(g.cheapest),
    })
}

/// The `-o json` document (schema [`OFFERS_SCHEMA`]).
pub fn document(result: &OffersResult) -> serde_json::Value {
    let launch = &result.launch;
    let prepared = &launch.prepared;
    let q = &result.query;
    let listings = result.listings();
    let tasks: Vec<serde_json::Value> = result
        .tasks
        .iter()
        .zip(&listings)
        .map(|(t, l)| {
            serde_json::json!({
                "name": t.name,
                "num_nodes": t.num_nodes,
                "enumerated": l.enumerated,
                "matched": l.matched,
                "price_min": l.price_range.map(|r| r.0),
                "price_max": l.price_range.map(|r| r.1),
                "offers": l.offers.iter().map(|o| offer_json(o)).collect::<Vec<_>>(),
                "groups": q.group_by.map(|_| l.shown_groups().iter().map(group_json).collect::<Vec<_>>()),
                "total_groups": q.group_by.map(|_| l.groups.len()),
            })
        })
        .collect();
    let error = launch.error().map(|e| {
        serde_json::json!({
            "kind": e.kind.python_name(),
            "message": strip_ansi(&e.message),
            "stage": match launch.stage {
                Stage::Entrypoint => "entrypoint",
                Stage::Overrides => "overrides",
                Stage::Validation => "validation",
                Stage::Optimization => "optimization",
            },
        })
    });
    serde_json::json!({
        "schema": OFFERS_SCHEMA,
        "enabled_clouds": prepared.world.enabled.iter().map(|c| c.name()).collect::<Vec<_>>(),
        "excluded": prepared.excluded.iter().map(|e| serde_json::json!({"cloud": e.cloud.name(), "reason": e.reason})).collect::<Vec<_>>(),
        "catalog": prepared.catalog_source.to_string(),
        "query": {
            "market": result.market.name(),
            "sort_by": q.sort.name(),
            "desc": q.desc,
            "group_by": q.group_by.map(|g| g.name()),
            "max_offers": q.max_offers,
            "max_price": q.filters.max_price,
            "min_gpu_memory_gb": q.filters.min_gpu_memory_gb,
            "min_total_gpu_memory_gb": q.filters.min_total_gpu_memory_gb,
        },
        "tasks": tasks,
        "error": error,
    })
}
