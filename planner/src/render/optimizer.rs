//! What SkyPilot's optimizer logs: the [`Notice`]s before the tables, the
//! tables themselves and the instance hints after them (`sky/optimizer.py`
//! `_fill_in_launchable_resources`, `_check_specified_clouds`,
//! `print_optimized_plan`, `_print_candidates`).

use super::{ansi, framed_table};
use crate::cloud::CloudId;
use crate::optimize::{InstanceHints, Notice, Optimized, Plan, TaskPlan, Tip, Unsatisfied};
use crate::pytext::{py_float_str, py_list, py_str_repr};
use crate::resources::DiskTier;

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
    let mut out = plan_tables(&plan.tasks, plan.tasks.len() > 1);
    for task in &plan.tasks {
        if let Some(hints) = &task.instance_hints {
            out.extend(instance_hints(hints));
        }
    }
    out
}

/// `Kubernetes._log_unreachable_context` (for SSH Node Pools too).
pub fn kube_context_excluded(context: &str, reason: &str) -> String {
    format!("Excluding Kubernetes context {context}: {reason}")
}

/// What `_log_unreachable_context` adds once every context is unreachable.
pub fn all_kube_contexts_unreachable() -> String {
    format!(
        "All Kubernetes contexts are unreachable. Retry if it is a transient error, or run {}sky check{} to refresh Kubernetes availability if permanent.",
        ansi::BRIGHT,
        ansi::RESET
    )
}

/// The entries one notice logs.
pub fn notice(notice: &Notice) -> Vec<String> {
    match notice {
        Notice::Unsatisfied(u) => unsatisfied(u),
        Notice::CloudsNotEnabled { task, clouds } => vec![format!(
            "{}{}{}",
            ansi::YELLOW,
            clouds_not_enabled(task.as_deref(), clouds),
            ansi::RESET
        )],
        Notice::KubeContextExcluded { context, reason } => {
            vec![kube_context_excluded(context, reason)]
        }
        Notice::AllKubeContextsUnreachable => vec![all_kube_contexts_unreachable()],
        Notice::CloudLog { message, .. } => vec![message.clone()],
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

/// `_check_specified_clouds`' text: a warning, or the error when every
/// resource of the task names a disabled cloud.
pub fn clouds_not_enabled(task: Option<&str>, clouds: &[CloudId]) -> String {
    let names: Vec<&str> = clouds.iter().map(|c| c.name()).collect();
    let task_str = match task {
        Some(n) => format!("Task {}", py_str_repr(n)),
        None => "Task".to_string(),
    };
    let verb = if clouds.len() > 1 { "are" } else { "is" };
    format!(
        "{task_str} requires {} which {verb} not enabled. To enable access, change the task cloud requirement or run: {}sky check {}{}",
        names.join(", "),
        ansi::BRIGHT,
        names.join(" "),
        ansi::RESET
    )
}

fn grey(s: &str) -> String {
    format!("{}{s}{}", ansi::LIGHTBLACK, ansi::RESET)
}

fn unsatisfied(u: &Unsatisfied) -> Vec<String> {
    let clouds = if u.clouds.len() > 1 {
        super::cloud_list(&u.clouds)
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
    for (cloud, hint) in &u.cloud_hints {
        out.push(grey(&format!("{}: {hint}", cloud.repr())));
    }
    out
}

/// The "Considered resources" tables (and, for a chain, the "Best plan"
/// table first), one entry per `logger.info`.
fn plan_tables(plans: &[TaskPlan], multi_task: bool) -> Vec<String> {
    let mut out = Vec::new();
    let fields = ["INFRA", "INSTANCE", "vCPUs", "Mem(GB)", "GPUS"];
    if multi_task {
        out.push(format!("{}Best plan: {}", ansi::BRIGHT, ansi::RESET));
        let mut header: Vec<String> = vec!["TASK".into(), "#NODES".into()];
        header.extend(fields.iter().map(|s| s.to_string()));
        let mut rows = vec![header];
        for p in plans {
            let mut row = vec![p.name.clone().unwrap_or_default(), p.num_nodes.to_string()];
            row.extend(p.chosen.cells[..5].iter().cloned());
            rows.push(row);
        }
        out.push(framed_table(&rows));
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
            let mut row: Vec<String> = r.cells.to_vec();
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

fn instance_hints(hints: &InstanceHints) -> Vec<String> {
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
                m.cheapest,
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
