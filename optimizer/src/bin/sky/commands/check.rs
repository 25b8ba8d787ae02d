//! `sky check`: every cloud and storage check, the report as 0.14.1 lays
//! it out (or its `-o json` document), and the exit status.

use optimizer::args::Check;
use optimizer::launch;
use planner::launch::Exit;
use planner::render;
use planner::render::launch::Line;

use crate::output::{Printer, error_line};

/// Runs `sky check`.
pub async fn run(args: Check, printer: &Printer) -> anyhow::Result<Exit> {
    let report = launch::check(&args.options).await?;
    let warnings: Vec<Line> = report
        .warnings
        .iter()
        .map(|w| render::launch::warning(w))
        .collect();
    printer.print(&warnings);
    if let Some(message) = &report.invalid {
        // `-o json` discards the streamed text (the header) too.
        if !args.json {
            for line in render::check::report(&report, &render::check::CheckView::default()) {
                printer.stdout(&line);
            }
        }
        // `check_capabilities` raises it after the header.
        error_line(&format!("ValueError: {message}"));
        return Ok(Exit::Request);
    }
    if args.json {
        // 0.14.1's document, and its exit code: 0, whatever is enabled
        // (`{"default": {}}` when nothing is).
        printer.stdout(&render::check::json(&report));
        return Ok(Exit::Ok);
    }
    let view = render::check::CheckView {
        verbose: args.verbose,
    };
    let mut lines = render::check::report(&report, &view);
    if args.timings {
        lines.extend(render::timings::check(&report.fanout));
    }
    for line in &lines {
        printer.stdout(line);
    }
    // `4` when the summary lists nothing ("No infra to check/enabled.").
    Ok(if report.enabled_anywhere() {
        Exit::Ok
    } else {
        Exit::NoCloud
    })
}
