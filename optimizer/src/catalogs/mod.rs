//! Catalogs from where the user keeps them: resolving the catalog folder,
//! loading each cloud's `vms.csv` (from its pre-indexed image when the input
//! is unchanged, else parsing it and storing one), the `common/` tables and
//! the AWS zone mappings. The catalogs built into the binary are [`bundled`].

mod bundled;

use std::path::{Path, PathBuf};

use planner::catalog::{
    AcceleratorTable, AzMapping, Catalog, CatalogError, CatalogWarning, CloudCatalog,
    parse_gpu_metadata,
};
use planner::cloud::CloudId;
use planner::launch::CatalogSource;

use crate::clouds::EnvMap;
use crate::config::ConfigError;
use crate::state::CatalogIndex;

/// `--catalog-dir` > `SKY_CATALOG_DIR` > `~/.sky/catalogs/v8` when it exists > bundled.
pub(crate) fn resolve_catalog_source(
    flag: Option<&Path>,
    env: &EnvMap,
    home: &Path,
) -> CatalogSource {
    if let Some(dir) = flag {
        return CatalogSource::Dir(dir.to_path_buf());
    }
    if let Some(dir) = env.get("SKY_CATALOG_DIR").filter(|d| !d.is_empty()) {
        return CatalogSource::Dir(PathBuf::from(dir));
    }
    let default = skypilot_catalog_dir(home);
    if default.join("aws/vms.csv").is_file() || default.join("gcp/vms.csv").is_file() {
        return CatalogSource::Dir(default);
    }
    CatalogSource::Bundled
}

/// Where SkyPilot 0.14.1 keeps its catalogs (`CATALOG_DIR/CATALOG_SCHEMA_VERSION`).
fn skypilot_catalog_dir(home: &Path) -> PathBuf {
    home.join(".sky/catalogs/v8")
}

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
    /// looked for and is absent, with the path looked at; each has an
    /// empty catalog instead, as in SkyPilot.
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

fn read_file(path: &Path) -> Result<Vec<u8>, ConfigError> {
    std::fs::read(path).map_err(|e| io_error(path, e))
}

/// Loads the catalogs of `clouds` (Kubernetes needs none) plus `common/*`,
/// parsing every CSV. See [`load_catalog_indexed`] for the launch path.
pub fn load_catalog(
    source: &CatalogSource,
    clouds: &[CloudId],
) -> Result<LoadedCatalog, ConfigError> {
    load_catalog_indexed(source, clouds, None)
}

/// Loads the catalogs of `clouds` plus `common/*`, using pre-indexed images
/// from `index` where one matches the input, and writing one where none does.
/// Catalogs SkyPilot builds on the user's machine are not loaded here but
/// by [`load_local_catalogs`], which knows where that machine keeps them.
///
/// A CSV is matched by the bundled catalogs' build fingerprint, or by its
/// path, size, modification and change times and inode; any change is a new
/// image. An unreadable or stale image is ignored (the CSV is parsed), and
/// failing to write one only costs the next launch a parse. The per-cloud
/// loads run on scoped threads: they are CPU-bound and independent.
pub fn load_catalog_indexed(
    source: &CatalogSource,
    clouds: &[CloudId],
    index: Option<&CatalogIndex>,
) -> Result<LoadedCatalog, ConfigError> {
    let wanted: Vec<CloudId> = clouds
        .iter()
        .copied()
        .filter(|c| {
            c.has_csv_catalog()
                && c.local_catalog().is_none()
                && (*source != CatalogSource::Bundled || bundled::vms_csv(*c).is_some())
        })
        .collect();
    let results: Vec<Result<(CloudCatalog, Vec<CatalogWarning>), ConfigError>> =
        std::thread::scope(|s| {
            let handles: Vec<_> = wanted
                .iter()
                .map(|&cloud| s.spawn(move || load_vms(source, cloud, index)))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(ConfigError::Catalog(CatalogError::Read {
                            source_name: "catalog".into(),
                            message: "parser thread panicked".into(),
                        }))
                    })
                })
                .collect()
        });
    let mut catalog = Catalog::new();
    let mut warnings = Vec::new();
    for r in results {
        let (c, w) = r?;
        catalog.insert(c);
        warnings.extend(w);
    }
    let (acc_bytes, meta_bytes, acc_name, meta_name): (
        std::borrow::Cow<'static, [u8]>,
        std::borrow::Cow<'static, [u8]>,
        String,
        String,
    ) = match source {
        CatalogSource::Bundled => (
            bundled::ACCELERATORS_CSV.into(),
            bundled::METADATA_CSV.into(),
            "<bundled>/common/accelerators.csv".into(),
            "<bundled>/common/metadata.csv".into(),
        ),
        CatalogSource::Dir(dir) => {
            let a = dir.join("common/accelerators.csv");
            let m = dir.join("common/metadata.csv");
            // The common files are optional: without them names are not canonicalised.
            (
                std::fs::read(&a).unwrap_or_default().into(),
                std::fs::read(&m).unwrap_or_default().into(),
                a.display().to_string(),
                m.display().to_string(),
            )
        }
    };
    if !acc_bytes.is_empty() {
        catalog.accelerators = AcceleratorTable::from_reader(&acc_bytes[..], &acc_name)?;
    }
    if !meta_bytes.is_empty() {
        catalog.gpu_metadata = parse_gpu_metadata(&meta_bytes[..], &meta_name)?;
    }
    let mut az_mappings = Vec::new();
    if wanted.contains(&CloudId::Aws) {
        match source {
            CatalogSource::Bundled => {
                for (hash, bytes) in bundled::AZ_MAPPINGS {
                    az_mappings.push((hash.to_string(), AzMapping::from_reader(*bytes, hash)?));
                }
            }
            CatalogSource::Dir(dir) => {
                let mut files: Vec<(std::time::SystemTime, String, PathBuf)> = Vec::new();
                if let Ok(entries) = std::fs::read_dir(dir.join("aws")) {
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
    }
    Ok(LoadedCatalog {
        catalog,
        warnings,
        az_mappings,
        missing_local: Vec::new(),
    })
}

/// Adds to `loaded` the catalogs of `clouds` that SkyPilot builds on the
/// user's machine (vSphere's, from the vCenter inventory): read from the
/// catalog folder (`--catalog-dir`, `SKY_CATALOG_DIR`, else SkyPilot's own
/// `~/.sky/catalogs/v8`, also when the other catalogs are bundled), never
/// from the bundle. An absent file gives the cloud an empty catalog (the
/// header SkyPilot falls back to) and is listed in
/// [`LoadedCatalog::missing_local`]; any other problem is an error.
pub(crate) fn load_local_catalogs(
    source: &CatalogSource,
    home: &Path,
    clouds: &[CloudId],
    index: Option<&CatalogIndex>,
    loaded: &mut LoadedCatalog,
) -> Result<(), ConfigError> {
    let dir = match source {
        CatalogSource::Dir(dir) => dir.clone(),
        CatalogSource::Bundled => skypilot_catalog_dir(home),
    };
    for &cloud in clouds {
        let Some(local) = cloud.local_catalog() else {
            continue;
        };
        match load_vms(&CatalogSource::Dir(dir.clone()), cloud, index) {
            Ok((catalog, warnings)) => {
                loaded.catalog.insert(catalog);
                loaded.warnings.extend(warnings);
            }
            Err(ConfigError::MissingCatalog { path }) => {
                let header = format!("{}\n", local.header);
                let (empty, _) = CloudCatalog::from_bytes(
                    cloud,
                    header.as_bytes(),
                    &path.display().to_string(),
                )?;
                loaded.catalog.insert(empty);
                loaded.missing_local.push((cloud, path));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// One cloud's `vms.csv`, from its image when `index` has a matching one.
fn load_vms(
    source: &CatalogSource,
    cloud: CloudId,
    index: Option<&CatalogIndex>,
) -> Result<(CloudCatalog, Vec<CatalogWarning>), ConfigError> {
    let (name, key, fingerprint, path) = match source {
        CatalogSource::Bundled => (
            format!("<bundled>/{}/vms.csv", cloud.name()),
            format!("bundled/{}", cloud.name()),
            bundled::FINGERPRINT.to_string(),
            None,
        ),
        CatalogSource::Dir(dir) => {
            let path = dir.join(cloud.name()).join("vms.csv");
            let meta = std::fs::metadata(&path).map_err(|e| io_error(&path, e))?;
            let fingerprint = {
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
            };
            let abs = std::path::absolute(&path).unwrap_or_else(|_| path.clone());
            (
                path.display().to_string(),
                format!("file/{}", abs.display()),
                fingerprint,
                Some(path),
            )
        }
    };
    if let Some(image) = index.and_then(|i| i.read(&key, &fingerprint)) {
        match CloudCatalog::from_image(cloud, &image, &name) {
            Ok(loaded) => {
                tracing::debug!(catalog = %name, "catalog loaded from its image");
                return Ok(loaded);
            }
            Err(e) => tracing::debug!(catalog = %name, error = %e, "ignoring catalog image"),
        }
    }
    lower_this_threads_priority();
    let csv: std::borrow::Cow<'static, [u8]> = match &path {
        None => bundled::vms_csv(cloud).unwrap_or_default().into(),
        Some(path) => read_file(path)?.into(),
    };
    let (catalog, warnings) = CloudCatalog::from_bytes(cloud, &csv, &name)?;
    if let Some(index) = index {
        match index.write(&key, &fingerprint, &catalog.to_image(&warnings)) {
            Ok(()) => tracing::debug!(catalog = %name, "catalog parsed; image stored"),
            Err(e) => tracing::debug!(catalog = %name, error = %e, "cannot store catalog image"),
        }
    }
    Ok((catalog, warnings))
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
