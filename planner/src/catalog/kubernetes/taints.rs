//! Which of a node's taints keep the user's pods off it, as SkyPilot 0.14.1
//! decides in `sky/provision/kubernetes/utils.py` (`V1Node.get_taints`,
//! `get_handled_taint_keys`, `get_configured_tolerations`,
//! `taint_is_tolerated`, `has_untolerated_taint`).

use serde_yaml_ng::Value;

use super::nodes::{AMD_GPU_KEY, KubeNode, NEURON_RESOURCE_KEY, NVIDIA_GPU_KEY, TPU_RESOURCE_KEY};

/// Taint keys SkyPilot tolerates itself (`get_handled_taint_keys`, without
/// the `CUSTOM_GPU_RESOURCE_KEY` variable).
const HANDLED_TAINT_KEYS: [&str; 4] = [
    TPU_RESOURCE_KEY,
    NEURON_RESOURCE_KEY,
    AMD_GPU_KEY,
    NVIDIA_GPU_KEY,
];

/// Key prefixes of node-role taints, left out of the per-node status
/// (`_ROLE_TAINT_KEY_PREFIXES`).
const ROLE_TAINT_KEY_PREFIXES: [&str; 2] = [
    "node-role.kubernetes.io/master",
    "node-role.kubernetes.io/control-plane",
];

/// A taint that counts, and whether a configured toleration matches it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeTaint {
    /// `key`.
    pub key: String,
    /// `effect`.
    pub effect: String,
    /// Whether one of the configured tolerations matches it.
    pub tolerated: bool,
}

/// One toleration of `kubernetes.pod_config.spec.tolerations`, each field as
/// SkyPilot's `_str_or_empty` reads it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Toleration {
    /// `key` (empty: every key, with `Exists`).
    pub key: String,
    /// `operator` (empty reads as `Equal`).
    pub operator: String,
    /// `value`.
    pub value: String,
    /// `effect` (empty: every effect).
    pub effect: String,
}

impl Toleration {
    /// `taint_is_tolerated` for one toleration.
    fn tolerates(&self, key: &str, value: &str, effect: &str) -> bool {
        if !self.effect.is_empty() && self.effect != effect {
            return false;
        }
        let operator = if self.operator.is_empty() {
            "Equal"
        } else {
            &self.operator
        };
        if self.key.is_empty() {
            return operator == "Exists";
        }
        self.key == key && (operator == "Exists" || self.value == value)
    }
}

fn str_or_empty(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(other) => serde_yaml_ng::to_string(other)
            .unwrap_or_default()
            .trim()
            .to_string(),
    }
}

fn tolerations_at(config: &Value, path: &[&str]) -> Option<Vec<Toleration>> {
    let mut v = config;
    for key in path {
        v = v.get(*key)?;
    }
    let list = v.as_sequence()?;
    Some(
        list.iter()
            .filter(|t| t.is_mapping())
            .map(|t| Toleration {
                key: str_or_empty(t.get("key")),
                operator: str_or_empty(t.get("operator")),
                value: str_or_empty(t.get("value")),
                effect: str_or_empty(t.get("effect")),
            })
            .collect(),
    )
}

/// `get_configured_tolerations(context)`: `<cloud>.pod_config.spec.tolerations`
/// with the context's `context_configs` entry appended (`ssh.*` and the pool
/// name for an `ssh-<pool>` context). `None` when neither is a list, which
/// leaves every counted taint untolerated.
pub fn configured_tolerations(config: &Value, context: &str) -> Option<Vec<Toleration>> {
    let (cloud, key) = match context.strip_prefix("ssh-") {
        Some(pool) => ("ssh", pool),
        None => ("kubernetes", context),
    };
    let global = tolerations_at(config, &[cloud, "pod_config", "spec", "tolerations"]);
    let local = tolerations_at(
        config,
        &[
            cloud,
            "context_configs",
            key,
            "pod_config",
            "spec",
            "tolerations",
        ],
    );
    match (global, local) {
        (None, None) => None,
        (g, l) => Some(g.into_iter().chain(l).flatten().collect()),
    }
}

/// `V1Node.get_taints(exclude_cordon=True, exclude_not_ready=True,
/// exclude_effects=['PreferNoSchedule'], exclude_keys=get_handled_taint_keys(),
/// tolerations=...)`, with the node-role prefixes left out too when
/// `exclude_roles` (the per-node table does, the GPU counts do not).
pub fn node_taints(
    node: &KubeNode,
    exclude_roles: bool,
    tolerations: Option<&[Toleration]>,
) -> Vec<NodeTaint> {
    node.taints
        .iter()
        .filter(|t| !(t.key == "node.kubernetes.io/unschedulable" && t.effect == "NoSchedule"))
        .filter(|t| {
            !(t.key == "node.kubernetes.io/unreachable"
                && (t.effect == "NoSchedule" || t.effect == "NoExecute"))
        })
        .filter(|t| t.effect != "PreferNoSchedule")
        .filter(|t| !HANDLED_TAINT_KEYS.contains(&t.key.as_str()))
        .filter(|t| !exclude_roles || !ROLE_TAINT_KEY_PREFIXES.iter().any(|p| t.key.starts_with(p)))
        .map(|t| NodeTaint {
            key: t.key.clone(),
            effect: t.effect.clone(),
            tolerated: tolerations.is_some_and(|list| {
                list.iter()
                    .any(|tol| tol.tolerates(&t.key, t.value.as_deref().unwrap_or(""), &t.effect))
            }),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::kubernetes::KubeTaint;

    #[test]
    fn handled_and_tolerated_taints() {
        let taint = |key: &str, value: Option<&str>, effect: &str| KubeTaint {
            key: key.into(),
            value: value.map(str::to_string),
            effect: effect.into(),
        };
        let node = KubeNode {
            taints: vec![
                taint("nvidia.com/gpu", Some("present"), "NoSchedule"),
                taint("node.kubernetes.io/unschedulable", None, "NoSchedule"),
                taint("node.kubernetes.io/unreachable", None, "NoExecute"),
                taint("soft", None, "PreferNoSchedule"),
                taint("node-role.kubernetes.io/control-plane", None, "NoSchedule"),
                taint("pool", Some("research"), "NoSchedule"),
            ],
            ..KubeNode::default()
        };
        let keys = |v: Vec<NodeTaint>| v.into_iter().map(|t| t.key).collect::<Vec<_>>();
        assert_eq!(
            keys(node_taints(&node, false, None)),
            ["node-role.kubernetes.io/control-plane", "pool"]
        );
        assert_eq!(keys(node_taints(&node, true, None)), ["pool"]);
        let config: Value = serde_yaml_ng::from_str(
            "kubernetes:\n  pod_config:\n    spec:\n      tolerations:\n      - {key: pool, value: research}\n",
        )
        .expect("yaml");
        let tolerations = configured_tolerations(&config, "ctx").expect("configured");
        assert!(node_taints(&node, true, Some(&tolerations))[0].tolerated);
        assert!(configured_tolerations(&config, "ssh-pool").is_none());
        let wildcard = [Toleration {
            operator: "Exists".into(),
            ..Toleration::default()
        }];
        assert!(node_taints(&node, true, Some(&wildcard))[0].tolerated);
    }
}
