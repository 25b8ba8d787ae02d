//! Why a cloud has no candidate, and what a launch warns about, as data:
//! the assembly records them, `render::pipeline` words them (and
//! `--explain` will list them, one line per cloud).

use std::path::PathBuf;

use super::origins::CatalogOrigin;
use crate::catalog::CatalogWarning;
use crate::check::CloudError;
use crate::cloud::CloudId;
use crate::config::IgnoredCloud;

/// Why a cloud offers nothing in this launch.
#[derive(Debug, Clone, PartialEq)]
pub enum Absence {
    /// `SKY_ENABLED_CLOUDS` does not name it.
    NotDeclared,
    /// The last `sky check` did not enable it.
    NotEnabled,
    /// `allowed_clouds` leaves it out.
    NotInAllowedClouds,
    /// `workspaces.<workspace>.<cloud>.disabled` turns it off.
    DisabledInWorkspace(String),
    /// No credentials on this machine: the adapter's hint names the files
    /// and variables it looked at.
    NoCredentials(String),
    /// Its check failed: its deadline ([`CloudError::Timeout`]) or an error.
    CheckFailed(CloudError),
    /// Every Kubernetes context it lists is unreachable.
    Unreachable(Unreachable),
    /// No catalog could be had.
    NoCatalog(NoCatalog),
}

/// Every context of a Kubernetes-family cloud unreachable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreachable {
    /// How many contexts there are.
    pub contexts: usize,
    /// The first one.
    pub first: String,
    /// Why the first could not be listed (the API's text, maybe several lines).
    pub error: String,
}

/// Why a cloud has no catalog at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoCatalog {
    /// The download failed (this one line says why) and `sky` has no
    /// bundled copy.
    DownloadFailed(String),
    /// The explicit folder lacks this file and `sky` has no bundled copy.
    NotInFolder(PathBuf),
    /// Only bundled catalogs are read and `sky` has none for it.
    NoBundledCopy,
}

/// A cloud without candidates, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Absent {
    /// The cloud.
    pub cloud: CloudId,
    /// Why.
    pub why: Absence,
}

/// No cloud is enabled: the checks that found no credentials or failed,
/// in check order (`render::pipeline` words the error).
#[derive(Debug, Clone, PartialEq)]
pub struct NoCloud {
    /// Each check that did not make its cloud usable:
    /// [`Absence::NoCredentials`] or [`Absence::CheckFailed`].
    pub checks: Vec<Absent>,
}

/// One download of the launch that failed while an old or bundled copy
/// stood in.
#[derive(Debug, Clone, PartialEq)]
pub struct FailedDownload {
    /// The copy used instead.
    pub origin: CatalogOrigin,
    /// What went wrong, one line.
    pub problem: String,
}

/// Something a launch warns about before its table, as data, in the order
/// it is printed.
#[derive(Debug, Clone, PartialEq)]
pub enum Note {
    /// A problem with the options (an unknown name in
    /// `SKY_ENABLED_CLOUDS`), already one line.
    Options(String),
    /// A name in `allowed_clouds` that is not a cloud, skipped.
    IgnoredCloud(IgnoredCloud),
    /// A check's problem that did not fail it, one line (AWS: the
    /// account's zone names could not be fetched).
    Check {
        /// The cloud.
        cloud: CloudId,
        /// What happened.
        message: String,
    },
    /// Downloads of files the enabled clouds use that failed, in catalog
    /// order (the clouds' `vms.csv`, then the `common/` tables): said in one
    /// line, with the copies used instead (an example copy included) and
    /// what to do.
    DownloadsFailed(Vec<FailedDownload>),
    /// Files the folder in use lacks, read from the example catalogs
    /// built into `sky` (their prices are examples), other than those of a
    /// failed download ([`Note::DownloadsFailed`] says those).
    ExampleCatalogs {
        /// The folder.
        dir: PathBuf,
        /// The files, in catalog order.
        files: Vec<CatalogOrigin>,
    },
    /// Malformed catalog rows that were skipped, file by file.
    SkippedRows(Vec<CatalogWarning>),
    /// An enabled cloud's locally built catalog does not exist: it offers
    /// nothing.
    MissingLocalCatalog {
        /// The cloud.
        cloud: CloudId,
        /// Where it was looked for.
        path: PathBuf,
    },
    /// The AWS zone mapping the account's identity names does not parse
    /// (the [`CatalogError`](crate::catalog::CatalogError)'s message).
    AzMapping(String),
    /// What a check learnt does not apply to its catalog (a Nebius tenant
    /// price list that does not parse: the
    /// [`CatalogError`](crate::catalog::CatalogError)'s message).
    CloudFacts(String),
    /// OCI's subscribed regions could not be had (why): it plans on every
    /// catalog region, as SkyPilot does.
    OciRegionsUnavailable(String),
}

impl Absence {
    /// Whether a launch warns about it: the cloud was wanted (usable
    /// credentials, or declared) but is left out of the table — its check
    /// failed, no context answered, or it has no catalog.
    pub fn is_exclusion(&self) -> bool {
        matches!(
            self,
            Absence::CheckFailed(_) | Absence::Unreachable(_) | Absence::NoCatalog(_)
        )
    }
}
