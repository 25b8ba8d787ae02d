//! `sky gpus list` (and the deprecated `sky show-gpus`): flags, the call to
//! `optimizer::launch::gpus_list`, printing. SkyPilot 0.14.1's
//! `sky/client/cli/command.py::gpus_list` / `show_gpus`.

use std::io::Write;

use clap::{Args, Subcommand, ValueEnum};
use planner::cloud::CloudId;
use planner::gpus::{Query, SortBy, parse_accelerator};
use planner::launch::Exit;
use planner::render;
use planner::resources::parse_infra;

use crate::cli::CommonArgs;
use crate::output::{Printer, options};

/// `sky gpus`.
#[derive(Debug, Args)]
pub struct GpusArgs {
    #[command(subcommand)]
    pub command: GpusCommand,
}

/// The `sky gpus` subcommands.
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

/// `sky gpus list` flags (SkyPilot 0.14.1's, plus ours marked as such).
#[derive(Debug, Args)]
pub struct GpusListArgs {
    /// An accelerator: NAME or NAME:COUNT (the name is searched, case-insensitively).
    #[arg(value_name = "ACCELERATOR")]
    pub accelerator: Option<String>,

    /// Show details of all GPU/TPU/accelerator offerings.
    #[arg(short = 'a', long)]
    pub all: bool,

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
    #[arg(long)]
    pub all_regions: bool,

    /// Show more: the Slurm per-partition table, and (ours) the Kubernetes
    /// contexts left out because they could not be listed, with the reason.
    #[arg(short = 'v', long)]
    pub verbose: bool,

    /// Output format. Choices: table, json. Default: table.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = GpusFormat::Table)]
    pub output: GpusFormat,

    /// Order of each accelerator's offers (ours): cloud (SkyPilot's), price, spot.
    #[arg(long, value_enum, default_value_t = SortArg::Cloud)]
    pub sort_by: SortArg,

    #[command(flatten)]
    pub common: CommonArgs,
}

/// `click.UsageError` as click prints it (exit 2).
fn usage_error(message: &str) -> Exit {
    let _ = std::io::stdout().flush();
    eprintln!("{}", render::gpus::usage_error(message));
    Exit::Config
}

/// The query the flags ask for, the accelerator not yet split.
fn query(args: &GpusListArgs) -> Result<Query, String> {
    if (args.cloud.is_some() || args.region.is_some()) && args.infra.is_some() {
        return Err("Cannot specify both --infra and --cloud, --region, or --zone.".into());
    }
    let (cloud, region) = match &args.infra {
        Some(infra) => {
            let i = parse_infra(infra).map_err(|e| e.message.clone())?;
            (i.cloud, i.region)
        }
        None => {
            let cloud = match &args.cloud {
                None => None,
                Some(c) if c == "*" => None,
                Some(c) => Some(c.parse::<CloudId>().map_err(|e| e.to_string())?),
            };
            (cloud, args.region.clone().filter(|r| r != "*"))
        }
    };
    // The name is split after the flag checks (SkyPilot's order): until
    // then only its presence matters.
    Ok(Query {
        accelerator: args.accelerator.clone().map(|a| (a, None)),
        all: args.all,
        cloud,
        region,
        all_regions: args.all_regions,
        sort: match args.sort_by {
            SortArg::Cloud => SortBy::Cloud,
            SortArg::Price => SortBy::Price,
            SortArg::Spot => SortBy::Spot,
        },
    })
}

/// Runs `sky gpus list`.
pub async fn run(args: GpusListArgs, color: bool) -> anyhow::Result<Exit> {
    let printer = Printer { color };
    let opts = options(&args.common)?;
    if args.cloud.is_some() || args.region.is_some() {
        // click.secho(fg='yellow') to stdout, before anything else.
        printer.print(&[render::launch::Line {
            stream: render::launch::Stream::Stdout,
            text: format!(
                "{}The --cloud, --region, and --zone options are deprecated. Use --infra instead.{}",
                planner::text::ansi::YELLOW,
                planner::text::ansi::RESET
            ),
        }]);
    }
    let query = match query(&args) {
        Ok(q) => q,
        Err(message) => {
            eprintln!("{message}");
            return Ok(Exit::Request);
        }
    };
    let mut query = query;
    if let Err(e) = query.validate(true) {
        return Ok(usage_error(&e.0));
    }
    if let Some(raw) = &args.accelerator {
        match parse_accelerator(raw) {
            Ok(a) => query.accelerator = Some(a),
            Err(e) => return Ok(usage_error(&e.0)),
        }
    }
    let json = args.output == GpusFormat::Json;
    let outcome = match optimizer::launch::gpus_list(&opts, &query, json, args.verbose).await {
        Ok(o) => o,
        Err(e @ optimizer::launch::GpusListError::Gpus(_)) => {
            eprintln!("sky: {e}");
            return Ok(Exit::Request);
        }
        Err(e) => return Err(e.into()),
    };
    let mut warnings: Vec<_> = outcome
        .warnings
        .iter()
        .map(|w| render::launch::warning(w))
        .collect();
    if args.verbose {
        // Ours: SkyPilot leaves unreachable contexts out without a word.
        warnings.extend(
            outcome.left_out.iter().map(|(ctx, why)| {
                render::launch::warning(&render::gpus::context_left_out(ctx, why))
            }),
        );
    }
    printer.print(&warnings);
    let mut stdout = std::io::stdout().lock();
    if let Some(listing) = &outcome.json {
        let _ = stdout.write_all(render::gpus::json(listing).as_bytes());
    }
    if let Some(report) = &outcome.report {
        let text = render::gpus::text(report);
        let _ = stdout.write_all(printer.paint(color, &text).as_bytes());
        let _ = stdout.flush();
        drop(stdout);
        if !report.suggestions.is_empty() {
            // Ours: SkyPilot's catalog wording for close names, on stderr so
            // the table output stays SkyPilot's.
            eprintln!("{}", render::gpus::did_you_mean(&report.suggestions));
        }
    }
    Ok(Exit::Ok)
}
