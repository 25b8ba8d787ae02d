//! What every subcommand shares: the process it runs in
//! ([`Environment`]) and the options made of it and of `--catalog-dir`,
//! `--refresh` and `--cloud-timeout`.

use std::path::PathBuf;
use std::time::Duration;

use super::error::ArgsError;
use super::flags::CommonArgs;
use crate::clouds::EnvMap;
use crate::launch::LaunchOptions;

/// What the conversion reads of the process: injected, so that tests and
/// other front ends pass their own.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    /// The environment variables (those that are UTF-8).
    pub vars: EnvMap,
    /// The home directory: `$HOME`, else the platform's, else `/`.
    pub home: PathBuf,
    /// The working directory, whose `.sky.yaml` is the project config of a
    /// launch; `None` when it cannot be read.
    pub current_dir: Option<PathBuf>,
}

impl Environment {
    /// This process's environment.
    pub fn of_process() -> Environment {
        Environment {
            vars: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
            home: std::env::var_os("HOME")
                .map(PathBuf::from)
                .or_else(dirs::home_dir)
                .unwrap_or_else(|| PathBuf::from("/")),
            current_dir: std::env::current_dir().ok(),
        }
    }
}

/// The longest `--cloud-timeout` or `--timeout` in force (ten years: a
/// deadline no run reaches).
pub(super) const MAX_TIMEOUT: Duration = Duration::from_secs(10 * 365 * 86_400);

/// A number of seconds as a deadline: `None` unless positive and finite;
/// capped, so that `1e300` is "no deadline", not a panic in
/// `Duration::from_secs_f64` or in the additions made with it.
pub(super) fn seconds(value: f64) -> Option<Duration> {
    (value.is_finite() && value > 0.0).then(|| {
        Duration::try_from_secs_f64(value)
            .unwrap_or(MAX_TIMEOUT)
            .min(MAX_TIMEOUT)
    })
}

/// The options every subcommand shares: the environment's, then
/// `--catalog-dir`, `--refresh` and `--cloud-timeout`.
/// The environment moves into the options (`LaunchOptions::env`), where
/// the rest of the conversion reads it: it is never copied.
pub(super) fn options(common: &CommonArgs, env: Environment) -> Result<LaunchOptions, ArgsError> {
    let mut options = LaunchOptions::from_env(env.vars, env.home)?;
    options.catalog_dir = common.catalog_dir.clone();
    options.refresh = common.refresh.unwrap_or(false);
    options.catalogs.retry_downloads = common.retry_downloads.unwrap_or(false);
    let timeout =
        seconds(common.cloud_timeout).ok_or(ArgsError::CloudTimeout(common.cloud_timeout))?;
    options.set_cloud_timeout(timeout);
    Ok(options)
}
