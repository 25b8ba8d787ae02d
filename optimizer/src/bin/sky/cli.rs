//! Command-line definition (clap derive). No logic lives here.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// SkyPilot-compatible launch optimizer: prints the "Considered resources"
/// table for a request, checking every enabled cloud concurrently.
#[derive(Debug, Parser)]
#[command(name = "sky", version, about, long_about = None)]
pub struct Opts {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Optimize a task and show the considered resources (provisioning is out of scope).
    Launch(Box<LaunchArgs>),
    /// Check which clouds are enabled, and the identities they use.
    Check(CheckArgs),
    /// Manage SkyPilot's catalog folder (~/.sky/catalogs/v8).
    Catalog(CatalogArgs),
    /// GPU/accelerator commands (`sky gpus list`).
    Gpus(crate::gpus::GpusArgs),
    /// Deprecated: use `sky gpus list`.
    #[command(name = "show-gpus")]
    ShowGpus(Box<crate::gpus::GpusListArgs>),
}

#[derive(Debug, Args)]
pub struct CatalogArgs {
    #[command(subcommand)]
    pub command: CatalogCommand,

    #[command(flatten)]
    pub common: CommonArgs,
}

#[derive(Debug, Subcommand)]
pub enum CatalogCommand {
    /// Download the catalogs now, whatever their pull period (files edited by hand are kept).
    Refresh(RefreshArgs),
}

#[derive(Debug, Args)]
pub struct RefreshArgs {
    /// Clouds to refresh (default: every cloud with a catalog in the folder,
    /// and the declared or last checked ones).
    #[arg(value_name = "CLOUD")]
    pub clouds: Vec<String>,

    /// Deadline for each download, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub timeout: f64,
}

/// Options shared by the subcommands.
#[derive(Debug, Args)]
pub struct CommonArgs {
    /// SkyPilot catalog folder (`<dir>/<cloud>/vms.csv`), read as it is. Default:
    /// $SKY_CATALOG_DIR, else SkyPilot's ~/.sky/catalogs/v8, downloaded and refreshed
    /// like SkyPilot does (files it lacks: the bundled example catalogs, with a warning).
    #[arg(long, value_name = "DIR", global = true)]
    pub catalog_dir: Option<PathBuf>,

    /// Ignore the identity and node caches and ask the clouds again (catalogs
    /// are refreshed on their pull period, or by `sky catalog refresh`).
    #[arg(long, global = true)]
    pub refresh: bool,

    /// Deadline for one cloud's checks, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0, global = true)]
    pub cloud_timeout: f64,

    /// Write a Chrome trace (open in Perfetto or speedscope). Also: $SKYPILOT_TIMELINE_FILE_PATH.
    #[arg(long, value_name = "FILE", global = true)]
    pub trace: Option<PathBuf>,

    /// After the output, print per-cloud check times, cache use and the critical path.
    #[arg(long, global = true)]
    pub timings: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Human-readable table (SkyPilot's format).
    Text,
    /// The plan and every considered row as JSON (schema `sky-plan/v1`).
    Json,
}

#[derive(Debug, Args)]
pub struct LaunchArgs {
    /// A task YAML, or a command to run (words are joined with spaces).
    #[arg(value_name = "ENTRYPOINT")]
    pub entrypoint: Vec<String>,

    /// Cluster name (default: sky-<4 hex>-<user>).
    #[arg(short = 'c', long)]
    pub cluster: Option<String>,

    /// Optimize and print, then stop.
    #[arg(long)]
    pub dryrun: bool,

    /// Skip the confirmation prompt.
    #[arg(short = 'y', long = "yes")]
    pub yes: bool,

    // --- resource overrides, as SkyPilot's flags ---
    /// Infrastructure: CLOUD[/REGION[/ZONE]] (`*` = any; Kubernetes: k8s/CONTEXT).
    #[arg(long)]
    pub infra: Option<String>,
    /// Deprecated: use --infra.
    #[arg(long)]
    pub cloud: Option<String>,
    /// Deprecated: use --infra.
    #[arg(long)]
    pub region: Option<String>,
    /// Deprecated: use --infra.
    #[arg(long)]
    pub zone: Option<String>,
    /// Accelerators: NAME[:COUNT], or memory-based (32GB+, nvidia:16GB:2).
    #[arg(long)]
    pub gpus: Option<String>,
    /// vCPUs per node: N or N+.
    #[arg(long)]
    pub cpus: Option<String>,
    /// Memory per node in GB: N, N+, or with a unit (32GB).
    #[arg(long)]
    pub memory: Option<String>,
    /// Instance type.
    #[arg(short = 't', long)]
    pub instance_type: Option<String>,
    /// Use spot instances.
    #[arg(long, overrides_with = "no_use_spot")]
    pub use_spot: bool,
    /// Use on-demand instances.
    #[arg(long, overrides_with = "use_spot")]
    pub no_use_spot: bool,
    /// Number of nodes.
    #[arg(long, value_name = "N")]
    pub num_nodes: Option<String>,
    /// OS disk size in GB.
    #[arg(long, value_name = "GB")]
    pub disk_size: Option<u64>,
    /// Disk tier: low, medium, high, ultra, best.
    #[arg(long)]
    pub disk_tier: Option<String>,
    /// Image id.
    #[arg(long)]
    pub image_id: Option<String>,
    /// Ports to open (repeatable, or comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub ports: Vec<String>,
    /// Task name.
    #[arg(short = 'n', long)]
    pub name: Option<String>,

    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = OutputFormat::Text)]
    pub output: OutputFormat,

    /// Write the chosen plan (JSON) here when the launch is confirmed.
    #[arg(long, value_name = "FILE")]
    pub plan_out: Option<PathBuf>,

    #[command(flatten)]
    pub common: CommonArgs,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Clouds to check (default: all).
    #[arg(value_name = "CLOUD")]
    pub clouds: Vec<String>,

    #[command(flatten)]
    pub common: CommonArgs,
}
