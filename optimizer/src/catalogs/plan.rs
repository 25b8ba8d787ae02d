//! Where a launch's catalog files come from, decided before any read:
//! which folder ([`Mode`]), and per file ([`Plan`], one `stat` each)
//! whether it is read as it is, brought up to date first, or absent.
//!
//! - `--catalog-dir` / `SKY_CATALOG_DIR`: that folder, read as it is (never
//!   written); a file it lacks comes from the bundled copy, with a warning.
//! - `SKY_BUNDLED_CATALOGS=1`: the bundled example catalogs only, no
//!   network, no warning (tests, demos).
//! - Otherwise SkyPilot's folder ([`super::folder`]): a current file is
//!   used after one `stat` (zero network); a missing one, or one past its
//!   pull period, is downloaded ([`super::download`]) — see
//!   [`super::gather`] for when.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use planner::assemble::FoundCatalogs;
use planner::cloud::{CatalogPull, CloudId};
use planner::launch::{CatalogKind, CatalogSource};

use super::download::{DownloadOptions, Job};
use super::folder::{self, Folder, Standing};
use super::{ACCELERATORS_FILE, Input, METADATA_FILE, has_bundled, load_vms, vms_file};
use crate::clouds::EnvMap;
use crate::config::ConfigError;
use crate::state::Clock;

/// How a launch finds and refreshes its catalogs (part of `LaunchOptions`).
#[derive(Debug, Clone, Default)]
pub struct CatalogOptions {
    /// Use the bundled example catalogs only: no folder, no network, no
    /// warning (`SKY_BUNDLED_CATALOGS=1`).
    pub bundled_only: bool,
    /// Where downloads come from (`SKY_CATALOG_URL`, `SKY_CATALOG_MIRROR_URL`).
    pub download: DownloadOptions,
    /// The time source for pull periods and ages. Default: the system clock.
    pub clock: Clock,
    /// Try every download now, even from a host whose recent failure
    /// would hold it back (`sky launch --retry-downloads`; `sky catalog
    /// refresh` always does).
    pub retry_downloads: bool,
}

impl CatalogOptions {
    /// The options the environment asks for: `SKY_BUNDLED_CATALOGS` (`1`,
    /// `true`, `yes`), `SKY_CATALOG_URL` and `SKY_CATALOG_MIRROR_URL` (an
    /// empty mirror disables the fallback).
    pub fn from_env(env: &EnvMap) -> CatalogOptions {
        let mut o = CatalogOptions {
            bundled_only: env.get("SKY_BUNDLED_CATALOGS").is_some_and(|v| {
                matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes")
            }),
            ..CatalogOptions::default()
        };
        if let Some(url) = env.get("SKY_CATALOG_URL").filter(|u| !u.trim().is_empty()) {
            o.download.url = url.trim().to_string();
        }
        if let Some(url) = env.get("SKY_CATALOG_MIRROR_URL") {
            let url = url.trim();
            o.download.mirror_url = (!url.is_empty()).then(|| url.to_string());
        }
        o
    }
}

/// Which catalogs a launch reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// The bundled example catalogs only.
    Bundled,
    /// An explicit folder, read only.
    Explicit(PathBuf),
    /// SkyPilot's folder, downloaded and refreshed as SkyPilot would.
    Shared(Folder),
}

impl Mode {
    /// `--catalog-dir` > `SKY_CATALOG_DIR` > `SKY_BUNDLED_CATALOGS` >
    /// SkyPilot's folder. An explicit folder that does not exist is an
    /// error (a typo would otherwise silently mean example prices).
    pub fn resolve(
        flag: Option<&Path>,
        env: &EnvMap,
        home: &Path,
        options: &CatalogOptions,
    ) -> Result<Mode, ConfigError> {
        let explicit = flag.map(Path::to_path_buf).or_else(|| {
            env.get("SKY_CATALOG_DIR")
                .filter(|d| !d.is_empty())
                .map(PathBuf::from)
        });
        if let Some(dir) = explicit {
            if !dir.is_dir() {
                return Err(ConfigError::MissingCatalogDir { path: dir });
            }
            return Ok(Mode::Explicit(dir));
        }
        if options.bundled_only {
            return Ok(Mode::Bundled);
        }
        Ok(Mode::Shared(Folder::new(folder::default_folder(env, home))))
    }

    /// The folder, as the plan's `catalog` field names it.
    pub fn source(&self) -> CatalogSource {
        match self {
            Mode::Bundled => CatalogSource::Bundled,
            Mode::Explicit(dir) => CatalogSource::Dir(dir.clone()),
            Mode::Shared(f) => CatalogSource::Dir(f.root().to_path_buf()),
        }
    }

    /// SkyPilot's folder, when this launch may write to it.
    pub fn shared(&self) -> Option<&Folder> {
        match self {
            Mode::Shared(f) => Some(f),
            _ => None,
        }
    }
}

/// One file's plan, decided from one `stat`.
#[derive(Debug)]
pub(super) enum Slot {
    /// Read it from here.
    Ready(Input, CatalogKind),
    /// Bring it up to date first (SkyPilot's folder only).
    Fetch(Job),
    /// Not available and nothing to fall back to (an explicit folder's
    /// optional `common/` file).
    Absent,
}

/// The catalogs of a launch, planned: one slot per file.
#[derive(Debug)]
pub struct Plan {
    pub(super) mode: Mode,
    pub(super) vms: Vec<(CloudId, Slot)>,
    pub(super) accelerators: Slot,
    pub(super) metadata: Slot,
}

/// A file's pull period. The `common/` tables are `read_catalog(...)`
/// without one.
pub(super) fn pull_of(cloud: Option<CloudId>) -> CatalogPull {
    cloud.map_or(CatalogPull::IfMissing, |c| c.spec().catalog_pull)
}

impl Plan {
    /// Plans the `vms.csv` of every cloud in `clouds` that has one, and the
    /// `common/` tables (one `stat` per file; no reads, no network).
    pub fn new(mode: Mode, clouds: &[CloudId], now: SystemTime) -> Plan {
        let vms = clouds
            .iter()
            .copied()
            .filter(|c| c.has_csv_catalog())
            .map(|c| (c, slot(&mode, || vms_file(c).into(), Some(c), now)))
            .collect();
        let accelerators = slot(&mode, || ACCELERATORS_FILE.into(), None, now);
        let metadata = slot(&mode, || METADATA_FILE.into(), None, now);
        Plan {
            mode,
            vms,
            accelerators,
            metadata,
        }
    }

    /// The clouds whose `vms.csv` would be downloaded if they are needed.
    pub fn fetching(&self) -> Vec<CloudId> {
        self.vms
            .iter()
            .filter(|(_, s)| matches!(s, Slot::Fetch(_)))
            .map(|(c, _)| *c)
            .collect()
    }
}

/// The catalogs of `clouds` — clouds a task names that are not among the
/// launch's candidates ([`planner::launch::ParsedTask::clouds_named_outside`])
/// — added to `found`, for validation only: SkyPilot's `Resources.validate`
/// checks a pinned region, zone or instance type against that cloud's
/// catalog whether or not the cloud is enabled
/// (`sky/resources.py::_try_validate_and_set_region_zone` →
/// `cloud.validate_region_zone`), and the optimizer's
/// `_check_specified_clouds` then says the cloud is not enabled.
///
/// Read from the launch's folder as the others are, with no note (they
/// price nothing): a file due for a refresh is read as it is, and a file
/// the folder lacks comes from the bundled copy (SkyPilot would download
/// it; a cloud that is not enabled does not hold a launch on the network).
/// A cloud with neither stays without a catalog, and its region is left to
/// the enabled-cloud check. A file that does not read is the launch's
/// error, as SkyPilot's `read_catalog` is.
pub(crate) fn load_named(
    mode: &Mode,
    clouds: &[CloudId],
    found: &mut FoundCatalogs,
    now: SystemTime,
) -> Result<(), ConfigError> {
    for &cloud in clouds {
        if found.catalog.cloud(cloud).is_some() || !cloud.has_csv_catalog() {
            continue;
        }
        let input = match slot(mode, || vms_file(cloud).into(), Some(cloud), now) {
            Slot::Ready(input, _) => input,
            Slot::Fetch(job) => match mode.shared() {
                Some(f) if f.path(&job.file).is_file() => Input::File {
                    path: f.path(&job.file),
                    meta: None,
                },
                _ if has_bundled(cloud) => Input::Bundled,
                _ => continue,
            },
            Slot::Absent => continue,
        };
        let _span = tracing::info_span!("named_catalog", cloud = cloud.repr()).entered();
        let (catalog, _skipped) = load_vms(cloud, &input, None)?;
        found.catalog.insert(catalog);
    }
    Ok(())
}

/// One file's slot: `cloud`'s `vms.csv`, or a `common/` table (`None`);
/// `file` names it in the folder (not made for the bundled catalogs, whose
/// slot needs no name: a warm launch plans every cloud's).
fn slot(
    mode: &Mode,
    file: impl FnOnce() -> Cow<'static, str>,
    cloud: Option<CloudId>,
    now: SystemTime,
) -> Slot {
    let bundled = cloud.is_none_or(has_bundled);
    let on_disk = |path: PathBuf, meta, kind| {
        Slot::Ready(
            Input::File {
                path,
                meta: Some(meta),
            },
            kind,
        )
    };
    match mode {
        Mode::Bundled if bundled => Slot::Ready(Input::Bundled, CatalogKind::Bundled),
        Mode::Bundled => Slot::Absent,
        Mode::Explicit(dir) => {
            let path = dir.join(&*file());
            match std::fs::metadata(&path) {
                Ok(meta) => on_disk(path, meta, CatalogKind::Dir),
                // The `common/` tables are optional in a folder.
                Err(_) if cloud.is_none() => Slot::Absent,
                Err(_) if bundled => Slot::Ready(Input::Bundled, CatalogKind::Bundled),
                Err(_) => Slot::Absent,
            }
        }
        Mode::Shared(f) => {
            let file = file();
            let file = &*file;
            let pull = pull_of(cloud);
            let path = f.path(file);
            match f.standing(file, pull, now) {
                Ok(Standing::Current(meta)) => on_disk(path, meta, CatalogKind::Cached),
                Ok(Standing::Missing | Standing::Due(_)) if pull.is_hosted() => Slot::Fetch(Job {
                    file: file.to_string(),
                    pull,
                    force: false,
                }),
                // Not hosted (vSphere, Slurm, SSH): SkyPilot reads the
                // local file if there is one.
                Ok(Standing::Due(meta)) => on_disk(path, meta, CatalogKind::Cached),
                Ok(Standing::Missing) | Err(_) if bundled => {
                    Slot::Ready(Input::Bundled, CatalogKind::Bundled)
                }
                Ok(Standing::Missing) | Err(_) => Slot::Absent,
            }
        }
    }
}
