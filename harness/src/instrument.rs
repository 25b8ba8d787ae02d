//! In-process, instrumented launches: one Chrome trace of one launch per
//! mode, the wall-clock span profile, and an on-CPU profile.
//!
//! * `trace.json`: tracing-chrome with [`TraceStyle::Async`]. The optimizer
//!   makes every `cloud_check` a root span, so each cloud gets its own async
//!   track; the harness adds a root `launch <mode>` span per launch.
//! * spans: [`SpanFolder`], wall-clock self time per span stack (waiting included).
//! * CPU: [`CpuSampler`] at [`CPU_SAMPLE_HZ`], keeping only samples taken on
//!   the launch runtime's threads (the mocks run on other threads of the same
//!   process). On-CPU sampling cannot see time spent waiting.
//!
//! The subscriber is scoped to the launch runtime's threads (see
//! [`InProcessLauncher::traced`]), never installed globally.

use std::path::Path;

use tracing::Level;
use tracing_chrome::{ChromeLayerBuilder, EventOrSpan, TraceStyle};
use tracing_subscriber::filter::filter_fn;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::Registry;

use crate::engine::{BeforeLaunch, Mode, ModeSetup, Sample, timed_launch};
use crate::error::Result;
use crate::flame::{CPU_SAMPLE_HZ, CpuSampler, Folded};
use crate::floor::Deadlines;
use crate::in_process::{InProcessLauncher, LAUNCH_THREAD_NAME};
use crate::spans::{SpanFolder, SpanLabel};
use crate::timing::{Pass, passes};

/// The subscriber the Chrome layer sits on.
type Sub = tracing_subscriber::layer::Layered<SpanFolder, Registry>;
/// tracing-chrome's (private) naming callback type.
type NameFn = Box<dyn Fn(&EventOrSpan<'_, '_, Sub>) -> String + Send + Sync>;

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
    // Through the same redaction nets as `sky --trace`: SDK spans record
    // their providers' Debug text, environment included.
    let trace_file =
        std::fs::File::create(trace_path).map_err(|e| crate::HarnessError::io(trace_path, e))?;
    let (chrome, guard) = ChromeLayerBuilder::new()
        .writer(optimizer::redact::RedactingWriter::new(
            std::io::BufWriter::new(trace_file),
        ))
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

    let sampler = CpuSampler::start(CPU_SAMPLE_HZ)?;

    let mut out = Instrumented::default();
    let run = (|| -> Result<()> {
        let mut traced = InProcessLauncher::traced(dispatch.clone())?;
        for setup in setups.iter_mut() {
            before(setup)?;
            let pass = Pass {
                index: 0,
                warmup: false,
            };
            let (s, _) = timed_launch(&mut traced, setup, deadlines, pass)?;
            out.traced.push(s);
            tick();
        }
        traced.shutdown();
        if let Some(setup) = setups.iter_mut().find(|s| s.mode == Mode::Warm) {
            let mut plain = InProcessLauncher::new()?;
            for pass in passes(0, cpu_extra) {
                before(setup)?;
                let (s, _) = timed_launch(&mut plain, setup, deadlines, pass)?;
                out.cpu_only.push(s);
                tick();
            }
            plain.shutdown();
        }
        Ok(())
    })();

    let cpu = sampler.finish(|thread| {
        thread
            .starts_with(LAUNCH_THREAD_NAME)
            .then(|| LAUNCH_THREAD_NAME.to_string())
    });
    // Flush the trace only after the runtime is gone, so every span has closed.
    drop(dispatch);
    drop(guard);
    run?;
    let cpu = cpu?;
    out.cpu = cpu.folded;
    out.cpu_samples_total = cpu.total;
    out.cpu_samples_kept = cpu.kept;
    out.spans = folder.folded();
    Ok(out)
}
