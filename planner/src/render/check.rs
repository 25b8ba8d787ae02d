//! The `sky check` report, laid out as SkyPilot 0.14.1 prints it
//! (`sky/check.py`: `check_capabilities`, `_print_checked_cloud`,
//! `_format_context_details`, `_format_enabled_cloud`, `_summary_message`),
//! plus what only `sky` knows: how old a cached answer is, and that a
//! timeout is not a verdict. `-o json` is [`json`].

use super::ansi;
use crate::catalog::kubernetes::KubeContext;
use crate::check::{
    CacheUse, Capability, CapabilityAnswer, CheckReport, CloudError, CloudFacts, CloudReport,
    Outcome, WorkspaceCheck,
};
use crate::cloud::{CloudId, Provider, StorageOnly};
use crate::pytext::py_str_repr;

/// `colorama.Fore.LIGHTRED_EX`.
const LIGHTRED: &str = "\x1b[91m";
/// `colorama.Fore.LIGHTYELLOW_EX`.
const LIGHTYELLOW: &str = "\x1b[93m";
/// `colorama.Style.NORMAL`.
const NORMAL: &str = "\x1b[22m";
/// `ux_utils.INDENT_SYMBOL`.
const INDENT: &str = "\x1b[2m├── \x1b[0m";
/// `ux_utils.INDENT_LAST_SYMBOL`.
const INDENT_LAST: &str = "\x1b[2m└── \x1b[0m";
/// `check.PARTY_POPPER_EMOJI`.
const PARTY: &str = "\u{1F389}";
/// `constants.SKYPILOT_DEFAULT_WORKSPACE`.
const DEFAULT_WORKSPACE: &str = "default";

/// How the report is shown.
#[derive(Debug, Clone, Copy, Default)]
pub struct CheckView {
    /// `-v`: per-cloud details in every workspace, and the activated account.
    pub verbose: bool,
}

/// One cloud (or storage-only provider) as one workspace sees it.
struct CloudLine<'a> {
    provider: Provider,
    /// The capabilities its checks enabled (empty: disabled).
    enabled: Vec<Capability>,
    /// `(capabilities, reason)` for the disabled ones, one entry per
    /// distinct reason in capability order (`reasons_to_capabilities`).
    reasons: Vec<(Vec<Capability>, String)>,
    /// Whether a check failed without a verdict (timeout, server error).
    transient: bool,
    /// The compute check's report, when the cloud was checked.
    report: Option<&'a CloudReport>,
}

/// Python's `', '.join(capabilities)`.
fn caps(list: &[Capability]) -> String {
    list.iter()
        .map(|c| c.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A failed check's reason: its error, and for a timeout or server error
/// that it is not a verdict (upstream #4373: said so, and not recorded as
/// disabled).
fn failure_reason(e: &CloudError) -> String {
    let mut reason = e.to_string();
    if e.is_transient() {
        reason.push_str(&format!(
            " {}(not a verdict: the cloud keeps its previous standing for later launches){}",
            ansi::DIM,
            ansi::RESET
        ));
    }
    reason
}

/// Every cloud and storage-only provider the workspace reports, sorted by
/// name as SkyPilot sorts them
/// (`sorted(check_results_dict.items(), key=lambda item: item[0][0])`).
fn cloud_lines<'a>(report: &'a CheckReport, ws: &WorkspaceCheck) -> Vec<CloudLine<'a>> {
    let mut lines: Vec<CloudLine<'a>> = report
        .shown(ws)
        .into_iter()
        .filter_map(|provider| line_for(report, ws, provider))
        .collect();
    lines.sort_by(|a, b| a.provider.repr().cmp(b.provider.repr()));
    lines
}

/// `provider`'s line: its answers grouped as `_print_checked_cloud` groups
/// them (one reason, stripped, per distinct text, with its capabilities).
/// `None` when no capability was checked: SkyPilot prints nothing then.
fn line_for<'a>(
    report: &'a CheckReport,
    ws: &WorkspaceCheck,
    provider: Provider,
) -> Option<CloudLine<'a>> {
    let answers = report.answers(ws, provider);
    if answers.is_empty() {
        return None;
    }
    let mut enabled = Vec::new();
    let mut reasons: Vec<(Vec<Capability>, String)> = Vec::new();
    let mut transient = false;
    for (capability, answer) in answers {
        let reason = match answer {
            CapabilityAnswer::Enabled => {
                enabled.push(capability);
                continue;
            }
            CapabilityAnswer::Disabled(reason) => reason.trim().to_string(),
            CapabilityAnswer::Failed(e) => {
                transient |= e.is_transient();
                failure_reason(e)
            }
            // `check_one_cloud_one_capability` with `allowed=False`.
            CapabilityAnswer::NotAllowed => format!(
                "{} is not included in allowed_clouds in ~/.sky/config.yaml",
                provider.repr()
            ),
            CapabilityAnswer::NotChecked => "not checked".to_string(),
        };
        match reasons.iter_mut().find(|(_, r)| *r == reason) {
            Some((list, _)) => list.push(capability),
            None => reasons.push((vec![capability], reason)),
        }
    }
    let report_of = match provider {
        Provider::Cloud(c) if ws.allows(provider) => {
            report.fanout.reports.iter().find(|r| r.cloud == c)
        }
        _ => None,
    };
    Some(CloudLine {
        provider,
        enabled,
        reasons,
        transient,
        report: report_of,
    })
}

/// The contexts (Kubernetes), node pools (SSH) or clusters (Slurm) of an
/// enabled cloud, each with its state when `details` (the per-cloud line)
/// or only the enabled ones without it (the summary)
/// (`_format_context_details`).
fn context_details(report: &CloudReport, details: bool) -> String {
    let Outcome::Ready(o) = &report.outcome else {
        return String::new();
    };
    // (shown name, state text, enabled)
    let entries: Vec<(String, String, bool)> = match &o.facts {
        CloudFacts::Kubernetes(ctxs) => kube_entries(ctxs, None),
        CloudFacts::Ssh(f) => {
            let mut e = kube_entries(&f.contexts, Some("ssh-"));
            for skipped in &f.skipped {
                let pool = skipped.strip_prefix("ssh-").unwrap_or(skipped);
                e.push((
                    pool.to_string(),
                    format!(
                        "{LIGHTRED}disabled. {}{}Reason: Not set up. Use `sky ssh up --infra {pool}` to set up.{}",
                        ansi::RESET,
                        ansi::DIM,
                        ansi::RESET
                    ),
                    false,
                ));
            }
            e
        }
        CloudFacts::Slurm(clusters) => clusters
            .iter()
            .map(|c| match c.nodes() {
                Ok(_) => (c.name.clone(), enabled_text(), true),
                Err(e) => (
                    c.name.clone(),
                    disabled_text(e.lines().next().unwrap_or_default()),
                    false,
                ),
            })
            .collect(),
        _ => return String::new(),
    };
    let shown: Vec<&(String, String, bool)> =
        entries.iter().filter(|(_, _, ok)| details || *ok).collect();
    if shown.is_empty() {
        return String::new();
    }
    let title = match report.cloud {
        CloudId::Ssh => "SSH Node Pools",
        CloudId::Slurm => "Allowed clusters",
        _ => "Allowed contexts",
    };
    let mut out = format!("\n    {title}:");
    for (i, (name, text, _)) in shown.iter().enumerate() {
        let symbol = if i + 1 == shown.len() {
            INDENT_LAST
        } else {
            INDENT
        };
        out.push_str(&format!("\n    {symbol}{name}"));
        if details {
            out.push_str(&format!(": {text}"));
        }
    }
    out
}

/// `Kubernetes._check_single_context`'s `enabled.`.
fn enabled_text() -> String {
    format!("{}enabled.{}", ansi::GREEN, ansi::RESET)
}

/// `Kubernetes._check_single_context`'s `disabled. Reason: ...`.
fn disabled_text(reason: &str) -> String {
    format!(
        "{LIGHTRED}disabled.{}{} Reason: {reason}{}",
        ansi::RESET,
        ansi::DIM,
        ansi::RESET
    )
}

fn kube_entries(ctxs: &[KubeContext], strip: Option<&str>) -> Vec<(String, String, bool)> {
    ctxs.iter()
        .map(|c| {
            let name = match strip {
                Some(p) => c.name.strip_prefix(p).unwrap_or(&c.name).to_string(),
                None => c.name.clone(),
            };
            match &c.nodes {
                Ok(_) => (name, enabled_text(), true),
                Err(e) => (name, disabled_text(e), false),
            }
        })
        .collect()
}

/// `cloud.get_active_user_identity_str()` where `sky` knows the identity:
/// AWS's `<UserId> [account=<account>]` (an STS user id and account
/// number, never a key id). Other clouds' adapters learn no identity.
fn activated_account(report: &CloudReport) -> Option<String> {
    match &report.outcome {
        Outcome::Ready(o) => match &o.facts {
            CloudFacts::Aws(f) => f
                .identity
                .as_ref()
                .map(|i| format!("{} [account={}]", i.user_id, i.account)),
            _ => None,
        },
        _ => None,
    }
}

/// What the on-disk cache did for a check, as `sky` adds it.
fn cache_note(report: &CloudReport) -> Option<String> {
    match &report.outcome {
        Outcome::Ready(o) => match o.cache {
            CacheUse::Hit { age } => Some(format!(
                "    {}Cached: answered from the cache, {}s old{}",
                ansi::DIM,
                age.as_secs(),
                ansi::RESET
            )),
            CacheUse::Miss | CacheUse::None => None,
        },
        _ => None,
    }
}

/// `_print_checked_cloud`: the cloud's line, its account (`-v`), our cache
/// note, and a `Reason [capabilities]:` line per distinct reason.
fn print_cloud(out: &mut Vec<String>, line: &CloudLine<'_>, view: &CheckView) {
    let (style, status, capability_string) = if line.enabled.is_empty() {
        (ansi::DIM.to_string(), "disabled", String::new())
    } else {
        (
            format!("{}{NORMAL}", ansi::GREEN),
            "enabled",
            format!("[{}]", caps(&line.enabled)),
        )
    };
    let detail = match (line.enabled.is_empty(), line.report) {
        (false, Some(r)) => context_details(r, true),
        _ => String::new(),
    };
    // `click.style(text)` appends a reset of its own.
    out.push(format!(
        "{style}  {}: {status} {capability_string}{}{detail}{}",
        line.provider.repr(),
        ansi::RESET,
        ansi::RESET
    ));
    if view.verbose
        && !line.enabled.is_empty()
        && let Some(account) = line.report.and_then(activated_account)
    {
        out.push(format!("    Activated account: {account}"));
    }
    if let Some(note) = line.report.and_then(cache_note) {
        out.push(note);
    }
    // A warning that did not fail the compute check reads as 0.14.1's
    // hints do.
    if let Some(Outcome::Ready(o)) = line.report.map(|r| &r.outcome)
        && let CloudFacts::Aws(f) = &o.facts
    {
        for w in &f.warnings {
            out.push(format!(
                "    Hint [{}]: {LIGHTYELLOW}{w}{}",
                Capability::Compute.as_str(),
                ansi::RESET
            ));
        }
    }
    for (capabilities, reason) in &line.reasons {
        out.push(format!("    Reason [{}]: {reason}", caps(capabilities)));
    }
}

/// `_summary_message`.
fn summary(
    lines: &[CloudLine<'_>],
    ws: &WorkspaceCheck,
    hide_workspace: bool,
    disallowed: &[Provider],
) -> String {
    let enabled: Vec<&CloudLine<'_>> = lines.iter().filter(|l| !l.enabled.is_empty()).collect();
    let clouds = if enabled.is_empty() {
        "\n  No infra to check/enabled.".to_string()
    } else {
        let items: Vec<String> = enabled
            .iter()
            .map(|l| {
                let title = format!(
                    "{}{} [{}]{}",
                    ansi::GREEN,
                    l.provider.repr(),
                    caps(&l.enabled),
                    ansi::RESET
                );
                match l.report {
                    Some(r) => format!("{title}{}", context_details(r, false)),
                    None => title,
                }
            })
            .collect();
        format!("\n  {}", items.join("\n  "))
    };
    let workspace = if hide_workspace {
        String::new()
    } else {
        format!(" for workspace: {}", py_str_repr(&ws.name))
    };
    let mut hint = String::new();
    if !disallowed.is_empty() {
        let for_workspace = if hide_workspace {
            String::new()
        } else {
            format!(" or disabled for this workspace {}", py_str_repr(&ws.name))
        };
        hint = format!(
            "\nNote: The following clouds were disabled because they were not included in allowed_clouds in ~/.sky/config.yaml{for_workspace}: {}",
            disallowed
                .iter()
                .map(|c| c.repr())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    format!(
        "\n{}{PARTY} Enabled infra{workspace} {PARTY}{}{clouds}{hint}",
        ansi::GREEN,
        ansi::RESET
    )
}

/// `registry.CLOUD_REGISTRY`'s order in 0.14.1: registration happens as
/// each cloud module is imported. `sky/clouds/__init__.py` imports them by
/// module name, but the import of `sky.clouds.aws` (the first) already
/// imports GCP and Verda through the provisioners, so those two come first
/// (what SkyPilot prints; conformance case `check-allowed-cloudflare`).
const REGISTRY_ORDER: [CloudId; 25] = [
    CloudId::Gcp,
    CloudId::Verda,
    CloudId::Aws,
    CloudId::Azure,
    CloudId::Cudo,
    CloudId::Do,
    CloudId::Fluidstack,
    CloudId::Hyperbolic,
    CloudId::Ibm,
    CloudId::Kubernetes,
    CloudId::Lambda,
    CloudId::Mithril,
    CloudId::Nebius,
    CloudId::Oci,
    CloudId::Paperspace,
    CloudId::PrimeIntellect,
    CloudId::Runpod,
    CloudId::Scp,
    CloudId::Seeweb,
    CloudId::Shadeform,
    CloudId::Slurm,
    CloudId::Ssh,
    CloudId::Vast,
    CloudId::Vsphere,
    CloudId::Yotta,
];

/// The clouds and storage-only providers a workspace does not allow, as
/// `check.get_all_clouds` lists them: the registry's clouds in its order
/// ([`REGISTRY_ORDER`]), then `STORAGE_ONLY_CLOUDS`.
fn disallowed(ws: &WorkspaceCheck) -> Vec<Provider> {
    REGISTRY_ORDER
        .into_iter()
        .filter(|c| !ws.allowed.contains(c))
        .map(Provider::Cloud)
        .chain(
            StorageOnly::ALL
                .into_iter()
                .filter(|s| !ws.storage_only.contains(s))
                .map(Provider::StorageOnly),
        )
        .collect()
}

/// The report: the header, per workspace the per-cloud lines (unless
/// several workspaces are summarised) and the "🎉 Enabled infra 🎉"
/// summary, then the hint to rerun `sky check`.
pub fn report(report: &CheckReport, view: &CheckView) -> Vec<String> {
    let available = &report.available_workspaces;
    let hide_workspace = available.is_empty() || available == &[DEFAULT_WORKSPACE.to_string()];
    let mut out = vec![if available.len() > 1 {
        format!(
            "Checking credentials to enable infra for SkyPilot (Workspaces: {}).",
            available.join(", ")
        )
    } else {
        "Checking credentials to enable infra for SkyPilot.".to_string()
    }];
    let hide_details = !report.workspace_selected
        && !view.verbose
        && report.explicit.is_none()
        && report.workspaces.len() > 1;
    for ws in &report.workspaces {
        if !report.workspace_selected && !hide_workspace {
            out.push(format!(
                "\nChecking enabled infra for workspace: {}",
                py_str_repr(&ws.name)
            ));
        }
        if report.invalid.is_some() {
            // The first workspace's check raises on the name (the caller
            // shows the error); nothing else is printed.
            return out;
        }
        let lines = cloud_lines(report, ws);
        if !hide_details {
            for line in &lines {
                print_cloud(&mut out, line, view);
            }
        }
        out.push(summary(&lines, ws, hide_workspace, &disallowed(ws)));
    }
    out.push(format!(
        "{}\nTo enable a cloud, follow the hints above and rerun: {}{}sky check{}\n{}If any problems remain, refer to detailed docs at: https://docs.skypilot.co/en/latest/getting-started/installation.html{}",
        ansi::DIM,
        ansi::RESET,
        ansi::BRIGHT,
        ansi::RESET,
        ansi::DIM,
        ansi::RESET
    ));
    out
}

/// `sky check -o json`: ours, richer than 0.14.1's (which prints the
/// `{workspace: {cloud: [capability]}}` that `check.check` returns). The
/// schema, documented in the README; storage-only providers are `clouds`
/// entries too:
///
/// ```text
/// { "workspaces": [ { "workspace": str,
///     "clouds": [ { "cloud": str, "enabled": bool, "capabilities": [str],
///                   "reason": str|null,
///                   "reasons": [ { "capabilities": [str], "reason": str } ],
///                   "transient": bool,
///                   "cache_age_secs": int|null, "identity": str|null (-v),
///                   "contexts": [ { "name": str, "enabled": bool } ] } ],
///     "enabled": [str], "disallowed": [str] } ] }
/// ```
pub fn json(report: &CheckReport, view: &CheckView) -> String {
    let workspaces: Vec<serde_json::Value> = report
        .workspaces
        .iter()
        .map(|ws| {
            let lines = cloud_lines(report, ws);
            let clouds: Vec<serde_json::Value> = lines
                .iter()
                .map(|l| {
                    let reason = l.reasons.first().map(|(_, r)| super::strip_ansi(r));
                    let reasons: Vec<serde_json::Value> = l
                        .reasons
                        .iter()
                        .map(|(capabilities, r)| {
                            serde_json::json!({
                                "capabilities": capabilities,
                                "reason": super::strip_ansi(r),
                            })
                        })
                        .collect();
                    let cache_age = match l.report.map(|r| &r.outcome) {
                        Some(Outcome::Ready(o)) => match o.cache {
                            CacheUse::Hit { age } => Some(age.as_secs()),
                            _ => None,
                        },
                        _ => None,
                    };
                    let identity = if view.verbose {
                        l.report.and_then(activated_account)
                    } else {
                        None
                    };
                    let contexts: Vec<serde_json::Value> = match l.report.map(|r| &r.outcome) {
                        Some(Outcome::Ready(o)) => match &o.facts {
                            CloudFacts::Kubernetes(c) => json_contexts(c),
                            CloudFacts::Ssh(f) => json_contexts(&f.contexts),
                            CloudFacts::Slurm(cs) => cs
                                .iter()
                                .map(|c| {
                                    serde_json::json!({
                                        "name": c.name,
                                        "enabled": c.nodes().is_ok(),
                                    })
                                })
                                .collect(),
                            _ => Vec::new(),
                        },
                        _ => Vec::new(),
                    };
                    serde_json::json!({
                        "cloud": l.provider.repr(),
                        "enabled": !l.enabled.is_empty(),
                        "capabilities": l.enabled,
                        "reason": reason,
                        "reasons": reasons,
                        "transient": l.transient,
                        "cache_age_secs": cache_age,
                        "identity": identity,
                        "contexts": contexts,
                    })
                })
                .collect();
            let enabled: Vec<&str> = lines
                .iter()
                .filter(|l| !l.enabled.is_empty())
                .map(|l| l.provider.repr())
                .collect();
            let disallowed: Vec<&str> = disallowed(ws).iter().map(|c| c.repr()).collect();
            serde_json::json!({
                "workspace": ws.name,
                "clouds": clouds,
                "enabled": enabled,
                "disallowed": disallowed,
            })
        })
        .collect();
    serde_json::to_string_pretty(&serde_json::json!({ "workspaces": workspaces }))
        .unwrap_or_default()
}

fn json_contexts(ctxs: &[KubeContext]) -> Vec<serde_json::Value> {
    ctxs.iter()
        .map(|c| serde_json::json!({ "name": c.name, "enabled": c.nodes.is_ok() }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{CheckOutcome, FanOut, StorageOutcome, StorageReport};
    use std::time::Duration;

    fn storage(provider: impl Into<Provider>, outcome: StorageOutcome) -> StorageReport {
        StorageReport {
            provider: provider.into(),
            outcome,
            started: Duration::ZERO,
            elapsed: Duration::ZERO,
        }
    }

    fn cloud(cloud: CloudId, outcome: Outcome) -> CloudReport {
        CloudReport {
            cloud,
            outcome,
            started: Duration::ZERO,
            elapsed: Duration::ZERO,
        }
    }

    fn kube(ctxs: Vec<(&str, Result<(), &str>)>) -> Outcome {
        Outcome::Ready(CheckOutcome {
            facts: CloudFacts::Kubernetes(
                ctxs.into_iter()
                    .map(|(name, nodes)| KubeContext {
                        name: name.into(),
                        nodes: nodes.map(|_| Vec::new()).map_err(str::to_string),
                    })
                    .collect(),
            ),
            cache: CacheUse::Hit {
                age: Duration::from_secs(42),
            },
        })
    }

    /// `_format_context_details`: every context with its state on the
    /// cloud's line, only the enabled ones in the summary; a timeout is
    /// said not to be a verdict; clouds sorted by name.
    #[test]
    fn contexts_timeouts_and_order() {
        let reports = [
            cloud(
                CloudId::Kubernetes,
                kube(vec![("kind-a", Ok(())), ("lab", Err("connection refused"))]),
            ),
            cloud(
                CloudId::Gcp,
                Outcome::Failed(CloudError::Timeout(Duration::from_secs(5))),
            ),
            cloud(
                CloudId::Gcp,
                Outcome::Failed(CloudError::Auth("expired".into())),
            ),
        ];
        let mut r = CheckReport {
            fanout: FanOut {
                reports: reports[..2].to_vec(),
                storage: vec![storage(
                    CloudId::Gcp,
                    StorageOutcome::Failed(CloudError::Timeout(Duration::from_secs(5))),
                )],
                wall: Duration::ZERO,
            },
            available_workspaces: vec!["default".into()],
            workspaces: vec![WorkspaceCheck {
                name: "default".into(),
                allowed: vec![CloudId::Gcp, CloudId::Kubernetes],
                ..WorkspaceCheck::default()
            }],
            ..CheckReport::default()
        };
        let out = crate::render::strip_ansi(&report(&r, &CheckView::default()).join("\n"));
        let want = "\
Checking credentials to enable infra for SkyPilot.
  GCP: disabled 
    Reason [compute, storage]: timed out after 5s (not a verdict: the cloud keeps its previous standing for later launches)
  Kubernetes: enabled [compute]
    Allowed contexts:
    ├── kind-a: enabled.
    └── lab: disabled. Reason: connection refused
    Cached: answered from the cache, 42s old

🎉 Enabled infra 🎉
  Kubernetes [compute]
    Allowed contexts:
    └── kind-a
Note: The following clouds were disabled because they were not included in allowed_clouds in ~/.sky/config.yaml: Verda, AWS, Azure, Cudo, DO, Fluidstack, Hyperbolic, IBM, Lambda, Mithril, Nebius, OCI, Paperspace, PrimeIntellect, RunPod, SCP, Seeweb, Shadeform, Slurm, SSH, Vast, vSphere, Yotta, Cloudflare, CoreWeave, VastData, HuggingFace
";
        assert_eq!(out.split("\n\nTo enable").next().unwrap(), want.trim_end());
        // Rejected credentials are a verdict: no such note.
        r.fanout.reports[1] = reports[2].clone();
        r.fanout.storage[0].outcome = StorageOutcome::Enabled;
        let out = crate::render::strip_ansi(&report(&r, &CheckView::default()).join("\n"));
        assert!(
            out.contains(
                "  GCP: enabled [storage]\n    Reason [compute]: credentials rejected: expired\n"
            ),
            "{out}"
        );
        assert!(!out.contains("not a verdict"), "{out}");
        let doc: serde_json::Value =
            serde_json::from_str(&json(&r, &CheckView::default())).unwrap();
        let k = &doc["workspaces"][0]["clouds"][1];
        assert_eq!(k["cache_age_secs"], 42);
        assert_eq!(
            k["contexts"],
            serde_json::json!([{"name": "kind-a", "enabled": true}, {"name": "lab", "enabled": false}])
        );
    }

    fn ready() -> Outcome {
        Outcome::Ready(CheckOutcome {
            facts: CloudFacts::Catalog,
            cache: CacheUse::None,
        })
    }

    /// Storage as `_print_checked_cloud` groups it: one `Reason` per
    /// distinct reason with its capabilities, the storage check standing in
    /// for Cloudflare's compute, Azure's storage being its compute check,
    /// OCI falling back to it, capabilities restricted by the config, and
    /// clouds with no checked capability left out.
    #[test]
    fn storage_capabilities_are_grouped_as_skypilot_groups_them() {
        use StorageOnly::*;
        let denied = "Failed to list buckets for the account X.\n    Details: AccessDenied";
        let r = CheckReport {
            fanout: FanOut {
                reports: vec![
                    cloud(CloudId::Aws, ready()),
                    cloud(CloudId::Azure, Outcome::NoCredentials("az login ".into())),
                    cloud(CloudId::Gcp, ready()),
                    cloud(CloudId::Lambda, ready()),
                    cloud(
                        CloudId::Oci,
                        Outcome::NoCredentials("no ~/.oci/config".into()),
                    ),
                ],
                storage: vec![
                    storage(CloudId::Aws, StorageOutcome::Disabled(denied.into())),
                    storage(CloudId::Oci, StorageOutcome::SameAsCompute),
                    storage(Cloudflare, StorageOutcome::Enabled),
                    storage(CoreWeave, StorageOutcome::Disabled("[cw] profile".into())),
                    storage(
                        VastData,
                        StorageOutcome::Failed(CloudError::Service("HTTP 503".into())),
                    ),
                ],
                wall: Duration::ZERO,
            },
            available_workspaces: vec!["default".into()],
            workspaces: vec![WorkspaceCheck {
                name: "default".into(),
                allowed: CloudId::ALL.to_vec(),
                storage_only: vec![Cloudflare, CoreWeave, VastData],
                capabilities: vec![
                    (CloudId::Gcp, vec![Capability::Compute]),
                    (CloudId::Lambda, vec![Capability::Storage]),
                ],
            }],
            explicit: Some(vec![
                CloudId::Aws.into(),
                CloudId::Azure.into(),
                CloudId::Gcp.into(),
                CloudId::Lambda.into(),
                CloudId::Oci.into(),
                Cloudflare.into(),
                CoreWeave.into(),
                VastData.into(),
                HuggingFace.into(),
            ]),
            ..CheckReport::default()
        };
        let out = crate::render::strip_ansi(&report(&r, &CheckView::default()).join("\n"));
        let want = "\
Checking credentials to enable infra for SkyPilot.
  AWS: enabled [compute]
    Reason [storage]: Failed to list buckets for the account X.
    Details: AccessDenied
  Azure: disabled 
    Reason [compute, storage]: az login
  Cloudflare: enabled [compute, storage]
  CoreWeave: disabled 
    Reason [storage]: [cw] profile
  GCP: enabled [compute]
  HuggingFace: disabled 
    Reason [compute, storage]: HuggingFace is not included in allowed_clouds in ~/.sky/config.yaml
  OCI: disabled 
    Reason [compute, storage]: no ~/.oci/config
  VastData: disabled 
    Reason [storage]: HTTP 503 (not a verdict: the cloud keeps its previous standing for later launches)

🎉 Enabled infra 🎉
  AWS [compute]
  Cloudflare [compute, storage]
  GCP [compute]
Note: The following clouds were disabled because they were not included in allowed_clouds in ~/.sky/config.yaml: HuggingFace";
        assert_eq!(out.split("\n\nTo enable").next().unwrap(), want);
        let doc: serde_json::Value =
            serde_json::from_str(&json(&r, &CheckView::default())).unwrap();
        let ws = &doc["workspaces"][0];
        assert_eq!(
            ws["enabled"],
            serde_json::json!(["AWS", "Cloudflare", "GCP"])
        );
        let aws = &ws["clouds"][0];
        assert_eq!(aws["capabilities"], serde_json::json!(["compute"]));
        assert_eq!(
            aws["reasons"],
            serde_json::json!([{"capabilities": ["storage"], "reason": denied}])
        );
        let vast = &ws["clouds"][7];
        assert_eq!(vast["cloud"], "VastData");
        assert_eq!(vast["transient"], true);
        assert_eq!(ws["disallowed"], serde_json::json!(["HuggingFace"]));
    }
}

#[cfg(test)]
mod registry_tests {
    use super::*;

    #[test]
    fn the_registry_order_names_every_cloud_once() {
        let mut sorted = REGISTRY_ORDER.to_vec();
        sorted.sort();
        assert_eq!(sorted, CloudId::ALL.to_vec());
    }
}
