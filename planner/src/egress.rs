//! SkyPilot's experimental egress planning (`sky/optimizer.py`): a task's
//! `inputs:` live in a cloud's object store and a chained task reads its
//! parent's `outputs:`; moving them between clouds costs what the source
//! cloud charges for egress (`Cloud.get_egress_cost`). The optimizer adds
//! that cost to its dynamic programme over the chain (`_optimize_by_dp`),
//! and prints the data moves of the chosen plan (`_print_egress_plan`).
//! Pure: numbers and texts, no I/O.

use crate::cloud::CloudId;
use crate::pytext::py_float_str;
use crate::resources::{DEFAULT_DISK_SIZE_GB, RequestError};
use crate::task::{DataSize, ResourceSet, Task};

/// One data move of the chosen plan with a cost (`_print_egress_plan`'s row).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct EgressRow {
    /// Where the data comes from: the inputs path or the parent task, with
    /// its cloud (`gs://bucket (GCP)`, `Task<name=a>(…) (AWS)`).
    pub source: String,
    /// The task that reads it, with its cloud.
    pub target: String,
    /// The size as Python prints it (`70`, `0.1`).
    pub size: String,
    /// The egress cost (USD).
    pub cost: f64,
}

/// `Task.get_inputs_cloud`: the cloud an inputs path lives in.
pub fn inputs_cloud(path: &str) -> Result<CloudId, RequestError> {
    if path.starts_with("s3:") {
        Ok(CloudId::Aws)
    } else if path.starts_with("gs:") {
        Ok(CloudId::Gcp)
    } else if path.starts_with("cos:") {
        Ok(CloudId::Ibm)
    } else {
        Err(RequestError::value(format!(
            "cloud path not supported: {path}"
        )))
    }
}

/// `Cloud.get_egress_cost(num_gigabytes)` of the source cloud (each cloud's
/// own tiers; the clouds without egress pricing return 0).
pub fn cloud_egress_cost(cloud: CloudId, gigabytes: f64) -> f64 {
    // `AWS.get_egress_cost` / `Azure.get_egress_cost`: tiered, the same
    // shape with their own middle and base prices.
    let tiered = |mid: f64, base: f64| {
        let mut gb = gigabytes;
        if gb > 150.0 * 1024.0 {
            return 0.05 * gb;
        }
        let mut cost = 0.0;
        if gb >= 50.0 * 1024.0 {
            cost += (gb - 50.0 * 1024.0) * 0.07;
            gb -= 50.0 * 1024.0;
        }
        if gb >= 10.0 * 1024.0 {
            cost += (gb - 10.0 * 1024.0) * mid;
            gb -= 10.0 * 1024.0;
        }
        if gb > 1.0 {
            cost += (gb - 1.0) * base;
        }
        cost + 0.0
    };
    match cloud {
        CloudId::Aws => tiered(0.085, 0.09),
        CloudId::Azure => tiered(0.083, 0.0875),
        CloudId::Gcp => {
            if gigabytes <= 1024.0 {
                0.12 * gigabytes
            } else if gigabytes <= 1024.0 * 10.0 {
                0.11 * gigabytes
            } else {
                0.08 * gigabytes
            }
        }
        // `IBM.get_egress_cost`, as written: each threshold charges what is
        // above it, then leaves exactly the threshold.
        CloudId::Ibm => {
            let mut gb = gigabytes;
            let mut cost = 0.0;
            for (threshold, price) in [(150.0, 0.05), (50.0, 0.07), (0.0, 0.09)] {
                cost += (gb - threshold) * price;
                // Python's `num_gigabytes -= (num_gigabytes - threshold)`,
                // kept as written: in floats it is not exactly `threshold`.
                #[allow(clippy::misrefactored_assign_op)]
                {
                    gb -= gb - threshold;
                }
            }
            cost
        }
        CloudId::Oci => {
            if gigabytes <= 10.0 * 1024.0 {
                0.0
            } else {
                (gigabytes - 10.0 * 1024.0) * 0.0085
            }
        }
        _ => 0.0,
    }
}

/// `Cloud.is_same_cloud`: `isinstance(other, type(self))` — SSH Node Pools
/// are a kind of Kubernetes, not the other way round.
fn is_same_cloud(src: CloudId, dst: CloudId) -> bool {
    src == dst || (src == CloudId::Kubernetes && dst == CloudId::Ssh)
}

/// `Optimizer._egress_cost`: nothing within one cloud.
pub fn egress_cost(src: CloudId, dst: CloudId, gigabytes: f64) -> f64 {
    if is_same_cloud(src, dst) {
        0.0
    } else {
        cloud_egress_cost(src, gigabytes)
    }
}

/// `Optimizer._egress_cost_or_time` (minimising cost) for the edge into
/// `task` on `dst`: from its inputs' cloud when `parent` is `None` (the
/// dummy source), else from the parent's cloud `parent_cloud` with the
/// parent's outputs size. A size of 0 or none costs nothing.
pub fn edge_cost(
    parent: Option<(&Task, CloudId)>,
    task: &Task,
    dst: CloudId,
) -> Result<f64, RequestError> {
    let (src, size) = match parent {
        None => match &task.spec.inputs {
            None => return Ok(0.0),
            Some(inputs) => (inputs_cloud(&inputs.path)?, inputs.gigabytes),
        },
        Some((parent, cloud)) => match &parent.spec.outputs {
            None => return Ok(0.0),
            Some(outputs) => (cloud, outputs.gigabytes),
        },
    };
    if size == 0.0 {
        return Ok(0.0);
    }
    Ok(egress_cost(src, dst, size))
}

/// `_print_egress_plan` for a chain whose tasks run on `clouds`: the edges
/// in the graph's order (the chain's, then last → sink, then source →
/// first), one row per move that costs something, newest edge first. As in
/// SkyPilot, the first edge without a size (a task without `outputs:`, a
/// first task without `inputs:`) ends the walk with nothing printed.
/// `repr` gives each task's `Task.__repr__`.
pub fn plan_rows(
    tasks: &[Task],
    clouds: &[CloudId],
    repr: &dyn Fn(&Task) -> String,
) -> Result<Vec<EgressRow>, RequestError> {
    let mut rows = Vec::new();
    let shown = |cloud: CloudId| cloud.repr().to_string();
    for (i, pair) in tasks.windows(2).enumerate() {
        let Some(outputs) = sized(&pair[0].spec.outputs) else {
            return Ok(Vec::new());
        };
        let (src, dst) = (clouds[i], clouds[i + 1]);
        let cost = egress_cost(src, dst, outputs.gigabytes);
        if cost > 0.0 {
            rows.push(EgressRow {
                source: format!("{} ({})", repr(&pair[0]), shown(src)),
                target: format!("{} ({})", repr(&pair[1]), shown(dst)),
                size: outputs.shown.clone(),
                cost,
            });
        }
    }
    // Last task → the dummy sink: a size is needed, the cost is nothing.
    if tasks.last().and_then(|t| sized(&t.spec.outputs)).is_none() {
        return Ok(Vec::new());
    }
    // The dummy source → the first task.
    let Some(first) = tasks.first() else {
        return Ok(Vec::new());
    };
    let Some(inputs) = sized(&first.spec.inputs) else {
        return Ok(Vec::new());
    };
    let src = inputs_cloud(&inputs.path)?;
    let cost = egress_cost(src, clouds[0], inputs.gigabytes);
    if cost > 0.0 {
        rows.push(EgressRow {
            source: format!("{} ({})", inputs.path, shown(src)),
            target: format!("{} ({})", repr(first), shown(clouds[0])),
            size: inputs.shown.clone(),
            cost,
        });
    }
    rows.reverse();
    Ok(rows)
}

/// An entry with a size (`if not nbytes`: 0 counts as none).
fn sized(d: &Option<DataSize>) -> Option<&DataSize> {
    d.as_ref().filter(|d| d.gigabytes != 0.0)
}

/// `Task.__repr__`: name, the first 20 characters of `run` (newlines
/// escaped), then inputs, outputs, nodes and the requested resources, one
/// per line. `resource_repr` is `Resources.repr_with_region_zone`.
pub fn task_repr(
    task: &Task,
    resource_repr: &dyn Fn(&crate::resources::Resources) -> String,
) -> String {
    let run_msg = match &task.run {
        Some(run) => {
            let escaped = run.replace('\n', "\\n");
            if escaped.chars().count() > 20 {
                let head: String = escaped.chars().take(20).collect();
                format!("run='{head}...'")
            } else {
                format!("run='{escaped}'")
            }
        }
        None => "run=<empty>".to_string(),
    };
    let name = task
        .name
        .as_ref()
        .map_or(String::new(), |n| format!("<name={n}>"));
    let mut s = format!("Task{name}({run_msg})");
    if let Some(inputs) = &task.spec.inputs {
        s.push_str(&format!("\n  inputs: {}", inputs.path));
    }
    if let Some(outputs) = &task.spec.outputs {
        s.push_str(&format!("\n  outputs: {}", outputs.path));
    }
    if task.num_nodes > 1 {
        s.push_str(&format!("\n  nodes: {}", task.num_nodes));
    }
    let resources = match &task.resources {
        ResourceSet::AnyOf(v) | ResourceSet::Ordered(v) => v,
    };
    match resources.as_slice() {
        [] => s.push_str("\n  resources: default instances"),
        [one] if is_empty(one) => s.push_str("\n  resources: default instances"),
        [one] => s.push_str(&format!("\n  resources: {}", resource_repr(one))),
        many => {
            let all: Vec<String> = many.iter().map(resource_repr).collect();
            s.push_str(&format!("\n  resources: {{{}}}", all.join(", ")));
        }
    }
    s
}

/// `Resources.is_empty`: nothing requested. The disk size counts as
/// requested when it is not the default (the parsed request keeps no
/// "given" flag for it; an explicit `disk_size: 256` reads as empty).
fn is_empty(r: &crate::resources::Resources) -> bool {
    r.cloud.is_none()
        && r.instance_type.is_none()
        && r.cpus.is_none()
        && r.memory.is_none()
        && r.accelerator.is_none()
        && r.accelerator_args.is_none()
        && !r.use_spot_specified
        && r.disk_size == DEFAULT_DISK_SIZE_GB
        && r.disk_tier.is_none()
        && r.network_tier.is_none()
        && r.image.is_none()
        && r.ports.is_none()
}

/// The cost column as Python prints the float (`8.4`).
pub fn cost_text(cost: f64) -> String {
    py_float_str(cost)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each cloud's tiers, checked against SkyPilot 0.14.1's arithmetic
    /// (the values Python computes for the same calls).
    #[test]
    fn egress_prices_follow_each_clouds_tiers() {
        assert_eq!(cloud_egress_cost(CloudId::Gcp, 70.0), 0.12 * 70.0);
        assert_eq!(cost_text(cloud_egress_cost(CloudId::Gcp, 70.0)), "8.4");
        assert_eq!(cloud_egress_cost(CloudId::Gcp, 2048.0), 0.11 * 2048.0);
        assert_eq!(cloud_egress_cost(CloudId::Gcp, 20480.0), 0.08 * 20480.0);
        assert_eq!(cloud_egress_cost(CloudId::Aws, 0.5), 0.0);
        assert_eq!(cost_text(cloud_egress_cost(CloudId::Aws, 70.0)), "6.21");
        assert_eq!(
            cloud_egress_cost(CloudId::Aws, 200.0 * 1024.0),
            0.05 * 204800.0
        );
        assert_eq!(cloud_egress_cost(CloudId::Oci, 100.0), 0.0);
        assert_eq!(cloud_egress_cost(CloudId::Lambda, 100.0), 0.0);
        assert_eq!(egress_cost(CloudId::Gcp, CloudId::Gcp, 70.0), 0.0);
        assert_eq!(egress_cost(CloudId::Kubernetes, CloudId::Ssh, 70.0), 0.0);
        assert_eq!(
            egress_cost(CloudId::Ssh, CloudId::Kubernetes, 70.0),
            cloud_egress_cost(CloudId::Ssh, 70.0)
        );
    }

    #[test]
    fn inputs_paths_name_their_cloud() {
        assert_eq!(inputs_cloud("s3://b"), Ok(CloudId::Aws));
        assert_eq!(inputs_cloud("gs://b/x"), Ok(CloudId::Gcp));
        assert_eq!(inputs_cloud("cos://r/b"), Ok(CloudId::Ibm));
        assert_eq!(
            inputs_cloud("r2://b").map_err(|e| e.message),
            Err("cloud path not supported: r2://b".to_string())
        );
    }
}
