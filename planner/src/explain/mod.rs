//! `sky launch --explain` as data: why the plan's row won, what every other
//! cloud offered (its cheapest launchable and the gap to the chosen one) or
//! why it offered nothing, and the chosen cloud's cheapest locations — per
//! task of a chain.
//!
//! Built by the plan stage ([`LaunchResult::explain`]) from the planner's
//! own data: the clouds the assembly left out and why
//! ([`Absent`](crate::assemble::Absent)), the candidates the optimizer
//! enumerates and costs (`optimize::launchables_of`,
//! `optimize::launchable_cost`: the same functions, so the same rows and
//! prices as the table), the [`Refusal`]s feasibility records, and — for a
//! cloud that said nothing — which of the request's constraints emptied its
//! list ([`diagnose`]). `render::explain` words it. Nothing here runs
//! unless `--explain` asks: a launch without it pays nothing.
//!
//! [`LaunchResult::explain`]: crate::launch::LaunchResult::explain

mod diagnose;
mod egress;
#[cfg(test)]
mod tests;

use crate::assemble::{Absence, Absent};
use crate::cloud::CloudId;
use crate::feasibility::{self, Refusal};

use crate::optimize::{self, Considered};
use crate::resources::Resources;
use crate::task::{Dag, ResourceSet, Task};
use crate::world::World;

pub use egress::{DataMove, EgressDecision};

/// How many of the chosen cloud's cheapest locations are listed.
pub const LOCATIONS_SHOWN: usize = 5;

/// Why a launch's plan is what it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// Per task, in the chain's order.
    pub tasks: Vec<TaskExplanation>,
    /// Clouds never considered for this launch (not declared in
    /// `SKY_ENABLED_CLOUDS`, or not enabled by the last `sky check`), in
    /// [`CloudId::ALL`] order: listed together, not one line each.
    pub not_considered: Vec<NotConsidered>,
}

/// A cloud outside the launch's starting set.
#[derive(Debug, Clone, PartialEq)]
pub struct NotConsidered {
    /// The cloud.
    pub cloud: CloudId,
    /// Not in `SKY_ENABLED_CLOUDS` (else: not enabled by `sky check`).
    pub undeclared: bool,
}

/// One task's explanation.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskExplanation {
    /// The task's name.
    pub name: Option<String>,
    /// Its nodes (prices are for all of them).
    pub num_nodes: u32,
    /// Its resources are an `ordered` list: the first entry with a
    /// launchable wins, whatever the later ones cost.
    pub ordered: bool,
    /// The plan's row, when the optimizer found one.
    pub chosen: Option<Considered>,
    /// Every cloud considered, one each: the chosen one first, then those
    /// with an offer by price (ties in enumeration order), then those
    /// without, in enumeration order, then the clouds left out (and any
    /// outside the starting set the task names), in [`CloudId::ALL`] order.
    pub clouds: Vec<CloudVerdict>,
    /// The chosen candidate's cheapest locations.
    pub locations: Option<Locations>,
    /// Egress decided the row (a cloud cheaper per hour lost on the cost
    /// of moving the task's data): the figures the optimizer used. `None`
    /// when the chosen row is also the cheapest per hour.
    pub egress: Option<EgressDecision>,
}

/// What one cloud offered one task.
#[derive(Debug, Clone, PartialEq)]
pub struct CloudVerdict {
    /// The cloud.
    pub cloud: CloudId,
    /// Its offer, or why it has none.
    pub verdict: Verdict,
}

/// A cloud's offer, or why it has none.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The plan's row is this cloud's.
    Chosen,
    /// Its cheapest launchable.
    Offer(Offer),
    /// No launchable, and why.
    Nothing(Reason),
}

/// A cloud's cheapest launchable and how it compares with the plan's row.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    /// The row, as the optimizer costs it.
    pub cheapest: Considered,
    /// Its cost less the chosen row's (none without a plan).
    pub gap: Option<f64>,
    /// It comes from a later entry of an `ordered` list than the chosen row.
    pub later_ordered_entry: bool,
    /// When egress decided the task's row: the egress (USD) this offer's
    /// cloud would have paid for the task's data.
    pub egress: Option<f64>,
}

/// Why a cloud has no launchable for a task.
#[derive(Debug, Clone, PartialEq)]
pub enum Reason {
    /// The assembly left it out: not allowed, disabled in the workspace,
    /// no credentials (the files and variables looked at), its check failed
    /// or ran out of time, no context answered, no catalog.
    LeftOut {
        /// Why, as the launch's warning words it.
        why: Absence,
    },
    /// Every resource of the task names another cloud (`infra:`, or a
    /// region only one cloud has).
    PinnedElsewhere {
        /// The clouds (with the region, if any) the task's resources name,
        /// in first-named order.
        pinned: Vec<(CloudId, Option<String>)>,
    },
    /// The cloud said why, with SkyPilot's own hint (features it does not
    /// support with their reasons, no instance type for the accelerator,
    /// ...).
    Refused {
        /// The refusal ([`Refusal::hint`] is SkyPilot's string for it).
        refusal: Refusal,
    },
    /// Its candidate exists, but not where the request pins it.
    LocationPin {
        /// The requested region.
        region: Option<String>,
        /// The requested zone.
        zone: Option<String>,
        /// Its cheapest launchable without the pin.
        elsewhere: Option<Considered>,
    },
    /// The accelerator is not in its catalog in that count.
    AcceleratorNotOffered {
        /// `NAME:COUNT`, as requested.
        accelerator: String,
        /// What it does offer that is close (SkyPilot's fuzzy list).
        did_you_mean: Vec<String>,
    },
    /// The instance type is not in its catalog.
    InstanceTypeNotOffered {
        /// The instance type.
        instance_type: String,
        /// Its closest instance types (`difflib`).
        did_you_mean: Vec<String>,
    },
    /// It sells no spot instance for the request; on-demand it would.
    SpotNotOffered {
        /// Its cheapest on-demand launchable.
        on_demand: Option<Considered>,
    },
    /// Everything it offers costs more than `max_hourly_cost`.
    OverMaxHourlyCost {
        /// The request's ceiling.
        max_hourly_cost: f64,
        /// Its cheapest launchable without the ceiling.
        cheapest: Option<Considered>,
    },
    /// No instance type (or node) meets the request's cpus, memory or
    /// local disk.
    NoMatch {
        /// `cpus`, as requested.
        cpus: Option<String>,
        /// `memory`, as requested.
        memory: Option<String>,
        /// `local_disk`, as requested.
        local_disk: Option<String>,
        /// `disk_tier`, as requested.
        disk_tier: Option<&'static str>,
        /// The accelerator, as requested.
        accelerator: Option<String>,
    },
    /// Kubernetes, SSH Node Pools or Slurm: nothing to run on (no
    /// reachable context, no pool up, no cluster).
    NoNodes,
    /// An earlier entry of the task's `ordered` list had a launchable, so
    /// this cloud's entries were not tried.
    OrderedEarlierEntry,
    /// Asking it raised SkyPilot's error (the message).
    Error {
        /// The error's message.
        message: String,
    },
}

/// The chosen candidate's cheapest locations.
#[derive(Debug, Clone, PartialEq)]
pub struct Locations {
    /// The chosen cloud.
    pub cloud: CloudId,
    /// The chosen instance type.
    pub instance_type: String,
    /// The cheapest few (at most [`LOCATIONS_SHOWN`]), by price, equal
    /// prices in SkyPilot's enumeration order; the chosen row first.
    pub cheapest: Vec<Considered>,
    /// How many locations were considered for it.
    pub total: usize,
    /// Another considered row (any cloud) costs exactly as much as the
    /// chosen one: SkyPilot's enumeration order decided (the first minimum
    /// wins), not the price.
    pub tie: bool,
}

/// The explanation of one launch: the assembled `world` and the clouds it
/// left out (`absent`), the validated tasks (`None` when the launch stopped
/// before the optimizer) and the optimizer's plan (`None` when it failed).
/// The launch keeps the result ([`LaunchResult::explain`](crate::launch::LaunchResult::explain)); this module
/// reads only the parts, so it sits below `launch`.
pub fn explain(
    world: &World,
    absent: &[Absent],
    dag: Option<&Dag>,
    plan: Option<&optimize::Plan>,
) -> Explanation {
    let mut tasks: Vec<TaskExplanation> = dag
        .into_iter()
        .flat_map(|dag| dag.tasks.iter().enumerate())
        .map(|(i, task)| {
            let plan = plan.and_then(|p| p.tasks.get(i));
            explain_task(world, absent, task, plan)
        })
        .collect();
    if let (Some(dag), Some(plan)) = (dag, plan) {
        egress::annotate(&mut tasks, dag, plan);
    }
    let not_considered = absent
        .iter()
        .filter_map(|a| match a.why {
            Absence::NotDeclared => Some(NotConsidered {
                cloud: a.cloud,
                undeclared: true,
            }),
            Absence::NotEnabled => Some(NotConsidered {
                cloud: a.cloud,
                undeclared: false,
            }),
            _ => None,
        })
        .collect();
    Explanation {
        tasks,
        not_considered,
    }
}

/// What one cloud's enumeration for one resource gave.
enum Asked {
    /// Located, costed launchables (cheapest candidate only, as SkyPilot).
    Rows(Vec<Considered>),
    /// None, and why (boxed: a reason may carry a whole row).
    Empty(Box<Reason>),
}

fn explain_task(
    world: &World,
    absent: &[Absent],
    task: &Task,
    plan: Option<&optimize::TaskPlan>,
) -> TaskExplanation {
    let resources = task.resources.all();
    let ordered = matches!(task.resources, ResourceSet::Ordered(_));
    let chosen = plan.map(|p| p.chosen.clone());
    // The `ordered` entry the plan took: later entries were only costed for
    // the table (their clouds lose on order, not price).
    let chosen_entry = chosen.as_ref().map(|c| c.request_index);
    let mut offers: Vec<(CloudId, Offer)> = Vec::new();
    let mut nothing: Vec<(CloudId, Reason)> = Vec::new();
    for &cloud in &world.enabled {
        if chosen.as_ref().is_some_and(|c| c.cloud == cloud) {
            continue;
        }
        let mut rows: Vec<Considered> = Vec::new();
        let mut first_reason: Option<Reason> = None;
        let mut asked_any = false;
        for (idx, r) in resources.iter().enumerate() {
            if r.cloud.is_some_and(|c| c != cloud) {
                continue;
            }
            asked_any = true;
            match ask(world, task, cloud, r, idx) {
                Asked::Rows(found) => rows.extend(found),
                Asked::Empty(reason) => {
                    if first_reason.is_none() {
                        first_reason = Some(*reason);
                    }
                }
            }
        }
        if let Some(cheapest) = cheapest_of(rows) {
            let later_ordered_entry =
                ordered && chosen_entry.is_some_and(|e| cheapest.request_index > e);
            let gap = chosen.as_ref().map(|c| cheapest.cost - c.cost);
            offers.push((
                cloud,
                Offer {
                    cheapest,
                    gap,
                    later_ordered_entry,
                    egress: None,
                },
            ));
            continue;
        }
        let left_out = absent
            .iter()
            .find(|a| a.cloud == cloud)
            .map(|a| Reason::LeftOut { why: a.why.clone() });
        let reason = if !asked_any {
            Reason::PinnedElsewhere {
                pinned: pinned_clouds(resources),
            }
        } else {
            left_out
                .or(first_reason)
                .unwrap_or(Reason::OrderedEarlierEntry)
        };
        nothing.push((cloud, reason));
    }
    // Offers by the price the table shows, as SkyPilot sorts its rows; a
    // stable sort keeps enumeration order among equals.
    offers.sort_by(|a, b| {
        optimize::shown_cost(a.1.cheapest.cost).total_cmp(&optimize::shown_cost(b.1.cheapest.cost))
    });
    let mut clouds: Vec<CloudVerdict> = Vec::new();
    if let Some(c) = &chosen {
        clouds.push(CloudVerdict {
            cloud: c.cloud,
            verdict: Verdict::Chosen,
        });
    }
    clouds.extend(offers.into_iter().map(|(cloud, o)| CloudVerdict {
        cloud,
        verdict: Verdict::Offer(o),
    }));
    clouds.extend(nothing.into_iter().map(|(cloud, r)| CloudVerdict {
        cloud,
        verdict: Verdict::Nothing(r),
    }));
    clouds.extend(
        absent
            .iter()
            .filter(|a| {
                // Outside the starting set: listed together, unless the
                // task names it.
                let named = resources.iter().any(|r| r.cloud == Some(a.cloud));
                (named || !matches!(a.why, Absence::NotDeclared | Absence::NotEnabled))
                    && !world.enabled.contains(&a.cloud)
            })
            .map(|a| CloudVerdict {
                cloud: a.cloud,
                verdict: Verdict::Nothing(Reason::LeftOut { why: a.why.clone() }),
            }),
    );
    let locations = plan.map(locations);
    TaskExplanation {
        name: task.name.clone(),
        num_nodes: task.num_nodes,
        ordered,
        chosen,
        clouds,
        locations,
        egress: None,
    }
}

/// The clouds (and regions) a task's resources name, first-named order.
fn pinned_clouds(resources: &[Resources]) -> Vec<(CloudId, Option<String>)> {
    let mut out = Vec::new();
    for r in resources {
        if let Some(c) = r.cloud {
            let pin = (c, r.region.clone());
            if !out.contains(&pin) {
                out.push(pin);
            }
        }
    }
    out
}

/// One cloud asked for one resource, as `_fill_in_launchable_resources`
/// and `_estimate_nodes_cost_or_time` ask it: its cheapest candidate,
/// located and costed; or why there is none.
fn ask(world: &World, task: &Task, cloud: CloudId, r: &Resources, idx: usize) -> Asked {
    let feasible = match feasibility::feasible_resources(world, cloud, r, task.num_nodes) {
        Ok(f) => f,
        Err(e) => {
            return Asked::Empty(Box::new(Reason::Error {
                message: e.message.clone(),
            }));
        }
    };
    let Some(cheapest) = feasible.resources.first() else {
        return Asked::Empty(Box::new(diagnose::why_none(
            world, task, cloud, r, idx, feasible,
        )));
    };
    match costed(world, task, cloud, cheapest, idx) {
        Ok(rows) if !rows.is_empty() => Asked::Rows(rows),
        Ok(_) => Asked::Empty(Box::new(diagnose::why_unlocated(
            world, task, cloud, r, idx,
        ))),
        Err(message) => Asked::Empty(Box::new(Reason::Error { message })),
    }
}

/// The located launchables of `cheapest` with their costs.
fn costed(
    world: &World,
    task: &Task,
    cloud: CloudId,
    cheapest: &Resources,
    idx: usize,
) -> Result<Vec<Considered>, String> {
    optimize::launchables_of(world, cloud, cheapest)
        .iter()
        .map(|l| {
            optimize::launchable_cost(world, task.num_nodes, l)
                .map(|cost| optimize::considered_row(world, l, cost, idx))
                .map_err(|e| e.message)
        })
        .collect()
}

/// The cheapest of `rows` (the first minimum, as the optimizer picks).
fn cheapest_of(rows: Vec<Considered>) -> Option<Considered> {
    let mut best: Option<Considered> = None;
    for row in rows {
        if best.as_ref().is_none_or(|b| row.cost < b.cost) {
            best = Some(row);
        }
    }
    best
}

/// The chosen candidate's locations, cheapest first (stable: enumeration
/// order among equal prices), and whether a tie decided the plan.
fn locations(plan: &optimize::TaskPlan) -> Locations {
    let chosen = &plan.chosen;
    let mut same: Vec<&Considered> = plan
        .considered
        .iter()
        .filter(|c| {
            c.cloud == chosen.cloud
                && c.instance_type == chosen.instance_type
                && c.use_spot == chosen.use_spot
                && c.accelerators == chosen.accelerators
        })
        .collect();
    let total = same.len();
    same.sort_by(|a, b| a.cost.total_cmp(&b.cost));
    // The chosen row first: among equal prices it is the first enumerated.
    let mut cheapest: Vec<Considered> = vec![chosen.clone()];
    cheapest.extend(
        same.into_iter()
            .filter(|c| !same_location(c, chosen))
            .take(LOCATIONS_SHOWN - 1)
            .cloned(),
    );
    let ties = plan
        .considered
        .iter()
        .filter(|c| c.cost == chosen.cost)
        .count();
    Locations {
        cloud: chosen.cloud,
        instance_type: chosen.instance_type.clone(),
        cheapest,
        total,
        tie: ties > 1,
    }
}

fn same_location(a: &Considered, b: &Considered) -> bool {
    a.region == b.region && a.zone == b.zone && a.request_index == b.request_index
}
