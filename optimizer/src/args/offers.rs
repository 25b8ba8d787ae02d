//! `sky offers`' flags → [`Offers`]: the launch request grammar (the same
//! flags as `sky launch`, converted by the launch's own conversion, so the
//! request, its checks and its errors are a launch's) plus how the offers
//! are listed: `--max-offers`, `--sort-by`, `--desc`, `--group-by`, the
//! filters and the market.
//!
//! Values clap can check are checked by clap (an unknown `--sort-by`
//! value is refused with the choices and, for a near miss, clap's "a
//! similar value exists"); numbers are parsed here, each error naming
//! the flag and the form it expects.

use clap::{ArgAction, Args, ValueEnum};
use planner::offers::{Filters, GroupBy, Market, Query, SortKey};

use super::error::ArgsError;
use super::flags::{CommonArgs, LaunchArgs, LaunchMarket, OutputFormat, RequestArgs};
use super::options::Environment;
use crate::launch::{LaunchOptions, Request};

/// `--sort-by` choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SortArg {
    /// Dollars per hour for all nodes.
    Price,
    /// Dollars per GPU-hour.
    GpuPrice,
    /// vCPUs per node.
    Vcpus,
    /// Memory per node.
    Memory,
    /// GPU memory per node (all its GPUs).
    GpuMemory,
}

/// `--group-by` choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GroupArg {
    /// The GPU's name.
    Gpu,
    /// The cloud.
    Cloud,
    /// The cloud and region.
    Region,
    /// GPUs per node.
    Count,
}

/// A non-negative, finite number, written with or without `prefix` and
/// one of `suffixes` (any case).
fn amount(value: &str, prefix: &str, suffixes: &[&str], what: &str) -> Result<f64, String> {
    let lower = value.trim().to_ascii_lowercase();
    let lower = lower.strip_prefix(prefix).unwrap_or(&lower);
    let number = suffixes
        .iter()
        .find_map(|u| lower.strip_suffix(u))
        .unwrap_or(lower)
        .trim();
    match number.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("expected {what}, got '{value}'")),
    }
}

/// `--max-price`: `2.5`, `$2.5`, `2.5/h`.
fn dollars(value: &str) -> Result<f64, String> {
    amount(
        value,
        "$",
        &["/h"],
        "a non-negative number of dollars per hour (e.g. 2.5)",
    )
}

/// `--min-gpu-memory`, `--min-total-gpu-memory`: `80`, `80GB`, `80G`.
fn gigabytes(value: &str) -> Result<f64, String> {
    amount(
        value,
        "",
        &["gb", "g"],
        "a non-negative number of GB (e.g. 80 or 80GB)",
    )
}

/// The request flags `sky offers` words for a listing (the others keep
/// `sky launch`'s texts). In place: the completions list the flags in
/// their declared order.
fn listing_help(arg: clap::Arg) -> clap::Arg {
    let help = match arg.get_id().as_str() {
        "num_nodes" => "Number of nodes (prices are for all of them)",
        "network_tier" => "Network tier",
        "local_disk" => "Local (instance) storage: [nvme|ssd:]SIZE[+] or a mode",
        _ => return arg,
    };
    arg.help(help)
}

#[cfg_attr(
    doc,
    doc = "`sky offers` flags: the request flags are `sky launch`'s ([`RequestArgs`]), three of them reworded for a listing."
)]
#[allow(missing_docs)]
#[derive(Debug, Args)]
#[group(skip)]
#[command(mut_args(listing_help))]
pub struct OffersArgs {
    /// A task YAML, or a command (as `sky launch` takes them).
    #[arg(value_name = "ENTRYPOINT")]
    pub entrypoint: Vec<String>,

    /// Path to a config file or a single key-value pair (repeatable).
    #[arg(long, value_name = "PATH|KEY=VALUE")]
    pub config: Vec<String>,

    /// Task name.
    #[arg(short = 'n', long)]
    pub name: Option<String>,

    /// The request, as `sky launch` takes it, with the market flags of
    /// the listing.
    #[command(flatten)]
    pub request: RequestArgs<OffersMarket>,
    /// Workspace (= --config active_workspace=NAME).
    #[arg(short = 'w', long)]
    pub workspace: Option<String>,

    /// At most this many rows (offers, or groups with --group-by).
    #[arg(long, value_name = "N", default_value_t = 20,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_offers: u32,
    /// Order of the offers (--group-by: of the groups, by their cheapest offer).
    #[arg(long, value_enum, default_value_t = SortArg::Price)]
    pub sort_by: SortArg,
    /// Largest first.
    #[arg(long, action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub desc: Option<bool>,
    /// One row per group: its number of offers, price range and cheapest offer.
    #[arg(long, value_enum)]
    pub group_by: Option<GroupArg>,
    /// At most this price, dollars per hour for all nodes.
    #[arg(long, value_name = "USD", value_parser = dollars)]
    pub max_price: Option<f64>,
    /// At least this much memory per GPU, in GB.
    #[arg(long, value_name = "GB", value_parser = gigabytes)]
    pub min_gpu_memory: Option<f64>,
    /// At least this much GPU memory per node (all its GPUs), in GB.
    #[arg(long, value_name = "GB", value_parser = gigabytes)]
    pub min_total_gpu_memory: Option<f64>,

    /// Output format (json: schema `sky-offers/v1`, see the README).
    #[arg(short = 'o', long, value_enum, default_value_t = OutputFormat::Text)]
    pub output: OutputFormat,

    /// The shared options.
    #[command(flatten)]
    pub common: CommonArgs,
}

#[cfg_attr(doc, doc = "`sky offers`' market flags (in place of `sky launch`'s).")]
#[allow(missing_docs)]
#[derive(Debug, Args)]
#[group(skip)]
pub struct OffersMarket {
    /// Spot offers only (also: --use-spot).
    #[arg(long, visible_alias = "use-spot", conflicts_with_all = ["on_demand", "any_market"], action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub spot: Option<bool>,
    /// On-demand offers only (also: --no-use-spot).
    #[arg(long, visible_alias = "no-use-spot", conflicts_with = "any_market", action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub on_demand: Option<bool>,
    /// Both markets: each instance as an on-demand and a spot offer.
    #[arg(long, action = ArgAction::Set, num_args = 0, default_missing_value = "true")]
    pub any_market: Option<bool>,
}

/// `sky offers`, resolved.
#[derive(Debug)]
pub struct Offers {
    /// The options of [`crate::launch::offers`] (a launch's).
    pub options: LaunchOptions,
    /// The request, as `sky launch` converts it (`--spot` / `--on-demand`
    /// are its `--use-spot` / `--no-use-spot`).
    pub request: Request,
    /// `--cloud`, `--region` or `--zone` given: the deprecation line.
    pub deprecated_location_flags: bool,
    /// The markets listed.
    pub market: Market,
    /// How the offers are listed.
    pub query: Query,
    /// `-o json`.
    pub json: bool,
}

/// Converts `sky offers`' flags: the request through `sky launch`'s
/// conversion (its checks, its order, its errors), then the listing.
pub(super) fn convert(args: OffersArgs, env: Environment) -> Result<Offers, ArgsError> {
    let OffersArgs {
        entrypoint,
        config,
        name,
        request,
        workspace,
        max_offers,
        sort_by,
        desc,
        group_by,
        max_price,
        min_gpu_memory,
        min_total_gpu_memory,
        output,
        common,
    } = args;
    let OffersMarket {
        spot,
        on_demand,
        any_market,
    } = request.market;
    // `--spot` / `--on-demand` are launch's `--use-spot` / `--no-use-spot`.
    let (request, _) = request.with_market(LaunchMarket {
        use_spot: spot,
        no_use_spot: on_demand,
    });
    let launch = LaunchArgs {
        entrypoint,
        config,
        cluster: None,
        dryrun: Some(true),
        detach_run: None,
        docker: None,
        backend: None,
        name,
        workdir: None,
        request,
        priority: None,
        async_call: None,
        explain: None,
        no_async: None,
        idle_minutes_to_autostop: None,
        wait_for: None,
        down: None,
        retry_until_up: None,
        yes: Some(true),
        no_setup: None,
        clone_disk_from: None,
        fast: None,
        resize: None,
        git_url: None,
        git_ref: None,
        workspace,
        output: OutputFormat::Text,
        plan_out: None,
        common,
    };
    let launch = super::launch::convert(launch, env)?;
    let market = if spot.unwrap_or(false) {
        Market::Spot
    } else if on_demand.unwrap_or(false) {
        Market::OnDemand
    } else if any_market.unwrap_or(false) {
        Market::Any
    } else {
        Market::AsRequested
    };
    Ok(Offers {
        options: launch.options,
        request: launch.request,
        deprecated_location_flags: launch.deprecated_location_flags,
        market,
        query: Query {
            max_offers: max_offers as usize,
            sort: match sort_by {
                SortArg::Price => SortKey::Price,
                SortArg::GpuPrice => SortKey::GpuPrice,
                SortArg::Vcpus => SortKey::Vcpus,
                SortArg::Memory => SortKey::Memory,
                SortArg::GpuMemory => SortKey::GpuMemory,
            },
            desc: desc.unwrap_or(false),
            group_by: group_by.map(|g| match g {
                GroupArg::Gpu => GroupBy::Gpu,
                GroupArg::Cloud => GroupBy::Cloud,
                GroupArg::Region => GroupBy::Region,
                GroupArg::Count => GroupBy::Count,
            }),
            filters: Filters {
                max_price,
                min_gpu_memory_gb: min_gpu_memory,
                min_total_gpu_memory_gb: min_total_gpu_memory,
            },
        },
        json: output == OutputFormat::Json,
    })
}

#[cfg(test)]
mod tests;
