//! `sky check`: every credential and identity check, concurrently, and the
//! enabled set it leaves for later launches.

use std::sync::Arc;

use planner::check::CheckReport;
use planner::cloud::CloudId;

use super::prepare::{adapters, check_context};
use super::{LaunchError, LaunchOptions};
use crate::clouds::fan_out;
use crate::config::{self, ConfigError};
use crate::state::{FileMode, write_atomic};

/// File (under the state directory) where `sky check` persists the enabled clouds.
pub const ENABLED_CLOUDS_FILE: &str = "enabled-clouds.json";

/// Runs every credential and identity check concurrently (`sky check`) and
/// persists the enabled set for later launches.
pub async fn check(options: &LaunchOptions) -> Result<CheckReport, LaunchError> {
    // `--config` / `--workspace` as on a launch; the active workspace's
    // disabled clouds are left out like `allowed_clouds` leaves clouds out
    // (`check.check_capabilities`: `workspace_disabled_clouds`).
    let cli = config::cli_layer(
        &options.config_args,
        options.workspace.as_deref(),
        &options.home,
    )
    .map_err(|e| LaunchError::Usage(e.to_string()))?;
    let sky_config = config::load_config(&options.env, &options.home, None, &cli)?.config;
    if let Err(e) = sky_config.check_active_workspace() {
        return Err(LaunchError::Usage(e));
    }
    let workspace = sky_config.active_workspace();
    let wanted = options
        .declared_clouds
        .clone()
        .unwrap_or_else(|| CloudId::ALL.to_vec());
    let allowed: Vec<CloudId> = wanted
        .iter()
        .copied()
        .filter(|&c| sky_config.workspace_allows(&workspace, c))
        .collect();
    let not_allowed = wanted
        .iter()
        .copied()
        .filter(|c| !allowed.contains(c))
        .collect();
    let mut ctx = check_context(options, &sky_config);
    // `sky check` checks credentials; like SkyPilot's, it lists no reservations.
    ctx.reservation_clouds.clear();
    let fanout = fan_out(
        adapters(&allowed, options, &sky_config),
        Arc::new(ctx),
        options.fanout.clone(),
    )
    .await;
    let mut warnings = options.warnings.clone();
    warnings.extend(sky_config.ignored_clouds.iter().map(ToString::to_string));
    let report = CheckReport {
        fanout,
        not_allowed,
        warnings,
    };
    if options.declared_clouds.is_none() {
        // A timeout or server error is not a verdict: such a cloud keeps its
        // previous standing, so later launches check it again.
        let previous = persisted_enabled_clouds(&options.state_dir);
        let persisted = report.persisted_enabled(previous.as_deref());
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
