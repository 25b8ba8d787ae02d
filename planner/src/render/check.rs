//! The `sky check` report.

use super::ansi;
use crate::catalog::kubernetes::KubeContext;
use crate::check::{CacheUse, CheckReport, CloudFacts, Outcome};

/// `name (N nodes)` per context, or why it is unreachable.
fn context_list(ctxs: &[KubeContext]) -> String {
    ctxs.iter()
        .map(|c| match &c.nodes {
            Ok(n) => format!("{} ({} nodes)", c.name, n.len()),
            Err(e) => format!("{} (unreachable: {e})", c.name),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The first line of a multi-line error (SkyPilot's command errors span several).
fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// The report: a header, one entry per cloud (enabled, or disabled with
/// the reason), then the enabled set.
pub fn report(report: &CheckReport) -> Vec<String> {
    let mut out = vec!["Checking credentials to enable clouds for SkyPilot.".to_string()];
    for r in &report.fanout.reports {
        match &r.outcome {
            Outcome::Ready(o) => {
                let mut line = format!(
                    "  {}: {}enabled{}",
                    r.cloud.repr(),
                    ansi::GREEN,
                    ansi::RESET
                );
                match &o.facts {
                    CloudFacts::Aws(f) => {
                        if let Some(i) = &f.identity {
                            line.push_str(&format!(
                                " [identity: {} [account={}]]",
                                i.user_id, i.account
                            ));
                        }
                    }
                    CloudFacts::Kubernetes(ctxs) => {
                        line.push_str(&format!(" [contexts: {}]", context_list(ctxs)));
                    }
                    CloudFacts::Ssh(f) => {
                        line.push_str(&format!(" [node pools: {}]", context_list(&f.contexts)));
                    }
                    CloudFacts::Slurm(clusters) => {
                        let names: Vec<String> = clusters
                            .iter()
                            .map(|c| match c.nodes() {
                                // `sinfo -N` prints a node once per partition.
                                Ok(n) => format!(
                                    "{} ({} nodes)",
                                    c.name,
                                    n.iter()
                                        .map(|x| x.node.as_str())
                                        .collect::<std::collections::BTreeSet<_>>()
                                        .len()
                                ),
                                Err(e) => format!("{} (unreachable: {})", c.name, first_line(&e)),
                            })
                            .collect();
                        line.push_str(&format!(" [clusters: {}]", names.join(", ")));
                    }
                    CloudFacts::Oci(f) => match &f.unavailable {
                        Some(why) => line.push_str(&format!(" [regions: all; {why}]")),
                        None if f.subscribed_regions.is_empty() => {}
                        None => line.push_str(&format!(
                            " [subscribed regions: {}]",
                            f.subscribed_regions.join(", ")
                        )),
                    },
                    CloudFacts::Nebius(f) => match (&f.tenant_id, &f.presets, &f.fallback) {
                        (Some(t), Some(p), _) => {
                            line.push_str(&format!(" [tenant {t}: {} priced presets]", p.len()))
                        }
                        (Some(t), None, Some(why)) => {
                            line.push_str(&format!(" [tenant {t}: list prices; {why}]"))
                        }
                        _ => {}
                    },
                    // `check` never looks reservations up (see below).
                    CloudFacts::Gcp(_) | CloudFacts::Catalog => {}
                }
                match o.cache {
                    CacheUse::Hit { age } => {
                        line.push_str(&format!(" (cached, {}s old)", age.as_secs()))
                    }
                    CacheUse::Miss => line.push_str(" (fetched)"),
                    CacheUse::None => {}
                }
                out.push(line);
            }
            Outcome::NoCredentials(h) => out.push(format!(
                "  {}: {}disabled{}\n    Reason: {h}",
                r.cloud.repr(),
                ansi::DIM,
                ansi::RESET
            )),
            Outcome::Failed(e) => out.push(format!(
                "  {}: {}disabled{}\n    Reason: {e}",
                r.cloud.repr(),
                ansi::YELLOW,
                ansi::RESET
            )),
        }
    }
    for c in &report.not_allowed {
        out.push(format!(
            "  {}: disabled\n    Reason: not in allowed_clouds",
            c.repr()
        ));
    }
    let enabled = report.enabled();
    out.push(String::new());
    if enabled.is_empty() {
        out.push("No cloud is enabled. Set up credentials for at least one cloud above.".into());
    } else {
        out.push(format!(
            "{}Enabled clouds:{} {}",
            ansi::BRIGHT,
            ansi::RESET,
            enabled
                .iter()
                .map(|c| c.repr())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    out
}
