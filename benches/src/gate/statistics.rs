//! The statistics behind a wall-clock verdict: a seeded bootstrap of the
//! change of the median, so the same two result files always give the same
//! verdict. Medians come from [`harness::stats`].
//!
//! The relative change is always `head / base − 1` of the values a row
//! shows (each side's median minus its floor): the denominator is never
//! inflated. A base at or below zero (an overhead that vanished into the
//! floor) has no relative change; its resamples count as an unbounded
//! change in the direction the head moved, and the verdict then rests on
//! the absolute change and its threshold (`min_abs_ms`), which is what
//! guards near-zero overheads.

use harness::stats::{median, nearest_rank_sorted};

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

pub(super) fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Bootstrap resamples per comparison.
pub const RESAMPLES: usize = 4000;

/// `head / base − 1`, or `None` when `base` is not positive (no relative
/// change exists: see the module docs).
pub fn relative(base: f64, head: f64) -> Option<f64> {
    (base > 0.0).then(|| head / base - 1.0)
}

/// [`relative`] for a bootstrap resample: a non-positive base becomes an
/// unbounded change in the direction the head moved (0 when it did not).
fn relative_resample(base: f64, head: f64) -> f64 {
    match relative(base, head) {
        Some(r) => r,
        None if head > base => f64::INFINITY,
        None if head < base => f64::NEG_INFINITY,
        None => 0.0,
    }
}

/// A change between two sets of samples, with 95 % confidence intervals.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change {
    /// `median(head) / median(base) − 1`; `None` when the base median is
    /// not positive.
    pub relative: Option<f64>,
    /// 95 % CI of the relative change (bounds may be infinite, see the
    /// module docs).
    pub relative_ci: (f64, f64),
    /// `median(head) − median(base)`.
    pub absolute: f64,
    /// 95 % CI of the absolute change.
    pub absolute_ci: (f64, f64),
}

/// 2.5 % and 97.5 % nearest-rank quantiles of sorted values (no
/// interpolation, so infinite resamples stay infinite instead of NaN).
fn ci(sorted: &[f64]) -> (f64, f64) {
    (
        nearest_rank_sorted(sorted, 0.025),
        nearest_rank_sorted(sorted, 0.975),
    )
}

/// Resamples `values` with replacement into `out` (same length).
fn resample(rng: &mut SplitMix, values: &[f64], out: &mut [f64]) {
    for x in out.iter_mut() {
        *x = values[rng.below(values.len())];
    }
}

/// The change of the median from `base` to `head` (the values each row
/// judges: samples minus the floor), with bootstrap CIs seeded by `id`.
pub fn bootstrap_change(id: &str, base: &[f64], head: &[f64]) -> Change {
    let (mb, mh) = (median(base), median(head));
    let mut rng = SplitMix(fnv1a(id));
    let (mut rel, mut abs) = (Vec::with_capacity(RESAMPLES), Vec::with_capacity(RESAMPLES));
    let (mut b, mut h) = (vec![0.0; base.len()], vec![0.0; head.len()]);
    for _ in 0..RESAMPLES {
        resample(&mut rng, base, &mut b);
        resample(&mut rng, head, &mut h);
        let (rb, rh) = (median(&b), median(&h));
        rel.push(relative_resample(rb, rh));
        abs.push(rh - rb);
    }
    rel.sort_by(f64::total_cmp);
    abs.sort_by(f64::total_cmp);
    Change {
        relative: relative(mb, mh),
        relative_ci: ci(&rel),
        absolute: mh - mb,
        absolute_ci: ci(&abs),
    }
}

/// One side of a ratio: the row's samples and its reference's samples.
pub struct RatioSide<'a> {
    /// The benchmark's samples (ns).
    pub of: &'a [f64],
    /// The reference benchmark's samples (ns).
    pub to: &'a [f64],
}

impl RatioSide<'_> {
    /// `median(of) / median(to)`; `None` when the reference is not positive.
    pub fn ratio(&self) -> Option<f64> {
        let to = median(self.to);
        (to > 0.0).then(|| median(self.of) / to)
    }
}

/// The change of a ratio of medians (`median(of) / median(to)` on each
/// side) from `base` to `head`: point `ratio(head) / ratio(base) − 1` and a
/// bootstrap CI resampling all four sample sets, seeded by `id`. The
/// absolute fields hold the change of the ratio itself.
pub fn bootstrap_ratio_change(id: &str, base: &RatioSide<'_>, head: &RatioSide<'_>) -> Change {
    let ratio = |of: &[f64], to: &[f64]| {
        let to = median(to);
        if to > 0.0 { median(of) / to } else { 0.0 }
    };
    let (rb, rh) = (ratio(base.of, base.to), ratio(head.of, head.to));
    let mut rng = SplitMix(fnv1a(id) ^ 0x5241_5449_4f00_0000);
    let mut bufs = [base.of, base.to, head.of, head.to].map(|s| vec![0.0; s.len()]);
    let (mut rel, mut abs) = (Vec::with_capacity(RESAMPLES), Vec::with_capacity(RESAMPLES));
    for _ in 0..RESAMPLES {
        for (buf, src) in bufs.iter_mut().zip([base.of, base.to, head.of, head.to]) {
            resample(&mut rng, src, buf);
        }
        let (b, h) = (ratio(&bufs[0], &bufs[1]), ratio(&bufs[2], &bufs[3]));
        rel.push(relative_resample(b, h));
        abs.push(h - b);
    }
    rel.sort_by(f64::total_cmp);
    abs.sort_by(f64::total_cmp);
    Change {
        relative: relative(rb, rh),
        relative_ci: ci(&rel),
        absolute: rh - rb,
        absolute_ci: ci(&abs),
    }
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
        let point = a.relative.unwrap_or(f64::NAN);
        assert!((point - 0.5).abs() < 1e-9, "{point}");
        assert!(
            a.relative_ci.0 <= point && point <= a.relative_ci.1,
            "{a:?}"
        );
        assert!(a.absolute_ci.0 > 0.0, "{a:?}");
    }

    #[test]
    fn sub_microsecond_medians_are_divided_by_themselves() {
        // 400 → 800 ns once read as −20 % (800 / max(400, 1000) − 1).
        let c = bootstrap_change("cpu", &[400.0; 5], &[800.0; 5]);
        assert_eq!(c.relative, Some(1.0));
        assert_eq!(c.relative_ci, (1.0, 1.0));
        // 648 → 627 ns once read as −37.3 %.
        let c = bootstrap_change("cpu", &[648.0; 3], &[627.0; 3]);
        assert!(
            (c.relative.unwrap_or(f64::NAN) + 0.0324).abs() < 1e-3,
            "{c:?}"
        );
    }

    #[test]
    fn a_base_at_zero_has_no_relative_change_and_an_unbounded_interval() {
        let c = bootstrap_change("z", &[0.0, 0.0, 0.0], &[500.0, 500.0, 500.0]);
        assert_eq!(c.relative, None);
        assert_eq!(c.relative_ci, (f64::INFINITY, f64::INFINITY));
        assert_eq!(c.absolute, 500.0);
        let c = bootstrap_change("z", &[-5.0, -5.0], &[-5.0, -5.0]);
        assert_eq!((c.relative, c.relative_ci), (None, (0.0, 0.0)));
    }

    #[test]
    fn a_ratio_is_judged_on_its_own_change() {
        let (floor, row) = ([1.0e6; 5], [3.5e6; 5]);
        let slower_machine = ([1.3e6; 5], [4.55e6; 5]);
        let c = bootstrap_ratio_change(
            "r",
            &RatioSide {
                of: &row,
                to: &floor,
            },
            &RatioSide {
                of: &slower_machine.1,
                to: &slower_machine.0,
            },
        );
        assert!(c.relative.is_some_and(|r| r.abs() < 1e-9), "{c:?}");
        let worse = [4.2e6; 5];
        let c = bootstrap_ratio_change(
            "r",
            &RatioSide {
                of: &row,
                to: &floor,
            },
            &RatioSide {
                of: &worse,
                to: &floor,
            },
        );
        assert!((c.relative.unwrap_or(f64::NAN) - 0.2).abs() < 1e-9, "{c:?}");
        assert!((c.absolute - 0.7).abs() < 1e-9, "{c:?}");
    }
}
