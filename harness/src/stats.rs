//! Order statistics, the one implementation behind the harness's per-mode
//! summaries and the bench gate's medians, bootstrap intervals and
//! instruction counts.
//!
//! Two medians exist on purpose: [`median`] is the textbook one (mean of the
//! two middle values for an even count), used wherever values are continuous;
//! [`middle`] is the upper middle *element*, for figures that must stay a
//! value that was actually observed (an exact instruction count, a measured
//! process time, a peak RSS).

use serde::Serialize;

/// `values` sorted ascending (NaNs last).
pub fn sorted(values: &[f64]) -> Vec<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    v
}

/// Median of sorted values: the middle one, or the mean of the two middle ones; 0 when empty.
pub fn median_sorted(s: &[f64]) -> f64 {
    let n = s.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => s[n / 2],
        _ => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

/// Median of `values` (see [`median_sorted`]).
pub fn median(values: &[f64]) -> f64 {
    median_sorted(&sorted(values))
}

/// Arithmetic mean; 0 when empty.
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// The `q` quantile (0 ≤ `q` ≤ 1) of sorted values by linear interpolation
/// between the closest ranks (Hyndman & Fan type 7, numpy's default); 0 when empty.
pub fn quantile_sorted(s: &[f64], q: f64) -> f64 {
    if s.is_empty() {
        return 0.0;
    }
    let pos = q * (s.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    s[lo] + (s[hi] - s[lo]) * (pos - lo as f64)
}

/// The nearest-rank `q` percentile (0 < `q` ≤ 1) of sorted values: the
/// smallest value with at least `q` of the values at or below it; 0 when empty.
pub fn nearest_rank_sorted(s: &[f64], q: f64) -> f64 {
    if s.is_empty() {
        return 0.0;
    }
    let rank = ((q * s.len() as f64).ceil() as usize).clamp(1, s.len());
    s[rank - 1]
}

/// The middle element of `values` once sorted (the upper of the two middle
/// ones for an even count), or `None` when empty. Sorts `values` in place.
pub fn middle<T: Ord + Copy>(values: &mut [T]) -> Option<T> {
    values.sort_unstable();
    values.get(values.len() / 2).copied()
}

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
        let v = sorted(values);
        Stats {
            n: v.len(),
            median: median_sorted(&v),
            p90: nearest_rank_sorted(&v, 0.9),
            min: v[0],
            max: v[v.len() - 1],
            mean: mean(&v),
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

    #[test]
    fn interpolated_quantiles_and_observed_middles() {
        let s = sorted(&[4.0, 1.0, 3.0, 2.0]);
        assert_eq!(quantile_sorted(&s, 0.0), 1.0);
        assert_eq!(quantile_sorted(&s, 0.5), 2.5);
        assert_eq!(quantile_sorted(&s, 1.0), 4.0);
        assert_eq!(quantile_sorted(&[], 0.5), 0.0);
        assert_eq!(median(&[2.0, 1.0]), 1.5);
        assert_eq!(median(&[]), 0.0);
        // An even count keeps an observed value: the upper middle.
        assert_eq!(middle(&mut [40u64, 10, 30, 20]), Some(30));
        assert_eq!(middle(&mut [7u64, 3, 5]), Some(5));
        assert_eq!(middle::<u64>(&mut []), None);
    }
}
