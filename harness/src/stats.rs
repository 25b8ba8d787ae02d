//! Order statistics over a mode's samples.

use serde::Serialize;

/// Summary of a set of millisecond values.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Stats {
    /// Number of values.
    pub n: usize,
    /// Median (mean of the two middle values for even `n`).
    pub median: f64,
    /// 90th percentile, nearest-rank: the smallest value with at least 90 % of values at or below it.
    pub p90: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
}

impl Stats {
    /// Statistics of `values`; all zero when empty. NaNs sort last.
    pub fn of(values: &[f64]) -> Stats {
        if values.is_empty() {
            return Stats::default();
        }
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        let rank = ((0.9 * n as f64).ceil() as usize).clamp(1, n);
        Stats {
            n,
            median,
            p90: v[rank - 1],
            min: v[0],
            max: v[n - 1],
            mean: v.iter().sum::<f64>() / n as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_nearest_rank_p90() {
        let s = Stats::of(&[5.0, 1.0, 4.0, 2.0, 3.0, 6.0, 7.0, 8.0, 9.0, 10.0]);
        assert_eq!((s.median, s.p90, s.min, s.max), (5.5, 9.0, 1.0, 10.0));
        let s = Stats::of(&[3.0]);
        assert_eq!((s.median, s.p90), (3.0, 3.0));
        assert_eq!(Stats::of(&[]).n, 0);
    }
}
