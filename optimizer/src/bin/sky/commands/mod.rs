//! Running a subcommand from its high args ([`optimizer::args::Invocation`]):
//! one module each calls the library, prints what `planner::render` made
//! of the result, asks what needs asking, and picks the exit status.

mod catalog;
mod check;
mod gpus;
pub mod handoff;
mod launch;
mod offers;

use optimizer::args::Invocation;
use planner::launch::Exit;

use crate::output::Printer;

/// Runs the subcommand (the caller has set the options' fan-out observer:
/// the pending-clouds line on a terminal); a confirmed launch leaves
/// SkyPilot's part in `handoff`.
pub async fn run(
    invocation: Invocation,
    printer: Printer,
    handoff: &mut Option<handoff::HandOff>,
) -> anyhow::Result<Exit> {
    match invocation {
        Invocation::Launch(args) => launch::run(*args, &printer, handoff).await,
        Invocation::Check(args) => check::run(*args, &printer).await,
        Invocation::CatalogRefresh(args) => catalog::refresh(*args).await,
        Invocation::GpusList(args) => gpus::list(*args, &printer).await,
        Invocation::Offers(args) => offers::run(*args, &printer).await,
    }
}
