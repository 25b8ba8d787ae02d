//! `sky launch`: the questions asked before it, the pipeline, the table,
//! the confirmation, the plan written and the task handed to SkyPilot on a
//! confirmed launch.
//!
//! With `-o json`, stdout carries the JSON document and nothing else: no
//! question is asked (without `-y` the plan is printed and `--plan-out`
//! written, but nothing is handed to SkyPilot), and the lines said around the
//! document (the cluster-name warning, the deprecation line, the
//! confirmation line) go to stderr.

use std::io::IsTerminal;

use anyhow::Context;
use optimizer::args::Launch;
use optimizer::clouds::kubernetes::WriteBehind;
use optimizer::launch::{self, LaunchError};
use optimizer::state::{FileMode, write_atomic};
use planner::launch::Exit;
use planner::render;
use planner::render::launch::{LaunchView, Line, LogPrefix, Stream};

use crate::output::{Printer, error_line};
use crate::prompt::{Answer, Question, confirm};

use super::handoff::{self, HandOff};

/// Runs `sky launch`; a confirmed launch leaves SkyPilot's part in `handoff`
/// (run once this returns, outside the subcommand's signal handling).
pub async fn run(
    mut args: Launch,
    printer: &Printer,
    handoff: &mut Option<HandOff>,
) -> anyhow::Result<Exit> {
    // A machine reads `-o json`'s stdout: it cannot answer a question.
    let ask = !args.yes && !args.json;
    if let Some(cluster) = args
        .cluster
        .as_deref()
        .filter(|_| args.cluster_looks_like_path)
    {
        let warning = render::launch::cluster_name_looks_like_path(cluster);
        if !ask {
            say(printer, args.json, warning);
        } else if !confirm(
            printer,
            Question {
                text: &format!("{warning}\nProceed anyway? [y/N]: "),
                default: false,
                newline_when_piped: true,
            },
        )
        .await
        .yes()
        {
            printer.stdout(render::launch::ABORTED);
            return Ok(Exit::Request);
        }
    }
    if args.deprecated_location_flags {
        let line = render::launch::deprecated_location_flags();
        say(printer, args.json, line.text);
    }
    if let Some(reason) = args.yaml_doubt.as_deref().filter(|_| !args.json) {
        // Asked even with `-y`, as SkyPilot asks it; with `-o json` the
        // unreadable task YAML is the document's error instead.
        let entrypoint = args.request.entrypoint.join(" ");
        let question = render::launch::yaml_doubt_question(&entrypoint, reason);
        let question = Question {
            text: &question,
            default: false,
            newline_when_piped: false,
        };
        match confirm(printer, question).await {
            Answer::Yes => args.options.entrypoint_as_command = true,
            // click's `Abort`.
            Answer::No | Answer::Unanswered => {
                error_line(render::launch::ABORTED);
                return Ok(Exit::Request);
            }
        }
    }
    // The node cache's write-back waits for the table: it is done when
    // this returns, whichever way it returns.
    let writes = std::sync::Arc::new(WriteBehind::default());
    args.options.kubernetes.write_behind = Some(std::sync::Arc::clone(&writes));
    let _written_before_exit = writes.wait_on_drop();
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
    if let Some(declared) = &args.options.declared_clouds
        && std::io::stderr().is_terminal()
        && let Some(hint) = render::launch::undeclared_hint(result, declared)
    {
        // A person reads this; scripts and logs get SkyPilot's text only.
        printer.print(&[hint]);
    }
    let exit = result.exit();
    if exit == Exit::Request || args.dryrun {
        return Ok(exit);
    }
    if ask
        && !confirm(
            printer,
            Question {
                text: &render::launch::prompt(&cluster),
                default: true,
                newline_when_piped: true,
            },
        )
        .await
        .yes()
    {
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
    if args.json && !args.yes {
        // Nobody was asked: a machine reading the document never starts
        // provisioning (and spending) by itself; `-y` says it may.
        say(
            printer,
            true,
            render::launch::JSON_NOT_HANDED_OFF.to_string(),
        );
        return Ok(exit);
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

/// Says a line of `sky launch`'s own on stdout, or on stderr when stdout
/// carries the `-o json` document.
fn say(printer: &Printer, json: bool, text: String) {
    let stream = if json { Stream::Stderr } else { Stream::Stdout };
    printer.print(&[Line { stream, text }]);
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
