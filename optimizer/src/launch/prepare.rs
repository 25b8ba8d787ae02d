//! Gathering the world: which clouds to consider, their checks (one
//! concurrent fan-out) while the catalogs load on threads, and the
//! [`World`] built from both.

use std::sync::Arc;

use planner::catalog::kubernetes::KubeContext;
use planner::check::{CloudFacts, GcpReservations, Outcome, SshFacts};
use planner::cloud::CloudId;
use planner::config::SkyConfig;
use planner::launch::{Excluded, Prepared};
use planner::volumes::VolumeRecord;
use planner::world::{ReservationCloud, World};

use super::check::persisted_enabled_clouds;
use super::{LaunchError, LaunchOptions};
use crate::catalogs;
use crate::clouds::aws::{AwsCloud, AzMappingFetch, az_mapping_hash};
use crate::clouds::gcp::GcpCloud;
use crate::clouds::kubernetes::{KubernetesCloud, LazyStateNodeCache, contexts_from_fixture_dir};
use crate::clouds::nebius::NebiusCloud;
use crate::clouds::oci::OciCloud;
use crate::clouds::slurm::{LazyStateInventoryCache, SlurmCloud};
use crate::clouds::ssh::SshCloud;
use crate::clouds::{CatalogOnlyCloud, CheckContext, Cloud, fan_out};
use crate::config::{self, ConfigError};
use planner::catalog::slurm::{SlurmSettings, SlurmWorld};
use planner::catalog::ssh::SshWorld;

/// The adapters of `clouds`, in that order: AWS, GCP, Kubernetes, SSH and
/// Slurm have their own; every other cloud is checked from its table entry.
pub(super) fn adapters(
    clouds: &[CloudId],
    options: &LaunchOptions,
    sky_config: &SkyConfig,
) -> Vec<Arc<dyn Cloud>> {
    let kube_options = || {
        let mut kube = options.kubernetes.clone();
        if kube.node_cache.is_none() {
            kube.node_cache = Some(Arc::new(LazyStateNodeCache::new(&options.state_dir)));
        }
        kube
    };
    clouds
        .iter()
        .filter_map(|&c| -> Option<Arc<dyn Cloud>> {
            Some(match c {
                CloudId::Aws => Arc::new(AwsCloud::new(options.aws.clone())),
                CloudId::Gcp => Arc::new(GcpCloud::new(options.gcp.clone())),
                CloudId::Oci => Arc::new(OciCloud::new(options.oci.clone())),
                CloudId::Nebius => Arc::new(NebiusCloud::new(options.nebius.clone())),
                CloudId::Kubernetes => Arc::new(KubernetesCloud::new(kube_options())),
                CloudId::Ssh => {
                    let mut ssh = options.ssh.clone();
                    ssh.kubernetes = kube_options();
                    Arc::new(SshCloud::new(ssh, sky_config.ssh_allowed_node_pools()))
                }
                CloudId::Slurm => {
                    let mut slurm = options.slurm.clone();
                    if slurm.cache.is_none() {
                        slurm.cache =
                            Some(Arc::new(LazyStateInventoryCache::new(&options.state_dir)));
                    }
                    let allowed = SlurmSettings::from_config(&sky_config.raw)
                        .ok()
                        .and_then(|s| s.allowed_clusters);
                    Arc::new(SlurmCloud::new(slurm, allowed))
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
        sky_config: sky_config.clone(),
    }
}

/// The clouds SkyPilot would consider: declared, or every cloud, less
/// those `allowed_clouds` or the active workspace rule out
/// (`check.get_cached_enabled_clouds_or_refresh` with
/// `_get_workspace_allowed_clouds`).
pub fn candidate_clouds(options: &LaunchOptions, sky_config: &SkyConfig) -> Vec<CloudId> {
    let base: Vec<CloudId> = options
        .declared_clouds
        .clone()
        .or_else(|| persisted_enabled_clouds(&options.state_dir))
        .unwrap_or_else(|| CloudId::ALL.to_vec());
    let workspace = sky_config.active_workspace();
    base.into_iter()
        .filter(|&c| sky_config.workspace_allows(&workspace, c))
        .collect()
}

/// The user's volumes from `SKY_VOLUMES_FILE`, if set.
fn load_volumes(options: &LaunchOptions) -> Result<Vec<VolumeRecord>, LaunchError> {
    let Some(path) = &options.volumes_file else {
        return Ok(Vec::new());
    };
    let text = crate::input::read_regular_text(path, crate::input::MAX_CONFIG_FILE_BYTES)
        .map_err(|e| ConfigError::Volumes(e.to_string()))?;
    planner::volumes::parse_volume_records(&text, &path.display().to_string())
        .map_err(|e| ConfigError::Volumes(e).into())
}

/// Checks the clouds (concurrently, per the options) while the catalogs load
/// and, where SkyPilot would, download — and builds the [`World`].
/// `rows_of` says which catalog rows the request can read (see
/// [`catalogs::gather`]).
pub async fn prepare(
    options: &LaunchOptions,
    rows_of: catalogs::RowsOf,
) -> Result<Prepared, LaunchError> {
    // Configuration and the adapters, up to the fan-out (no await inside).
    let configured = tracing::info_span!("configure").entered();
    let cli = config::cli_layer(
        &options.config_args,
        options.workspace.as_deref(),
        &options.home,
    )
    .map_err(|e| LaunchError::Usage(e.to_string()))?;
    let loaded_config = config::load_config(
        &options.env,
        &options.home,
        options.project_dir.as_deref(),
        &cli,
    )?;
    let sky_config = loaded_config.config.clone();
    let volumes = load_volumes(options)?;
    let candidates = candidate_clouds(options, &sky_config);
    let mode = catalogs::Mode::resolve(
        options.catalog_dir.as_deref(),
        &options.env,
        &options.home,
        &options.catalogs,
    )?;
    let source = mode.source();
    let ctx = Arc::new(check_context(options, &sky_config));

    // Offline Kubernetes fixtures replace the live adapter.
    let offline_kube =
        options.kube_nodes_dir.is_some() && candidates.contains(&CloudId::Kubernetes);
    let to_check: Vec<CloudId> = candidates
        .iter()
        .copied()
        .filter(|c| !(offline_kube && *c == CloudId::Kubernetes))
        .collect();

    // Catalogs SkyPilot builds locally (vSphere) are read from the folder
    // in use, else from SkyPilot's own, even when the others are bundled.
    let local_catalog_dir = match &mode {
        catalogs::Mode::Explicit(dir) => dir.clone(),
        catalogs::Mode::Shared(f) => f.root().to_path_buf(),
        catalogs::Mode::Bundled => catalogs::default_folder(&options.env, &options.home),
    };
    let declared = options.declared_clouds.is_some();
    // The AWS zone names go where SkyPilot keeps them, and only there.
    let shared_folder = mode.shared().cloned();
    let mut adapter_options = options.clone();
    adapter_options.aws.az_mappings = shared_folder.as_ref().map(|f| {
        options
            .aws
            .az_mappings
            .clone()
            .unwrap_or_else(|| AzMappingFetch::new(f.root()))
    });
    let plan = catalogs::Plan::new(mode, &candidates, options.catalogs.clock.now());
    // A download starts once its cloud is known to be usable: declared
    // clouds at once, the others when the fan-out has found credentials.
    let fetching = plan.fetching();
    let mut needs = std::collections::HashMap::new();
    let mut checked = Vec::new();
    for adapter in adapters(&to_check, &adapter_options, &sky_config) {
        let cloud = adapter.id();
        if fetching.contains(&cloud) && !declared {
            let (wrapped, need) = catalogs::signal_need(adapter);
            needs.insert(cloud, need);
            checked.push(wrapped);
        } else {
            checked.push(adapter);
        }
    }
    for cloud in fetching {
        needs.entry(cloud).or_insert(catalogs::Need::Now);
    }
    let deadlines = catalogs::Deadlines {
        per_file: options.cloud_timeout,
        global: tokio::time::Instant::now() + options.fanout.global_deadline,
    };
    let gather = catalogs::gather(
        plan,
        needs,
        rows_of,
        options.state_dir.clone(),
        options.catalogs.clone(),
        deadlines,
    );
    // Closed before the fan-out's span opens: a span stays open while it
    // has children.
    drop(configured);
    let span = tracing::info_span!(
        "fan_out",
        clouds = to_check.len(),
        serial = options.fanout.serial
    );
    let fan = tracing::Instrument::instrument(fan_out(checked, ctx, options.fanout.clone()), span);
    // The whole gathering, including the wait for its loader thread to hand
    // over (`catalog_load` is that thread's own span).
    let gather = tracing::Instrument::instrument(gather, tracing::info_span!("gather_catalogs"));
    let (fanout, gathered) = tokio::join!(fan, gather);
    // No await from here on: the span guard may be held.
    let _world = tracing::info_span!("build_world").entered();
    let mut gathered = gathered?;
    let catalog_load = gathered.elapsed;
    let local: Vec<CloudId> = gathered
        .unusable
        .iter()
        .map(|(c, _)| *c)
        .filter(|c| c.local_catalog().is_some())
        .collect();
    gathered.unusable.retain(|(c, _)| !local.contains(c));
    let mut loaded = gathered.loaded;
    catalogs::load_local_catalogs(&local_catalog_dir, &local, None, &mut loaded)?;

    let mut warnings: Vec<String> = options.warnings.clone();
    warnings.extend(sky_config.ignored_clouds.iter().map(ToString::to_string));
    let mut oci_warnings: Vec<String> = Vec::new();
    let mut excluded = Vec::new();
    let mut enabled = Vec::new();
    let mut kube_contexts: Vec<KubeContext> = Vec::new();
    let mut ssh_facts: Option<SshFacts> = None;
    let mut slurm_clusters = Vec::new();
    let mut aws_identity_hash = None;
    let mut gcp_reservations = None;
    // OCI's subscribed regions and Nebius' tenant prices reshape their catalogs.
    let mut catalog_facts: Vec<CloudFacts> = Vec::new();
    for cloud in &candidates {
        if offline_kube && *cloud == CloudId::Kubernetes {
            let names = options.kube_contexts.clone().unwrap_or_default();
            if let Some(dir) = &options.kube_nodes_dir {
                kube_contexts = contexts_from_fixture_dir(dir, &names);
            }
            if let Some(reason) = all_contexts_unreachable(&kube_contexts) {
                excluded.push(Excluded {
                    cloud: *cloud,
                    reason,
                });
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
                        aws_identity_hash =
                            f.identity.as_ref().map(|i| az_mapping_hash(&i.user_id));
                        warnings.extend(f.warnings.iter().cloned());
                    }
                    CloudFacts::Kubernetes(ctxs) => {
                        // Every context unreachable: Kubernetes is left out
                        // of the table as surely as a failed check (SkyPilot
                        // still prints its per-context notices, and so do we).
                        if let Some(reason) = all_contexts_unreachable(ctxs) {
                            excluded.push(Excluded {
                                cloud: *cloud,
                                reason,
                            });
                        }
                        kube_contexts = ctxs.clone();
                    }
                    CloudFacts::Gcp(r) => gcp_reservations = Some(r.clone()),
                    CloudFacts::Oci(f) => {
                        if let Some(why) = &f.unavailable {
                            oci_warnings.push(format!(
                                "{why}; OCI plans on every catalog region, as SkyPilot does"
                            ));
                        }
                        catalog_facts.push(o.facts.clone());
                    }
                    CloudFacts::Nebius(_) => catalog_facts.push(o.facts.clone()),
                    CloudFacts::Ssh(f) => ssh_facts = Some(f.clone()),
                    CloudFacts::Slurm(c) => slurm_clusters = c.clone(),
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
    // A usable cloud whose catalog could not be had at all is left out.
    enabled.retain(
        |cloud| match gathered.unusable.iter().find(|(c, _)| c == cloud) {
            Some((_, reason)) => {
                excluded.push(Excluded {
                    cloud: *cloud,
                    reason: reason.clone(),
                });
                false
            }
            None => true,
        },
    );
    warnings.extend(catalog_warnings(
        &enabled,
        &gathered.problems,
        &gathered.origins,
        &source,
    ));
    warnings.extend(catalog_warning_lines(&loaded.warnings));
    let catalog_origins = gathered
        .origins
        .into_iter()
        .filter(|o| match o.cloud {
            Some(c) => enabled.contains(&c),
            None => enabled.iter().any(|c| c.has_csv_catalog()),
        })
        .collect();
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
    // An enabled cloud whose locally built catalog is absent offers
    // nothing (as in SkyPilot); say what builds it.
    for (cloud, path) in &loaded.missing_local {
        if let (true, Some(local)) = (enabled.contains(cloud), cloud.local_catalog()) {
            warnings.push(format!(
                "{} offers nothing: its catalog {} does not exist. {}.",
                cloud.repr(),
                path.display(),
                local.built_by
            ));
        }
    }
    let az_mapping = if enabled.contains(&CloudId::Aws) {
        // A mapping the AWS check has just fetched is not among those loaded
        // beside the catalog before it finished.
        if let (Some(hash), Some(catalogs::Input::File { path, .. })) =
            (&aws_identity_hash, &gathered.aws_input)
            && !loaded.az_mappings.iter().any(|(h, _)| h == hash)
        {
            let file = path.with_file_name(format!("az_mappings-{hash}.csv"));
            if let Ok(bytes) = std::fs::read(&file) {
                match planner::catalog::AzMapping::from_reader(
                    &bytes[..],
                    &file.display().to_string(),
                ) {
                    Ok(m) => loaded.az_mappings.insert(0, (hash.clone(), m)),
                    Err(e) => warnings.push(e.to_string()),
                }
            }
        }
        loaded.apply_aws_identity(aws_identity_hash.as_deref())
    } else {
        None
    };
    let slurm_settings = SlurmSettings::from_config(&sky_config.raw).map_err(|e| {
        ConfigError::Planner(planner::config::ConfigError::SkyConfig {
            source_name: "~/.sky/config.yaml".into(),
            message: e.to_string(),
        })
    })?;
    let workspace_error = sky_config.check_active_workspace().err();
    let mut world = World {
        catalog: loaded.catalog,
        enabled,
        kube_contexts,
        kube_pricing: sky_config.kube_pricing(),
        reservation_clouds: reservation_clouds(&sky_config, gcp_reservations),
        ssh: ssh_world(options, &sky_config, ssh_facts),
        slurm: SlurmWorld {
            clusters: slurm_clusters,
            settings: slurm_settings,
        },
        sky_config,
    };
    for facts in &catalog_facts {
        if let Err(e) = world.apply_cloud_facts(facts) {
            warnings.push(e.to_string());
        }
    }
    warnings.extend(oci_warnings);
    Ok(Prepared {
        world,
        fanout,
        excluded,
        warnings,
        catalog_source: source,
        catalogs: catalog_origins,
        az_mapping,
        catalog_load,
        volumes,
        server_warnings: loaded_config.server_warnings,
        workspace_error,
    })
}

/// The catalog lines a launch prints for its enabled clouds: one per failed
/// download, then one naming every file that fell back to the bundled
/// example catalogs (unless those were asked for).
fn catalog_warnings(
    enabled: &[CloudId],
    problems: &[(String, String)],
    origins: &[planner::launch::CatalogOrigin],
    source: &planner::launch::CatalogSource,
) -> Vec<String> {
    use planner::launch::{CatalogKind, CatalogSource};
    let wanted = |o: &planner::launch::CatalogOrigin| match o.cloud {
        Some(c) => enabled.contains(&c),
        None => enabled.iter().any(|c| c.has_csv_catalog()),
    };
    let mut out = Vec::new();
    let then = |o: &planner::launch::CatalogOrigin| match o.kind {
        CatalogKind::Stale => format!(
            "; using the copy from {}",
            planner::text::ago(o.age.unwrap_or_default())
        ),
        _ => String::new(),
    };
    // One line per cloud, and one for the `common/` tables together.
    let mut common: Vec<(&str, &str, String)> = Vec::new();
    for o in origins.iter().filter(|o| wanted(o)) {
        let Some((_, problem)) = problems.iter().find(|(f, _)| *f == o.file) else {
            continue;
        };
        match o.cloud {
            Some(c) => out.push(format!(
                "cannot download the {} catalog ({}): {problem}{}",
                c.repr(),
                o.file,
                then(o)
            )),
            None => common.push((&o.file, problem, then(o))),
        }
    }
    if let Some((_, problem, then)) = common.first() {
        let files: Vec<&str> = common.iter().map(|c| c.0).collect();
        out.push(format!(
            "cannot download {}: {problem}{then}",
            files.join(", ")
        ));
    }
    let CatalogSource::Dir(dir) = source else {
        return out;
    };
    let fell_back: Vec<String> = origins
        .iter()
        .filter(|o| wanted(o) && o.kind == CatalogKind::Bundled)
        .map(|o| match o.cloud {
            Some(c) => c.repr().to_string(),
            None => o.file.clone(),
        })
        .collect();
    if !fell_back.is_empty() {
        out.push(format!(
            "no catalog in {} for {}: using the example catalogs built into sky; their prices are examples, not real",
            dir.display(),
            fell_back.join(", ")
        ));
    }
    out
}

/// At most this many skipped rows are listed per catalog file; the rest are counted.
const MAX_WARNINGS_PER_FILE: usize = 10;

/// One line per skipped catalog row, at most [`MAX_WARNINGS_PER_FILE`] per
/// file and then one line counting the rest: a catalog whose every row is
/// bad must not print tens of thousands of lines.
fn catalog_warning_lines(warnings: &[planner::catalog::CatalogWarning]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < warnings.len() {
        let file = &warnings[i].source_name;
        let run = warnings[i..]
            .iter()
            .take_while(|w| &w.source_name == file)
            .count();
        out.extend(
            warnings[i..i + run.min(MAX_WARNINGS_PER_FILE)]
                .iter()
                .map(|w| w.to_string()),
        );
        if run > MAX_WARNINGS_PER_FILE {
            out.push(format!(
                "{file}: skipped {} more malformed rows",
                run - MAX_WARNINGS_PER_FILE
            ));
        }
        i += run;
    }
    out
}

/// The one-line reason Kubernetes is left out when no context answered.
fn all_contexts_unreachable(contexts: &[KubeContext]) -> Option<String> {
    if contexts.is_empty() || contexts.iter().any(|c| c.nodes.is_ok()) {
        return None;
    }
    let first = contexts.iter().find_map(|c| c.nodes.as_ref().err())?;
    // The API's error text spans lines (`Reason:`, `HTTP response body:`).
    let one_line = first.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut shown: String = one_line.chars().take(400).collect();
    if shown.len() < one_line.len() {
        shown.push('…');
    }
    Some(match contexts.len() {
        1 => format!("context {} is unreachable: {shown}", contexts[0].name),
        n => format!(
            "all {n} contexts are unreachable; {}: {shown}",
            contexts[0].name
        ),
    })
}

/// SSH Node Pools as the planner sees them: the adapter's contexts, the
/// pools file's path (for the skipped-pools warning) and each context's
/// `kubernetes.pricing` with its `context_configs` level over it.
fn ssh_world(options: &LaunchOptions, sky_config: &SkyConfig, facts: Option<SshFacts>) -> SshWorld {
    let facts = facts.unwrap_or(SshFacts {
        contexts: Vec::new(),
        skipped: Vec::new(),
    });
    let pools_file = options.ssh.node_pools_file.clone().unwrap_or_else(|| {
        config::expand_home(planner::catalog::ssh::SSH_NODE_POOLS_PATH, &options.home)
    });
    let pricing = facts
        .contexts
        .iter()
        .map(|c| {
            let p = planner::catalog::kubernetes::KubePricing::from_config(
                &sky_config.raw,
                Some(&c.name),
            )
            .unwrap_or_default();
            (c.name.clone(), p)
        })
        .collect();
    SshWorld {
        contexts: facts.contexts,
        skipped: facts.skipped,
        pools_file: pools_file.display().to_string(),
        pricing,
        skipped_logged: false,
    }
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
