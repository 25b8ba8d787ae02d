//! `sky check`: every credential and identity check and every storage
//! check, concurrently, and the enabled set it leaves for later launches.

use std::sync::Arc;

use planner::check::{Capability, CheckReport, WorkspaceCheck};
use planner::cloud::{CloudId, Provider, StorageOnly, StorageRule};

use super::prepare::{adapters, check_context};
use super::{LaunchError, LaunchOptions};
use crate::clouds::aws::AwsCloud;
use crate::clouds::gcp::GcpCloud;
use crate::clouds::storage::{HuggingFace, LocalStorage};
use crate::clouds::{Cloud, StorageCheck, fan_out_checks};
use crate::config::{self, ConfigError};
use crate::state::{FileMode, write_atomic};

/// File (under the state directory) where `sky check` persists the enabled clouds.
pub const ENABLED_CLOUDS_FILE: &str = "enabled-clouds.json";

/// Runs every credential and identity check, and every storage check,
/// concurrently (`sky check`) and persists the compute-enabled set for
/// later launches.
///
/// Capabilities as 0.14.1 checks them: compute for every cloud; storage
/// where the cloud has a storage check ([`CloudId::storage_rule`]: AWS's
/// S3 `ListBuckets` and GCP's permission and API checks make calls, OCI's
/// and Nebius' read profile files, Azure, IBM and Seeweb answer with their
/// compute check) and for the storage-only providers (Cloudflare R2,
/// CoreWeave, VAST Data, Hugging Face); `<cloud>.capabilities` in the
/// config (or the workspace's) restricts them. Storage calls are made here
/// only, never by a launch.
///
/// Workspaces as 0.14.1's `check.check_capabilities` resolves them: with
/// `--workspace`, that one (it must be defined, else the report is
/// [`CheckReport::invalid`](planner::check::CheckReport::invalid):
/// `Workspace 'x' not found in SkyPilot configuration. ...`); else every
/// workspace the config defines, each allowing `allowed_clouds` less the clouds
/// `workspaces.<name>.<cloud>.disabled` turns off. One fan-out checks the
/// union of what they allow (SkyPilot runs one per workspace; the answers
/// are the same), and each workspace is reported from it.
pub async fn check(options: &LaunchOptions) -> Result<CheckReport, LaunchError> {
    let cli = config::cli_layer(&options.config_args, None, &options.home)
        .map_err(|e| LaunchError::Usage(e.to_string()))?;
    let sky_config = config::load_config(&options.env, &options.home, None, &cli)?.config;
    let available = sky_config.workspace_names();
    let to_report: Vec<String> = match &options.workspace {
        Some(ws) if !available.contains(ws) => {
            // `check_capabilities` raises `ValueError` after the header,
            // before any workspace is checked.
            return Ok(CheckReport {
                warnings: options.warnings.clone(),
                available_workspaces: available.clone(),
                workspace_selected: true,
                invalid: Some(format!(
                    "Workspace {} not found in SkyPilot configuration. Available workspaces: {}",
                    planner::pytext::py_str_repr(ws),
                    available.join(", ")
                )),
                ..CheckReport::default()
            });
        }
        Some(ws) => vec![ws.clone()],
        None => available.clone(),
    };
    let active = options
        .workspace
        .clone()
        .unwrap_or_else(|| sky_config.active_workspace());
    let allowed_in = |ws: &str| -> Vec<CloudId> {
        CloudId::ALL
            .iter()
            .copied()
            .filter(|&c| sky_config.workspace_allows(ws, c))
            .collect()
    };
    let mut workspaces: Vec<WorkspaceCheck> = Vec::new();
    for name in &to_report {
        let allowed = allowed_in(name);
        let mut capabilities = Vec::new();
        for &cloud in &allowed {
            if let Some(list) = sky_config
                .cloud_capabilities(name, cloud)
                .map_err(LaunchError::Usage)?
            {
                capabilities.push((cloud, list));
            }
        }
        workspaces.push(WorkspaceCheck {
            name: name.clone(),
            allowed,
            storage_only: StorageOnly::ALL
                .into_iter()
                .filter(|&s| sky_config.workspace_allows_storage_only(name, s))
                .collect(),
            capabilities,
        });
    }
    if let Some(name) = &options.declared_unknown {
        // `get_cloud_tuple` raises in the first workspace's check, before
        // anything is checked or stored.
        return Ok(CheckReport {
            warnings: options.warnings.clone(),
            available_workspaces: available,
            workspaces,
            workspace_selected: options.workspace.is_some(),
            invalid: Some(planner::check::invalid_cloud_message(name)),
            ..CheckReport::default()
        });
    }
    let wanted = options
        .declared_clouds
        .clone()
        .unwrap_or_else(|| CloudId::ALL.to_vec());
    let wanted_storage_only = match &options.declared_clouds {
        Some(_) => options.declared_storage_only.clone(),
        None => StorageOnly::ALL.to_vec(),
    };
    // What some reported workspace checks: the provider allowed there, with
    // the capability among those the config leaves it.
    let checks = |provider: Provider, capability: Capability| {
        capability.supported_by(provider)
            && workspaces
                .iter()
                .any(|w| w.allows(provider) && w.capabilities_of(provider).contains(&capability))
    };
    let to_check: Vec<CloudId> = wanted
        .iter()
        .copied()
        .filter(|&c| checks(c.into(), Capability::Compute))
        .collect();
    let storage_targets: Vec<Provider> = wanted
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
    let active_allowed = allowed_in(&active);
    let not_allowed = wanted
        .iter()
        .copied()
        .filter(|c| !active_allowed.contains(c))
        .collect();
    let mut ctx = check_context(options, &sky_config);
    // `sky check` checks credentials; like SkyPilot's, it lists no reservations.
    ctx.reservation_clouds.clear();
    // AWS's compute and storage checks share one resolution and STS call
    // (SkyPilot caches `_check_credentials_exist` per request).
    let aws = Arc::new(AwsCloud::sharing_identity(options.aws.clone()));
    let compute: Vec<Arc<dyn Cloud>> = adapters(&to_check, options, &sky_config)
        .into_iter()
        .map(|a| -> Arc<dyn Cloud> {
            if a.id() == CloudId::Aws {
                aws.clone()
            } else {
                a
            }
        })
        .collect();
    let storage: Vec<Arc<dyn StorageCheck>> = storage_targets
        .into_iter()
        .filter_map(|p| -> Option<Arc<dyn StorageCheck>> {
            Some(match p {
                Provider::Cloud(CloudId::Aws) => aws.clone(),
                Provider::Cloud(CloudId::Gcp) => Arc::new(GcpCloud::new(options.gcp.clone())),
                Provider::StorageOnly(StorageOnly::HuggingFace) => {
                    Arc::new(HuggingFace::new(options.huggingface.clone()))
                }
                other => Arc::new(LocalStorage::new(other)?),
            })
        })
        .collect();
    let fanout = fan_out_checks(compute, storage, Arc::new(ctx), options.fanout.clone()).await;
    let mut warnings = options.warnings.clone();
    warnings.extend(sky_config.ignored_clouds.iter().map(ToString::to_string));
    let report = CheckReport {
        fanout,
        not_allowed,
        warnings,
        available_workspaces: available,
        workspaces,
        workspace_selected: options.workspace.is_some(),
        explicit: options.declared_clouds.as_ref().map(|clouds| {
            options.declared_order.clone().unwrap_or_else(|| {
                clouds
                    .iter()
                    .copied()
                    .map(Provider::Cloud)
                    .chain(
                        wanted_storage_only
                            .iter()
                            .copied()
                            .map(Provider::StorageOnly),
                    )
                    .collect()
            })
        }),
        invalid: None,
    };
    if options.declared_clouds.is_none() {
        // A timeout or server error is not a verdict: such a cloud keeps its
        // previous standing, so later launches check it again.
        let previous = persisted_enabled_clouds(&options.state_dir);
        // Launches read one enabled set: the active workspace's, for
        // compute (a cloud whose `capabilities` leave compute out is not
        // enabled for it).
        let active_capabilities = report.workspaces.iter().find(|w| w.name == active);
        let persisted: Vec<CloudId> = report
            .persisted_enabled(previous.as_deref())
            .into_iter()
            .filter(|c| active_allowed.contains(c))
            .filter(|&c| {
                active_capabilities
                    .is_none_or(|w| w.capabilities_of(c.into()).contains(&Capability::Compute))
            })
            .collect();
        let names: Vec<&str> = persisted.iter().map(|c| c.name()).collect();
        let state =
            crate::state::StateDir::open(&options.state_dir).map_err(|e| ConfigError::Io {
                path: options.state_dir.clone(),
                source: std::io::Error::other(e.to_string()),
            })?;
        let body = serde_json::to_vec(&names).unwrap_or_default();
        let path = state.path().join(ENABLED_CLOUDS_FILE);
        write_atomic(&path, &body, FileMode::Private).map_err(|e| ConfigError::Io {
            path: path.clone(),
            source: std::io::Error::other(e.to_string()),
        })?;
    }
    Ok(report)
}

/// The enabled set persisted by the last `sky check`, if any (order kept).
pub fn persisted_enabled_clouds(state_dir: &std::path::Path) -> Option<Vec<CloudId>> {
    let text = std::fs::read_to_string(state_dir.join(ENABLED_CLOUDS_FILE)).ok()?;
    let names: Vec<String> = serde_json::from_str(&text).ok()?;
    Some(names.iter().filter_map(|n| n.parse().ok()).collect())
}
