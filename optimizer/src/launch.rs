//! Putting the edges together: resolve config, check clouds concurrently while
//! the catalogs parse, build the [`World`] the pure core works on.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::clouds::aws::{AwsCloud, AwsOptions, az_mapping_hash};
use crate::clouds::gcp::{GcpCloud, GcpOptions};
use crate::clouds::kubernetes::{KubernetesCloud, KubernetesOptions, contexts_from_fixture_dir};
use crate::clouds::{
    CheckContext, Cloud, EnvMap, FanOutOptions, azure, cudo, fan_out, lambda, paperspace, runpod,
};
use crate::config::{self, CatalogSource, ConfigError};
use planner::catalog::kubernetes::KubeContext;
use planner::check::{CloudFacts, FanOut, GcpReservations, Outcome};
use planner::cloud::CloudId;
use planner::config::SkyConfig;
use planner::world::{ReservationCloud, World};

/// Options for [`prepare`]. Every input that would otherwise come from the
/// process (environment, home, endpoints) is a field, so tests and the
/// harness inject them.
#[derive(Debug, Clone)]
pub struct LaunchOptions {
    /// Environment variables the adapters and loaders may read.
    pub env: EnvMap,
    /// Home directory (credential files, `~/.sky`).
    pub home: PathBuf,
    /// State directory for caches (`SKY_STATE_DIR`, default `~/.sky`).
    pub state_dir: PathBuf,
    /// `--catalog-dir`.
    pub catalog_dir: Option<PathBuf>,
    /// Clouds declared enabled (`SKY_ENABLED_CLOUDS`), in enumeration order;
    /// `None` = detect from credentials like `sky check`.
    pub declared_clouds: Option<Vec<CloudId>>,
    /// Bypass caches (`--refresh`).
    pub refresh: bool,
    /// Per-cloud deadline (`--cloud-timeout`).
    pub cloud_timeout: Duration,
    /// Fan-out mode and global deadline.
    pub fanout: FanOutOptions,
    /// Offline Kubernetes: read `<dir>/<context>.json` NodeLists (`SKY_KUBE_NODES_DIR`).
    pub kube_nodes_dir: Option<PathBuf>,
    /// Offline Kubernetes contexts (`SKY_KUBE_CONTEXTS`).
    pub kube_contexts: Option<Vec<String>>,
    /// AWS adapter options (timeouts, endpoint).
    pub aws: AwsOptions,
    /// Kubernetes adapter options.
    pub kubernetes: KubernetesOptions,
    /// GCP adapter options (reservation lookup: endpoint, timeouts, cache TTL).
    pub gcp: GcpOptions,
}

impl LaunchOptions {
    /// Options from a process environment and home directory, with defaults.
    pub fn from_env(env: EnvMap, home: PathBuf) -> Result<LaunchOptions, ConfigError> {
        let state_dir = env
            .get("SKY_STATE_DIR")
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".sky"));
        let declared_clouds = match env.get("SKY_ENABLED_CLOUDS") {
            Some(v) => Some(planner::config::parse_enabled_clouds(v)?),
            None => None,
        };
        let kube_nodes_dir = env
            .get("SKY_KUBE_NODES_DIR")
            .filter(|s| !s.is_empty())
            .map(PathBuf::from);
        let kube_contexts = env.get("SKY_KUBE_CONTEXTS").map(|s| {
            s.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        });
        let fanout = FanOutOptions {
            serial: env
                .get("SKY_FANOUT")
                .is_some_and(|v| v.eq_ignore_ascii_case("serial")),
            ..FanOutOptions::default()
        };
        Ok(LaunchOptions {
            env,
            home,
            state_dir,
            catalog_dir: None,
            declared_clouds,
            refresh: false,
            cloud_timeout: Duration::from_secs(5),
            fanout,
            kube_nodes_dir,
            kube_contexts,
            aws: AwsOptions::default(),
            kubernetes: KubernetesOptions::default(),
            gcp: GcpOptions::default(),
        })
    }
}

/// Why preparation failed before any optimisation.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// Configuration or catalogs unusable.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// No cloud is enabled.
    #[error("{0}")]
    NoCloud(String),
}

/// A cloud left out of the table, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Excluded {
    /// The cloud.
    pub cloud: CloudId,
    /// One-line reason.
    pub reason: String,
}

/// Everything gathered before optimising.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The pure core's input.
    pub world: World,
    /// Per-cloud check reports.
    pub fanout: FanOut,
    /// Clouds that were wanted but left out (failed checks).
    pub excluded: Vec<Excluded>,
    /// Non-fatal problems (skipped catalog rows, unreachable contexts, ...).
    pub warnings: Vec<String>,
    /// Where the catalogs came from.
    pub catalog_source: CatalogSource,
    /// The AWS zone mapping used (`az_mappings-<hash>.csv`), if any.
    pub az_mapping: Option<String>,
    /// Time spent loading catalogs (overlapping the fan-out).
    pub catalog_load: Duration,
}

/// The adapters of `clouds`, in that order.
pub fn registry(clouds: &[CloudId], options: &LaunchOptions) -> Vec<Arc<dyn Cloud>> {
    clouds
        .iter()
        .map(|c| -> Arc<dyn Cloud> {
            match c {
                CloudId::Aws => Arc::new(AwsCloud::new(options.aws.clone())),
                CloudId::Gcp => Arc::new(GcpCloud::new(options.gcp.clone())),
                CloudId::Azure => Arc::new(azure::AzureCloud),
                CloudId::Lambda => Arc::new(lambda::LambdaCloud),
                CloudId::Runpod => Arc::new(runpod::RunpodCloud),
                CloudId::Paperspace => Arc::new(paperspace::PaperspaceCloud),
                CloudId::Cudo => Arc::new(cudo::CudoCloud),
                CloudId::Kubernetes => {
                    let mut kube = options.kubernetes.clone();
                    if kube.node_cache.is_none() {
                        kube.node_cache = Some(Arc::new(
                            crate::clouds::kubernetes::LazyStateNodeCache::new(&options.state_dir),
                        ));
                    }
                    Arc::new(KubernetesCloud::new(kube))
                }
            }
        })
        .collect()
}

/// The check context shared by all adapters.
pub fn check_context(options: &LaunchOptions, sky_config: &SkyConfig) -> CheckContext {
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
    let source =
        config::resolve_catalog_source(options.catalog_dir.as_deref(), &options.env, &options.home);
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
            config::load_catalog_indexed(&load_source, &load_clouds, index.as_ref()),
            started.elapsed(),
        )
    });
    let span = tracing::info_span!(
        "fan_out",
        clouds = to_check.len(),
        serial = options.fanout.serial
    );
    let fanout = tracing::Instrument::instrument(
        fan_out(registry(&to_check, options), ctx, options.fanout),
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

/// Validates the DAG against the world, then optimises it. Pure.
pub fn plan(world: &World, dag: &mut planner::task::Dag) -> planner::optimize::Optimized {
    if let Err(e) = planner::validate::validate_dag(world, dag) {
        return planner::optimize::Optimized {
            log: Vec::new(),
            result: Err(e),
        };
    }
    planner::optimize::optimize(world, dag)
}

/// Version tag of the JSON document printed by `sky launch -o json`.
pub const PLAN_SCHEMA: &str = "sky-plan/v1";

/// The `-o json` / `--plan-out` document (schema [`PLAN_SCHEMA`], documented in the README).
pub fn plan_json(
    prepared: &Prepared,
    cluster: &str,
    optimized: &planner::optimize::Optimized,
) -> serde_json::Value {
    let clouds: Vec<serde_json::Value> = prepared
        .fanout
        .reports
        .iter()
        .map(|r| {
            let (outcome, reason) = match &r.outcome {
                Outcome::Ready(_) => ("ok", None),
                Outcome::NoCredentials(h) => ("no-credentials", Some(h.clone())),
                Outcome::Failed(e) => ("failed", Some(e.to_string())),
            };
            serde_json::json!({
                "cloud": r.cloud.name(),
                "outcome": outcome,
                "reason": reason,
                "cache": r.cache(),
                "elapsed_ms": r.elapsed.as_secs_f64() * 1000.0,
            })
        })
        .collect();
    let (plan, error) = match &optimized.result {
        Ok(p) => (
            serde_json::to_value(p).unwrap_or(serde_json::Value::Null),
            None,
        ),
        Err(e) => (
            serde_json::Value::Null,
            Some(
                serde_json::json!({"kind": e.kind.python_name(), "message": planner::render::strip_ansi(&e.message)}),
            ),
        ),
    };
    serde_json::json!({
        "schema": PLAN_SCHEMA,
        "cluster": cluster,
        "enabled_clouds": prepared.world.enabled.iter().map(|c| c.name()).collect::<Vec<_>>(),
        "excluded": prepared.excluded.iter().map(|e| serde_json::json!({"cloud": e.cloud.name(), "reason": e.reason})).collect::<Vec<_>>(),
        "catalog": prepared.catalog_source.to_string(),
        "aws_az_mapping": prepared.az_mapping,
        "checks": clouds,
        "log": optimized.log.iter().map(|l| planner::render::strip_ansi(l)).collect::<Vec<_>>(),
        "plan": plan,
        "error": error,
    })
}

/// Writes a file atomically (temp file in the same directory, fsync, rename):
/// an interrupted write never leaves a truncated plan behind.
pub fn write_file_atomic(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "plan".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The result of `sky check`.
#[derive(Debug, Clone)]
pub struct CheckReport {
    /// Per-cloud reports.
    pub fanout: FanOut,
    /// Clouds disabled by `allowed_clouds`.
    pub not_allowed: Vec<CloudId>,
}

impl CheckReport {
    /// Enabled clouds, in check order.
    pub fn enabled(&self) -> Vec<CloudId> {
        self.fanout
            .reports
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::Ready(_)))
            .map(|r| r.cloud)
            .collect()
    }

    /// Human-readable lines, one per cloud.
    pub fn lines(&self) -> Vec<String> {
        use planner::render::ansi;
        let mut out = Vec::new();
        for r in &self.fanout.reports {
            match &r.outcome {
                Outcome::Ready(o) => {
                    let mut line = format!(
                        "  {}: {}enabled{}",
                        r.cloud.repr(),
                        ansi::GREEN,
                        ansi::RESET
                    );
                    match &o.facts {
                        CloudFacts::Aws(f) => {
                            if let Some(i) = &f.identity {
                                line.push_str(&format!(
                                    " [identity: {} [account={}]]",
                                    i.user_id, i.account
                                ));
                            }
                        }
                        CloudFacts::Kubernetes(ctxs) => {
                            let names: Vec<String> = ctxs
                                .iter()
                                .map(|c| match &c.nodes {
                                    Ok(n) => format!("{} ({} nodes)", c.name, n.len()),
                                    Err(e) => format!("{} (unreachable: {e})", c.name),
                                })
                                .collect();
                            line.push_str(&format!(" [contexts: {}]", names.join(", ")));
                        }
                        // `check` never looks reservations up (see below).
                        CloudFacts::Gcp(_) | CloudFacts::Catalog => {}
                    }
                    match o.cache {
                        planner::check::CacheUse::Hit { age } => {
                            line.push_str(&format!(" (cached, {}s old)", age.as_secs()))
                        }
                        planner::check::CacheUse::Miss => line.push_str(" (fetched)"),
                        planner::check::CacheUse::None => {}
                    }
                    out.push(line);
                }
                Outcome::NoCredentials(h) => out.push(format!(
                    "  {}: {}disabled{}\n    Reason: {h}",
                    r.cloud.repr(),
                    ansi::DIM,
                    ansi::RESET
                )),
                Outcome::Failed(e) => out.push(format!(
                    "  {}: {}disabled{}\n    Reason: {e}",
                    r.cloud.repr(),
                    ansi::YELLOW,
                    ansi::RESET
                )),
            }
        }
        for c in &self.not_allowed {
            out.push(format!(
                "  {}: disabled\n    Reason: not in allowed_clouds",
                c.repr()
            ));
        }
        let enabled = self.enabled();
        out.push(String::new());
        if enabled.is_empty() {
            out.push(
                "No cloud is enabled. Set up credentials for at least one cloud above.".into(),
            );
        } else {
            out.push(format!(
                "{}Enabled clouds:{} {}",
                ansi::BRIGHT,
                ansi::RESET,
                enabled
                    .iter()
                    .map(|c| c.repr())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        out
    }
}

/// File (under the state directory) where `sky check` persists the enabled clouds.
pub const ENABLED_CLOUDS_FILE: &str = "enabled-clouds.json";

/// Runs every credential and identity check concurrently (`sky check`) and
/// persists the enabled set for later launches.
pub async fn check(options: &LaunchOptions) -> Result<CheckReport, LaunchError> {
    let sky_config = config::load_sky_config(&options.env, &options.home)?;
    let wanted = options
        .declared_clouds
        .clone()
        .unwrap_or_else(|| CloudId::ALL.to_vec());
    let allowed: Vec<CloudId> = match &sky_config.allowed_clouds {
        Some(a) => wanted.iter().copied().filter(|c| a.contains(c)).collect(),
        None => wanted.clone(),
    };
    let not_allowed = wanted
        .iter()
        .copied()
        .filter(|c| !allowed.contains(c))
        .collect();
    let mut ctx = check_context(options, &sky_config);
    // `sky check` checks credentials; like SkyPilot's, it lists no reservations.
    ctx.reservation_clouds.clear();
    let fanout = fan_out(registry(&allowed, options), Arc::new(ctx), options.fanout).await;
    let report = CheckReport {
        fanout,
        not_allowed,
    };
    if options.declared_clouds.is_none() {
        let names: Vec<&str> = report.enabled().iter().map(|c| c.name()).collect();
        let state =
            crate::state::StateDir::open(&options.state_dir).map_err(|e| ConfigError::Io {
                path: options.state_dir.clone(),
                source: std::io::Error::other(e.to_string()),
            })?;
        let body = serde_json::to_vec(&names).unwrap_or_default();
        write_file_atomic(&state.path().join(ENABLED_CLOUDS_FILE), &body).map_err(|source| {
            ConfigError::Io {
                path: options.state_dir.join(ENABLED_CLOUDS_FILE),
                source,
            }
        })?;
    }
    Ok(report)
}

/// The enabled set persisted by the last `sky check`, if any (order kept).
pub fn persisted_enabled_clouds(state_dir: &std::path::Path) -> Option<Vec<CloudId>> {
    let text = std::fs::read_to_string(state_dir.join(ENABLED_CLOUDS_FILE)).ok()?;
    let names: Vec<String> = serde_json::from_str(&text).ok()?;
    Some(names.iter().filter_map(|n| n.parse().ok()).collect())
}

/// A launch request: an optional task YAML plus CLI-style overrides.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// Task YAML text and a name for it in messages.
    pub yaml: Option<(String, String)>,
    /// Flag overrides (`--gpus`, `--cpus`, ...).
    pub overrides: planner::task::Overrides,
}

/// Everything one in-process launch produced.
#[derive(Debug, Clone)]
pub struct LaunchResult {
    /// Checks, world, warnings.
    pub prepared: Prepared,
    /// The optimizer's log and plan (or SkyPilot's error).
    pub optimized: planner::optimize::Optimized,
}

impl LaunchResult {
    /// The optimizer output as `sky launch --dryrun` prints it (ANSI stripped).
    pub fn text(&self) -> String {
        let mut out = String::new();
        for l in &self.optimized.log {
            out.push_str(&planner::render::strip_ansi(l));
            out.push('\n');
        }
        if let Err(e) = &self.optimized.result {
            out.push_str(&format!(
                "{}: {}\n",
                e.kind.python_name(),
                planner::render::strip_ansi(&e.message)
            ));
        }
        out
    }
}

/// One whole launch in process: [`prepare`], parse the request, [`plan`].
/// Used by the harness and the benchmarks; the `sky` binary does the same steps
/// with printing in between.
pub async fn run(options: &LaunchOptions, request: &Request) -> Result<LaunchResult, LaunchError> {
    let prepared = prepare(options).await?;
    let metadata = &prepared.world.catalog.gpu_metadata;
    let dag = match &request.yaml {
        Some((text, source)) => planner::task::parse_task_yaml(text, source, metadata),
        None => Ok(planner::task::Dag {
            tasks: vec![planner::task::Task {
                name: Some("sky-cmd".into()),
                ..Default::default()
            }],
        }),
    };
    let optimized = match dag.and_then(|mut d| {
        planner::task::apply_overrides(&mut d, &request.overrides, metadata).map(|_| d)
    }) {
        Ok(mut dag) => plan(&prepared.world, &mut dag),
        Err(e) => planner::optimize::Optimized {
            log: Vec::new(),
            result: Err(e),
        },
    };
    Ok(LaunchResult {
        prepared,
        optimized,
    })
}
