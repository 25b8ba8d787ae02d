//! Where a launch's catalog files came from, as data: the folder, and per
//! file how it was obtained and how old it is (`-o json`'s `catalogs`, the
//! catalog warnings).

use std::path::PathBuf;
use std::time::Duration;

use crate::cloud::CloudId;

/// Where the catalogs came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogSource {
    /// A SkyPilot catalog folder (`<dir>/<cloud>/vms.csv`).
    Dir(PathBuf),
    /// The catalogs built into the binary.
    Bundled,
}

impl std::fmt::Display for CatalogSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CatalogSource::Dir(d) => write!(f, "{}", d.display()),
            CatalogSource::Bundled => f.write_str("bundled catalogs"),
        }
    }
}

/// How one catalog file used by a launch was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatalogKind {
    /// The example copy built into `sky` (prices are examples, not real).
    Bundled,
    /// From an explicit folder (`--catalog-dir`, `SKY_CATALOG_DIR`), used as is.
    Dir,
    /// From SkyPilot's catalog folder, within its pull period (or one
    /// SkyPilot never refreshes): no network.
    Cached,
    /// Downloaded from the hosted catalog by this launch.
    Downloaded,
    /// Past its pull period; the server said it has not changed (HTTP 304).
    NotModified,
    /// Past its pull period and the download failed: the old copy is used.
    Stale,
    /// Past its pull period but edited by hand (no md5 record, or one that no
    /// longer matches): SkyPilot never overwrites such a file, nor does `sky`.
    Edited,
}

impl CatalogKind {
    /// The name used in `-o json` (`"downloaded"`, `"not-modified"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            CatalogKind::Bundled => "bundled",
            CatalogKind::Dir => "dir",
            CatalogKind::Cached => "cached",
            CatalogKind::Downloaded => "downloaded",
            CatalogKind::NotModified => "not-modified",
            CatalogKind::Stale => "stale",
            CatalogKind::Edited => "edited",
        }
    }
}

/// Where one catalog file came from and how old it is.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogOrigin {
    /// The file, relative to a catalog folder (`aws/vms.csv`, `common/metadata.csv`).
    pub file: String,
    /// The cloud whose `vms.csv` it is (`None` for the `common/` tables).
    pub cloud: Option<CloudId>,
    /// How it was obtained.
    pub kind: CatalogKind,
    /// The file on disk (`None` for a bundled copy).
    pub path: Option<PathBuf>,
    /// Time since the file was last written or confirmed current (its
    /// modification time, as SkyPilot measures it); `None` for a bundled copy.
    pub age: Option<Duration>,
    /// The pull period in hours, for a file SkyPilot refreshes.
    pub pull_hours: Option<u32>,
}
