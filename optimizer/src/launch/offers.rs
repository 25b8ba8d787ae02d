//! `sky offers`: the launch pipeline as `sky launch --dryrun` runs it —
//! configure, probe, assemble, plan ([`super::run`]: the same catalogs,
//! cloud checks, request parsing, validation and errors) — then every
//! offer of the validated tasks, enumerated by the planner's feasibility
//! code ([`planner::offers`]).

use planner::offers::{Market, OffersResult, Query};

use super::{LaunchError, LaunchOptions, Request, run};

/// One `sky offers` run: the launch, then its offers listed by `query`.
pub async fn offers(
    options: &LaunchOptions,
    request: &Request,
    market: Market,
    query: Query,
) -> Result<OffersResult, LaunchError> {
    let launch = run(options, request).await?;
    Ok(OffersResult::new(launch, market, query))
}
