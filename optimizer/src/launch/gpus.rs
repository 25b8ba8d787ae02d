//! `sky gpus list`: the I/O half. Finds the catalogs as a launch does
//! (`catalogs::Mode`: `--catalog-dir` > `SKY_CATALOG_DIR` >
//! `SKY_BUNDLED_CATALOGS` > SkyPilot's folder) and loads them with the
//! launch's loader: a current catalog image (the launch's, under the same
//! key) decodes only the row runs the listing reads
//! ([`planner::gpus::ListingRuns`]), a changed `vms.csv` is parsed and its
//! image stored for both. For the enabled Kubernetes,
//! SSH Node Pool and Slurm clouds — lists the contexts' nodes and pods and
//! asks the Slurm login nodes, concurrently and within the per-cloud and
//! global deadlines, while the catalogs load. `planner::gpus::show` puts it
//! together; `planner::render::gpus` prints it.
//!
//! No catalog download: the catalogs are read as they are. A file
//! SkyPilot's folder lacks is taken from the bundled example catalogs with a
//! warning (a launch would download it; `sky catalog refresh` does).

use std::collections::BTreeMap;
use std::sync::Arc;

use planner::cloud::CloudId;
use planner::gpus::kubernetes::Pods;
use planner::gpus::show::{ContextData, Enabled, Realtime};
use planner::gpus::{self, CloudGpuRows, CloudSummary, GpusError, ListingRuns, Query, Report};

use super::adapters::check_context;
use super::configure::{launch_sources, merged_config};
use super::options::{LaunchError, LaunchOptions};
use crate::catalogs::Mode;
use crate::catalogs::{self, Input};
use crate::clouds::CheckContext;
use crate::clouds::kubernetes::{
    ExecCredentials, KubernetesCloud, LazyStateNodeCache, context_gpu_data,
    contexts_from_fixture_dir, pods_from_fixture_dir,
};
use crate::clouds::slurm::SlurmCloud;
use crate::clouds::ssh::SshCloud;
use crate::config::ConfigError;
use crate::state::{CatalogIndex, StateDir};

/// What one `sky gpus list` came to.
#[derive(Debug)]
pub struct GpusOutcome {
    /// The text report (absent with `-o json`).
    pub report: Option<Report>,
    /// The `-o json` listing.
    pub json: Option<gpus::Listing>,
    /// One line each: catalogs that could not be read or were replaced,
    /// contexts whose pods could not be listed.
    pub warnings: Vec<String>,
    /// Contexts left out because they could not be listed, with the reason
    /// (SkyPilot says nothing of them; `-v` prints them).
    pub left_out: Vec<(String, String)>,
}

/// The enabled set as SkyPilot's `sdk.enabled_clouds()` answers it: the
/// declared clouds, else those of the last `sky check` (none before one).
fn enabled_clouds(options: &LaunchOptions) -> Vec<CloudId> {
    options
        .declared_clouds
        .clone()
        .or_else(|| super::enabled::persisted_enabled_clouds(&options.state_dir))
        .unwrap_or_default()
}

/// Where each cloud's `vms.csv` comes from, in `clouds` order (clouds
/// without one are left out). The files SkyPilot's folder lacks are
/// listed from the example catalogs, said in one warning line.
fn sources(mode: &Mode, clouds: &[CloudId], warnings: &mut Vec<String>) -> Vec<(CloudId, Input)> {
    let mut out = Vec::new();
    let mut examples: Vec<CloudId> = Vec::new();
    let file = |path| Input::File { path, meta: None };
    for &cloud in clouds {
        let name = catalogs::vms_file(cloud);
        match mode {
            Mode::Bundled => {
                if catalogs::has_bundled(cloud) {
                    out.push((cloud, Input::Bundled));
                }
            }
            Mode::Explicit(dir) => {
                let path = dir.join(&name);
                if path.is_file() {
                    out.push((cloud, file(path)));
                }
            }
            Mode::Shared(folder) => {
                let path = folder.path(&name);
                if path.is_file() {
                    out.push((cloud, file(path)));
                } else if catalogs::has_bundled(cloud) {
                    examples.push(cloud);
                    out.push((cloud, Input::Bundled));
                }
            }
        }
    }
    if let (Mode::Shared(folder), false) = (mode, examples.is_empty()) {
        let names: Vec<&str> = examples.iter().map(|c| c.repr()).collect();
        let ids: Vec<&str> = examples.iter().map(|c| c.name()).collect();
        warnings.push(format!(
            "no catalog in {} for {}: listing the example catalogs built into sky; their prices are examples, not real (run `sky catalog refresh {}` to download them).",
            folder.root().display(),
            names.join(", "),
            ids.join(" ")
        ));
    }
    out
}

/// Reads the catalogs of `clouds`, in `clouds` order, with the launch's
/// loader (`catalogs::load_vms_runs`): a current image in `index` decodes
/// only the runs the listing reads; a changed catalog is parsed (its image
/// stored for the next listing or launch). A catalog that cannot be read
/// or listed is a warning.
///
/// With `summaries` (the query reads only unfiltered answers,
/// [`Query::reads_summaries`]) the catalogs' [`CloudSummary`]s are read
/// instead, from one file in `index` keyed by every catalog's image key and
/// fingerprint; when it is missing or stale they are computed from the
/// rows and stored (unless a catalog could not be listed: its warning is
/// then said again next time).
fn load(
    mode: &Mode,
    clouds: &[CloudId],
    index: Option<&CatalogIndex>,
    summaries: bool,
    warnings: &mut Vec<String>,
) -> Vec<CloudGpuRows> {
    let srcs = sources(mode, clouds, warnings);
    let stored = match (summaries, index) {
        (true, Some(index)) => summary_key(&srcs).map(|key| (index, key)),
        _ => None,
    };
    if let Some((index, (key, fingerprint))) = &stored
        && let Some(bytes) = index.map(key, fingerprint)
    {
        let listed: Vec<CloudId> = srcs.iter().map(|(c, _)| *c).collect();
        match gpus::summaries_from_bytes(&listed, &bytes) {
            Ok(read) => return read.into_iter().map(CloudGpuRows::from_summary).collect(),
            Err(e) => tracing::debug!(error = %e, "ignoring the GPU listing summary"),
        }
    }
    let before = warnings.len();
    let rows = load_rows(&srcs, index, warnings);
    let Some((index, (key, fingerprint))) = stored else {
        return rows;
    };
    // The summaries answer this listing too: a listing reads the same
    // whether they were just computed or stored long ago.
    let computed: Vec<CloudSummary> = rows.iter().map(CloudSummary::of).collect();
    if warnings.len() == before
        && let Err(e) = index.write(&key, &fingerprint, &gpus::summaries_to_bytes(&computed))
    {
        tracing::debug!(error = %e, "GPU listing summary not stored");
    }
    computed
        .into_iter()
        .map(CloudGpuRows::from_summary)
        .collect()
}

/// The key and fingerprint of the summaries of `srcs` in the catalog
/// index: the images' keys and fingerprints of every catalog, in order
/// (any catalog changed, or another build's bundled catalogs, is another
/// fingerprint). `None` when a catalog file cannot be `stat`ed.
fn summary_key(srcs: &[(CloudId, Input)]) -> Option<(String, String)> {
    // The format in the key: builds of different formats sharing a state
    // folder each keep their own.
    let mut key = format!("gpus-summary/{}", gpus::SUMMARY_FORMAT);
    let mut fingerprint = String::new();
    for (cloud, input) in srcs {
        let (k, f) = match input {
            Input::Bundled => (
                format!("bundled/{}", cloud.name()),
                catalogs::bundled::FINGERPRINT.to_string(),
            ),
            Input::File { path, .. } => (
                catalogs::image_key(path),
                catalogs::fingerprint(&std::fs::metadata(path).ok()?),
            ),
        };
        key.push('\0');
        key.push_str(&k);
        fingerprint.push_str(&f);
        fingerprint.push('\0');
    }
    Some((key, fingerprint))
}

/// [`load`] from the catalogs' rows.
fn load_rows(
    srcs: &[(CloudId, Input)],
    index: Option<&CatalogIndex>,
    warnings: &mut Vec<String>,
) -> Vec<CloudGpuRows> {
    let loaded = catalogs::load_vms_runs(srcs, index, ListingRuns::of);
    let mut out = Vec::new();
    for ((cloud, input), result) in srcs.iter().zip(loaded) {
        let listed = result
            .map_err(|e| e.to_string())
            .and_then(|(catalog, skipped)| {
                if !skipped.is_empty() {
                    tracing::debug!(
                        cloud = cloud.name(),
                        rows = skipped.len(),
                        "malformed catalog rows skipped"
                    );
                }
                CloudGpuRows::new(catalog, &source_name(*cloud, input)).map_err(|e| e.to_string())
            });
        match listed {
            Ok(rows) => out.push(rows),
            Err(e) => warnings.push(format!("skipping a catalog: {e}")),
        }
    }
    out
}

/// How the listing names a catalog in its messages.
fn source_name(cloud: CloudId, input: &Input) -> String {
    match input {
        Input::Bundled => catalogs::vms_file(cloud),
        Input::File { path, .. } => path.display().to_string(),
    }
}

/// Errors of `sky gpus list` beyond the launch's own.
#[derive(Debug, thiserror::Error)]
pub enum GpusListError {
    /// The catalogs or the options could not be used.
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// A filter is invalid.
    #[error(transparent)]
    Gpus(#[from] GpusError),
}

/// The Kubernetes adapter with the launch's node cache.
fn kubernetes_cloud(options: &LaunchOptions) -> KubernetesCloud {
    let mut kube = options.kubernetes.clone();
    if kube.node_cache.is_none() {
        kube.node_cache = Some(Arc::new(LazyStateNodeCache::new(&options.state_dir)));
    }
    if kube.exec_credentials.is_none() {
        kube.exec_credentials = Some(Arc::new(ExecCredentials::new(
            &options.state_dir,
            &options.env,
        )));
    }
    KubernetesCloud::new(kube)
}

/// The allowed Kubernetes contexts, the current one and the kubeconfig
/// (offline: `SKY_KUBE_CONTEXTS`, the first current).
fn kubernetes_contexts(
    options: &LaunchOptions,
    cloud: &KubernetesCloud,
    ctx: &CheckContext,
) -> (
    Vec<String>,
    Option<String>,
    Option<kube::config::Kubeconfig>,
) {
    if options.kube_nodes_dir.is_some() {
        let names = options.kube_contexts.clone().unwrap_or_default();
        let current = names.first().cloned();
        return (names, current, None);
    }
    match cloud.resolve_contexts(ctx) {
        Ok(r) => {
            let current = r.kubeconfig.current_context.clone();
            (r.allowed.contexts, current, Some(r.kubeconfig))
        }
        Err(e) => {
            tracing::info!(error = %e, "no Kubernetes contexts");
            (Vec::new(), None, None)
        }
    }
}

/// Lists what the realtime sections read: the contexts `plan` names (nodes,
/// then pods where needed) and the Slurm clusters, all concurrently, each
/// context bounded by the per-cloud deadline and everything by the global one.
async fn realtime(
    options: &LaunchOptions,
    query: &Query,
    json: bool,
    verbose: bool,
    enabled_set: &[CloudId],
) -> Result<Realtime, LaunchError> {
    let enabled = Enabled {
        kubernetes: enabled_set.contains(&CloudId::Kubernetes),
        ssh: enabled_set.contains(&CloudId::Ssh),
        slurm: enabled_set.contains(&CloudId::Slurm),
    };
    let mut rt = Realtime {
        enabled,
        verbose,
        ..Realtime::default()
    };
    if !(enabled.kubernetes || enabled.ssh || enabled.slurm) {
        return Ok(rt);
    }
    let sky_config = merged_config(options, launch_sources(options))?.config;
    let ctx = check_context(options, &sky_config);
    let kube = kubernetes_cloud(options);
    let (kube_names, current, kubeconfig) = if enabled.kubernetes || enabled.ssh {
        kubernetes_contexts(options, &kube, &ctx)
    } else {
        (Vec::new(), None, None)
    };
    let mut ssh_options = options.ssh.clone();
    ssh_options.kubernetes = kube.options().clone();
    let ssh = SshCloud::new(ssh_options, sky_config.ssh_allowed_node_pools());
    let pools = if enabled.kubernetes || enabled.ssh {
        ssh.gpu_contexts(&ctx).unwrap_or_default()
    } else {
        Default::default()
    };
    let (ssh_kubeconfig, ssh_names, ssh_dir) = (pools.kubeconfig, pools.contexts, pools.nodes_dir);
    // Kubernetes never uses an `ssh-` context (`existing_allowed_contexts`).
    rt.kubernetes_contexts = kube_names
        .into_iter()
        .filter(|c| !c.starts_with("ssh-"))
        .collect();
    rt.ssh_contexts = ssh_names;
    rt.current_context = current;
    let plan = planner::gpus::show::plan(
        query,
        enabled,
        &rt.kubernetes_contexts,
        &rt.ssh_contexts,
        rt.current_context.as_deref(),
        json,
    );
    let ssh_kube = ssh.kubernetes();
    let per_context = options.cloud_timeout;
    let contexts = futures::future::join_all(plan.contexts.iter().map(|name| {
        let is_pool = rt.ssh_contexts.contains(name);
        let (cloud, config, dir) = if is_pool {
            (&ssh_kube, ssh_kubeconfig.as_ref(), ssh_dir.as_ref())
        } else {
            (&kube, kubeconfig.as_ref(), options.kube_nodes_dir.as_ref())
        };
        let ctx = &ctx;
        async move {
            let work = async {
                match (dir, config) {
                    (Some(dir), _) => {
                        let nodes = contexts_from_fixture_dir(dir, std::slice::from_ref(name))
                            .pop()
                            .map(|c| c.nodes)
                            .unwrap_or_else(|| Err(String::new()));
                        let pods = match &nodes {
                            Ok(n) if planner::gpus::kubernetes::needs_pods(n) => {
                                pods_from_fixture_dir(dir, name)
                            }
                            _ => Pods::NotListed,
                        };
                        ContextData { nodes, pods }
                    }
                    (None, Some(config)) => context_gpu_data(cloud, ctx, config, name).await,
                    (None, None) => ContextData {
                        nodes: Err(format!("Context {name} not found in kubeconfig.")),
                        pods: Pods::NotListed,
                    },
                }
            };
            let data = if per_context.is_zero() {
                work.await
            } else {
                tokio::time::timeout(per_context, work)
                    .await
                    .unwrap_or_else(|_| ContextData {
                        nodes: Err(planner::catalog::kubernetes::unreachable_timeout_message(
                            name,
                        )),
                        pods: Pods::NotListed,
                    })
            };
            (name.clone(), data)
        }
    }));
    let slurm = async {
        if !plan.slurm {
            return Vec::new();
        }
        let mut slurm_options = options.slurm.clone();
        slurm_options.cache = None;
        let allowed = planner::catalog::slurm::SlurmSettings::from_config(&sky_config.raw)
            .ok()
            .and_then(|s| s.allowed_clusters);
        SlurmCloud::new(slurm_options, allowed)
            .gpu_clusters(&ctx, query.region.as_deref())
            .await
    };
    let both = async { tokio::join!(contexts, slurm) };
    let global = options.fanout.global_deadline;
    let (contexts, slurm) = if global.is_zero() {
        both.await
    } else {
        match tokio::time::timeout(global, both).await {
            Ok(r) => r,
            Err(_) => {
                let late = format!(
                    "no answer within the global deadline ({})",
                    planner::check::show_duration(global)
                );
                let contexts = plan
                    .contexts
                    .iter()
                    .map(|c| {
                        (
                            c.clone(),
                            ContextData {
                                nodes: Err(late.clone()),
                                pods: Pods::NotListed,
                            },
                        )
                    })
                    .collect();
                (contexts, Vec::new())
            }
        }
    };
    rt.contexts = contexts.into_iter().collect::<BTreeMap<_, _>>();
    rt.slurm = slurm;
    rt.config = sky_config.raw;
    Ok(rt)
}

/// Lists the accelerators for `query` (already validated), as text or JSON;
/// `verbose` is `-v` (the Slurm per-partition table).
pub async fn gpus_list(
    options: &LaunchOptions,
    query: &Query,
    json: bool,
    verbose: bool,
) -> Result<GpusOutcome, GpusListError> {
    let mode = Mode::resolve(
        options.catalog_dir.as_deref(),
        &options.env,
        &options.home,
        &options.catalogs,
    )
    .map_err(|e: ConfigError| GpusListError::Launch(LaunchError::from(e)))?;
    let enabled_set = enabled_clouds(options);
    let mut warnings = Vec::new();
    let catalog_clouds = query.catalog_clouds();
    let summaries = query.reads_summaries();
    let load_mode = mode.clone();
    let state_dir = options.state_dir.clone();
    let load_catalogs = move || {
        let mut w = Vec::new();
        // Without a usable state folder every listing parses the CSVs.
        let index = StateDir::open(&state_dir)
            .and_then(|s| CatalogIndex::open(&s))
            .inspect_err(|e| tracing::debug!(error = %e, "GPU listing images disabled"))
            .ok();
        let catalogs = load(
            &load_mode,
            &catalog_clouds,
            index.as_ref(),
            summaries,
            &mut w,
        );
        (catalogs, w)
    };
    // The catalogs load on a blocking thread while the clusters are asked;
    // with no realtime cloud enabled there is nothing to wait for meanwhile,
    // and they load here (no thread started).
    let realtime_enabled = [CloudId::Kubernetes, CloudId::Ssh, CloudId::Slurm]
        .iter()
        .any(|c| enabled_set.contains(c));
    let (rt, (catalogs, catalog_warnings)) = if realtime_enabled {
        let loading = tokio::task::spawn_blocking(load_catalogs);
        let rt = realtime(options, query, json, verbose, &enabled_set).await?;
        let loaded = loading
            .await
            .map_err(|e| LaunchError::Usage(format!("catalog loader failed: {e}")))?;
        (rt, loaded)
    } else {
        let loaded = load_catalogs();
        (
            realtime(options, query, json, verbose, &enabled_set).await?,
            loaded,
        )
    };
    warnings.extend(catalog_warnings);
    let mut left_out = Vec::new();
    for (name, data) in &rt.contexts {
        match (&data.nodes, &data.pods) {
            (Err(e), _) => left_out.push((name.clone(), e.clone())),
            (Ok(_), Pods::Failed(e)) => {
                warnings.push(format!("Kubernetes context {name} left out: {e}"));
            }
            _ => {}
        }
    }
    let refs: Vec<&CloudGpuRows> = catalogs.iter().collect();
    let _span = tracing::info_span!("gpus_list").entered();
    if json {
        let extra = planner::gpus::show::json_contexts(query, &rt)
            .into_iter()
            .map(|(cloud, ctx, gpus)| (cloud, gpus::context_offers(&ctx, gpus)))
            .collect();
        return Ok(GpusOutcome {
            report: None,
            json: Some(gpus::json_listing_with(query, &refs, extra)?),
            warnings,
            left_out,
        });
    }
    Ok(GpusOutcome {
        report: Some(planner::gpus::show::show(query, &refs, &rt)?),
        json: None,
        warnings,
        left_out,
    })
}

#[cfg(test)]
mod tests {
    use planner::catalog::CloudCatalog;

    use super::*;

    const HEADER: &str = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region\n";

    fn names(rows: &[CloudGpuRows]) -> Vec<String> {
        gpus::accelerator_names(&rows.iter().collect::<Vec<_>>())
    }

    /// A catalog folder whose Lambda `vms.csv` lists one A10, its path, a
    /// state folder's catalog index, and the folder as an explicit mode.
    fn one_a10_lambda_catalog() -> (tempfile::TempDir, std::path::PathBuf, CatalogIndex, Mode) {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("lambda/vms.csv");
        std::fs::create_dir_all(csv.parent().unwrap()).unwrap();
        std::fs::write(
            &csv,
            format!("{HEADER}gpu_1x_a10,A10,1,30,200,A10,0.75,,us-east-1\n"),
        )
        .unwrap();
        let index = CatalogIndex::open(&StateDir::open(dir.path().join("state")).unwrap()).unwrap();
        let mode = Mode::Explicit(dir.path().to_path_buf());
        (dir, csv, index, mode)
    }

    #[test]
    fn a_listing_reads_the_launchs_image_until_the_catalog_changes() {
        let (_dir, csv, index, mode) = one_a10_lambda_catalog();
        let list = || {
            let mut warnings = Vec::new();
            let rows = load(
                &mode,
                &[CloudId::Lambda],
                Some(&index),
                false,
                &mut warnings,
            );
            assert!(warnings.is_empty(), "{warnings:?}");
            names(&rows)
        };

        assert_eq!(list(), ["A10"]);
        assert_eq!(std::fs::read_dir(index.dir()).unwrap().count(), 1);
        // What the listing stored is the launch's image of the whole file.
        let image = std::fs::read_dir(index.dir())
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let (launch, _) =
            CloudCatalog::from_image(CloudId::Lambda, &std::fs::read(&image).unwrap(), "x")
                .unwrap();
        assert!(launch.has_instance_type("gpu_1x_a10"));

        // The image, not the CSV, answers while the file is unchanged, for
        // the listing and the launch alike: put other rows in the image
        // under the same key and fingerprint.
        let (other, _) = CloudCatalog::from_bytes(
            CloudId::Lambda,
            format!("{HEADER}gpu_1x_h100,H100,1,26,200,H100,2.49,,us-east-1\n").as_bytes(),
            "other.csv",
        )
        .unwrap();
        let key = catalogs::image_key(&csv);
        let fingerprint = catalogs::fingerprint(&std::fs::metadata(&csv).unwrap());
        index
            .write(&key, &fingerprint, &other.to_image(&[]))
            .unwrap();
        assert_eq!(list(), ["H100"]);
        let input = Input::File {
            path: csv.clone(),
            meta: None,
        };
        let (launch, _) = catalogs::load_vms(CloudId::Lambda, &input, Some(&index)).unwrap();
        assert!(launch.has_instance_type("gpu_1x_h100"));

        // A changed catalog is parsed again and its image replaced.
        std::fs::write(
            &csv,
            format!("{HEADER}gpu_1x_a100,A100,1,30,200,A100,1.29,,us-east-1\n"),
        )
        .unwrap();
        assert_eq!(list(), ["A100"]);
        assert_eq!(list(), ["A100"]);
        assert_eq!(std::fs::read_dir(index.dir()).unwrap().count(), 1);

        // A damaged image is parsed around, not trusted.
        let image = std::fs::read_dir(index.dir())
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        std::fs::write(&image, b"SKYCATIX garbage").unwrap();
        assert_eq!(list(), ["A100"]);
    }

    #[test]
    fn a_damaged_or_earlier_summary_is_recomputed_and_replaced() {
        let (_dir, _, index, mode) = one_a10_lambda_catalog();
        let list = || {
            let mut warnings = Vec::new();
            let rows = load(&mode, &[CloudId::Lambda], Some(&index), true, &mut warnings);
            assert!(warnings.is_empty(), "{warnings:?}");
            names(&rows)
        };
        let srcs = sources(&mode, &[CloudId::Lambda], &mut Vec::new());
        let (key, fingerprint) = summary_key(&srcs).unwrap();
        let stored = || index.map(&key, &fingerprint).map(|b| b.to_vec());
        let readable = |bytes: &[u8]| gpus::summaries_from_bytes(&[CloudId::Lambda], bytes).is_ok();

        assert_eq!(list(), ["A10"]);
        let written = stored().unwrap();
        assert!(readable(&written));
        // Format 1's header, then bytes that are no summary at all.
        for damaged in [&b"SKYGPUSM\x01\x00\x00"[..], b"SKYGPUSM garbage", b""] {
            index.write(&key, &fingerprint, damaged).unwrap();
            assert!(!stored().is_some_and(|b| readable(&b)));
            assert_eq!(list(), ["A10"]);
            assert_eq!(stored().unwrap(), written, "the summary is stored again");
        }
    }

    #[test]
    fn a_catalog_that_cannot_be_listed_is_a_warning_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("lambda/vms.csv");
        std::fs::create_dir_all(csv.parent().unwrap()).unwrap();
        std::fs::write(&csv, "InstanceType,vCPUs,Price,Region\na,2,1,r\n").unwrap();
        let mut warnings = Vec::new();
        let mode = Mode::Explicit(dir.path().to_path_buf());
        let rows = load(&mode, &[CloudId::Lambda], None, false, &mut warnings);
        assert!(rows.is_empty());
        assert_eq!(
            warnings,
            [format!(
                "skipping a catalog: {}: no AcceleratorName column (found: InstanceType,vCPUs,Price,Region)",
                csv.display()
            )]
        );
    }
}
