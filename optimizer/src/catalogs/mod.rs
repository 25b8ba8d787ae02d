//! Catalogs from where the user keeps them: which file each cloud reads
//! ([`plan`]: SkyPilot's folder, downloaded and refreshed as SkyPilot does;
//! an explicit folder; or the example catalogs built into the binary,
//! [`bundled`]), loading each cloud's `vms.csv` (from its pre-indexed image
//! when the input is unchanged, else parsing it and storing one), the
//! `common/` tables and the AWS zone mappings. A launch's catalogs come
//! through [`gather`] (downloads: [`fetch`], started per [`signal`]).

pub(crate) mod bundled;
mod download;
mod fetch;
mod folder;
mod gather;
mod image_tags;
mod pack;
mod plan;
mod pool;
mod signal;

pub use download::{
    DownloadOptions, HOSTED_CATALOG_DIR_URL, HOSTED_CATALOG_DIR_URL_S3_MIRROR, MAX_CATALOG_BYTES,
};
pub(crate) use fetch::{Deadlines, refresh};
pub(crate) use folder::default_folder;
pub(crate) use gather::{Gathered, ReadAhead, gather};
pub(crate) use image_tags::load_image_tags;
pub use plan::CatalogOptions;
pub(crate) use plan::{Mode, Plan, load_named};
pub(crate) use signal::{Need, signal_need};

use std::path::{Path, PathBuf};

use planner::assemble::FoundCatalogs;
use planner::catalog::image::RunFilter;
use planner::catalog::selection::{CatalogNeeds, RowSelection};
use planner::catalog::{
    AcceleratorTable, AzMapping, Catalog, CatalogError, CatalogWarning, CloudCatalog,
    CsvImageParse, CsvParse, parse_gpu_metadata,
};
use planner::cloud::CloudId;
use planner::launch::CatalogSource;

use crate::config::ConfigError;
use crate::state::CatalogIndex;
use pack::BundledPack;

/// A loaded catalog and what was skipped.
#[derive(Debug, Clone)]
pub struct LoadedCatalog {
    /// Catalogs of the requested clouds (AWS still keyed by zone IDs).
    pub catalog: Catalog,
    /// Malformed rows that were skipped.
    pub warnings: Vec<CatalogWarning>,
    /// Mapping files available for AWS (`az_mappings-<hash>.csv`), newest first.
    pub az_mappings: Vec<(String, AzMapping)>,
    /// Clouds whose locally built catalog ([`CloudId::local_catalog`]) was
    /// looked for and is absent, with the path looked at (a launch's
    /// catalogs read them: this is always empty).
    pub missing_local: Vec<(CloudId, PathBuf)>,
}

fn io_error(path: &Path, e: std::io::Error) -> ConfigError {
    if e.kind() == std::io::ErrorKind::NotFound {
        ConfigError::MissingCatalog {
            path: path.to_path_buf(),
        }
    } else {
        ConfigError::Io {
            path: path.to_path_buf(),
            source: e,
        }
    }
}

/// A catalog file: regular, at most [`MAX_CATALOG_FILE_BYTES`] (a FIFO or a
/// device is refused instead of blocking or being read forever).
fn read_file(path: &Path) -> Result<Vec<u8>, ConfigError> {
    use crate::input::{InputError, MAX_CATALOG_FILE_BYTES, read_regular};
    read_regular(path, MAX_CATALOG_FILE_BYTES).map_err(|e| match e {
        InputError::Io { source, .. } => io_error(path, source),
        other => io_error(path, std::io::Error::other(other.cause())),
    })
}

/// An optional catalog file: absent or unusable is empty.
fn read_optional_file(path: &Path) -> Vec<u8> {
    crate::input::read_regular(path, crate::input::MAX_CATALOG_FILE_BYTES).unwrap_or_default()
}

/// Where one catalog file's bytes come from.
#[derive(Debug, Clone)]
pub(crate) enum Input {
    /// The copy built into the binary.
    Bundled,
    /// A file; `meta` is its `stat` when the caller already has it.
    File {
        /// The file.
        path: PathBuf,
        /// Its metadata, if already known.
        meta: Option<std::fs::Metadata>,
    },
}

/// Loads the catalogs of `clouds` (Kubernetes needs none) plus `common/*`,
/// parsing every CSV. See [`load_catalog_indexed`] for the launch path.
pub fn load_catalog(
    source: &CatalogSource,
    clouds: &[CloudId],
) -> Result<LoadedCatalog, ConfigError> {
    load_catalog_indexed(source, clouds, None)
}

/// Loads the catalogs of `clouds` plus `common/*` from one source, using
/// pre-indexed images from `index` where one matches the input, and writing
/// one where none does.
///
/// A CSV is matched by the bundled catalogs' build fingerprint, or by its
/// path, size, modification and change times and inode; any change is a new
/// image. An unreadable or stale image is ignored (the CSV is parsed), and
/// failing to write one only costs the next launch a parse. The per-cloud
/// loads run on scoped threads: they are CPU-bound and independent. From a
/// folder, a missing `vms.csv` is an error and missing `common/` files are
/// skipped; from the bundled catalogs, clouds without one are skipped.
pub fn load_catalog_indexed(
    source: &CatalogSource,
    clouds: &[CloudId],
    index: Option<&CatalogIndex>,
) -> Result<LoadedCatalog, ConfigError> {
    let input = |file: &str| match source {
        CatalogSource::Bundled => Input::Bundled,
        CatalogSource::Dir(dir) => Input::File {
            path: dir.join(file),
            meta: None,
        },
    };
    let vms: Vec<(CloudId, Input)> = clouds
        .iter()
        .copied()
        .filter(|c| {
            c.has_csv_catalog()
                && c.local_catalog().is_none()
                && (*source != CatalogSource::Bundled || bundled::vms_csv(*c).is_some())
        })
        .map(|c| (c, input(&vms_file(c))))
        .collect();
    let mut loaded = LoadedCatalog {
        catalog: Catalog::new(),
        warnings: Vec::new(),
        az_mappings: Vec::new(),
        missing_local: Vec::new(),
    };
    for r in load_vms_all(&vms, index, &CatalogNeeds::all()) {
        let (c, w) = r?;
        loaded.catalog.insert(c);
        loaded.warnings.extend(w);
    }
    load_common(
        &mut loaded.catalog,
        Some(&input(ACCELERATORS_FILE)),
        Some(&input(METADATA_FILE)),
    )?;
    if let Some((_, aws)) = vms.iter().find(|(c, _)| *c == CloudId::Aws) {
        loaded.az_mappings = load_az_mappings(aws)?;
    }
    Ok(loaded)
}

/// `common/accelerators.csv`, relative to a catalog folder.
pub(crate) const ACCELERATORS_FILE: &str = "common/accelerators.csv";
/// `common/metadata.csv`, relative to a catalog folder.
pub(crate) const METADATA_FILE: &str = "common/metadata.csv";

/// `<cloud>/vms.csv`, relative to a catalog folder.
pub(crate) fn vms_file(cloud: CloudId) -> String {
    format!("{}/vms.csv", cloud.name())
}

/// A loaded `vms.csv` and its skipped rows, or why it could not be loaded.
pub(crate) type VmsResult = Result<(CloudCatalog, Vec<CatalogWarning>), ConfigError>;

/// The `vms.csv` of several clouds, each with the rows `needs` selects.
/// Images decode in well under a millisecond, so they load on this thread
/// (no thread is started when every image is current); the CSVs without a
/// current image parse on scoped threads (tens of milliseconds each,
/// independent).
pub(crate) fn load_vms_all(
    vms: &[(CloudId, Input)],
    index: Option<&CatalogIndex>,
    needs: &CatalogNeeds,
) -> Vec<Result<(CloudCatalog, Vec<CatalogWarning>), ConfigError>> {
    load_vms_runs(vms, index, |cloud| needs.for_cloud(cloud).matcher())
}

/// [`load_vms_all`] decoding, of each current image, the row runs `runs`
/// gives for its cloud (`sky gpus list`'s [`planner::gpus::ListingRuns`]);
/// so does a CSV file parsed into the image it stores (with an index);
/// a bundled CSV too; one parsed without an index has every row.
pub(crate) fn load_vms_runs<F: RunFilter>(
    vms: &[(CloudId, Input)],
    index: Option<&CatalogIndex>,
    runs: impl Fn(CloudId) -> F + Sync,
) -> Vec<Result<(CloudCatalog, Vec<CatalogWarning>), ConfigError>> {
    load_vms_images(vms, index, &runs).parse_misses(vms, index, &runs)
}

/// The first half of [`load_vms_all`]: every current image decoded, on
/// this thread; what is left to parse ([`Decoded::parse_misses`]) is known
/// before any parsing starts, so a caller can move that half elsewhere.
pub(crate) fn load_vms_images<F: RunFilter>(
    vms: &[(CloudId, Input)],
    index: Option<&CatalogIndex>,
    runs: impl Fn(CloudId) -> F,
) -> Decoded {
    let bundled = vms.iter().any(|(_, input)| matches!(input, Input::Bundled));
    let mut pack = BundledPack::open(index, bundled);
    let mut done: Vec<Option<VmsLoad>> = vms
        .iter()
        .map(|(cloud, input)| {
            let _span = tracing::info_span!("catalog_image", cloud = cloud.name()).entered();
            Some(load_vms_image_packed(
                *cloud,
                input,
                index,
                &runs(*cloud),
                &mut pack,
            ))
        })
        .collect();
    pack.store(index);
    let misses: Vec<(usize, String, String, u64)> = done
        .iter_mut()
        .enumerate()
        .filter_map(|(i, d)| match d.take() {
            Some(VmsLoad::Parse {
                key,
                fingerprint,
                size,
            }) => Some((i, key, fingerprint, size)),
            other => {
                *d = other;
                None
            }
        })
        .collect();
    Decoded { done, misses }
}

/// The `vms.csv` of [`load_vms_images`], in its order: the decoded, and
/// the misses `(index, image key, fingerprint, size)` still to parse.
pub(crate) struct Decoded {
    done: Vec<Option<VmsLoad>>,
    misses: Vec<(usize, String, String, u64)>,
}

impl Decoded {
    /// Whether some `vms.csv` had no current image (parsing it takes tens
    /// of milliseconds).
    pub(crate) fn has_misses(&self) -> bool {
        !self.misses.is_empty()
    }

    /// The second half: the misses parsed (their images stored), and every
    /// result in the order of `vms` (the same inputs as the first half).
    /// A miss parsed into the image it stores is decoded with `runs`, as
    /// the current images were.
    pub(crate) fn parse_misses<F: RunFilter>(
        self,
        vms: &[(CloudId, Input)],
        index: Option<&CatalogIndex>,
        runs: impl Fn(CloudId) -> F + Sync,
    ) -> Vec<VmsResult> {
        let Decoded { mut done, misses } = self;
        // The pool decodes each image on the worker that finished it; a CSV
        // outside the pool is decoded once its thread is joined.
        let decode = |i: usize, parsed: Parsed| {
            let (cloud, input) = &vms[i];
            parsed.decode(*cloud, input, &runs(*cloud))
        };
        for (i, result) in parse_misses(vms, index, misses, &decode) {
            done[i] = Some(VmsLoad::Loaded(result));
        }
        done.into_iter()
            .map(|d| match d {
                Some(VmsLoad::Loaded(result)) => result,
                // Every miss was parsed above.
                _ => Err(ConfigError::Catalog(CatalogError::Read {
                    source_name: "catalog".into(),
                    message: "catalog was neither decoded nor parsed".into(),
                })),
            })
            .collect()
    }
}

/// The `vms.csv` without a current image, `(index in vms, image key,
/// fingerprint, size)`, parsed and decoded (`decode`): bundled ones with an
/// index by one pool of a worker per core over all their pieces
/// (`pool.rs`, each image decoded by the worker that finished it); any
/// other each on its own short-lived thread (which lowers its priority) in
/// its share of the cores, decoded here once joined.
fn parse_misses(
    vms: &[(CloudId, Input)],
    index: Option<&CatalogIndex>,
    mut misses: Vec<(usize, String, String, u64)>,
    decode: &pool::Decode<'_>,
) -> Vec<(usize, VmsResult)> {
    // A warm launch parses nothing: asking for the cores costs a dozen
    // system calls (the cgroup's CPU quota files).
    if misses.is_empty() {
        return Vec::new();
    }
    // Bundled catalogs stored as images: one pool of workers over all of
    // them ([`pool`]).
    if let Some(index) = index
        && misses
            .iter()
            .all(|miss| matches!(vms[miss.0].1, Input::Bundled))
    {
        let misses = misses
            .into_iter()
            .map(|(at, key, fingerprint, _)| {
                let (cloud, input) = &vms[at];
                pool::Miss {
                    at,
                    cloud: *cloud,
                    key,
                    fingerprint,
                    name: vms_name(*cloud, input),
                }
            })
            .collect();
        return pool::parse_bundled(misses, index, cores(), decode);
    }
    // The largest first: its thread starts while the others are still being
    // spawned, and it is the one that decides when parsing ends.
    misses.sort_by_key(|miss| std::cmp::Reverse(miss.3));
    let total: u64 = misses.iter().map(|miss| miss.3).sum();
    let cores = cores();
    let parse = |i: usize, key: String, fingerprint: String, size: u64| {
        let (cloud, input) = &vms[i];
        let _span = tracing::info_span!("catalog_parse", cloud = cloud.name()).entered();
        parse_vms(
            *cloud,
            input,
            index,
            &key,
            &fingerprint,
            parts_for(size, total, cores),
        )
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = misses
            .into_iter()
            .map(|(i, key, fp, size)| (i, s.spawn(move || parse(i, key, fp, size))))
            .collect();
        handles
            .into_iter()
            .map(|(i, h)| {
                // Decoded here, at the launch's priority: the parser
                // thread lowered its own.
                let parsed = h.join().unwrap_or_else(|_| {
                    Err(ConfigError::Catalog(CatalogError::Read {
                        source_name: "catalog".into(),
                        message: "parser thread panicked".into(),
                    }))
                });
                (i, parsed.and_then(|parsed| decode(i, parsed)))
            })
            .collect()
    })
}

/// Reads the `common/` tables into `catalog`. A missing file is skipped
/// (names are then not canonicalised), as SkyPilot's folder may lack them.
pub(crate) fn load_common(
    catalog: &mut Catalog,
    accelerators: Option<&Input>,
    metadata: Option<&Input>,
) -> Result<(), ConfigError> {
    let read = |input: Option<&Input>, bundled: &'static [u8], file: &str| match input {
        None => (std::borrow::Cow::Borrowed(&[][..]), String::new()),
        Some(Input::Bundled) => (bundled.into(), format!("<bundled>/{file}")),
        Some(Input::File { path, .. }) => {
            (read_optional_file(path).into(), path.display().to_string())
        }
    };
    let (acc_bytes, acc_name) = read(accelerators, bundled::ACCELERATORS_CSV, ACCELERATORS_FILE);
    let (meta_bytes, meta_name) = read(metadata, bundled::METADATA_CSV, METADATA_FILE);
    if !acc_bytes.is_empty() {
        catalog.accelerators = AcceleratorTable::from_reader(&acc_bytes[..], &acc_name)?;
    }
    if !meta_bytes.is_empty() {
        catalog.gpu_metadata = parse_gpu_metadata(&meta_bytes[..], &meta_name)?;
    }
    Ok(())
}

/// The zone mappings that go with the AWS catalog read from `aws`: the
/// bundled one, or every `az_mappings-<hash>.csv` beside the file, newest first.
pub(crate) fn load_az_mappings(aws: &Input) -> Result<Vec<(String, AzMapping)>, ConfigError> {
    let mut az_mappings = Vec::new();
    match aws {
        Input::Bundled => {
            for (hash, bytes) in bundled::AZ_MAPPINGS {
                az_mappings.push((hash.to_string(), AzMapping::from_reader(*bytes, hash)?));
            }
        }
        Input::File { path, .. } => {
            let dir = path.parent().unwrap_or(Path::new("."));
            let mut files: Vec<(std::time::SystemTime, String, PathBuf)> = Vec::new();
            if let Ok(entries) = std::fs::read_dir(dir) {
                for e in entries.flatten() {
                    let name = e.file_name().to_string_lossy().into_owned();
                    if let Some(hash) = name
                        .strip_prefix("az_mappings-")
                        .and_then(|n| n.strip_suffix(".csv"))
                    {
                        let mtime = e
                            .metadata()
                            .and_then(|m| m.modified())
                            .unwrap_or(std::time::UNIX_EPOCH);
                        files.push((mtime, hash.to_string(), e.path()));
                    }
                }
            }
            files.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            for (_, hash, path) in files {
                let bytes = read_file(&path)?;
                az_mappings.push((
                    hash,
                    AzMapping::from_reader(&bytes[..], &path.display().to_string())?,
                ));
            }
        }
    }
    Ok(az_mappings)
}

/// What names a CSV in errors and warnings.
fn vms_name(cloud: CloudId, input: &Input) -> String {
    match input {
        Input::Bundled => format!("<bundled>/{}/vms.csv", cloud.name()),
        Input::File { path, .. } => path.display().to_string(),
    }
}

/// The image key of a file: its absolute path.
pub(crate) fn image_key(path: &Path) -> String {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    format!("file/{}", abs.display())
}

/// What changes whenever a file's content may have: size, times, inode.
pub(crate) fn fingerprint(meta: &std::fs::Metadata) -> String {
    use std::os::unix::fs::MetadataExt;
    format!(
        "{} {}.{} {}.{} {}:{}",
        meta.len(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
        meta.dev(),
        meta.ino()
    )
}

/// Adds to `found` the catalogs of `clouds` that SkyPilot builds on the
/// user's machine (vSphere's, from the vCenter inventory), read from `dir`
/// (the catalog folder in use, else SkyPilot's own `~/.sky/catalogs/v8`,
/// also when the other catalogs are bundled), never from the bundle. An
/// absent file gives the cloud an empty catalog (the header SkyPilot falls
/// back to) and is listed in [`FoundCatalogs::missing_local`]; any other
/// problem is an error.
pub(crate) fn load_local_catalogs(
    dir: &Path,
    clouds: &[CloudId],
    index: Option<&CatalogIndex>,
    found: &mut FoundCatalogs,
) -> Result<(), ConfigError> {
    for &cloud in clouds {
        let Some(local) = cloud.local_catalog() else {
            continue;
        };
        let path = dir.join(vms_file(cloud));
        if path.is_file() {
            let input = Input::File { path, meta: None };
            let (catalog, warnings) = load_vms(cloud, &input, index)?;
            found.catalog.insert(catalog);
            found.skipped_rows.extend(warnings);
        } else {
            let header = format!("{}\n", local.header);
            let (empty, _) =
                CloudCatalog::from_bytes(cloud, header.as_bytes(), &path.display().to_string())?;
            found.catalog.insert(empty);
            found.missing_local.push((cloud, path));
        }
    }
    Ok(())
}

/// One cloud's `vms.csv` with every row, from its image when `index` has a
/// matching one.
pub(crate) fn load_vms(
    cloud: CloudId,
    input: &Input,
    index: Option<&CatalogIndex>,
) -> Result<(CloudCatalog, Vec<CatalogWarning>), ConfigError> {
    let all = RowSelection::All.matcher();
    match load_vms_image(cloud, input, index, &all) {
        VmsLoad::Loaded(result) => result,
        VmsLoad::Parse {
            key, fingerprint, ..
        } => {
            parse_vms(cloud, input, index, &key, &fingerprint, cores())?.decode(cloud, input, &all)
        }
    }
}

/// The first half of loading a `vms.csv`: its image, if current.
enum VmsLoad {
    /// Decoded from the image (or the input could not even be `stat`ed).
    Loaded(Result<(CloudCatalog, Vec<CatalogWarning>), ConfigError>),
    /// No usable image: parse the CSV (`size` bytes) and store one under this key.
    Parse {
        key: String,
        fingerprint: String,
        size: u64,
    },
}

/// Decodes the row runs `runs` wants of the current image of `input`, if
/// `index` has one.
fn load_vms_image(
    cloud: CloudId,
    input: &Input,
    index: Option<&CatalogIndex>,
    runs: &dyn RunFilter,
) -> VmsLoad {
    load_own_image(cloud, input, index, runs).0
}

/// [`load_vms_image`], a bundled catalog's image taken from `pack` when it
/// holds one; what the pack lacked is noted in it.
fn load_vms_image_packed(
    cloud: CloudId,
    input: &Input,
    index: Option<&CatalogIndex>,
    runs: &dyn RunFilter,
    pack: &mut BundledPack,
) -> VmsLoad {
    if !matches!(input, Input::Bundled) {
        return load_vms_image(cloud, input, index, runs);
    }
    if let Some(image) = pack.image(cloud) {
        let name = vms_name(cloud, input);
        match CloudCatalog::from_image_runs(cloud, image, &name, runs) {
            Ok(loaded) => {
                tracing::debug!(catalog = %name, rows = loaded.0.rows.len(), "catalog loaded from the bundled pack");
                return VmsLoad::Loaded(Ok(loaded));
            }
            Err(e) => tracing::debug!(catalog = %name, error = %e, "ignoring a packed image"),
        }
    }
    match load_own_image(cloud, input, index, runs) {
        (load, Some(image)) => {
            pack.read_own(cloud, image);
            load
        }
        (load, None) => {
            if matches!(load, VmsLoad::Parse { .. }) {
                pack.missed();
            }
            load
        }
    }
}

/// [`load_vms_image`], and the image mapped when it decoded.
fn load_own_image(
    cloud: CloudId,
    input: &Input,
    index: Option<&CatalogIndex>,
    runs: &dyn RunFilter,
) -> (VmsLoad, Option<memmap2::Mmap>) {
    let name = vms_name(cloud, input);
    let (key, fingerprint, size) = match input {
        Input::Bundled => (
            format!("bundled/{}", cloud.name()),
            bundled::FINGERPRINT.to_string(),
            bundled::vms_csv(cloud).map_or(0, |csv| csv.len() as u64),
        ),
        Input::File { path, meta } => {
            let meta = match meta {
                Some(m) => m.clone(),
                None => match std::fs::metadata(path) {
                    Ok(m) => m,
                    Err(e) => return (VmsLoad::Loaded(Err(io_error(path, e))), None),
                },
            };
            (image_key(path), fingerprint(&meta), meta.len())
        }
    };
    if let Some(image) = index.and_then(|i| i.map(&key, &fingerprint)) {
        match CloudCatalog::from_image_runs(cloud, &image[..], &name, runs) {
            Ok(loaded) => {
                tracing::debug!(catalog = %name, rows = loaded.0.rows.len(), "catalog loaded from its image");
                return (VmsLoad::Loaded(Ok(loaded)), Some(image));
            }
            Err(e) => tracing::debug!(catalog = %name, error = %e, "ignoring catalog image"),
        }
    }
    let parse = VmsLoad::Parse {
        key,
        fingerprint,
        size,
    };
    (parse, None)
}

/// A parsed `vms.csv`: its rows, or the image they were written into.
enum Parsed {
    /// Every row, and the rows skipped.
    Rows(CloudCatalog, Vec<CatalogWarning>),
    /// The image (stored, unless storing failed).
    Image(Vec<u8>),
}

impl Parsed {
    /// The catalog: every row, or of an image the runs `runs` wants (as a
    /// current image is loaded).
    fn decode(self, cloud: CloudId, input: &Input, runs: &dyn RunFilter) -> VmsResult {
        match self {
            Parsed::Rows(catalog, warnings) => Ok((catalog, warnings)),
            Parsed::Image(image) => {
                let name = vms_name(cloud, input);
                CloudCatalog::from_image_runs(cloud, &image, &name, runs).map_err(|e| {
                    ConfigError::Catalog(CatalogError::Read {
                        source_name: name,
                        message: format!("the catalog's own image: {e}"),
                    })
                })
            }
        }
    }
}

/// Parses `input` and stores its image under `key`. With an index, the
/// CSV is parsed in pieces straight into its image: a file as it is read,
/// a bundled CSV from the binary; neither all its rows nor (for a file)
/// the whole text are held (the ×10 AWS catalog is 24 MB of text and
/// ~30 MB of rows for a 4 MB image; the bundled AWS catalog's rows were
/// most of a launch's heap). Its pieces parse on `max_parts` threads.
/// Without an index the rows are the result: the CSV in parts on
/// `max_parts` threads.
fn parse_vms(
    cloud: CloudId,
    input: &Input,
    index: Option<&CatalogIndex>,
    key: &str,
    fingerprint: &str,
    max_parts: usize,
) -> Result<Parsed, ConfigError> {
    let name = vms_name(cloud, input);
    lower_this_threads_priority();
    let csv: std::borrow::Cow<'static, [u8]> = match (input, index) {
        (Input::Bundled, Some(index)) => {
            let csv = bundled::vms_csv(cloud).unwrap_or_default();
            let image = parse_pieces_to_image(cloud, &name, max_parts, |push| {
                csv.chunks(READ_PIECE_BYTES).for_each(push);
                Ok(())
            })?;
            store_image_bytes(index, key, fingerprint, &image, &name);
            return Ok(Parsed::Image(image));
        }
        (Input::Bundled, None) => bundled::vms_csv(cloud).unwrap_or_default().into(),
        (Input::File { path, .. }, Some(index)) => {
            let image = parse_file_to_image(cloud, path, &name, max_parts)?;
            store_image_bytes(index, key, fingerprint, &image, &name);
            return Ok(Parsed::Image(image));
        }
        (Input::File { path, .. }, None) => read_file(path)?.into(),
    };
    let (catalog, warnings) = parse_csv_in_parts(cloud, &csv, &name, max_parts)?;
    Ok(Parsed::Rows(catalog, warnings))
}

/// How much of a catalog file is read at a time while it is parsed.
const READ_PIECE_BYTES: usize = 64 << 10;

/// The image of the `vms.csv` at `path`, parsed as it is read (checked as
/// [`read_file`] checks it: a parse error is told only once the file is
/// known to be readable and within the cap), by [`parse_pieces_to_image`].
fn parse_file_to_image(
    cloud: CloudId,
    path: &Path,
    name: &str,
    max_parts: usize,
) -> Result<Vec<u8>, ConfigError> {
    use crate::input::{InputError, MAX_CATALOG_FILE_BYTES, read_regular_pieces};
    let read_error = |e: InputError| match e {
        InputError::Io { source, .. } => io_error(path, source),
        other => io_error(path, std::io::Error::other(other.cause())),
    };
    parse_pieces_to_image(cloud, name, max_parts, |push| {
        read_regular_pieces(path, MAX_CATALOG_FILE_BYTES, READ_PIECE_BYTES, push)
            .map_err(read_error)
    })
}

/// The image of a `vms.csv` whose bytes `read` hands to the closure it is
/// given, piece by piece, in file order (a read error is `read`'s result,
/// told before any parse error). With `max_parts` above one, that many
/// threads of lowered priority parse its pieces while this one cuts them
/// and writes them into the image in file order; at most a few pieces per
/// thread are in flight.
fn parse_pieces_to_image(
    cloud: CloudId,
    name: &str,
    max_parts: usize,
    read: impl FnOnce(&mut dyn FnMut(&[u8])) -> Result<(), ConfigError>,
) -> Result<Vec<u8>, ConfigError> {
    use planner::catalog::{CsvPiece, ParsedPiece};
    use std::collections::BTreeMap;
    use std::sync::{Arc, Mutex, mpsc};
    if max_parts <= 1 {
        let mut parse = CsvImageParse::new(cloud, name);
        let mut failed: Option<CatalogError> = None;
        read(&mut |piece| {
            if failed.is_none()
                && let Err(e) = parse.push(piece)
            {
                failed = Some(e);
            }
        })?;
        if let Some(e) = failed {
            return Err(e.into());
        }
        return Ok(parse.finish()?);
    }
    let mut parse = CsvImageParse::new(cloud, name).hand_out_pieces();
    // One piece waiting per thread keeps each busy (the reader is faster
    // than any parser); more only holds bytes and rows in memory.
    let (jobs, queue) = mpsc::sync_channel::<CsvPiece>(max_parts);
    // Shared by the parsers only: should they all end early, sending fails
    // instead of blocking.
    let queue = Arc::new(Mutex::new(queue));
    let (done, parsed) = mpsc::channel::<(u64, Result<ParsedPiece, CatalogError>)>();
    std::thread::scope(|s| {
        for _ in 0..max_parts {
            let (queue, done) = (Arc::clone(&queue), done.clone());
            s.spawn(move || {
                lower_this_threads_priority();
                loop {
                    let job = queue.lock().map(|q| q.recv());
                    let Ok(Ok(piece)) = job else { break };
                    let seq = piece.seq();
                    if done.send((seq, piece.parse())).is_err() {
                        break;
                    }
                }
            });
        }
        drop((done, queue));
        // Parsed pieces waiting for the ones before them.
        let mut waiting: BTreeMap<u64, Result<ParsedPiece, CatalogError>> = BTreeMap::new();
        let mut next = 0u64;
        let mut failed: Option<CatalogError> = None;
        let mut write_ready = |parse: &mut CsvImageParse,
                               waiting: &mut BTreeMap<u64, Result<ParsedPiece, CatalogError>>,
                               failed: &mut Option<CatalogError>| {
            while let Some(result) = waiting.remove(&next) {
                next += 1;
                let written = result.and_then(|piece| parse.write(piece));
                if let Err(e) = written
                    && failed.is_none()
                {
                    *failed = Some(e);
                }
            }
        };
        let read = read(&mut |bytes| {
            if failed.is_some() {
                return;
            }
            if let Err(e) = parse.push(bytes) {
                failed = Some(e);
                return;
            }
            for piece in parse.take_pieces() {
                // Blocks while the queue is full: the parsers are behind.
                if jobs.send(piece).is_err() {
                    break;
                }
                waiting.extend(parsed.try_iter());
                write_ready(&mut parse, &mut waiting, &mut failed);
            }
        });
        drop(jobs);
        waiting.extend(parsed.iter());
        write_ready(&mut parse, &mut waiting, &mut failed);
        read?;
        if let Some(e) = failed {
            return Err(e.into());
        }
        Ok(parse.finish()?)
    })
}

/// Parses a `vms.csv` cut into at most `max_parts` parts (large files
/// only, see [`CsvParse::new`]): the first on this thread, the others on
/// scoped threads of lowered priority.
fn parse_csv_in_parts(
    cloud: CloudId,
    csv: &[u8],
    name: &str,
    max_parts: usize,
) -> Result<(CloudCatalog, Vec<CatalogWarning>), CatalogError> {
    let parse = CsvParse::new(cloud, csv, name, max_parts)?;
    let parts = if parse.parts() == 1 {
        vec![parse.parse_part(0)?]
    } else {
        let parse = &parse;
        std::thread::scope(|s| {
            let others: Vec<_> = (1..parse.parts())
                .map(|i| {
                    s.spawn(move || {
                        lower_this_threads_priority();
                        parse.parse_part(i)
                    })
                })
                .collect();
            std::iter::once(parse.parse_part(0))
                .chain(others.into_iter().map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(CatalogError::Read {
                            source_name: name.to_string(),
                            message: "parser thread panicked".into(),
                        })
                    })
                }))
                .collect::<Result<Vec<_>, _>>()
        })?
    };
    parse.finish(parts)
}

/// How many parts a catalog of `size` bytes is parsed in when catalogs of
/// `total` bytes parse at once on `cores` cores: its share of the cores,
/// rounded up. A lone catalog (one cloud's refresh) gets every core; when
/// seven change together, AWS's 2.4 MB beside the others' 1.2 MB gets two
/// of two cores, so that it is not the one thread still running at the end.
fn parts_for(size: u64, total: u64, cores: usize) -> usize {
    let cores = cores.max(1);
    if total == 0 {
        return 1;
    }
    let share = (u128::from(size) * cores as u128).div_ceil(u128::from(total));
    usize::try_from(share).unwrap_or(cores).clamp(1, cores)
}

/// The cores this process may use (1 when unknown).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Stores the image of a freshly parsed catalog; failing costs a parse later.
fn store_image(
    index: &CatalogIndex,
    key: &str,
    fingerprint: &str,
    catalog: &CloudCatalog,
    warnings: &[CatalogWarning],
    name: &str,
) {
    store_image_bytes(index, key, fingerprint, &catalog.to_image(warnings), name);
}

/// Stores a catalog's image; failing costs a parse later.
fn store_image_bytes(index: &CatalogIndex, key: &str, fingerprint: &str, image: &[u8], name: &str) {
    match index.write(key, fingerprint, image) {
        Ok(()) => tracing::debug!(catalog = %name, "catalog parsed; image stored"),
        Err(e) => tracing::debug!(catalog = %name, error = %e, "cannot store catalog image"),
    }
}

/// Stores the image of a catalog just downloaded to `path` (whose `stat`
/// is `meta`), so the next launch loads it without parsing.
pub(crate) fn store_downloaded_image(
    index: &CatalogIndex,
    path: &Path,
    meta: &std::fs::Metadata,
    catalog: &CloudCatalog,
    warnings: &[CatalogWarning],
) {
    store_image(
        index,
        &image_key(path),
        &fingerprint(meta),
        catalog,
        warnings,
        &path.display().to_string(),
    );
}

/// Whether `cloud` has a catalog built into the binary.
pub(crate) fn has_bundled(cloud: CloudId) -> bool {
    bundled::vms_csv(cloud).is_some()
}

/// Parsing CSVs is a launch's one long CPU burst (tens of milliseconds of
/// CPU over the catalogs). Competing at equal priority, the parser threads
/// would slow the cloud checks' own CPU work (SDK set-up, trust store, cache)
/// that sits before their requests, although a cold launch waits on the
/// network, not on the catalogs, which have a second to load. Called on the
/// short-lived parser thread only: on Linux the nice value is per thread.
fn lower_this_threads_priority() {
    #[cfg(target_os = "linux")]
    if let Err(e) = rustix::process::setpriority_process(None, 10) {
        tracing::debug!(error = %e, "cannot lower the catalog parser's priority");
    }
}

impl LoadedCatalog {
    /// Joins the AWS catalog with the account's zone mapping: the file named by
    /// `identity_hash` when present, else the newest file, else zone IDs stay.
    pub fn apply_aws_identity(&mut self, identity_hash: Option<&str>) -> Option<String> {
        let chosen = identity_hash
            .and_then(|h| self.az_mappings.iter().find(|(hash, _)| hash == h))
            .or_else(|| self.az_mappings.first())?;
        let (hash, mapping) = chosen.clone();
        self.catalog
            .cloud_mut(CloudId::Aws)?
            .apply_az_mapping(&mapping);
        Some(hash)
    }
}

#[cfg(test)]
mod tests {
    use super::parts_for;

    #[test]
    fn parts_follow_each_catalogs_share_of_the_bytes() {
        // (size, total, cores) -> parts
        let cases = [
            ((2_400_000, 2_400_000, 2), 2), // a lone refresh takes every core
            ((2_400_000, 2_400_000, 8), 8),
            ((2_400_000, 3_600_000, 2), 2), // AWS beside six others on 2 cores
            ((2_400_000, 3_600_000, 8), 6),
            ((400_000, 3_600_000, 2), 1),
            ((40_000, 3_600_000, 8), 1), // a small one never gets less than one
            ((0, 0, 4), 1),
            ((10, 10, 0), 1), // unknown cores
        ];
        for ((size, total, cores), parts) in cases {
            assert_eq!(
                parts_for(size, total, cores),
                parts,
                "{size} of {total} on {cores}"
            );
        }
    }
}
