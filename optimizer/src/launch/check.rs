//! `sky check`: every credential and identity check and every storage
//! check, concurrently, and the enabled set it leaves for later launches.
//! The same configure and adapter pieces as a launch; what to check and
//! what to report are the core's ([`planner::assemble::check`]).

use std::sync::Arc;

use planner::assemble::check::{CheckRequest, CheckScope, Scope};
use planner::check::{CheckReport, FanOut};
use planner::cloud::{CloudId, Provider, StorageOnly};
use planner::config::SkyConfig;

use super::adapters::{adapters, check_context};
use super::configure::merged_config;
use super::enabled::{persist_enabled_clouds, persisted_enabled_clouds};
use super::options::{LaunchError, LaunchOptions};
use crate::clouds::aws::AwsCloud;
use crate::clouds::gcp::GcpCloud;
use crate::clouds::storage::{HuggingFace, LocalStorage};
use crate::clouds::{Cloud, StorageCheck, fan_out_checks};
use crate::config::ConfigSources;

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
/// only, never by a launch. Workspaces: see [`planner::assemble::check`].
pub async fn check(options: &LaunchOptions) -> Result<CheckReport, LaunchError> {
    let sources = ConfigSources {
        cli_items: &options.config_args,
        workspace: None,
        project_dir: None,
    };
    let sky_config = merged_config(options, sources)?.config;
    let scope = match planner::assemble::check::scope(&sky_config, &request(options))
        .map_err(LaunchError::Usage)?
    {
        Scope::Answered(report) => return Ok(report),
        Scope::Check(scope) => scope,
    };
    let fanout = probe_checks(options, &sky_config, &scope).await;
    let report = scope.report(fanout);
    if scope.decides_enabled() {
        // A timeout or server error is not a verdict: such a cloud keeps its
        // previous standing, so later launches check it again.
        let previous = persisted_enabled_clouds(&options.state_dir);
        let enabled = scope.enabled_set(&report, previous.as_deref());
        persist_enabled_clouds(&options.state_dir, &enabled)?;
    }
    Ok(report)
}

/// What the command line and the environment ask `sky check` for.
fn request(options: &LaunchOptions) -> CheckRequest {
    CheckRequest {
        workspace: options.workspace.clone(),
        declared_clouds: options.declared_clouds.clone(),
        declared_storage_only: options.declared_storage_only.clone(),
        declared_order: options.declared_order.clone(),
        declared_unknown: options.declared_unknown.clone(),
        warnings: options.warnings.clone(),
    }
}

/// The checks `scope` asks for, fanned out together.
async fn probe_checks(
    options: &LaunchOptions,
    sky_config: &SkyConfig,
    scope: &CheckScope,
) -> FanOut {
    let mut ctx = check_context(options, sky_config);
    // `sky check` checks credentials; like SkyPilot's, it lists no reservations.
    ctx.reservation_clouds.clear();
    // AWS's compute and storage checks share one resolution and STS call
    // (SkyPilot caches `_check_credentials_exist` per request).
    let aws = Arc::new(AwsCloud::sharing_identity(options.aws.clone()));
    let compute: Vec<Arc<dyn Cloud>> = adapters(&scope.compute, options, sky_config, &options.aws)
        .into_iter()
        .map(|a| -> Arc<dyn Cloud> {
            if a.id() == CloudId::Aws {
                aws.clone()
            } else {
                a
            }
        })
        .collect();
    let storage: Vec<Arc<dyn StorageCheck>> = scope
        .storage
        .iter()
        .filter_map(|&p| -> Option<Arc<dyn StorageCheck>> {
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
    fan_out_checks(compute, storage, Arc::new(ctx), options.fanout.clone()).await
}
