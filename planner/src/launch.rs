//! One launch as data, and its plan stage.
//!
//! The `optimizer` crate reads the entrypoint, probes the clouds and the
//! catalogs, and [`crate::assemble`] makes the [`Prepared`] world of it;
//! [`parse_task`] reads the request once (ahead of the catalogs, which then
//! decode only the rows it can match: [`ParsedTask::catalog_needs`]), and
//! [`plan_parsed`] turns it into a [`LaunchResult`] the way `sky launch`
//! does — task, CLI overrides, `Resources.validate()`, the optimizer —
//! stopping at the first stage that fails; [`LaunchResult::exit`] says how
//! the process ends. [`crate::render::launch`] prints it.

use std::time::Duration;

use crate::assemble::{Absence, Absent, Note};
pub use crate::assemble::{CatalogKind, CatalogOrigin, CatalogSource};
use crate::catalog::GpuMetadata;
use crate::catalog::selection::CatalogNeeds;
use crate::check::FanOut;
use crate::cloud::CloudId;
use crate::optimize::{self, Optimized};
use crate::resources::RequestError;
use crate::task::{self, ClientNotice, Dag, LocalPaths, Overrides, ProvisionFlags, Task};
use crate::world::World;

/// What one `sky catalog refresh` did: which clouds, why those, and each file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefreshReport {
    /// The folder written (SkyPilot's).
    pub folder: std::path::PathBuf,
    /// The clouds whose `vms.csv` were refreshed (the `common/` tables always are).
    pub clouds: Vec<CloudId>,
    /// Why those clouds.
    pub scope: RefreshScope,
    /// What became of each file, `vms.csv` first, then the `common/` tables.
    pub files: Vec<(String, Refreshed)>,
}

/// Why `sky catalog refresh` refreshed the clouds it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefreshScope {
    /// Named on the command line.
    Named,
    /// No name: the clouds a launch would use, declared (`SKY_ENABLED_CLOUDS`).
    Declared,
    /// No name: the clouds a launch would use, those the last `sky check` enabled.
    LastCheck,
    /// No name: the clouds a launch would use, those with credentials here.
    Credentials,
}

/// What `sky catalog refresh` did to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refreshed {
    /// A new copy was downloaded and written.
    Downloaded {
        /// Its size in bytes.
        bytes: usize,
        /// Where it came from.
        url: String,
    },
    /// The server said the copy on disk is current (HTTP 304).
    NotModified,
    /// Edited by hand (no md5 record, or one that no longer matches): kept.
    Edited,
    /// SkyPilot does not host this cloud's catalog (built locally).
    NotHosted,
    /// The download failed; the old copy, if any, is kept.
    Failed(String),
}

impl Refreshed {
    /// Whether the file is now as current as it can be.
    pub fn ok(&self) -> bool {
        !matches!(self, Refreshed::Failed(_) | Refreshed::NotHosted)
    }
}

/// A cloud left out of the table, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Excluded {
    /// The cloud.
    pub cloud: CloudId,
    /// One-line reason (`render::pipeline::absence` of `why`).
    pub reason: String,
    /// Why, as data.
    pub why: Absence,
}

/// Everything gathered before planning: the world and how it was found.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The planner's input.
    pub world: World,
    /// Per-cloud check reports.
    pub fanout: FanOut,
    /// Clouds that were wanted but left out (failed checks).
    pub excluded: Vec<Excluded>,
    /// Non-fatal problems (skipped catalog rows, failed downloads, ...),
    /// one line each: `render::pipeline::warnings` of `notes`.
    pub warnings: Vec<String>,
    /// The same, as data.
    pub notes: Vec<Note>,
    /// Every cloud without candidates and why, in [`CloudId::ALL`] order
    /// (not considered, no credentials, left out).
    pub absent: Vec<Absent>,
    /// Where the catalogs came from.
    pub catalog_source: CatalogSource,
    /// Each catalog file the enabled clouds use: source and age.
    pub catalogs: Vec<CatalogOrigin>,
    /// Clouds whose prices are the bundled examples standing in for a
    /// catalog that could not be downloaded (`Assembled::example_prices`).
    pub example_prices: Vec<CloudId>,
    /// The AWS zone mapping used (`az_mappings-<hash>.csv`), if any.
    pub az_mapping: Option<String>,
    /// Time spent loading catalogs (overlapping the fan-out).
    pub catalog_load: Duration,
    /// The user's volumes (`sky volumes ls -o json`, from `SKY_VOLUMES_FILE`)
    /// that task `volumes:` are resolved against.
    pub volumes: Vec<crate::volumes::VolumeRecord>,
    /// What the server logs as it takes the request (client config keys it
    /// ignores: `render::pipeline::server_warnings`), before anything else.
    pub server_warnings: Vec<String>,
    /// The active workspace does not exist (the server refuses the request).
    pub workspace_error: Option<String>,
    /// The `images.csv` tables of the clouds whose `skypilot:` tags the
    /// request names ([`ParsedTask::image_tag_clouds`]); empty otherwise.
    pub image_tags: crate::resources::ImageTags,
}

/// What the user asked to run, after the entrypoint was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskSource {
    /// No entrypoint: a task made of the flags alone.
    Flags,
    /// A command (`sky launch -- python train.py`), run by a task made of the flags.
    Command(String),
    /// A task YAML's text, named as the user wrote its path.
    Yaml {
        /// The path as given.
        path: String,
        /// The file's contents.
        text: String,
    },
    /// A task YAML that could not be read; `message` says why.
    Unreadable {
        /// The path as given.
        path: String,
        /// The I/O error, as one line.
        message: String,
    },
}

/// How far a launch got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// Reading or parsing the entrypoint failed.
    Entrypoint,
    /// Applying the CLI overrides failed.
    Overrides,
    /// `Resources.validate()` failed.
    Validation,
    /// The optimizer ran (and produced a plan or SkyPilot's error).
    Optimization,
}

/// How a `sky` process ends (documented in the README and `sky --help`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Plan printed.
    Ok,
    /// The request is invalid or cannot be satisfied (SkyPilot's error).
    Request,
    /// Usage or configuration error.
    Config,
    /// Plan printed, but some enabled clouds were left out.
    Partial,
    /// Plan printed, but some of its prices are the bundled examples: a
    /// catalog could not be downloaded (wins over [`Exit::Partial`]).
    ExamplePrices,
    /// No cloud is enabled.
    NoCloud,
    /// Interrupted (Ctrl-C).
    Interrupted,
}

impl Exit {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Exit::Ok => 0,
            Exit::Request => 1,
            Exit::Config => 2,
            Exit::Partial => 3,
            Exit::NoCloud => 4,
            Exit::ExamplePrices => 5,
            Exit::Interrupted => 130,
        }
    }
}

/// Everything one launch produced.
#[derive(Debug, Clone)]
pub struct LaunchResult {
    /// Checks, world, warnings.
    pub prepared: Prepared,
    /// What was run, as `sky` announces it (`YAML to run: …`, `Command to run: …`).
    pub source: TaskSource,
    /// How far the launch got.
    pub stage: Stage,
    /// The tasks, validated when `stage` reached [`Stage::Optimization`].
    pub dag: Option<Dag>,
    /// The optimizer's notices and plan, or the error of the stage that failed.
    pub optimized: Optimized,
    /// What SkyPilot's CLI prints while it builds the task (before the
    /// request reaches the optimizer).
    pub client_notices: Vec<ClientNotice>,
    /// The provisioning-only flags, as given (for the `-o json` plan).
    pub provision: ProvisionFlags,
    /// Why the plan is what it is (`--explain`: [`LaunchResult::explain`]
    /// fills it; `None` otherwise).
    pub explanation: Option<crate::explain::Explanation>,
}

impl LaunchResult {
    /// Fills [`LaunchResult::explanation`] (`sky launch --explain`): for a
    /// launch that reached the optimizer, every task; else only the clouds
    /// left out.
    pub fn explain(&mut self) {
        let _span = tracing::info_span!("explain").entered();
        self.explanation = Some(crate::explain::explain(
            &self.prepared.world,
            &self.prepared.absent,
            self.dag.as_ref(),
            self.optimized.result.as_ref().ok(),
        ));
    }

    /// The error that ended the launch, if any.
    pub fn error(&self) -> Option<&RequestError> {
        self.optimized.result.as_ref().err()
    }

    /// How the process ends: an error is a request error; a plan on
    /// example prices says so; a plan that left out an enabled cloud is
    /// partial.
    pub fn exit(&self) -> Exit {
        if self.error().is_some() {
            Exit::Request
        } else if !self.prepared.example_prices.is_empty() {
            Exit::ExamplePrices
        } else if self.prepared.excluded.is_empty() {
            Exit::Ok
        } else {
            Exit::Partial
        }
    }

    /// Whether an unmanaged launch ignores a task's `job_recovery`
    /// (`execution._execute_dag` warns, for a single-task launch).
    pub fn ignores_job_recovery(&self) -> bool {
        self.dag.as_ref().is_some_and(|d| {
            d.tasks.len() == 1
                && d.tasks[0]
                    .resources
                    .all()
                    .iter()
                    .any(|r| r.job_recovery.is_some())
        })
    }

    /// Whether any resource asks for spot instances (SkyPilot then warns that
    /// an unmanaged spot job does not recover from preemptions).
    pub fn uses_spot(&self) -> bool {
        self.dag.as_ref().is_some_and(|d| {
            d.tasks
                .iter()
                .any(|t| t.resources.all().iter().any(|r| r.use_spot))
        })
    }
}

/// The task SkyPilot's CLI builds from flags or a command: named `sky-cmd`.
fn flags_task(run: Option<String>) -> Dag {
    Dag {
        tasks: vec![Task {
            name: Some("sky-cmd".into()),
            run,
            ..Default::default()
        }],
    }
}

fn dag_of(
    source: &TaskSource,
    metadata: &[GpuMetadata],
    overrides: &Overrides,
) -> Result<Dag, RequestError> {
    match source {
        TaskSource::Flags => Ok(flags_task(None)),
        TaskSource::Command(command) => Ok(flags_task(Some(command.clone()))),
        TaskSource::Yaml { path, text } => {
            task::parse_task_yaml_with(text, path, metadata, &overrides.envs)
        }
        TaskSource::Unreadable { path, message } => Err(RequestError::unreadable_entrypoint(
            format!("cannot read task YAML {path}; check the path: {message}"),
        )),
    }
}

/// The request's tasks as [`plan`] reads them: the entrypoint parsed
/// (`metadata` expands memory-based GPU requests) with the CLI overrides
/// applied and what the CLI says meanwhile, or the stage that failed.
#[derive(Debug, Clone)]
pub struct ParsedTask {
    pub(crate) parsed: Result<(Dag, Vec<ClientNotice>), Failure>,
}

/// A stage that failed, its error, and what the CLI said before.
type Failure = (Stage, RequestError, Vec<ClientNotice>);

/// Parses the request once: the task from `source`, then `overrides`.
pub fn parse_task(
    source: &TaskSource,
    overrides: &Overrides,
    metadata: &[GpuMetadata],
) -> ParsedTask {
    let _span = tracing::info_span!("parse_task").entered();
    let parsed = dag_of(source, metadata, overrides)
        .map_err(|e| (Stage::Entrypoint, e, Vec::new()))
        .and_then(|mut dag| {
            let notices = task::apply_cli_overrides(&mut dag, overrides, metadata)
                .map_err(|e| (Stage::Overrides, e, Vec::new()))?;
            Ok((dag, notices))
        });
    ParsedTask { parsed }
}

impl ParsedTask {
    /// Which catalog rows [`plan_parsed`] can read for this request, per
    /// cloud in `clouds`. A request that does not parse reads every row
    /// (its error may quote any).
    pub fn catalog_needs(&self, clouds: &[CloudId]) -> CatalogNeeds {
        self.needs(clouds, None)
    }

    /// [`ParsedTask::catalog_needs`], knowing the `common/accelerators.csv`
    /// table the plan will canonicalise accelerator names by (the same
    /// table the world will hold): narrower for GCP
    /// (`feasibility::rows_read_given`).
    pub fn catalog_needs_given(
        &self,
        clouds: &[CloudId],
        accelerators: &crate::catalog::AcceleratorTable,
    ) -> CatalogNeeds {
        self.needs(clouds, Some(accelerators))
    }

    fn needs(
        &self,
        clouds: &[CloudId],
        accelerators: Option<&crate::catalog::AcceleratorTable>,
    ) -> CatalogNeeds {
        match &self.parsed {
            Ok((dag, _)) if dag.tasks.iter().all(|t| !t.resources.all().is_empty()) => {
                crate::feasibility::catalog_needs_given(dag, clouds, accelerators)
            }
            _ => CatalogNeeds::all(),
        }
    }

    /// The catalog clouds the request names (`cloud:`/`infra:` of any
    /// resource of any task, after the overrides) that are not among
    /// `candidates`, in cloud order. SkyPilot's `Resources.validate` checks
    /// a pinned region, zone or instance type against that cloud's catalog
    /// whether or not the cloud is enabled
    /// (`_try_validate_and_set_region_zone` → `cloud.validate_region_zone`,
    /// `_try_validate_instance_type`); the launch loads those catalogs too.
    /// Empty for a request that does not parse.
    pub fn clouds_named_outside(&self, candidates: &[CloudId]) -> Vec<CloudId> {
        let Ok((dag, _)) = &self.parsed else {
            return Vec::new();
        };
        let mut named: Vec<CloudId> = dag
            .tasks
            .iter()
            .flat_map(|t| t.resources.all())
            .filter_map(|r| r.cloud)
            .filter(|c| c.has_csv_catalog() && !candidates.contains(c))
            .collect();
        named.sort();
        named.dedup();
        named
    }

    /// The clouds whose `images.csv` validation reads: those of
    /// [`IMAGE_TAG_CLOUDS`](crate::resources::IMAGE_TAG_CLOUDS) a resource
    /// asks a `skypilot:<tag>` image of (`Resources._try_validate_image_id`
    /// → `cloud.is_image_tag_valid`). Empty for a request without one (the
    /// usual launch reads nothing more) or that does not parse.
    pub fn image_tag_clouds(&self) -> Vec<CloudId> {
        let Ok((dag, _)) = &self.parsed else {
            return Vec::new();
        };
        let mut clouds: Vec<CloudId> = dag
            .tasks
            .iter()
            .flat_map(|t| t.resources.all())
            .filter(|r| {
                r.image
                    .as_ref()
                    .is_some_and(|i| i.ids.iter().any(|(_, id)| id.starts_with("skypilot:")))
            })
            .filter_map(|r| r.cloud)
            .filter(|c| crate::resources::IMAGE_TAG_CLOUDS.contains(c))
            .collect();
        clouds.sort();
        clouds.dedup();
        clouds
    }
}

/// Which catalog rows [`plan`] can read for this request, per cloud in
/// `clouds`, read ahead of the catalogs: the task as [`plan`] will parse it
/// (`metadata` expands memory-based GPU requests), with the overrides.
pub fn catalog_needs(
    source: &TaskSource,
    overrides: &Overrides,
    metadata: &[GpuMetadata],
    clouds: &[CloudId],
) -> CatalogNeeds {
    parse_task(source, overrides, metadata).catalog_needs(clouds)
}

/// The plan stage of a launch: the task from `source`, `overrides`
/// applied, volumes resolved, validated against the world, optimised — as
/// `sky launch` orders them (SkyPilot's CLI validates before it names the
/// cluster, and optimises last). See [`plan_parsed`] to reuse a parse.
/// `paths` answers the client's checks of local paths (workdir, mount
/// sources).
pub fn plan(
    prepared: Prepared,
    source: TaskSource,
    overrides: &Overrides,
    paths: &dyn LocalPaths,
) -> LaunchResult {
    let parsed = parse_task(&source, overrides, &prepared.world.catalog.gpu_metadata);
    plan_parsed(prepared, source, parsed, overrides, paths)
}

/// [`plan`] on a task already parsed with the GPU metadata the world
/// holds (read ahead by the launch, or parsed after the probe).
pub fn plan_parsed(
    mut prepared: Prepared,
    source: TaskSource,
    parsed: ParsedTask,
    overrides: &Overrides,
    paths: &dyn LocalPaths,
) -> LaunchResult {
    let provision = overrides.provision.clone();
    let failed = |prepared, source, (stage, error, client_notices): Failure| LaunchResult {
        prepared,
        source,
        stage,
        dag: None,
        optimized: Optimized::failed(error),
        client_notices,
        provision: provision.clone(),
        explanation: None,
    };
    let _span = tracing::info_span!("plan").entered();
    if let Some(e) = prepared.workspace_error.clone() {
        let failure = (Stage::Entrypoint, RequestError::value(e), Vec::new());
        return failed(prepared, source, failure);
    }
    let resolved = parsed.parsed.and_then(|(mut dag, notices)| {
        // The client's checks of local paths, after every document parsed
        // and before anything is sent (`sdk.validate`).
        if let Err(e) = task::check_local_paths(&dag, paths) {
            return Err((Stage::Validation, e, notices));
        }
        let _span = tracing::info_span!("resolve_task").entered();
        for t in &mut dag.tasks {
            if let Err(e) = crate::volumes::resolve(t, &prepared.volumes) {
                return Err((Stage::Validation, e, notices));
            }
        }
        task::ssh_infra_round_trip(&mut dag);
        Ok((dag, notices))
    });
    let (mut dag, client_notices) = match resolved {
        Ok(resolved) => resolved,
        Err(failure) => return failed(prepared, source, failure),
    };
    let validation = tracing::info_span!("validate").in_scope(|| {
        prepared.world.ssh.skipped_logged = crate::validate::lists_ssh_pools(&prepared.world, &dag);
        crate::validate::validate_dag_with(&prepared.world, &prepared.image_tags, &mut dag)
    });
    if let Err(e) = validation {
        return failed(prepared, source, (Stage::Validation, e, client_notices));
    }
    let optimized = optimize::optimize(&prepared.world, &dag);
    LaunchResult {
        prepared,
        source,
        stage: Stage::Optimization,
        dag: Some(dag),
        optimized,
        client_notices,
        provision,
        explanation: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> ParsedTask {
        let source = TaskSource::Yaml {
            path: "task.yaml".into(),
            text: text.into(),
        };
        parse_task(&source, &Overrides::default(), &[])
    }

    /// The catalogs a launch adds for validation: only clouds with a
    /// catalog that the task names outside the candidates — none for a task
    /// that names no such cloud (the warm path reads nothing more).
    #[test]
    fn clouds_named_outside_the_candidates() {
        let candidates = [CloudId::Aws, CloudId::Gcp];
        let chain = "name: a\nresources:\n  infra: nebius/eu-north1\n---\nname: b\nresources:\n  any_of:\n    - cloud: oci\n    - cloud: aws\n    - cloud: kubernetes\n";
        assert_eq!(
            parsed(chain).clouds_named_outside(&candidates),
            vec![CloudId::Nebius, CloudId::Oci]
        );
        let inside = "resources:\n  cloud: gcp\n  region: us-central1\n";
        assert!(parsed(inside).clouds_named_outside(&candidates).is_empty());
        assert!(
            parsed("run: echo\n")
                .clouds_named_outside(&candidates)
                .is_empty()
        );
        assert!(
            parsed("resources: [")
                .clouds_named_outside(&candidates)
                .is_empty()
        );
    }
}
