//! The `sky` command-line interface: parse, build the runtime, call the
//! library, render, exit code.
//!
//! Exit codes: 0 plan printed; 1 the request cannot be satisfied or is invalid
//! (SkyPilot's error); 2 usage or configuration error; 3 plan printed but some
//! enabled clouds were left out (partial table); 4 no cloud enabled;
//! 130 interrupted.

mod cli;
mod generate;
mod output;
mod status;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::Parser;

use cli::{Command, Opts};
use planner::launch::Exit;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(code) = generate::handle(&args) {
        return ExitCode::from(code);
    }
    let opts = Opts::parse_from(args);
    let common = match &opts.command {
        Command::Launch(a) => &a.common,
        Command::Check(a) => &a.common,
    };
    let trace_path = common.trace.clone().or_else(|| {
        std::env::var_os("SKYPILOT_TIMELINE_FILE_PATH")
            .filter(|v| !v.is_empty())
            .map(Into::into)
    });
    // The guard flushes the trace when dropped: keep it alive for the whole run
    // and drop it before returning (never `process::exit` past it).
    let guard = init_tracing(trace_path.as_deref());
    let code = run(opts);
    drop(guard);
    ExitCode::from(code)
}

fn init_tracing(trace: Option<&std::path::Path>) -> Option<tracing_chrome::FlushGuard> {
    use tracing_subscriber::prelude::*;
    let filter =
        tracing_subscriber::EnvFilter::try_from_env("SKY_LOG").unwrap_or_else(|_| "warn".into());
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_filter(filter);
    match trace {
        Some(path) => {
            let (chrome, guard) = tracing_chrome::ChromeLayerBuilder::new()
                .file(path)
                .trace_style(tracing_chrome::TraceStyle::Async)
                .include_args(true)
                .build();
            let chrome = chrome.with_filter(tracing_subscriber::filter::LevelFilter::INFO);
            tracing_subscriber::registry().with(fmt).with(chrome).init();
            Some(guard)
        }
        None => {
            tracing_subscriber::registry().with(fmt).init();
            None
        }
    }
}

fn run(opts: Opts) -> u8 {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("sky: cannot start the async runtime: {e}");
            return Exit::Config.code();
        }
    };
    let color = std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let work = async move {
        match opts.command {
            Command::Launch(args) => output::launch(*args, color).await,
            Command::Check(args) => output::check(args, color).await,
        }
    };
    let result = runtime.block_on(async {
        tokio::select! {
            r = work => r,
            _ = tokio::signal::ctrl_c() => Ok(Exit::Interrupted),
        }
    });
    // Do not wait for hung network tasks: their deadlines already expired or
    // we were interrupted.
    runtime.shutdown_background();
    match result {
        Ok(exit) => exit.code(),
        Err(e) => {
            let _ = std::io::stdout().flush();
            eprintln!("sky: error: {e:#}");
            Exit::Config.code()
        }
    }
}
