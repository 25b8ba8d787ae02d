//! When the cost of moving a task's data decided its row: SkyPilot's
//! dynamic programme (`Optimizer._optimize_by_dp`) adds, to each
//! candidate's hourly cost, the egress of the task's `inputs:` from their
//! store and of the chain's `outputs:` between tasks
//! (`Optimizer._egress_cost`). A cloud that is cheaper per hour can then
//! lose. This module finds that case and the figures the optimizer used,
//! so the explanation says egress decided instead of "the cheapest".

use super::{Offer, TaskExplanation, Verdict};
use crate::cloud::CloudId;
use crate::egress;
use crate::optimize;
use crate::task::Dag;

/// Egress decided a task's row: some cloud offered a launchable cheaper per
/// hour, and the data it would have moved cost more than the difference.
#[derive(Debug, Clone, PartialEq)]
pub struct EgressDecision {
    /// The egress (USD) the chosen row's cloud pays: the edge into the task
    /// (from its inputs' store, or from its parent's cloud) plus the edge
    /// out of it (its outputs into the next task's cloud), the other tasks
    /// where the plan put them.
    pub chosen: f64,
    /// The data moves behind those figures, in the chain's order.
    pub moves: Vec<DataMove>,
}

/// One data move that touches the task.
#[derive(Debug, Clone, PartialEq)]
pub struct DataMove {
    /// The size as the task file gives it (GB, as Python prints it).
    pub size: String,
    /// Where the data is: the store's cloud for `inputs:`, else the
    /// cloud of the task that writes it (`None`: this task, wherever it runs).
    pub from: Option<CloudId>,
    /// Where it goes: `None` for this task, else the next task's cloud.
    pub to: Option<CloudId>,
    /// `inputs:` (else a task's `outputs:`).
    pub inputs: bool,
}

/// Marks the tasks of `explanation` whose row egress decided: fills
/// [`TaskExplanation::egress`] and each offer's [`Offer::egress`] (not a
/// later `ordered` entry's: order, not cost, put it aside). Tasks without a
/// data move, or whose chosen row is also the cheapest per hour, are left
/// as they are.
pub(super) fn annotate(tasks: &mut [TaskExplanation], dag: &Dag, plan: &optimize::Plan) {
    let clouds: Vec<CloudId> = plan.tasks.iter().map(|p| p.chosen.cloud).collect();
    if clouds.len() != dag.tasks.len() || tasks.len() != dag.tasks.len() {
        return;
    }
    for (i, te) in tasks.iter_mut().enumerate() {
        let Some(chosen) = te.chosen.as_ref() else {
            continue;
        };
        // The egress this task's edges cost with the task on `cloud`.
        let egress_on = |cloud: CloudId| -> Option<f64> {
            let parent = i.checked_sub(1).map(|j| (&dag.tasks[j], clouds[j]));
            let into = egress::edge_cost(parent, &dag.tasks[i], cloud).ok()?;
            let out = match dag.tasks.get(i + 1) {
                Some(child) => {
                    egress::edge_cost(Some((&dag.tasks[i], cloud)), child, clouds[i + 1]).ok()?
                }
                None => 0.0,
            };
            Some(into + out)
        };
        let chosen_cost = chosen.cost;
        let Some(chosen_egress) = egress_on(chosen.cloud) else {
            continue;
        };
        let cheaper = |o: &Offer| !o.later_ordered_entry && o.cheapest.cost < chosen_cost;
        let decided = te.clouds.iter().any(|v| match &v.verdict {
            Verdict::Offer(o) => cheaper(o),
            _ => false,
        });
        if !decided {
            continue;
        }
        for v in &mut te.clouds {
            if let Verdict::Offer(o) = &mut v.verdict
                && !o.later_ordered_entry
            {
                o.egress = egress_on(o.cheapest.cloud);
            }
        }
        te.egress = Some(EgressDecision {
            chosen: chosen_egress,
            moves: moves(dag, &clouds, i),
        });
    }
}

/// The data moves into and out of task `i` (`clouds`: the plan's).
fn moves(dag: &Dag, clouds: &[CloudId], i: usize) -> Vec<DataMove> {
    let mut out = Vec::new();
    let task = &dag.tasks[i];
    let sized =
        |d: &Option<crate::task::DataSize>| d.as_ref().filter(|d| d.gigabytes != 0.0).cloned();
    if i == 0 {
        if let Some(inputs) = sized(&task.spec.inputs)
            && let Ok(store) = egress::inputs_cloud(&inputs.path)
        {
            out.push(DataMove {
                size: inputs.shown,
                from: Some(store),
                to: None,
                inputs: true,
            });
        }
    } else if let Some(outputs) = sized(&dag.tasks[i - 1].spec.outputs) {
        out.push(DataMove {
            size: outputs.shown,
            from: Some(clouds[i - 1]),
            to: None,
            inputs: false,
        });
    }
    if i + 1 < dag.tasks.len()
        && let Some(outputs) = sized(&task.spec.outputs)
    {
        out.push(DataMove {
            size: outputs.shown,
            from: None,
            to: Some(clouds[i + 1]),
            inputs: false,
        });
    }
    out
}
