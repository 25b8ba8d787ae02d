//! In-process, instrumented launches: one Chrome trace of one launch per
//! mode, the wall-clock span profile, and an on-CPU profile.
//!
//! * `trace.json`: tracing-chrome with [`TraceStyle::Async`]. The optimizer
//!   makes every `cloud_check` a root span, so each cloud gets its own async
//!   track; the harness adds a root `launch <mode>` span per launch.
//! * spans: [`SpanFolder`], wall-clock self time per span stack (waiting included).
//! * CPU: pprof's `ProfilerGuard` (SIGPROF via `setitimer`, so it works without
//!   `perf_event`) at [`CPU_SAMPLE_HZ`], keeping only samples taken on the launch
//!   runtime's threads (the mocks run on other threads of the same process).
//!   On-CPU sampling cannot see time spent waiting.
//!
//! The subscriber is scoped to the launch runtime's threads (see
//! [`InProcessLauncher::traced`]), never installed globally.

use std::path::Path;

use tracing::Level;
use tracing_chrome::{ChromeLayerBuilder, EventOrSpan, TraceStyle};
use tracing_subscriber::filter::filter_fn;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::Registry;

use crate::engine::{
    BeforeLaunch, InProcessLauncher, LAUNCH_THREAD_NAME, Mode, ModeSetup, Sample, timed_launch,
};
use crate::error::{HarnessError, Result};
use crate::floor::Deadlines;
use crate::spans::{Folded, SpanFolder, SpanLabel};

/// The subscriber the Chrome layer sits on.
type Sub = tracing_subscriber::layer::Layered<SpanFolder, Registry>;
/// tracing-chrome's (private) naming callback type.
type NameFn = Box<dyn Fn(&EventOrSpan<'_, '_, Sub>) -> String + Send + Sync>;

/// pprof sampling rate. The kernel tick here is 250 Hz (CONFIG_HZ), which caps
/// the real rate per process; asking for more only adds jitter.
pub const CPU_SAMPLE_HZ: i32 = 250;

/// What the instrumented launches produced.
#[derive(Debug, Clone, Default)]
pub struct Instrumented {
    /// The traced launches (one per mode), timed like the others.
    pub traced: Vec<Sample>,
    /// Extra warm launches that only feed the CPU profile.
    pub cpu_only: Vec<Sample>,
    /// Wall-clock span stacks (µs) of the traced launches.
    pub spans: Folded,
    /// On-CPU stacks (samples) of all instrumented launches, launch threads only.
    pub cpu: Folded,
    /// All samples pprof took, any thread.
    pub cpu_samples_total: u64,
    /// Samples kept (launch threads).
    pub cpu_samples_kept: u64,
}

fn symbol_frame(name: &str) -> String {
    name.replace(';', ":")
}

/// Runs one traced launch per `setups` entry (writing `trace_path`), then
/// `cpu_extra` untraced launches of the warm-mode setup (if any) for the CPU profile.
pub fn instrumented_launches(
    setups: &mut [ModeSetup<'_>],
    cpu_extra: usize,
    before: &mut BeforeLaunch<'_>,
    deadlines: &Deadlines,
    trace_path: &Path,
    tick: &mut dyn FnMut(),
) -> Result<Instrumented> {
    let folder = SpanFolder::new();
    let name_fn: NameFn = Box::new(|e: &EventOrSpan<'_, '_, Sub>| match e {
        EventOrSpan::Event(ev) => ev.metadata().name().to_string(),
        EventOrSpan::Span(s) => s
            .extensions()
            .get::<SpanLabel>()
            .map(|l| l.label.clone())
            .unwrap_or_else(|| s.name().to_string()),
    });
    let (chrome, guard) = ChromeLayerBuilder::new()
        .file(trace_path)
        .trace_style(TraceStyle::Async)
        .include_args(true)
        .name_fn(name_fn)
        .build();
    // Everything from the optimizer and the harness; from the SDKs and HTTP
    // stacks only spans down to DEBUG (they show the attempts and the waits)
    // and events from INFO up (their DEBUG/TRACE events would bury the trace).
    let filter = filter_fn(|m| {
        let ours = m.target().starts_with("optimizer") || m.target().starts_with("harness");
        ours || *m.level()
            <= if m.is_span() {
                Level::DEBUG
            } else {
                Level::INFO
            }
    });
    let dispatch = tracing::Dispatch::new(
        Registry::default()
            .with(folder.clone())
            .with(chrome)
            .with(filter),
    );

    let profiler = pprof::ProfilerGuardBuilder::default()
        .frequency(CPU_SAMPLE_HZ)
        .build()
        .map_err(|e| HarnessError::Render {
            what: "cpu profiler".into(),
            detail: e.to_string(),
        })?;

    let mut out = Instrumented::default();
    let run = (|| -> Result<()> {
        let mut traced = InProcessLauncher::traced(dispatch.clone())?;
        for setup in setups.iter_mut() {
            before(setup)?;
            let (s, _) = timed_launch(&mut traced, setup, deadlines, 0, false)?;
            out.traced.push(s);
            tick();
        }
        traced.shutdown();
        if let Some(setup) = setups.iter_mut().find(|s| s.mode == Mode::Warm) {
            let mut plain = InProcessLauncher::new()?;
            for i in 0..cpu_extra {
                before(setup)?;
                let (s, _) = timed_launch(&mut plain, setup, deadlines, i, false)?;
                out.cpu_only.push(s);
                tick();
            }
            plain.shutdown();
        }
        Ok(())
    })();

    let report = profiler.report().build();
    drop(profiler);
    // Flush the trace only after the runtime is gone, so every span has closed.
    drop(dispatch);
    drop(guard);
    run?;
    let report = report.map_err(|e| HarnessError::Render {
        what: "cpu profile".into(),
        detail: e.to_string(),
    })?;
    for (frames, count) in &report.data {
        let count = (*count).max(0) as u64;
        out.cpu_samples_total += count;
        if !frames.thread_name.starts_with(LAUNCH_THREAD_NAME) {
            continue;
        }
        out.cpu_samples_kept += count;
        let mut stack = String::from(LAUNCH_THREAD_NAME);
        for frame in frames.frames.iter().rev() {
            for symbol in frame.iter().rev() {
                stack.push(';');
                stack.push_str(&symbol_frame(&symbol.name()));
            }
        }
        *out.cpu.entry(stack).or_default() += count;
    }
    out.spans = folder.folded();
    Ok(out)
}
