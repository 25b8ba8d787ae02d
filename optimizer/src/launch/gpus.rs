//! `sky gpus list`: the I/O half. Finds the catalogs as a launch does
//! (`catalogs::gather::Mode`: `--catalog-dir` > `SKY_CATALOG_DIR` >
//! `SKY_BUNDLED_CATALOGS` > SkyPilot's folder), reads each cloud's
//! `vms.csv` on its own scoped thread, and hands the bytes to
//! `planner::gpus`, which does the listing; `planner::render::gpus` prints it.
//!
//! No network: the catalogs are read as they are. A file SkyPilot's folder
//! lacks is taken from the bundled example catalogs with a warning (a launch
//! would download it; `sky catalog refresh` does).

use planner::cloud::CloudId;
use planner::gpus::{self, CloudGpuRows, GpusError, Query, Report};

use super::{LaunchError, LaunchOptions};
use crate::catalogs::bundled;
use crate::catalogs::gather::Mode;
use crate::config::ConfigError;
use crate::input::{MAX_CATALOG_FILE_BYTES, read_regular};

/// What one `sky gpus list` came to.
#[derive(Debug)]
pub struct GpusOutcome {
    /// The text report (absent with `-o json`).
    pub report: Option<Report>,
    /// The `-o json` listing.
    pub json: Option<gpus::Listing>,
    /// One line each: catalogs that could not be read or were replaced.
    pub warnings: Vec<String>,
    /// Enabled Kubernetes-like clouds whose GPUs SkyPilot would list first
    /// and this command does not (their realtime availability needs the
    /// pods of every node, which the launch's node listing does not read).
    pub unlisted: Vec<CloudId>,
}

/// The clouds whose GPUs come from live nodes rather than a catalog.
pub const REALTIME_CLOUDS: [CloudId; 3] = [CloudId::Kubernetes, CloudId::Ssh, CloudId::Slurm];

/// The enabled set as SkyPilot's `sdk.enabled_clouds()` answers it: the
/// declared clouds, else those of the last `sky check` (none before one).
fn enabled_clouds(options: &LaunchOptions) -> Vec<CloudId> {
    options
        .declared_clouds
        .clone()
        .or_else(|| super::check::persisted_enabled_clouds(&options.state_dir))
        .unwrap_or_default()
}

/// Where one cloud's `vms.csv` bytes come from.
enum Source {
    Bundled(&'static [u8]),
    File(std::path::PathBuf),
}

fn sources(mode: &Mode, clouds: &[CloudId], warnings: &mut Vec<String>) -> Vec<(CloudId, Source)> {
    let mut out = Vec::new();
    for &cloud in clouds {
        let file = format!("{}/vms.csv", cloud.name());
        match mode {
            Mode::Bundled => {
                if let Some(b) = bundled::vms_csv(cloud) {
                    out.push((cloud, Source::Bundled(b)));
                }
            }
            Mode::Explicit(dir) => {
                let path = dir.join(&file);
                if path.is_file() {
                    out.push((cloud, Source::File(path)));
                }
            }
            Mode::Shared(folder) => {
                let path = folder.path(&file);
                if path.is_file() {
                    out.push((cloud, Source::File(path)));
                } else if let Some(b) = bundled::vms_csv(cloud) {
                    warnings.push(format!(
                        "{} is missing: listing the example catalog built into sky (run `sky catalog refresh {}` to download it).",
                        path.display(),
                        cloud.name()
                    ));
                    out.push((cloud, Source::Bundled(b)));
                }
            }
        }
    }
    out
}

/// Reads and parses the catalogs of `clouds`, one scoped thread each,
/// in `clouds` order. A catalog that cannot be read is a warning.
fn load(mode: &Mode, clouds: &[CloudId], warnings: &mut Vec<String>) -> Vec<CloudGpuRows> {
    let srcs = sources(mode, clouds, warnings);
    let results: Vec<Result<CloudGpuRows, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = srcs
            .iter()
            .map(|(cloud, src)| {
                s.spawn(move || match src {
                    Source::Bundled(b) => {
                        CloudGpuRows::from_csv(*cloud, b, &format!("{}/vms.csv", cloud.name()))
                            .map_err(|e| e.to_string())
                    }
                    Source::File(path) => {
                        let bytes = read_regular(path, MAX_CATALOG_FILE_BYTES)
                            .map_err(|e| format!("{}: {}", path.display(), e.cause()))?;
                        CloudGpuRows::from_csv(*cloud, &bytes, &path.display().to_string())
                            .map_err(|e| e.to_string())
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("catalog parser thread panicked".into()))
            })
            .collect()
    });
    let mut out = Vec::new();
    for r in results {
        match r {
            Ok(c) => out.push(c),
            Err(e) => warnings.push(format!("skipping a catalog: {e}")),
        }
    }
    out
}

/// Errors of `sky gpus list` beyond the launch's own.
#[derive(Debug, thiserror::Error)]
pub enum GpusListError {
    /// The catalogs or the options could not be used.
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// A filter is invalid.
    #[error(transparent)]
    Gpus(#[from] GpusError),
    /// `--infra` names a cloud whose GPUs only its live nodes know.
    #[error("{}", planner::render::gpus::realtime_not_listed(*.0))]
    Realtime(CloudId),
}

/// Lists the accelerators for `query` (already validated), as text or JSON.
pub fn gpus_list(
    options: &LaunchOptions,
    query: &Query,
    json: bool,
) -> Result<GpusOutcome, GpusListError> {
    let mode = Mode::resolve(
        options.catalog_dir.as_deref(),
        &options.env,
        &options.home,
        &options.catalogs,
    )
    .map_err(|e: ConfigError| GpusListError::Launch(LaunchError::from(e)))?;
    if let Some(c) = query.cloud.filter(|c| REALTIME_CLOUDS.contains(c)) {
        return Err(GpusListError::Realtime(c));
    }
    let unlisted: Vec<CloudId> = enabled_clouds(options)
        .into_iter()
        .filter(|c| REALTIME_CLOUDS.contains(c) && query.cloud.is_none())
        .collect();
    let mut warnings = Vec::new();
    let catalogs = load(&mode, &query.catalog_clouds(), &mut warnings);
    let refs: Vec<&CloudGpuRows> = catalogs.iter().collect();
    let _span = tracing::info_span!("gpus_list").entered();
    if json {
        return Ok(GpusOutcome {
            report: None,
            json: Some(gpus::json_listing(query, &refs)?),
            warnings,
            unlisted,
        });
    }
    Ok(GpusOutcome {
        report: Some(gpus::report(query, &refs, false)?),
        json: None,
        warnings,
        unlisted,
    })
}
