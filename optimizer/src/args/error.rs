//! Why the flags cannot be turned into a request: one variant per flag and
//! problem, each naming the flag ([`ArgsError::flag`]) and the form it
//! expects ([`ArgsError::expected`]). The messages are SkyPilot 0.14.1's
//! where its CLI has one (`sky/client/cli/command.py`, `flags.py`), so
//! they print byte for byte as its errors do; [`ArgsError::raised`] says
//! which of its error kinds each one is.

use std::path::PathBuf;

use planner::cloud::UnknownCloud;
use planner::gpus::UsageError;

use crate::config::ConfigError;
use crate::input::InputError;

/// How SkyPilot 0.14.1's CLI reports an error of this kind — and so how
/// `sky` prints it and which exit code it gets (the binary decides both
/// from this).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Raised {
    /// click's `UsageError` / `BadParameter` raised in a command's body:
    /// `Error: <message>`.
    Usage,
    /// click's `UsageError` or `BadParameter` under the command's usage
    /// lines (`Usage: …`, `Try '…' for help.`, then `Error: …`): `sky gpus
    /// list`'s own checks, and a value of the wrong type (`--num-nodes
    /// two`, raised by click while it parses).
    CommandUsage,
    /// A `ValueError` raised by the CLI itself: `ValueError: <message>`.
    Value,
    /// A message printed as it is (`sky gpus list`'s location errors).
    Bare,
    /// This tool's own flags and environment, with no SkyPilot
    /// counterpart: `sky: error: <message>` and its causes.
    Ours,
}

/// A flag whose value cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ArgsError {
    /// The options built from the environment are unusable.
    #[error(transparent)]
    Environment(#[from] ConfigError),
    /// `--cloud-timeout`: not a positive number of seconds.
    #[error("--cloud-timeout must be a positive number of seconds, got {0}")]
    CloudTimeout(f64),
    /// `sky catalog refresh --timeout`: not a positive number of seconds.
    #[error("--timeout must be a positive number of seconds, got {0}")]
    RefreshTimeout(f64),
    /// `sky catalog refresh CLOUD`: not a cloud name.
    #[error("{0}")]
    RefreshCloud(UnknownCloud),
    /// `--num-nodes`: not an integer (click's `type=int`).
    #[error("Invalid value for '--num-nodes': {} is not a valid integer.", planner::pytext::py_str_repr(.0))]
    NumNodesNotInt(String),
    /// `--num-nodes`: an integer, not positive (the `Task.num_nodes`
    /// setter's `ValueError`).
    #[error("num_nodes should be a positive int. Got: {0}")]
    NumNodes(i64),
    /// `--disk-size`: not a positive integer (`Resources._set_disk_size`
    /// raises it while the CLI builds the task).
    #[error("\"disk_size\" must be a positive integer (in GB). Got: {0}.")]
    DiskSize(i64),
    /// `--git-url` beside `--workdir`.
    #[error("Cannot specify both --git-url and --workdir")]
    GitUrlWithWorkdir,
    /// `--workdir`: not an existing directory (click's `Path(exists=True)`).
    #[error("Invalid value for '--workdir': Directory '{0}' does not exist.")]
    Workdir(String),
    /// `--resize` without `-c/--cluster`.
    #[error("--resize requires -c/--cluster to specify an existing cluster.")]
    ResizeWithoutCluster,
    /// `-b/--backend`: neither `cloudvmray` nor `docker` (lower-cased, as
    /// the message shows it).
    #[error("{0} backend is not supported.")]
    Backend(String),
    /// `--env-file` / `--secret-file`: no such file.
    #[error(
        "Dotenv file does not exist: {}. Provide a path to an existing file, or remove the flag.",
        path.display()
    )]
    DotenvMissing {
        /// `--env-file` or `--secret-file`.
        flag: &'static str,
        /// The path as given.
        path: PathBuf,
    },
    /// `--env-file` / `--secret-file`: not a readable regular file within
    /// [`MAX_CONFIG_FILE_BYTES`](crate::input::MAX_CONFIG_FILE_BYTES).
    #[error("{error}")]
    DotenvUnreadable {
        /// `--env-file` or `--secret-file`.
        flag: &'static str,
        /// Why (names the file).
        error: InputError,
    },
    /// `--env-file` / `--secret-file`: a line that is not `KEY=VALUE`.
    #[error("{}:{line}: {text} has no value (write KEY=VALUE).", path.display())]
    DotenvLine {
        /// `--env-file` or `--secret-file`.
        flag: &'static str,
        /// The file as given.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The line, trimmed, without `export `.
        text: String,
    },
    /// `--env KEY` / `--secret KEY`: `KEY` is not set in this process.
    #[error("{name} is not set in local environment.")]
    UnsetVariable {
        /// `--env` or `--secret`.
        flag: &'static str,
        /// The variable.
        name: String,
    },
    /// `sky check CLOUD`: an infra with an empty part (`aws//x`, `/`).
    #[error(
        "Invalid infra format: {0}. Format should not contain empty parts (e.g., double slashes \"//\")."
    )]
    CheckInfraEmptyPart(String),
    /// `sky check CLOUD`: more than `cloud/region/zone` (outside
    /// Kubernetes and SSH, whose contexts may hold slashes).
    #[error(
        "Invalid infra format: {0}. Expected format is \"cloud\", \"cloud/region\", or \"cloud/region/zone\"."
    )]
    CheckInfraTooLong(String),
    /// `sky check '*'`: every cloud is not one to check.
    #[error("Invalid infra to check: {0}")]
    CheckAnyCloud(String),
    /// `sky gpus list`: `--infra` beside `--cloud` / `--region`.
    #[error("Cannot specify both --infra and --cloud, --region, or --zone.")]
    GpusInfraWithLocation,
    /// `sky gpus list --infra`: not `CLOUD[/REGION[/ZONE]]` (SkyPilot's
    /// `InfraInfo.from_str` message, ANSI codes and all).
    #[error("{0}")]
    GpusInfra(String),
    /// `sky gpus list --cloud`: not a cloud name.
    #[error("{0}")]
    GpusCloud(UnknownCloud),
    /// `sky gpus list`: a combination `_show_gpus_impl` refuses (e.g.
    /// `--region` without a cloud, `--all` with a GPU name).
    #[error("{0}")]
    GpusQuery(UsageError),
    /// `sky gpus list ACCELERATOR`: not `NAME[:COUNT]`.
    #[error("{0}")]
    GpusAccelerator(UsageError),
}

impl ArgsError {
    /// The flag (or argument) at fault; `None` for the environment.
    pub fn flag(&self) -> Option<&'static str> {
        Some(match self {
            ArgsError::Environment(_) => return None,
            ArgsError::CloudTimeout(_) => "--cloud-timeout",
            ArgsError::RefreshTimeout(_) => "--timeout",
            ArgsError::RefreshCloud(_)
            | ArgsError::CheckInfraEmptyPart(_)
            | ArgsError::CheckInfraTooLong(_)
            | ArgsError::CheckAnyCloud(_) => "CLOUD",
            ArgsError::NumNodes(_) | ArgsError::NumNodesNotInt(_) => "--num-nodes",
            ArgsError::DiskSize(_) => "--disk-size",
            ArgsError::GitUrlWithWorkdir => "--git-url",
            ArgsError::Workdir(_) => "--workdir",
            ArgsError::ResizeWithoutCluster => "--resize",
            ArgsError::Backend(_) => "--backend",
            ArgsError::DotenvMissing { flag, .. }
            | ArgsError::DotenvUnreadable { flag, .. }
            | ArgsError::DotenvLine { flag, .. }
            | ArgsError::UnsetVariable { flag, .. } => flag,
            ArgsError::GpusInfraWithLocation | ArgsError::GpusInfra(_) => "--infra",
            ArgsError::GpusCloud(_) => "--cloud",
            // The message names which of them.
            ArgsError::GpusQuery(_) => "--region, --all-regions or --all",
            ArgsError::GpusAccelerator(_) => "ACCELERATOR",
        })
    }

    /// The form the flag's value must take.
    pub fn expected(&self) -> &'static str {
        match self {
            ArgsError::Environment(_) => "usable configuration and catalog settings",
            ArgsError::CloudTimeout(_) | ArgsError::RefreshTimeout(_) => {
                "a positive number of seconds"
            }
            ArgsError::RefreshCloud(_) | ArgsError::GpusCloud(_) => "a cloud name",
            ArgsError::NumNodes(_) | ArgsError::NumNodesNotInt(_) => "a positive integer",
            ArgsError::DiskSize(_) => "a positive integer (GB)",
            ArgsError::GitUrlWithWorkdir => "either --git-url or --workdir, not both",
            ArgsError::Workdir(_) => "an existing directory",
            ArgsError::ResizeWithoutCluster => "-c/--cluster naming the cluster to resize",
            ArgsError::Backend(_) => "cloudvmray or docker",
            ArgsError::DotenvMissing { .. } | ArgsError::DotenvUnreadable { .. } => {
                "an existing dotenv file"
            }
            ArgsError::DotenvLine { .. } => "KEY=VALUE lines",
            ArgsError::UnsetVariable { .. } => "KEY=VALUE, or KEY set in this environment",
            ArgsError::CheckInfraEmptyPart(_) | ArgsError::CheckInfraTooLong(_) => {
                "CLOUD[/REGION[/ZONE]]"
            }
            ArgsError::CheckAnyCloud(_) => "a cloud name, not *",
            ArgsError::GpusInfraWithLocation => "--infra alone, or the deprecated --cloud/--region",
            ArgsError::GpusInfra(_) => "CLOUD[/REGION[/ZONE]]",
            ArgsError::GpusQuery(_) => "a combination sky gpus list accepts",
            ArgsError::GpusAccelerator(_) => "NAME or NAME:COUNT",
        }
    }

    /// How SkyPilot's CLI raises it.
    pub fn raised(&self) -> Raised {
        match self {
            ArgsError::Environment(_)
            | ArgsError::CloudTimeout(_)
            | ArgsError::RefreshTimeout(_)
            | ArgsError::RefreshCloud(_) => Raised::Ours,
            ArgsError::GitUrlWithWorkdir
            | ArgsError::Workdir(_)
            | ArgsError::ResizeWithoutCluster
            | ArgsError::DotenvMissing { .. }
            | ArgsError::DotenvUnreadable { .. }
            | ArgsError::DotenvLine { .. }
            | ArgsError::UnsetVariable { .. } => Raised::Usage,
            ArgsError::NumNodes(_)
            | ArgsError::DiskSize(_)
            | ArgsError::Backend(_)
            | ArgsError::CheckInfraEmptyPart(_)
            | ArgsError::CheckInfraTooLong(_)
            | ArgsError::CheckAnyCloud(_) => Raised::Value,
            ArgsError::GpusInfraWithLocation
            | ArgsError::GpusInfra(_)
            | ArgsError::GpusCloud(_) => Raised::Bare,
            ArgsError::NumNodesNotInt(_)
            | ArgsError::GpusQuery(_)
            | ArgsError::GpusAccelerator(_) => Raised::CommandUsage,
        }
    }
}
