//! The timing loop every measurement shares: some unmeasured warm-up
//! passes, then the measured ones, each timed around exactly the work being
//! measured. The harness's per-mode launches ([`crate::engine::measure_mode`])
//! and the bench gate's whole-process `sky` timings both run through it, so
//! "warm-up" and "wall time" mean the same thing in every report.

use std::time::{Duration, Instant};

/// One pass of a measuring loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    /// Position in the loop, warm-ups first (0-based).
    pub index: usize,
    /// Warm-up passes are made (and may be recorded) but are not statistics.
    pub warmup: bool,
}

/// `warmup` warm-up passes followed by `runs` measured ones.
pub fn passes(warmup: usize, runs: usize) -> impl Iterator<Item = Pass> {
    (0..warmup + runs).map(move |index| Pass {
        index,
        warmup: index < warmup,
    })
}

/// Runs `f` and returns its result with the wall time it took.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let out = f();
    (out, start.elapsed())
}

/// A duration in milliseconds (the unit of every report).
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warmups_come_first() {
        let p: Vec<Pass> = passes(2, 3).collect();
        assert_eq!(p.len(), 5);
        assert!(p[0].warmup && p[1].warmup && !p[2].warmup);
        assert_eq!(p[4].index, 4);
        assert_eq!(passes(0, 0).count(), 0);
    }

    #[test]
    fn timed_measures_the_call() {
        let (v, d) = timed(|| {
            std::thread::sleep(Duration::from_millis(5));
            7
        });
        assert_eq!(v, 7);
        assert!(d >= Duration::from_millis(5));
        assert_eq!(ms(Duration::from_micros(1500)), 1.5);
    }
}
