//! What the cloud checks found, as plain data: the fan-out's result, each
//! cloud's outcome and the facts a successful check learnt (identities,
//! Kubernetes nodes, reservations). The adapters that produce it live in the
//! `optimizer` crate; the planner and the renderer only read it.

use std::time::Duration;

use crate::cloud::{CloudId, Provider, StorageOnly, StorageRule};

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
    /// OCI: the regions the tenancy subscribes to.
    Oci(OciFacts),
    /// Nebius: the tenant's own (contract) prices, when they could be had.
    Nebius(NebiusFacts),
    /// SSH Node Pools: the usable `ssh-<pool>` contexts and their nodes.
    Ssh(SshFacts),
    /// Slurm: every cluster of `~/.slurm/config` and its login node's answers.
    Slurm(Vec<crate::catalog::slurm::SlurmCluster>),
}

/// The SSH part of [`CloudFacts`].
#[derive(Debug, Clone, PartialEq)]
pub struct SshFacts {
    /// The usable contexts with their nodes (or why they could not be listed).
    pub contexts: Vec<crate::catalog::kubernetes::KubeContext>,
    /// Contexts of pools in `~/.sky/ssh_node_pools.yaml` that are not set up.
    pub skipped: Vec<String>,
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

/// The OCI part of [`CloudFacts`]: what `IdentityClient.list_region_subscriptions`
/// answered for the tenancy (`sky/catalog/oci_catalog.py::_get_df`). Not
/// secret: region names only.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OciFacts {
    /// `regionName` of every subscription, in the order listed. Empty means
    /// "no filter": SkyPilot keeps the whole catalog when the list is empty
    /// or could not be fetched.
    pub subscribed_regions: Vec<String>,
    /// Why the list could not be fetched (the catalog is then used whole,
    /// as SkyPilot does after a service error); `None` when it was.
    pub unavailable: Option<String>,
}

/// One priced Nebius preset, as SkyPilot's `fetch_nebius.estimate_platforms`
/// assembles it from the platform listing and two billing estimates. Not
/// secret: it is cached on disk.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NebiusPreset {
    /// The project's region (`eu-north1`).
    pub region: String,
    /// Platform name (`gpu-h100-sxm`, `cpu-d3`).
    pub platform: String,
    /// Preset name (`1gpu-16vcpu-200gb`).
    pub preset: String,
    /// `resources.gpu_count`.
    pub gpus: u32,
    /// `resources.vcpu_count`.
    pub vcpus: u32,
    /// `resources.memory_gibibytes`.
    pub memory_gib: u32,
    /// The platform's `gpu_memory_gigabytes`.
    pub gpu_memory_gb: u32,
    /// On-demand hourly price: the estimate's decimal text.
    pub price: String,
    /// Spot hourly price, when the preemptible estimate succeeded.
    pub spot_price: Option<String>,
}

/// The Nebius part of [`CloudFacts`] (`sky/catalog/nebius_catalog.py::_get_df`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NebiusFacts {
    /// The tenant the prices belong to (`None`: no tenant configured, so the
    /// static catalog is used as is).
    pub tenant_id: Option<String>,
    /// The tenant's priced presets; `None` when personal pricing is off or
    /// could not be had (see `fallback`), and the static catalog applies.
    pub presets: Option<Vec<NebiusPreset>>,
    /// Why the static catalog is used although a tenant is configured
    /// (SkyPilot logs this at debug level and falls back the same way).
    pub fallback: Option<String>,
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
    /// Problems that did not fail the check, one line each (the account's
    /// zone names could not be fetched).
    pub warnings: Vec<String>,
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
    #[error("timed out after {}", show_duration(*.0))]
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

impl CloudError {
    /// Whether the failure says nothing about the credentials: a timeout, or
    /// a service that could not be reached or answered with a server error
    /// (5xx, throttling). Such a check is "not a verdict" (upstream #4373):
    /// `sky check` must not record the cloud as disabled because of it.
    /// Rejected credentials and unusable local configuration are verdicts.
    pub fn is_transient(&self) -> bool {
        matches!(self, CloudError::Timeout(_) | CloudError::Service(_))
    }
}

/// The outcome of one cloud's check, with what the cache did.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckOutcome {
    /// What was learnt.
    pub facts: CloudFacts,
    /// Whether the answer came from the on-disk cache.
    pub cache: CacheUse,
}

/// What happened to one cloud.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Checked successfully.
    Ready(CheckOutcome),
    /// No credentials on this machine; the text says how to set them up.
    NoCredentials(String),
    /// The check failed (timeout, auth, service error); the cloud is left out.
    Failed(CloudError),
}

/// One cloud's line in the fan-out result.
#[derive(Debug, Clone, PartialEq)]
pub struct CloudReport {
    /// The cloud.
    pub cloud: CloudId,
    /// What happened.
    pub outcome: Outcome,
    /// When its check started, relative to the fan-out's start.
    pub started: Duration,
    /// How long its check took.
    pub elapsed: Duration,
}

impl CloudReport {
    /// Cache use of a successful check.
    pub fn cache(&self) -> CacheUse {
        match &self.outcome {
            Outcome::Ready(o) => o.cache,
            _ => CacheUse::None,
        }
    }
}

/// The result of the fan-out (`optimizer::clouds::fan_out`).
#[derive(Debug, Clone, Default)]
pub struct FanOut {
    /// One report per cloud, in the order the clouds were given.
    pub reports: Vec<CloudReport>,
    /// One report per storage check, in the order they were given (only
    /// `sky check` asks for any).
    pub storage: Vec<StorageReport>,
    /// Wall time of the whole fan-out.
    pub wall: Duration,
}

/// What a storage check found (`check_storage_credentials`'s `(ok, reason)`).
#[derive(Debug, Clone, PartialEq)]
pub enum StorageOutcome {
    /// `(True, None)`: the storage capability is enabled.
    Enabled,
    /// `(False, reason)`: a verdict, with SkyPilot's reason (several lines
    /// indented as it indents them).
    Disabled(String),
    /// The answer is the compute check's (OCI without its S3-compatible
    /// profile falls back to `_check_credentials`).
    SameAsCompute,
    /// The check could not finish: a timeout or a server error is not a
    /// verdict ([`CloudError::is_transient`]), as for compute.
    Failed(CloudError),
}

/// One storage check in the fan-out result.
#[derive(Debug, Clone, PartialEq)]
pub struct StorageReport {
    /// Whose storage was checked.
    pub provider: Provider,
    /// What happened.
    pub outcome: StorageOutcome,
    /// When it started, relative to the fan-out's start.
    pub started: Duration,
    /// How long it took.
    pub elapsed: Duration,
}

impl FanOut {
    /// The report that finished last (the critical path).
    pub fn critical_path(&self) -> Option<&CloudReport> {
        self.reports.iter().max_by_key(|r| r.started + r.elapsed)
    }
}

/// The result of `sky check`: every cloud's report, and the clouds
/// `allowed_clouds` ruled out before any check.
#[derive(Debug, Clone, Default)]
pub struct CheckReport {
    /// Per-cloud reports, in check order (every cloud some reported
    /// workspace allows, or the clouds named on the command line).
    pub fanout: FanOut,
    /// Clouds disabled by `allowed_clouds` (or the active workspace).
    pub not_allowed: Vec<CloudId>,
    /// Names in `SKY_ENABLED_CLOUDS` or `allowed_clouds` that were skipped,
    /// one warning line each.
    pub warnings: Vec<String>,
    /// The workspaces the config defines (`default` first): with more
    /// than one, 0.14.1 names them in the header and reports each.
    pub available_workspaces: Vec<String>,
    /// The workspaces reported on, in order: the one `--workspace` named,
    /// else every available one (`check.check_capabilities`).
    pub workspaces: Vec<WorkspaceCheck>,
    /// Whether `--workspace` picked one (per-cloud details are then always shown).
    pub workspace_selected: bool,
    /// The clouds and storage-only providers named on the command line
    /// (`sky check aws cloudflare`), if any, in the order named and with
    /// repeats (0.14.1 checks a name given twice twice): they are reported
    /// even where a workspace does not allow them.
    pub explicit: Option<Vec<Provider>>,
    /// Why 0.14.1 would raise `ValueError` after the header, with this
    /// message: a name on the command line that is no cloud (`sky check
    /// r2`, [`invalid_cloud_message`]), or a `--workspace` the config does
    /// not define (then `workspaces` is empty). Nothing was checked.
    pub invalid: Option<String>,
}

/// `check.get_cloud_tuple`'s error for a name that is neither a cloud nor a
/// storage-only provider.
pub fn invalid_cloud_message(name: &str) -> String {
    format!(
        "Cloud {} is not a valid cloud among {}",
        crate::pytext::py_str_repr(name),
        crate::pytext::py_list(&Provider::all_names_sorted())
    )
}

/// One workspace of a `sky check`: the clouds it allows
/// (`check._execute_check_logic_for_workspace`: `allowed_clouds`, less the
/// clouds `workspaces.<name>.<cloud>.disabled` turns off).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WorkspaceCheck {
    /// The workspace name.
    pub name: String,
    /// The clouds it allows, in `CloudId::ALL` order.
    pub allowed: Vec<CloudId>,
    /// The storage-only providers it allows, in `StorageOnly::ALL` order.
    pub storage_only: Vec<StorageOnly>,
    /// Clouds whose capabilities the config restricts
    /// (`workspaces.<name>.<cloud>.capabilities`, else `<cloud>.capabilities`:
    /// `check._get_workspace_cloud_capabilities`); the others check both.
    pub capabilities: Vec<(CloudId, Vec<Capability>)>,
}

impl WorkspaceCheck {
    /// Whether the workspace allows `provider` (`allowed_clouds`, less what
    /// it disables).
    pub fn allows(&self, provider: Provider) -> bool {
        match provider {
            Provider::Cloud(c) => self.allowed.contains(&c),
            Provider::StorageOnly(s) => self.storage_only.contains(&s),
        }
    }

    /// The capabilities checked for an allowed `provider`: what the config
    /// lists for it, else both (`sky.clouds.cloud.ALL_CAPABILITIES`).
    pub fn capabilities_of(&self, provider: Provider) -> &[Capability] {
        let listed = match provider {
            Provider::Cloud(c) => self
                .capabilities
                .iter()
                .find(|(cloud, _)| *cloud == c)
                .map(|(_, caps)| caps.as_slice()),
            Provider::StorageOnly(_) => None,
        };
        listed.unwrap_or(&ALL_CAPABILITIES)
    }
}

/// What a cloud's credentials are checked for (`sky.clouds.CloudCapability`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Capability {
    /// `compute`: launching instances.
    Compute,
    /// `storage`: buckets.
    Storage,
}

impl Capability {
    /// The value SkyPilot prints (`CloudCapability.value`).
    pub fn as_str(self) -> &'static str {
        match self {
            Capability::Compute => "compute",
            Capability::Storage => "storage",
        }
    }
}

/// `sky.clouds.cloud.ALL_CAPABILITIES`, in SkyPilot's order.
pub const ALL_CAPABILITIES: [Capability; 2] = [Capability::Compute, Capability::Storage];

impl Capability {
    /// The capability a config value names (`compute`, `storage`, any case,
    /// as the schema's `case_insensitive_enum` accepts them).
    pub fn parse(text: &str) -> Option<Capability> {
        match text.to_ascii_lowercase().as_str() {
            "compute" => Some(Capability::Compute),
            "storage" => Some(Capability::Storage),
            _ => None,
        }
    }

    /// Whether `provider` has a check for this capability at all (else
    /// SkyPilot's `check_credentials` raises `NotSupportedError` and the
    /// capability is not shown): compute for every cloud and for
    /// Cloudflare; storage per [`StorageRule`] and for every storage-only
    /// provider.
    pub fn supported_by(self, provider: Provider) -> bool {
        match (self, provider) {
            (Capability::Compute, Provider::Cloud(_)) => true,
            (Capability::Compute, Provider::StorageOnly(s)) => s.answers_compute(),
            (Capability::Storage, Provider::Cloud(c)) => {
                c.storage_rule() != StorageRule::Unsupported
            }
            (Capability::Storage, Provider::StorageOnly(_)) => true,
        }
    }
}

/// One capability's answer for one provider, as
/// `check_one_cloud_one_capability` returns it (`(ok, reason)`), before any
/// text is made of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CapabilityAnswer<'a> {
    /// `ok`.
    Enabled,
    /// Not enabled, for this reason (SkyPilot's text; not yet stripped).
    Disabled(&'a str),
    /// The check failed: transient or not ([`CloudError::is_transient`]).
    Failed(&'a CloudError),
    /// The workspace does not allow the provider: no check ran.
    NotAllowed,
    /// The provider was allowed but no check of this capability ran
    /// (it was not asked for).
    NotChecked,
}

impl CheckReport {
    /// Whether anything is enabled: in some reported workspace, some
    /// provider has some capability enabled (what the summary lists).
    pub fn enabled_anywhere(&self) -> bool {
        self.workspaces
            .iter()
            .any(|ws| !self.enabled_capabilities(ws).is_empty())
    }

    /// The providers a workspace reports, in 0.14.1's check order
    /// (`check._execute_check_logic_for_workspace`'s `clouds_to_check`):
    /// the ones named on the command line as named (repeats kept), else
    /// every cloud it allows in the registry's order
    /// ([`CloudId::REGISTRY_ORDER`]), then the storage-only providers it
    /// allows (`check.get_all_clouds`).
    pub fn shown(&self, ws: &WorkspaceCheck) -> Vec<Provider> {
        match &self.explicit {
            Some(list) => list.clone(),
            None => CloudId::REGISTRY_ORDER
                .into_iter()
                .filter(|c| ws.allowed.contains(c))
                .map(Provider::Cloud)
                .chain(
                    StorageOnly::ALL
                        .into_iter()
                        .filter(|s| ws.storage_only.contains(s))
                        .map(Provider::StorageOnly),
                )
                .collect(),
        }
    }

    /// What 0.14.1's `check.check` returns for a workspace, and so what
    /// `sky check -o json` prints for it: every provider with some
    /// capability enabled, in check order ([`CheckReport::shown`]), with
    /// its enabled capabilities in the order they were checked
    /// (`enabled_clouds.setdefault(cloud_repr, []).append(capability)` in
    /// `_execute_check_logic_for_workspace`). A provider named twice keeps
    /// its first place and lists its capabilities twice, as SkyPilot's dict
    /// does; one with nothing enabled is absent.
    pub fn enabled_capabilities(&self, ws: &WorkspaceCheck) -> Vec<(Provider, Vec<Capability>)> {
        let mut out: Vec<(Provider, Vec<Capability>)> = Vec::new();
        for provider in self.shown(ws) {
            let enabled: Vec<Capability> = self
                .answers(ws, provider)
                .into_iter()
                .filter(|(_, answer)| *answer == CapabilityAnswer::Enabled)
                .map(|(capability, _)| capability)
                .collect();
            if enabled.is_empty() {
                continue;
            }
            match out.iter_mut().find(|(p, _)| *p == provider) {
                Some((_, list)) => list.extend(enabled),
                None => out.push((provider, enabled)),
            }
        }
        out
    }

    /// `provider`'s answer per capability in `ws`, in capability order:
    /// every capability when the workspace does not allow it (SkyPilot
    /// reports "not included in allowed_clouds" for each, no check runs);
    /// else each capability the workspace checks and the provider supports.
    /// Empty when none is supported (SkyPilot prints nothing then). The
    /// storage check stands in for Cloudflare's compute, and the compute
    /// check for storage where the storage check is the compute check.
    pub fn answers(
        &self,
        ws: &WorkspaceCheck,
        provider: Provider,
    ) -> Vec<(Capability, CapabilityAnswer<'_>)> {
        if !ws.allows(provider) {
            return ALL_CAPABILITIES
                .iter()
                .map(|&c| (c, CapabilityAnswer::NotAllowed))
                .collect();
        }
        let compute = match provider {
            Provider::Cloud(c) => self.fanout.reports.iter().find(|r| r.cloud == c),
            Provider::StorageOnly(_) => None,
        };
        let storage = self.fanout.storage.iter().find(|r| r.provider == provider);
        let compute_answer = || match compute.map(|r| &r.outcome) {
            Some(Outcome::Ready(_)) => CapabilityAnswer::Enabled,
            Some(Outcome::NoCredentials(hint)) => CapabilityAnswer::Disabled(hint),
            Some(Outcome::Failed(e)) => CapabilityAnswer::Failed(e),
            None => CapabilityAnswer::NotChecked,
        };
        let storage_answer = || match storage.map(|r| &r.outcome) {
            Some(StorageOutcome::Enabled) => CapabilityAnswer::Enabled,
            Some(StorageOutcome::Disabled(reason)) => CapabilityAnswer::Disabled(reason),
            Some(StorageOutcome::SameAsCompute) => compute_answer(),
            Some(StorageOutcome::Failed(e)) => CapabilityAnswer::Failed(e),
            None => CapabilityAnswer::NotChecked,
        };
        ws.capabilities_of(provider)
            .iter()
            .filter(|c| c.supported_by(provider))
            .map(|&capability| {
                let answer = match (capability, provider) {
                    (Capability::Compute, Provider::Cloud(_)) => compute_answer(),
                    (Capability::Compute, Provider::StorageOnly(_)) => storage_answer(),
                    (Capability::Storage, Provider::Cloud(c))
                        if c.storage_rule() == StorageRule::SameAsCompute =>
                    {
                        compute_answer()
                    }
                    (Capability::Storage, _) => storage_answer(),
                };
                (capability, answer)
            })
            .collect()
    }

    /// Clouds enabled for compute, in check order.
    pub fn enabled(&self) -> Vec<CloudId> {
        self.fanout
            .reports
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::Ready(_)))
            .map(|r| r.cloud)
            .collect()
    }

    /// Clouds whose check failed transiently ([`CloudError::is_transient`]).
    pub fn undecided(&self) -> Vec<CloudId> {
        self.fanout
            .reports
            .iter()
            .filter(|r| matches!(&r.outcome, Outcome::Failed(e) if e.is_transient()))
            .map(|r| r.cloud)
            .collect()
    }

    /// The enabled set to persist for later launches, given the one persisted
    /// before (`None`: no `sky check` yet, so launches consider every cloud).
    /// Enabled clouds are in; clouds with a verdict against them are out; a
    /// cloud whose check failed transiently keeps its previous standing
    /// (in when there was no previous set), so a later launch checks it again
    /// instead of silently leaving it out. Check order is kept.
    pub fn persisted_enabled(&self, previous: Option<&[CloudId]>) -> Vec<CloudId> {
        self.fanout
            .reports
            .iter()
            .filter(|r| match &r.outcome {
                Outcome::Ready(_) => true,
                Outcome::Failed(e) if e.is_transient() => {
                    previous.is_none_or(|p| p.contains(&r.cloud))
                }
                _ => false,
            })
            .map(|r| r.cloud)
            .collect()
    }
}

/// A deadline as messages show it: `5s`, `1.5s`, `900ms` (Rust's `Debug`
/// of a [`Duration`], which is already the short human form).
pub fn show_duration(d: Duration) -> String {
    format!("{d:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(outcomes: Vec<(CloudId, Outcome)>) -> CheckReport {
        CheckReport {
            fanout: FanOut {
                reports: outcomes
                    .into_iter()
                    .map(|(cloud, outcome)| CloudReport {
                        cloud,
                        outcome,
                        started: Duration::ZERO,
                        elapsed: Duration::ZERO,
                    })
                    .collect(),
                storage: Vec::new(),
                wall: Duration::ZERO,
            },
            not_allowed: Vec::new(),
            warnings: Vec::new(),
            ..CheckReport::default()
        }
    }

    fn ready() -> Outcome {
        Outcome::Ready(CheckOutcome {
            facts: CloudFacts::Catalog,
            cache: CacheUse::None,
        })
    }

    #[test]
    fn transient_failures_keep_their_previous_standing() {
        use CloudId::{Aws, Gcp, Lambda};
        let timeout = || Outcome::Failed(CloudError::Timeout(Duration::from_secs(5)));
        let server = || Outcome::Failed(CloudError::Service("HTTP 503".into()));
        let auth = || Outcome::Failed(CloudError::Auth("expired".into()));
        let config = || Outcome::Failed(CloudError::Config("bad kubeconfig".into()));
        let none = || Outcome::NoCredentials("set AWS_ACCESS_KEY_ID".into());
        // (outcome of AWS, previous set, AWS persisted?)
        let cases: Vec<(Outcome, Option<Vec<CloudId>>, bool)> = vec![
            (ready(), None, true),
            (ready(), Some(vec![Gcp]), true),
            (timeout(), None, true),
            (timeout(), Some(vec![Aws, Gcp]), true),
            (timeout(), Some(vec![Gcp]), false),
            (server(), None, true),
            (server(), Some(vec![Aws]), true),
            (server(), Some(vec![]), false),
            (auth(), None, false),
            (auth(), Some(vec![Aws]), false),
            (config(), Some(vec![Aws]), false),
            (none(), Some(vec![Aws]), false),
        ];
        for (aws, previous, expected) in cases {
            let label = format!("{aws:?} after {previous:?}");
            let r = report(vec![(Aws, aws), (Gcp, ready()), (Lambda, none())]);
            let persisted = r.persisted_enabled(previous.as_deref());
            assert_eq!(persisted.contains(&Aws), expected, "{label}");
            assert!(persisted.contains(&Gcp), "{label}");
            assert!(!persisted.contains(&Lambda), "{label}");
            assert_eq!(persisted.first(), Some(if expected { &Aws } else { &Gcp }));
        }
    }
}
