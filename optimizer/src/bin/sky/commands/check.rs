//! `sky check`: every cloud and storage check, the report as 0.14.1 lays
//! it out (or its `-o json` document), and the exit status.

use std::io::IsTerminal;

use optimizer::args::Check;
use optimizer::launch;
use planner::launch::Exit;
use planner::render;
use planner::render::launch::{Line, Stream};

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
            print_stdout(
                printer,
                render::check::report(&report, &render::check::CheckView::default()),
            );
        }
        // `check_capabilities` raises it after the header.
        error_line(&format!("ValueError: {message}"));
        // A person gets the close names too; scripts and logs 0.14.1's text only.
        if let Some(hint) = args
            .options
            .declared_unknown
            .as_deref()
            .filter(|_| std::io::stderr().is_terminal())
            .and_then(render::check::unknown_cloud_hint)
        {
            error_line(&hint);
        }
        return Ok(Exit::Request);
    }
    if args.json {
        // 0.14.1's document (no note: stdout is the document), and its
        // exit code: 0, whatever is enabled
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
    let declared = args.declared_by_env.as_deref().filter(|c| !c.is_empty());
    if let Some(clouds) = declared {
        lines.push(render::check::declared_note(clouds));
    }
    print_stdout(printer, lines);
    // `4` when the summary lists nothing ("No infra to check/enabled.") and
    // `SKY_ENABLED_CLOUDS` declares nothing either: launches would have no
    // cloud. (Empty, it declares no cloud, as for a launch, and the report
    // decides.)
    Ok(if report.enabled_anywhere() || declared.is_some() {
        Exit::Ok
    } else {
        Exit::NoCloud
    })
}

/// Prints `lines` to stdout as one write ([`Printer::print`] joins the
/// stdout lines between two stderr ones): the report is some 60 lines, and
/// stdout is line-buffered, so one `printer.stdout` per line was one system
/// call each. The bytes are the same.
fn print_stdout(printer: &Printer, lines: Vec<String>) {
    let lines: Vec<Line> = lines
        .into_iter()
        .map(|text| Line {
            stream: Stream::Stdout,
            text,
        })
        .collect();
    printer.print(&lines);
}
