//! The one download routine of the catalogs ([`Downloader::fetch`]): a
//! file of SkyPilot's folder brought up to date within its deadlines
//! ([`super::download::fetch`] does the lock, the conditional GET, the
//! mirror and the validated write), and what a launch then reads
//! ([`Downloader::file`]); `sky catalog refresh` ([`refresh`]) is the same
//! routine, forced.

use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use planner::catalog::{AcceleratorTable, CatalogWarning, CloudCatalog, parse_gpu_metadata};
use planner::cloud::CloudId;
use planner::launch::{CatalogKind, Refreshed};

use super::download::{self, Backoff, DownloadOptions, Fetched, Job};
use super::folder::Folder;
use super::plan::{CatalogOptions, pull_of};
use super::{ACCELERATORS_FILE, Input, METADATA_FILE, store_downloaded_image, vms_file};
use crate::net::HttpClient;
use crate::state::{CatalogIndex, DownloadBackoff, StateDir};

/// Limits of a launch's downloads.
#[derive(Debug, Clone, Copy)]
pub struct Deadlines {
    /// Each download's own deadline, from when it starts.
    pub per_file: Duration,
    /// No download runs past this.
    pub global: tokio::time::Instant,
}

/// A shared, lazily built client: the CA roots load only if a download runs.
#[derive(Clone)]
struct LazyClient {
    cell: Arc<OnceLock<Result<HttpClient, String>>>,
    options: DownloadOptions,
}

impl LazyClient {
    fn get(&self) -> Result<HttpClient, String> {
        self.cell
            .get_or_init(|| {
                HttpClient::for_urls(self.options.bases(), self.options.connect_timeout)
            })
            .clone()
    }
}

/// The records of failed downloads, opened by the first download.
#[derive(Clone)]
struct LazyBackoff {
    state_dir: Arc<PathBuf>,
    retry_now: bool,
    cell: Arc<OnceLock<Backoff>>,
}

impl LazyBackoff {
    fn get(&self) -> &Backoff {
        self.cell.get_or_init(|| Backoff {
            log: StateDir::open(self.state_dir.as_path())
                .and_then(|s| DownloadBackoff::open(&s))
                .inspect_err(|e| tracing::debug!(error = %e, "failed downloads not remembered"))
                .ok(),
            retry_now: self.retry_now,
        })
    }
}

/// Downloads into SkyPilot's folder: one lazily built client, the catalog
/// options, the deadlines and the failures remembered in the state folder,
/// shared by every file of a launch.
#[derive(Clone)]
pub(super) struct Downloader {
    folder: Folder,
    client: LazyClient,
    options: CatalogOptions,
    deadlines: Deadlines,
    backoff: LazyBackoff,
}

/// What a launch reads after one download.
// One per file, moved once: boxing the large variant would buy nothing.
#[allow(clippy::large_enum_variant)]
pub(super) enum Download<T> {
    /// Read this: the new copy, the old one, or the bundled one.
    Use {
        /// Where.
        input: Input,
        /// How it was obtained.
        kind: CatalogKind,
        /// What was kept of the new copy as the check read it, when one
        /// was downloaded.
        parsed: Option<T>,
        /// Why the download failed, when an old or bundled copy stands in.
        problem: Option<String>,
    },
    /// Nothing to read: the download failed (why) and there is no copy.
    Nothing(String),
}

impl Downloader {
    /// Downloads into `folder` with `options`, within `deadlines`,
    /// remembering failures in the state folder `state_dir`.
    pub(super) fn new(
        folder: Folder,
        options: &CatalogOptions,
        deadlines: Deadlines,
        state_dir: &Path,
    ) -> Self {
        Downloader {
            folder,
            client: LazyClient {
                cell: Arc::new(OnceLock::new()),
                options: options.download.clone(),
            },
            options: options.clone(),
            deadlines,
            backoff: LazyBackoff {
                state_dir: Arc::new(state_dir.to_path_buf()),
                retry_now: options.retry_downloads,
                cell: Arc::new(OnceLock::new()),
            },
        }
    }

    /// The folder downloaded into.
    pub(super) fn folder(&self) -> &Folder {
        &self.folder
    }

    /// The catalog options (the clock).
    pub(super) fn options(&self) -> &CatalogOptions {
        &self.options
    }

    /// Brings `job.file` up to date before its deadline (its own from now,
    /// or the global one if sooner); `check` turns a downloaded body into a
    /// value, and a body it rejects is never written; `keep` makes of that
    /// value what the caller keeps, in the same one-body-at-a-time turn
    /// (see [`download::fetch`]).
    pub(super) async fn fetch<T, U, F, K>(&self, job: &Job, check: (F, K)) -> Fetched<U>
    where
        T: Send + 'static,
        U: Send + 'static,
        F: FnOnce(&[u8]) -> Result<T, String> + Send + 'static,
        K: FnOnce(T, &Path, &Metadata) -> U + Send + 'static,
    {
        let deadline =
            (tokio::time::Instant::now() + self.deadlines.per_file).min(self.deadlines.global);
        let backoff = self.backoff.get();
        match self.client.get() {
            Ok(http) => {
                download::fetch(
                    &http,
                    &self.options.download,
                    &self.folder,
                    job,
                    deadline,
                    &self.options.clock,
                    backoff,
                    check,
                )
                .await
            }
            Err(error) => Fetched::Failed {
                error,
                stale: std::fs::metadata(self.folder.path(&job.file)).ok(),
            },
        }
    }

    /// [`Downloader::fetch`], then what to read: the new copy, else the old
    /// one, else the bundled one (when `bundled`).
    pub(super) async fn file<T, U, F, K>(
        &self,
        job: &Job,
        check: (F, K),
        bundled: bool,
    ) -> Download<U>
    where
        T: Send + 'static,
        U: Send + 'static,
        F: FnOnce(&[u8]) -> Result<T, String> + Send + 'static,
        K: FnOnce(T, &Path, &Metadata) -> U + Send + 'static,
    {
        let fetched = self.fetch(job, check).await;
        after_fetch(fetched, &self.folder.path(&job.file), bundled)
    }
}

/// How one fetched file is to be read, and what to say about it.
fn after_fetch<T>(fetched: Fetched<T>, path: &Path, bundled: bool) -> Download<T> {
    let use_file = |meta: Metadata, kind, parsed, problem| Download::Use {
        input: Input::File {
            path: path.to_path_buf(),
            meta: Some(meta),
        },
        kind,
        parsed,
        problem,
    };
    match fetched {
        Fetched::Downloaded { value, meta, .. } => {
            use_file(meta, CatalogKind::Downloaded, Some(value), None)
        }
        Fetched::NotModified { meta } => use_file(meta, CatalogKind::NotModified, None, None),
        Fetched::Current { meta } => use_file(meta, CatalogKind::Cached, None, None),
        Fetched::Edited { meta } => use_file(meta, CatalogKind::Edited, None, None),
        Fetched::Failed {
            error,
            stale: Some(meta),
        } => use_file(meta, CatalogKind::Stale, None, Some(error)),
        Fetched::Failed { error, stale: None } if bundled => Download::Use {
            input: Input::Bundled,
            kind: CatalogKind::Bundled,
            parsed: None,
            problem: Some(error),
        },
        Fetched::Failed { error, stale: None } => Download::Nothing(error),
    }
}

/// A `vms.csv` as a launch uses it: the catalog and its skipped rows.
pub(super) type Vms = (CloudCatalog, Vec<CatalogWarning>);

/// Checks a downloaded `vms.csv`: it must parse, list at least one row,
/// and be this cloud's ([`is_clouds`]).
pub(super) fn check_vms(
    cloud: CloudId,
    name: String,
) -> impl FnOnce(&[u8]) -> Result<Vms, String> + Send + 'static {
    move |bytes| {
        let (catalog, warnings) =
            CloudCatalog::from_bytes(cloud, bytes, &name).map_err(|e| e.to_string())?;
        if catalog.instance_types().next().is_none() {
            return Err("it lists no instance type".into());
        }
        if !is_clouds(cloud, &catalog) {
            return Err(format!(
                "none of its regions is one of {}'s (another cloud's catalog?)",
                cloud.repr()
            ));
        }
        Ok((catalog, warnings))
    }
}

/// Whether `catalog` names a region of `cloud`: one of its first few
/// distinct regions is a region of the bundled copy (a snapshot of the
/// hosted catalog), so a well-formed catalog of another cloud served under
/// this cloud's name is refused. A cloud without a bundled copy passes.
fn is_clouds(cloud: CloudId, catalog: &CloudCatalog) -> bool {
    let Some(bundled) = super::bundled::vms_csv(cloud) else {
        return true;
    };
    let mut seen: Vec<&str> = Vec::new();
    for (region, _) in catalog.locations() {
        let region: &str = region.as_ref();
        if seen.contains(&region) {
            continue;
        }
        // A field of a row: followed by another field or the end of the row.
        let found = [",", "\n", "\r"].iter().any(|end| {
            let field = format!(",{region}{end}");
            bundled.windows(field.len()).any(|w| w == field.as_bytes())
        });
        if found {
            return true;
        }
        seen.push(region);
        if seen.len() >= 8 {
            break;
        }
    }
    false
}

/// Keeps a checked `vms.csv` as its image in `index` (from which a launch
/// decodes only the rows it needs): `None` once the image is stored and
/// can be read back — the rows are dropped then, within the download's
/// turn — else the parsed catalog itself (no state folder, or the image
/// could not be written).
pub(super) fn keep_vms(
    index: impl FnOnce() -> Option<CatalogIndex> + Send + 'static,
) -> impl FnOnce(Vms, &Path, &Metadata) -> Option<Vms> + Send + 'static {
    move |(catalog, warnings), path, meta| {
        let Some(index) = index() else {
            return Some((catalog, warnings));
        };
        store_downloaded_image(&index, path, meta, &catalog, &warnings);
        let stored = index
            .map(&super::image_key(path), &super::fingerprint(meta))
            .is_some();
        (!stored).then_some((catalog, warnings))
    }
}

/// Keeps what a check made of a body as it is.
pub(super) fn keep_all<T>(value: T, _: &Path, _: &Metadata) -> T {
    value
}

/// Checks a downloaded `common/` table by parsing it.
pub(super) fn check_common(
    file: &'static str,
) -> impl FnOnce(&[u8]) -> Result<(), String> + Send + 'static {
    move |bytes| {
        if file == ACCELERATORS_FILE {
            AcceleratorTable::from_reader(bytes, file).map(|_| ())
        } else {
            parse_gpu_metadata(bytes, file).map(|_| ())
        }
        .map_err(|e| e.to_string())
    }
}

/// `sky catalog refresh`: downloads `clouds`' `vms.csv` (and the `common/`
/// tables) into SkyPilot's folder now, whatever their pull period or the
/// back-off of past failures, each within `timeout`, concurrently. A file
/// edited by hand is still kept.
pub async fn refresh(
    folder: &Folder,
    clouds: &[CloudId],
    options: &CatalogOptions,
    state_dir: &Path,
    timeout: Duration,
) -> Vec<(String, Refreshed)> {
    let deadlines = Deadlines {
        per_file: timeout,
        global: tokio::time::Instant::now() + timeout,
    };
    let options = CatalogOptions {
        retry_downloads: true,
        ..options.clone()
    };
    let downloader = Downloader::new(folder.clone(), &options, deadlines, state_dir);
    let index = StateDir::open(state_dir)
        .and_then(|s| CatalogIndex::open(&s))
        .ok();
    let files = clouds.iter().map(|c| (vms_file(*c), Some(*c))).chain([
        (ACCELERATORS_FILE.to_string(), None),
        (METADATA_FILE.to_string(), None),
    ]);
    let work = files.map(|(file, cloud)| {
        let (downloader, index) = (&downloader, &index);
        async move {
            let result = refresh_one(downloader, &file, cloud, index.as_ref()).await;
            (file, result)
        }
    });
    futures::future::join_all(work).await
}

/// One file of `sky catalog refresh`: `cloud`'s `vms.csv` (its image
/// stored for the next launch), or a `common/` table.
async fn refresh_one(
    downloader: &Downloader,
    file: &str,
    cloud: Option<CloudId>,
    index: Option<&CatalogIndex>,
) -> Refreshed {
    let pull = pull_of(cloud);
    if !pull.is_hosted() {
        return Refreshed::NotHosted;
    }
    let job = Job {
        file: file.to_string(),
        pull,
        force: true,
    };
    let path = downloader.folder.path(file);
    match cloud {
        Some(cloud) => {
            // The image is stored within the download's turn: the clouds
            // refreshed at once never hold their rows together.
            let index = index.cloned();
            let check = check_vms(cloud, path.display().to_string());
            let fetched = downloader
                .fetch(&job, (check, keep_vms(move || index)))
                .await;
            refreshed(fetched)
        }
        None => {
            let table = if file == ACCELERATORS_FILE {
                ACCELERATORS_FILE
            } else {
                METADATA_FILE
            };
            refreshed(
                downloader
                    .fetch(&job, (check_common(table), keep_all))
                    .await,
            )
        }
    }
}

fn refreshed<T>(fetched: Fetched<T>) -> Refreshed {
    match fetched {
        Fetched::Downloaded { url, bytes, .. } => Refreshed::Downloaded { bytes, url },
        Fetched::NotModified { .. } => Refreshed::NotModified,
        // Forced: `Current` means another process refreshed it meanwhile.
        Fetched::Current { .. } => Refreshed::NotModified,
        Fetched::Edited { .. } => Refreshed::Edited,
        Fetched::Failed { error, .. } => Refreshed::Failed(error),
    }
}
