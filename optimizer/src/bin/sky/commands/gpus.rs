//! `sky gpus list` (and the deprecated `sky show-gpus`): the listing, its
//! warnings, the tables or the JSON. SkyPilot 0.14.1's
//! `sky/client/cli/command.py::gpus_list` / `show_gpus`.

use std::io::Write;

use optimizer::args::GpusList;
use optimizer::launch::{GpusListError, gpus_list};
use planner::launch::Exit;
use planner::render;

use crate::output::{Printer, error_line};

/// Runs `sky gpus list`.
pub async fn list(args: GpusList, printer: &Printer) -> anyhow::Result<Exit> {
    let outcome = match gpus_list(&args.options, &args.query, args.json, args.verbose).await {
        Ok(o) => o,
        Err(e @ GpusListError::Gpus(_)) => {
            error_line(&format!("sky: {e}"));
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
        let _ = stdout.write_all(printer.paint(printer.color, &text).as_bytes());
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
