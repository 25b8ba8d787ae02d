//! `sky check`: every credential and identity check, concurrently, and the
//! enabled set it leaves for later launches.

use std::sync::Arc;

use planner::check::{CheckReport, WorkspaceCheck};
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
///
/// Workspaces as 0.14.1's `check.check_capabilities` resolves them: with
/// `--workspace`, that one (it must be defined: `Workspace 'x' not found in
/// SkyPilot configuration. ...`); else every workspace the config defines,
/// each allowing `allowed_clouds` less the clouds
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
            return Err(LaunchError::Usage(format!(
                "Workspace {} not found in SkyPilot configuration. Available workspaces: {}",
                planner::pytext::py_str_repr(ws),
                available.join(", ")
            )));
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
    let workspaces: Vec<WorkspaceCheck> = to_report
        .iter()
        .map(|name| WorkspaceCheck {
            name: name.clone(),
            allowed: allowed_in(name),
        })
        .collect();
    let wanted = options
        .declared_clouds
        .clone()
        .unwrap_or_else(|| CloudId::ALL.to_vec());
    // Checked: what any reported workspace allows, in the wanted order.
    let to_check: Vec<CloudId> = wanted
        .iter()
        .copied()
        .filter(|c| workspaces.iter().any(|w| w.allowed.contains(c)))
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
    let fanout = fan_out(
        adapters(&to_check, options, &sky_config),
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
        available_workspaces: available,
        workspaces,
        workspace_selected: options.workspace.is_some(),
        explicit: options.declared_clouds.clone(),
    };
    if options.declared_clouds.is_none() {
        // A timeout or server error is not a verdict: such a cloud keeps its
        // previous standing, so later launches check it again.
        let previous = persisted_enabled_clouds(&options.state_dir);
        // Launches read one enabled set: the active workspace's.
        let persisted: Vec<CloudId> = report
            .persisted_enabled(previous.as_deref())
            .into_iter()
            .filter(|c| active_allowed.contains(c))
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
