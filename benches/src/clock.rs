//! A criterion [`Measurement`] of the benchmark thread's CPU time.
//!
//! On a shared 2-core VM, wall-clock time of a microbenchmark mostly measures
//! how often the thread was preempted (A/A runs drifted by 5× during other
//! builds). The thread's own CPU time (`/proc/thread-self/schedstat`,
//! nanoseconds) excludes time spent descheduled, so the single-threaded
//! CPU-bound groups (feasibility, optimize, render) use it. Where the file is
//! unreadable (non-Linux, no schedstats) it falls back to wall time, and says
//! so once on stderr.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use criterion::measurement::{Measurement, ValueFormatter, WallTime};

/// Thread CPU time in nanoseconds, or `None` when the kernel does not expose it.
pub fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn origin() -> Instant {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    *ORIGIN.get_or_init(Instant::now)
}

fn cpu_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        let ok = thread_cpu_ns().is_some();
        if !ok {
            eprintln!("benches: /proc/thread-self/schedstat is unreadable; CPU-time groups fall back to wall time");
        }
        ok
    })
}

fn now_ns() -> u64 {
    if cpu_available()
        && let Some(ns) = thread_cpu_ns()
    {
        return ns;
    }
    origin().elapsed().as_nanos() as u64
}

/// CPU time of the thread running the benchmark (see the module docs).
#[derive(Debug, Clone, Copy, Default)]
pub struct ThreadCpuTime;

static WALL: WallTime = WallTime;

impl Measurement for ThreadCpuTime {
    type Intermediate = u64;
    type Value = Duration;

    fn start(&self) -> u64 {
        now_ns()
    }

    fn end(&self, start: u64) -> Duration {
        Duration::from_nanos(now_ns().saturating_sub(start))
    }

    fn add(&self, v1: &Duration, v2: &Duration) -> Duration {
        *v1 + *v2
    }

    fn zero(&self) -> Duration {
        Duration::ZERO
    }

    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        WALL.formatter()
    }
}
