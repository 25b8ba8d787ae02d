//! The one launch pipeline: `sky launch`, the harness's in-process launcher
//! and the launch benchmarks all call [`run`] (and `sky check` calls
//! [`check`]).
//!
//! [`run`] is a few named stages with plain data between them:
//!
//! - **configure** (sync): the entrypoint, the config layers (read, then
//!   merged in one call to the core), volumes, candidate clouds, where the
//!   catalogs come from → `Configured`;
//! - **probe** (the only async I/O): the cloud checks fanned out while the
//!   catalogs load and download, the request read once ahead of them →
//!   `Probed`;
//! - **assemble** (pure, [`planner::assemble`]): the world, the clouds left
//!   out and why, the warnings as data, worded by
//!   [`planner::render::pipeline`] → [`Prepared`];
//! - **plan** (pure, [`planner::launch::plan_parsed`]): the task parsed
//!   once, validated, optimised → [`LaunchResult`]; with `--explain`
//!   ([`LaunchOptions::explain`]) also why ([`LaunchResult::explain`]).
//!
//! What it returns is data; [`planner::render::launch`] prints it and
//! [`LaunchResult::exit`] picks the exit code.

mod adapters;
mod check;
mod configure;
mod enabled;
mod gpus;
mod local_paths;
mod offers;
mod options;
mod probe;
mod refresh;

use planner::assemble::{AssembleError, Found, Settings};
use planner::launch::{Excluded, LaunchResult, Prepared, TaskSource};
use planner::render::pipeline;
use planner::task::Overrides;

pub use check::check;
pub use enabled::ENABLED_CLOUDS_FILE;
pub use gpus::{GpusListError, GpusOutcome, gpus_list};
pub use offers::offers;
pub use options::{DEFAULT_CLOUD_TIMEOUT, LaunchError, LaunchOptions, Request};
pub use refresh::refresh_catalogs;

use crate::catalogs::{self, ReadAhead};
use crate::config::ConfigError;
use configure::{Carried, Configured, configure};
use probe::probe;

/// One whole launch: configure, probe, assemble, plan.
pub async fn run(options: &LaunchOptions, request: &Request) -> Result<LaunchResult, LaunchError> {
    let Configured {
        source,
        settings,
        mode,
        carried,
    } = configure(options, request)?;
    let named_mode = mode.clone();
    let mut probed = probe(
        options,
        &settings,
        mode,
        read_ahead(&source, &request.overrides),
    )
    .await?;
    // The request as the plan reads it (parsed here when the `common/`
    // tables were not at hand for the read-ahead), and the catalogs of
    // clouds it names outside the candidates (validation only).
    let parsed = probed.parsed.take().unwrap_or_else(|| {
        let metadata = &probed.found.catalogs.catalog.gpu_metadata;
        planner::launch::parse_task(&source, &request.overrides, metadata)
    });
    let named = parsed.clouds_named_outside(&settings.candidates.clouds);
    if !named.is_empty() {
        let now = options.catalogs.clock.now();
        catalogs::load_named(&named_mode, &named, &mut probed.found.catalogs, now)?;
    }
    let mut prepared = assemble(settings, probed.found, carried)?;
    // `skypilot:` image tags are validated against the cloud's `images.csv`.
    prepared.image_tags = catalogs::load_image_tags(&named_mode, &parsed.image_tag_clouds());
    let mut result = planner::launch::plan_parsed(
        prepared,
        source,
        parsed,
        &request.overrides,
        &local_paths::HostPaths::new(options),
    );
    if options.explain {
        result.explain();
    }
    Ok(result)
}

/// The request, read ahead of the catalogs (which then decode only the
/// rows it can match) and kept for the plan.
fn read_ahead(source: &TaskSource, overrides: &Overrides) -> ReadAhead {
    let (source, overrides) = (source.clone(), overrides.clone());
    Box::new(move |metadata| planner::launch::parse_task(&source, &overrides, metadata))
}

/// The assemble stage: the core's assembly, worded for the launch's output.
fn assemble(settings: Settings, found: Found, carried: Carried) -> Result<Prepared, LaunchError> {
    let _span = tracing::info_span!("assemble").entered();
    let a = planner::assemble::assemble(settings, found).map_err(|e| match e {
        AssembleError::NoCloud(no_cloud) => LaunchError::NoCloud(no_cloud),
        AssembleError::Config(e) => ConfigError::Planner(e).into(),
    })?;
    let excluded = a.excluded.into_iter().map(|x| Excluded {
        cloud: x.cloud,
        reason: pipeline::absence(&x.why),
        why: x.why,
    });
    Ok(Prepared {
        world: a.world,
        fanout: a.fanout,
        excluded: excluded.collect(),
        warnings: pipeline::warnings(&a.notes),
        notes: a.notes,
        absent: a.absent,
        catalog_source: a.catalog_source,
        catalogs: a.catalogs,
        example_prices: a.example_prices,
        az_mapping: a.az_mapping,
        catalog_load: a.catalog_load,
        volumes: carried.volumes,
        server_warnings: pipeline::server_warnings(&carried.ignored_server_keys),
        workspace_error: a.workspace_error,
        image_tags: planner::resources::ImageTags::none(),
    })
}
