//! `sky offers`: every offer a launch would accept for a request, as data.
//!
//! SkyPilot's optimizer (`Optimizer._fill_in_launchable_resources`, our
//! [`crate::optimize`]) asks each enabled cloud for its feasible candidates
//! (`get_feasible_launchable_resources`) and then keeps only the cheapest
//! one per cloud, placed in each region (and zone) that offers it
//! (`make_launchables_for_valid_region_zones`). [`enumerate`] makes the same
//! calls — [`feasibility::feasible_resources`],
//! [`feasibility::regions_with_offering`], [`feasibility::hourly_cost`] and
//! the nodes a reservation covers, [`World::reserved_nodes`] — but keeps
//! every candidate in every region and zone, so an offer listed is a
//! launchable `sky launch` would accept when pinned to it. There is no
//! second catalog query here: the rows come from the feasibility code the
//! launch runs.
//!
//! [`listing`] filters, sorts, caps and groups them (`--max-price`,
//! `--sort-by`, `--group-by`, ...); `render::offers` prints the result.

pub mod listing;

use std::collections::HashSet;

use crate::cloud::CloudId;
use crate::feasibility;
use crate::launch::{Exit, LaunchResult};
use crate::resources::Resources;
use crate::task::{Dag, Task};
use crate::world::World;

pub use listing::{Filters, Group, GroupBy, Listing, Query, SortKey};

/// Which markets to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Market {
    /// What the request asks for (`use_spot` of each resource).
    #[default]
    AsRequested,
    /// Spot only (`--spot`; the front end also sets the request's
    /// `use_spot`, so the launch's checks see spot).
    Spot,
    /// On-demand only (`--on-demand`, likewise).
    OnDemand,
    /// Both: each instance as an on-demand and as a spot offer
    /// (`--any-market`), where the cloud offers spot.
    Any,
}

impl Market {
    /// Its name in `-o json` (`requested`, `spot`, `on-demand`, `any`).
    pub fn name(self) -> &'static str {
        match self {
            Market::AsRequested => "requested",
            Market::Spot => "spot",
            Market::OnDemand => "on-demand",
            Market::Any => "any",
        }
    }
}

/// One offer: an instance type in a region (and zone), in one market, with
/// its price for all the task's nodes.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Offer {
    /// The cloud.
    pub cloud: CloudId,
    /// The instance type (virtual for Kubernetes, SSH and Slurm).
    pub instance_type: String,
    /// The region (Kubernetes: the context; Slurm: the cluster).
    pub region: Option<String>,
    /// The zone, where the launch places candidates per zone (spot, or a
    /// cloud that optimizes by zone) or the request pins one.
    pub zone: Option<String>,
    /// The accelerator's name, if the instance has one.
    pub accelerator: Option<String>,
    /// Accelerators per node.
    pub accelerator_count: Option<f64>,
    /// Memory of one accelerator in GB (SkyPilot's `common/metadata.csv`),
    /// when known.
    pub gpu_memory_gb: Option<f64>,
    /// A spot offer.
    pub use_spot: bool,
    /// vCPUs per node.
    pub vcpus: Option<f64>,
    /// Memory per node in GB.
    pub memory_gb: Option<f64>,
    /// Nodes of the task.
    pub num_nodes: u32,
    /// Dollars per hour for all nodes (what the launch's table shows as
    /// COST; nodes a consumable reservation covers are not billed).
    pub price: f64,
    /// Index of the requested resource (`any_of` / `ordered` entry) it answers.
    pub request_index: usize,
}

impl Offer {
    /// Accelerators over all nodes (`None` without accelerators).
    pub fn total_gpus(&self) -> Option<f64> {
        self.accelerator_count
            .filter(|c| *c > 0.0)
            .map(|c| c * f64::from(self.num_nodes))
    }

    /// Dollars per accelerator-hour (`price` over every accelerator of
    /// every node).
    pub fn gpu_price(&self) -> Option<f64> {
        self.total_gpus().map(|g| self.price / g)
    }

    /// Accelerator memory of one node, in GB.
    pub fn total_gpu_memory_gb(&self) -> Option<f64> {
        Some(self.gpu_memory_gb? * self.accelerator_count?)
    }
}

/// The offers of one task.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskOffers {
    /// The task's name.
    pub name: Option<String>,
    /// Its nodes.
    pub num_nodes: u32,
    /// Every offer, in enumeration order: requested resource, market
    /// (on-demand first), cloud (the enabled order), candidate (the cloud's
    /// order, cheapest first), region and zone (the catalog's order).
    pub offers: Vec<Offer>,
}

/// A `sky offers` run: the launch it ran (the same stages, checks and
/// errors as `sky launch --dryrun`) and every offer of each task.
#[derive(Debug, Clone)]
pub struct OffersResult {
    /// The launch: its world, warnings, clouds left out and, when it
    /// failed, its error (then there are no offers).
    pub launch: LaunchResult,
    /// The markets listed.
    pub market: Market,
    /// How they are listed.
    pub query: Query,
    /// Per task, every offer, in enumeration order.
    pub tasks: Vec<TaskOffers>,
}

impl OffersResult {
    /// Enumerates the offers of `launch`'s validated tasks (none when the
    /// launch failed: its error is the answer, as for `sky launch`).
    pub fn new(launch: LaunchResult, market: Market, query: Query) -> OffersResult {
        let tasks = match (&launch.dag, launch.error()) {
            (Some(dag), None) => enumerate(&launch.prepared.world, dag, market),
            _ => Vec::new(),
        };
        OffersResult {
            launch,
            market,
            query,
            tasks,
        }
    }

    /// What is shown of each task's offers.
    pub fn listings(&self) -> Vec<Listing<'_>> {
        self.tasks
            .iter()
            .map(|t| listing::select(&t.offers, &self.query))
            .collect()
    }

    /// How the process ends: as the launch would (a request error, or
    /// partial when an enabled cloud was left out).
    pub fn exit(&self) -> Exit {
        self.launch.exit()
    }
}

/// Every offer for each task of `dag` (validated, as the launch validates
/// it) in `world`.
pub fn enumerate(world: &World, dag: &Dag, market: Market) -> Vec<TaskOffers> {
    let _span = tracing::info_span!("offers").entered();
    dag.tasks
        .iter()
        .map(|task| TaskOffers {
            name: task.name.clone(),
            num_nodes: task.num_nodes,
            offers: task_offers(world, task, market),
        })
        .collect()
}

fn task_offers(world: &World, task: &Task, market: Market) -> Vec<Offer> {
    let mut out: Vec<Offer> = Vec::new();
    let mut seen: HashSet<Place> = HashSet::new();
    for (idx, requested) in task.resources.all().iter().enumerate() {
        // A resource naming a disabled cloud has no launchable (the
        // launch warns, or raises when every resource does).
        if let Some(c) = requested.cloud
            && !world.enabled.contains(&c)
        {
            continue;
        }
        let markets: &[bool] = match market {
            Market::AsRequested => std::slice::from_ref(&requested.use_spot),
            Market::Spot => &[true],
            Market::OnDemand => &[false],
            Market::Any => &[false, true],
        };
        for &spot in markets {
            let mut r = requested.clone();
            r.use_spot = spot;
            let clouds = match r.cloud {
                Some(c) => vec![c],
                None => world.enabled.clone(),
            };
            for cloud in clouds {
                // An error here is the launch's error for this cloud (it
                // raises it before the table); a market the request did not
                // ask for may raise where the request did not: no offers.
                let Ok(feasible) =
                    feasibility::feasible_resources(world, cloud, &r, task.num_nodes)
                else {
                    continue;
                };
                for candidate in &feasible.resources {
                    for located in located(world, cloud, candidate) {
                        if let Some(offer) = offer(world, task, &located, idx)
                            && seen.insert(place(&offer))
                        {
                            out.push(offer);
                        }
                    }
                }
            }
        }
    }
    out
}

/// `make_launchables_for_valid_region_zones` for one candidate: one
/// launchable per region, or per zone where the launch places spot
/// instances (and clouds that optimize by zone) per zone.
fn located(world: &World, cloud: CloudId, candidate: &Resources) -> Vec<Resources> {
    let mut out = Vec::new();
    for rz in feasibility::regions_with_offering(world, cloud, candidate) {
        if !rz.zones.is_empty() && (candidate.use_spot || world.optimizes_by_zone(cloud)) {
            for z in rz.zones {
                let mut r = candidate.clone();
                r.region = Some(rz.region.clone());
                r.zone = Some(z);
                out.push(r);
            }
        } else {
            // SkyPilot's `copy(region=...)` keeps a zone the request pinned.
            let mut r = candidate.clone();
            r.region = Some(rz.region);
            out.push(r);
        }
    }
    out
}

/// The offer of a located launchable, priced as the optimizer prices it
/// (`estimate`): hourly × billable nodes. `None` when the catalog has no
/// price for it (the launch would raise; such a row is never its choice).
fn offer(world: &World, task: &Task, r: &Resources, request_index: usize) -> Option<Offer> {
    let cloud = r.cloud?;
    let instance_type = r.instance_type.clone()?;
    let hourly = feasibility::hourly_cost(world, r).ok()?;
    let billable = (i64::from(task.num_nodes) - world.reserved_nodes(r)).max(0);
    let (vcpus, memory_gb) = world.vcpus_mem(cloud, &instance_type);
    let acc = feasibility::effective_accelerator(world, r);
    let gpu_memory_gb = acc.as_ref().and_then(|a| {
        world
            .catalog
            .gpu_metadata
            .iter()
            .find(|m| m.gpu.eq_ignore_ascii_case(&a.name))
            .map(|m| m.memory_gb)
    });
    Some(Offer {
        cloud,
        instance_type,
        region: r.region.clone(),
        zone: r.zone.clone(),
        accelerator_count: acc.as_ref().map(|a| a.count.0),
        accelerator: acc.map(|a| a.name),
        gpu_memory_gb,
        use_spot: r.use_spot,
        vcpus,
        memory_gb,
        num_nodes: task.num_nodes,
        price: hourly * billable as f64,
        request_index,
    })
}

/// Where and what an offer is: two entries of an `any_of` list may lead to
/// the same launchable, which is one offer (the first entry's).
type Place = (
    CloudId,
    String,
    Option<String>,
    Option<String>,
    bool,
    Option<String>,
    Option<u64>,
);

fn place(o: &Offer) -> Place {
    (
        o.cloud,
        o.instance_type.clone(),
        o.region.clone(),
        o.zone.clone(),
        o.use_spot,
        o.accelerator.clone(),
        o.accelerator_count.map(f64::to_bits),
    )
}

#[cfg(test)]
mod tests;
