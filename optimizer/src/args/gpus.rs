//! `sky gpus list`'s flags → [`GpusList`]: the [`Query`], checked as
//! SkyPilot 0.14.1's `_show_gpus_impl` checks it
//! (`sky/client/cli/command.py::gpus_list`, after
//! `_handle_infra_cloud_region_zone_options`), in its order.

use planner::cloud::CloudId;
use planner::gpus::{Query, SortBy, parse_accelerator};
use planner::resources::parse_infra;

use super::error::ArgsError;
use super::flags::{GpusFormat, GpusListArgs, SortArg};
use super::invocation::{GpusList, Notice};
use super::options::{Environment, options};

/// Converts `sky gpus list`'s flags; the deprecated `--cloud`/`--region`
/// are said first (click's `secho` runs before the checks).
pub(super) fn convert(
    args: GpusListArgs,
    env: Environment,
    notices: &mut Vec<Notice>,
) -> Result<GpusList, ArgsError> {
    let options = options(&args.common, env)?;
    if args.cloud.is_some() || args.region.is_some() {
        notices.push(Notice::DeprecatedLocationFlags);
    }
    let mut query = query(&args)?;
    query.validate(true).map_err(ArgsError::GpusQuery)?;
    // The name is split after the flag checks (SkyPilot's order): until
    // then only its presence matters.
    if let Some(raw) = &args.accelerator {
        query.accelerator = Some(parse_accelerator(raw).map_err(ArgsError::GpusAccelerator)?);
    }
    Ok(GpusList {
        options,
        query,
        json: args.output == GpusFormat::Json,
        verbose: args.verbose.unwrap_or(false),
    })
}

/// The query the flags ask for, the accelerator not yet split.
fn query(args: &GpusListArgs) -> Result<Query, ArgsError> {
    if (args.cloud.is_some() || args.region.is_some()) && args.infra.is_some() {
        return Err(ArgsError::GpusInfraWithLocation);
    }
    let (cloud, region) = match &args.infra {
        Some(infra) => {
            let i = parse_infra(infra).map_err(|e| ArgsError::GpusInfra(e.message))?;
            (i.cloud, i.region)
        }
        None => {
            let cloud = match &args.cloud {
                None => None,
                Some(c) if c == "*" => None,
                Some(c) => Some(c.parse::<CloudId>().map_err(ArgsError::GpusCloud)?),
            };
            (cloud, args.region.clone().filter(|r| r != "*"))
        }
    };
    Ok(Query {
        accelerator: args.accelerator.clone().map(|a| (a, None)),
        all: args.all.unwrap_or(false),
        cloud,
        region,
        all_regions: args.all_regions.unwrap_or(false),
        sort: match args.sort_by {
            SortArg::Cloud => SortBy::Cloud,
            SortArg::Price => SortBy::Price,
            SortArg::Spot => SortBy::Spot,
        },
    })
}
