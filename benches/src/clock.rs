//! A criterion [`Measurement`] of the benchmark thread's CPU time.
//!
//! On a shared 2-core VM, wall-clock time of a microbenchmark mostly measures
//! how often the thread was preempted (A/A runs drifted by 5× during other
//! builds). The thread's own CPU time (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`,
//! nanoseconds) excludes time spent descheduled, so the single-threaded
//! CPU-bound groups (feasibility, optimize, render) use it. (Not
//! `/proc/thread-self/schedstat`: the kernel updates a running thread's total
//! there only at ticks and switches, so a sub-millisecond batch could read
//! as zero.) Off Linux it falls back to wall time, and says so once on stderr.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use criterion::measurement::{Measurement, ValueFormatter, WallTime};

/// Thread CPU time in nanoseconds, or `None` where the platform has no such clock.
pub fn thread_cpu_ns() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        Some(t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
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
            eprintln!("benches: no thread CPU clock on this platform; CPU-time groups fall back to wall time");
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

/// How busy the rest of the machine was while benchmarks ran.
///
/// Snapshots `/proc/stat` (all CPUs: user, nice, system, irq, softirq,
/// steal) and this process's own CPU time (`/proc/self/stat`); between two
/// snapshots, busy time not spent by this process is other processes' (or
/// other VMs', via steal): `foreign cores = (Δbusy − Δown) / Δwall`. On the
/// shared 2-core VM, other people's builds show up here, and the gate stops
/// trusting wall-clock verdicts above a limit.
#[derive(Debug, Clone, Copy)]
pub struct Contention {
    busy_ticks: u64,
    own_ticks: u64,
    at: Instant,
}

/// `USER_HZ`: the unit of `/proc/stat` and `/proc/self/stat` (100 on Linux).
const TICKS_PER_SECOND: f64 = 100.0;

impl Contention {
    /// A snapshot, or `None` without `/proc`.
    pub fn now() -> Option<Contention> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let cpu: Vec<u64> = stat
            .lines()
            .next()?
            .split_whitespace()
            .skip(1)
            .filter_map(|v| v.parse().ok())
            .collect();
        // user nice system idle iowait irq softirq steal
        let busy_ticks = [0, 1, 2, 5, 6, 7].iter().filter_map(|&i| cpu.get(i)).sum();
        let own = std::fs::read_to_string("/proc/self/stat").ok()?;
        // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
        let rest = own.rsplit_once(')')?.1;
        let f: Vec<&str> = rest.split_whitespace().collect();
        let own_ticks = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
        Some(Contention {
            busy_ticks,
            own_ticks,
            at: Instant::now(),
        })
    }

    /// Average cores used by other processes since `self`.
    pub fn foreign_cores_since(&self, later: &Contention) -> f64 {
        let wall = later.at.duration_since(self.at).as_secs_f64().max(1e-3);
        let busy = later.busy_ticks.saturating_sub(self.busy_ticks) as f64;
        let own = later.own_ticks.saturating_sub(self.own_ticks) as f64;
        ((busy - own).max(0.0) / TICKS_PER_SECOND) / wall
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::thread_cpu_ns;
    use std::time::{Duration, Instant};

    #[test]
    fn thread_cpu_time_counts_work_at_fine_grain_and_not_sleep() {
        let before = thread_cpu_ns().expect("Linux has a thread CPU clock");
        let spin = Instant::now();
        let mut x = 0u64;
        while spin.elapsed() < Duration::from_micros(300) {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        let after_work = thread_cpu_ns().unwrap();
        // A schedstat-style counter would often still read the same here.
        assert!(after_work > before, "300 µs of work read as no CPU time");
        std::thread::sleep(Duration::from_millis(30));
        let after_sleep = thread_cpu_ns().unwrap();
        assert!(
            after_sleep - after_work < 10_000_000,
            "sleeping counted as CPU time: {} ns",
            after_sleep - after_work
        );
    }
}
