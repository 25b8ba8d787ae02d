//! `sky catalog refresh`: the downloads, one line per file, and the exit
//! status.

use optimizer::args::CatalogRefresh;
use optimizer::launch;
use planner::launch::Exit;
use planner::render;

use crate::output::Printer;

/// Runs `sky catalog refresh` (its output is never coloured).
pub async fn refresh(args: CatalogRefresh) -> anyhow::Result<Exit> {
    let printer = Printer { color: false };
    let report = launch::refresh_catalogs(&args.options, &args.clouds, args.timeout).await?;
    for line in render::catalog::refresh(&report) {
        printer.stdout(&line);
    }
    Ok(if report.files.iter().all(|(_, r)| r.ok()) {
        Exit::Ok
    } else {
        Exit::Partial
    })
}
