//! The whole of `sky gpus list` in SkyPilot 0.14.1's order:
//! `sky/client/cli/command.py::_show_gpus_impl`'s `_output` generator with
//! the Kubernetes, SSH Node Pool and Slurm sections before the catalogs'
//! tables, and the notes it collects on the way.
//!
//! The contexts and clusters arrive listed (nodes, pods, the login nodes'
//! answers); [`plan`] says which the optimizer must list. SkyPilot's own
//! quirks are kept where they change the output: with Kubernetes enabled
//! the SSH Node Pool pass runs too (`is_ssh and query_ssh or query_k8s`),
//! notes are concatenated without a separator, `--infra kubernetes` also
//! prints the pools' GPUs.

use std::collections::BTreeMap;

use super::kubernetes::{
    ContextGpuInput, NodesGpuInfo, Pods, RealtimeGpu, node_info, realtime_gpus,
};
use super::messages as text;
use super::sections::{KubeSection, PricedQuantities, SlurmSection, Utilization};
use super::slurm::{ClusterGpus, SlurmGpuCluster, cluster_gpus, node_gpus, partition_rows};
use super::{CloudGpuRows, GpusError, Query, Report, Section, report};
use crate::catalog::kubernetes::{KubeNode, KubePricing, Toleration, configured_tolerations};
use crate::cloud::CloudId;

/// One listed context.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextData {
    /// Its nodes, or why they could not be listed.
    pub nodes: Result<Vec<KubeNode>, String>,
    /// Its pods.
    pub pods: Pods,
}

/// Which realtime clouds `sky gpus list` consults (SkyPilot's
/// `sdk.enabled_clouds()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Enabled {
    /// Kubernetes.
    pub kubernetes: bool,
    /// SSH Node Pools.
    pub ssh: bool,
    /// Slurm.
    pub slurm: bool,
}

/// Everything the realtime sections read, listed by the optimizer.
#[derive(Debug, Clone, Default)]
pub struct Realtime {
    /// The enabled realtime clouds.
    pub enabled: Enabled,
    /// `Kubernetes.existing_allowed_contexts()`.
    pub kubernetes_contexts: Vec<String>,
    /// `SSH.existing_allowed_contexts()`.
    pub ssh_contexts: Vec<String>,
    /// The kubeconfig's current context (`-o json` lists it).
    pub current_context: Option<String>,
    /// The contexts [`plan`] asked for, listed.
    pub contexts: BTreeMap<String, ContextData>,
    /// The clusters [`plan`] asked for, in its order, with their answers.
    pub slurm: Vec<SlurmGpuCluster>,
    /// SkyPilot's config document (tolerations, `autoscaler`, pricing).
    pub config: serde_yaml_ng::Value,
    /// `-v`: the Slurm per-partition table.
    pub verbose: bool,
}

/// What the optimizer must list for a query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Contexts (Kubernetes and `ssh-<pool>` alike), each once.
    pub contexts: Vec<String>,
    /// Whether the Slurm clusters are asked (the allowed ones, or the region).
    pub slurm: bool,
}

struct Flags {
    k8s_query: bool,
    ssh_query: bool,
    is_k8s: bool,
    is_ssh: bool,
    is_slurm: bool,
    slurm_query: bool,
}

fn flags(query: &Query, enabled: Enabled) -> Flags {
    let any = query.cloud.is_none();
    let is_k8s = query.cloud == Some(CloudId::Kubernetes);
    let is_ssh = query.cloud == Some(CloudId::Ssh);
    let is_slurm = query.cloud == Some(CloudId::Slurm);
    Flags {
        k8s_query: enabled.kubernetes && (any || is_k8s),
        ssh_query: enabled.ssh && (any || is_ssh),
        is_k8s,
        is_ssh,
        is_slurm,
        slurm_query: enabled.slurm && (any || is_slurm),
    }
}

/// The contexts and clusters a query reads, given the allowed ones.
pub fn plan(
    query: &Query,
    enabled: Enabled,
    kubernetes_contexts: &[String],
    ssh_contexts: &[String],
    current_context: Option<&str>,
    json: bool,
) -> Plan {
    let f = flags(query, enabled);
    let mut contexts: Vec<String> = Vec::new();
    let mut add = |c: &str| {
        if !contexts.iter().any(|x| x == c) {
            contexts.push(c.to_string());
        }
    };
    if json {
        if (enabled.kubernetes || enabled.ssh)
            && (query.cloud.is_none() || f.is_k8s)
            && let Some(c) = query.region.as_deref().or(current_context)
        {
            add(c);
        }
        if (enabled.kubernetes || enabled.ssh)
            && (query.cloud.is_none() || f.is_ssh)
            && let Some(c) = query
                .region
                .as_deref()
                .or(ssh_contexts.first().map(String::as_str))
        {
            add(c);
        }
        return Plan {
            contexts,
            slurm: false,
        };
    }
    let realtime_passes = query.accelerator.is_none() || !query.all;
    if realtime_passes {
        for is_ssh in [false, true] {
            if !((is_ssh && f.ssh_query) || f.k8s_query) {
                continue;
            }
            match &query.region {
                Some(r) => add(r),
                None if is_ssh => ssh_contexts.iter().for_each(|c| add(c)),
                None => kubernetes_contexts.iter().for_each(|c| add(c)),
            }
        }
    }
    Plan {
        contexts,
        slurm: f.slurm_query && (query.accelerator.is_none() || !query.all),
    }
}

struct KubeTables {
    section: KubeSection,
    nodes: Vec<(String, NodesGpuInfo)>,
}

impl Realtime {
    fn with_input<T>(&self, name: &str, f: impl FnOnce(&ContextGpuInput<'_>) -> T) -> Option<T> {
        let data = self.contexts.get(name)?;
        let nodes = data.nodes.as_ref().ok()?;
        if matches!(data.pods, Pods::Failed(_)) {
            return None;
        }
        let tolerations: Option<Vec<Toleration>> = configured_tolerations(&self.config, name);
        Some(f(&ContextGpuInput {
            name,
            nodes,
            pods: &data.pods,
            tolerations: tolerations.as_deref(),
        }))
    }

    /// `kubernetes.autoscaler` (or the region's `context_configs` entry) is set.
    fn autoscaling(&self, region: Option<&str>) -> bool {
        let k8s = self.config.get("kubernetes");
        let at = |v: Option<&serde_yaml_ng::Value>| {
            v.and_then(|v| v.get("autoscaler"))
                .is_some_and(|a| !a.is_null())
        };
        let local = region.and_then(|r| {
            k8s.and_then(|k| k.get("context_configs"))
                .and_then(|c| c.get(r))
        });
        if local.is_some_and(|l| l.get("autoscaler").is_some()) {
            return at(local);
        }
        at(k8s)
    }

    /// `_realtime_kubernetes_gpu_availability_single` through the
    /// Kubernetes or SSH catalog.
    fn context_gpus(
        &self,
        ctx: &str,
        is_ssh: bool,
        name: Option<&str>,
        qty: Option<u32>,
    ) -> Vec<RealtimeGpu> {
        if !(self.enabled.kubernetes || self.enabled.ssh) {
            return Vec::new();
        }
        if is_ssh && (!ctx.starts_with("ssh-") || !self.ssh_contexts.iter().any(|c| c == ctx)) {
            return Vec::new();
        }
        self.with_input(ctx, |i| realtime_gpus(i, name, qty))
            .unwrap_or_default()
    }

    /// `_get_kubernetes_realtime_gpu_tables`; `Err` is the `ValueError` text.
    fn kube_tables(
        &self,
        region: Option<&str>,
        name: Option<&str>,
        qty: Option<u32>,
        is_ssh: bool,
        show_nodes: bool,
        logs: &mut Vec<String>,
    ) -> Result<KubeTables, String> {
        let contexts: Vec<&str> = match region {
            Some(r) => vec![r],
            None if is_ssh => self.ssh_contexts.iter().map(String::as_str).collect(),
            None => self
                .kubernetes_contexts
                .iter()
                .map(String::as_str)
                .collect(),
        };
        let lists: Vec<(&str, Vec<RealtimeGpu>)> = contexts
            .into_iter()
            .map(|c| (c, self.context_gpus(c, is_ssh, name, qty)))
            .filter(|(_, l)| !l.is_empty())
            .collect();
        for (ctx, _) in &lists {
            if self
                .contexts
                .get(*ctx)
                .is_some_and(|d| d.pods == Pods::Forbidden)
            {
                logs.push(text::PODS_FORBIDDEN_WARNING.to_string());
            }
        }
        if lists.is_empty() {
            return Err(text::no_realtime_gpus(is_ssh, name, qty));
        }
        let mut section = KubeSection {
            ssh: is_ssh,
            total: None,
            quantity_header: qty.is_some(),
            contexts: Vec::new(),
            nodes: None,
        };
        let mut totals: Vec<(String, Utilization)> = Vec::new();
        let mut all_nodes = Vec::new();
        for (ctx, list) in lists {
            if ctx.starts_with("ssh-") != is_ssh {
                continue;
            }
            let display = if is_ssh {
                ctx.strip_prefix("ssh-").unwrap_or(ctx)
            } else {
                ctx
            };
            let info = self.with_input(ctx, node_info).unwrap_or_default();
            let not_ready = info.not_ready();
            let mut rows = Vec::new();
            for g in list {
                let capacity = i64::from(g.capacity);
                let nr = i64::from(not_ready.get(&g.gpu).copied().unwrap_or(0)).min(capacity);
                let avail = if g.available == -1 {
                    0
                } else {
                    g.available.max(0)
                };
                let eff = (capacity - nr).max(avail);
                if eff > 0 || nr > 0 {
                    match totals.iter_mut().find(|(n, _)| *n == g.gpu) {
                        Some((_, u)) => {
                            u.capacity += eff;
                            u.available = Some(u.available.unwrap_or(0) + avail);
                            u.not_ready += nr;
                        }
                        None => totals.push((
                            g.gpu.clone(),
                            Utilization {
                                available: Some(avail),
                                capacity: eff,
                                not_ready: nr,
                            },
                        )),
                    }
                }
                rows.push((
                    g.gpu,
                    g.counts,
                    Utilization {
                        available: (g.available != -1).then_some(g.available),
                        capacity: eff,
                        not_ready: nr,
                    },
                ));
            }
            section.contexts.push((display.to_string(), rows));
            all_nodes.push((display.to_string(), info));
        }
        if section.contexts.len() > 1 {
            section.total = Some(totals);
        }
        if show_nodes {
            section.nodes = Some(all_nodes.clone());
        }
        Ok(KubeTables {
            section,
            nodes: all_nodes,
        })
    }

    /// `_get_slurm_realtime_gpu_tables`; `Err` is the `ValueError` text.
    fn slurm_tables(
        &self,
        name: Option<&str>,
        qty: Option<u32>,
        show_partitions: bool,
        logs: &mut Vec<String>,
    ) -> Result<SlurmSection, String> {
        let mut clusters = Vec::new();
        let mut failed = Vec::new();
        let mut listed = Vec::new();
        for cluster in &self.slurm {
            match cluster_gpus(cluster, name, qty, logs) {
                ClusterGpus::Gpus(g) => {
                    clusters.push((cluster.name.clone(), g));
                    listed.push(cluster);
                }
                ClusterGpus::Failed(e) => failed.push((cluster.name.clone(), e)),
                ClusterGpus::Nothing => {}
            }
        }
        if clusters.is_empty() && failed.is_empty() {
            return Err(text::no_slurm_gpus(name, qty));
        }
        let total = (clusters.len() > 1).then(|| {
            let mut t: Vec<(String, u32, i64)> = Vec::new();
            for g in clusters.iter().flat_map(|(_, l)| l) {
                if g.capacity == 0 {
                    continue;
                }
                match t.iter_mut().find(|(n, _, _)| *n == g.gpu) {
                    Some(e) => {
                        e.1 += g.capacity;
                        e.2 += g.available;
                    }
                    None => t.push((g.gpu.clone(), g.capacity, g.available)),
                }
            }
            t
        });
        let partitions = (show_partitions && !clusters.is_empty()).then(|| {
            let mut ignore = Vec::new();
            let nodes: Vec<_> = listed
                .iter()
                .map(|c| (*c, node_gpus(c, &mut ignore).unwrap_or_default()))
                .collect();
            partition_rows(&nodes)
        });
        Ok(SlurmSection {
            total,
            quantity_header: qty.is_some(),
            clusters,
            failed,
            partitions,
        })
    }
}

fn labeled_zero_hint(nodes: &[(String, NodesGpuInfo)]) -> Option<String> {
    let affected: Vec<String> = nodes
        .iter()
        .flat_map(|(ctx, info)| {
            info.nodes
                .iter()
                .filter(|n| n.accelerator.is_some() && n.total == 0)
                .map(move |n| format!("{ctx}/{}", n.name))
        })
        .collect();
    (!affected.is_empty()).then(|| text::labeled_zero_gpu_hint(&affected))
}

/// The whole text report: realtime sections, then the catalogs'.
pub fn show(query: &Query, catalogs: &[&CloudGpuRows], rt: &Realtime) -> Result<Report, GpusError> {
    let f = flags(query, rt.enabled);
    let region = query.region.as_deref();
    let mut out: Vec<Section> = Vec::new();
    let t = |s: &str| Section::Text(s.to_string());
    let (name, qty) = match &query.accelerator {
        Some((n, q)) => (Some(n.as_str()), *q),
        None => (None, None),
    };
    let mut titles = false;
    if query.accelerator.is_none() {
        let mut k8s_messages = String::new();
        let mut stop = false;
        let mut prev_titles = false;
        for is_ssh in [false, true] {
            if prev_titles {
                out.push(t("\n\n"));
            }
            let mut messages = String::new();
            let mut these_titles = false;
            if (is_ssh && f.ssh_query) || f.k8s_query {
                let mut logs = Vec::new();
                let tables = rt.kube_tables(region, None, None, is_ssh, true, &mut logs);
                out.extend(logs.into_iter().map(Section::Log));
                match tables {
                    Err(e) => {
                        if !(f.is_k8s || f.is_ssh) {
                            messages.push_str("Note: ");
                        }
                        messages.push_str(&e);
                    }
                    Ok(tables) => {
                        these_titles = true;
                        out.push(Section::Kube(tables.section));
                        if let Some(h) = labeled_zero_hint(&tables.nodes) {
                            messages.push_str(&h);
                        }
                    }
                }
                if rt.autoscaling(region) {
                    messages.push('\n');
                    messages.push_str(text::AUTOSCALER_NOTE);
                }
            }
            let this_cloud = if is_ssh { f.is_ssh } else { f.is_k8s };
            if this_cloud {
                let enabled = if is_ssh {
                    rt.enabled.ssh
                } else {
                    rt.enabled.kubernetes
                };
                if !enabled {
                    out.push(Section::Text(text::not_enabled(if is_ssh {
                        CloudId::Ssh
                    } else {
                        CloudId::Kubernetes
                    })));
                }
                if !messages.is_empty() && these_titles {
                    out.push(t("\n\n"));
                }
                out.push(Section::Text(messages));
                stop = true;
            } else {
                if !k8s_messages.is_empty() && !messages.is_empty() {
                    k8s_messages.push('\n');
                }
                k8s_messages.push_str(&messages);
            }
            titles |= these_titles;
            prev_titles = these_titles;
        }
        if stop {
            return Ok(finish(out));
        }
        let mut slurm_messages = String::new();
        if f.slurm_query {
            let mut these_logs = Vec::new();
            let result = rt.slurm_tables(None, None, rt.verbose, &mut these_logs);
            out.extend(these_logs.drain(..).map(Section::Log));
            match result {
                Err(e) => {
                    if !f.is_slurm {
                        slurm_messages.push_str("Note: ");
                    }
                    slurm_messages.push_str(&e);
                }
                Ok(section) => {
                    titles = true;
                    out.push(t("\n"));
                    out.push(Section::Slurm(section));
                }
            }
        }
        if f.is_slurm {
            if !rt.enabled.slurm {
                out.push(Section::Text(text::not_enabled(CloudId::Slurm)));
            }
            out.push(Section::Text(slurm_messages));
            return Ok(finish(out));
        }
        let messages = !k8s_messages.is_empty() || !slurm_messages.is_empty();
        if query.all && messages {
            if !k8s_messages.is_empty() {
                out.push(Section::Text(k8s_messages.clone()));
            }
            if !slurm_messages.is_empty() {
                if !k8s_messages.is_empty() {
                    out.push(t("\n"));
                }
                out.push(Section::Text(slurm_messages.clone()));
            }
            out.push(t("\n\n"));
        }
        let catalog = report(query, catalogs, titles)?;
        out.extend(catalog.sections);
        if !query.all && messages {
            out.push(t("\n"));
            out.push(Section::Text(k8s_messages));
            out.push(Section::Text(slurm_messages));
        }
        let mut r = finish(out);
        r.suggestions = catalog.suggestions;
        return Ok(r);
    }
    // A GPU name.
    let mut stop = false;
    let mut prev_titles = false;
    for is_ssh in [false, true] {
        if prev_titles {
            out.push(t("\n\n"));
        }
        let mut these_titles = false;
        if ((is_ssh && f.ssh_query) || f.k8s_query) && !query.all {
            these_titles = true;
            let mut messages = String::new();
            let mut logs = Vec::new();
            let tables = rt.kube_tables(region, name, qty, is_ssh, false, &mut logs);
            out.extend(logs.into_iter().map(Section::Log));
            match tables {
                Ok(tables) => {
                    out.push(Section::Kube(tables.section));
                    if let Some(h) = labeled_zero_hint(&tables.nodes) {
                        messages.push_str(&h);
                    }
                }
                Err(e) => out.push(Section::Text(format!("[ValueError] {e}"))),
            }
            if rt.autoscaling(region) {
                messages.push('\n');
                messages.push_str(text::AUTOSCALER_NOTE);
            }
            out.push(Section::Text(messages));
        }
        let this_cloud = if is_ssh { f.is_ssh } else { f.is_k8s };
        if this_cloud {
            let enabled = if is_ssh {
                rt.enabled.ssh
            } else {
                rt.enabled.kubernetes
            };
            if !enabled {
                out.push(Section::Text(text::not_enabled(if is_ssh {
                    CloudId::Ssh
                } else {
                    CloudId::Kubernetes
                })));
            }
            stop = true;
        }
        titles |= these_titles;
        prev_titles = these_titles;
    }
    if stop {
        return Ok(finish(out));
    }
    if f.slurm_query && !query.all {
        titles = true;
        let mut these_logs = Vec::new();
        let result = rt.slurm_tables(name, qty, false, &mut these_logs);
        out.extend(these_logs.drain(..).map(Section::Log));
        match result {
            Ok(section) => out.push(Section::Slurm(section)),
            Err(e) => out.push(Section::Text(e)),
        }
    }
    if f.is_slurm {
        if !rt.enabled.slurm {
            out.push(Section::Text(text::not_enabled(CloudId::Slurm)));
        }
        return Ok(finish(out));
    }
    let catalog = report(query, catalogs, titles)?;
    out.extend(catalog.sections);
    let mut r = finish(out);
    r.suggestions = catalog.suggestions;
    Ok(r)
}

fn finish(sections: Vec<Section>) -> Report {
    Report {
        sections,
        suggestions: Vec::new(),
    }
}

/// `-o json`'s Kubernetes and SSH entries (`kubernetes_catalog.
/// list_accelerators` for the current context, `ssh_catalog`'s for the first
/// pool, or the region): per context queried, its accelerators with their
/// quantities and the hourly price of each (`kubernetes.pricing`).
pub fn json_contexts(query: &Query, rt: &Realtime) -> Vec<(CloudId, String, PricedQuantities)> {
    let (name, qty) = match &query.accelerator {
        Some((n, q)) => (Some(n.as_str()), *q),
        None => (None, None),
    };
    let f = flags(query, rt.enabled);
    let mut out = Vec::new();
    if !(rt.enabled.kubernetes || rt.enabled.ssh) {
        return out;
    }
    let mut add = |cloud: CloudId, ctx: &str| {
        let pricing = KubePricing::from_config(&rt.config, Some(ctx)).unwrap_or_default();
        if let Some(list) = rt.with_input(ctx, |i| super::kubernetes::quantities(i, name, qty)) {
            let priced = list
                .into_iter()
                .map(|(gpu, counts)| {
                    let rate = pricing
                        .accelerators
                        .iter()
                        .find(|(k, _)| k.to_lowercase() == gpu.to_lowercase())
                        .map_or(0.0, |(_, r)| *r);
                    let offers = counts
                        .into_iter()
                        .map(|c| (c, f64::from(c) * rate))
                        .collect();
                    (gpu, offers)
                })
                .collect();
            out.push((cloud, ctx.to_string(), priced));
        }
    };
    if (query.cloud.is_none() || f.is_k8s)
        && let Some(ctx) = query.region.as_deref().or(rt.current_context.as_deref())
    {
        add(CloudId::Kubernetes, ctx);
    }
    if query.cloud.is_none() || f.is_ssh {
        let ctx = match query.region.as_deref() {
            Some(r) => {
                (r.starts_with("ssh-") && rt.ssh_contexts.iter().any(|c| c == r)).then_some(r)
            }
            None => rt.ssh_contexts.first().map(String::as_str),
        };
        if let Some(ctx) = ctx {
            add(CloudId::Ssh, ctx);
        }
    }
    out
}
