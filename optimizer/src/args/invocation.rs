//! The high args: what each subcommand runs, every flag checked and
//! resolved, and what the conversion has to say first.

use std::path::PathBuf;
use std::time::Duration;

use planner::cloud::CloudId;
use planner::gpus::Query;

use crate::launch::{LaunchOptions, Request};

/// Something the conversion found worth saying, printed before anything
/// else — also when the conversion then fails, as SkyPilot's CLI says it
/// before its own checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// A problem in the options themselves (an unknown name in
    /// `SKY_ENABLED_CLOUDS`), said by `sky catalog refresh` as a `sky:
    /// warning:` line (launches and `sky check` report it with their result).
    OptionWarning(String),
    /// `sky gpus list --cloud/--region`: SkyPilot's deprecation line.
    DeprecatedLocationFlags,
    /// `sky check CLOUD/REGION[/ZONE]`: the region and zone are ignored —
    /// the client logger's line (stdout, before the server's text).
    CheckLocationIgnored(String),
}

/// `sky launch`, resolved: the pipeline's inputs and how to show its result.
#[derive(Debug)]
pub struct Launch {
    /// The options of [`crate::launch::run`] (with `--config`,
    /// `--workspace` and the project folder).
    pub options: LaunchOptions,
    /// The entrypoint and the overrides.
    pub request: Request,
    /// `-c/--cluster`; `None`: a generated name.
    pub cluster: Option<String>,
    /// The `-c` name looks like a file path
    /// (`common_utils.cluster_name_looks_like_file_path`): warn, and ask
    /// unless `-y`.
    pub cluster_looks_like_path: bool,
    /// `--cloud`, `--region` or `--zone` given: SkyPilot's deprecation
    /// line, after that question.
    pub deprecated_location_flags: bool,
    /// `--dryrun`: print, then stop.
    pub dryrun: bool,
    /// `-y/--yes`: no confirmation prompt.
    pub yes: bool,
    /// `-o json`.
    pub json: bool,
    /// `--timings`.
    pub timings: bool,
    /// `SKYPILOT_MINIMIZE_LOGGING` off: logger lines carry SkyPilot's
    /// prefix (time, pid).
    pub full_logging: bool,
    /// `--plan-out`: where a confirmed plan is written.
    pub plan_out: Option<PathBuf>,
    /// The entrypoint looks like a task YAML path but is not a readable
    /// one: why, as SkyPilot's `_check_yaml` words it (its question is
    /// asked before the launch, even with `-y`).
    pub yaml_doubt: Option<String>,
}

/// `sky check`, resolved: the clouds and providers it names are in the
/// options (`declared_*`).
#[derive(Debug)]
pub struct Check {
    /// The options of [`crate::launch::check`].
    pub options: LaunchOptions,
    /// The clouds `SKY_ENABLED_CLOUDS` declares (`None`: unset): launches
    /// use them with or without credentials, whatever the check finds, so
    /// the report says so and its exit status follows them.
    pub declared_by_env: Option<Vec<CloudId>>,
    /// `-o json`.
    pub json: bool,
    /// `-v/--verbose`.
    pub verbose: bool,
    /// `--timings`.
    pub timings: bool,
}

/// `sky catalog refresh`, resolved.
#[derive(Debug)]
pub struct CatalogRefresh {
    /// The options of [`crate::launch::refresh_catalogs`].
    pub options: LaunchOptions,
    /// The clouds named (none: the default set).
    pub clouds: Vec<CloudId>,
    /// The deadline of each download.
    pub timeout: Duration,
}

/// `sky gpus list` (and `sky show-gpus`), resolved.
#[derive(Debug)]
pub struct GpusList {
    /// The options of [`crate::launch::gpus_list`].
    pub options: LaunchOptions,
    /// What to list, checked as SkyPilot's `_show_gpus_impl` checks it.
    pub query: Query,
    /// `-o json`.
    pub json: bool,
    /// `-v/--verbose`.
    pub verbose: bool,
}

/// The high args: one subcommand, ready to run.
#[derive(Debug)]
pub enum Invocation {
    /// `sky launch`.
    Launch(Box<Launch>),
    /// `sky check`.
    Check(Box<Check>),
    /// `sky catalog refresh`.
    CatalogRefresh(Box<CatalogRefresh>),
    /// `sky gpus list`, `sky show-gpus`.
    GpusList(Box<GpusList>),
    /// `sky offers`.
    Offers(Box<super::Offers>),
}

impl Invocation {
    /// The options every subcommand runs with (for what only the front end
    /// knows, such as a terminal's status line).
    pub fn options_mut(&mut self) -> &mut LaunchOptions {
        match self {
            Invocation::Launch(l) => &mut l.options,
            Invocation::Check(c) => &mut c.options,
            Invocation::CatalogRefresh(r) => &mut r.options,
            Invocation::GpusList(g) => &mut g.options,
            Invocation::Offers(o) => &mut o.options,
        }
    }
}
