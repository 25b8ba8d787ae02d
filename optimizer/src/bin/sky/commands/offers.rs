//! `sky offers`: the launch's pipeline, then every offer it would accept,
//! listed as the flags ask; printed, with the launch's exit status.

use optimizer::args::Offers;
use optimizer::launch::{self, LaunchError};
use planner::launch::Exit;
use planner::render;

use crate::output::{Printer, error_line};

/// Runs `sky offers`.
pub async fn run(args: Offers, printer: &Printer) -> anyhow::Result<Exit> {
    if args.deprecated_location_flags {
        printer.print(&[render::launch::deprecated_location_flags()]);
    }
    let result = match launch::offers(&args.options, &args.request, args.market, args.query).await {
        Ok(result) => result,
        Err(LaunchError::NoCloud(msg)) => {
            error_line(&format!("sky: {msg}"));
            return Ok(Exit::NoCloud);
        }
        Err(e) => return Err(e.into()),
    };
    // As `sky launch`: the process exits right after printing; freeing the
    // catalog rows would cost more than the listing.
    let result: &'static _ = Box::leak(Box::new(result));
    let lines =
        tracing::info_span!("render").in_scope(|| render::offers::offers(result, args.json));
    tracing::info_span!("output").in_scope(|| printer.print(&lines));
    Ok(result.exit())
}
