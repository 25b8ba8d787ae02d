//! `sky catalog refresh`: bring SkyPilot's catalog folder up to date now,
//! instead of at the end of each file's pull period.

use std::time::Duration;

use planner::cloud::CloudId;
use planner::launch::Refreshed;

use super::enabled::persisted_enabled_clouds;
use super::options::{LaunchError, LaunchOptions};
use crate::catalogs::{self, Mode};
use crate::config::ConfigError;

/// Downloads the catalogs of `clouds` into SkyPilot's folder (and the
/// `common/` tables), each within `timeout`, concurrently, whatever their
/// pull period; a file edited by hand is kept. With no `clouds`: every
/// cloud with a `vms.csv` in the folder, plus the declared clouds
/// (`SKY_ENABLED_CLOUDS`, else the last `sky check`).
///
/// An explicit folder (`--catalog-dir`, `SKY_CATALOG_DIR`) or
/// `SKY_BUNDLED_CATALOGS` is refused: those are never written.
pub async fn refresh_catalogs(
    options: &LaunchOptions,
    clouds: &[CloudId],
    timeout: Duration,
) -> Result<Vec<(String, Refreshed)>, LaunchError> {
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
    let wanted: Vec<CloudId> = if clouds.is_empty() {
        let declared = options
            .declared_clouds
            .clone()
            .or_else(|| persisted_enabled_clouds(&options.state_dir))
            .unwrap_or_default();
        CloudId::ALL
            .into_iter()
            .filter(|c| c.has_csv_catalog() && c.spec().catalog_pull.is_hosted())
            .filter(|c| declared.contains(c) || folder.path(&catalogs::vms_file(*c)).is_file())
            .collect()
    } else {
        clouds.to_vec()
    };
    Ok(catalogs::refresh(
        folder,
        &wanted,
        &options.catalogs,
        &options.state_dir,
        timeout,
    )
    .await)
}
