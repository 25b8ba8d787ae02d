//! The line a confirmed launch says before SkyPilot takes over
//! (`planner::handoff`).

use crate::handoff::Pinned;
use crate::resources::infra_display;

/// `Handing the plan to SkyPilot (<cli>): <instance> on <infra> first, then
/// N more in the order shown.` — per task for a chain.
pub fn handing_off(pinned: &Pinned, cli: &str) -> String {
    let tasks: Vec<String> = pinned
        .tasks
        .iter()
        .filter_map(|pins| {
            let first = pins.first()?;
            let infra = infra_display(
                Some(first.cloud),
                first.region.as_deref(),
                first.zone.as_deref(),
            );
            let more = match pins.len() - 1 {
                0 => String::new(),
                1 => ", then 1 more in the order shown".to_string(),
                n => format!(", then {n} more in the order shown"),
            };
            Some(format!("{} on {infra}{more}", first.instance_type))
        })
        .collect();
    format!(
        "Handing the plan to SkyPilot ({cli}): {}.",
        tasks.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cloud::CloudId;
    use crate::handoff::Pin;

    #[test]
    fn names_the_first_row_and_how_many_follow() {
        let pin = |cloud, region: &str, it: &str| Pin {
            cloud,
            region: Some(region.into()),
            zone: None,
            instance_type: it.into(),
            accelerators: None,
            use_spot: false,
            cost: 1.0,
        };
        let pinned = Pinned {
            yaml: String::new(),
            tasks: vec![
                vec![pin(CloudId::Aws, "us-east-1", "m6i.xlarge")],
                vec![
                    pin(CloudId::Gcp, "us-central1", "n2-standard-4"),
                    pin(CloudId::Aws, "us-east-1", "m6i.xlarge"),
                    pin(CloudId::Azure, "eastus", "Standard_D4s_v5"),
                ],
            ],
        };
        assert_eq!(
            handing_off(&pinned, "/usr/bin/sky"),
            "Handing the plan to SkyPilot (/usr/bin/sky): m6i.xlarge on AWS (us-east-1); n2-standard-4 on GCP (us-central1), then 2 more in the order shown."
        );
    }
}
