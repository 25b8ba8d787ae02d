//! The `sky` command-line interface: parse, build the runtime, call the
//! library, render, exit code.
//!
//! Exit codes: 0 plan printed; 1 the request cannot be satisfied or is invalid
//! (SkyPilot's error); 2 usage or configuration error; 3 plan printed but some
//! enabled clouds were left out (partial table) — or, for `sky catalog
//! refresh`, some files could not be refreshed; 4 no cloud enabled;
//! 130 interrupted (SIGINT), 143 terminated (SIGTERM).

mod cli;
mod generate;
mod gpus;
mod output;
mod status;
mod trace_file;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::Parser;

use cli::{Command, Opts};
use planner::launch::Exit;
use trace_file::TraceFile;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(code) = generate::handle(&args) {
        return ExitCode::from(code);
    }
    // Credential variables are masked in everything logged or traced.
    optimizer::redact::remember_env_secrets(
        std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect::<Vec<_>>()
            .iter()
            .map(|(k, v)| (k, v)),
    );
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
    let opts = {
        let _span = tracing::info_span!("parse_args").entered();
        Opts::parse_from(args)
    };
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
            return ExitCode::from(Exit::Config.code());
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
    let code = run(&runtime, signals, opts);
    // The process ends here, and the runtime is left to the kernel rather
    // than torn down: that would wait for nothing useful (hung network tasks
    // are past their deadlines, or we were interrupted) and close each pooled
    // connection and free each task one by one (1-3 ms with 64 Kubernetes
    // contexts). Every file this run writes is complete before `run` returns.
    tracing::info_span!("shutdown").in_scope(|| std::mem::forget(runtime));
    drop(guard);
    ExitCode::from(code)
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
    let filter =
        tracing_subscriber::EnvFilter::try_from_env("SKY_LOG").unwrap_or_else(|_| "warn".into());
    // Every log line passes the redaction nets (third-party crates log
    // endpoints and credential sources too), and is coloured only on a terminal.
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(|| RedactingWriter::new(std::io::stderr()))
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .with_filter(filter);
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

/// SIGINT and SIGTERM, as streams (`None` where they cannot be installed:
/// the default action then applies).
struct Signals {
    int: Option<tokio::signal::unix::Signal>,
    term: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    /// Installs the handlers; call inside the runtime.
    fn new() -> Self {
        use tokio::signal::unix::{SignalKind, signal};
        Signals {
            int: signal(SignalKind::interrupt()).ok(),
            term: signal(SignalKind::terminate()).ok(),
        }
    }

    /// The exit code of the first signal to arrive: 128 + its number.
    async fn first(mut self) -> u8 {
        async fn recv(s: &mut Option<tokio::signal::unix::Signal>) {
            match s {
                Some(s) => {
                    s.recv().await;
                }
                None => std::future::pending().await,
            }
        }
        tokio::select! {
            _ = recv(&mut self.int) => Exit::Interrupted.code(),
            _ = recv(&mut self.term) => 128 + 15,
        }
    }
}

fn run(runtime: &tokio::runtime::Runtime, signals: Signals, opts: Opts) -> u8 {
    let color = std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let work = async move {
        match opts.command {
            Command::Launch(args) => output::launch(*args, color).await,
            Command::Check(args) => output::check(args, color).await,
            Command::Catalog(args) => output::catalog(args).await,
            Command::Gpus(args) => gpus::run(args.into_list(), color).await,
            Command::ShowGpus(args) => gpus::run(*args, color).await,
        }
    };
    let result = runtime.block_on(async {
        tokio::select! {
            r = work => r.map(|exit| exit.code()),
            code = signals.first() => Ok(code),
        }
    });
    match result {
        Ok(code) => {
            if code >= 128 {
                // Writes still running on blocking threads leave nothing
                // behind: what was renamed into place is complete, the rest
                // is removed.
                optimizer::state::abandon_pending_writes();
            }
            code
        }
        Err(e) => {
            let _ = std::io::stdout().flush();
            match e.downcast_ref::<output::CliError>() {
                Some(c @ output::CliError::Value(_)) => {
                    eprintln!("{c}");
                    return Exit::Request.code();
                }
                Some(c) => eprintln!("{c}"),
                None => eprintln!("sky: error: {e:#}"),
            }
            Exit::Config.code()
        }
    }
}
