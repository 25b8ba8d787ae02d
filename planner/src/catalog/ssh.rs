//! SSH Node Pools: which `ssh-<pool>` kubeconfig contexts SkyPilot 0.14.1
//! uses, from `~/.sky/ssh_node_pools.yaml` and the kubeconfig.
//!
//! SkyPilot runs each pool set up by `sky ssh up` as a Kubernetes cluster
//! whose context is `ssh-<pool>` in the global kubeconfig
//! (`sky/clouds/ssh.py::SSH`, a subclass of `Kubernetes`). The nodes, the
//! virtual instance types, the fits check and the pricing are therefore the
//! Kubernetes ones ([`crate::catalog::kubernetes`]); what is SSH's own is
//! which contexts count ([`ssh_allowed_contexts`], `existing_allowed_contexts`),
//! the warning for pools that are not up, and the names shown without the
//! `ssh-` prefix. A context is one or the other: Kubernetes never uses an
//! `ssh-` context ([`crate::catalog::kubernetes::allowed_contexts`]) and SSH
//! uses nothing else.

use crate::catalog::kubernetes::{KubeContext, KubePricing};

/// Where the pools are defined, as SkyPilot names the file (it prints it
/// expanded).
pub const SSH_NODE_POOLS_PATH: &str = "~/.sky/ssh_node_pools.yaml";

/// The prefix of an SSH Node Pool's kubeconfig context.
pub const SSH_CONTEXT_PREFIX: &str = "ssh-";

/// `SSH.get_ssh_node_pool_contexts`: `ssh-<pool>` for every top-level key
/// of the pools file, in file order. Like SkyPilot, a file that is not a
/// YAML mapping gives no pools (the error is swallowed).
pub fn node_pool_contexts(text: &str) -> Vec<String> {
    let Ok(serde_yaml_ng::Value::Mapping(map)) = serde_yaml_ng::from_str(text) else {
        return Vec::new();
    };
    map.keys()
        .filter_map(|k| match k {
            serde_yaml_ng::Value::String(s) => Some(s.clone()),
            serde_yaml_ng::Value::Number(n) => Some(n.to_string()),
            serde_yaml_ng::Value::Bool(b) => Some(if *b { "True" } else { "False" }.into()),
            _ => None,
        })
        .map(|name| format!("{SSH_CONTEXT_PREFIX}{name}"))
        .collect()
}

/// The SSH contexts SkyPilot may use, and the pools of the file that are
/// not set up.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SshContexts {
    /// Usable `ssh-<pool>` contexts, in pools-file (else kubeconfig) order.
    pub contexts: Vec<String>,
    /// Contexts of pools in the file that the kubeconfig lacks.
    pub skipped: Vec<String>,
}

/// `SSH.existing_allowed_contexts`.
///
/// * `kubeconfig_contexts`: every context of the kubeconfig, in order;
/// * `pool_contexts`: [`node_pool_contexts`] of the pools file (`None` when
///   there is no file);
/// * `allowed_node_pools`: `ssh.allowed_node_pools` (pool names, without
///   the prefix).
///
/// With a pools file, its pools that have a context are used (in file
/// order) and the others are skipped; without one, every `ssh-` context is.
pub fn ssh_allowed_contexts(
    kubeconfig_contexts: &[String],
    pool_contexts: Option<&[String]>,
    allowed_node_pools: Option<&[String]>,
) -> SshContexts {
    if kubeconfig_contexts.is_empty() {
        return SshContexts::default();
    }
    let mut ssh: Vec<&String> = Vec::new();
    for c in kubeconfig_contexts {
        if c.starts_with(SSH_CONTEXT_PREFIX) && !ssh.contains(&c) {
            ssh.push(c);
        }
    }
    let allowed = |c: &String| {
        allowed_node_pools.is_none_or(|pools| {
            let name = c.strip_prefix(SSH_CONTEXT_PREFIX).unwrap_or(c);
            pools.iter().any(|p| p == name)
        })
    };
    match pool_contexts.filter(|p| !p.is_empty()) {
        Some(pools) => {
            let mut out = SshContexts::default();
            for c in pools {
                if ssh.contains(&c) {
                    out.contexts.push(c.clone());
                } else {
                    out.skipped.push(c.clone());
                }
            }
            out.contexts.retain(allowed);
            out
        }
        None => SshContexts {
            contexts: ssh.into_iter().filter(|c| allowed(c)).cloned().collect(),
            skipped: Vec::new(),
        },
    }
}

/// SkyPilot's message when no pool is up (`SSH._check_compute_credentials`);
/// `pools_file` is the file's expanded path.
pub fn no_pools_message(pools_file: &str) -> String {
    format!("No SSH Node Pools are up. Run `sky ssh up` to set up Node Pools from {pools_file}.")
}

/// `check_port_forward_mode_dependencies(False)` as `SSH._check_compute_credentials`
/// formats it: why SSH cannot be used without `socat` / `nc` on `PATH`, or
/// `None` when both are there.
pub fn port_forward_reasons(socat: bool, nc: bool) -> Option<String> {
    let mut reasons: Vec<String> = Vec::new();
    let mut binaries: Vec<&str> = Vec::new();
    if !socat {
        binaries.push("socat");
        reasons.push(
            "`socat` is required to setup Kubernetes cloud with `portforward` default networking mode and it is not installed. "
                .into(),
        );
    }
    if !nc {
        binaries.push("netcat");
        reasons.push(
            "`nc` is required to setup Kubernetes cloud with `portforward` default networking mode and it is not installed. "
                .into(),
        );
    }
    if binaries.is_empty() {
        return None;
    }
    let list = binaries.join(" ");
    reasons.extend([
        "On Debian/Ubuntu, install the missing dependenc(ies) with:".to_string(),
        format!("  $ sudo apt install {list}"),
        "On MacOS, install with: ".to_string(),
        format!("  $ brew install {list}"),
    ]);
    let mut out = reasons[0].clone();
    for r in &reasons[1..] {
        out.push_str("\n    ");
        out.push_str(r);
    }
    Some(out)
}

/// Everything the planner knows about SSH Node Pools.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SshWorld {
    /// The usable `ssh-<pool>` contexts with their nodes (or why they could not be listed).
    pub contexts: Vec<KubeContext>,
    /// Pools of the pools file that are not set up (their contexts).
    pub skipped: Vec<String>,
    /// The pools file's expanded path, for the skipped-pools warning.
    pub pools_file: String,
    /// Pricing per context: `kubernetes.pricing` with
    /// `kubernetes.context_configs.<ssh-pool>.pricing` over it (SSH prices
    /// its instance types with Kubernetes' `get_hourly_cost`).
    pub pricing: Vec<(String, KubePricing)>,
    /// Validation already listed the pools (a request named a region or
    /// zone), which is when SkyPilot logs the skipped-pools warning — once
    /// per process, so the optimizer does not log it again.
    pub skipped_logged: bool,
}

impl SshWorld {
    /// The pricing of `context` (the global one for an unknown context).
    pub fn pricing_for(&self, context: Option<&str>) -> KubePricing {
        self.pricing
            .iter()
            .find(|(c, _)| Some(c.as_str()) == context)
            .map(|(_, p)| p.clone())
            .unwrap_or_default()
    }

    /// Pool names (contexts without the prefix), as SkyPilot lists them.
    pub fn pool_names(&self) -> Vec<String> {
        self.contexts
            .iter()
            .map(|c| pool_name(&c.name).to_string())
            .collect()
    }
}

/// A context's pool name: `ssh-lab` → `lab`.
pub fn pool_name(context: &str) -> &str {
    context.strip_prefix(SSH_CONTEXT_PREFIX).unwrap_or(context)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    type Case<'a> = (
        Vec<String>,
        Option<Vec<String>>,
        Option<Vec<String>>,
        Vec<String>,
        Vec<String>,
    );

    #[test]
    fn allowed_ssh_contexts() {
        let kc = s(&["kind", "ssh-b", "ssh-a", "ssh-c"]);
        let cases: Vec<Case> = vec![
            // No pools file: every ssh- context, kubeconfig order.
            (
                kc.clone(),
                None,
                None,
                s(&["ssh-b", "ssh-a", "ssh-c"]),
                s(&[]),
            ),
            // Pools file order; missing pools skipped.
            (
                kc.clone(),
                Some(s(&["ssh-a", "ssh-x", "ssh-b"])),
                None,
                s(&["ssh-a", "ssh-b"]),
                s(&["ssh-x"]),
            ),
            (
                kc.clone(),
                Some(s(&["ssh-a", "ssh-b"])),
                Some(s(&["b"])),
                s(&["ssh-b"]),
                s(&[]),
            ),
            (
                kc.clone(),
                None,
                Some(s(&["c", "zzz"])),
                s(&["ssh-c"]),
                s(&[]),
            ),
            // An empty pools file counts as none.
            (
                kc.clone(),
                Some(s(&[])),
                None,
                s(&["ssh-b", "ssh-a", "ssh-c"]),
                s(&[]),
            ),
            (s(&[]), Some(s(&["ssh-a"])), None, s(&[]), s(&[])),
        ];
        for (kube, pools, allowed, want, skipped) in cases {
            let got = ssh_allowed_contexts(&kube, pools.as_deref(), allowed.as_deref());
            assert_eq!(
                got,
                SshContexts {
                    contexts: want,
                    skipped
                },
                "{kube:?} {pools:?} {allowed:?}"
            );
        }
    }

    #[test]
    fn pools_file() {
        assert_eq!(
            node_pool_contexts("gpu-box:\n  hosts: [a]\nlab: {}\n7: {}\n"),
            s(&["ssh-gpu-box", "ssh-lab", "ssh-7"])
        );
        assert!(node_pool_contexts("- a\n- b\n").is_empty());
        assert!(node_pool_contexts(": : bad").is_empty());
    }

    #[test]
    fn dependencies() {
        assert_eq!(port_forward_reasons(true, true), None);
        let text = port_forward_reasons(false, true).expect("socat missing");
        assert!(text.starts_with("`socat` is required"));
        assert!(text.ends_with("\n      $ brew install socat"));
        let both = port_forward_reasons(false, false).expect("both missing");
        assert!(both.contains("\n    `nc` is required"));
        assert!(both.contains("sudo apt install socat netcat"));
    }
}
