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
use std::time::{Duration, Instant};

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
use crate::timing::Pass;

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
    /// Wall-clock span stacks (µs) of one traced launch per mode (per
    /// stack, the median over the rounds).
    pub spans: Folded,
    /// The same, each traced round on its own (one round unless comparing with a baseline).
    pub spans_rounds: Vec<Folded>,
    /// On-CPU stacks (samples) of all instrumented launches, launch threads only.
    pub cpu: Folded,
    /// All samples pprof took, any thread.
    pub cpu_samples_total: u64,
    /// Samples kept (launch threads).
    pub cpu_samples_kept: u64,
}

/// How many untraced warm launches feed the CPU profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuBudget {
    /// At least this many.
    pub min_launches: usize,
    /// Then more until the profile holds this many samples of the launch
    /// threads (0: no more than `min_launches`)...
    pub target_samples: u64,
    /// ...or until this much wall time went into them.
    pub max_time: Duration,
    /// Traced launches per mode (several when a baseline comparison needs their spread).
    pub rounds: usize,
}

/// Runs one traced launch per `sky` entry of `setups` (writing
/// `trace_path`), then untraced launches of the warm-mode setup (if any)
/// for the CPU profile, as `cpu` says. SkyPilot's setups are left alone.
pub fn instrumented_launches(
    setups: &mut [ModeSetup<'_>],
    cpu: CpuBudget,
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
        let mut so_far = Folded::new();
        for round in 0..cpu.rounds.max(1) {
            for setup in setups.iter_mut().filter(|s| !s.mode.is_skypilot()) {
                before(setup)?;
                let pass = Pass {
                    index: round,
                    warmup: false,
                };
                let (s, _) = timed_launch(&mut traced, setup, deadlines, pass)?;
                out.traced.push(s);
                tick();
            }
            // This round's stacks: everything folded so far minus the earlier rounds.
            let now = folder.folded();
            let mut this_round = Folded::new();
            for (stack, us) in &now {
                let d = us.saturating_sub(so_far.get(stack).copied().unwrap_or(0));
                if d > 0 {
                    this_round.insert(stack.clone(), d);
                }
            }
            out.spans_rounds.push(this_round);
            so_far = now;
        }
        traced.shutdown();
        if let Some(setup) = setups.iter_mut().find(|s| s.mode == Mode::Warm) {
            let mut plain = InProcessLauncher::new()?;
            let started = Instant::now();
            let launch_thread = |t: &str| t.starts_with(LAUNCH_THREAD_NAME);
            for index in 0.. {
                if index >= cpu.min_launches {
                    // Counting costs a walk over the samples: ask every few launches.
                    let enough = cpu.target_samples == 0
                        || started.elapsed() >= cpu.max_time
                        || (index % 8 == 0 && sampler.count(launch_thread)? >= cpu.target_samples);
                    if enough {
                        break;
                    }
                }
                before(setup)?;
                let pass = Pass {
                    index,
                    warmup: false,
                };
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
    out.spans = crate::baseline::median_of_rounds(&out.spans_rounds);
    Ok(out)
}
