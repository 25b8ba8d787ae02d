//! The pure halves of `sky check`: what it checks, decided from the config
//! before any check runs ([`scope`]), and what it reports and leaves
//! enabled for later launches once the fan-out has run
//! ([`CheckScope::report`], [`CheckScope::enabled_set`]).
//!
//! Workspaces as 0.14.1's `check.check_capabilities` resolves them: with
//! `--workspace`, that one (it must be defined, else the report is
//! [`CheckReport::invalid`]: `Workspace 'x' not found in SkyPilot
//! configuration. ...`); else every workspace the config defines, each
//! allowing `allowed_clouds` less the clouds
//! `workspaces.<name>.<cloud>.disabled` turns off. One fan-out checks the
//! union of what they allow (SkyPilot runs one per workspace; the answers
//! are the same), and each workspace is reported from it.

use crate::check::{Capability, CheckReport, FanOut, WorkspaceCheck, invalid_cloud_message};
use crate::cloud::{CloudId, Provider, StorageOnly, StorageRule};
use crate::config::SkyConfig;

/// What `sky check`'s command line and environment ask for.
#[derive(Debug, Clone, Default)]
pub struct CheckRequest {
    /// `--workspace`.
    pub workspace: Option<String>,
    /// The clouds named (or `SKY_ENABLED_CLOUDS`); `None`: every cloud.
    pub declared_clouds: Option<Vec<CloudId>>,
    /// The storage-only providers named beside them.
    pub declared_storage_only: Vec<StorageOnly>,
    /// Everything named, in order and with repeats (`None`: the clouds,
    /// then the storage-only providers).
    pub declared_order: Option<Vec<Provider>>,
    /// A name that is neither a cloud nor a storage-only provider.
    pub declared_unknown: Option<String>,
    /// Problems with the options, one line each.
    pub warnings: Vec<String>,
}

/// What to do for a `sky check`.
#[derive(Debug, Clone)]
pub enum Scope {
    /// Run these checks.
    Check(CheckScope),
    /// Nothing to check: 0.14.1 raises after the header (an unknown
    /// `--workspace` or cloud name); this is the report.
    Answered(CheckReport),
}

/// The checks one `sky check` runs, and the report waiting for them.
#[derive(Debug, Clone)]
pub struct CheckScope {
    /// Compute checks, in check order.
    pub compute: Vec<CloudId>,
    /// Storage checks, in check order.
    pub storage: Vec<Provider>,
    /// The report without its fan-out.
    report: CheckReport,
    /// The workspace later launches run in, and what it allows.
    active: String,
    active_allowed: Vec<CloudId>,
    /// Whether the clouds were named (the enabled set is then left alone).
    declared: bool,
}

/// Decides what `sky check` checks; `Err` is a config value the schema
/// refuses (`<cloud>.capabilities`), as click's usage error.
pub fn scope(config: &SkyConfig, request: &CheckRequest) -> Result<Scope, String> {
    let available = config.workspace_names();
    let to_report: Vec<String> = match &request.workspace {
        // `check_capabilities` raises `ValueError` after the header,
        // before any workspace is checked.
        Some(ws) if !available.contains(ws) => {
            return Ok(Scope::Answered(CheckReport {
                warnings: request.warnings.clone(),
                invalid: Some(format!(
                    "Workspace {} not found in SkyPilot configuration. Available workspaces: {}",
                    crate::pytext::py_str_repr(ws),
                    available.join(", ")
                )),
                available_workspaces: available,
                workspace_selected: true,
                ..CheckReport::default()
            }));
        }
        Some(ws) => vec![ws.clone()],
        None => available.clone(),
    };
    let workspaces = to_report
        .iter()
        .map(|name| workspace_check(config, name))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(name) = &request.declared_unknown {
        // `get_cloud_tuple` raises in the first workspace's check, before
        // anything is checked or stored.
        return Ok(Scope::Answered(CheckReport {
            warnings: request.warnings.clone(),
            available_workspaces: available,
            workspaces,
            workspace_selected: request.workspace.is_some(),
            invalid: Some(invalid_cloud_message(name)),
            ..CheckReport::default()
        }));
    }
    let active = request
        .workspace
        .clone()
        .unwrap_or_else(|| config.active_workspace());
    let active_allowed = allowed_in(config, &active);
    let wanted: &[CloudId] = request.declared_clouds.as_deref().unwrap_or(&CloudId::ALL);
    let wanted_storage_only: &[StorageOnly] = match &request.declared_clouds {
        Some(_) => &request.declared_storage_only,
        None => &StorageOnly::ALL,
    };
    let (compute, storage) = checks(&workspaces, wanted, wanted_storage_only);
    let mut warnings = request.warnings.clone();
    warnings.extend(config.ignored_clouds.iter().map(ToString::to_string));
    let report = CheckReport {
        fanout: FanOut::default(),
        not_allowed: wanted
            .iter()
            .copied()
            .filter(|c| !active_allowed.contains(c))
            .collect(),
        warnings,
        available_workspaces: available,
        workspaces,
        workspace_selected: request.workspace.is_some(),
        explicit: explicit(request, wanted_storage_only),
        invalid: None,
    };
    Ok(Scope::Check(CheckScope {
        compute,
        storage,
        report,
        active,
        active_allowed,
        declared: request.declared_clouds.is_some(),
    }))
}

/// The providers named on the command line, as reported: in the order
/// named, else the clouds then the storage-only providers.
fn explicit(request: &CheckRequest, storage_only: &[StorageOnly]) -> Option<Vec<Provider>> {
    let clouds = request.declared_clouds.as_ref()?;
    Some(request.declared_order.clone().unwrap_or_else(|| {
        clouds
            .iter()
            .copied()
            .map(Provider::Cloud)
            .chain(storage_only.iter().copied().map(Provider::StorageOnly))
            .collect()
    }))
}

/// The clouds `workspace` allows, in [`CloudId::ALL`] order.
fn allowed_in(config: &SkyConfig, workspace: &str) -> Vec<CloudId> {
    CloudId::ALL
        .iter()
        .copied()
        .filter(|&c| config.workspace_allows(workspace, c))
        .collect()
}

/// One reported workspace: what it allows and the capabilities it checks.
fn workspace_check(config: &SkyConfig, name: &str) -> Result<WorkspaceCheck, String> {
    let allowed = allowed_in(config, name);
    let mut capabilities = Vec::new();
    for &cloud in &allowed {
        if let Some(list) = config.cloud_capabilities(name, cloud)? {
            capabilities.push((cloud, list));
        }
    }
    Ok(WorkspaceCheck {
        name: name.to_string(),
        allowed,
        storage_only: StorageOnly::ALL
            .into_iter()
            .filter(|&s| config.workspace_allows_storage_only(name, s))
            .collect(),
        capabilities,
    })
}

/// The compute and storage checks some reported workspace asks for: the
/// provider allowed there, with the capability among those the config
/// leaves it.
fn checks(
    workspaces: &[WorkspaceCheck],
    wanted: &[CloudId],
    wanted_storage_only: &[StorageOnly],
) -> (Vec<CloudId>, Vec<Provider>) {
    let checks = |provider: Provider, capability: Capability| {
        capability.supported_by(provider)
            && workspaces
                .iter()
                .any(|w| w.allows(provider) && w.capabilities_of(provider).contains(&capability))
    };
    let compute = wanted
        .iter()
        .copied()
        .filter(|&c| checks(c.into(), Capability::Compute))
        .collect();
    let storage = wanted
        .iter()
        .copied()
        .filter(|c| c.storage_rule() == StorageRule::Own)
        .map(Provider::Cloud)
        .chain(
            wanted_storage_only
                .iter()
                .copied()
                .map(Provider::StorageOnly),
        )
        .filter(|&p| checks(p, Capability::Storage))
        .collect();
    (compute, storage)
}

impl CheckScope {
    /// The report, once the fan-out has run.
    pub fn report(&self, fanout: FanOut) -> CheckReport {
        CheckReport {
            fanout,
            ..self.report.clone()
        }
    }

    /// Whether this check decides the enabled set later launches read (no
    /// clouds named).
    pub fn decides_enabled(&self) -> bool {
        !self.declared
    }

    /// The enabled set later launches read, given the one persisted before
    /// ([`CheckReport::persisted_enabled`]: a timeout or server error is
    /// not a verdict): the active workspace's, for compute (a cloud whose
    /// `capabilities` leave compute out is not enabled for it).
    pub fn enabled_set(&self, report: &CheckReport, previous: Option<&[CloudId]>) -> Vec<CloudId> {
        let active = report.workspaces.iter().find(|w| w.name == self.active);
        report
            .persisted_enabled(previous)
            .into_iter()
            .filter(|c| self.active_allowed.contains(c))
            .filter(|&c| {
                active.is_none_or(|w| w.capabilities_of(c.into()).contains(&Capability::Compute))
            })
            .collect()
    }
}
