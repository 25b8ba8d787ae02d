//! The `sky` command-line interface: parse the words (clap: the low args),
//! convert them into what the pipeline takes (`optimizer::args`: the
//! high args), run the subcommand, print the error it ended with, exit
//! with the code [`exit`] assigns.
//!
//! The process starts in `entry.rs` (a C `main`: Rust's start-up, less the
//! stack-guard probe, see there), which calls [`sky_main`].

#![cfg_attr(not(test), no_main)]

mod cli;
mod commands;
#[cfg(not(test))]
mod entry;
mod exit;
mod generate;
mod lazy_log;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod malloc;
mod output;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod pow;
mod prompt;
mod signals;
mod status;
mod trace_file;

use std::io::IsTerminal;

use optimizer::args::{self, Converted, Environment};
use planner::launch::Exit;

use exit::Ending;
use output::Printer;
use signals::Signals;
use status::PendingStatus;
use trace_file::TraceFile;

/// The run from the words to the exit status (called by `entry::main`).
#[cfg_attr(test, allow(dead_code))]
fn sky_main() -> u8 {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    malloc::one_arena();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(code) = generate::handle(&args) {
        return code;
    }
    // What this `sky` does not implement is SkyPilot's: its CLI runs with
    // the same words, before clap could call them unknown.
    if optimizer::skypilot::words::passes_through(&args) {
        return commands::handoff::pass_through(&args);
    }
    // Tracing starts next, so the trace's phases cover the whole process
    // from here to exit: the trace path is read from the words before clap
    // parses them (clap still validates `--trace` as a flag).
    let trace_path = trace_flag(&args).or_else(|| {
        std::env::var_os("SKYPILOT_TIMELINE_FILE_PATH")
            .filter(|v| !v.is_empty())
            .map(Into::into)
    });
    // The guard flushes the trace when dropped: keep it alive for the whole run
    // and drop it before returning (never `process::exit` past it).
    let guard = init_tracing(trace_path.as_deref());
    let command = cli::parse(args);
    // The process's environment, read once for the whole run (after the
    // parse: held across it, its allocations would make clap's vectors
    // move as they grow). Credential variables are masked in everything
    // logged or traced from here on; nothing is logged before.
    let env = tracing::info_span!("options").in_scope(|| {
        let env = Environment::of_process();
        optimizer::redact::remember_env_secrets(&env.vars);
        env
    });
    let started = tracing::info_span!("start_runtime").entered();
    // One thread drives every cloud check: they wait on the network, not
    // the CPU, and the CPU-bound work (catalog loading, client
    // construction that may run a credential command) runs on other
    // threads. Worker threads would cost
    // their start-up and a cross-thread hand-off on every launch.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("sky: cannot start the async runtime: {e}");
            return Exit::Config.code();
        }
    };
    // Signals are caught before any file is created (the trace, the state
    // folder's entries), so an interrupt always goes through the clean exit.
    let signals = {
        let _entered = runtime.enter();
        Signals::new()
    };
    if let Some((_, file)) = &guard {
        file.open();
    }
    drop(started);
    let converted = tracing::info_span!("options").in_scope(|| args::convert(command, env));
    let mut handoff = None;
    let ending = run(&runtime, signals, converted, &mut handoff);
    output::ending(&ending);
    // A confirmed launch ends with SkyPilot's `sky launch`, and its exit code.
    let code = match handoff {
        Some(handoff) if matches!(ending, Ending::Exit(_)) => {
            tracing::info_span!("handoff").in_scope(|| commands::handoff::finish(&runtime, handoff))
        }
        _ => ending.code(),
    };
    // The process ends here, and the runtime is left to the kernel rather
    // than torn down: that would wait for nothing useful (hung network tasks
    // are past their deadlines, or we were interrupted) and close each pooled
    // connection and free each task one by one (1-3 ms with 64 Kubernetes
    // contexts). Every file this run writes is complete before `run` returns.
    tracing::info_span!("shutdown").in_scope(|| std::mem::forget(runtime));
    drop(guard);
    code
}

/// The value of `--trace PATH` / `--trace=PATH` among the words before `--`.
fn trace_flag(args: &[std::ffi::OsString]) -> Option<std::path::PathBuf> {
    let mut words = args.iter().skip(1).take_while(|w| *w != "--");
    while let Some(word) = words.next() {
        if word == "--trace" {
            return words.next().map(Into::into);
        }
        if let Some(path) = word.to_str().and_then(|w| w.strip_prefix("--trace=")) {
            return Some(path.into());
        }
    }
    None
}

/// Installs the log layer and, with a trace path, the Chrome layer; the
/// trace file is created by [`TraceFile::open`].
fn init_tracing(
    trace: Option<&std::path::Path>,
) -> Option<(tracing_chrome::FlushGuard, TraceFile)> {
    use optimizer::redact::RedactingWriter;
    use tracing_subscriber::prelude::*;
    // Every log line passes the redaction nets (third-party crates log
    // endpoints and credential sources too), and is coloured only on a terminal.
    fn fmt_layer<S>() -> impl tracing_subscriber::Layer<S>
    where
        S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    {
        tracing_subscriber::fmt::layer()
            .with_writer(|| RedactingWriter::new(std::io::stderr()))
            .with_ansi(std::io::stderr().is_terminal())
            .with_target(false)
    }
    if trace.is_none() && std::env::var_os("SKY_LOG").is_none() {
        // The usual run: warnings only, the subscriber made when one is logged.
        lazy_log::LazyWarnings::new(|| Box::new(tracing_subscriber::registry().with(fmt_layer())))
            .init();
        return None;
    }
    let filter =
        tracing_subscriber::EnvFilter::try_from_env("SKY_LOG").unwrap_or_else(|_| "warn".into());
    let fmt = fmt_layer().with_filter(filter);
    match trace {
        Some(path) => {
            let file = TraceFile::new(path.to_path_buf());
            let (chrome, guard) = tracing_chrome::ChromeLayerBuilder::new()
                .writer(RedactingWriter::new(file.clone()))
                .trace_style(tracing_chrome::TraceStyle::Async)
                .include_args(true)
                .build();
            let chrome = chrome.with_filter(tracing_subscriber::filter::LevelFilter::INFO);
            tracing_subscriber::registry().with(fmt).with(chrome).init();
            Some((guard, file))
        }
        None => {
            tracing_subscriber::registry().with(fmt).init();
            None
        }
    }
}

/// Says the notices, then runs the subcommand until it ends or a signal
/// arrives.
fn run(
    runtime: &tokio::runtime::Runtime,
    signals: Signals,
    converted: Converted,
    handoff: &mut Option<commands::handoff::HandOff>,
) -> Ending {
    let printer = Printer {
        color: output::stdout_color(),
    };
    output::notices(&printer, &converted.notices);
    let mut invocation = match converted.invocation {
        Ok(invocation) => invocation,
        Err(e) => return Ending::Args(e),
    };
    // The pending-clouds line, drawn on a terminal only.
    let status = PendingStatus::on_stderr(invocation.options_mut().cloud_timeout);
    invocation.options_mut().fanout.observer = status.clone().map(|s| s as _);
    // The subcommand's future on the heap: on the stack, it was held in
    // `main`'s frame and again in `block_on`'s, under every frame of the run.
    let ending = runtime.block_on(Box::pin(async {
        tokio::select! {
            r = commands::run(invocation, printer, handoff) => r.map_or_else(Ending::Error, Ending::Exit),
            number = signals.first() => Ending::Signal(number),
        }
    }));
    if let Ending::Signal(_) = ending {
        if let Some(status) = &status {
            status.interrupted();
        }
        // Writes still running on blocking threads leave nothing behind:
        // what was renamed into place is complete, the rest is removed.
        optimizer::state::abandon_pending_writes();
    }
    ending
}
