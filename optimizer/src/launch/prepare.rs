//! Gathering the world: which clouds to consider, their checks (one
//! concurrent fan-out) while the catalogs load on threads, and the
//! [`World`] built from both.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use planner::catalog::kubernetes::KubeContext;
use planner::check::{CloudFacts, GcpReservations, Outcome};
use planner::cloud::CloudId;
use planner::config::SkyConfig;
use planner::launch::{Excluded, Prepared};
use planner::world::{ReservationCloud, World};

use super::check::persisted_enabled_clouds;
use super::{LaunchError, LaunchOptions};
use crate::catalogs;
use crate::clouds::aws::{AwsCloud, az_mapping_hash};
use crate::clouds::gcp::GcpCloud;
use crate::clouds::kubernetes::{KubernetesCloud, LazyStateNodeCache, contexts_from_fixture_dir};
use crate::clouds::{CatalogOnlyCloud, CheckContext, Cloud, fan_out};
use crate::config::{self, ConfigError};

/// The adapters of `clouds`, in that order: AWS, GCP and Kubernetes have
/// their own; every other cloud is checked from its table entry.
pub(super) fn adapters(clouds: &[CloudId], options: &LaunchOptions) -> Vec<Arc<dyn Cloud>> {
    clouds
        .iter()
        .filter_map(|&c| -> Option<Arc<dyn Cloud>> {
            Some(match c {
                CloudId::Aws => Arc::new(AwsCloud::new(options.aws.clone())),
                CloudId::Gcp => Arc::new(GcpCloud::new(options.gcp.clone())),
                CloudId::Kubernetes => {
                    let mut kube = options.kubernetes.clone();
                    if kube.node_cache.is_none() {
                        kube.node_cache =
                            Some(Arc::new(LazyStateNodeCache::new(&options.state_dir)));
                    }
                    Arc::new(KubernetesCloud::new(kube))
                }
                other => Arc::new(CatalogOnlyCloud::new(other)?),
            })
        })
        .collect()
}

/// The check context shared by all adapters.
pub(super) fn check_context(options: &LaunchOptions, sky_config: &SkyConfig) -> CheckContext {
    CheckContext {
        env: options.env.clone(),
        home: options.home.clone(),
        state_dir: options.state_dir.clone(),
        refresh: options.refresh,
        cloud_timeout: options.cloud_timeout,
        kubernetes_allowed_contexts: sky_config.kubernetes_allowed_contexts.clone(),
        reservation_clouds: sky_config.reservation_lookup_clouds(),
        gcp_project_id: sky_config.gcp_project_id(),
    }
}

/// The clouds SkyPilot would consider: declared, or every cloud allowed by the config.
pub fn candidate_clouds(options: &LaunchOptions, sky_config: &SkyConfig) -> Vec<CloudId> {
    let base: Vec<CloudId> = options
        .declared_clouds
        .clone()
        .or_else(|| persisted_enabled_clouds(&options.state_dir))
        .unwrap_or_else(|| CloudId::ALL.to_vec());
    match &sky_config.allowed_clouds {
        Some(allowed) => base.into_iter().filter(|c| allowed.contains(c)).collect(),
        None => base,
    }
}

/// Checks the clouds (concurrently, per the options) while the catalogs load,
/// and builds the [`World`].
pub async fn prepare(options: &LaunchOptions) -> Result<Prepared, LaunchError> {
    let sky_config = config::load_sky_config(&options.env, &options.home)?;
    let candidates = candidate_clouds(options, &sky_config);
    let source = catalogs::resolve_catalog_source(
        options.catalog_dir.as_deref(),
        &options.env,
        &options.home,
    );
    let ctx = Arc::new(check_context(options, &sky_config));

    // Offline Kubernetes fixtures replace the live adapter.
    let offline_kube =
        options.kube_nodes_dir.is_some() && candidates.contains(&CloudId::Kubernetes);
    let to_check: Vec<CloudId> = candidates
        .iter()
        .copied()
        .filter(|c| !(offline_kube && *c == CloudId::Kubernetes))
        .collect();

    let load_source = source.clone();
    let load_clouds = candidates.clone();
    let state_dir = options.state_dir.clone();
    let loader = tokio::task::spawn_blocking(move || {
        let started = Instant::now();
        let _span = tracing::info_span!("catalog_load").entered();
        // Without a usable state folder every launch parses the CSVs.
        let index = crate::state::StateDir::open(&state_dir)
            .and_then(|s| crate::state::CatalogIndex::open(&s))
            .inspect_err(|e| tracing::debug!(error = %e, "catalog images disabled"))
            .ok();
        (
            catalogs::load_catalog_indexed(&load_source, &load_clouds, index.as_ref()),
            started.elapsed(),
        )
    });
    let span = tracing::info_span!(
        "fan_out",
        clouds = to_check.len(),
        serial = options.fanout.serial
    );
    let fanout = tracing::Instrument::instrument(
        fan_out(adapters(&to_check, options), ctx, options.fanout.clone()),
        span,
    )
    .await;
    let (loaded, catalog_load) = loader.await.map_err(|e| ConfigError::Io {
        path: PathBuf::from("<catalog loader>"),
        source: std::io::Error::other(e.to_string()),
    })?;
    let mut loaded = loaded?;

    let warnings: Vec<String> = loaded.warnings.iter().map(|w| w.to_string()).collect();
    let mut excluded = Vec::new();
    let mut enabled = Vec::new();
    let mut kube_contexts: Vec<KubeContext> = Vec::new();
    let mut aws_identity_hash = None;
    let mut gcp_reservations = None;
    let declared = options.declared_clouds.is_some();
    for cloud in &candidates {
        if offline_kube && *cloud == CloudId::Kubernetes {
            let names = options.kube_contexts.clone().unwrap_or_default();
            if let Some(dir) = &options.kube_nodes_dir {
                kube_contexts = contexts_from_fixture_dir(dir, &names);
            }
            enabled.push(*cloud);
            continue;
        }
        let Some(report) = fanout.reports.iter().find(|r| r.cloud == *cloud) else {
            continue;
        };
        match &report.outcome {
            Outcome::Ready(o) => {
                match &o.facts {
                    CloudFacts::Aws(f) => {
                        aws_identity_hash = f.identity.as_ref().map(|i| az_mapping_hash(&i.user_id))
                    }
                    CloudFacts::Kubernetes(ctxs) => kube_contexts = ctxs.clone(),
                    CloudFacts::Gcp(r) => gcp_reservations = Some(r.clone()),
                    CloudFacts::Catalog => {}
                }
                enabled.push(*cloud);
            }
            // A declared cloud without credentials is used offline (catalog only).
            Outcome::NoCredentials(_) if declared => enabled.push(*cloud),
            Outcome::NoCredentials(_) => {}
            Outcome::Failed(e) => excluded.push(Excluded {
                cloud: *cloud,
                reason: e.to_string(),
            }),
        }
    }
    if enabled.is_empty() {
        let hints: Vec<String> = fanout
            .reports
            .iter()
            .filter_map(|r| match &r.outcome {
                Outcome::NoCredentials(h) => Some(format!("  {}: {h}", r.cloud.repr())),
                Outcome::Failed(e) => Some(format!("  {}: {e}", r.cloud.repr())),
                Outcome::Ready(_) => None,
            })
            .collect();
        return Err(LaunchError::NoCloud(format!(
            "No cloud is enabled. Set up credentials for one of these clouds, or declare the clouds to use offline with SKY_ENABLED_CLOUDS=aws,gcp,...:\n{}",
            hints.join("\n")
        )));
    }
    let az_mapping = if enabled.contains(&CloudId::Aws) {
        loaded.apply_aws_identity(aws_identity_hash.as_deref())
    } else {
        None
    };
    let world = World {
        catalog: loaded.catalog,
        enabled,
        kube_contexts,
        kube_pricing: sky_config.kube_pricing(),
        reservation_clouds: reservation_clouds(&sky_config, gcp_reservations),
    };
    Ok(Prepared {
        world,
        fanout,
        excluded,
        warnings,
        catalog_source: source,
        az_mapping,
        catalog_load,
    })
}

/// The clouds with reservations configured, with what the adapters fetched.
fn reservation_clouds(
    sky_config: &SkyConfig,
    mut gcp: Option<GcpReservations>,
) -> Vec<ReservationCloud> {
    sky_config
        .reservation_clouds()
        .into_iter()
        .map(|cloud| {
            let mut rc = ReservationCloud::new(cloud, sky_config.specific_reservations(cloud));
            if cloud == CloudId::Gcp
                && let Some(fetched) = gcp.take()
            {
                rc.reservations = fetched.reservations;
            }
            rc
        })
        .collect()
}
