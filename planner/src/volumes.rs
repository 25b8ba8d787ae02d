//! Task `volumes:` against the user's volumes
//! (`sky/task.py::Task.resolve_and_validate_volumes`,
//! `sky/utils/volume.py::VolumeMount.resolve`): a named volume must exist
//! and be ready, its access mode must allow the task's node count, and its
//! cloud, region and zone pin every resource of the task.
//!
//! SkyPilot reads the volumes from its API server's database. This tool has
//! no server: the records are the JSON `sky volumes ls -o json` prints,
//! read by the edge from `SKY_VOLUMES_FILE` (none: every named volume is
//! unknown, as on a server without volumes).

use crate::cloud::CloudId;
use crate::resources::{ErrorKind, RequestError};
use crate::task::{Task, VolumeSource};

/// One volume as `sky volumes ls -o json` lists it (`VolumeRecord` in
/// `sky/schemas/api/responses.py`); unknown fields are ignored.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct VolumeRecord {
    /// Volume name.
    pub name: String,
    /// Its cloud (`kubernetes`, `runpod`, ...).
    pub cloud: String,
    /// Region (a Kubernetes context for Kubernetes volumes).
    #[serde(default)]
    pub region: Option<String>,
    /// Zone.
    #[serde(default)]
    pub zone: Option<String>,
    /// `READY`, `IN_USE`, `NOT_READY`, ...
    #[serde(default)]
    pub status: Option<String>,
    /// Volume settings (`access_mode`, ...).
    #[serde(default)]
    pub config: serde_json::Map<String, serde_json::Value>,
    /// Why a `NOT_READY` volume is not ready.
    #[serde(default)]
    pub error_message: Option<String>,
    /// Whether that error can still clear (a volume being provisioned).
    #[serde(default)]
    pub error_may_resolve: bool,
}

/// Parses `sky volumes ls -o json` output; `source_name` names it in errors.
pub fn parse_volume_records(text: &str, source_name: &str) -> Result<Vec<VolumeRecord>, String> {
    serde_json::from_str(text).map_err(|e| {
        format!("{source_name}: not the JSON list `sky volumes ls -o json` prints: {e}")
    })
}

/// `Task.resolve_and_validate_volumes` on one task: checks its volumes and
/// pins its resources to their topology.
pub fn resolve(task: &mut Task, records: &[VolumeRecord]) -> Result<(), RequestError> {
    if task.spec.volumes.is_empty() {
        return Ok(());
    }
    // (volume name, requirement) per topology key, as SkyPilot intersects them.
    let mut topology: [(&str, Option<(String, String)>); 3] =
        [("cloud", None), ("region", None), ("zone", None)];
    for vol in &task.spec.volumes {
        if vol.path.ends_with('/') {
            return Err(RequestError::value(format!(
                "Mount paths cannot end with a slash Found: {} in volumes",
                vol.path
            )));
        }
        if !(vol.path.starts_with('/') || vol.path.starts_with('~')) {
            return Err(RequestError::value(format!(
                "File mount destination must be an absolute path (start with \"/\" or \"~\"). Got: {} in volumes.",
                crate::pytext::py_str_repr(&vol.path)
            )));
        }
        let VolumeSource::Named { name, .. } = &vol.source else {
            // Ephemeral volumes are created with the cluster: no topology.
            continue;
        };
        let record = records.iter().find(|r| &r.name == name).ok_or_else(|| {
            RequestError::new(
                ErrorKind::VolumeNotFound,
                format!("Volume {name} not found."),
            )
        })?;
        if record.status.as_deref() == Some("NOT_READY") && !record.error_may_resolve {
            let mut msg = format!("Volume {name} is not ready.");
            if let Some(e) = record.error_message.as_deref().filter(|e| !e.is_empty()) {
                msg.push_str(&format!(" Error: {e}"));
            }
            return Err(RequestError::new(ErrorKind::VolumeNotFound, msg));
        }
        let access_mode = record
            .config
            .get("access_mode")
            .and_then(|v| v.as_str())
            .unwrap_or("");
        if task.num_nodes > 1 && matches!(access_mode, "ReadWriteOnce" | "ReadWriteOncePod") {
            return Err(RequestError::value(format!(
                "Volume {name} with access mode {access_mode} is not supported for multi-node tasks."
            )));
        }
        let reqs = [
            Some(record.cloud.clone()),
            record.region.clone(),
            record.zone.clone(),
        ];
        for ((key, previous), req) in topology.iter_mut().zip(reqs) {
            let Some(req) = req else { continue };
            if let Some((prev_name, prev)) = previous
                && *prev != req
            {
                return Err(RequestError::new(
                    ErrorKind::VolumeTopologyConflict,
                    format!(
                        "Volume {name} can only be attached on {key}:{req}, which conflicts with another volume {prev_name} that requires {key}:{prev}. Please use different volumes and retry."
                    ),
                ));
            }
            *previous = Some((name.clone(), req));
        }
    }
    let cloud: Option<CloudId> = match &topology[0].1 {
        Some((_, c)) => Some(
            c.parse()
                .map_err(|e: crate::cloud::UnknownCloud| RequestError::value(e.to_string()))?,
        ),
        None => None,
    };
    let region = topology[1].1.as_ref().map(|(_, r)| r.clone());
    let zone = topology[2].1.as_ref().map(|(_, z)| z.clone());
    for r in task.resources.all() {
        let have = [
            r.cloud.map(|c| c.repr().to_string()),
            r.region.clone(),
            r.zone.clone(),
        ];
        for ((key, req), have) in topology.iter().zip(have) {
            if let (Some(h), Some((_, want))) = (have, req) {
                let same = if *key == "cloud" {
                    want.parse::<CloudId>().ok() == r.cloud
                } else {
                    h == *want
                };
                if !same {
                    return Err(RequestError::new(
                        ErrorKind::VolumeTopologyConflict,
                        format!(
                            "The task requires {key}:{h}, which conflicts with the volume constraint {key}:{want}. Please use different volumes and retry."
                        ),
                    ));
                }
            }
        }
    }
    for r in task.resources.all_mut() {
        if cloud.is_some() {
            r.cloud = cloud;
        }
        if region.is_some() {
            r.region = region.clone();
        }
        if zone.is_some() {
            r.zone = zone.clone();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::{TaskVolume, parse_task_yaml};

    fn records() -> Vec<VolumeRecord> {
        parse_volume_records(
            r#"[{"name": "data", "type": "k8s-pvc", "cloud": "kubernetes", "region": "ctx-a",
                 "zone": null, "status": "READY", "config": {"access_mode": "ReadWriteOnce"}},
                {"name": "other", "cloud": "kubernetes", "region": "ctx-b", "config": {}}]"#,
            "test",
        )
        .unwrap()
    }

    fn task(yaml: &str) -> Task {
        parse_task_yaml(yaml, "t.yaml", &[])
            .unwrap()
            .tasks
            .remove(0)
    }

    #[test]
    fn a_named_volume_pins_cloud_and_region() {
        let mut t = task("volumes:\n  /mnt/data: data\nrun: echo\n");
        resolve(&mut t, &records()).unwrap();
        let r = &t.resources.all()[0];
        assert_eq!(r.cloud, Some(CloudId::Kubernetes));
        assert_eq!(r.region.as_deref(), Some("ctx-a"));
    }

    #[test]
    fn unknown_conflicting_and_multi_node_volumes_are_errors() {
        let mut t = task("volumes:\n  /mnt/x: nope\n");
        assert_eq!(
            resolve(&mut t, &records()).unwrap_err().message,
            "Volume nope not found."
        );
        let mut t = task("volumes:\n  /a: data\n  /b: other\n");
        let e = resolve(&mut t, &records()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::VolumeTopologyConflict);
        assert!(e.message.contains("region:ctx-b"), "{}", e.message);
        let mut t = task("num_nodes: 2\nvolumes:\n  /a: data\n");
        assert!(
            resolve(&mut t, &records())
                .unwrap_err()
                .message
                .contains("ReadWriteOnce")
        );
        let mut t = task("resources:\n  infra: aws\nvolumes:\n  /a: data\n");
        assert!(
            resolve(&mut t, &records())
                .unwrap_err()
                .message
                .starts_with("The task requires cloud:AWS")
        );
    }

    #[test]
    fn ephemeral_volumes_pin_nothing() {
        let mut t = Task::default();
        t.spec.volumes.push(TaskVolume {
            path: "/scratch".into(),
            source: VolumeSource::Ephemeral,
        });
        resolve(&mut t, &[]).unwrap();
        assert_eq!(t.resources.all()[0].cloud, None);
    }
}
