//! `sky launch`: the pipeline, the table, the confirmation, the plan
//! written and the task handed to SkyPilot on a confirmed launch.

use anyhow::Context;
use optimizer::args::Launch;
use optimizer::launch::{self, LaunchError};
use optimizer::state::{FileMode, write_atomic};
use planner::launch::Exit;
use planner::render;
use planner::render::launch::{LaunchView, LogPrefix};

use crate::output::{Printer, error_line};
use crate::prompt::confirm;

use super::handoff::{self, HandOff};

/// Runs `sky launch`; a confirmed launch leaves SkyPilot's part in `handoff`
/// (run once this returns, outside the subcommand's signal handling).
pub async fn run(
    args: Launch,
    printer: &Printer,
    handoff: &mut Option<HandOff>,
) -> anyhow::Result<Exit> {
    if let Some(cluster) = args
        .cluster
        .as_deref()
        .filter(|_| args.cluster_looks_like_path)
    {
        let warning = render::launch::cluster_name_looks_like_path(cluster);
        if args.yes {
            printer.stdout(&warning);
        } else if !confirm(
            printer,
            &format!("{warning}\nProceed anyway? [y/N]: "),
            false,
        ) {
            printer.stdout(render::launch::ABORTED);
            return Ok(Exit::Request);
        }
    }
    if args.deprecated_location_flags {
        printer.print(&[render::launch::deprecated_location_flags()]);
    }
    let result = match launch::run(&args.options, &args.request).await {
        Ok(result) => result,
        Err(LaunchError::NoCloud(msg)) => {
            error_line(&format!("sky: {msg}"));
            return Ok(Exit::NoCloud);
        }
        Err(e) => return Err(e.into()),
    };
    // The process exits right after printing: freeing tens of thousands of
    // catalog rows would cost more than the whole table. Leak them on purpose.
    let result: &'static _ = Box::leak(Box::new(result));
    let cluster = args.cluster.clone().unwrap_or_else(default_cluster_name);
    let view = LaunchView {
        cluster: &cluster,
        json: args.json,
        yes: args.yes,
        full_logging: args.full_logging.then(log_prefix),
        dryrun: args.dryrun,
        timings: args.timings,
    };
    let lines = tracing::info_span!("render").in_scope(|| render::launch::launch(result, &view));
    tracing::info_span!("output").in_scope(|| printer.print(&lines));
    let exit = result.exit();
    if exit == Exit::Request || args.dryrun {
        return Ok(exit);
    }
    if !args.yes && !confirm(printer, &render::launch::prompt(&cluster), true) {
        printer.stdout(render::launch::ABORTED);
        return Ok(Exit::Request);
    }
    if let Some(path) = &args.plan_out {
        let doc = render::json::plan(result, &cluster);
        write_atomic(
            path,
            serde_json::to_string_pretty(&doc)?.as_bytes(),
            FileMode::User,
        )
        .with_context(|| format!("cannot write the plan to {}", path.display()))?;
    }
    // Provisioning is SkyPilot's: its `sky launch` on the task with the plan
    // pinned; the exit code becomes SkyPilot's.
    Ok(
        match handoff::prepare(result, &cluster, args.json, printer)? {
            Some(prepared) => {
                *handoff = Some(prepared);
                exit
            }
            None => Exit::Config,
        },
    )
}

/// SkyPilot's generated cluster name: `sky-<4 hex>-<user>`.
fn default_cluster_name() -> String {
    let user = std::env::var("USER").unwrap_or_else(|_| "user".into());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let hash = (std::process::id() ^ nanos) & 0xffff;
    format!("sky-{hash:04x}-{user}")
}

/// The logger prefix's clock and process id, now.
fn log_prefix() -> LogPrefix {
    let now = jiff::Zoned::now();
    LogPrefix {
        time: format!(
            "{}.{:03}",
            now.strftime("%m-%d %H:%M:%S"),
            now.millisecond()
        ),
        pid: std::process::id(),
    }
}
