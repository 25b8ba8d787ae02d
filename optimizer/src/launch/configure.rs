//! The configure stage (sync, before any network): the entrypoint, the
//! config layers (read here, merged in one call to the core), the user's
//! volumes, the clouds to consider and where the catalogs come from.

use std::path::Path;

use planner::assemble::{Enabled, Settings};
use planner::config::{MergeError, MergedConfig};
use planner::launch::TaskSource;
use planner::volumes::VolumeRecord;

use super::enabled::persisted_enabled_clouds;
use super::options::{LaunchError, LaunchOptions, Request};
use crate::catalogs::Mode;
use crate::config::{self, ConfigError, ConfigSources, ReadError};
use crate::input::{MAX_CONFIG_FILE_BYTES, MAX_TASK_FILE_BYTES, read_regular_text};

/// What the configure stage decided, as plain data for the later stages.
#[derive(Debug)]
pub(super) struct Configured {
    /// What the entrypoint asks to run.
    pub(super) source: TaskSource,
    /// What the assembly reads: the config, the candidate clouds.
    pub(super) settings: Settings,
    /// Where the catalogs come from.
    pub(super) mode: Mode,
    /// What the prepared world carries through untouched.
    pub(super) carried: Carried,
}

/// What the prepared world carries from the configuration untouched.
#[derive(Debug)]
pub(super) struct Carried {
    /// The user's volumes (`SKY_VOLUMES_FILE`).
    pub(super) volumes: Vec<VolumeRecord>,
    /// Server-owned config keys the client's config set differently.
    pub(super) ignored_server_keys: Vec<String>,
}

/// The configure stage of a launch.
pub(super) fn configure(
    options: &LaunchOptions,
    request: &Request,
) -> Result<Configured, LaunchError> {
    let _span = tracing::info_span!("configure").entered();
    let source = read_entrypoint(&request.entrypoint, options.entrypoint_as_command);
    let merged = merged_config(options, launch_sources(options))?;
    let volumes = load_volumes(options)?;
    let enabled = match &options.declared_clouds {
        Some(clouds) => Enabled::Declared(clouds.clone()),
        None => persisted_enabled_clouds(&options.state_dir).map_or(Enabled::All, Enabled::Checked),
    };
    let candidates = planner::assemble::candidates(&enabled, &merged.config);
    let mode = Mode::resolve(
        options.catalog_dir.as_deref(),
        &options.env,
        &options.home,
        &options.catalogs,
    )?;
    let pools_file = options.ssh.node_pools_file.clone().unwrap_or_else(|| {
        config::expand_home(planner::catalog::ssh::SSH_NODE_POOLS_PATH, &options.home)
    });
    Ok(Configured {
        source,
        settings: Settings {
            config: merged.config,
            candidates,
            declared: options.declared_clouds.is_some(),
            option_warnings: options.warnings.clone(),
            ssh_pools_file: pools_file.display().to_string(),
        },
        mode,
        carried: Carried {
            volumes,
            ignored_server_keys: merged.ignored_server_keys,
        },
    })
}

/// The config sources of a launch (and `sky gpus list`): `--config`,
/// `--workspace` and the project folder.
pub(super) fn launch_sources(options: &LaunchOptions) -> ConfigSources<'_> {
    ConfigSources {
        cli_items: &options.config_args,
        workspace: options.workspace.as_deref(),
        project_dir: options.project_dir.as_deref(),
    }
}

/// The request's config: every layer read, then merged by the core in one
/// call. A `--config` problem is click's usage error.
pub(super) fn merged_config(
    options: &LaunchOptions,
    sources: ConfigSources<'_>,
) -> Result<MergedConfig, LaunchError> {
    let read = config::read_layers(&options.env, &options.home, sources);
    planner::config::merge(&read.layers).map_err(|e| match (e, read.stopped) {
        (MergeError::Unread, Some(ReadError::Cli(e))) => LaunchError::Usage(e.to_string()),
        (MergeError::Unread, Some(ReadError::File(e))) => LaunchError::Config(e),
        (e @ (MergeError::Cli { .. } | MergeError::Unread), _) => LaunchError::Usage(e.to_string()),
        (MergeError::Config(e), _) => LaunchError::Config(e.into()),
    })
}

/// The user's volumes from `SKY_VOLUMES_FILE`, if set.
fn load_volumes(options: &LaunchOptions) -> Result<Vec<VolumeRecord>, LaunchError> {
    let Some(path) = &options.volumes_file else {
        return Ok(Vec::new());
    };
    let text = read_regular_text(path, MAX_CONFIG_FILE_BYTES)
        .map_err(|e| ConfigError::Volumes(e.to_string()))?;
    planner::volumes::parse_volume_records(&text, &path.display().to_string())
        .map_err(|e| ConfigError::Volumes(e).into())
}

/// Whether an entrypoint is a task YAML: one word ending in `.yaml`/`.yml`
/// (SkyPilot's `_check_yaml` then reads it; anything else is a command).
fn is_yaml(words: &[String]) -> bool {
    match words {
        [one] => (one.ends_with(".yaml") || one.ends_with(".yml")) && !one.contains(' '),
        _ => false,
    }
}

/// What the entrypoint asks to run; a task YAML is read here — a regular
/// file of at most [`MAX_TASK_FILE_BYTES`] (a FIFO, a device or a huge file
/// is refused, never read). `as_command`: read as a command whatever its
/// name ([`LaunchOptions::entrypoint_as_command`]).
fn read_entrypoint(words: &[String], as_command: bool) -> TaskSource {
    if !as_command && is_yaml(words) {
        let path = &words[0];
        let _span = tracing::info_span!("read_task_yaml").entered();
        return match read_regular_text(Path::new(path), MAX_TASK_FILE_BYTES) {
            Ok(text) => TaskSource::Yaml {
                path: path.clone(),
                text,
            },
            Err(e) => TaskSource::Unreadable {
                path: path.clone(),
                message: e.cause(),
            },
        };
    }
    if words.is_empty() {
        TaskSource::Flags
    } else {
        TaskSource::Command(words.join(" "))
    }
}
