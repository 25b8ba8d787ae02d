//! The `sky check` report, laid out as SkyPilot 0.14.1 prints it
//! (`sky/check.py`: `check_capabilities`, `_print_checked_cloud`,
//! `_format_context_details`, `_format_enabled_cloud`, `_summary_message`),
//! plus what only `sky` knows: how old a cached answer is, and that a
//! timeout is not a verdict. `-o json` is [`json`]: 0.14.1's document,
//! nothing of ours.

use crate::catalog::kubernetes::KubeContext;
use crate::check::{
    CacheUse, Capability, CapabilityAnswer, CheckReport, CloudError, CloudFacts, CloudReport,
    Outcome, WorkspaceCheck,
};
use crate::cloud::{CloudId, Provider, StorageOnly};
use crate::pytext::{py_json_str, py_str_repr};
use crate::text::ansi;

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
/// A provider named twice is one line with its answers twice: SkyPilot's
/// `check_results_dict` has one key per cloud.
fn cloud_lines<'a>(report: &'a CheckReport, ws: &WorkspaceCheck) -> Vec<CloudLine<'a>> {
    let mut named: Vec<(Provider, usize)> = Vec::new();
    for provider in report.shown(ws) {
        match named.iter_mut().find(|(p, _)| *p == provider) {
            Some((_, times)) => *times += 1,
            None => named.push((provider, 1)),
        }
    }
    let mut lines: Vec<CloudLine<'a>> = named
        .into_iter()
        .filter_map(|(provider, times)| line_for(report, ws, provider, times))
        .collect();
    lines.sort_by(|a, b| a.provider.repr().cmp(b.provider.repr()));
    lines
}

/// `provider`'s line: its answers (`times` over, as often as it was
/// named) grouped as `_print_checked_cloud` groups them (one reason,
/// stripped, per distinct text, with its capabilities). `None` when no
/// capability was checked: SkyPilot prints nothing then.
fn line_for<'a>(
    report: &'a CheckReport,
    ws: &WorkspaceCheck,
    provider: Provider,
    times: usize,
) -> Option<CloudLine<'a>> {
    let answers: Vec<_> = (0..times)
        .flat_map(|_| report.answers(ws, provider))
        .collect();
    if answers.is_empty() {
        return None;
    }
    let mut enabled = Vec::new();
    let mut reasons: Vec<(Vec<Capability>, String)> = Vec::new();
    for (capability, answer) in answers {
        let reason = match answer {
            CapabilityAnswer::Enabled => {
                enabled.push(capability);
                continue;
            }
            CapabilityAnswer::Disabled(reason) => reason.trim().to_string(),
            CapabilityAnswer::Failed(e) => failure_reason(e),
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

/// The clouds and storage-only providers a workspace does not allow, as
/// `check.get_all_clouds` lists them: the registry's clouds in its order
/// ([`CloudId::REGISTRY_ORDER`]), then `STORAGE_ONLY_CLOUDS`.
fn disallowed(ws: &WorkspaceCheck) -> Vec<Provider> {
    CloudId::REGISTRY_ORDER
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
    if report.invalid.is_some() {
        // `--workspace` named no workspace: raised before any is checked.
        return out;
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

/// Ours, for a person at a terminal, after 0.14.1's `ValueError` for a
/// name that is no cloud (which lists all of them): the close names, as
/// `--infra` suggests them. `None`: none is close.
pub fn unknown_cloud_hint(name: &str) -> Option<String> {
    let names = Provider::all_names_sorted();
    let close = crate::pytext::close_matches(name, names.iter().map(String::as_str), 3, 0.6);
    (!close.is_empty()).then(|| format!("sky: hint: did you mean {}?", close.join(", ")))
}

/// Ours, after the report when `SKY_ENABLED_CLOUDS` declares clouds:
/// launches use exactly those, with or without credentials, whatever the
/// check found (0.14.1 has no such variable).
pub fn declared_note(clouds: &[CloudId]) -> String {
    let names: Vec<&str> = clouds.iter().map(|c| c.repr()).collect();
    format!(
        "{}SKY_ENABLED_CLOUDS declares the clouds launches use, with or without credentials: {}. This check cannot change that set: edit SKY_ENABLED_CLOUDS to change it.{}",
        ansi::DIM,
        names.join(", "),
        ansi::RESET
    )
}

/// `sky check -o json`: SkyPilot 0.14.1's document, byte for byte
/// (`sky/client/cli/command.py::check`: `click.echo(json.dumps(result,
/// indent=2))` of what `sky/check.py::check` returns, the streamed text
/// discarded). Workspace → provider → its enabled capabilities
/// ([`CheckReport::enabled_capabilities`]): the workspaces in report
/// order, each provider under its `repr` (`AWS`, `Kubernetes`,
/// `Cloudflare`), in check order; a workspace with nothing enabled is
/// `{}`. Reasons, cached answers and identities are not in it (the text
/// report and `--timings` carry them), as in 0.14.1.
///
/// ```text
/// {
///   "default": {
///     "AWS": [
///       "compute",
///       "storage"
///     ]
///   }
/// }
/// ```
///
/// Without the trailing newline `click.echo` adds.
pub fn json(report: &CheckReport) -> String {
    let workspaces: Vec<String> = report
        .workspaces
        .iter()
        .map(|ws| {
            let providers: Vec<String> = report
                .enabled_capabilities(ws)
                .into_iter()
                .map(|(provider, capabilities)| {
                    let items: Vec<String> = capabilities
                        .iter()
                        .map(|c| py_json_str(c.as_str()))
                        .collect();
                    json_entry(provider.repr(), json_container('[', ']', &items, 2))
                })
                .collect();
            json_entry(&ws.name, json_container('{', '}', &providers, 1))
        })
        .collect();
    json_container('{', '}', &workspaces, 0)
}

/// `"key": value`, the key as `json.dumps` writes a string.
fn json_entry(key: &str, value: String) -> String {
    format!("{}: {value}", py_json_str(key))
}

/// A JSON object or array at nesting `depth` as `json.dumps(indent=2)`
/// lays it out: empty as `{}`/`[]`, else one item a line, each indented
/// one level more, items separated by `,` and the closing bracket back at
/// `depth`.
fn json_container(open: char, close: char, items: &[String], depth: usize) -> String {
    if items.is_empty() {
        return format!("{open}{close}");
    }
    let inner = "  ".repeat(depth + 1);
    let body: Vec<String> = items.iter().map(|item| format!("{inner}{item}")).collect();
    format!(
        "{open}\n{}\n{}{close}",
        body.join(",\n"),
        "  ".repeat(depth)
    )
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
        let out = crate::text::strip_ansi(&report(&r, &CheckView::default()).join("\n"));
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
        let out = crate::text::strip_ansi(&report(&r, &CheckView::default()).join("\n"));
        assert!(
            out.contains(
                "  GCP: enabled [storage]\n    Reason [compute]: credentials rejected: expired\n"
            ),
            "{out}"
        );
        assert!(!out.contains("not a verdict"), "{out}");
        // `-o json`: the enabled capabilities only, in the registry's
        // order (GCP before Kubernetes), no contexts, reasons or cache.
        assert_eq!(
            json(&r),
            r#"{
  "default": {
    "GCP": [
      "storage"
    ],
    "Kubernetes": [
      "compute"
    ]
  }
}"#
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
        let out = crate::text::strip_ansi(&report(&r, &CheckView::default()).join("\n"));
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
        // `-o json`: the named order (GCP before Cloudflare), only what
        // is enabled (not VastData's transient failure, nor Lambda with
        // no checkable capability).
        assert_eq!(
            json(&r),
            r#"{
  "default": {
    "AWS": [
      "compute"
    ],
    "GCP": [
      "compute"
    ],
    "Cloudflare": [
      "compute",
      "storage"
    ]
  }
}"#
        );
    }

    /// `-o json` is `check.check`'s dict: workspaces in report order (a
    /// name outside ASCII escaped as `json.dumps` escapes it, one with
    /// nothing enabled `{}`), clouds in the registry's order then the
    /// storage-only providers, capabilities in the order the config lists
    /// them, a capability that is not enabled left out.
    #[test]
    fn json_is_what_check_check_returns() {
        use StorageOnly::Cloudflare;
        let r = CheckReport {
            fanout: FanOut {
                reports: vec![
                    cloud(CloudId::Aws, ready()),
                    cloud(CloudId::Hyperbolic, ready()),
                    cloud(CloudId::Nebius, Outcome::NoCredentials("no token".into())),
                ],
                storage: vec![
                    storage(CloudId::Aws, StorageOutcome::Enabled),
                    storage(CloudId::Nebius, StorageOutcome::Enabled),
                    storage(Cloudflare, StorageOutcome::Enabled),
                ],
                wall: Duration::ZERO,
            },
            available_workspaces: vec!["default".into(), "équipe".into(), "empty".into()],
            workspaces: vec![
                WorkspaceCheck {
                    name: "default".into(),
                    allowed: vec![CloudId::Aws, CloudId::Hyperbolic, CloudId::Nebius],
                    storage_only: vec![Cloudflare],
                    capabilities: vec![(
                        CloudId::Aws,
                        vec![Capability::Storage, Capability::Compute],
                    )],
                },
                WorkspaceCheck {
                    name: "équipe".into(),
                    allowed: vec![CloudId::Hyperbolic],
                    ..WorkspaceCheck::default()
                },
                WorkspaceCheck {
                    name: "empty".into(),
                    ..WorkspaceCheck::default()
                },
            ],
            ..CheckReport::default()
        };
        assert_eq!(
            json(&r),
            r#"{
  "default": {
    "AWS": [
      "storage",
      "compute"
    ],
    "Hyperbolic": [
      "compute"
    ],
    "Nebius": [
      "storage"
    ],
    "Cloudflare": [
      "compute",
      "storage"
    ]
  },
  "\u00e9quipe": {
    "Hyperbolic": [
      "compute"
    ]
  },
  "empty": {}
}"#
        );
        assert!(r.enabled_anywhere());
        let nothing = CheckReport {
            workspaces: vec![r.workspaces[2].clone()],
            ..r.clone()
        };
        assert_eq!(json(&nothing), "{\n  \"empty\": {}\n}");
        assert!(!nothing.enabled_anywhere());
    }

    /// A name given twice is checked and reported twice, as 0.14.1 does
    /// (`sky check hyperbolic hyperbolic cloudflare`): one line, and one
    /// JSON key in its first place, with the capabilities twice.
    #[test]
    fn a_provider_named_twice_lists_its_capabilities_twice() {
        use StorageOnly::Cloudflare;
        let r = CheckReport {
            fanout: FanOut {
                reports: vec![cloud(CloudId::Hyperbolic, ready())],
                storage: vec![storage(Cloudflare, StorageOutcome::Enabled)],
                wall: Duration::ZERO,
            },
            available_workspaces: vec!["default".into()],
            workspaces: vec![WorkspaceCheck {
                name: "default".into(),
                allowed: CloudId::ALL.to_vec(),
                storage_only: StorageOnly::ALL.to_vec(),
                capabilities: Vec::new(),
            }],
            explicit: Some(vec![
                CloudId::Hyperbolic.into(),
                Cloudflare.into(),
                CloudId::Hyperbolic.into(),
            ]),
            ..CheckReport::default()
        };
        let out = crate::text::strip_ansi(&report(&r, &CheckView::default()).join("\n"));
        let want = "\
Checking credentials to enable infra for SkyPilot.
  Cloudflare: enabled [compute, storage]
  Hyperbolic: enabled [compute, compute]

🎉 Enabled infra 🎉
  Cloudflare [compute, storage]
  Hyperbolic [compute, compute]";
        assert_eq!(out.split("\n\nTo enable").next().unwrap(), want);
        assert_eq!(
            json(&r),
            r#"{
  "default": {
    "Hyperbolic": [
      "compute",
      "compute"
    ],
    "Cloudflare": [
      "compute",
      "storage"
    ]
  }
}"#
        );
    }
}
