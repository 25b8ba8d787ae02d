//! `sky catalog refresh`: bring SkyPilot's catalog folder up to date now,
//! instead of at the end of each file's pull period (or of a failed
//! download's back-off).

use std::time::Duration;

use planner::assemble::Enabled;
use planner::cloud::CloudId;
use planner::launch::{RefreshReport, RefreshScope};

use super::adapters::{adapters, check_context};
use super::configure::{launch_sources, merged_config};
use super::enabled::persisted_enabled_clouds;
use super::options::{LaunchError, LaunchOptions};
use crate::catalogs::{self, Mode};
use crate::clouds::Credentials;
use crate::config::ConfigError;

/// Downloads the catalogs of `clouds` into SkyPilot's folder (and the
/// `common/` tables), each within `timeout`, concurrently, whatever their
/// pull period or past failures; a file edited by hand is kept. With no
/// `clouds`: those a launch would use ([`launch_clouds`]).
///
/// An explicit folder (`--catalog-dir`, `SKY_CATALOG_DIR`) or
/// `SKY_BUNDLED_CATALOGS` is refused: those are never written.
pub async fn refresh_catalogs(
    options: &LaunchOptions,
    clouds: &[CloudId],
    timeout: Duration,
) -> Result<RefreshReport, LaunchError> {
    let mode = Mode::resolve(
        options.catalog_dir.as_deref(),
        &options.env,
        &options.home,
        &options.catalogs,
    )?;
    let Some(folder) = mode.shared() else {
        return Err(ConfigError::NotSharedFolder {
            what: match &mode {
                Mode::Explicit(dir) => format!("the explicit catalog folder {}", dir.display()),
                _ => "the bundled catalogs (SKY_BUNDLED_CATALOGS)".to_string(),
            },
        }
        .into());
    };
    let (clouds, scope) = if clouds.is_empty() {
        launch_clouds(options)?
    } else {
        (clouds.to_vec(), RefreshScope::Named)
    };
    let files = catalogs::refresh(
        folder,
        &clouds,
        &options.catalogs,
        &options.state_dir,
        timeout,
    )
    .await;
    Ok(RefreshReport {
        folder: folder.root().to_path_buf(),
        clouds,
        scope,
        files,
    })
}

/// The clouds with a hosted catalog that a launch would use, as the launch
/// chooses its candidates (`launch::configure`): the declared ones
/// (`SKY_ENABLED_CLOUDS`), else those of the last `sky check`, else every
/// cloud with credentials on this machine (the fan-out's local half, no
/// network) — each as `allowed_clouds` and the workspace allow.
fn launch_clouds(options: &LaunchOptions) -> Result<(Vec<CloudId>, RefreshScope), LaunchError> {
    let config = merged_config(options, launch_sources(options))?.config;
    let (enabled, scope) = match &options.declared_clouds {
        Some(clouds) => (Enabled::Declared(clouds.clone()), RefreshScope::Declared),
        None => match persisted_enabled_clouds(&options.state_dir) {
            Some(clouds) => (Enabled::Checked(clouds), RefreshScope::LastCheck),
            None => (Enabled::All, RefreshScope::Credentials),
        },
    };
    let hosted = |c: &CloudId| c.has_csv_catalog() && c.spec().catalog_pull.is_hosted();
    let candidates: Vec<CloudId> = planner::assemble::candidates(&enabled, &config)
        .clouds
        .into_iter()
        .filter(hosted)
        .collect();
    if scope != RefreshScope::Credentials {
        return Ok((candidates, scope));
    }
    let ctx = check_context(options, &config);
    let with_credentials = adapters(&candidates, options, &config, &options.aws)
        .into_iter()
        .filter(|a| matches!(a.credentials(&ctx), Credentials::Present(_)))
        .map(|a| a.id())
        .collect();
    Ok((with_credentials, scope))
}
