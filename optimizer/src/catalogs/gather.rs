//! A launch's catalogs, per file, beside the cloud checks ([`gather`]):
//! the files at hand load ([`load_at_hand`]: on the calling thread when
//! every image is current, else on one blocking thread) while
//! the files due are downloaded ([`super::fetch`]), each once its cloud is
//! known to be usable ([`super::signal`]) and under its own deadline. A
//! failed refresh keeps the old file; with no file at all the bundled copy
//! is used (the assembly warns that its prices are examples); with no
//! bundled copy either, the cloud has no catalog.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use futures::future::Either;
use planner::assemble::{FoundCatalogs, NoCatalog};
use planner::catalog::image::WithoutGpuInfo;
use planner::catalog::selection::{CatalogNeeds, RowMatcher};
use planner::catalog::{AzMapping, Catalog, GpuMetadata};
use planner::cloud::CloudId;
use planner::launch::{CatalogKind, CatalogOrigin, CatalogSource, ParsedTask};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tracing::Instrument;

use super::download::Job;
use super::fetch::{
    Deadlines, Download, Downloader, Vms, check_common, check_vms, keep_all, keep_vms,
};
use super::folder;
use super::plan::{CatalogOptions, Mode, Plan, Slot, pull_of};
use super::signal::Need;
use super::{
    ACCELERATORS_FILE, Decoded, Input, METADATA_FILE, VmsResult, has_bundled, load_az_mappings,
    load_common, load_vms_all, load_vms_images, vms_file,
};
use crate::config::ConfigError;
use crate::state::{CatalogIndex, StateDir};

/// Reads the request ahead of the catalogs, given the GPU metadata of
/// `common/metadata.csv` (memory-based GPU requests expand through it): the
/// parse says which rows of each `vms.csv` to decode, and is kept for the
/// plan.
pub type ReadAhead = Box<dyn FnOnce(&[GpuMetadata]) -> ParsedTask + Send>;

/// What the catalogs of a launch came to.
#[derive(Debug)]
pub struct Gathered {
    /// The catalogs, and where each file came from.
    pub found: FoundCatalogs,
    /// The AWS `vms.csv` used, if any: its zone mappings live beside it.
    pub aws_input: Option<Input>,
    /// The request read ahead, when the `common/` tables were at hand.
    pub parsed: Option<ParsedTask>,
}

/// The rows each cloud's `vms.csv` must keep, once the request is read
/// ahead (`None` until then; the sender dropped unsent: every row). The
/// loader sends it when the `common/` tables were at hand, else
/// [`read_after_download`] once they are downloaded; the downloaded
/// `vms.csv` wait for it before decoding their rows.
type NeedsTx = watch::Sender<Option<Arc<CatalogNeeds>>>;
/// See [`NeedsTx`].
type NeedsRx = watch::Receiver<Option<Arc<CatalogNeeds>>>;

/// The zone mapping files beside an AWS catalog, newest first.
type AzMappings = Result<Vec<(String, AzMapping)>, ConfigError>;

/// One `vms.csv`, settled.
// One per cloud, moved once: boxing the large variant would buy nothing.
#[allow(clippy::large_enum_variant)]
enum Settled {
    /// Read (or failed to read: an error of the launch).
    Loaded {
        cloud: CloudId,
        result: VmsResult,
        origin: CatalogOrigin,
        input: Input,
        /// Why its download failed, when an old or bundled copy stands in.
        problem: Option<String>,
    },
    /// No catalog at all.
    Unusable { cloud: CloudId, why: NoCatalog },
}

impl Settled {
    fn cloud(&self) -> CloudId {
        match self {
            Settled::Loaded { cloud, .. } | Settled::Unusable { cloud, .. } => *cloud,
        }
    }
}

/// The catalog index, opened once by whichever thread needs it first;
/// without a usable state folder every launch parses the CSVs.
#[derive(Clone)]
struct LazyIndex {
    dir: Arc<PathBuf>,
    cell: Arc<OnceLock<Option<CatalogIndex>>>,
}

impl LazyIndex {
    fn open(&self) -> Option<CatalogIndex> {
        self.cell
            .get_or_init(|| {
                StateDir::open(self.dir.as_path())
                    .and_then(|s| CatalogIndex::open(&s))
                    .inspect_err(|e| tracing::debug!(error = %e, "catalog images disabled"))
                    .ok()
            })
            .clone()
    }
}

/// Where one file came from and how old it is.
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

/// Loads what `plan` says, downloading where it says so and `needs` wants.
/// Runs beside the fan-out; every download is bounded by `deadlines`.
///
/// The files at hand load in one go: the `common/` tables first, then
/// `read_ahead` (given the GPU metadata) says which rows of each `vms.csv`
/// to decode, then the `vms.csv` images, any `vms.csv` without a current
/// image parsed, and the AWS zone mappings. When nothing is due for
/// download, the loading starts on the calling thread once the checks have
/// had their first turn (their requests are out): with every image current
/// (a warm launch) it is well under a millisecond, less than a thread
/// costs to start (its stack, its malloc arena, ~30 system calls). Only a
/// parse (tens of milliseconds) moves to a blocking thread, so the checks
/// go on meanwhile; with files due for download, all of it does. Files
/// that must be downloaded first are checked whole, then decoded for the
/// request's rows like the others (read ahead once the `common/` tables
/// are downloaded, when they had to be).
pub async fn gather(
    plan: Plan,
    needs: HashMap<CloudId, Need>,
    read_ahead: ReadAhead,
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
    let downloader = mode
        .shared()
        .map(|f| Downloader::new(f.clone(), &options, deadlines, &state_dir));
    let index = LazyIndex {
        dir: Arc::new(state_dir),
        cell: Arc::new(OnceLock::new()),
    };
    let split = Split::of(vms, &mode);
    let (needs_to, needs_rx) = watch::channel(None);
    // The `common/` tables, when both are at hand, load with the rest and
    // the loader reads the request ahead; else that waits for their download.
    let common_at_hand = common_inputs(&accelerators, &metadata);
    let here = common_at_hand.is_some() && split.fetches.is_empty();
    let (read_ahead, later) = if common_at_hand.is_some() {
        (Some((read_ahead, needs_to)), None)
    } else {
        (None, Some((read_ahead, needs_to)))
    };
    let at_hand = AtHand {
        ready: split.ready,
        common: common_at_hand,
        read_ahead,
        index: index.clone(),
        now,
    };
    let loader = if here {
        tokio::task::yield_now().await;
        let decoded = decode_at_hand(at_hand);
        if decoded.images.has_misses() {
            Either::Right(tokio::task::spawn_blocking(move || finish_at_hand(decoded)))
        } else {
            Either::Left(std::future::ready(Ok(finish_at_hand(decoded))))
        }
    } else {
        Either::Right(tokio::task::spawn_blocking(move || {
            finish_at_hand(decode_at_hand(at_hand))
        }))
    };
    // Slots to fetch exist only in SkyPilot's folder.
    let mut downloads =
        spawn_downloads(downloader.as_ref(), split.fetches, needs, &index, needs_rx);
    let common = common_files(
        downloader.as_ref(),
        [(ACCELERATORS_FILE, accelerators), (METADATA_FILE, metadata)],
        now,
    )
    .await;
    let later = match later {
        Some((read_ahead, needs_to)) => read_after_download(&common, read_ahead, needs_to).await,
        None => None,
    };
    let (later_tables, later_parsed) = later.unzip();
    let loaded = loader.await.map_err(|e| ConfigError::Io {
        path: PathBuf::from("<catalog loader>"),
        source: std::io::Error::other(e.to_string()),
    })?;
    let mut settled = loaded.settled;
    while let Some(joined) = downloads.join_next().await {
        match joined {
            Ok(s) => settled.extend(s),
            Err(e) => tracing::warn!(error = %e, "catalog download task failed"),
        }
    }
    settled.extend(split.absent);
    // Declared order, whatever finished first.
    settled.sort_by_key(Settled::cloud);
    let mut found = found_catalogs(mode.source());
    let aws_input = collect(
        &mut found,
        settled,
        common,
        loaded.common.or(later_tables),
        loaded.az_mappings,
    )?;
    found.elapsed = started.elapsed();
    Ok(Gathered {
        found,
        aws_input,
        parsed: loaded.parsed.or(later_parsed.flatten()),
    })
}

/// The `vms.csv` slots by what happens to them.
struct Split {
    /// Read now, by the loader.
    ready: Vec<(CloudId, Input, CatalogKind)>,
    /// Downloaded first.
    fetches: Vec<(CloudId, Job)>,
    /// Nothing to read.
    absent: Vec<Settled>,
}

impl Split {
    fn of(vms: Vec<(CloudId, Slot)>, mode: &Mode) -> Split {
        let mut split = Split {
            ready: Vec::new(),
            fetches: Vec::new(),
            absent: Vec::new(),
        };
        for (cloud, slot) in vms {
            match slot {
                Slot::Ready(input, kind) => split.ready.push((cloud, input, kind)),
                Slot::Fetch(job) => split.fetches.push((cloud, job)),
                Slot::Absent => split.absent.push(Settled::Unusable {
                    cloud,
                    why: match mode {
                        Mode::Explicit(dir) => NoCatalog::NotInFolder(dir.join(vms_file(cloud))),
                        _ => NoCatalog::NoBundledCopy,
                    },
                }),
            }
        }
        split
    }
}

/// The `common/` tables' inputs, when neither must be downloaded first.
fn common_inputs(accelerators: &Slot, metadata: &Slot) -> Option<CommonInputs> {
    let input = |slot: &Slot| match slot {
        Slot::Ready(input, _) => Some(input.clone()),
        _ => None,
    };
    let at_hand = |slot: &Slot| !matches!(slot, Slot::Fetch(_));
    (at_hand(accelerators) && at_hand(metadata)).then(|| CommonInputs {
        accelerators: input(accelerators),
        metadata: input(metadata),
    })
}

/// Where the `common/` tables are read from (`None`: absent).
struct CommonInputs {
    accelerators: Option<Input>,
    metadata: Option<Input>,
}

/// What the loader reads.
struct AtHand {
    ready: Vec<(CloudId, Input, CatalogKind)>,
    common: Option<CommonInputs>,
    /// With the `common/` tables: the request to read ahead, and where its
    /// rows go to the downloads.
    read_ahead: Option<(ReadAhead, NeedsTx)>,
    index: LazyIndex,
    now: SystemTime,
}

/// What the loader read.
struct Loaded {
    settled: Vec<Settled>,
    /// The `common/` tables, when both were at hand.
    common: Option<Result<Catalog, ConfigError>>,
    /// The AWS zone mappings beside the AWS input it loaded.
    az_mappings: Option<(Input, AzMappings)>,
    /// The request, read ahead with the tables' GPU metadata.
    parsed: Option<ParsedTask>,
}

/// The loader's first half (on the calling thread unless downloads are
/// due, see [`gather`]): the `common/` tables, the request read ahead, and
/// the rows of each `vms.csv` image it can match; what has no current
/// image is left to [`finish_at_hand`].
fn decode_at_hand(job: AtHand) -> Decoding {
    let _span = tracing::info_span!("catalog_load").entered();
    let AtHand {
        ready,
        common,
        read_ahead,
        index,
        now,
    } = job;
    let (common, parsed, needs_to) = match (common, read_ahead) {
        (Some(inputs), Some((read_ahead, needs_to))) => {
            let mut tables = Catalog::new();
            let loaded = tracing::info_span!("common_tables").in_scope(|| {
                load_common(
                    &mut tables,
                    inputs.accelerators.as_ref(),
                    inputs.metadata.as_ref(),
                )
            });
            let parsed = loaded.is_ok().then(|| read_ahead(&tables.gpu_metadata));
            (Some(loaded.map(|()| tables)), parsed, Some(needs_to))
        }
        _ => (None, None, None),
    };
    let tables = common.as_ref().and_then(|c| c.as_ref().ok());
    let needs = match (&parsed, tables) {
        (Some(p), Some(t)) => p.catalog_needs_given(&CloudId::ALL, &t.accelerators),
        _ => CatalogNeeds::all(),
    };
    if let (Some(_), Some(needs_to)) = (&parsed, needs_to) {
        needs_to.send_replace(Some(Arc::new(needs.clone())));
    }
    let index = index.open();
    let inputs: Vec<(CloudId, Input)> = ready.iter().map(|(c, i, _)| (*c, i.clone())).collect();
    let images = load_vms_images(&inputs, index.as_ref(), |cloud| launch_runs(&needs, cloud));
    Decoding {
        images,
        needs,
        inputs,
        ready,
        index,
        common,
        parsed,
        now,
    }
}

/// The row runs a launch decodes of `cloud`'s image: those `needs` selects,
/// without their `GpuInfo` cells (only `sky gpus list` reads them).
fn launch_runs(needs: &CatalogNeeds, cloud: CloudId) -> WithoutGpuInfo<RowMatcher> {
    WithoutGpuInfo(needs.for_cloud(cloud).matcher())
}

/// What [`decode_at_hand`] has done, for [`finish_at_hand`].
struct Decoding {
    images: Decoded,
    /// The rows the request reads: a miss parsed into its image is decoded
    /// for them, as the current images were.
    needs: CatalogNeeds,
    inputs: Vec<(CloudId, Input)>,
    ready: Vec<(CloudId, Input, CatalogKind)>,
    index: Option<CatalogIndex>,
    common: Option<Result<Catalog, ConfigError>>,
    parsed: Option<ParsedTask>,
    now: SystemTime,
}

/// The loader's second half: each `vms.csv` without a current image
/// parsed (on a blocking thread when there is one, see [`gather`]), then
/// the AWS zone mappings.
fn finish_at_hand(decoding: Decoding) -> Loaded {
    let _span = tracing::info_span!("catalog_load").entered();
    let Decoding {
        images,
        needs,
        inputs,
        ready,
        index,
        common,
        parsed,
        now,
    } = decoding;
    let settled: Vec<Settled> = images
        .parse_misses(&inputs, index.as_ref(), |cloud| launch_runs(&needs, cloud))
        .into_iter()
        .zip(ready)
        .map(|(result, (cloud, input, kind))| Settled::Loaded {
            cloud,
            result,
            origin: origin(&vms_file(cloud), Some(cloud), kind, &input, now),
            input,
            problem: None,
        })
        .collect();
    let az_mappings = settled.iter().find_map(|s| match s {
        Settled::Loaded {
            cloud: CloudId::Aws,
            result: Ok(_),
            input,
            ..
        } => {
            let _span = tracing::info_span!("az_mappings").entered();
            Some((input.clone(), load_az_mappings(input)))
        }
        _ => None,
    });
    Loaded {
        settled,
        common,
        az_mappings,
        parsed,
    }
}

/// The `vms.csv` downloads, each started as soon as it is wanted; each
/// keeps the rows `rows` will say the request needs.
fn spawn_downloads(
    downloader: Option<&Downloader>,
    fetches: Vec<(CloudId, Job)>,
    mut needs: HashMap<CloudId, Need>,
    index: &LazyIndex,
    rows: NeedsRx,
) -> JoinSet<Option<Settled>> {
    let mut tasks = JoinSet::new();
    let Some(downloader) = downloader else {
        return tasks;
    };
    for (cloud, job) in fetches {
        let need = needs.remove(&cloud).unwrap_or(Need::Now);
        let span = tracing::info_span!("catalog_download", file = %job.file);
        let download = download_vms(
            downloader.clone(),
            cloud,
            job,
            (need, rows.clone()),
            index.clone(),
        );
        tasks.spawn(download.instrument(span));
    }
    tasks
}

/// One cloud's `vms.csv`: downloaded once wanted (`None`: not wanted) —
/// checked whole, its image stored and its rows dropped within the
/// download's turn, so that no two bodies' rows are held at once — then,
/// once the request is read ahead (`rows`), the rows it needs decoded from
/// that image on a blocking thread.
async fn download_vms(
    downloader: Downloader,
    cloud: CloudId,
    job: Job,
    (need, mut rows): (Need, NeedsRx),
    index: LazyIndex,
) -> Option<Settled> {
    if !need.wanted().await {
        return None;
    }
    let name = downloader.folder().path(&job.file).display().to_string();
    let keep = {
        let index = index.clone();
        keep_vms(move || index.open())
    };
    let got = downloader
        .file(&job, (check_vms(cloud, name), keep), has_bundled(cloud))
        .await;
    let now = downloader.options().clock.now();
    let (input, kind, parsed, problem) = match got {
        Download::Nothing(problem) => {
            let why = NoCatalog::DownloadFailed(problem);
            return Some(Settled::Unusable { cloud, why });
        }
        Download::Use {
            input,
            kind,
            parsed,
            problem,
        } => (input, kind, parsed, problem),
    };
    let origin = origin(&job.file, Some(cloud), kind, &input, now);
    // Every row when the request is not read ahead (its sender dropped).
    let needs = match rows.wait_for(Option::is_some).await {
        Ok(needs) => needs.clone(),
        Err(_) => None,
    };
    let read = move || {
        let needs = needs.unwrap_or_default();
        let result = read_downloaded(cloud, &input, parsed.flatten(), &index, &needs);
        Settled::Loaded {
            cloud,
            result,
            origin,
            input,
            problem,
        }
    };
    tokio::task::spawn_blocking(read).await.ok()
}

/// A downloaded `vms.csv` as the check parsed it, when its image could not
/// be stored; else the rows `needs` selects of the file to read (the new
/// copy or the one that stands in), from its image or parsed, as the
/// loader reads the files at hand.
fn read_downloaded(
    cloud: CloudId,
    input: &Input,
    parsed: Option<Vms>,
    index: &LazyIndex,
    needs: &CatalogNeeds,
) -> VmsResult {
    if let Some(parsed) = parsed {
        return Ok(parsed);
    }
    let index = index.open();
    let vms = [(cloud, input.clone())];
    load_vms_all(&vms, index.as_ref(), needs)
        .pop()
        .unwrap_or_else(|| {
            Err(ConfigError::Io {
                path: PathBuf::from(vms_file(cloud)),
                source: std::io::Error::other("the catalog was not read"),
            })
        })
}

/// The `common/` tables once downloaded (or their stand-ins), and the
/// request read ahead with their GPU metadata, its rows sent to the
/// downloads (`needs_to`); a table that cannot be read is the collection's
/// error (nothing is sent: every row), and `None` means the reading thread
/// failed.
async fn read_after_download(
    common: &[CommonFile],
    read_ahead: ReadAhead,
    needs_to: NeedsTx,
) -> Option<(Result<Catalog, ConfigError>, Option<ParsedTask>)> {
    let input = |name: &str| {
        let file = common.iter().find(|c| c.file == name)?;
        file.read.as_ref().map(|(input, _)| input.clone())
    };
    let (accelerators, metadata) = (input(ACCELERATORS_FILE), input(METADATA_FILE));
    let read = move || {
        let _span = tracing::info_span!("common_tables").entered();
        let mut tables = Catalog::new();
        let loaded = load_common(&mut tables, accelerators.as_ref(), metadata.as_ref());
        let parsed = loaded.is_ok().then(|| read_ahead(&tables.gpu_metadata));
        if let Some(parsed) = &parsed {
            let needs = parsed.catalog_needs_given(&CloudId::ALL, &tables.accelerators);
            needs_to.send_replace(Some(Arc::new(needs)));
        }
        (loaded.map(|()| tables), parsed)
    };
    tokio::task::spawn_blocking(read).await.ok()
}

/// One `common/` table: where to read it and where it came from (`None`:
/// absent), and what went wrong with its download.
struct CommonFile {
    file: &'static str,
    read: Option<(Input, CatalogOrigin)>,
    problem: Option<String>,
}

/// The `common/` tables: small, wanted whenever a catalog cloud is, so
/// downloaded at once when due.
async fn common_files(
    downloader: Option<&Downloader>,
    slots: [(&'static str, Slot); 2],
    now: SystemTime,
) -> Vec<CommonFile> {
    let mut files = Vec::new();
    let mut fetches = Vec::new();
    for (file, slot) in slots {
        match slot {
            Slot::Ready(input, kind) => files.push(CommonFile {
                file,
                read: Some((input.clone(), origin(file, None, kind, &input, now))),
                problem: None,
            }),
            Slot::Absent => files.push(CommonFile {
                file,
                read: None,
                problem: None,
            }),
            Slot::Fetch(job) => {
                if let Some(d) = downloader {
                    fetches.push(download_common(d, file, job));
                }
            }
        }
    }
    files.extend(futures::future::join_all(fetches).await);
    files
}

/// One `common/` table brought up to date (the bundled copy stands in).
async fn download_common(downloader: &Downloader, file: &'static str, job: Job) -> CommonFile {
    match downloader
        .file(&job, (check_common(file), keep_all), true)
        .await
    {
        Download::Use {
            input,
            kind,
            problem,
            ..
        } => {
            let now = downloader.options().clock.now();
            let origin = origin(file, None, kind, &input, now);
            CommonFile {
                file,
                read: Some((input, origin)),
                problem,
            }
        }
        Download::Nothing(problem) => CommonFile {
            file,
            read: None,
            problem: Some(problem),
        },
    }
}

/// Nothing found yet, from `source`.
fn found_catalogs(source: CatalogSource) -> FoundCatalogs {
    FoundCatalogs {
        source,
        catalog: Catalog::new(),
        skipped_rows: Vec::new(),
        origins: Vec::new(),
        problems: Vec::new(),
        unusable: Vec::new(),
        missing_local: Vec::new(),
        az_mappings: Vec::new(),
        az_mapping_error: None,
        elapsed: Duration::ZERO,
    }
}

/// Everything settled, into `found`: the catalogs in cloud order, then the
/// `common/` tables and the AWS zone mappings. Returns the AWS input.
fn collect(
    found: &mut FoundCatalogs,
    settled: Vec<Settled>,
    common: Vec<CommonFile>,
    tables: Option<Result<Catalog, ConfigError>>,
    loader_az_mappings: Option<(Input, AzMappings)>,
) -> Result<Option<Input>, ConfigError> {
    let mut aws_input = None;
    for s in settled {
        let (cloud, result, origin, input, problem) = match s {
            Settled::Unusable { cloud, why } => {
                found.unusable.push((cloud, why));
                continue;
            }
            Settled::Loaded {
                cloud,
                result,
                origin,
                input,
                problem,
            } => (cloud, result, origin, input, problem),
        };
        let (catalog, warnings) = result?;
        found.catalog.insert(catalog);
        found.skipped_rows.extend(warnings);
        found.problems.extend(problem.map(|p| (vms_file(cloud), p)));
        if cloud == CloudId::Aws {
            aws_input = Some(input);
        }
        found.origins.push(origin);
    }
    match tables {
        Some(tables) => {
            let tables = tables?;
            found.catalog.accelerators = tables.accelerators;
            found.catalog.gpu_metadata = tables.gpu_metadata;
        }
        None => {
            let input = |name: &str| {
                let file = common.iter().find(|c| c.file == name)?;
                file.read.as_ref().map(|(input, _)| input)
            };
            load_common(
                &mut found.catalog,
                input(ACCELERATORS_FILE),
                input(METADATA_FILE),
            )?;
        }
    }
    for c in common {
        found.origins.extend(c.read.map(|(_, origin)| origin));
        found
            .problems
            .extend(c.problem.map(|p| (c.file.to_string(), p)));
    }
    if let Some(aws) = &aws_input {
        // The loader read the mappings beside the AWS file it loaded; an
        // AWS catalog that came from a download has them read now.
        found.az_mappings = match loader_az_mappings {
            Some((input, mappings)) if same_input(&input, aws) => mappings?,
            _ => load_az_mappings(aws)?,
        };
    }
    Ok(aws_input)
}

/// Whether two inputs name the same file (or both the bundled copy).
fn same_input(a: &Input, b: &Input) -> bool {
    match (a, b) {
        (Input::Bundled, Input::Bundled) => true,
        (Input::File { path: a, .. }, Input::File { path: b, .. }) => a == b,
        _ => false,
    }
}
