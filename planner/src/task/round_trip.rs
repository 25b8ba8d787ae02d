//! The client → server round trip of a DAG: SkyPilot's client sends the
//! task to its API server as YAML, and what the server reads back is not
//! always what the client held.

use super::types::Dag;
use crate::cloud::CloudId;

/// The client → server round trip of SSH resources: the DAG travels as YAML
/// (`Resources.to_yaml_config` writes `infra` with `InfraInfo.to_str`, which
/// drops the `ssh-` prefix and joins region and zone; the server parses it
/// back with `InfraInfo.from_str`, whose SSH branch reads everything after
/// `ssh/` as the pool). So `cloud: ssh, region: lab` becomes the context
/// `ssh-lab`, and a zone becomes part of the pool name (`ssh-*/rack-1`).
pub fn ssh_infra_round_trip(dag: &mut Dag) {
    for task in &mut dag.tasks {
        for r in task.resources.all_mut() {
            if r.cloud != Some(CloudId::Ssh) {
                continue;
            }
            let region = r
                .region
                .as_deref()
                .map(|reg| reg.strip_prefix("ssh-").unwrap_or(reg));
            let mut parts = vec![region.unwrap_or("*"), r.zone.as_deref().unwrap_or("*")];
            while parts.last() == Some(&"*") {
                parts.pop();
            }
            r.region = (!parts.is_empty()).then(|| format!("ssh-{}", parts.join("/")));
            r.zone = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::Resources;
    use crate::task::{ResourceSet, Task};

    #[test]
    fn ssh_resources_survive_the_yaml_round_trip_as_skypilot_s_do() {
        type Case = (
            Option<CloudId>,
            Option<&'static str>,
            Option<&'static str>,
            Option<&'static str>,
            Option<&'static str>,
        );
        let cases: [Case; 6] = [
            (Some(CloudId::Ssh), Some("lab"), None, Some("ssh-lab"), None),
            (
                Some(CloudId::Ssh),
                Some("ssh-lab"),
                None,
                Some("ssh-lab"),
                None,
            ),
            (
                Some(CloudId::Ssh),
                None,
                Some("rack-1"),
                Some("ssh-*/rack-1"),
                None,
            ),
            (Some(CloudId::Ssh), Some("ssh-*"), None, None, None),
            (Some(CloudId::Ssh), None, None, None, None),
            // Other clouds are left alone.
            (
                Some(CloudId::Aws),
                Some("us-east-1"),
                Some("us-east-1a"),
                Some("us-east-1"),
                Some("us-east-1a"),
            ),
        ];
        for (cloud, region, zone, want_region, want_zone) in cases {
            let mut dag = Dag {
                tasks: vec![Task {
                    resources: ResourceSet::AnyOf(vec![Resources {
                        cloud,
                        region: region.map(str::to_string),
                        zone: zone.map(str::to_string),
                        ..Resources::default()
                    }]),
                    ..Task::default()
                }],
            };
            ssh_infra_round_trip(&mut dag);
            let r = &dag.tasks[0].resources.all()[0];
            assert_eq!(
                (r.region.as_deref(), r.zone.as_deref()),
                (want_region, want_zone),
                "{cloud:?} {region:?} {zone:?}"
            );
        }
    }
}
