//! What SkyPilot's optimizer logs: its notices ([`super::notices`]), then
//! the plan's tables and the instance hints after them (`sky/optimizer.py`
//! `print_optimized_plan`, `_print_candidates`), from the [`Plan`]'s
//! names and numbers.

use super::notices::notice;
use crate::cloud::CloudId;
use crate::egress::EgressRow;
use crate::optimize::{Considered, InstanceHints, Optimized, Plan, TaskPlan};
use crate::pytext::{format_fixed, format_float, py_str_repr};
use crate::resources::{AccCount, DiskTier, infra_display};
use crate::text::{ansi, format_number, framed_table};

/// Everything the optimizer logs, one entry per `logger.info`, with ANSI colours.
pub fn log(optimized: &Optimized) -> Vec<String> {
    let mut out: Vec<String> = optimized.notices.iter().flat_map(notice).collect();
    if let Ok(plan) = &optimized.result {
        out.extend(plan_log(plan));
    }
    out
}

/// A plan's tables and hints.
pub fn plan_log(plan: &Plan) -> Vec<String> {
    let mut out = plan_tables(&plan.tasks, &plan.egress, plan.tasks.len() > 1);
    for task in &plan.tasks {
        if let Some(hints) = &task.instance_hints {
            out.extend(instance_hints(&task.chosen, hints));
        }
    }
    out
}

/// A row's cells as the table shows them (`_get_resources_element_list`
/// and the cost): INFRA, INSTANCE, vCPUs, Mem(GB), GPUS, COST ($).
pub fn cells(c: &Considered) -> [String; 6] {
    // Virtual instance types are not shown (`_instance_type_str`).
    let mut instance = if matches!(c.cloud, CloudId::Kubernetes | CloudId::Ssh | CloudId::Slurm) {
        if c.use_spot {
            String::new()
        } else {
            "-".to_string()
        }
    } else {
        c.instance_type.clone()
    };
    if c.use_spot {
        instance.push_str("[Spot]");
    }
    [
        infra_display(Some(c.cloud), c.region.as_deref(), c.zone.as_deref()),
        instance,
        format_number(c.vcpus),
        format_number(c.memory_gb),
        c.accelerators.clone().unwrap_or_else(|| "-".to_string()),
        format_fixed(c.cost, 2),
    ]
}

/// The "Considered resources" tables (and, for a chain, the "Best plan"
/// table first, then the egress plan), one entry per `logger.info`.
fn plan_tables(plans: &[TaskPlan], egress: &[EgressRow], multi_task: bool) -> Vec<String> {
    let mut out = Vec::new();
    let fields = ["INFRA", "INSTANCE", "vCPUs", "Mem(GB)", "GPUS"];
    if multi_task {
        out.push(format!("{}Best plan: {}", ansi::BRIGHT, ansi::RESET));
        let mut header: Vec<String> = vec!["TASK".into(), "#NODES".into()];
        header.extend(fields.iter().map(|s| s.to_string()));
        let mut rows = vec![header];
        for p in plans {
            let mut row = vec![p.name.clone().unwrap_or_default(), p.num_nodes.to_string()];
            let [infra, instance, vcpus, mem, gpus, _] = cells(&p.chosen);
            row.extend([infra, instance, vcpus, mem, gpus]);
            rows.push(row);
        }
        out.push(framed_table(&rows));
    }
    // `_print_egress_plan`: `logger.info(f'Egress plan:\n{table}\n')`.
    if !egress.is_empty() {
        let mut rows = vec![vec![
            "SOURCE".to_string(),
            "TARGET".to_string(),
            "SIZE (GB)".to_string(),
            "COST ($)".to_string(),
        ]];
        rows.extend(egress.iter().map(|e| {
            vec![
                e.source.clone(),
                e.target.clone(),
                e.size.clone(),
                crate::egress::cost_text(e.cost),
            ]
        }));
        out.push(format!("Egress plan:\n{}\n", framed_table(&rows)));
    }
    for p in plans {
        if multi_task {
            out.push(String::new());
        }
        let plural = if p.num_nodes > 1 { "s" } else { "" };
        let task_str = match (&p.name, multi_task) {
            (Some(n), true) => format!("for task {} ", py_str_repr(n)),
            _ => String::new(),
        };
        out.push(format!(
            "Considered resources {task_str}({} node{plural}):",
            p.num_nodes
        ));
        let mut header: Vec<String> = fields.iter().map(|s| s.to_string()).collect();
        header.push("COST ($)".into());
        header.push("CHOSEN".into());
        let mut rows = vec![header];
        for r in &p.table_rows {
            // The cells moved in, not cloned; room for CHOSEN up front.
            let mut row: Vec<String> = Vec::with_capacity(7);
            row.extend(cells(r));
            row.push(if r.resources == p.chosen.resources {
                format!("{}   \u{2714}{}", ansi::GREEN, ansi::RESET)
            } else {
                String::new()
            });
            rows.push(row);
        }
        out.push(framed_table(&rows));
        if p.chosen.resources.disk_tier == Some(DiskTier::Ultra) {
            out.push("Using disk_tier=ultra will utilize more advanced disks (io2 Block Express on AWS and extreme persistent disk on GCP), which can lead to significant higher costs (~$2/h).".into());
        }
    }
    out
}

/// `_print_candidates`: the clouds where several instance types offer the
/// chosen accelerator, naming the task's chosen resource.
fn instance_hints(chosen: &Considered, hints: &InstanceHints) -> Vec<String> {
    let cheapest = simplified(chosen, hints);
    let mut out: Vec<String> = hints
        .clouds
        .iter()
        .map(|m| {
            format!(
                "{}🔍 Multiple {} instances satisfy {}:{}. The cheapest {} is considered among: {}.{}",
                ansi::DIM,
                m.cloud.repr(),
                hints.accelerator,
                hints.count as i64,
                cheapest,
                m.instance_types.join(", "),
                ansi::RESET
            )
        })
        .collect();
    if !out.is_empty() {
        out.push(format!(
            "To list more details, run: sky gpus list {}\n",
            hints.accelerator
        ));
    }
    out
}

/// The chosen resource in `format_resource(simplify=True)`'s form:
/// `(gpus=H100:8, p5.48xlarge, ...)`, `[spot](gpus=..., cpus=4, mem=16, ...)`.
fn simplified(chosen: &Considered, hints: &InstanceHints) -> String {
    let mut parts = vec![format!(
        "gpus={}:{}",
        hints.accelerator,
        AccCount(hints.count)
    )];
    // `format_resource` tests the canonical name: SSH is not `kubernetes`,
    // and Slurm shows no instance type.
    match chosen.cloud {
        CloudId::Kubernetes => {
            if let Some(c) = chosen.vcpus {
                parts.push(format!("cpus={}", format_float(c)));
            }
            if let Some(m) = chosen.memory_gb {
                parts.push(format!("mem={}", format_float(m)));
            }
        }
        CloudId::Slurm => {}
        _ => {
            let it = &chosen.instance_type;
            let short: String = if it.chars().count() > 15 {
                it.chars().take(15).collect::<String>() + "..."
            } else {
                it.clone()
            };
            parts.push(short);
        }
    }
    parts.push("...".into());
    let spot = if chosen.use_spot { "[spot]" } else { "" };
    format!("{spot}({})", parts.join(", "))
}
