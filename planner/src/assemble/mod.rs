//! The pure middle of a launch: from what the configuration decided
//! ([`Settings`]) and what the probe found ([`Found`]: the checks' reports
//! and the catalogs) to the [`World`] the planner reads, the clouds left out
//! and why, and the warnings — all as data ([`Assembled`]);
//! `render::pipeline` words them.
//!
//! Also the pure halves of choosing a launch's clouds ([`candidates`]) and
//! of `sky check` ([`check`]).

mod candidates;
pub mod check;
mod origins;
mod reasons;
#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::time::Duration;

pub use candidates::{Candidates, Enabled, candidates};
pub use origins::{CatalogKind, CatalogOrigin, CatalogSource};
pub use reasons::{Absence, Absent, FailedDownload, NoCatalog, NoCloud, Note, Unreachable};

use crate::catalog::kubernetes::{KubeContext, KubePricing};
use crate::catalog::slurm::{SlurmSettings, SlurmWorld};
use crate::catalog::ssh::SshWorld;
use crate::catalog::{AzMapping, Catalog, CatalogWarning};
use crate::check::{CloudFacts, FanOut, GcpReservations, Outcome, SshFacts};
use crate::cloud::CloudId;
use crate::config::{ConfigError, SkyConfig};
use crate::world::{ReservationCloud, World};

/// What the configuration decided that the assembly reads.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The request's merged config.
    pub config: SkyConfig,
    /// The clouds considered, and the others with why not.
    pub candidates: Candidates,
    /// Whether the clouds were declared (`SKY_ENABLED_CLOUDS`): a declared
    /// cloud without credentials is used offline (catalog only).
    pub declared: bool,
    /// Problems with the options themselves, one line each.
    pub option_warnings: Vec<String>,
    /// SSH Node Pools' file, as the skipped-pools warning names it.
    pub ssh_pools_file: String,
}

/// What the probe found.
#[derive(Debug)]
pub struct Found {
    /// The candidates' check reports (Kubernetes' missing when offline).
    pub fanout: FanOut,
    /// Kubernetes read from offline fixtures in place of its check.
    pub offline_kube: Option<Vec<KubeContext>>,
    /// The catalogs.
    pub catalogs: FoundCatalogs,
    /// The `<hash>` of the `az_mappings-<hash>.csv` the AWS identity
    /// selects, when AWS's check found one.
    pub aws_identity_hash: Option<String>,
}

/// The catalogs the probe found, and how.
#[derive(Debug)]
pub struct FoundCatalogs {
    /// The folder (or the bundled catalogs) they were read from.
    pub source: CatalogSource,
    /// Every catalog that could be had (AWS still keyed by zone IDs).
    pub catalog: Catalog,
    /// Malformed rows skipped, file by file.
    pub skipped_rows: Vec<CatalogWarning>,
    /// Where each file came from, in catalog order.
    pub origins: Vec<CatalogOrigin>,
    /// Failed downloads: (file, what went wrong).
    pub problems: Vec<(String, String)>,
    /// Clouds for which no catalog at all could be had, and why.
    pub unusable: Vec<(CloudId, NoCatalog)>,
    /// Clouds whose locally built catalog is absent (they got an empty
    /// one), with the path looked at.
    pub missing_local: Vec<(CloudId, PathBuf)>,
    /// The AWS zone mappings found (`<hash>`, mapping), the one to use first.
    pub az_mappings: Vec<(String, AzMapping)>,
    /// The mapping the AWS identity names, fetched by its check, does not
    /// parse (the error's message).
    pub az_mapping_error: Option<String>,
    /// Wall time of the catalog loading.
    pub elapsed: Duration,
}

/// Everything a launch knows before planning, as data.
#[derive(Debug, Clone)]
pub struct Assembled {
    /// The planner's input.
    pub world: World,
    /// The check reports; Kubernetes' contexts are moved to
    /// `world.kube_contexts` (its report keeps an empty list).
    pub fanout: FanOut,
    /// Clouds wanted but left out of the table ([`Absence::is_exclusion`]),
    /// in enumeration order.
    pub excluded: Vec<Absent>,
    /// Every cloud without candidates, and why, in [`CloudId::ALL`] order.
    pub absent: Vec<Absent>,
    /// What to warn about, in order.
    pub notes: Vec<Note>,
    /// Where the catalogs came from.
    pub catalog_source: CatalogSource,
    /// Each catalog file the enabled clouds use.
    pub catalogs: Vec<CatalogOrigin>,
    /// The enabled clouds whose prices are examples standing in for a real
    /// catalog: the download failed and there was no copy, so the bundled
    /// one was used (never in the bundled mode the user chose, nor for an
    /// explicit folder's missing file, which keeps SkyPilot's output).
    pub example_prices: Vec<CloudId>,
    /// The AWS zone mapping applied (`az_mappings-<hash>.csv`), if any.
    pub az_mapping: Option<String>,
    /// Time spent loading catalogs.
    pub catalog_load: Duration,
    /// The active workspace does not exist (the server refuses the request).
    pub workspace_error: Option<String>,
}

/// Why there is no world to plan on.
#[derive(Debug)]
pub enum AssembleError {
    /// No cloud is usable.
    NoCloud(NoCloud),
    /// The config's `slurm:` section is malformed.
    Config(ConfigError),
}

/// The assembly: which candidates are usable (one pass over their reports),
/// what the ready checks learnt, the catalogs joined with it, and the notes.
pub fn assemble(settings: Settings, found: Found) -> Result<Assembled, AssembleError> {
    let Found {
        mut fanout,
        offline_kube,
        catalogs,
        aws_identity_hash,
    } = found;
    let standing = standing(&settings, &fanout, offline_kube.as_deref(), &catalogs);
    if standing.enabled.is_empty() {
        return Err(AssembleError::NoCloud(no_cloud(&fanout)));
    }
    // Moved, not cloned: on a launch over many contexts, copying every
    // node was most of the assembly.
    let kube_contexts = match offline_kube {
        Some(contexts) => contexts,
        None => take_kube_contexts(&mut fanout),
    };
    let learnt = Learnt::of(&fanout);
    let mut notes = lead_notes(&settings, &learnt);
    let (catalog_notes, mut catalogs) = catalog_notes(&standing.enabled, catalogs);
    let example_prices = example_prices(&catalog_notes);
    notes.extend(catalog_notes);
    let az_mapping = if standing.enabled.contains(&CloudId::Aws) {
        notes.extend(catalogs.az_mapping_error.take().map(Note::AzMapping));
        apply_az_mapping(&mut catalogs, aws_identity_hash.as_deref())
    } else {
        None
    };
    let Settings {
        config,
        ssh_pools_file,
        ..
    } = settings;
    let slurm_settings = SlurmSettings::from_config(&config.raw).map_err(|e| {
        AssembleError::Config(ConfigError::SkyConfig {
            source_name: "~/.sky/config.yaml".into(),
            message: e.to_string(),
        })
    })?;
    let workspace_error = config.check_active_workspace().err();
    let mut world = World {
        catalog: catalogs.catalog,
        enabled: standing.enabled,
        kube_contexts,
        kube_pricing: config.kube_pricing(),
        reservation_clouds: reservation_clouds(&config, learnt.gcp),
        ssh: ssh_world(ssh_pools_file, &config, learnt.ssh),
        slurm: SlurmWorld {
            clusters: learnt.slurm.to_vec(),
            settings: slurm_settings,
        },
        sky_config: config,
    };
    // OCI's subscribed regions and Nebius' tenant prices reshape their catalogs.
    for facts in &learnt.reshaping {
        if let Err(e) = world.apply_cloud_facts(facts) {
            notes.push(Note::CloudFacts(e.to_string()));
        }
    }
    notes.extend(learnt.oci_unavailable.map(Note::OciRegionsUnavailable));
    Ok(Assembled {
        world,
        fanout,
        excluded: standing.excluded,
        absent: standing.absent,
        notes,
        catalog_source: catalogs.source,
        catalogs: catalogs.origins,
        example_prices,
        az_mapping,
        catalog_load: catalogs.elapsed,
        workspace_error,
    })
}

/// The notes before the catalogs': the options', the config's skipped
/// cloud names, the checks' own problems.
fn lead_notes(settings: &Settings, learnt: &Learnt<'_>) -> Vec<Note> {
    let options = settings.option_warnings.iter().cloned().map(Note::Options);
    let ignored = settings.config.ignored_clouds.iter().cloned();
    let checks = learnt.aws_warnings.iter().map(|message| Note::Check {
        cloud: CloudId::Aws,
        message: message.clone(),
    });
    options
        .chain(ignored.map(Note::IgnoredCloud))
        .chain(checks)
        .collect()
}

/// Which candidates are usable, which were left out and why.
#[derive(Debug, Default)]
struct Standing {
    enabled: Vec<CloudId>,
    excluded: Vec<Absent>,
    absent: Vec<Absent>,
}

/// One pass over the candidates' reports, then their catalogs: a cloud
/// whose check is ready (or that is declared, even without credentials)
/// is usable unless no catalog at all could be had; every Kubernetes
/// context unreachable leaves it in the world but out of the table.
fn standing(
    settings: &Settings,
    fanout: &FanOut,
    offline_kube: Option<&[KubeContext]>,
    catalogs: &FoundCatalogs,
) -> Standing {
    let mut s = Standing::default();
    for &cloud in &settings.candidates.clouds {
        let (usable, why) = match (cloud, offline_kube) {
            (CloudId::Kubernetes, Some(contexts)) => (true, unreachable(contexts)),
            _ => match fanout.reports.iter().find(|r| r.cloud == cloud) {
                None => continue,
                Some(report) => verdict(&report.outcome, settings.declared),
            },
        };
        if usable {
            s.enabled.push(cloud);
        }
        if let Some(why) = why {
            let absent = Absent { cloud, why };
            if absent.why.is_exclusion() {
                s.excluded.push(absent.clone());
            }
            s.absent.push(absent);
        }
    }
    s.enabled.retain(|&cloud| {
        let Some((_, why)) = catalogs.unusable.iter().find(|(c, _)| *c == cloud) else {
            return true;
        };
        let absent = Absent {
            cloud,
            why: Absence::NoCatalog(why.clone()),
        };
        s.excluded.push(absent.clone());
        s.absent.push(absent);
        false
    });
    s.absent
        .extend(settings.candidates.left_out.iter().cloned());
    s.absent.sort_by_key(|a| a.cloud);
    s
}

/// Whether a checked cloud is usable, and why it offers nothing if it does not.
fn verdict(outcome: &Outcome, declared: bool) -> (bool, Option<Absence>) {
    match outcome {
        Outcome::Ready(o) => match &o.facts {
            // Every context unreachable: Kubernetes is left out of the table
            // as surely as a failed check (SkyPilot still prints its
            // per-context notices, and so do we).
            CloudFacts::Kubernetes(contexts) => (true, unreachable(contexts)),
            _ => (true, None),
        },
        // A declared cloud without credentials is used offline (catalog only).
        Outcome::NoCredentials(_) if declared => (true, None),
        Outcome::NoCredentials(hint) => (false, Some(Absence::NoCredentials(hint.clone()))),
        Outcome::Failed(e) => (false, Some(Absence::CheckFailed(e.clone()))),
    }
}

/// Every context unreachable (and at least one).
fn unreachable(contexts: &[KubeContext]) -> Option<Absence> {
    if contexts.iter().any(|c| c.nodes.is_ok()) {
        return None;
    }
    let (first, error) = contexts
        .iter()
        .find_map(|c| c.nodes.as_ref().err().map(|e| (&c.name, e)))?;
    Some(Absence::Unreachable(Unreachable {
        contexts: contexts.len(),
        first: first.clone(),
        error: error.clone(),
    }))
}

/// The checks that left no cloud usable.
fn no_cloud(fanout: &FanOut) -> NoCloud {
    NoCloud {
        checks: fanout
            .reports
            .iter()
            .filter_map(|r| {
                let why = match &r.outcome {
                    Outcome::NoCredentials(hint) => Absence::NoCredentials(hint.clone()),
                    Outcome::Failed(e) => Absence::CheckFailed(e.clone()),
                    Outcome::Ready(_) => return None,
                };
                Some(Absent {
                    cloud: r.cloud,
                    why,
                })
            })
            .collect(),
    }
}

/// What the ready checks learnt that the world reads, in one pass.
#[derive(Default)]
struct Learnt<'a> {
    aws_warnings: &'a [String],
    gcp: Option<&'a GcpReservations>,
    ssh: Option<&'a SshFacts>,
    slurm: &'a [crate::catalog::slurm::SlurmCluster],
    /// OCI's and Nebius' facts, which reshape their catalogs.
    reshaping: Vec<&'a CloudFacts>,
    oci_unavailable: Option<String>,
}

impl<'a> Learnt<'a> {
    fn of(fanout: &'a FanOut) -> Learnt<'a> {
        let mut learnt = Learnt::default();
        for report in &fanout.reports {
            let Outcome::Ready(o) = &report.outcome else {
                continue;
            };
            match &o.facts {
                CloudFacts::Aws(f) => learnt.aws_warnings = &f.warnings,
                CloudFacts::Gcp(r) => learnt.gcp = Some(r),
                CloudFacts::Oci(f) => {
                    learnt.oci_unavailable.clone_from(&f.unavailable);
                    learnt.reshaping.push(&o.facts);
                }
                CloudFacts::Nebius(_) => learnt.reshaping.push(&o.facts),
                CloudFacts::Ssh(f) => learnt.ssh = Some(f),
                CloudFacts::Slurm(clusters) => learnt.slurm = clusters,
                CloudFacts::Kubernetes(_) | CloudFacts::Catalog => {}
            }
        }
        learnt
    }
}

/// The contexts Kubernetes' ready check listed, taken out of its report.
fn take_kube_contexts(fanout: &mut FanOut) -> Vec<KubeContext> {
    fanout
        .reports
        .iter_mut()
        .find_map(|report| match &mut report.outcome {
            Outcome::Ready(o) => match &mut o.facts {
                CloudFacts::Kubernetes(contexts) => Some(std::mem::take(contexts)),
                _ => None,
            },
            _ => None,
        })
        .unwrap_or_default()
}

/// The catalog notes of the enabled clouds — failed downloads, example
/// catalogs standing in for a folder's missing files, skipped rows,
/// missing local catalogs — and the catalogs with only the origins of the
/// files those clouds use.
fn catalog_notes(enabled: &[CloudId], mut found: FoundCatalogs) -> (Vec<Note>, FoundCatalogs) {
    let wanted = |o: &CatalogOrigin| match o.cloud {
        Some(c) => enabled.contains(&c),
        None => enabled.iter().any(|c| c.has_csv_catalog()),
    };
    found.origins.retain(wanted);
    let mut notes = Vec::new();
    let failed: Vec<FailedDownload> = found
        .origins
        .iter()
        .filter_map(|o| {
            let (_, problem) = found.problems.iter().find(|(f, _)| *f == o.file)?;
            Some(FailedDownload {
                origin: o.clone(),
                problem: problem.clone(),
            })
        })
        .collect();
    let failed_notes = (!failed.is_empty()).then(|| Note::DownloadsFailed(failed.clone()));
    notes.extend(failed_notes);
    if let CatalogSource::Dir(dir) = &found.source {
        // A failed download's example copy is said with the failure, once.
        let files: Vec<CatalogOrigin> = found
            .origins
            .iter()
            .filter(|o| o.kind == CatalogKind::Bundled)
            .filter(|o| !failed.iter().any(|f| f.origin.file == o.file))
            .cloned()
            .collect();
        if !files.is_empty() {
            notes.push(Note::ExampleCatalogs {
                dir: dir.clone(),
                files,
            });
        }
    }
    if !found.skipped_rows.is_empty() {
        notes.push(Note::SkippedRows(std::mem::take(&mut found.skipped_rows)));
    }
    notes.extend(
        found
            .missing_local
            .iter()
            .filter(|(c, _)| enabled.contains(c) && c.local_catalog().is_some())
            .map(|(cloud, path)| Note::MissingLocalCatalog {
                cloud: *cloud,
                path: path.clone(),
            }),
    );
    (notes, found)
}

/// The clouds whose failed download left the example catalog in place.
fn example_prices(notes: &[Note]) -> Vec<CloudId> {
    notes
        .iter()
        .filter_map(|n| match n {
            Note::DownloadsFailed(failed) => Some(failed),
            _ => None,
        })
        .flatten()
        .filter(|f| f.origin.kind == CatalogKind::Bundled)
        .filter_map(|f| f.origin.cloud)
        .collect()
}

/// Joins the AWS catalog with the account's zone mapping: the one
/// `identity_hash` names when found, else the first, else zone IDs stay.
fn apply_az_mapping(found: &mut FoundCatalogs, identity_hash: Option<&str>) -> Option<String> {
    let (hash, mapping) = identity_hash
        .and_then(|h| found.az_mappings.iter().find(|(hash, _)| hash == h))
        .or_else(|| found.az_mappings.first())?;
    found
        .catalog
        .cloud_mut(CloudId::Aws)?
        .apply_az_mapping(mapping);
    Some(hash.clone())
}

/// SSH Node Pools as the planner sees them: the adapter's contexts, the
/// pools file's path (for the skipped-pools warning) and each context's
/// `kubernetes.pricing` with its `context_configs` level over it.
fn ssh_world(pools_file: String, config: &SkyConfig, facts: Option<&SshFacts>) -> SshWorld {
    let (contexts, skipped) = facts.map_or_else(Default::default, |f| {
        (f.contexts.clone(), f.skipped.clone())
    });
    let pricing = contexts
        .iter()
        .map(|c| {
            let p = KubePricing::from_config(&config.raw, Some(&c.name)).unwrap_or_default();
            (c.name.clone(), p)
        })
        .collect();
    SshWorld {
        contexts,
        skipped,
        pools_file,
        pricing,
        skipped_logged: false,
    }
}

/// The clouds with reservations configured, with what the adapters fetched.
fn reservation_clouds(config: &SkyConfig, gcp: Option<&GcpReservations>) -> Vec<ReservationCloud> {
    config
        .reservation_clouds()
        .into_iter()
        .map(|cloud| {
            let mut rc = ReservationCloud::new(cloud, config.specific_reservations(cloud));
            if cloud == CloudId::Gcp
                && let Some(fetched) = gcp
            {
                rc.reservations.clone_from(&fetched.reservations);
            }
            rc
        })
        .collect()
}
