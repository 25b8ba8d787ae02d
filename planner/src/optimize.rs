//! The optimizer (`sky/optimizer.py::Optimizer.optimize` for a chain DAG):
//! candidate enumeration, cost, plan selection, and what SkyPilot logs along
//! the way. Pure and synchronous.
//!
//! Output is data: a list of [`Notice`]s (what SkyPilot logs before its
//! tables) and a [`Plan`] of names and numbers; `render::notices` and
//! `render::optimizer` turn both into text. Only the errors it raises carry
//! their text, as SkyPilot's exceptions do.

use crate::cloud::CloudId;
use crate::egress;
use crate::feasibility::{self, CloudLog, Fitting, Refusal};
use crate::pytext::{format_fixed, py_list, py_str_repr};
use crate::resources::{Accelerator, ErrorKind, RequestError, Resources};
use crate::task::{Dag, ResourceSet, Task};
use crate::text::ansi;
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
    /// Index of the requested resource this row came from.
    #[serde(skip)]
    pub request_index: usize,
    #[serde(skip)]
    pub(crate) resources: Resources,
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
    /// Other instance types with the chosen accelerator.
    #[serde(skip)]
    pub instance_hints: Option<InstanceHints>,
}

/// The result of an optimisation.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Plan {
    /// Per task, in order.
    pub tasks: Vec<TaskPlan>,
    /// Total cost per hour of the plan, with the egress of its data moves.
    pub total_cost: f64,
    /// The data moves of the plan that cost something (`inputs:` /
    /// `outputs:`), as SkyPilot prints them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub egress: Vec<crate::egress::EgressRow>,
}

/// The notices plus either a plan or SkyPilot's error.
#[derive(Debug, Clone)]
pub struct Optimized {
    /// What SkyPilot logs before the plan, in order (one per `logger.info`).
    pub notices: Vec<Notice>,
    /// The plan, or the error that ended the optimisation.
    pub result: Result<Plan, RequestError>,
}

impl Optimized {
    /// An optimisation that never ran because an earlier stage failed.
    pub fn failed(error: RequestError) -> Optimized {
        Optimized {
            notices: Vec::new(),
            result: Err(error),
        }
    }
}

/// Something SkyPilot's optimizer logs before its tables.
#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    /// `No resource satisfying … on …`, with what may help.
    Unsatisfied(Unsatisfied),
    /// A task names clouds that are not enabled (`_check_specified_clouds`);
    /// an error instead when every resource does.
    CloudsNotEnabled(CloudsNotEnabled),
    /// Something a cloud logged while it was asked: an unreachable
    /// Kubernetes context (logged when Kubernetes is first queried), SSH's
    /// pools that are not up, a Slurm cluster that cannot be asked, ...
    CloudLog {
        /// The cloud that logged it.
        cloud: CloudId,
        /// What it logged.
        log: CloudLog,
    },
    /// An `ordered` accelerator list will be tried in order.
    OrderedResources {
        /// 1-based position of the task in a multi-task chain (`None`: one task).
        task_ordinal: Option<usize>,
        /// The entries, as SkyPilot prints resources.
        resources: Vec<String>,
    },
}

/// A requested resource no enabled cloud can satisfy.
#[derive(Debug, Clone, PartialEq)]
pub struct Unsatisfied {
    /// Nodes per task.
    pub num_nodes: u32,
    /// The resource, with its region and zone.
    pub request: String,
    /// The clouds that were asked.
    pub clouds: Vec<CloudId>,
    /// Offered accelerators close to the request (the list so far, sorted).
    pub fuzzy: Vec<String>,
    /// What to try, when there is nothing close.
    pub tips: Vec<Tip>,
    /// Why each cloud that said so offers nothing (unsupported features, ...).
    pub cloud_hints: Vec<(CloudId, Refusal)>,
}

/// A task names clouds that are not enabled (`_check_specified_clouds`).
#[derive(Debug, Clone, PartialEq)]
pub struct CloudsNotEnabled {
    /// The task's name.
    pub task: Option<String>,
    /// The disabled clouds it names, in first-named order.
    pub clouds: Vec<CloudId>,
}

impl CloudsNotEnabled {
    /// SkyPilot's message: the `ResourcesUnavailableError` raised when
    /// every resource of the task names a disabled cloud, else the warning
    /// it logs (in yellow) — one text for both, as SkyPilot builds it.
    pub fn message(&self) -> String {
        let names: Vec<&str> = self.clouds.iter().map(|c| c.name()).collect();
        let task_str = match &self.task {
            Some(n) => format!("Task {}", py_str_repr(n)),
            None => "Task".to_string(),
        };
        let verb = if self.clouds.len() > 1 { "are" } else { "is" };
        format!(
            "{task_str} requires {} which {verb} not enabled. To enable access, change the task cloud requirement or run: {}sky check {}{}",
            names.join(", "),
            ansi::BRIGHT,
            names.join(" "),
            ansi::RESET
        )
    }
}

/// A way to relax an unsatisfiable request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tip {
    /// Another CPU count, or `+`.
    Cpus,
    /// Another memory size, or `+`.
    Memory,
    /// `+` on the local disk size.
    LocalDisk,
    /// A higher `max_hourly_cost`.
    MaxHourlyCost(f64),
}

/// Several instance types of one cloud offer the chosen accelerator; the
/// cheapest was considered (SkyPilot's "🔍 Multiple … instances" hint,
/// which names the task's chosen resource).
#[derive(Debug, Clone, PartialEq)]
pub struct MultipleInstances {
    /// The cloud.
    pub cloud: CloudId,
    /// The instance types, in candidate order.
    pub instance_types: Vec<String>,
}

/// The chosen accelerator's alternatives, per cloud.
#[derive(Debug, Clone, PartialEq)]
pub struct InstanceHints {
    /// The accelerator's name.
    pub accelerator: String,
    /// Its count.
    pub count: f64,
    /// Clouds with more than one matching instance type.
    pub clouds: Vec<MultipleInstances>,
}

struct Enumeration {
    /// Launchables per requested resource.
    launchable: Vec<Vec<Resources>>,
    /// Feasible candidates per cloud, in first-seen order.
    cloud_candidates: Vec<(CloudId, Vec<Resources>)>,
    fuzzy: Vec<String>,
    /// Each refusal with the index of the requested resource it answers.
    hints: Vec<(usize, CloudId, Refusal)>,
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
    notices: &mut Vec<Notice>,
) -> Result<Enumeration, RequestError> {
    let mut out = Enumeration {
        launchable: Vec::new(),
        cloud_candidates: Vec::new(),
        fuzzy: Vec::new(),
        hints: Vec::new(),
    };
    for (idx, r) in resources.iter().enumerate() {
        if let Some(c) = r.cloud
            && !world.enabled.contains(&c)
        {
            out.launchable.push(Vec::new());
            continue;
        }
        // Each cloud's launchables, joined once at the end: a `Resources`
        // is several hundred bytes, and one growing list copied them again
        // at every doubling.
        let mut per_cloud: Vec<Vec<Resources>> = Vec::new();
        let clouds: Vec<CloudId> = match r.cloud {
            Some(c) => vec![c],
            None => world.enabled.clone(),
        };
        let mut hints: Vec<(CloudId, Refusal)> = Vec::new();
        for &cloud in &clouds {
            let mut found = None;
            let feasible =
                feasibility::feasible_finding(world, cloud, r, task.num_nodes, &mut found)?;
            push_logs(notices, cloud, &feasible.logs);
            if let Some(h) = feasible.hint {
                hints.push((cloud, h.clone()));
                out.hints.push((idx, cloud, h));
            }
            if let Some(cheapest) = feasible.resources.first() {
                per_cloud.push(make_launchables(world, cloud, cheapest, found, notices));
                match out.cloud_candidates.iter_mut().find(|(c, _)| *c == cloud) {
                    Some((_, v)) => v.extend(feasible.resources),
                    None => out.cloud_candidates.push((cloud, feasible.resources)),
                }
            } else {
                for f in feasible.fuzzy {
                    if !out.fuzzy.contains(&f) {
                        out.fuzzy.push(f);
                    }
                }
            }
        }
        let list: Vec<Resources> = match per_cloud.len() {
            0 => Vec::new(),
            1 => per_cloud.pop().unwrap_or_default(),
            _ => {
                let mut list = Vec::with_capacity(per_cloud.iter().map(Vec::len).sum());
                for part in per_cloud {
                    list.extend(part);
                }
                list
            }
        };
        if list.is_empty() && !(quiet || r.no_missing_accel_warnings) {
            let mut fuzzy = out.fuzzy.clone();
            fuzzy.sort();
            let mut tips = Vec::new();
            if fuzzy.is_empty() {
                if r.cpus.is_some() {
                    tips.push(Tip::Cpus);
                }
                if r.memory.is_some() {
                    tips.push(Tip::Memory);
                }
                if r.local_disk.is_some() {
                    tips.push(Tip::LocalDisk);
                }
                if let Some(m) = r.max_hourly_cost {
                    tips.push(Tip::MaxHourlyCost(m));
                }
            }
            notices.push(Notice::Unsatisfied(Unsatisfied {
                num_nodes: task.num_nodes,
                request: repr_with_region_zone(world, r),
                clouds: clouds.clone(),
                fuzzy,
                tips,
                cloud_hints: hints,
            }));
        }
        out.launchable.push(list);
    }
    out.fuzzy.sort();
    Ok(out)
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

/// Appends what a cloud logged; a message SkyPilot logs once per process
/// is skipped when this cloud already logged it.
fn push_logs(notices: &mut Vec<Notice>, cloud: CloudId, logs: &[CloudLog]) {
    for log in logs {
        let seen = log.once()
            && notices.iter().any(
                |n| matches!(n, Notice::CloudLog { cloud: c, log: l } if *c == cloud && l == log),
            );
        if !seen {
            notices.push(Notice::CloudLog {
                cloud,
                log: log.clone(),
            });
        }
    }
}

/// `make_launchables_for_valid_region_zones`; `found` is what feasibility
/// found on the way to `cheapest` that its regions ask again.
fn make_launchables(
    world: &World,
    cloud: CloudId,
    cheapest: &Resources,
    found: Option<Fitting>,
    notices: &mut Vec<Notice>,
) -> Vec<Resources> {
    let (regions, logs) = feasibility::regions_with_offering_given(world, cloud, cheapest, found);
    push_logs(notices, cloud, &logs);
    let by_zone = cheapest.use_spot || world.optimizes_by_zone(cloud);
    // Sized first: a `Resources` is several hundred bytes, and growing the
    // list one push at a time copied it over and over.
    let len = regions
        .iter()
        .map(|rz| if by_zone { rz.zones.len().max(1) } else { 1 })
        .sum();
    let mut out = Vec::with_capacity(len);
    for rz in regions {
        if !rz.zones.is_empty() && by_zone {
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

/// A located launchable as the table's row: `r` itself, moved in, with the
/// names and numbers its cells show. `prev`, the row made before it, lends
/// them when it is the same candidate in another place (a cloud's
/// launchables are its cheapest candidate in each region or zone), which
/// saves asking the catalog again.
fn considered(
    world: &World,
    r: Resources,
    cost: f64,
    request_index: usize,
    prev: Option<&Considered>,
) -> Considered {
    let cloud = r.cloud.unwrap_or(CloudId::Aws);
    let same = prev.filter(|p| {
        p.resources.cloud == r.cloud
            && p.resources.instance_type == r.instance_type
            && p.resources.accelerator == r.accelerator
    });
    let (it, vcpus, mem, accelerators) = match same {
        Some(p) => (
            p.instance_type.clone(),
            p.vcpus,
            p.memory_gb,
            p.accelerators.clone(),
        ),
        None => {
            let it = r.instance_type.clone().unwrap_or_default();
            let (vcpus, mem) = world.vcpus_mem(cloud, &it);
            let acc = match &r.accelerator {
                Some(a) => Some(a.short()),
                None => feasibility::effective_accelerator(world, &r).map(|a| a.short()),
            };
            (it, vcpus, mem, acc)
        }
    };
    Considered {
        cloud,
        instance_type: it,
        region: r.region.clone(),
        zone: r.zone.clone(),
        accelerators,
        use_spot: r.use_spot,
        vcpus,
        memory_gb: mem,
        cost,
        request_index,
        resources: r,
    }
}

/// What one located launchable costs a task of `num_nodes` nodes for the
/// default hour: SkyPilot's hourly price × (default runtime 3600 s / 3600)
/// × billable nodes; nodes a consumable reservation covers are already
/// paid for (`Optimizer._estimate_nodes_cost_or_time`).
pub(crate) fn launchable_cost(
    world: &World,
    num_nodes: u32,
    r: &Resources,
) -> Result<f64, RequestError> {
    let hourly = ctx_err(feasibility::hourly_cost(world, r))?;
    Ok(cost_of_hours(world, num_nodes, r, hourly))
}

/// [`launchable_cost`] of a launchable whose hourly price is `hourly`.
fn cost_of_hours(world: &World, num_nodes: u32, r: &Resources, hourly: f64) -> f64 {
    const RUNTIME_HOURS: f64 = 1.0;
    let billable = (i64::from(num_nodes) - world.reserved_nodes(r)).max(0);
    hourly * RUNTIME_HOURS * billable as f64
}

/// The located launchables of a cloud's cheapest candidate, as the
/// optimizer makes them (`make_launchables_for_valid_region_zones`),
/// without what the cloud logs meanwhile: what `--explain` reads
/// (`crate::explain`).
pub(crate) fn launchables_of(
    world: &World,
    cloud: CloudId,
    cheapest: &Resources,
) -> Vec<Resources> {
    make_launchables(world, cloud, cheapest, None, &mut Vec::new())
}

/// A located launchable with its cost, as the optimizer records it.
pub(crate) fn considered_row(
    world: &World,
    r: &Resources,
    cost: f64,
    request_index: usize,
) -> Considered {
    considered(world, r.clone(), cost, request_index, None)
}

/// Costs of every launchable of a task, in enumeration order.
fn estimate(
    world: &World,
    task: &Task,
    resources: &[Resources],
    quiet: bool,
    notices: &mut Vec<Notice>,
) -> Result<(Vec<Considered>, Enumeration), RequestError> {
    let mut en = fill_in_launchable(world, task, resources, quiet, notices)?;
    // Each launchable becomes its row: moved, not copied.
    let launchable = std::mem::take(&mut en.launchable);
    let mut rows: Vec<Considered> = Vec::with_capacity(launchable.iter().map(Vec::len).sum());
    let mut hourly = 0.0;
    for (idx, list) in launchable.into_iter().enumerate() {
        for r in list {
            // A Kubernetes price depends on the instance type alone (not the
            // context): the previous row's, when it is the same type, is
            // not parsed and looked up again in each of many contexts.
            let same_price = rows.last().is_some_and(|p| {
                r.cloud == Some(CloudId::Kubernetes)
                    && p.resources.cloud == r.cloud
                    && p.resources.instance_type == r.instance_type
            });
            if !same_price {
                hourly = ctx_err(feasibility::hourly_cost(world, &r))?;
            }
            let cost = cost_of_hours(world, task.num_nodes, &r, hourly);
            let row = considered(world, r, cost, idx, rows.last());
            rows.push(row);
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
    // `cloud_in_iterable(Kubernetes(), enabled)` is an isinstance test: SSH
    // (a Kubernetes subclass) counts.
    let kube_family = |c: Option<CloudId>| matches!(c, Some(CloudId::Kubernetes | CloudId::Ssh));
    if world.enabled.iter().any(|&c| kube_family(Some(c))) {
        if resources.iter().any(|r| r.cloud.is_none()) {
            source = "catalog and kubernetes cluster";
        } else if resources.iter().all(|r| r.cloud == Some(CloudId::Ssh)) {
            source = "node pool";
        } else if resources.iter().all(|r| kube_family(r.cloud)) {
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
        let hs: Vec<String> = en
            .hints
            .iter()
            .filter(|(i, _, _)| *i == idx)
            .map(|(_, cloud, h)| h.hint(*cloud))
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

/// `_check_specified_clouds`: disabled-cloud warnings or errors.
fn check_specified_clouds(
    world: &World,
    dag: &Dag,
    notices: &mut Vec<Notice>,
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
        let notice = CloudsNotEnabled {
            task: task.name.clone(),
            clouds: disabled,
        };
        if all_disabled {
            return Err(RequestError::new(
                ErrorKind::ResourcesUnavailable,
                notice.message(),
            ));
        }
        notices.push(Notice::CloudsNotEnabled(notice));
    }
    Ok(())
}

/// Optimises a chain DAG for cost (SkyPilot's default objective).
pub fn optimize(world: &World, dag: &Dag) -> Optimized {
    let _span = tracing::info_span!("optimize", tasks = dag.tasks.len()).entered();
    let mut notices = Vec::new();
    let result = optimize_inner(world, dag, &mut notices);
    Optimized { notices, result }
}

/// Table group: (cloud, accelerators, spot, Kubernetes/SSH context or Slurm cluster).
type GroupKey<'a> = (CloudId, Option<&'a str>, bool, Option<&'a str>);

fn group_key(c: &Considered) -> GroupKey<'_> {
    let region = if matches!(c.cloud, CloudId::Kubernetes | CloudId::Ssh | CloudId::Slurm) {
        c.region.as_deref()
    } else {
        None
    };
    (c.cloud, c.accelerators.as_deref(), c.use_spot, region)
}

fn optimize_inner(
    world: &World,
    dag: &Dag,
    notices: &mut Vec<Notice>,
) -> Result<Plan, RequestError> {
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
    check_specified_clouds(world, dag, notices)?;
    if world.enabled.contains(&CloudId::Kubernetes) {
        // SkyPilot logs each unreachable context once, when Kubernetes is first queried.
        let kube_log = |log| Notice::CloudLog {
            cloud: CloudId::Kubernetes,
            log,
        };
        for ctx in &world.kube_contexts {
            if let Err(reason) = &ctx.nodes {
                notices.push(kube_log(CloudLog::ContextUnreachable {
                    context: ctx.name.clone(),
                    reason: reason.clone(),
                }));
            }
        }
        if !world.kube_contexts.is_empty() && world.kube_contexts.iter().all(|c| c.nodes.is_err()) {
            notices.push(kube_log(CloudLog::AllContextsUnreachable));
        }
    }
    let multi_task = dag.tasks.len() > 1;
    // Ordered resources: announce, then pick the first entry with any launchable.
    let mut local: Vec<Vec<Resources>> = Vec::new();
    for (i, task) in dag.tasks.iter().enumerate() {
        if let ResourceSet::Ordered(list) = &task.resources {
            notices.push(Notice::OrderedResources {
                task_ordinal: multi_task.then_some(i + 1),
                resources: list.iter().map(|r| resources_repr(world, r)).collect(),
            });
        }
    }
    for task in &dag.tasks {
        match &task.resources {
            ResourceSet::Ordered(list) => {
                let mut chosen = list.last().cloned();
                for r in list {
                    let en =
                        fill_in_launchable(world, task, std::slice::from_ref(r), false, notices)?;
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
    let mut candidates_per_task = Vec::new();
    let mut rows_per_task = Vec::new();
    for (task, resources) in dag.tasks.iter().zip(&local) {
        let (rows, en) = estimate(world, task, resources, false, notices)?;
        candidates_per_task.push(en.cloud_candidates);
        rows_per_task.push(rows);
    }
    let best = optimize_by_dp(&dag.tasks, &rows_per_task)?;
    let mut plans: Vec<TaskPlan> = Vec::new();
    for ((task, rows), best) in dag.tasks.iter().zip(rows_per_task).zip(&best) {
        plans.push(TaskPlan {
            name: task.name.clone(),
            num_nodes: task.num_nodes,
            chosen: rows[*best].clone(),
            considered: rows,
            table_rows: Vec::new(),
            instance_hints: None,
        });
    }
    let chosen_clouds: Vec<CloudId> = plans.iter().map(|p| p.chosen.cloud).collect();
    // Display pass: ordered tasks are re-estimated on all entries, quietly.
    for (i, task) in dag.tasks.iter().enumerate() {
        if let ResourceSet::Ordered(list) = &task.resources {
            let mut scratch = Vec::new();
            if let Ok((rows, _)) = estimate(world, task, list, true, &mut scratch) {
                plans[i].considered = rows;
            }
        }
    }
    // `_compute_total_cost`: in topological order, each task's cost then
    // the egress into it.
    let mut total_cost = 0.0;
    for (i, (task, p)) in dag.tasks.iter().zip(&plans).enumerate() {
        total_cost += p.chosen.cost;
        let parent = i.checked_sub(1).map(|j| (&dag.tasks[j], chosen_clouds[j]));
        total_cost += egress::edge_cost(parent, task, chosen_clouds[i])?;
    }
    let task_repr = |t: &Task| egress::task_repr(t, &|r| repr_with_region_zone(world, r));
    let egress = egress::plan_rows(&dag.tasks, &chosen_clouds, &task_repr)?;
    for (i, task) in dag.tasks.iter().enumerate() {
        let plan = &plans[i];
        // Each group's cheapest row, by reference: only the rows shown are copied.
        let mut groups: Vec<(GroupKey, &Considered)> = Vec::new();
        for c in &plan.considered {
            let key = group_key(c);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, existing)) => {
                    if c.cost < existing.cost {
                        *existing = c;
                    }
                }
                None => groups.push((key, c)),
            }
        }
        let chosen_key = group_key(&plan.chosen);
        match groups.iter_mut().find(|(k, _)| *k == chosen_key) {
            Some((_, existing)) => *existing = &plan.chosen,
            None => groups.push((chosen_key, &plan.chosen)),
        }
        // SkyPilot sorts the rows by the cost it shows, `float(cost_str)`,
        // and an `ordered` list by its entries first (stable: ties keep
        // their order).
        let entries: Vec<String> = match &task.resources {
            ResourceSet::Ordered(list) => list
                .iter()
                .map(|r| {
                    r.accelerator
                        .as_ref()
                        .map_or("-".to_string(), |a| a.short())
                        + r.spot_str()
                })
                .collect(),
            _ => Vec::new(),
        };
        let mut keyed: Vec<(usize, f64, &Considered)> = groups
            .into_iter()
            .map(|(_, c)| {
                let entry = if entries.is_empty() {
                    0
                } else {
                    let key = ordered_entry(c);
                    entries.iter().position(|x| *x == key).unwrap_or(usize::MAX)
                };
                (entry, shown_cost(c.cost), c)
            })
            .collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        let rows: Vec<Considered> = keyed.into_iter().map(|(_, _, c)| c.clone()).collect();
        plans[i].table_rows = rows;
    }
    for (plan, per_cloud) in plans.iter_mut().zip(&candidates_per_task) {
        plan.instance_hints = instance_hints(world, plan, per_cloud);
    }
    Ok(Plan {
        tasks: plans,
        total_cost,
        egress,
    })
}

/// `Optimizer._optimize_by_dp` over the chain, egress included: each
/// candidate's cost plus the cheapest way to reach it from a parent
/// candidate (the parent's best total plus the egress between their
/// clouds; the first task's parent is the inputs' store). Ties keep the
/// first candidate, as SkyPilot's strict `<` does; the last task's best is
/// the first minimum, then the back pointers give the others. Returns the
/// chosen row of each task.
fn optimize_by_dp(tasks: &[Task], rows: &[Vec<Considered>]) -> Result<Vec<usize>, RequestError> {
    let mut objective: Vec<Vec<f64>> = Vec::with_capacity(tasks.len());
    let mut back: Vec<Vec<usize>> = Vec::with_capacity(tasks.len());
    for (i, task) in tasks.iter().enumerate() {
        let mut best = Vec::with_capacity(rows[i].len());
        let mut pointers = Vec::with_capacity(rows[i].len());
        for r in &rows[i] {
            let (min, arg) = if i == 0 {
                (0.0 + egress::edge_cost(None, task, r.cloud)?, 0)
            } else {
                let mut min = f64::INFINITY;
                let mut arg = 0;
                for (j, parent) in rows[i - 1].iter().enumerate() {
                    let edge =
                        egress::edge_cost(Some((&tasks[i - 1], parent.cloud)), task, r.cloud)?;
                    if objective[i - 1][j] + edge < min {
                        min = objective[i - 1][j] + edge;
                        arg = j;
                    }
                }
                (min, arg)
            };
            best.push(r.cost + min);
            pointers.push(arg);
        }
        objective.push(best);
        back.push(pointers);
    }
    let Some(last) = objective.last() else {
        return Ok(Vec::new());
    };
    // The dummy sink: no egress into it.
    let mut chosen = 0;
    let mut min = f64::INFINITY;
    for (j, v) in last.iter().enumerate() {
        if v + 0.0 < min {
            min = v + 0.0;
            chosen = j;
        }
    }
    let mut picks = vec![0; tasks.len()];
    for i in (0..tasks.len()).rev() {
        picks[i] = chosen;
        chosen = back[i][chosen];
    }
    Ok(picks)
}

/// The cost a table row shows, read back as a number (`float(f'{cost:.2f}')`):
/// what SkyPilot sorts the rows by.
pub(crate) fn shown_cost(cost: f64) -> f64 {
    format_fixed(cost, 2).parse().unwrap_or(cost)
}

/// The `ordered` entry a row belongs to, as `print_optimized_plan`'s
/// `sort_key` reads it from the row: its GPUS cell, plus `[Spot]` when its
/// INSTANCE cell holds that (a spot row, or an instance type so named;
/// virtual types are not shown).
fn ordered_entry(c: &Considered) -> String {
    let virtual_type = matches!(c.cloud, CloudId::Kubernetes | CloudId::Ssh | CloudId::Slurm);
    let spot = c.use_spot || (!virtual_type && c.instance_type.contains("[Spot]"));
    let mut key = c.accelerators.as_deref().unwrap_or("-").to_string();
    if spot {
        key.push_str("[Spot]");
    }
    key
}

/// Whether two accelerators read the same as `NAME:COUNT` ([`Accelerator::short`]):
/// equal counts show alike, and any others (NaN) are compared as shown.
fn same_short(a: &Accelerator, b: &Accelerator) -> bool {
    a.name == b.name && (a.count.0 == b.count.0 || a.count.to_string() == b.count.to_string())
}

/// The chosen accelerator's other instance types per cloud (SkyPilot's
/// `_print_candidates` after the table), or `None` without an accelerator.
fn instance_hints(
    world: &World,
    plan: &TaskPlan,
    per_cloud: &[(CloudId, Vec<Resources>)],
) -> Option<InstanceHints> {
    let chosen = &plan.chosen.resources;
    let acc = feasibility::effective_accelerator(world, chosen)?;
    let mut clouds = Vec::new();
    for (cloud, list) in per_cloud {
        // A candidate's own accelerator is compared in place (no copy of
        // it per candidate); only one inferred from the type is looked up.
        let matching: Vec<&Resources> = list
            .iter()
            .filter(|r| match &r.accelerator {
                Some(a) => same_short(a, &acc),
                None => feasibility::effective_accelerator(world, r)
                    .is_some_and(|a| same_short(&a, &acc)),
            })
            .collect();
        if matching.len() > 1 {
            let mut types: Vec<String> = Vec::new();
            for r in &matching {
                if let Some(it) = &r.instance_type
                    && !types.contains(it)
                {
                    types.push(it.clone());
                }
            }
            clouds.push(MultipleInstances {
                cloud: *cloud,
                instance_types: types,
            });
        }
    }
    Some(InstanceHints {
        accelerator: acc.name,
        count: acc.count.0,
        clouds,
    })
}
