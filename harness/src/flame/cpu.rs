//! On-CPU profiles: pprof's sampler (`setitimer` + SIGPROF, so it works
//! without `perf_event`) folded into [`Folded`] stacks. The harness's
//! instrumented launches and the criterion profiler of the benches both
//! sample through [`CpuSampler`], at the same rate and with the same frame
//! names, so their flamegraphs can be read (and diffed) the same way.
//!
//! On-CPU sampling cannot see time spent waiting.

use pprof::{ProfilerGuard, ProfilerGuardBuilder};

use super::folded::{Folded, frame};
use crate::error::{HarnessError, Result};

/// pprof sampling rate. The kernel tick here is 250 Hz (CONFIG_HZ), which caps
/// the real rate per process; asking for more only adds jitter.
pub const CPU_SAMPLE_HZ: i32 = 250;

/// What a finished sampler collected.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CpuProfile {
    /// The kept samples, folded (`<root>;outermost;…;innermost`).
    pub folded: Folded,
    /// All samples pprof took, any thread.
    pub total: u64,
    /// Samples kept by the root function.
    pub kept: u64,
}

/// A running on-CPU sampler of the whole process.
pub struct CpuSampler {
    guard: ProfilerGuard<'static>,
}

fn render_error(what: &str, e: impl std::fmt::Display) -> HarnessError {
    HarnessError::Render {
        what: what.into(),
        detail: e.to_string(),
    }
}

impl CpuSampler {
    /// Starts sampling every thread at `hz` (see [`CPU_SAMPLE_HZ`]).
    pub fn start(hz: i32) -> Result<CpuSampler> {
        let guard = ProfilerGuardBuilder::default()
            .frequency(hz)
            .build()
            .map_err(|e| render_error("cpu profiler", e))?;
        Ok(CpuSampler { guard })
    }

    /// Samples taken so far whose thread `keep` accepts (by name, else id),
    /// without symbolising anything: cheap enough to ask between launches
    /// while sampling goes on.
    pub fn count(&self, keep: impl Fn(&str) -> bool) -> Result<u64> {
        let report = self
            .guard
            .report()
            .build_unresolved()
            .map_err(|e| render_error("cpu profile", e))?;
        Ok(report
            .data
            .iter()
            .filter(|(frames, _)| {
                let len = frames.thread_name_length.min(frames.thread_name.len());
                let name = String::from_utf8_lossy(&frames.thread_name[..len]);
                if name.is_empty() {
                    keep(&frames.thread_id.to_string())
                } else {
                    keep(&name)
                }
            })
            .map(|(_, count)| (*count).max(0) as u64)
            .sum())
    }

    /// Stops sampling and folds the samples. `root` maps a sample's thread
    /// (its name, else its id) to the stack's first frame, or to `None` to
    /// leave the sample out.
    pub fn finish(self, root: impl Fn(&str) -> Option<String>) -> Result<CpuProfile> {
        let report = self.guard.report().build();
        drop(self.guard);
        let report = report.map_err(|e| render_error("cpu profile", e))?;
        let mut out = CpuProfile::default();
        for (frames, count) in &report.data {
            let count = (*count).max(0) as u64;
            out.total += count;
            let Some(first) = root(&frames.thread_name_or_id()) else {
                continue;
            };
            let mut stack = frame(&first);
            out.kept += count;
            for f in frames.frames.iter().rev() {
                for symbol in f.iter().rev() {
                    stack.push(';');
                    stack.push_str(&frame(&symbol.name()));
                }
            }
            *out.folded.entry(stack).or_default() += count;
        }
        Ok(out)
    }
}
