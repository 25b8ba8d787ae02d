//! `sky launch --explain`: after the table, why its row won — per task,
//! every cloud considered on one line (its cheapest launchable and the gap
//! to the chosen row, or why it has none), then the chosen candidate's
//! cheapest locations and whether the price or SkyPilot's enumeration
//! order decided — and the same as the `explain` section of `-o json`.
//! Words only: the reasons are [`Explanation`] data from the plan stage.

use super::optimizer::cells;
use super::pipeline::absence;
use crate::assemble::Absence;
use crate::cloud::{CloudId, Credential, Detection};
use crate::explain::{
    CloudVerdict, DataMove, EgressDecision, Explanation, Locations, Offer, Reason, TaskExplanation,
    Verdict,
};
use crate::feasibility::Refusal;
use crate::optimize::Considered;
use crate::pytext::{format_fixed, py_str_repr};
use crate::text::{ansi, borderless_table, strip_ansi};

/// The explanation's lines (stdout, after the table).
pub fn text(e: &Explanation) -> Vec<String> {
    let mut out = vec![format!(
        "{}Why this plan (--explain):{}",
        ansi::BRIGHT,
        ansi::RESET
    )];
    let multi = e.tasks.len() > 1;
    for (i, task) in e.tasks.iter().enumerate() {
        out.push(task_heading(task, multi.then_some(i + 1)));
        out.push(indent(&clouds_table(task)));
        if let (Some(chosen), Some(locations)) = (&task.chosen, &task.locations) {
            out.extend(locations_lines(chosen, locations, task.egress.is_some()));
        }
        if let (Some(chosen), Some(decision)) = (&task.chosen, &task.egress) {
            out.push(egress_line(task, chosen, decision));
        }
    }
    if !e.not_considered.is_empty() {
        let (undeclared, unchecked): (Vec<_>, Vec<_>) =
            e.not_considered.iter().partition(|n| n.undeclared);
        for (group, why) in [
            (undeclared, "not in SKY_ENABLED_CLOUDS"),
            (unchecked, "not enabled by the last `sky check`"),
        ] {
            if !group.is_empty() {
                let names: Vec<&str> = group.iter().map(|n| n.cloud.repr()).collect();
                out.push(format!("Not considered ({why}): {}.", names.join(", ")));
            }
        }
    }
    out
}

fn indent(block: &str) -> String {
    block
        .lines()
        .map(|l| format!("  {}", l.trim_end()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `Task 'name' (2 nodes): AWS p3.2xlarge in us-east-1a at $6.12 per hour.`
fn task_heading(task: &TaskExplanation, ordinal: Option<usize>) -> String {
    let mut head = match ordinal {
        Some(n) => format!("Task {n}"),
        None => "Task".to_string(),
    };
    if let Some(name) = &task.name {
        head.push(' ');
        head.push_str(&py_str_repr(name));
    }
    let nodes = match task.num_nodes {
        1 => "1 node".to_string(),
        n => format!("{n} nodes"),
    };
    match &task.chosen {
        Some(c) => format!(
            "{head} ({nodes}): chosen {} {} in {} at ${} per hour{}.",
            c.cloud.repr(),
            instance(c),
            location(c),
            money(c.cost),
            if task.ordered {
                ", the first `ordered` entry with a launchable"
            } else {
                ""
            }
        ),
        None => format!("{head} ({nodes}): no cloud has a launchable."),
    }
}

/// The instance as the table's INSTANCE cell shows it (virtual types as
/// their shape), or `-`.
fn instance(c: &Considered) -> String {
    let cell = strip_ansi(&cells(c)[1]);
    if cell.is_empty() { "-".into() } else { cell }
}

/// `region/zone`, `region`, or `-`.
fn location(c: &Considered) -> String {
    match (&c.region, &c.zone) {
        (Some(r), Some(z)) => format!("{r}/{z}"),
        (Some(r), None) => r.clone(),
        (None, Some(z)) => z.clone(),
        (None, None) => "-".into(),
    }
}

/// Dollars as the table shows them (two decimals).
fn money(x: f64) -> String {
    format_fixed(x, 2)
}

/// An offer in a reason: `p3.2xlarge in us-east-1/us-east-1a at $3.06`.
fn offer_text(c: &Considered) -> String {
    format!("{} in {} at ${}", instance(c), location(c), money(c.cost))
}

fn clouds_table(task: &TaskExplanation) -> String {
    let mut rows = vec![vec![
        "CLOUD".to_string(),
        "INSTANCE".into(),
        "WHERE".into(),
        "COST ($)".into(),
        "WHY".into(),
    ]];
    let chosen = task.chosen.as_ref();
    for CloudVerdict { cloud, verdict } in &task.clouds {
        let row = match verdict {
            Verdict::Chosen => {
                let Some(c) = chosen else { continue };
                vec![
                    cloud.repr().to_string(),
                    instance(c),
                    location(c),
                    money(c.cost),
                    if task.egress.is_some() {
                        "chosen: the cheapest with its egress".into()
                    } else {
                        "chosen: the cheapest launchable".into()
                    },
                ]
            }
            Verdict::Offer(o) => vec![
                cloud.repr().to_string(),
                instance(&o.cheapest),
                location(&o.cheapest),
                money(o.cheapest.cost),
                match (o.egress, &task.egress, o.gap) {
                    // Same price and same egress: enumeration order decided.
                    (Some(theirs), Some(d), Some(gap)) if !(gap == 0.0 && theirs == d.chosen) => {
                        format!(
                            "{} per hour, {}egress ${} (chosen: ${})",
                            signed(gap),
                            if gap < 0.0 { "but " } else { "" },
                            money(theirs),
                            money(d.chosen)
                        )
                    }
                    _ => gap_text(o, chosen),
                },
            ],
            Verdict::Nothing(reason) => vec![
                cloud.repr().to_string(),
                "-".into(),
                "-".into(),
                "-".into(),
                reason_text(*cloud, reason),
            ],
        };
        rows.push(row);
    }
    borderless_table(&rows)
}

/// How an offer compares with the chosen row.
fn gap_text(o: &Offer, chosen: Option<&Considered>) -> String {
    let (Some(gap), Some(chosen)) = (o.gap, chosen) else {
        return "its cheapest launchable".into();
    };
    if o.later_ordered_entry {
        return format!(
            "{}: a later `ordered` entry than the chosen one",
            signed(gap)
        );
    }
    if gap == 0.0 {
        return format!(
            "+0.00: same price; SkyPilot's enumeration order put {} first",
            chosen.cloud.repr()
        );
    }
    format!("{} per hour", signed(gap))
}

fn signed(x: f64) -> String {
    if x < 0.0 {
        format!("-{}", money(-x))
    } else {
        format!("+{}", money(x))
    }
}

/// One line: why `cloud` has no launchable.
pub fn reason_text(cloud: CloudId, reason: &Reason) -> String {
    let text = match reason {
        Reason::LeftOut { why } => left_out(cloud, why),
        Reason::PinnedElsewhere { pinned } => {
            let names: Vec<String> = pinned
                .iter()
                .map(|(c, region)| match region {
                    Some(r) => format!("{}/{r}", c.name()),
                    None => c.name().to_string(),
                })
                .collect();
            format!("excluded by the request's pin: infra {}", names.join(", "))
        }
        Reason::Refused { refusal } => refused(cloud, refusal),
        Reason::LocationPin {
            region,
            zone,
            elsewhere,
        } => {
            let pin = match (region, zone) {
                (Some(r), Some(z)) => format!("region {r}, zone {z}"),
                (Some(r), None) => format!("region {r}"),
                (None, Some(z)) => format!("zone {z}"),
                (None, None) => "the request's location".into(),
            };
            match elsewhere {
                Some(c) => format!(
                    "not offered in {pin} (the request's pin); without it: {}",
                    offer_text(c)
                ),
                None => format!("not offered in {pin} (the request's pin)"),
            }
        }
        Reason::AcceleratorNotOffered {
            accelerator,
            did_you_mean,
        } => not_offered(cloud, accelerator, did_you_mean),
        Reason::InstanceTypeNotOffered {
            instance_type,
            did_you_mean,
        } => not_offered(cloud, instance_type, did_you_mean),
        Reason::SpotNotOffered { on_demand } => match on_demand {
            Some(c) => format!("no spot offer; on demand: {}", offer_text(c)),
            None => "no spot offer".into(),
        },
        Reason::OverMaxHourlyCost {
            max_hourly_cost,
            cheapest,
        } => match cheapest {
            Some(c) => format!(
                "over max_hourly_cost ${}: its cheapest is {}",
                money(*max_hourly_cost),
                offer_text(c)
            ),
            None => format!("over max_hourly_cost ${}", money(*max_hourly_cost)),
        },
        Reason::NoMatch {
            cpus,
            memory,
            local_disk,
            disk_tier,
            accelerator,
        } => {
            let disk_tier = disk_tier.map(str::to_string);
            let parts: Vec<String> = [
                ("accelerators", accelerator),
                ("cpus", cpus),
                ("memory", memory),
                ("local_disk", local_disk),
                ("disk_tier", &disk_tier),
            ]
            .iter()
            .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k}={v}")))
            .collect();
            if parts.is_empty() {
                "no instance type matches the request".into()
            } else {
                format!("no instance type matches {}", parts.join(", "))
            }
        }
        Reason::NoNodes => match cloud {
            CloudId::Slurm => "no cluster to run on".into(),
            CloudId::Ssh => "no node pool is up".into(),
            _ => "no reachable context to run on".into(),
        },
        Reason::OrderedEarlierEntry => {
            "not tried: an earlier `ordered` entry had a launchable".into()
        }
        Reason::Error { message } => format!("error: {message}"),
    };
    one_line(&text)
}

/// An absent cloud's reason, as the launch's warnings word it.
fn left_out(cloud: CloudId, why: &Absence) -> String {
    let what = absence(why);
    match why {
        Absence::NoCredentials(_) => match looked_for(cloud) {
            Some(places) => format!("no credentials: {what} (looked for {places})"),
            None => format!("no credentials: {what}"),
        },
        Absence::NotInAllowedClouds | Absence::DisabledInWorkspace(_) => {
            format!("disabled: {what}")
        }
        Absence::CheckFailed(_) | Absence::Unreachable(_) | Absence::NoCatalog(_) => {
            format!("left out of the table: {what}")
        }
        Absence::NotDeclared | Absence::NotEnabled => format!("not considered: {what}"),
    }
}

/// Where a catalog cloud looks for its credentials (its cloud-table
/// entry), or `None` for the clouds whose adapter words its own hint.
fn looked_for(cloud: CloudId) -> Option<String> {
    let Detection::Files { credentials, .. } = cloud.spec().detection else {
        return None;
    };
    let places: Vec<String> = credentials
        .iter()
        .map(|c| match c {
            Credential::HomeFile(path)
            | Credential::HomeFileChecked { path, .. }
            | Credential::HomeFileStartingWith { path, .. }
            | Credential::HomeFileKeys { path, .. } => format!("~/{path}"),
            Credential::FileFromEnv(var) => format!("the file ${var} names"),
            Credential::Env(var) => format!("${var}"),
            Credential::EnvAll(vars) | Credential::AllEnv(vars) => vars
                .iter()
                .map(|v| format!("${v}"))
                .collect::<Vec<_>>()
                .join(" and "),
            Credential::FileInEnvDir {
                dir_var,
                default_dir,
                file,
            } => format!("${dir_var}/{file} (else ~/{default_dir}/{file})"),
        })
        .collect();
    (!places.is_empty()).then(|| places.join(", "))
}

/// A cloud's own refusal: unsupported features with SkyPilot's reasons on
/// one line, else SkyPilot's hint.
fn refused(cloud: CloudId, refusal: &Refusal) -> String {
    match refusal {
        Refusal::Unsupported(features) => {
            let parts: Vec<String> = features
                .iter()
                .map(|(f, reason)| format!("{} ({reason})", f.value()))
                .collect();
            format!("does not support {}", parts.join("; "))
        }
        other => other.hint(cloud),
    }
}

/// Not in a catalog, or (Kubernetes, SSH, Slurm) on no node.
fn not_offered(cloud: CloudId, what: &str, did_you_mean: &[String]) -> String {
    let head = if nodes_cloud(cloud) {
        format!("no node offers {what}")
    } else {
        format!("{what} is not in its catalog")
    };
    if did_you_mean.is_empty() {
        head
    } else {
        format!("{head}; did you mean: {}?", did_you_mean.join(", "))
    }
}

/// Clouds whose offers are nodes, not a catalog.
fn nodes_cloud(cloud: CloudId) -> bool {
    matches!(cloud, CloudId::Kubernetes | CloudId::Ssh | CloudId::Slurm)
}

/// ANSI-free, on one line.
fn one_line(text: &str) -> String {
    strip_ansi(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The chosen candidate's cheapest locations, then what decided (unless
/// egress did: [`egress_line`] says so instead of "by price").
fn locations_lines(chosen: &Considered, l: &Locations, by_egress: bool) -> Vec<String> {
    let mut out = vec![format!(
        "  {} {}: the cheapest {} of {} location{} considered:",
        l.cloud.repr(),
        instance(chosen),
        l.cheapest.len(),
        l.total,
        if l.total == 1 { "" } else { "s" }
    )];
    let rows: Vec<Vec<String>> = l
        .cheapest
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let note = if i == 0 {
                "chosen".to_string()
            } else if c.cost == chosen.cost {
                "same price, enumerated later".to_string()
            } else {
                format!("{} per hour", signed(c.cost - chosen.cost))
            };
            vec![location(c), money(c.cost), note]
        })
        .collect();
    out.push(indent(&indent(&borderless_table(&rows))));
    // With egress deciding, `egress_line` says so instead; equal prices
    // among the locations are marked in the rows above.
    if by_egress {
        return out;
    }
    out.push(if l.tie {
        format!(
            "  Decided by order, not price: other launchables cost exactly ${}; equal prices keep SkyPilot's enumeration order and the first wins.",
            money(chosen.cost)
        )
    } else {
        "  Decided by price: no other launchable costs as little.".into()
    });
    out
}

/// Why a row that is not the cheapest per hour won: the data it moves
/// costs less. Names the cheapest offer per hour and both totals (hourly
/// cost plus egress, the sum `Optimizer._optimize_by_dp` minimises).
fn egress_line(task: &TaskExplanation, chosen: &Considered, d: &EgressDecision) -> String {
    let moves: Vec<String> = d.moves.iter().map(move_text).collect();
    let mut line = format!(
        "  Decided by egress, not the hourly price: SkyPilot adds to each candidate's cost the egress of the task's data ({}).",
        moves.join("; ")
    );
    let cheapest = task
        .clouds
        .iter()
        .filter_map(|v| match &v.verdict {
            Verdict::Offer(o) => o.egress.map(|e| (o, e)),
            _ => None,
        })
        .min_by(|a, b| a.0.cheapest.cost.total_cmp(&b.0.cheapest.cost));
    if let Some((o, theirs)) = cheapest {
        line.push_str(&format!(
            " The cheapest per hour, {} {} at ${}, would pay ${} of egress (${} in all); {} {} pays ${} (${} in all).",
            o.cheapest.cloud.repr(),
            instance(&o.cheapest),
            money(o.cheapest.cost),
            money(theirs),
            money(o.cheapest.cost + theirs),
            chosen.cloud.repr(),
            instance(chosen),
            money(d.chosen),
            money(chosen.cost + d.chosen),
        ));
    }
    line
}

/// `500 GB of inputs from GCP`, `0.1 GB of outputs from the previous task
/// on AWS`, `0.1 GB of outputs to the next task on GCP`.
fn move_text(m: &DataMove) -> String {
    match (m.inputs, m.from, m.to) {
        (true, Some(from), _) => format!("{} GB of inputs in {}", m.size, from.repr()),
        (_, Some(from), _) => format!(
            "{} GB of outputs from the previous task on {}",
            m.size,
            from.repr()
        ),
        (_, None, Some(to)) => {
            format!("{} GB of outputs to the next task on {}", m.size, to.repr())
        }
        (_, None, None) => format!("{} GB", m.size),
    }
}

/// The `explain` section of `-o json`.
pub fn json(e: &Explanation) -> serde_json::Value {
    let tasks: Vec<serde_json::Value> = e
        .tasks
        .iter()
        .map(|t| {
            let clouds: Vec<serde_json::Value> = t
                .clouds
                .iter()
                .map(|v| verdict_json(v, t.chosen.as_ref()))
                .collect();
            let mut task = serde_json::json!({
                "name": t.name,
                "num_nodes": t.num_nodes,
                "ordered": t.ordered,
                "chosen": t.chosen,
                "clouds": clouds,
                "locations": t.locations.as_ref().map(|l| serde_json::json!({
                    "cloud": l.cloud.name(),
                    "instance_type": l.instance_type,
                    "cheapest": l.cheapest,
                    "total": l.total,
                    "decided_by": match (&t.egress, l.tie) {
                        (Some(_), _) => "egress",
                        (None, true) => "enumeration_order",
                        (None, false) => "price",
                    },
                })),
            });
            // Only where egress decided: other launches keep their document.
            if let (Some(d), Some(obj)) = (&t.egress, task.as_object_mut()) {
                obj.insert(
                    "egress".into(),
                    serde_json::json!({
                        "chosen": d.chosen,
                        "moves": d.moves.iter().map(|m| serde_json::json!({
                            "size_gb": m.size,
                            "from": m.from.map(|c| c.name()),
                            "to": m.to.map(|c| c.name()),
                            "inputs": m.inputs,
                        })).collect::<Vec<_>>(),
                    }),
                );
            }
            task
        })
        .collect();
    serde_json::json!({
        "tasks": tasks,
        "not_considered": e.not_considered.iter().map(|n| serde_json::json!({
            "cloud": n.cloud.name(),
            "why": if n.undeclared { "not_declared" } else { "not_enabled" },
        })).collect::<Vec<_>>(),
    })
}

fn verdict_json(v: &CloudVerdict, chosen: Option<&Considered>) -> serde_json::Value {
    let cloud = v.cloud.name();
    match &v.verdict {
        Verdict::Chosen => serde_json::json!({
            "cloud": cloud, "verdict": "chosen", "offer": chosen,
        }),
        Verdict::Offer(o) => {
            let mut offer = serde_json::json!({
                "cloud": cloud,
                "verdict": "offer",
                "offer": o.cheapest,
                "gap": o.gap,
                "later_ordered_entry": o.later_ordered_entry,
            });
            if let (Some(e), Some(obj)) = (o.egress, offer.as_object_mut()) {
                obj.insert("egress".into(), serde_json::json!(e));
            }
            offer
        }
        Verdict::Nothing(reason) => serde_json::json!({
            "cloud": cloud,
            "verdict": "none",
            "reason": reason_kind(reason),
            "text": reason_text(v.cloud, reason),
        }),
    }
}

/// A stable machine name for a reason.
fn reason_kind(reason: &Reason) -> &'static str {
    match reason {
        Reason::LeftOut { why } => match why {
            Absence::NotDeclared => "not_declared",
            Absence::NotEnabled => "not_enabled",
            Absence::NotInAllowedClouds => "not_in_allowed_clouds",
            Absence::DisabledInWorkspace(_) => "disabled_in_workspace",
            Absence::NoCredentials(_) => "no_credentials",
            Absence::CheckFailed(_) => "check_failed",
            Absence::Unreachable(_) => "unreachable",
            Absence::NoCatalog(_) => "no_catalog",
        },
        Reason::PinnedElsewhere { .. } => "pinned_elsewhere",
        Reason::Refused {
            refusal: Refusal::Unsupported(_),
        } => "unsupported_feature",
        Reason::Refused { .. } => "refused",
        Reason::LocationPin { .. } => "location_pin",
        Reason::AcceleratorNotOffered { .. } => "accelerator_not_offered",
        Reason::InstanceTypeNotOffered { .. } => "instance_type_not_offered",
        Reason::SpotNotOffered { .. } => "spot_not_offered",
        Reason::OverMaxHourlyCost { .. } => "over_max_hourly_cost",
        Reason::NoMatch { .. } => "no_match",
        Reason::NoNodes => "no_nodes",
        Reason::OrderedEarlierEntry => "ordered_earlier_entry",
        Reason::Error { .. } => "error",
    }
}
