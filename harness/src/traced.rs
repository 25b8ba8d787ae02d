//! One traced launch per mode, made the way the mode's timed launches are
//! made, for the timelines: `sky` as a process with
//! `SKYPILOT_TIMELINE_FILE_PATH` (its Chrome trace), SkyPilot with the same
//! variable (its own timeline); then, for SkyPilot's modes, one launch under
//! py-spy each (its sampled profile; more warm ones while the profile is
//! below its sample target). The
//! in-process engine's timelines come from `trace.json` instead
//! ([`from_in_process_trace`]). These launches are timed like the others
//! but are not statistics (`raw.json`: `traced_processes`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::engine::{
    BeforeLaunch, Launcher, Mode, ModeSetup, ProcessLauncher, Sample, timed_launch,
};
use crate::error::Result;
use crate::flame::Folded;
use crate::floor::Deadlines;
use crate::skypilot::launcher::Trace;
use crate::skypilot::{SkyPilotLauncher, profile};
use crate::timeline::{LaunchTimeline, TraceSpan, from_sky_trace, from_skypilot, read_trace};
use crate::timing::Pass;

/// What the traced process launches produced.
#[derive(Debug, Clone, Default)]
pub struct Traced {
    /// One timeline per traced mode, in `setups` order.
    pub timelines: Vec<LaunchTimeline>,
    /// The traced launches' samples.
    pub samples: Vec<Sample>,
    /// The trace files written (relative to the report folder).
    pub traces: Vec<(Mode, PathBuf)>,
    /// SkyPilot's py-spy stacks, every profiled launch, rooted at its mode's label.
    pub skypilot_cpu: Folded,
    /// Samples in `skypilot_cpu`.
    pub skypilot_samples: u64,
    /// SkyPilot launches profiled.
    pub skypilot_profiled: usize,
}

/// The launchers of the traced process launches.
pub struct Launchers<'a> {
    /// `sky`'s processes (`None` with the in-process engine: its timelines come from `trace.json`).
    pub sky: Option<&'a mut ProcessLauncher>,
    /// SkyPilot's, when it runs.
    pub skypilot: Option<&'a mut SkyPilotLauncher>,
}

/// `sky`'s trace placed on the launch's axis: it starts in `main` and
/// ends at exit, so its end is aligned with the process's.
fn sky_origin(spans: &[TraceSpan], wall_ms: f64) -> f64 {
    let end = spans.iter().map(|s| s.end_us).fold(0.0, f64::max);
    (end - wall_ms * 1000.0).min(0.0)
}

/// One traced launch per setup (the report folder's `traces/`), one
/// profiled launch per SkyPilot setup, then more profiled SkyPilot warm
/// launches until `skypilot_samples` samples or `budget`.
#[allow(clippy::too_many_arguments)]
pub fn traced_launches(
    setups: &mut [ModeSetup<'_>],
    launchers: Launchers<'_>,
    before: &mut BeforeLaunch<'_>,
    deadlines: &Deadlines,
    report_dir: &Path,
    skypilot_samples: u64,
    budget: Duration,
    tick: &mut dyn FnMut(),
) -> Result<Traced> {
    let dir = report_dir.join("traces");
    std::fs::create_dir_all(&dir).map_err(|e| crate::HarnessError::io(&dir, e))?;
    let Launchers {
        mut sky,
        mut skypilot,
    } = launchers;
    let mut out = Traced::default();
    let pass = Pass {
        index: 0,
        warmup: false,
    };
    for setup in setups.iter_mut() {
        let mode = setup.mode;
        if mode.is_skypilot() {
            let Some(sp) = skypilot.as_deref_mut() else {
                continue;
            };
            // The timeline's launch, then a profiled one: py-spy's own
            // start and the writing of its profile at exit are not SkyPilot's.
            let rel = PathBuf::from(format!("traces/{}.json", mode.name()));
            sp.trace = Trace {
                timeline: Some(report_dir.join(&rel)),
                profile: None,
            };
            before(setup)?;
            let (sample, _) = timed_launch(sp, setup, deadlines, pass)?;
            let spans = read_trace(&report_dir.join(&rel))?;
            if let Some(driver) = &sp.last {
                out.timelines.push(from_skypilot(
                    mode,
                    &spans,
                    driver,
                    sample.wall_ms,
                    sample.floor_ms,
                    &sample.requests,
                    deadlines,
                ));
            }
            out.traces.push((mode, rel));
            out.samples.push(sample);
            tick();
            let raw = dir.join(format!("{}.pyspy.txt", mode.name()));
            sp.trace = Trace {
                timeline: None,
                profile: Some(raw.clone()),
            };
            before(setup)?;
            let (profiled, _) = timed_launch(sp, setup, deadlines, pass)?;
            profile_into(&mut out, &raw, mode)?;
            out.samples.push(profiled);
            tick();
        } else if let Some(launcher) = sky.as_deref_mut() {
            let rel = PathBuf::from(format!("traces/{}.json", mode.name()));
            let path = report_dir.join(&rel);
            setup.env.env.insert(
                "SKYPILOT_TIMELINE_FILE_PATH".into(),
                path.display().to_string(),
            );
            before(setup)?;
            let launched = timed_launch(launcher, setup, deadlines, pass);
            setup.env.env.remove("SKYPILOT_TIMELINE_FILE_PATH");
            let (sample, _) = launched?;
            let spans = read_trace(&path)?;
            out.timelines.push(from_sky_trace(
                mode,
                &spans,
                sky_origin(&spans, sample.wall_ms),
                sample.wall_ms,
                sample.floor_ms,
                &sample.requests,
                deadlines,
            ));
            out.traces.push((mode, rel));
            out.samples.push(sample);
            tick();
        }
    }
    // SkyPilot's CPU profile: more warm launches if the traced ones were too few samples.
    if let Some(sp) = skypilot
        && let Some(setup) = setups.iter_mut().find(|s| s.mode == Mode::SkyPilotWarm)
    {
        let started = Instant::now();
        let mut extra = 0;
        while out.skypilot_samples < skypilot_samples && started.elapsed() < budget {
            extra += 1;
            let raw = dir.join(format!("skypilot-extra-{extra}.pyspy.txt"));
            sp.trace = Trace {
                timeline: None,
                profile: Some(raw.clone()),
            };
            before(setup)?;
            let (sample, _) = timed_launch(
                sp,
                setup,
                deadlines,
                Pass {
                    index: extra,
                    warmup: false,
                },
            )?;
            profile_into(&mut out, &raw, setup.mode)?;
            out.samples.push(sample);
            tick();
        }
    }
    Ok(out)
}

/// Adds a py-spy raw profile to `out` (and removes the raw file: the folded
/// stacks go into `skypilot-cpu.folded`).
fn profile_into(out: &mut Traced, raw: &Path, mode: Mode) -> Result<()> {
    let text = std::fs::read_to_string(raw).map_err(|e| {
        crate::HarnessError::SkyPilot(format!("py-spy wrote no profile at {}: {e}", raw.display()))
    })?;
    let (folded, n) = profile::from_raw(&text, mode.label());
    for (stack, count) in folded {
        *out.skypilot_cpu.entry(stack).or_default() += count;
    }
    out.skypilot_samples += n;
    out.skypilot_profiled += 1;
    std::fs::remove_file(raw).map_err(|e| crate::HarnessError::io(raw, e))
}

/// The in-process engine's timelines: each `launch <mode>` span of
/// `trace.json` with the spans inside it, and the traced sample's requests.
pub fn from_in_process_trace(
    trace: &[TraceSpan],
    traced: &[Sample],
    deadlines: &Deadlines,
) -> Vec<LaunchTimeline> {
    let mut out = Vec::new();
    for sample in traced {
        let name = format!("launch {}", sample.mode.name());
        let Some(launch) = trace.iter().find(|s| s.name == name) else {
            continue;
        };
        let inside: Vec<TraceSpan> = trace
            .iter()
            .filter(|s| s.start_us >= launch.start_us && s.end_us <= launch.end_us)
            .cloned()
            .collect();
        out.push(from_sky_trace(
            sample.mode,
            &inside,
            launch.start_us,
            (launch.end_us - launch.start_us) / 1000.0,
            sample.floor_ms,
            &sample.requests,
            deadlines,
        ));
    }
    out
}

/// The launcher for a mode: SkyPilot's for its modes, `ours` for `sky`'s.
pub fn pick<'l>(
    mode: Mode,
    ours: &'l mut dyn Launcher,
    skypilot: Option<&'l mut SkyPilotLauncher>,
) -> Option<&'l mut dyn Launcher> {
    if mode.is_skypilot() {
        skypilot.map(|s| s as &mut dyn Launcher)
    } else {
        Some(ours)
    }
}
