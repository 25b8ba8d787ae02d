//! The probe stage — a launch's only asynchronous I/O: the candidates'
//! checks fanned out ([`fan_out`]) while the catalogs load and download
//! ([`catalogs::gather`]), then what their answers lead to reading: the
//! locally built catalogs, the zone mapping the AWS check has just fetched,
//! the offline Kubernetes fixtures.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use planner::assemble::{Found, FoundCatalogs, Settings};
use planner::catalog::AzMapping;
use planner::check::{CloudFacts, FanOut, Outcome};
use planner::cloud::CloudId;
use planner::launch::ParsedTask;
use tracing::Instrument;

use super::adapters::{adapters, check_context};
use super::options::{LaunchError, LaunchOptions};
use crate::catalogs::{self, Gathered, Input, Mode, Need, Plan, ReadAhead};
use crate::clouds::aws::{AwsOptions, AzMappingFetch, az_mapping_hash};
use crate::clouds::kubernetes::contexts_from_fixture_dir;
use crate::clouds::{Cloud, fan_out};
use crate::config::ConfigError;

/// What the probe found, and the request read ahead of the catalogs.
#[derive(Debug)]
pub(super) struct Probed {
    /// The checks' reports and the catalogs.
    pub(super) found: Found,
    /// The request parsed once, when the `common/` tables were at hand.
    pub(super) parsed: Option<ParsedTask>,
}

/// The probe stage of a launch: the checks and the catalogs at once, then
/// what their answers lead to reading. Its own spans (`probe`,
/// `probe_follow_up`) cover the work before and after; the concurrent part
/// is `fan_out` beside `gather_catalogs`, as their own phases.
pub(super) async fn probe(
    options: &LaunchOptions,
    settings: &Settings,
    mode: Mode,
    read_ahead: ReadAhead,
) -> Result<Probed, LaunchError> {
    let setup = tracing::info_span!("probe").entered();
    let candidates = &settings.candidates.clouds;
    // Offline Kubernetes fixtures replace the live adapter.
    let offline_kube = options
        .kube_nodes_dir
        .as_deref()
        .filter(|_| candidates.contains(&CloudId::Kubernetes));
    let local_dir = local_catalog_dir(&mode, options);
    let aws = aws_options(&mode, options);
    let plan = Plan::new(mode, candidates, options.catalogs.clock.now());
    let (adapters, needs) = checks(options, settings, &plan, &aws, offline_kube.is_some());
    // Closed before the fan-out's span opens: a span stays open while it
    // has children.
    drop(setup);
    let (fanout, gathered) = tokio::join!(
        check_clouds(options, settings, adapters),
        load_catalogs(options, plan, needs, read_ahead)
    );
    // No await from here on: the span guard may be held.
    let _follow_up = tracing::info_span!("probe_follow_up").entered();
    let Gathered {
        found: mut catalogs,
        aws_input,
        parsed,
    } = gathered?;
    read_local_catalogs(&local_dir, &mut catalogs)?;
    let aws_identity_hash = aws_identity_hash(&fanout);
    if let (Some(hash), Some(Input::File { path, .. })) = (&aws_identity_hash, &aws_input) {
        read_fetched_az_mapping(&mut catalogs, hash, path);
    }
    let contexts = options.kube_contexts.as_deref().unwrap_or(&[]);
    let found = Found {
        fanout,
        offline_kube: offline_kube.map(|dir| contexts_from_fixture_dir(dir, contexts)),
        catalogs,
        aws_identity_hash,
    };
    Ok(Probed { found, parsed })
}

/// The cloud checks, fanned out (`fan_out` span).
async fn check_clouds(
    options: &LaunchOptions,
    settings: &Settings,
    adapters: Vec<Arc<dyn Cloud>>,
) -> FanOut {
    let span = tracing::info_span!(
        "fan_out",
        clouds = adapters.len(),
        serial = options.fanout.serial
    );
    let ctx = Arc::new(check_context(options, &settings.config));
    fan_out(adapters, ctx, options.fanout.clone())
        .instrument(span)
        .await
}

/// The catalogs, loaded and downloaded within the fan-out's deadlines
/// (`gather_catalogs` span: the whole gathering, including the wait for a
/// parse on a blocking thread to hand over; `catalog_load` is the loader's
/// own span, on whichever thread it runs).
async fn load_catalogs(
    options: &LaunchOptions,
    plan: Plan,
    needs: HashMap<CloudId, Need>,
    read_ahead: ReadAhead,
) -> Result<Gathered, ConfigError> {
    let deadlines = catalogs::Deadlines {
        per_file: options.cloud_timeout,
        global: tokio::time::Instant::now() + options.fanout.global_deadline,
    };
    let state_dir = options.state_dir.clone();
    let catalog_options = options.catalogs.clone();
    catalogs::gather(
        plan,
        needs,
        read_ahead,
        state_dir,
        catalog_options,
        deadlines,
    )
    .instrument(tracing::info_span!("gather_catalogs"))
    .await
}

/// Catalogs SkyPilot builds locally (vSphere) are read from the folder in
/// use, else from SkyPilot's own, even when the others are bundled.
fn local_catalog_dir(mode: &Mode, options: &LaunchOptions) -> PathBuf {
    match mode {
        Mode::Explicit(dir) => dir.clone(),
        Mode::Shared(f) => f.root().to_path_buf(),
        Mode::Bundled => catalogs::default_folder(&options.env, &options.home),
    }
}

/// The AWS adapter's options: the account's zone names go where SkyPilot
/// keeps them, and only there.
fn aws_options(mode: &Mode, options: &LaunchOptions) -> AwsOptions {
    let mut aws = options.aws.clone();
    aws.az_mappings = mode.shared().map(|f| {
        options
            .aws
            .az_mappings
            .clone()
            .unwrap_or_else(|| AzMappingFetch::new(f.root()))
    });
    aws
}

/// The adapters to check (Kubernetes' left out when offline), and when
/// each catalog download is wanted: a download starts once its cloud is
/// known to be usable — declared clouds at once, the others when the
/// fan-out has found credentials.
fn checks(
    options: &LaunchOptions,
    settings: &Settings,
    plan: &Plan,
    aws: &AwsOptions,
    offline_kube: bool,
) -> (Vec<Arc<dyn Cloud>>, HashMap<CloudId, Need>) {
    let to_check: Vec<CloudId> = settings
        .candidates
        .clouds
        .iter()
        .copied()
        .filter(|c| !(offline_kube && *c == CloudId::Kubernetes))
        .collect();
    let fetching = plan.fetching();
    let mut needs = HashMap::new();
    let mut checked = Vec::new();
    for adapter in adapters(&to_check, options, &settings.config, aws) {
        let cloud = adapter.id();
        if fetching.contains(&cloud) && !settings.declared {
            let (wrapped, need) = catalogs::signal_need(adapter);
            needs.insert(cloud, need);
            checked.push(wrapped);
        } else {
            checked.push(adapter);
        }
    }
    for cloud in fetching {
        needs.entry(cloud).or_insert(Need::Now);
    }
    (checked, needs)
}

/// Clouds whose catalog SkyPilot builds locally are read from `dir`
/// instead of being left without one.
fn read_local_catalogs(dir: &Path, found: &mut FoundCatalogs) -> Result<(), LaunchError> {
    let local: Vec<CloudId> = found
        .unusable
        .iter()
        .map(|(c, _)| *c)
        .filter(|c| c.local_catalog().is_some())
        .collect();
    found.unusable.retain(|(c, _)| !local.contains(c));
    Ok(catalogs::load_local_catalogs(dir, &local, None, found)?)
}

/// The `<hash>` of the zone mapping file the AWS identity selects.
fn aws_identity_hash(fanout: &FanOut) -> Option<String> {
    fanout.reports.iter().find_map(|r| match &r.outcome {
        Outcome::Ready(o) => match &o.facts {
            CloudFacts::Aws(f) => f.identity.as_ref().map(|i| az_mapping_hash(&i.user_id)),
            _ => None,
        },
        _ => None,
    })
}

/// A mapping the AWS check has just fetched (beside the AWS catalog at
/// `aws_file`) is not among those loaded before it finished: read it now,
/// first in line.
fn read_fetched_az_mapping(found: &mut FoundCatalogs, hash: &str, aws_file: &Path) {
    if found.az_mappings.iter().any(|(h, _)| h == hash) {
        return;
    }
    let file = aws_file.with_file_name(format!("az_mappings-{hash}.csv"));
    let Ok(bytes) = std::fs::read(&file) else {
        return;
    };
    match AzMapping::from_reader(&bytes[..], &file.display().to_string()) {
        Ok(m) => found.az_mappings.insert(0, (hash.to_string(), m)),
        Err(e) => found.az_mapping_error = Some(e.to_string()),
    }
}
