//! The statistics behind a wall-clock verdict: a seeded bootstrap of the
//! change of the median, so the same two result files always give the same
//! verdict. Medians and quantiles come from [`harness::stats`].

use harness::stats::{median, quantile_sorted};

/// SplitMix64: a tiny seeded generator, so the bootstrap is repeatable.
pub(super) struct SplitMix(pub(super) u64);

impl SplitMix {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Bootstrap resamples per comparison.
pub const RESAMPLES: usize = 4000;

/// Smallest overhead used as a denominator (1 µs), so a near-zero base
/// overhead cannot turn jitter into an infinite relative change.
const MIN_OVERHEAD_NS: f64 = 1000.0;

/// Relative-change point estimate and 95 % CIs (relative, absolute) of
/// `median(head) / median(base) − 1`, seeded by `id`.
pub fn bootstrap_change(id: &str, base: &[f64], head: &[f64]) -> (f64, (f64, f64), (f64, f64)) {
    let point = median(head) / median(base).max(MIN_OVERHEAD_NS) - 1.0;
    let mut rng = SplitMix(fnv1a(id));
    let (mut rel, mut abs) = (Vec::with_capacity(RESAMPLES), Vec::with_capacity(RESAMPLES));
    let (mut b, mut h) = (vec![0.0; base.len()], vec![0.0; head.len()]);
    for _ in 0..RESAMPLES {
        for x in b.iter_mut() {
            *x = base[rng.below(base.len())];
        }
        for x in h.iter_mut() {
            *x = head[rng.below(head.len())];
        }
        let (mb, mh) = (median(&b), median(&h));
        rel.push(mh / mb.max(MIN_OVERHEAD_NS) - 1.0);
        abs.push(mh - mb);
    }
    rel.sort_by(f64::total_cmp);
    abs.sort_by(f64::total_cmp);
    let ci = |s: &[f64]| (quantile_sorted(s, 0.025), quantile_sorted(s, 0.975));
    (point, ci(&rel), ci(&abs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bootstrap_is_seeded_by_the_id() {
        let base: Vec<f64> = (0..20).map(|i| 100e3 + f64::from(i) * 1e3).collect();
        let head: Vec<f64> = base.iter().map(|x| x * 1.5).collect();
        let a = bootstrap_change("x", &base, &head);
        assert_eq!(
            a,
            bootstrap_change("x", &base, &head),
            "same id, same answer"
        );
        let (point, rel, abs) = a;
        assert!((point - 0.5).abs() < 1e-9, "{point}");
        assert!(rel.0 <= point && point <= rel.1, "{rel:?}");
        assert!(abs.0 > 0.0, "{abs:?}");
    }

    #[test]
    fn near_zero_bases_do_not_explode() {
        let (point, _, _) = bootstrap_change("z", &[0.0, 1.0], &[500.0, 500.0]);
        assert!((point - (500.0 / MIN_OVERHEAD_NS - 1.0)).abs() < 1e-9);
    }
}
