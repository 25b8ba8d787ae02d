//! `--baseline`: this run against an earlier report, judged against the
//! noise both runs show, so that two runs of the same code read "unchanged".
//!
//! * **Modes**: the measured wall times of each mode present in both runs
//!   (the baseline's `raw.json` samples). The difference of medians gets a
//!   95 % bootstrap interval (2,000 resamples of each side, a fixed seed);
//!   a mode is *faster* or *slower* only when the interval excludes zero,
//!   and the interval's half-width is printed as the noise.
//! * **Spans**: the wall-clock span stacks (inclusive time) of the traced
//!   in-process launches. With `--baseline` each mode is traced
//!   [`TRACED_ROUNDS`] times; a stack is *changed* only when its change
//!   exceeds the spread (max − min) of its own time over those rounds.
//!
//! Differential flamegraphs are drawn as before (normalised, red grew, blue
//! shrank), now with that legend in their subtitle.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::engine::{Mode, Sample};
use crate::error::{HarnessError, Result};
use crate::flame::{Folded, Moved, inclusive, read_folded, top_moved};
use crate::stats::{Stats, median, sorted};

/// Traced in-process launches per mode when comparing with a baseline (one otherwise).
pub const TRACED_ROUNDS: usize = 3;

/// Bootstrap resamples per comparison.
const RESAMPLES: usize = 2000;

/// A change judged against the noise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Less time now, beyond the noise.
    Faster,
    /// More time now, beyond the noise.
    Slower,
    /// Within the noise.
    Unchanged,
}

impl Verdict {
    /// The word in tables.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "SLOWER",
            Verdict::Unchanged => "unchanged (within noise)",
        }
    }
}

/// One mode, baseline against now.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModeChange {
    /// The mode.
    pub mode: Mode,
    /// The baseline's wall times.
    pub base: Stats,
    /// This run's wall times.
    pub now: Stats,
    /// Median now − median baseline, ms.
    pub delta_ms: f64,
    /// 95 % bootstrap interval of that difference, ms.
    pub interval_ms: (f64, f64),
    /// Half the interval's width: the noise of the two runs, ms.
    pub noise_ms: f64,
    /// The verdict.
    pub verdict: Verdict,
}

/// One span stack, baseline against now.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpanChange {
    /// `launch warm;fan_out;cloud_check aws`.
    pub stack: String,
    /// Inclusive µs in the baseline.
    pub base_us: u64,
    /// Inclusive µs now (median over the rounds).
    pub now_us: u64,
    /// Max − min over this run's rounds, µs.
    pub noise_us: u64,
    /// The verdict.
    pub verdict: Verdict,
}

/// The whole comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Baseline {
    /// The baseline report folder.
    pub dir: PathBuf,
    /// Modes in both runs.
    pub modes: Vec<ModeChange>,
    /// The span stacks that moved most (inclusive), with verdicts.
    pub spans: Vec<SpanChange>,
    /// The same stacks as [`Moved`] (for the flamegraph notes).
    pub moved: Vec<Moved>,
    /// The baseline's span stacks (for the differential flamegraphs).
    #[serde(skip)]
    pub base_spans: Folded,
    /// The baseline's CPU stacks, when it has them.
    #[serde(skip)]
    pub base_cpu: Option<Folded>,
}

/// The part of a report's `raw.json` a comparison reads.
#[derive(Debug, Deserialize)]
struct RawSamples {
    samples: Vec<RawSample>,
}

#[derive(Debug, Deserialize)]
struct RawSample {
    mode: String,
    warmup: bool,
    wall_ms: f64,
}

/// The median of `now` minus that of `base`, with its 95 % bootstrap interval.
pub fn difference_of_medians(base: &[f64], now: &[f64], seed: u64) -> (f64, (f64, f64)) {
    let delta = median(now) - median(base);
    if base.is_empty() || now.is_empty() {
        return (delta, (delta, delta));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut resample = |v: &[f64]| -> f64 {
        let picked: Vec<f64> = (0..v.len())
            .map(|_| v[rng.random_range(0..v.len())])
            .collect();
        median(&picked)
    };
    let diffs: Vec<f64> = (0..RESAMPLES)
        .map(|_| resample(now) - resample(base))
        .collect();
    let s = sorted(&diffs);
    let at = |q: f64| s[((q * (s.len() - 1) as f64).round() as usize).min(s.len() - 1)];
    (delta, (at(0.025), at(0.975)))
}

fn verdict_of(interval: (f64, f64)) -> Verdict {
    if interval.0 > 0.0 {
        Verdict::Slower
    } else if interval.1 < 0.0 {
        Verdict::Faster
    } else {
        Verdict::Unchanged
    }
}

/// Per-stack median over rounds (the profile drawn and compared).
pub fn median_of_rounds(rounds: &[Folded]) -> Folded {
    let mut all: BTreeMap<&String, Vec<f64>> = BTreeMap::new();
    for r in rounds {
        for (stack, us) in r {
            all.entry(stack).or_default().push(*us as f64);
        }
    }
    all.into_iter()
        .map(|(stack, mut v)| {
            v.resize(rounds.len().max(v.len()), 0.0);
            (stack.clone(), median(&v).round() as u64)
        })
        .collect()
}

/// Compares this run (`samples`, the span stacks of each traced round)
/// with the report in `dir`.
pub fn compare(dir: &Path, samples: &[Sample], rounds: &[Folded]) -> Result<Baseline> {
    let raw_path = dir.join("raw.json");
    let raw: RawSamples = serde_json::from_slice(
        &std::fs::read(&raw_path).map_err(|e| HarnessError::io(&raw_path, e))?,
    )
    .map_err(|e| HarnessError::Render {
        what: raw_path.display().to_string(),
        detail: format!("not a harness report's raw.json: {e}"),
    })?;
    let mut modes = Vec::new();
    for (i, mode) in Mode::EVERY.into_iter().enumerate() {
        let base: Vec<f64> = raw
            .samples
            .iter()
            .filter(|s| s.mode == mode.name() && !s.warmup)
            .map(|s| s.wall_ms)
            .collect();
        let now: Vec<f64> = samples
            .iter()
            .filter(|s| s.mode == mode && !s.warmup)
            .map(|s| s.wall_ms)
            .collect();
        if base.is_empty() || now.is_empty() {
            continue;
        }
        let (delta_ms, interval_ms) = difference_of_medians(&base, &now, 0x5eed + i as u64);
        modes.push(ModeChange {
            mode,
            base: Stats::of(&base),
            now: Stats::of(&now),
            delta_ms,
            interval_ms,
            noise_ms: (interval_ms.1 - interval_ms.0) / 2.0,
            verdict: verdict_of(interval_ms),
        });
    }
    let base_spans = read_folded(&dir.join("spans.folded"))?;
    let base_cpu = read_folded(&dir.join("cpu.folded")).ok();
    let now_spans = median_of_rounds(rounds);
    let moved = top_moved(&base_spans, &now_spans, 10);
    let per_round: Vec<BTreeMap<String, u64>> = rounds.iter().map(inclusive).collect();
    let spans = moved
        .iter()
        .map(|m| {
            let values: Vec<u64> = per_round
                .iter()
                .map(|r| r.get(&m.stack).copied().unwrap_or(0))
                .collect();
            let noise_us = values.iter().max().unwrap_or(&0) - values.iter().min().unwrap_or(&0);
            let delta = m.delta();
            let verdict = if delta.unsigned_abs() <= noise_us || rounds.len() < 2 {
                Verdict::Unchanged
            } else if delta > 0 {
                Verdict::Slower
            } else {
                Verdict::Faster
            };
            SpanChange {
                stack: m.stack.clone(),
                base_us: m.before,
                now_us: m.after,
                noise_us,
                verdict,
            }
        })
        .collect();
    Ok(Baseline {
        dir: dir.to_path_buf(),
        modes,
        spans,
        moved,
        base_spans,
        base_cpu,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_decides_the_verdict() {
        let noisy_a = [100.0, 130.0, 90.0, 120.0, 110.0, 95.0, 125.0, 105.0];
        let noisy_b = [105.0, 125.0, 92.0, 118.0, 112.0, 99.0, 121.0, 108.0];
        let (_, i) = difference_of_medians(&noisy_a, &noisy_b, 1);
        assert_eq!(verdict_of(i), Verdict::Unchanged, "{i:?}");
        let slower: Vec<f64> = noisy_a.iter().map(|v| v * 2.0).collect();
        let (d, i) = difference_of_medians(&noisy_a, &slower, 1);
        assert!(d > 100.0);
        assert_eq!(verdict_of(i), Verdict::Slower, "{i:?}");
        let (_, i) = difference_of_medians(&slower, &noisy_a, 1);
        assert_eq!(verdict_of(i), Verdict::Faster);
        // Same seed, same interval.
        assert_eq!(
            difference_of_medians(&noisy_a, &noisy_b, 9),
            difference_of_medians(&noisy_a, &noisy_b, 9)
        );
    }

    #[test]
    fn rounds_give_medians_and_missing_stacks_count_zero() {
        let r = |a: u64, b: u64| -> Folded {
            [("x".to_string(), a), ("y".to_string(), b)]
                .into_iter()
                .filter(|(_, v)| *v > 0)
                .collect()
        };
        let m = median_of_rounds(&[r(10, 5), r(30, 0), r(20, 7)]);
        assert_eq!(m["x"], 20);
        assert_eq!(m["y"], 5);
    }
}
