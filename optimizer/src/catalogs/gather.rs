//! A launch's catalogs, per file: where each needed `vms.csv` (and the
//! `common/` tables) comes from, the downloads SkyPilot would make, and the
//! fallbacks.
//!
//! - `--catalog-dir` / `SKY_CATALOG_DIR`: that folder, read as it is (never
//!   written); a file it lacks comes from the bundled copy, with a warning.
//! - `SKY_BUNDLED_CATALOGS=1`: the bundled example catalogs only, no
//!   network, no warning (tests, demos).
//! - Otherwise SkyPilot's folder ([`super::folder`]): a current file is
//!   used after one `stat` (zero network); a missing one, or one past its
//!   pull period, is downloaded ([`super::download`]) — but only once the
//!   fan-out has seen that the cloud is usable (credentials present, or
//!   declared), and concurrently with the cloud checks, each download under
//!   its own deadline. A failed refresh keeps the old file; with no file at
//!   all the bundled copy is used with a warning that its prices are
//!   examples; with no bundled copy either, the cloud is left out.

use std::collections::HashMap;
use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use futures::future::BoxFuture;
use planner::catalog::selection::CatalogNeeds;
use planner::catalog::{
    AcceleratorTable, AzMapping, CatalogWarning, CloudCatalog, GpuMetadata, parse_gpu_metadata,
};
use planner::check::{CheckOutcome, CloudError};
use planner::cloud::{CatalogPull, CloudId};
use planner::launch::{CatalogKind, CatalogOrigin, CatalogSource};
use tokio::sync::oneshot;

use super::download::{self, DownloadOptions, Fetched, Job};
use super::folder::{self, Folder, Standing};
use super::{
    ACCELERATORS_FILE, Input, LoadedCatalog, METADATA_FILE, has_bundled, load_az_mappings,
    load_common, load_vms, load_vms_all, store_downloaded_image, vms_file,
};
use crate::clouds::{CheckContext, Cloud, Credentials, EnvMap};
use crate::config::ConfigError;
use crate::net::HttpClient;
use crate::state::{CatalogIndex, Clock, StateDir};

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
enum Slot {
    /// Read it from here.
    Ready(Input, CatalogKind),
    /// Bring it up to date first (SkyPilot's folder only).
    Fetch(Job),
    /// Not available and nothing to fall back to (an explicit folder's
    /// optional `common/` file).
    Absent,
}

/// Whether a download is wanted: now, or once the fan-out says the cloud
/// has credentials.
pub enum Need {
    /// Wanted (a declared cloud, the `common/` tables).
    Now,
    /// Wanted if the sender says `true` (dropped: not wanted).
    Later(oneshot::Receiver<bool>),
}

impl Need {
    async fn wanted(self) -> bool {
        match self {
            Need::Now => true,
            Need::Later(rx) => rx.await.unwrap_or(false),
        }
    }
}

/// The catalogs of a launch, planned: one slot per file.
#[derive(Debug)]
pub struct Plan {
    mode: Mode,
    vms: Vec<(CloudId, Slot)>,
    accelerators: Slot,
    metadata: Slot,
}

fn pull_of(cloud: Option<CloudId>) -> CatalogPull {
    // The `common/` tables are `read_catalog(...)` without a pull period.
    cloud.map_or(CatalogPull::IfMissing, |c| c.spec().catalog_pull)
}

impl Plan {
    /// Plans the `vms.csv` of every cloud in `clouds` that has one, and the
    /// `common/` tables (one `stat` per file; no reads, no network).
    pub fn new(mode: Mode, clouds: &[CloudId], now: SystemTime) -> Plan {
        let slot = |file: &str, cloud: Option<CloudId>| -> Slot {
            let bundled = cloud.is_none_or(has_bundled);
            match &mode {
                Mode::Bundled if bundled => Slot::Ready(Input::Bundled, CatalogKind::Bundled),
                Mode::Bundled => Slot::Absent,
                Mode::Explicit(dir) => {
                    let path = dir.join(file);
                    match std::fs::metadata(&path) {
                        Ok(meta) => Slot::Ready(
                            Input::File {
                                path,
                                meta: Some(meta),
                            },
                            CatalogKind::Dir,
                        ),
                        // The `common/` tables are optional in a folder.
                        Err(_) if cloud.is_none() => Slot::Absent,
                        Err(_) if bundled => Slot::Ready(Input::Bundled, CatalogKind::Bundled),
                        Err(_) => Slot::Absent,
                    }
                }
                Mode::Shared(f) => {
                    let pull = pull_of(cloud);
                    let path = f.path(file);
                    match f.standing(file, pull, now) {
                        Ok(Standing::Current(meta)) => Slot::Ready(
                            Input::File {
                                path,
                                meta: Some(meta),
                            },
                            CatalogKind::Cached,
                        ),
                        Ok(Standing::Missing | Standing::Due(_)) if pull.is_hosted() => {
                            Slot::Fetch(Job {
                                file: file.to_string(),
                                pull,
                                force: false,
                            })
                        }
                        // Not hosted (vSphere, Slurm, SSH): SkyPilot reads
                        // the local file if there is one.
                        Ok(Standing::Due(meta)) => Slot::Ready(
                            Input::File {
                                path,
                                meta: Some(meta),
                            },
                            CatalogKind::Cached,
                        ),
                        Ok(Standing::Missing) | Err(_) if bundled => {
                            Slot::Ready(Input::Bundled, CatalogKind::Bundled)
                        }
                        Ok(Standing::Missing) | Err(_) => Slot::Absent,
                    }
                }
            }
        };
        let vms = clouds
            .iter()
            .copied()
            .filter(|c| c.has_csv_catalog())
            .map(|c| (c, slot(&vms_file(c), Some(c))))
            .collect();
        let accelerators = slot(ACCELERATORS_FILE, None);
        let metadata = slot(METADATA_FILE, None);
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

/// An adapter that reports, as soon as the fan-out has asked it for
/// credentials, whether its cloud is usable, so its catalog download starts
/// then (and only then) instead of before or after the fan-out.
struct Signalling {
    inner: Arc<dyn Cloud>,
    tx: Mutex<Option<oneshot::Sender<bool>>>,
}

impl Cloud for Signalling {
    fn id(&self) -> CloudId {
        self.inner.id()
    }

    fn credentials(&self, ctx: &CheckContext) -> Credentials {
        let found = self.inner.credentials(ctx);
        if let Some(tx) = self.tx.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = tx.send(matches!(found, Credentials::Present(_)));
        }
        found
    }

    fn check<'a>(
        &'a self,
        ctx: &'a CheckContext,
    ) -> BoxFuture<'a, Result<CheckOutcome, CloudError>> {
        self.inner.check(ctx)
    }
}

/// `inner`, reporting its credential check to the returned [`Need`].
pub fn signal_need(inner: Arc<dyn Cloud>) -> (Arc<dyn Cloud>, Need) {
    let (tx, rx) = oneshot::channel();
    (
        Arc::new(Signalling {
            inner,
            tx: Mutex::new(Some(tx)),
        }),
        Need::Later(rx),
    )
}

/// Limits of a launch's downloads.
#[derive(Debug, Clone, Copy)]
pub struct Deadlines {
    /// Each download's own deadline, from when it starts.
    pub per_file: Duration,
    /// No download runs past this.
    pub global: tokio::time::Instant,
}

/// What the catalogs of a launch came to.
#[derive(Debug)]
pub struct Gathered {
    /// Every catalog that could be had.
    pub loaded: LoadedCatalog,
    /// Where each file came from.
    pub origins: Vec<CatalogOrigin>,
    /// Download problems, one line each, keyed by file.
    pub problems: Vec<(String, String)>,
    /// Clouds for which no catalog at all could be had, and why.
    pub unusable: Vec<(CloudId, String)>,
    /// The AWS `vms.csv` used, if any: its zone mappings live beside it.
    pub aws_input: Option<Input>,
    /// Wall time of the whole gathering.
    pub elapsed: Duration,
}

/// Which rows of each catalog a launch decodes, given the GPU metadata of
/// `common/metadata.csv` (see [`gather`]).
pub type RowsOf = Box<dyn FnOnce(&[GpuMetadata]) -> CatalogNeeds + Send>;

/// The zone mapping files beside an AWS catalog, newest first.
type AzMappings = Result<Vec<(String, AzMapping)>, ConfigError>;

/// What the loader thread read.
struct Loaded {
    settled: Vec<Settled>,
    /// The `common/` tables, when both were at hand.
    common: Option<Result<planner::catalog::Catalog, ConfigError>>,
    /// The AWS zone mappings beside the AWS input it loaded.
    az_mappings: Option<(Input, AzMappings)>,
}

/// Whether two inputs name the same file (or both the bundled copy).
fn same_input(a: &Input, b: &Input) -> bool {
    match (a, b) {
        (Input::Bundled, Input::Bundled) => true,
        (Input::File { path: a, .. }, Input::File { path: b, .. }) => a == b,
        _ => false,
    }
}

/// One vms.csv, settled.
struct Settled {
    cloud: CloudId,
    /// `None` when `unusable` says why there is none.
    result: Option<Result<(CloudCatalog, Vec<CatalogWarning>), ConfigError>>,
    origin: Option<CatalogOrigin>,
    input: Option<Input>,
    problem: Option<String>,
    unusable: Option<String>,
}

fn origin(
    file: &str,
    cloud: Option<CloudId>,
    kind: CatalogKind,
    input: &Input,
    now: SystemTime,
) -> CatalogOrigin {
    let (path, age) = match input {
        Input::Bundled => (None, None),
        Input::File { path, meta } => (
            Some(path.clone()),
            meta.clone()
                .or_else(|| std::fs::metadata(path).ok())
                .map(|m| folder::age(&m, now)),
        ),
    };
    CatalogOrigin {
        file: file.to_string(),
        cloud,
        kind,
        path,
        age,
        pull_hours: pull_of(cloud).hours(),
    }
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

/// How one fetched file is to be read, and what to say about it.
fn after_fetch<T>(
    fetched: Fetched<T>,
    path: &Path,
    bundled: bool,
) -> (
    Option<Input>,
    Option<CatalogKind>,
    Option<String>,
    Option<T>,
) {
    let file = |meta: Metadata| Input::File {
        path: path.to_path_buf(),
        meta: Some(meta),
    };
    match fetched {
        Fetched::Downloaded { value, meta, .. } => (
            Some(file(meta)),
            Some(CatalogKind::Downloaded),
            None,
            Some(value),
        ),
        Fetched::NotModified { meta } => {
            (Some(file(meta)), Some(CatalogKind::NotModified), None, None)
        }
        Fetched::Current { meta } => (Some(file(meta)), Some(CatalogKind::Cached), None, None),
        Fetched::Edited { meta } => (Some(file(meta)), Some(CatalogKind::Edited), None, None),
        Fetched::Failed {
            error,
            stale: Some(meta),
        } => (
            Some(file(meta)),
            Some(CatalogKind::Stale),
            Some(error),
            None,
        ),
        Fetched::Failed { error, stale: None } if bundled => (
            Some(Input::Bundled),
            Some(CatalogKind::Bundled),
            Some(error),
            None,
        ),
        Fetched::Failed { error, stale: None } => (None, None, Some(error), None),
    }
}

/// Checks a downloaded `vms.csv`: it must parse and list at least one row.
fn check_vms(
    cloud: CloudId,
    name: String,
) -> impl FnOnce(&[u8]) -> Result<(CloudCatalog, Vec<CatalogWarning>), String> + Send + 'static {
    move |bytes| {
        let (catalog, warnings) =
            CloudCatalog::from_bytes(cloud, bytes, &name).map_err(|e| e.to_string())?;
        if catalog.instance_types().next().is_none() {
            return Err("it lists no instance type".into());
        }
        Ok((catalog, warnings))
    }
}

/// Checks a downloaded `common/` table by parsing it.
fn check_common(file: &'static str) -> impl FnOnce(&[u8]) -> Result<(), String> + Send + 'static {
    move |bytes| {
        if file == ACCELERATORS_FILE {
            AcceleratorTable::from_reader(bytes, file).map(|_| ())
        } else {
            parse_gpu_metadata(bytes, file).map(|_| ())
        }
        .map_err(|e| e.to_string())
    }
}

/// One `common/` table: its name, where to read it (none: absent), where it
/// came from, and the problem its download had.
type CommonFile = (
    &'static str,
    Option<Input>,
    Option<CatalogOrigin>,
    Option<String>,
);

/// Loads what `plan` says, downloading where it says so and `needs` wants.
/// Runs beside the fan-out; every download is bounded by `deadlines`.
///
/// The files at hand load on one blocking thread: the `common/` tables
/// first, then `rows_of` (given the GPU metadata, which memory-based GPU
/// requests expand through) says which rows of each `vms.csv` to decode,
/// then the `vms.csv` images and the AWS zone mappings. Files that must be
/// downloaded first are read whole.
pub async fn gather(
    plan: Plan,
    mut needs: HashMap<CloudId, Need>,
    rows_of: RowsOf,
    state_dir: PathBuf,
    options: CatalogOptions,
    deadlines: Deadlines,
) -> Result<Gathered, ConfigError> {
    let started = Instant::now();
    let now = options.clock.now();
    let Plan {
        mode,
        vms,
        accelerators,
        metadata,
    } = plan;
    let client = LazyClient {
        cell: Arc::new(OnceLock::new()),
        options: options.download.clone(),
    };
    // Without a usable state folder every launch parses the CSVs.
    let index_dir = state_dir.clone();
    let index = Arc::new(OnceLock::<Option<CatalogIndex>>::new());
    let open_index = move |index: &OnceLock<Option<CatalogIndex>>| {
        index
            .get_or_init(|| {
                StateDir::open(&index_dir)
                    .and_then(|s| CatalogIndex::open(&s))
                    .inspect_err(|e| tracing::debug!(error = %e, "catalog images disabled"))
                    .ok()
            })
            .clone()
    };

    let mut ready = Vec::new();
    let mut fetches = Vec::new();
    let mut settled = Vec::new();
    for (cloud, slot) in vms {
        match slot {
            Slot::Ready(input, kind) => ready.push((cloud, input, kind)),
            Slot::Fetch(job) => fetches.push((cloud, job)),
            Slot::Absent => settled.push(Settled {
                cloud,
                result: None,
                origin: None,
                input: None,
                problem: None,
                unusable: Some(match &mode {
                    Mode::Explicit(dir) => format!(
                        "no catalog: {} does not exist and sky has no bundled copy",
                        dir.join(vms_file(cloud)).display()
                    ),
                    _ => "no catalog: sky has no bundled copy".to_string(),
                }),
            }),
        }
    }

    // The `common/` tables, when both are at hand, load with the rest.
    let common_at_hand =
        !matches!(accelerators, Slot::Fetch(_)) && !matches!(metadata, Slot::Fetch(_));
    let common_inputs = common_at_hand.then(|| {
        let input = |slot: &Slot| match slot {
            Slot::Ready(input, _) => Some(input.clone()),
            _ => None,
        };
        (input(&accelerators), input(&metadata))
    });

    // The files at hand load now, on a blocking thread (scoped threads inside).
    let loader = {
        let index = index.clone();
        let open_index = open_index.clone();
        tokio::task::spawn_blocking(move || {
            let _span = tracing::info_span!("catalog_load").entered();
            let mut common = None;
            let needs = match common_inputs {
                Some((acc, meta)) => {
                    let mut tables = planner::catalog::Catalog::new();
                    let loaded = tracing::info_span!("common_tables")
                        .in_scope(|| load_common(&mut tables, acc.as_ref(), meta.as_ref()));
                    let needs = match &loaded {
                        Ok(()) => rows_of(&tables.gpu_metadata),
                        Err(_) => CatalogNeeds::all(),
                    };
                    common = Some(loaded.map(|()| tables));
                    needs
                }
                None => CatalogNeeds::all(),
            };
            let index = open_index(&index);
            let inputs: Vec<(CloudId, Input)> =
                ready.iter().map(|(c, i, _)| (*c, i.clone())).collect();
            let settled = load_vms_all(&inputs, index.as_ref(), &needs)
                .into_iter()
                .zip(ready)
                .map(|(result, (cloud, input, kind))| Settled {
                    cloud,
                    result: Some(result),
                    origin: Some(origin(&vms_file(cloud), Some(cloud), kind, &input, now)),
                    input: Some(input),
                    problem: None,
                    unusable: None,
                })
                .collect::<Vec<_>>();
            let az_mappings = settled
                .iter()
                .find(|s| s.cloud == CloudId::Aws && matches!(s.result, Some(Ok(_))))
                .and_then(|s| s.input.as_ref())
                .map(|aws| {
                    let _span = tracing::info_span!("az_mappings").entered();
                    (aws.clone(), load_az_mappings(aws))
                });
            Loaded {
                settled,
                common,
                az_mappings,
            }
        })
    };

    // The downloads, each as soon as it is wanted.
    let folder = mode.shared().cloned();
    let mut tasks = tokio::task::JoinSet::new();
    for (cloud, job) in fetches {
        let Some(folder) = folder.clone() else {
            continue;
        };
        let need = needs.remove(&cloud).unwrap_or(Need::Now);
        let client = client.clone();
        let options = options.clone();
        let index = index.clone();
        let open_index = open_index.clone();
        let span = tracing::info_span!("catalog_download", file = %job.file);
        tasks.spawn(tracing::Instrument::instrument(
            async move {
                if !need.wanted().await {
                    return None;
                }
                let deadline =
                    (tokio::time::Instant::now() + deadlines.per_file).min(deadlines.global);
                let path = folder.path(&job.file);
                let fetched = match client.get() {
                    Ok(http) => {
                        download::fetch(
                            &http,
                            &options.download,
                            &folder,
                            &job,
                            deadline,
                            &options.clock,
                            check_vms(cloud, path.display().to_string()),
                        )
                        .await
                    }
                    Err(error) => Fetched::Failed {
                        error,
                        stale: std::fs::metadata(&path).ok(),
                    },
                };
                let (input, kind, problem, value) = after_fetch(fetched, &path, has_bundled(cloud));
                let now = options.clock.now();
                let settled = tokio::task::spawn_blocking(move || {
                    let index = open_index(&index);
                    let Some(input) = input else {
                        return Settled {
                            cloud,
                            result: None,
                            origin: None,
                            input: None,
                            unusable: Some(format!(
                                "no catalog: the download failed ({}) and sky has no bundled copy",
                                problem.as_deref().unwrap_or("unknown error")
                            )),
                            problem: None,
                        };
                    };
                    let result = match (value, &input) {
                        (
                            Some((catalog, warnings)),
                            Input::File {
                                path,
                                meta: Some(meta),
                            },
                        ) => {
                            if let Some(index) = &index {
                                store_downloaded_image(index, path, meta, &catalog, &warnings);
                            }
                            Ok((catalog, warnings))
                        }
                        (Some(parsed), _) => Ok(parsed),
                        (None, input) => load_vms(cloud, input, index.as_ref()),
                    };
                    Settled {
                        cloud,
                        result: Some(result),
                        origin: kind.map(|k| origin(&job.file, Some(cloud), k, &input, now)),
                        input: Some(input),
                        problem,
                        unusable: None,
                    }
                })
                .await;
                settled.ok()
            },
            span,
        ));
    }

    // The `common/` tables: small, wanted whenever a catalog cloud is.
    let mut common: Vec<CommonFile> = Vec::new();
    let mut common_fetches = Vec::new();
    for (file, slot) in [(ACCELERATORS_FILE, accelerators), (METADATA_FILE, metadata)] {
        match slot {
            Slot::Ready(input, kind) => {
                let o = origin(file, None, kind, &input, now);
                common.push((file, Some(input), Some(o), None));
            }
            Slot::Absent => common.push((file, None, None, None)),
            Slot::Fetch(job) => {
                let Some(folder) = folder.clone() else {
                    continue;
                };
                let client = client.clone();
                let options = options.clone();
                common_fetches.push(async move {
                    let deadline =
                        (tokio::time::Instant::now() + deadlines.per_file).min(deadlines.global);
                    let path = folder.path(&job.file);
                    let fetched = match client.get() {
                        Ok(http) => {
                            download::fetch(
                                &http,
                                &options.download,
                                &folder,
                                &job,
                                deadline,
                                &options.clock,
                                check_common(file),
                            )
                            .await
                        }
                        Err(error) => Fetched::Failed {
                            error,
                            stale: std::fs::metadata(&path).ok(),
                        },
                    };
                    let (input, kind, problem, _) = after_fetch(fetched, &path, true);
                    let o = match (&input, kind) {
                        (Some(i), Some(k)) => Some(origin(file, None, k, i, options.clock.now())),
                        _ => None,
                    };
                    (file, input, o, problem)
                });
            }
        }
    }
    common.extend(futures::future::join_all(common_fetches).await);

    let Loaded {
        settled: mut all,
        common: common_tables,
        az_mappings: loader_az_mappings,
    } = loader.await.map_err(|e| ConfigError::Io {
        path: PathBuf::from("<catalog loader>"),
        source: std::io::Error::other(e.to_string()),
    })?;
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(Some(s)) => all.push(s),
            Ok(None) => {}
            Err(e) => tracing::warn!(error = %e, "catalog download task failed"),
        }
    }
    all.extend(settled);
    // Declared order, whatever finished first.
    all.sort_by_key(|s| s.cloud);

    let mut loaded = LoadedCatalog {
        catalog: planner::catalog::Catalog::new(),
        warnings: Vec::new(),
        az_mappings: Vec::new(),
        missing_local: Vec::new(),
    };
    let mut origins = Vec::new();
    let mut problems = Vec::new();
    let mut unusable = Vec::new();
    let mut aws_input = None;
    for s in all {
        let Some(result) = s.result else {
            let reason = s.unusable.unwrap_or_else(|| "no catalog".to_string());
            unusable.push((s.cloud, reason));
            continue;
        };
        let (catalog, warnings) = result?;
        loaded.catalog.insert(catalog);
        loaded.warnings.extend(warnings);
        if let Some(p) = s.problem {
            problems.push((vms_file(s.cloud), p));
        }
        if s.cloud == CloudId::Aws {
            aws_input = s.input;
        }
        origins.extend(s.origin);
    }
    match common_tables {
        Some(tables) => {
            let tables = tables?;
            loaded.catalog.accelerators = tables.accelerators;
            loaded.catalog.gpu_metadata = tables.gpu_metadata;
        }
        None => {
            let acc = common.iter().find(|c| c.0 == ACCELERATORS_FILE);
            let meta = common.iter().find(|c| c.0 == METADATA_FILE);
            load_common(
                &mut loaded.catalog,
                acc.and_then(|c| c.1.as_ref()),
                meta.and_then(|c| c.1.as_ref()),
            )?;
        }
    }
    for (file, _, o, problem) in common {
        origins.extend(o);
        if let Some(p) = problem {
            problems.push((file.to_string(), p));
        }
    }
    if let Some(aws) = &aws_input {
        // The loader read the mappings beside the AWS file it loaded; an
        // AWS catalog that came from a download has them read now.
        loaded.az_mappings = match loader_az_mappings {
            Some((input, mappings)) if same_input(&input, aws) => mappings?,
            _ => load_az_mappings(aws)?,
        };
    }
    Ok(Gathered {
        loaded,
        origins,
        problems,
        unusable,
        aws_input,
        elapsed: started.elapsed(),
    })
}

/// `sky catalog refresh`: downloads `clouds`' `vms.csv` (and the `common/`
/// tables) into SkyPilot's folder now, whatever their pull period, each
/// within `timeout`, concurrently. A file edited by hand is still kept.
pub async fn refresh(
    folder: &Folder,
    clouds: &[CloudId],
    options: &CatalogOptions,
    state_dir: &Path,
    timeout: Duration,
) -> Vec<(String, planner::launch::Refreshed)> {
    use planner::launch::Refreshed;
    let client = LazyClient {
        cell: Arc::new(OnceLock::new()),
        options: options.download.clone(),
    };
    let index = StateDir::open(state_dir)
        .and_then(|s| CatalogIndex::open(&s))
        .ok();
    let deadline = tokio::time::Instant::now() + timeout;
    let mut files: Vec<(String, Option<CloudId>)> =
        clouds.iter().map(|c| (vms_file(*c), Some(*c))).collect();
    files.push((ACCELERATORS_FILE.to_string(), None));
    files.push((METADATA_FILE.to_string(), None));
    let work = files.into_iter().map(|(file, cloud)| {
        let client = client.clone();
        let index = index.clone();
        async move {
            let pull = pull_of(cloud);
            if !pull.is_hosted() {
                return (file, Refreshed::NotHosted);
            }
            let http = match client.get() {
                Ok(http) => http,
                Err(e) => return (file, Refreshed::Failed(e)),
            };
            let job = Job {
                file: file.clone(),
                pull,
                force: true,
            };
            let path = folder.path(&file);
            let result = match cloud {
                Some(cloud) => {
                    let fetched = download::fetch(
                        &http,
                        &options.download,
                        folder,
                        &job,
                        deadline,
                        &options.clock,
                        check_vms(cloud, path.display().to_string()),
                    )
                    .await;
                    if let (Fetched::Downloaded { value, meta, .. }, Some(index)) =
                        (&fetched, &index)
                    {
                        store_downloaded_image(index, &path, meta, &value.0, &value.1);
                    }
                    refreshed(fetched)
                }
                None => {
                    let file: &'static str = if file == ACCELERATORS_FILE {
                        ACCELERATORS_FILE
                    } else {
                        METADATA_FILE
                    };
                    refreshed(
                        download::fetch(
                            &http,
                            &options.download,
                            folder,
                            &job,
                            deadline,
                            &options.clock,
                            check_common(file),
                        )
                        .await,
                    )
                }
            };
            (file, result)
        }
    });
    futures::future::join_all(work).await
}

fn refreshed<T>(fetched: Fetched<T>) -> planner::launch::Refreshed {
    use planner::launch::Refreshed;
    match fetched {
        Fetched::Downloaded { url, bytes, .. } => Refreshed::Downloaded { bytes, url },
        Fetched::NotModified { .. } => Refreshed::NotModified,
        // Forced: `Current` means another process refreshed it meanwhile.
        Fetched::Current { .. } => Refreshed::NotModified,
        Fetched::Edited { .. } => Refreshed::Edited,
        Fetched::Failed { error, .. } => Refreshed::Failed(error),
    }
}
