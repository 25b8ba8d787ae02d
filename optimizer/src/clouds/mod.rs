//! Cloud identities and the per-cloud adapters.

pub mod aws;
pub mod azure;
pub mod cudo;
mod fanout;
pub mod gcp;
pub mod kubernetes;
pub mod lambda;
pub mod paperspace;
pub mod runpod;

pub use fanout::{CloudReport, FanOut, FanOutOptions, Outcome, fan_out};

use std::fmt;
use std::str::FromStr;

/// Every cloud this optimizer knows about.
///
/// The declaration order is the default enumeration order (see
/// `ARCHITECTURE.md`, "Determinism"): SkyPilot keeps the enabled set in a
/// Python set whose order is arbitrary but fixed, we pin it to this order
/// unless the user lists the clouds explicitly.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum CloudId {
    /// Amazon Web Services.
    Aws,
    /// Google Cloud Platform.
    Gcp,
    /// Microsoft Azure.
    Azure,
    /// Lambda Cloud.
    Lambda,
    /// RunPod.
    Runpod,
    /// Paperspace.
    Paperspace,
    /// Cudo Compute.
    Cudo,
    /// Kubernetes (a virtual catalog: one region per kubeconfig context).
    Kubernetes,
}

impl CloudId {
    /// All clouds, in default enumeration order.
    pub const ALL: [CloudId; 8] = [
        CloudId::Aws,
        CloudId::Gcp,
        CloudId::Azure,
        CloudId::Lambda,
        CloudId::Runpod,
        CloudId::Paperspace,
        CloudId::Cudo,
        CloudId::Kubernetes,
    ];

    /// Lower-case name, as used in `--infra`, catalog folders and `SKY_ENABLED_CLOUDS`.
    pub fn name(self) -> &'static str {
        match self {
            CloudId::Aws => "aws",
            CloudId::Gcp => "gcp",
            CloudId::Azure => "azure",
            CloudId::Lambda => "lambda",
            CloudId::Runpod => "runpod",
            CloudId::Paperspace => "paperspace",
            CloudId::Cudo => "cudo",
            CloudId::Kubernetes => "kubernetes",
        }
    }

    /// Display form used by SkyPilot in tables and messages (the class `_REPR`).
    pub fn repr(self) -> &'static str {
        match self {
            CloudId::Aws => "AWS",
            CloudId::Gcp => "GCP",
            CloudId::Azure => "Azure",
            CloudId::Lambda => "Lambda",
            CloudId::Runpod => "RunPod",
            CloudId::Paperspace => "Paperspace",
            CloudId::Cudo => "Cudo",
            CloudId::Kubernetes => "Kubernetes",
        }
    }

    /// Whether this cloud has a CSV catalog (`<dir>/<name>/vms.csv`).
    pub fn has_csv_catalog(self) -> bool {
        self != CloudId::Kubernetes
    }
}

impl fmt::Display for CloudId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.repr())
    }
}

/// An unknown cloud name, with the closest known names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Unknown cloud {name:?}.{}", did_you_mean_suffix(.suggestions))]
pub struct UnknownCloud {
    /// The name as the user wrote it.
    pub name: String,
    /// Close matches among the known cloud names.
    pub suggestions: Vec<String>,
}

fn did_you_mean_suffix(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        format!(
            " Known clouds: {}.",
            CloudId::ALL.map(|c| c.name()).join(", ")
        )
    } else {
        format!(" Did you mean: {}?", suggestions.join(", "))
    }
}

impl FromStr for CloudId {
    type Err = UnknownCloud;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        if lower == "k8s" {
            return Ok(CloudId::Kubernetes);
        }
        if let Some(id) = CloudId::ALL.into_iter().find(|c| c.name() == lower) {
            return Ok(id);
        }
        let suggestions =
            crate::pytext::close_matches(&lower, CloudId::ALL.iter().map(|c| c.name()), 3, 0.6);
        Err(UnknownCloud {
            name: s.to_string(),
            suggestions,
        })
    }
}

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use futures::future::BoxFuture;

/// A snapshot of the process environment, injected so that tests and the
/// harness never reach mocks through hidden globals.
pub type EnvMap = BTreeMap<String, String>;

/// Everything a cloud adapter may consult while checking access.
///
/// Built once per invocation by the binary (or the harness) and shared by all
/// concurrent checks.
#[derive(Debug, Clone)]
pub struct CheckContext {
    /// Environment variables visible to the adapters (`AWS_*`, `KUBECONFIG`, ...).
    pub env: EnvMap,
    /// The user's home directory (credential files are looked up below it).
    pub home: PathBuf,
    /// The state directory (`~/.sky` or `SKY_STATE_DIR`) holding the caches.
    pub state_dir: PathBuf,
    /// Bypass every cache (`--refresh`).
    pub refresh: bool,
    /// Deadline for one cloud's whole check (`--cloud-timeout`).
    pub cloud_timeout: Duration,
    /// Kubernetes contexts allowed by `~/.sky/config.yaml` (`None` = current context only;
    /// `Some(["all"])` = every context).
    pub kubernetes_allowed_contexts: Option<Vec<String>>,
    /// Clouds whose reservations must be looked up: `<cloud>.prioritize_reservations`
    /// or `<cloud>.specific_reservations` in `~/.sky/config.yaml`. Empty (the
    /// usual case) means no adapter makes a reservation call.
    pub reservation_clouds: Vec<CloudId>,
    /// `gcp.project_id` in `~/.sky/config.yaml`: the project whose
    /// reservations are listed (see `clouds::gcp` for the fallbacks).
    pub gcp_project_id: Option<String>,
}

/// Whether a cloud's credentials are present on this machine (cheap, local files only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credentials {
    /// Credentials were found; the text says where (`"environment"`, `"~/.aws/credentials"`, ...).
    Present(String),
    /// No credentials; the text says how to set them up.
    Missing(String),
}

/// What a successful check learnt about a cloud, consumed by the pure core.
#[derive(Debug, Clone, PartialEq)]
pub enum CloudFacts {
    /// Nothing beyond "credentials are present" (catalog-only clouds).
    Catalog,
    /// AWS: the caller identity when it could be fetched.
    Aws(AwsFacts),
    /// Kubernetes: the allowed contexts and their nodes.
    Kubernetes(Vec<crate::catalog::kubernetes::KubeContext>),
    /// GCP with reservations configured: the project's READY reservations.
    Gcp(GcpReservations),
}

/// One capacity reservation, as the pure core needs it (SkyPilot's
/// `GCPReservation`). Not secret: it is cached on disk.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Reservation {
    /// The name `specific_reservations` lists it by (GCP:
    /// `projects/<project>/reservations/<name>`, derived from the selfLink).
    pub name: String,
    /// Zone name (`us-central1-a`).
    pub zone: String,
    /// Machine type it reserves (`a2-highgpu-1g`).
    pub instance_type: String,
    /// Reserved instances.
    pub count: i64,
    /// Instances currently consuming it.
    pub in_use_count: i64,
    /// Targeted: only launches naming it (`specific_reservations`) may use it.
    pub specific_reservation_required: bool,
}

impl Reservation {
    /// Instances still free in this reservation (`count - inUseCount`).
    pub fn available(&self) -> i64 {
        self.count - self.in_use_count
    }
}

/// The GCP part of [`CloudFacts`]: READY reservations of one project.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GcpReservations {
    /// The project that was listed.
    pub project: String,
    /// Its READY reservations, every zone and machine type.
    pub reservations: Vec<Reservation>,
}

/// AWS identity as SkyPilot uses it (`UserId`, `Account`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AwsIdentity {
    /// The STS `UserId` (e.g. `AIDA...`).
    pub user_id: String,
    /// The 12-digit account number.
    pub account: String,
    /// The caller ARN.
    pub arn: String,
}

/// The AWS part of [`CloudFacts`].
#[derive(Debug, Clone, PartialEq)]
pub struct AwsFacts {
    /// The identity, when credentials could be resolved and STS (or the cache) answered.
    pub identity: Option<AwsIdentity>,
}

/// Whether a check was answered from the on-disk cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheUse {
    /// No cache is involved for this cloud.
    None,
    /// Answered from the cache; the entry was this old.
    Hit {
        /// Age of the cache entry.
        age: Duration,
    },
    /// Fetched from the network (and written to the cache when successful).
    Miss,
}

/// Why a cloud check failed. A failed cloud is data in the result, never an abort.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CloudError {
    /// The check did not finish before its deadline.
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    /// The credentials were rejected (401/403, expired or invalid token).
    #[error("credentials rejected: {0}")]
    Auth(String),
    /// The service answered with an error or could not be reached.
    #[error("{0}")]
    Service(String),
    /// Local configuration is unusable (malformed kubeconfig, unreadable file, ...).
    #[error("{0}")]
    Config(String),
}

/// The outcome of one cloud's check, with what the cache did.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckOutcome {
    /// What was learnt.
    pub facts: CloudFacts,
    /// Whether the answer came from the on-disk cache.
    pub cache: CacheUse,
}

/// One cloud adapter: the only place that talks to a cloud.
pub trait Cloud: Send + Sync {
    /// Which cloud this adapter speaks for.
    fn id(&self) -> CloudId;

    /// Looks for credentials on this machine without any network call.
    fn credentials(&self, ctx: &CheckContext) -> Credentials;

    /// Performs the network part of the check (identity, node listing, ...).
    ///
    /// Implementations set explicit timeouts on their SDK clients; the fan-out
    /// additionally wraps the call in `ctx.cloud_timeout`.
    fn check<'a>(
        &'a self,
        ctx: &'a CheckContext,
    ) -> BoxFuture<'a, Result<CheckOutcome, CloudError>>;
}

/// An error and its sources on one line (a source already contained in an
/// earlier message is skipped: SDK errors often repeat their cause).
pub(crate) fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![err.to_string()];
    let mut source = err.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = s.source();
    }
    parts.join(": ")
}

/// Looks for the first existing credential file. An entry in upper case names
/// an environment variable holding a path; other entries are relative to home.
pub(crate) fn credentials_from_files(
    ctx: &CheckContext,
    candidates: &[&str],
    hint: &str,
) -> Credentials {
    for c in candidates {
        let path = if c.chars().all(|ch| ch.is_ascii_uppercase() || ch == '_') {
            match ctx.env.get(*c) {
                Some(p) if !p.is_empty() => PathBuf::from(p),
                _ => continue,
            }
        } else {
            ctx.home.join(c)
        };
        if path.is_file() {
            return Credentials::Present(path.display().to_string());
        }
    }
    Credentials::Missing(hint.to_string())
}

/// The check of a catalog-only cloud: nothing to fetch once credentials exist.
pub(crate) fn catalog_only_check<'a>(
    cloud: &'a dyn Cloud,
    ctx: &'a CheckContext,
) -> BoxFuture<'a, Result<CheckOutcome, CloudError>> {
    Box::pin(async move {
        let _ = (cloud, ctx);
        Ok(CheckOutcome {
            facts: CloudFacts::Catalog,
            cache: CacheUse::None,
        })
    })
}
