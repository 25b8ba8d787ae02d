//! What SkyPilot does for this `sky`: every invocation that is not ours
//! passes through to SkyPilot's CLI unchanged ([`pass_through`]), and a
//! confirmed launch hands SkyPilot the task with the plan pinned
//! ([`prepare`], then [`finish`] once the subcommand has returned).
//!
//! SkyPilot's CLI is found by `optimizer::skypilot::locate` from this
//! process's `SKYPILOT_CLI`, `PATH`, own executable and hand-off depth.

use std::ffi::OsString;
use std::path::PathBuf;

use anyhow::Context;
use optimizer::skypilot::{self, Locate, LocateError};
use planner::launch::{Exit, LaunchResult};
use planner::render;

use crate::output::{Printer, error_line};

/// A confirmed launch, ready for SkyPilot: run by [`finish`] after the
/// subcommand's own run (and its signal handling) is over.
pub struct HandOff {
    cli: PathBuf,
    words: Vec<OsString>,
    depth: u32,
    /// The pinned task file: removed when this drops, after SkyPilot exits.
    _task: tempfile::NamedTempFile,
}

/// What finding SkyPilot's CLI reads, from this process.
fn locate_input() -> Locate {
    Locate {
        cli: std::env::var_os(skypilot::CLI_VAR).filter(|v| !v.is_empty()),
        path: std::env::var_os("PATH"),
        own_exe: std::env::current_exe().ok(),
        depth: skypilot::depth(std::env::var_os(skypilot::DEPTH_VAR).as_deref()),
    }
}

/// `sky <anything not ours> ...`: SkyPilot's CLI with the same words; its
/// exit code, or 2 with one line when it cannot be run.
pub fn pass_through(args: &[OsString]) -> u8 {
    let input = locate_input();
    let cli = match skypilot::locate(&input) {
        Ok(cli) => cli,
        Err(e) => return not_run(&e),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            error_line(&format!("sky: cannot start the async runtime: {e}"));
            return Exit::Config.code();
        }
    };
    let words = args.get(1..).unwrap_or_default();
    match runtime.block_on(skypilot::run(&cli, words, input.depth)) {
        Ok(code) => code,
        Err(e) => {
            error_line(&format!(
                "sky: cannot run SkyPilot's CLI {}: {e}",
                cli.display()
            ));
            Exit::Config.code()
        }
    }
}

fn not_run(e: &LocateError) -> u8 {
    error_line(&format!("sky: {e}"));
    Exit::Config.code()
}

/// A confirmed launch of `result` for `cluster`: the pinned task written,
/// SkyPilot's words made of this process's, the line said (on stderr after
/// `-o json`, which keeps stdout to the document). `Ok(None)` (after saying
/// why) when SkyPilot's CLI cannot be found.
pub fn prepare(
    result: &LaunchResult,
    cluster: &str,
    json: bool,
    printer: &Printer,
) -> anyhow::Result<Option<HandOff>> {
    let input = locate_input();
    let cli = match skypilot::locate(&input) {
        Ok(cli) => cli,
        Err(e) => {
            error_line(&format!("sky: {e}"));
            return Ok(None);
        }
    };
    let plan = result
        .optimized
        .result
        .as_ref()
        .map_err(|e| anyhow::anyhow!("no plan to hand to SkyPilot: {}", e.message))?;
    let pinned = planner::handoff::pinned_task(&result.source, plan)?;
    let task =
        skypilot::write_task(&pinned.yaml).context("cannot write the pinned task for SkyPilot")?;
    let args: Vec<OsString> = std::env::args_os().collect();
    let words = skypilot::words::launch_words(&args, cluster, task.path().as_os_str());
    let line = render::handoff::handing_off(&pinned, &cli.display().to_string());
    if json {
        error_line(&line);
    } else {
        printer.stdout(&line);
    }
    Ok(Some(HandOff {
        cli,
        words,
        depth: input.depth,
        _task: task,
    }))
}

/// Runs SkyPilot's `sky launch` for a prepared hand-off: its exit code.
pub fn finish(runtime: &tokio::runtime::Runtime, handoff: HandOff) -> u8 {
    match runtime.block_on(skypilot::run(&handoff.cli, &handoff.words, handoff.depth)) {
        Ok(code) => code,
        Err(e) => {
            error_line(&format!(
                "sky: cannot run SkyPilot's CLI {}: {e}",
                handoff.cli.display()
            ));
            Exit::Config.code()
        }
    }
}
