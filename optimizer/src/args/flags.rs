//! The low args: what clap parses from the command line, before anything is
//! checked — every option of SkyPilot 0.14.1's `sky launch`, `sky check` and
//! `sky gpus list` (`sky/client/cli/command.py`, `sky/client/cli/flags.py`),
//! plus this tool's own (`-o json` on launch, `--plan-out`, `--timings`,
//! `sky catalog refresh`, ...). No logic lives here: values stay as the user
//! typed them, and [`convert`](super::convert) validates them. The doc
//! comments are the `--help` texts, the man pages and the completions.
//!
//! The clap types' own descriptions are for rustdoc only
//! (`cfg_attr(doc, …)`): clap's derive turns a type's doc comment into an
//! `about` text that the subcommand's doc comment then replaces — an
//! allocation and a free on every run, for nothing printed.
//!
//! A switch (`--dryrun`) is an `Option<bool>`: `Some(true)` when given,
//! `None` when not. Not a `bool`: clap gives every `bool` flag
//! (`ArgAction::SetTrue`) a default, so each parse would materialize and
//! parse a "false" for every switch not given (about 3,000 instructions
//! and ten allocations each; `sky launch` has 17). A switch is
//! `ArgAction::Set` with no value (`num_args = 0`) and
//! `default_missing_value = "true"`: the same `--help`, usage, errors,
//! completions and man pages, and nothing stored for a switch left out.
//! Every `Args` struct skips the `ArgGroup` the derive would add
//! (`#[group(skip)]`): nothing refers to those groups, and each would be
//! built and matched on every parse.

use std::path::PathBuf;

use clap::builder::PossibleValuesParser;
use clap::{ArgAction, Args, Subcommand, ValueEnum};

pub use super::offers::{GroupArg, OffersArgs, OffersMarket, SortArg as OffersSortArg};

#[cfg_attr(doc, doc = "The subcommands.")]
#[allow(missing_docs)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Optimize a task and show the considered resources (provisioning is out of scope).
    Launch(Box<LaunchArgs>),
    /// Check which clouds are enabled, and the identities they use.
    Check(CheckArgs),
    /// Manage SkyPilot's catalog folder (~/.sky/catalogs/v8).
    Catalog(CatalogArgs),
    /// GPU/accelerator commands (`sky gpus list`).
    Gpus(GpusArgs),
    /// Deprecated: use `sky gpus list`.
    #[command(name = "show-gpus")]
    ShowGpus(Box<GpusListArgs>),
    /// List every offer for a request (launch's flags): filtered, sorted, grouped, priced per GPU.
    Offers(Box<OffersArgs>),
}

#[cfg_attr(doc, doc = "`sky catalog`.")]
#[allow(missing_docs)]
#[derive(Debug, Args)]
#[group(skip)]
#[command(mut_args(global))]
pub struct CatalogArgs {
    /// What to do with the folder.
    #[command(subcommand)]
    pub command: CatalogCommand,

    /// The shared options.
    #[command(flatten)]
    pub common: CommonArgs,
}

/// `sky catalog`'s shared options, given before or after its subcommand
/// (`sky catalog --catalog-dir D refresh`): global there. Nowhere else:
/// the other subcommands have none of their own, and a global option's
/// value is copied between the levels of every parse.
fn global(arg: clap::Arg) -> clap::Arg {
    arg.global(true)
}

#[cfg_attr(doc, doc = "The `sky catalog` subcommands.")]
#[allow(missing_docs)]
#[derive(Debug, Subcommand)]
pub enum CatalogCommand {
    /// Download the catalogs now, whatever their pull period (files edited by hand are kept).
    Refresh(RefreshArgs),
}

#[cfg_attr(doc, doc = "`sky catalog refresh` flags.")]
#[allow(missing_docs)]
#[derive(Debug, Args)]
#[group(skip)]
pub struct RefreshArgs {
    /// Clouds to refresh (default: every cloud with a catalog in the folder,
    /// and the declared or last checked ones).
    #[arg(value_name = "CLOUD")]
    pub clouds: Vec<String>,

    /// Deadline for each download, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub timeout: f64,
}

#[cfg_attr(doc, doc = "Options shared by the subcommands.")]
#[allow(missing_docs)]
#[derive(Debug, Args)]
#[group(skip)]
pub struct CommonArgs {
    /// SkyPilot catalog folder (`<dir>/<cloud>/vms.csv`), read as it is. Default:
    /// $SKY_CATALOG_DIR, else SkyPilot's ~/.sky/catalogs/v8, downloaded and refreshed
    /// like SkyPilot does (files it lacks: the bundled example catalogs, with a warning).
    #[arg(long, value_name = "DIR")]
    pub catalog_dir: Option<PathBuf>,

    /// Ignore the identity and node caches and ask the clouds again (catalogs
    /// are refreshed on their pull period, or by `sky catalog refresh`).
    #[arg(long, action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub refresh: Option<bool>,

    /// Retry catalog downloads that failed lately now, instead of after their
    /// back-off (5 minutes, doubling up to an hour).
    #[arg(long, action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub retry_downloads: Option<bool>,

    /// Deadline for one cloud's checks, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    pub cloud_timeout: f64,

    /// Write a Chrome trace (open in Perfetto or speedscope). Also: $SKYPILOT_TIMELINE_FILE_PATH.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,

    /// After the output, print per-cloud check times, cache use and the critical path.
    #[arg(long, action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub timings: Option<bool>,
}

/// `-o` of `sky launch` and `sky check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Human-readable table (SkyPilot's format).
    Text,
    /// The same, under SkyPilot's name for it.
    Table,
    /// JSON.
    Json,
}

/// `--disk-tier` choices (`DiskTier.supported_tiers()`, `none` resets).
const DISK_TIERS: [&str; 6] = ["low", "medium", "high", "ultra", "best", "none"];
/// `--network-tier` choices (`NetworkTier.supported_tiers()`).
const NETWORK_TIERS: [&str; 2] = ["standard", "best"];
/// `--wait-for` choices (`AutostopWaitFor.supported_modes()`).
const WAIT_FOR: [&str; 3] = ["jobs_and_ssh", "jobs", "none"];

#[cfg_attr(doc, doc = "`sky launch` flags.")]
#[allow(missing_docs)]
#[derive(Debug, Args)]
#[group(skip)]
pub struct LaunchArgs {
    /// A task YAML, or a command to run (words are joined with spaces).
    #[arg(value_name = "ENTRYPOINT")]
    pub entrypoint: Vec<String>,

    /// Path to a config file or a single key-value pair (repeatable:
    /// --config nested.key1=val1 --config nested.key2=val2).
    #[arg(long, value_name = "PATH|KEY=VALUE")]
    pub config: Vec<String>,

    /// Cluster name (default: sky-<4 hex>-<user>).
    #[arg(short = 'c', long)]
    pub cluster: Option<String>,

    /// Optimize and print, then stop.
    #[arg(long, action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub dryrun: Option<bool>,

    /// Do not stream execution logs after submitting (provisioning only).
    #[arg(short = 'd', long, action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub detach_run: Option<bool>,

    /// Deprecated local Docker backend (provisioning only).
    #[arg(long, hide = true, action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub docker: Option<bool>,

    /// Backend: cloudvmray (SkyPilot's only one) or docker (the deprecated
    /// `--docker`). Not a SkyPilot 0.14.1 flag; accepted for older scripts.
    #[arg(short = 'b', long, hide = true)]
    pub backend: Option<String>,

    /// Task name (not the cluster).
    #[arg(short = 'n', long)]
    pub name: Option<String>,

    /// Local folder synced as the task's working directory (provisioning only).
    #[arg(long, value_name = "DIR")]
    pub workdir: Option<String>,

    /// The request: SkyPilot's resource overrides, with launch's market flags.
    #[command(flatten)]
    pub request: RequestArgs<LaunchMarket>,
    /// Priority: an integer from -1000 to 1000, or a priority class name; `none` clears.
    #[arg(long)]
    pub priority: Option<String>,
    /// Return at once (provisioning only).
    #[arg(long = "async", overrides_with = "no_async", action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub async_call: Option<bool>,
    /// Wait for the request (the default).
    #[arg(long = "no-async", overrides_with = "async_call", action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub no_async: Option<bool>,
    /// Autostop after this many idle minutes (provisioning only).
    #[arg(short = 'i', long, value_name = "MINUTES")]
    pub idle_minutes_to_autostop: Option<i64>,
    /// What resets idleness for autostop (provisioning only).
    #[arg(long, value_parser = PossibleValuesParser::new(WAIT_FOR))]
    pub wait_for: Option<String>,
    /// Tear the cluster down when its jobs finish (provisioning only).
    #[arg(long, action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub down: Option<bool>,
    /// Retry provisioning until the cluster is up (provisioning only).
    #[arg(short = 'r', long, action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub retry_until_up: Option<bool>,
    /// Skip the confirmation prompt.
    #[arg(short = 'y', long = "yes", action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub yes: Option<bool>,
    /// Skip the setup phase (provisioning only).
    #[arg(long, action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub no_setup: Option<bool>,
    /// Clone the boot disk of this cluster (provisioning only).
    #[arg(long, alias = "clone", value_name = "CLUSTER")]
    pub clone_disk_from: Option<String>,
    /// Skip provisioning of an existing cluster (provisioning only).
    #[arg(long, action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub fast: Option<bool>,
    /// Resize the existing cluster given by -c to --num-nodes (provisioning only).
    #[arg(long, action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub resize: Option<bool>,
    /// Git repository URL as the workdir (provisioning only).
    #[arg(long)]
    pub git_url: Option<String>,
    /// Git reference (branch, tag or commit) of --git-url.
    #[arg(long)]
    pub git_ref: Option<String>,
    /// Workspace to launch into (= --config active_workspace=NAME).
    #[arg(short = 'w', long)]
    pub workspace: Option<String>,

    /// Output format (json: the plan and every considered row, schema `sky-plan/v1`).
    #[arg(short = 'o', long, value_enum, default_value_t = OutputFormat::Text)]
    pub output: OutputFormat,

    /// Write the chosen plan (JSON) here when the launch is confirmed.
    #[arg(long, value_name = "FILE")]
    pub plan_out: Option<PathBuf>,

    /// After the table, say why: each cloud's cheapest launchable and its
    /// gap to the chosen row, or why it has none; the chosen candidate's
    /// cheapest locations (with -o json: an `explain` section).
    #[arg(long, action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub explain: Option<bool>,

    /// The shared options.
    #[command(flatten)]
    pub common: CommonArgs,
}

#[cfg_attr(
    doc,
    doc = "The request flags `sky launch` and `sky offers` share (SkyPilot's resource overrides), with each command's market flags `M` in their place. The help texts are launch's; `sky offers` rewords some ([`OffersArgs`])."
)]
#[allow(missing_docs)]
#[derive(Debug, Args)]
#[group(skip)]
pub struct RequestArgs<M: Args> {
    /// Infrastructure: CLOUD[/REGION[/ZONE]] (`*` = any; Kubernetes: k8s/CONTEXT).
    #[arg(long)]
    pub infra: Option<String>,
    /// Deprecated: use --infra.
    #[arg(long, hide = true)]
    pub cloud: Option<String>,
    /// Deprecated: use --infra.
    #[arg(long, hide = true)]
    pub region: Option<String>,
    /// Deprecated: use --infra.
    #[arg(long, hide = true)]
    pub zone: Option<String>,
    /// Number of nodes.
    #[arg(long, value_name = "N")]
    pub num_nodes: Option<String>,
    /// vCPUs per node: N or N+.
    #[arg(long)]
    pub cpus: Option<String>,
    /// Memory per node in GB: N, N+, or with a unit (32GB).
    #[arg(long)]
    pub memory: Option<String>,
    /// OS disk size in GB.
    #[arg(long, value_name = "GB")]
    pub disk_size: Option<i64>,
    /// OS disk tier.
    #[arg(long, value_parser = PossibleValuesParser::new(DISK_TIERS), ignore_case = true)]
    pub disk_tier: Option<String>,
    /// Network tier (best: the instance's fastest interconnect).
    #[arg(long, value_parser = PossibleValuesParser::new(NETWORK_TIERS), ignore_case = true)]
    pub network_tier: Option<String>,
    /// The market flags (`sky launch`'s or `sky offers`').
    #[command(flatten)]
    pub market: M,
    /// Image id (`docker:<image>` for a container).
    #[arg(long)]
    pub image_id: Option<String>,
    /// Dotenv file of environment variables for the task.
    #[arg(long, value_name = "FILE")]
    pub env_file: Option<PathBuf>,
    /// Environment variable KEY=VALUE, or KEY to take it from here (repeatable).
    #[arg(long, value_name = "KEY[=VALUE]")]
    pub env: Vec<String>,
    /// Dotenv file of secrets for the task (values are never printed).
    #[arg(long, value_name = "FILE")]
    pub secret_file: Option<PathBuf>,
    /// Secret KEY=VALUE, or KEY to take it from here (repeatable; never printed).
    #[arg(long, value_name = "KEY[=VALUE]")]
    pub secret: Vec<String>,
    /// Local (instance) storage: [nvme|ssd:]SIZE[+] or a mode (nvme = nvme:100+).
    #[arg(long)]
    pub local_disk: Option<String>,
    /// Accelerators: NAME[:COUNT], or memory-based (32GB+, nvidia:16GB:2).
    #[arg(long)]
    pub gpus: Option<String>,
    /// Instance type.
    #[arg(short = 't', long)]
    pub instance_type: Option<String>,
    /// Ports to open: a port, a range or a comma-separated list (repeatable).
    #[arg(long)]
    pub ports: Vec<String>,
}

impl<M: Args> RequestArgs<M> {
    /// The same request with `market` in place of its market flags, and those flags.
    pub fn with_market<N: Args>(self, market: N) -> (RequestArgs<N>, M) {
        let RequestArgs {
            infra,
            cloud,
            region,
            zone,
            num_nodes,
            cpus,
            memory,
            disk_size,
            disk_tier,
            network_tier,
            market: old,
            image_id,
            env_file,
            env,
            secret_file,
            secret,
            local_disk,
            gpus,
            instance_type,
            ports,
        } = self;
        let request = RequestArgs {
            infra,
            cloud,
            region,
            zone,
            num_nodes,
            cpus,
            memory,
            disk_size,
            disk_tier,
            network_tier,
            market,
            image_id,
            env_file,
            env,
            secret_file,
            secret,
            local_disk,
            gpus,
            instance_type,
            ports,
        };
        (request, old)
    }
}

#[cfg_attr(doc, doc = "`sky launch`'s market flags.")]
#[allow(missing_docs)]
#[derive(Debug, Args)]
#[group(skip)]
pub struct LaunchMarket {
    /// Use spot instances.
    #[arg(long, overrides_with = "no_use_spot", action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub use_spot: Option<bool>,
    /// Use on-demand instances.
    #[arg(long, overrides_with = "use_spot", action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub no_use_spot: Option<bool>,
}

#[cfg_attr(doc, doc = "`sky check` flags.")]
#[allow(missing_docs)]
#[derive(Debug, Args)]
#[group(skip)]
pub struct CheckArgs {
    /// Clouds, or storage-only providers (cloudflare, coreweave, vastdata,
    /// huggingface), to check (default: all); in `cloud/region` the region
    /// is ignored.
    #[arg(value_name = "CLOUD")]
    pub clouds: Vec<String>,

    /// Show the per-cloud details in every workspace, and each enabled
    /// cloud's active account.
    #[arg(short = 'v', long, action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub verbose: Option<bool>,

    /// Check only this workspace (default: every workspace the config defines).
    #[arg(long)]
    pub workspace: Option<String>,

    /// Output format (`json`: SkyPilot's document, each workspace's clouds
    /// and their enabled capabilities).
    #[arg(short = 'o', long, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,

    /// Path to a config file or a single key-value pair (repeatable).
    #[arg(long, value_name = "PATH|KEY=VALUE")]
    pub config: Vec<String>,

    /// The shared options.
    #[command(flatten)]
    pub common: CommonArgs,
}

#[cfg_attr(doc, doc = "`sky gpus`.")]
#[allow(missing_docs)]
#[derive(Debug, Args)]
#[group(skip)]
pub struct GpusArgs {
    /// The subcommand (only `list`).
    #[command(subcommand)]
    pub command: GpusCommand,
}

#[cfg_attr(doc, doc = "The `sky gpus` subcommands.")]
#[allow(missing_docs)]
#[derive(Debug, Subcommand)]
pub enum GpusCommand {
    /// Show supported GPU/TPU/accelerators and their prices.
    ///
    /// The names and counts shown can be set in the `accelerators` field of
    /// task YAMLs or with `--gpus` (a table showing 8x V100 means `V100:8`
    /// is accepted). `sky gpus list <gpu>` shows one accelerator's offers
    /// per cloud (instance type, device and host memory, vCPUs, hourly and
    /// spot price, cheapest region); `--all` lists every accelerator with
    /// its offers; `--all-regions` one row per region.
    ///
    /// DEVICE_MEM: memory of one device. HOST_MEM: memory of the instance.
    ///
    /// With Kubernetes, SSH Node Pools or Slurm enabled, their GPUs come
    /// first: per context (pool, cluster) the quantities one node can give
    /// (REQUESTABLE_QTY_PER_NODE) and UTILIZATION (free of total, from the
    /// nodes and the pods on them), then a per-node table; `--infra
    /// kubernetes[/CONTEXT]`, `ssh[/POOL]` or `slurm[/CLUSTER]` shows only that.
    ///
    /// Extensions (not in SkyPilot 0.14.1): `--sort-by price|spot`
    /// (upstream #3111), `--all-regions` without a GPU name (prices of every
    /// GPU in every region, upstream #2863); `--infra CLOUD --all` lists
    /// every GPU of one cloud with its offers (upstream #1733).
    List(Box<GpusListArgs>),
}

impl GpusArgs {
    /// The `list` arguments.
    pub fn into_list(self) -> GpusListArgs {
        match self.command {
            GpusCommand::List(a) => *a,
        }
    }
}

/// Output format of `sky gpus list`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GpusFormat {
    /// SkyPilot's tables.
    Table,
    /// SkyPilot's `list_accelerators` answer as JSON (see the README).
    Json,
}

/// How each GPU's offers are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SortArg {
    /// SkyPilot's order: clouds by their cheapest offer.
    Cloud,
    /// Cheapest on-demand price first, across clouds (ours).
    Price,
    /// Cheapest spot price first, across clouds (ours, upstream #3111).
    Spot,
}

#[cfg_attr(
    doc,
    doc = "`sky gpus list` flags (SkyPilot 0.14.1's, plus ours marked as such)."
)]
#[allow(missing_docs)]
#[derive(Debug, Args)]
#[group(skip)]
pub struct GpusListArgs {
    /// An accelerator: NAME or NAME:COUNT (the name is searched, case-insensitively).
    #[arg(value_name = "ACCELERATOR")]
    pub accelerator: Option<String>,

    /// Show details of all GPU/TPU/accelerator offerings.
    #[arg(short = 'a', long, action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub all: Option<bool>,

    /// Infrastructure to query. Examples: "aws", "aws/us-east-1".
    #[arg(long)]
    pub infra: Option<String>,

    /// Deprecated: use --infra.
    #[arg(long, hide = true)]
    pub cloud: Option<String>,

    /// Deprecated: use --infra.
    #[arg(long, hide = true)]
    pub region: Option<String>,

    /// Show pricing and instance details for a specified accelerator across
    /// all regions and clouds (ours: also without one, for every accelerator).
    #[arg(long, action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub all_regions: Option<bool>,

    /// Show more: the Slurm per-partition table, and (ours) the Kubernetes
    /// contexts left out because they could not be listed, with the reason.
    #[arg(short = 'v', long, action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub verbose: Option<bool>,

    /// Output format. Choices: table, json. Default: table.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = GpusFormat::Table)]
    pub output: GpusFormat,

    /// Order of each accelerator's offers (ours): cloud (SkyPilot's), price, spot.
    #[arg(long, value_enum, default_value_t = SortArg::Cloud)]
    pub sort_by: SortArg,

    /// The shared options.
    #[command(flatten)]
    pub common: CommonArgs,
}
