//! Which kubeconfig contexts the optimizer may use, and SkyPilot's messages
//! for a context whose nodes cannot be listed.
//!
//! SkyPilot 0.14.1's `sky/clouds/kubernetes.py::Kubernetes.existing_allowed_contexts`
//! and the `KubeAPIUnreachableError` texts of
//! `sky/provision/kubernetes/utils.py::_retry_on_error`.

use crate::pytext::py_str_repr;

/// The contexts the optimizer may use, and the configured ones that are missing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AllowedContexts {
    /// Allowed contexts present in the kubeconfig, in configuration (or kubeconfig) order.
    pub contexts: Vec<String>,
    /// Configured contexts missing from the kubeconfig (reported, then ignored).
    pub skipped: Vec<String>,
}

impl AllowedContexts {
    /// SkyPilot's warning for [`Self::skipped`], if any.
    pub fn warning(&self) -> Option<String> {
        if self.skipped.is_empty() {
            return None;
        }
        let set: Vec<String> = self.skipped.iter().map(|s| py_str_repr(s)).collect();
        Some(format!(
            "Kubernetes contexts {{{}}} specified in \"allowed_contexts\" not found in kubeconfig. Ignoring these contexts.",
            set.join(", ")
        ))
    }
}

/// SkyPilot's `existing_allowed_contexts` (without in-cluster auth).
///
/// * `kubeconfig_contexts`: context names in kubeconfig order;
/// * `current`: the kubeconfig's current context;
/// * `allowed`: `kubernetes.allowed_contexts` — `None` → the current context,
///   exactly `["all"]` → every context;
/// * `allow_all_env`: `SKYPILOT_ALLOW_ALL_KUBERNETES_CONTEXTS` is true (only
///   consulted when `allowed` is `None`).
///
/// Contexts starting with `ssh-` (SSH node pools) are never returned nor
/// reported as missing. Duplicates are dropped.
pub fn allowed_contexts(
    kubeconfig_contexts: &[String],
    current: Option<&str>,
    allowed: Option<&[String]>,
    allow_all_env: bool,
) -> AllowedContexts {
    let mut all: Vec<&str> = Vec::new();
    for c in kubeconfig_contexts {
        if !c.starts_with("ssh-") && !all.contains(&c.as_str()) {
            all.push(c);
        }
    }
    if kubeconfig_contexts.is_empty() {
        return AllowedContexts::default();
    }
    let is_all =
        matches!(allowed, Some([only]) if only == "all") || (allowed.is_none() && allow_all_env);
    let wanted: Vec<&str> = if is_all {
        all.clone()
    } else if let Some(list) = allowed {
        list.iter().map(String::as_str).collect()
    } else {
        current.into_iter().collect()
    };
    let mut out = AllowedContexts::default();
    for c in wanted {
        if all.contains(&c) {
            if !out.contexts.iter().any(|x| x == c) {
                out.contexts.push(c.to_string());
            }
        } else if !c.starts_with("ssh-") && !out.skipped.iter().any(|x| x == c) {
            out.skipped.push(c.to_string());
        }
    }
    out
}

/// SkyPilot's message when a context's node listing timed out.
pub fn unreachable_timeout_message(context: &str) -> String {
    format!(
        "Timed out when trying to get node info from Kubernetes cluster. Please check if the cluster \
         is healthy and retry. To debug, run: kubectl get nodes --context {context}"
    )
}

/// SkyPilot's message when the API server answered a node listing with an error.
pub fn unreachable_api_message(context: &str, error: &str) -> String {
    format!(
        "Kubernetes API error when trying to get node info: {error} Please check if the cluster is \
         healthy and retry. To debug, run: kubectl get nodes --context {context}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    type AllowedCase<'a> = (
        Option<Vec<String>>,
        Option<&'a str>,
        bool,
        Vec<String>,
        Vec<String>,
    );

    #[test]
    fn allowed_context_rules() {
        let kc: Vec<String> = ["kind-a", "gke-b", "ssh-pool"].map(String::from).to_vec();
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let cases: Vec<AllowedCase> = vec![
            (None, Some("gke-b"), false, s(&["gke-b"]), s(&[])),
            (None, None, false, s(&[]), s(&[])),
            (None, Some("kind-a"), true, s(&["kind-a", "gke-b"]), s(&[])),
            (
                Some(s(&["all"])),
                Some("kind-a"),
                false,
                s(&["kind-a", "gke-b"]),
                s(&[]),
            ),
            (
                Some(s(&["gke-b", "missing", "ssh-x", "kind-a", "gke-b"])),
                None,
                false,
                s(&["gke-b", "kind-a"]),
                s(&["missing"]),
            ),
            (Some(s(&["ssh-pool"])), None, false, s(&[]), s(&[])),
            (None, Some("ssh-pool"), false, s(&[]), s(&[])),
            (Some(s(&[])), Some("kind-a"), true, s(&[]), s(&[])),
        ];
        for (allowed, current, env, want, skipped) in cases {
            let got = allowed_contexts(&kc, current, allowed.as_deref(), env);
            assert_eq!(
                got,
                AllowedContexts {
                    contexts: want,
                    skipped
                },
                "{allowed:?} {current:?} {env}"
            );
        }
        let got = allowed_contexts(&kc, None, Some(&s(&["x", "it's"])), false);
        assert_eq!(
            got.warning().as_deref(),
            Some(
                "Kubernetes contexts {'x', \"it's\"} specified in \"allowed_contexts\" not found in kubeconfig. Ignoring these contexts."
            )
        );
        assert_eq!(
            allowed_contexts(&[], Some("a"), None, false),
            AllowedContexts::default()
        );
    }
}
