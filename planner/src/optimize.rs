//! The optimizer (spec §3): candidate enumeration, cost, plan selection, and
//! the messages SkyPilot logs along the way. Pure and synchronous.
//!
//! Output is a log of messages (with SkyPilot's ANSI codes, stripped later by
//! the renderer when colours are off) plus a structured [`Plan`].

use crate::cloud::CloudId;
use crate::feasibility;
use crate::pytext::py_list;
use crate::pytext::py_str_repr;
use crate::render::{self, ansi};
use crate::resources::{Accelerator, ErrorKind, RequestError, Resources, infra_display};
use crate::task::{Dag, ResourceSet, Task};
use crate::world::World;

/// One launchable row the optimizer considered, with its cost.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Considered {
    /// Cloud.
    pub cloud: CloudId,
    /// Instance type (virtual for Kubernetes).
    pub instance_type: String,
    /// Region (Kubernetes: the context).
    pub region: Option<String>,
    /// Zone.
    pub zone: Option<String>,
    /// Accelerator as `NAME:COUNT`, if any.
    pub accelerators: Option<String>,
    /// Spot instance.
    pub use_spot: bool,
    /// vCPUs of the instance type.
    pub vcpus: Option<f64>,
    /// Memory (GB) of the instance type.
    pub memory_gb: Option<f64>,
    /// Cost for one hour of all nodes (USD).
    pub cost: f64,
    /// The table cells (INFRA, INSTANCE, vCPUs, Mem(GB), GPUS, COST ($)).
    #[serde(skip)]
    pub cells: [String; 6],
    /// Index of the requested resource this row came from.
    #[serde(skip)]
    pub request_index: usize,
    #[serde(skip)]
    resources: Resources,
}

/// The plan for one task.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TaskPlan {
    /// Task name.
    pub name: Option<String>,
    /// Number of nodes.
    pub num_nodes: u32,
    /// The chosen launchable.
    pub chosen: Considered,
    /// Every launchable considered, in enumeration order.
    pub considered: Vec<Considered>,
    /// The rows of the table (one per group), in display order.
    pub table_rows: Vec<Considered>,
}

/// The result of an optimisation.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Plan {
    /// Per task, in order.
    pub tasks: Vec<TaskPlan>,
    /// Total cost per hour of the plan.
    pub total_cost: f64,
}

/// A log plus either a plan or SkyPilot's error.
#[derive(Debug, Clone)]
pub struct Optimized {
    /// Everything SkyPilot's optimizer logs, in order (one entry per `logger.info`).
    pub log: Vec<String>,
    /// The plan, or the error that ended the optimisation.
    pub result: Result<Plan, RequestError>,
}

struct Enumeration {
    /// Launchables per requested resource.
    launchable: Vec<Vec<Resources>>,
    /// Feasible candidates per cloud, in first-seen order.
    cloud_candidates: Vec<(CloudId, Vec<Resources>)>,
    fuzzy: Vec<String>,
    hints: Vec<(usize, String)>,
}

fn ctx_err<T>(r: Result<T, String>) -> Result<T, RequestError> {
    r.map_err(RequestError::value)
}

/// Enumerates launchables for each requested resource of `task` (`_fill_in_launchable_resources`).
fn fill_in_launchable(
    world: &World,
    task: &Task,
    resources: &[Resources],
    quiet: bool,
    log: &mut Vec<String>,
) -> Result<Enumeration, RequestError> {
    let mut out = Enumeration {
        launchable: Vec::new(),
        cloud_candidates: Vec::new(),
        fuzzy: Vec::new(),
        hints: Vec::new(),
    };
    for (idx, r) in resources.iter().enumerate() {
        let mut list = Vec::new();
        if let Some(c) = r.cloud
            && !world.enabled.contains(&c)
        {
            out.launchable.push(list);
            continue;
        }
        let clouds: Vec<CloudId> = match r.cloud {
            Some(c) => vec![c],
            None => world.enabled.clone(),
        };
        let mut hints: Vec<(CloudId, String)> = Vec::new();
        for &cloud in &clouds {
            let feasible = feasibility::feasible_resources(world, cloud, r, task.num_nodes)?;
            if let Some(h) = feasible.hint {
                hints.push((cloud, h.clone()));
                out.hints.push((idx, h));
            }
            if let Some(cheapest) = feasible.resources.first() {
                list.extend(make_launchables(world, cloud, cheapest));
                match out.cloud_candidates.iter_mut().find(|(c, _)| *c == cloud) {
                    Some((_, v)) => v.extend(feasible.resources.iter().cloned()),
                    None => out
                        .cloud_candidates
                        .push((cloud, feasible.resources.clone())),
                }
            } else {
                for f in feasible.fuzzy {
                    if !out.fuzzy.contains(&f) {
                        out.fuzzy.push(f);
                    }
                }
            }
        }
        if list.is_empty() && !(quiet || r.no_missing_accel_warnings) {
            let clouds_str = if clouds.len() > 1 {
                format!(
                    "[{}]",
                    clouds
                        .iter()
                        .map(|c| c.repr())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            } else {
                clouds
                    .first()
                    .map_or("[]".to_string(), |c| c.repr().to_string())
            };
            let nodes = if task.num_nodes > 1 {
                format!("{}x ", task.num_nodes)
            } else {
                String::new()
            };
            log.push(format!(
                "No resource satisfying {nodes}{} on {clouds_str}.",
                repr_with_region_zone(world, r)
            ));
            if !out.fuzzy.is_empty() {
                let mut sorted = out.fuzzy.clone();
                sorted.sort();
                log.push(format!(
                    "Did you mean: {}{}{}",
                    ansi::CYAN,
                    py_list(&sorted),
                    ansi::RESET
                ));
            } else {
                if r.cpus.is_some() {
                    log.push(grey("- Try specifying a different CPU count, or add \"+\" to the end of the CPU count to allow for larger instances."));
                }
                if r.memory.is_some() {
                    log.push(grey("- Try specifying a different memory size, or add \"+\" to the end of the memory size to allow for larger instances."));
                }
                if r.local_disk.is_some() {
                    log.push(grey("- Try using \"+\" suffix for at-least matching (e.g., \"nvme:500+\"), or reduce the size requirement. "));
                }
                if let Some(m) = r.max_hourly_cost {
                    log.push(grey(&format!(
                        "- Max hourly cost limit (${}/hr) may be too restrictive. Try increasing the limit or removing it to see available options.",
                        crate::pytext::py_float_str(m)
                    )));
                }
            }
            for (cloud, hint) in &hints {
                log.push(grey(&format!("{}: {hint}", cloud.repr())));
            }
        }
        out.launchable.push(list);
    }
    out.fuzzy.sort();
    Ok(out)
}

fn grey(s: &str) -> String {
    format!("{}{s}{}", ansi::LIGHTBLACK, ansi::RESET)
}

fn repr_with_region_zone(world: &World, r: &Resources) -> String {
    let mem = feasibility::effective_memory(world, r);
    let acc = feasibility::effective_accelerator(world, r);
    r.repr_with_region_zone_with(mem.as_deref(), acc.as_ref())
}

/// The repr of a resource as SkyPilot prints it in messages.
pub fn resources_repr(world: &World, r: &Resources) -> String {
    let mem = feasibility::effective_memory(world, r);
    let acc = feasibility::effective_accelerator(world, r);
    r.repr_with(mem.as_deref(), acc.as_ref())
}

/// `make_launchables_for_valid_region_zones`.
fn make_launchables(world: &World, cloud: CloudId, cheapest: &Resources) -> Vec<Resources> {
    let regions = feasibility::regions_with_offering(world, cloud, cheapest);
    let mut out = Vec::new();
    for rz in regions {
        if !rz.zones.is_empty() && (cheapest.use_spot || world.optimizes_by_zone(cloud)) {
            for z in rz.zones {
                let mut r = cheapest.clone();
                r.region = Some(rz.region.clone());
                r.zone = Some(z);
                out.push(r);
            }
        } else {
            // SkyPilot's `copy(region=...)` keeps a zone the request pinned.
            let mut r = cheapest.clone();
            r.region = Some(rz.region);
            out.push(r);
        }
    }
    out
}

fn considered(world: &World, r: &Resources, cost: f64, request_index: usize) -> Considered {
    let cloud = r.cloud.unwrap_or(CloudId::Aws);
    let it = r.instance_type.clone().unwrap_or_default();
    let (vcpus, mem) = world.vcpus_mem(cloud, &it);
    let acc: Option<Accelerator> = feasibility::effective_accelerator(world, r);
    let instance_cell = if cloud == CloudId::Kubernetes {
        if r.use_spot {
            String::new()
        } else {
            "-".to_string()
        }
    } else {
        it.clone()
    } + r.spot_str();
    let cells = [
        infra_display(Some(cloud), r.region.as_deref(), r.zone.as_deref()),
        instance_cell,
        render::format_number(vcpus),
        render::format_number(mem),
        acc.as_ref().map_or("-".to_string(), |a| a.short()),
        crate::pytext::format_fixed(cost, 2),
    ];
    Considered {
        cloud,
        instance_type: it,
        region: r.region.clone(),
        zone: r.zone.clone(),
        accelerators: acc.map(|a| a.short()),
        use_spot: r.use_spot,
        vcpus,
        memory_gb: mem,
        cost,
        cells,
        request_index,
        resources: r.clone(),
    }
}

/// Costs of every launchable of a task, in enumeration order.
fn estimate(
    world: &World,
    task: &Task,
    resources: &[Resources],
    quiet: bool,
    log: &mut Vec<String>,
) -> Result<(Vec<Considered>, Enumeration), RequestError> {
    let en = fill_in_launchable(world, task, resources, quiet, log)?;
    let mut rows = Vec::new();
    for (idx, list) in en.launchable.iter().enumerate() {
        for r in list {
            let hourly = ctx_err(feasibility::hourly_cost(world, r))?;
            // SkyPilot: hourly × (default runtime 3600 s / 3600) × billable
            // nodes; nodes a consumable reservation covers are already paid for.
            const RUNTIME_HOURS: f64 = 1.0;
            let billable = (i64::from(task.num_nodes) - world.reserved_nodes(r)).max(0);
            let cost = hourly * RUNTIME_HOURS * billable as f64;
            rows.push(considered(world, r, cost, idx));
        }
    }
    if rows.is_empty() {
        return Err(unavailable_error(world, task, resources, &en));
    }
    Ok((rows, en))
}

fn unavailable_error(
    world: &World,
    task: &Task,
    resources: &[Resources],
    en: &Enumeration,
) -> RequestError {
    let mut source = "catalog";
    if world.enabled.contains(&CloudId::Kubernetes) {
        if resources.iter().any(|r| r.cloud.is_none()) {
            source = "catalog and kubernetes cluster";
        } else if resources
            .iter()
            .all(|r| r.cloud == Some(CloudId::Kubernetes))
        {
            source = "kubernetes cluster";
        }
    }
    let mut capitalized = source.to_string();
    capitalized.replace_range(0..1, &source[0..1].to_uppercase());
    let fuzzy = if en.fuzzy.is_empty() {
        String::new()
    } else {
        format!(
            "\nTry one of these offered accelerators: {}{}{}",
            ansi::CYAN,
            py_list(&en.fuzzy),
            ansi::RESET
        )
    };
    let reprs: Vec<String> = resources
        .iter()
        .map(|r| format!("{}x {}", task.num_nodes, repr_with_region_zone(world, r)))
        .collect();
    let indent = "      ";
    let mut blocks = Vec::new();
    for (idx, r) in resources.iter().enumerate() {
        let hs: Vec<&str> = en
            .hints
            .iter()
            .filter(|(i, _)| *i == idx)
            .map(|(_, h)| h.as_str())
            .collect();
        if !hs.is_empty() {
            blocks.push(format!(
                "{}Resource: {}{}\n{}",
                ansi::BRIGHT,
                resources_repr(world, r),
                ansi::RESET,
                hs.join("\n")
            ));
        }
    }
    let hints_concat = blocks.join("\n");
    let hints_formatted: Vec<String> = hints_concat
        .split('\n')
        .map(|l| format!("{indent}{l}"))
        .collect();
    let hint_string = format!(
        "Hint: Check Per Resource Hint\n{}",
        hints_formatted.join("\n")
    );
    RequestError::new(
        ErrorKind::ResourcesUnavailable,
        format!(
            "{capitalized} does not contain any instances satisfying the request: {}.\nTo fix: relax or change the resource requirements.{fuzzy}\n\nHint: {b}sky gpus list{r} to list available accelerators.\n{indent}{b}sky check{r} to check the enabled clouds.\n{hint_string}",
            reprs.join(", "),
            b = ansi::BRIGHT,
            r = ansi::RESET,
        ),
    )
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

/// `_check_specified_clouds`: disabled-cloud warnings or errors.
fn check_specified_clouds(
    world: &World,
    dag: &Dag,
    log: &mut Vec<String>,
) -> Result<(), RequestError> {
    for task in &dag.tasks {
        let all = task.resources.all();
        let mut disabled: Vec<CloudId> = Vec::new();
        let mut all_disabled = true;
        for r in all {
            match r.cloud {
                Some(c) if !world.enabled.contains(&c) => {
                    if !disabled.contains(&c) {
                        disabled.push(c);
                    }
                }
                _ => all_disabled = false,
            }
        }
        if disabled.is_empty() {
            continue;
        }
        let names: Vec<&str> = disabled.iter().map(|c| c.name()).collect();
        let task_str = match &task.name {
            Some(n) => format!("Task {}", py_str_repr(n)),
            None => "Task".to_string(),
        };
        let verb = if disabled.len() > 1 { "are" } else { "is" };
        let msg = format!(
            "{task_str} requires {} which {verb} not enabled. To enable access, change the task cloud requirement or run: {}sky check {}{}",
            names.join(", "),
            ansi::BRIGHT,
            names.join(" "),
            ansi::RESET
        );
        if all_disabled {
            return Err(RequestError::new(ErrorKind::ResourcesUnavailable, msg));
        }
        log.push(format!("{}{msg}{}", ansi::YELLOW, ansi::RESET));
    }
    Ok(())
}

/// Optimises a chain DAG for cost (SkyPilot's default objective).
pub fn optimize(world: &World, dag: &Dag) -> Optimized {
    let mut log = Vec::new();
    let result = optimize_inner(world, dag, &mut log);
    Optimized { log, result }
}

/// Table group: (cloud, accelerators, spot, Kubernetes context).
type GroupKey = (CloudId, Option<String>, bool, Option<String>);

fn group_key(c: &Considered) -> GroupKey {
    let region = if c.cloud == CloudId::Kubernetes {
        c.region.clone()
    } else {
        None
    };
    (c.cloud, c.accelerators.clone(), c.use_spot, region)
}

fn optimize_inner(world: &World, dag: &Dag, log: &mut Vec<String>) -> Result<Plan, RequestError> {
    if world.enabled.is_empty() {
        return Err(RequestError::new(
            ErrorKind::NoCloudAccess,
            format!(
                "Cloud access is not set up. Run: {}sky check{}",
                ansi::BRIGHT,
                ansi::RESET
            ),
        ));
    }
    check_specified_clouds(world, dag, log)?;
    if world.enabled.contains(&CloudId::Kubernetes) {
        // SkyPilot logs each unreachable context once, when Kubernetes is first queried.
        for ctx in &world.kube_contexts {
            if let Err(reason) = &ctx.nodes {
                log.push(format!(
                    "Excluding Kubernetes context {}: {reason}",
                    ctx.name
                ));
            }
        }
        if !world.kube_contexts.is_empty() && world.kube_contexts.iter().all(|c| c.nodes.is_err()) {
            log.push(format!(
                "All Kubernetes contexts are unreachable. Retry if it is a transient error, or run {}sky check{} to refresh Kubernetes availability if permanent.",
                ansi::BRIGHT,
                ansi::RESET
            ));
        }
    }
    let multi_task = dag.tasks.len() > 1;
    // Ordered resources: announce, then pick the first entry with any launchable.
    let mut local: Vec<Vec<Resources>> = Vec::new();
    for (i, task) in dag.tasks.iter().enumerate() {
        if let ResourceSet::Ordered(list) = &task.resources {
            let reprs: Vec<String> = list.iter().map(|r| resources_repr(world, r)).collect();
            let prefix = if multi_task {
                format!(
                    "{}{} task is using user-specified accelerators list ",
                    ansi::YELLOW,
                    ordinal(i + 1)
                )
            } else {
                format!("{}Using user-specified accelerators list ", ansi::YELLOW)
            };
            log.push(format!(
                "{prefix}{}(will be tried in the listed order): {}",
                ansi::RESET,
                reprs.join(", ")
            ));
        }
    }
    for task in &dag.tasks {
        match &task.resources {
            ResourceSet::Ordered(list) => {
                let mut chosen = list.last().cloned();
                for r in list {
                    let en = fill_in_launchable(world, task, std::slice::from_ref(r), false, log)?;
                    if !en.launchable[0].is_empty() {
                        chosen = Some(r.clone());
                        break;
                    }
                }
                local.push(chosen.into_iter().collect());
            }
            other => local.push(other.all().to_vec()),
        }
    }
    let mut plans: Vec<TaskPlan> = Vec::new();
    let mut candidates_per_task = Vec::new();
    for (task, resources) in dag.tasks.iter().zip(&local) {
        let (rows, en) = estimate(world, task, resources, false, log)?;
        // DP over a chain without egress: each task takes its first minimum.
        let mut best = 0;
        for (i, r) in rows.iter().enumerate() {
            if r.cost < rows[best].cost {
                best = i;
            }
        }
        let chosen = rows[best].clone();
        candidates_per_task.push(en.cloud_candidates);
        plans.push(TaskPlan {
            name: task.name.clone(),
            num_nodes: task.num_nodes,
            chosen,
            considered: rows,
            table_rows: Vec::new(),
        });
    }
    // Display pass: ordered tasks are re-estimated on all entries, quietly.
    for (i, task) in dag.tasks.iter().enumerate() {
        if let ResourceSet::Ordered(list) = &task.resources {
            let mut scratch = Vec::new();
            if let Ok((rows, _)) = estimate(world, task, list, true, &mut scratch) {
                plans[i].considered = rows;
            }
        }
    }
    let total_cost = plans.iter().map(|p| p.chosen.cost).sum();
    for (i, task) in dag.tasks.iter().enumerate() {
        let plan = &mut plans[i];
        let mut groups: Vec<(GroupKey, Considered)> = Vec::new();
        for c in &plan.considered {
            let key = group_key(c);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, existing)) => {
                    if c.cost < existing.cost {
                        *existing = c.clone();
                    }
                }
                None => groups.push((key, c.clone())),
            }
        }
        let chosen_key = group_key(&plan.chosen);
        match groups.iter_mut().find(|(k, _)| *k == chosen_key) {
            Some((_, existing)) => *existing = plan.chosen.clone(),
            None => groups.push((chosen_key, plan.chosen.clone())),
        }
        let mut rows: Vec<Considered> = groups.into_iter().map(|(_, c)| c).collect();
        let rounded = |c: &Considered| c.cells[5].parse::<f64>().unwrap_or(c.cost);
        if let ResourceSet::Ordered(list) = &task.resources {
            let keys: Vec<String> = list
                .iter()
                .map(|r| {
                    r.accelerator
                        .as_ref()
                        .map_or("-".to_string(), |a| a.short())
                        + r.spot_str()
                })
                .collect();
            let index = |c: &Considered| {
                let k = c.cells[4].clone()
                    + if c.cells[1].contains("[Spot]") {
                        "[Spot]"
                    } else {
                        ""
                    };
                keys.iter().position(|x| *x == k).unwrap_or(usize::MAX)
            };
            rows.sort_by(|a, b| {
                index(a)
                    .cmp(&index(b))
                    .then(rounded(a).total_cmp(&rounded(b)))
            });
        } else {
            rows.sort_by(|a, b| rounded(a).total_cmp(&rounded(b)));
        }
        plan.table_rows = rows;
    }
    log.extend(render_plan_tables(&plans, multi_task));
    log.extend(candidate_hints(world, &plans, &candidates_per_task));
    Ok(Plan {
        tasks: plans,
        total_cost,
    })
}

fn render_plan_tables(plans: &[TaskPlan], multi_task: bool) -> Vec<String> {
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
        out.push(render::framed_table(&rows));
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
        out.push(render::framed_table(&rows));
        if p.chosen.resources.disk_tier == Some(crate::resources::DiskTier::Ultra) {
            out.push("Using disk_tier=ultra will utilize more advanced disks (io2 Block Express on AWS and extreme persistent disk on GCP), which can lead to significant higher costs (~$2/h).".into());
        }
    }
    out
}

fn candidate_hints(
    world: &World,
    plans: &[TaskPlan],
    candidates: &[Vec<(CloudId, Vec<Resources>)>],
) -> Vec<String> {
    let mut out = Vec::new();
    for (plan, per_cloud) in plans.iter().zip(candidates) {
        let chosen = &plan.chosen.resources;
        let Some(acc) = feasibility::effective_accelerator(world, chosen) else {
            continue;
        };
        let want = acc.short();
        let mut any = false;
        for (cloud, list) in per_cloud {
            let matching: Vec<&Resources> = list
                .iter()
                .filter(|r| {
                    feasibility::effective_accelerator(world, r).is_some_and(|a| a.short() == want)
                })
                .collect();
            if matching.len() > 1 {
                any = true;
                let mut types: Vec<String> = Vec::new();
                for r in &matching {
                    if let Some(it) = &r.instance_type
                        && !types.contains(it)
                    {
                        types.push(it.clone());
                    }
                }
                out.push(format!(
                    "{}🔍 Multiple {} instances satisfy {}:{}. The cheapest {} is considered among: {}.{}",
                    ansi::DIM,
                    cloud.repr(),
                    acc.name,
                    acc.count.0 as i64,
                    simplified_format(world, chosen, &acc),
                    types.join(", "),
                    ansi::RESET
                ));
            }
        }
        if any {
            out.push(format!(
                "To list more details, run: sky gpus list {}\n",
                acc.name
            ));
        }
    }
    out
}

fn simplified_format(world: &World, r: &Resources, acc: &Accelerator) -> String {
    let cloud = r.cloud.unwrap_or(CloudId::Aws);
    let it = r.instance_type.clone().unwrap_or_default();
    let mut parts = vec![format!("gpus={}:{}", acc.name, acc.count)];
    if cloud == CloudId::Kubernetes {
        let (c, m) = world.vcpus_mem(cloud, &it);
        if let Some(c) = c {
            parts.push(format!("cpus={}", crate::pytext::format_float(c)));
        }
        if let Some(m) = m {
            parts.push(format!("mem={}", crate::pytext::format_float(m)));
        }
    } else {
        let short: String = if it.chars().count() > 15 {
            it.chars().take(15).collect::<String>() + "..."
        } else {
            it
        };
        parts.push(short);
    }
    parts.push("...".into());
    let spot = if r.use_spot { "[spot]" } else { "" };
    format!("{spot}({})", parts.join(", "))
}
