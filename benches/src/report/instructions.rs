//! Instruction counts of both sides of a report, in as few callgrind passes
//! as the gate's threshold allows.
//!
//! Counts of the small operations move by up to ~1 % between processes
//! (hash seeds, allocator state), so `bench-gate run` keeps the median of
//! three passes. A report needs that median only where it can change a
//! verdict: each side is counted once (the two sides' passes run side by
//! side: callgrind is single-threaded and timing-proof), and only the
//! operations whose change lies beyond half their threshold are counted
//! twice more on both sides, keeping the median of three.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::Context;
use harness::stats;

use crate::gate::Thresholds;
use crate::runner;

/// Counts per operation, one side.
pub type Counts = BTreeMap<String, u64>;

/// Both sides' counts, and how many operations were counted three times.
pub struct BothCounts {
    /// The base's counts.
    pub base: Counts,
    /// The head's counts.
    pub head: Counts,
    /// Operations near their threshold, counted three times per side.
    pub recounted: usize,
}

/// One pass's `(id, instructions)`, in run order.
type Pass = Vec<(String, u64)>;

/// One pass on each side, concurrently: `(base, head)`.
fn pass_pair(
    (base_exe, head_exe): (&Path, &Path),
    dir: &Path,
    pass: usize,
    filter: Option<&str>,
) -> anyhow::Result<(Pass, Pass)> {
    let (bdir, hdir) = (
        dir.join(format!("base-{pass}")),
        dir.join(format!("head-{pass}")),
    );
    std::thread::scope(|s| {
        // Side by side, each on a CPU of its own.
        let base = s.spawn(|| runner::callgrind_pass(base_exe, &bdir, filter, 0));
        let head = runner::callgrind_pass(head_exe, &hdir, filter, 1).context("head side");
        let base = base
            .join()
            .map_err(|_| anyhow::anyhow!("the base side's callgrind thread panicked"))?
            .context("base side");
        Ok((base?, head?))
    })
}

/// The operations whose change from `base` to `head` exceeds half their
/// instruction threshold (in either direction).
pub fn near_threshold(base: &Counts, head: &Counts, thresholds: &Thresholds) -> BTreeSet<String> {
    base.iter()
        .filter_map(|(id, &b)| {
            let h = *head.get(id)?;
            let change = (h as f64 / (b as f64).max(1.0) - 1.0).abs();
            (change > thresholds.limits(id).instructions / 2.0).then(|| id.clone())
        })
        .collect()
}

/// Counts both sides' `bench-ops` (`exes`: base, head) under `filter`,
/// writing callgrind's files under `dir`.
pub fn count_both(
    exes: (&Path, &Path),
    dir: &Path,
    filter: Option<&str>,
    thresholds: &Thresholds,
) -> anyhow::Result<BothCounts> {
    let (base, head) = pass_pair(exes, dir, 0, filter)?;
    let (mut base, mut head): (BTreeMap<_, _>, BTreeMap<_, _>) = (
        base.into_iter().map(|(k, v)| (k, vec![v])).collect(),
        head.into_iter().map(|(k, v)| (k, vec![v])).collect(),
    );
    let first = |m: &BTreeMap<String, Vec<u64>>| -> Counts {
        m.iter().map(|(k, v)| (k.clone(), v[0])).collect()
    };
    let near = near_threshold(&first(&base), &first(&head), thresholds);
    if !near.is_empty() {
        eprintln!(
            "bench-gate: {} operation(s) near their instruction threshold, counting them twice more: {}",
            near.len(),
            near.iter().cloned().collect::<Vec<_>>().join(", ")
        );
        let only = format!(
            "^({})$",
            near.iter()
                .map(|id| regex::escape(id))
                .collect::<Vec<_>>()
                .join("|")
        );
        for pass in 1..3 {
            let (b, h) = pass_pair(exes, dir, pass, Some(&only))?;
            for (side, counts) in [(&mut base, b), (&mut head, h)] {
                for (id, n) in counts {
                    side.entry(id).or_default().push(n);
                }
            }
        }
    }
    // The middle pass, not an average: a count stays one a pass measured.
    let medians = |m: BTreeMap<String, Vec<u64>>| -> Counts {
        m.into_iter()
            .filter_map(|(id, mut v)| stats::middle(&mut v).map(|n| (id, n)))
            .collect()
    };
    Ok(BothCounts {
        base: medians(base),
        head: medians(head),
        recounted: near.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_changes_beyond_half_the_threshold_are_recounted() {
        let base: Counts = [
            ("a", 1_000_000),
            ("b", 1_000_000),
            ("c", 1_000_000),
            ("gone", 5),
        ]
        .map(|(k, v)| (k.to_string(), v))
        .into();
        let head: Counts = [
            ("a", 1_009_000),
            ("b", 1_011_000),
            ("c", 985_000),
            ("new", 5),
        ]
        .map(|(k, v)| (k.to_string(), v))
        .into();
        // Default threshold 2 %: half is 1 %.
        let near = near_threshold(&base, &head, &Thresholds::default());
        assert_eq!(near, ["b", "c"].map(String::from).into());
        let t: Thresholds =
            toml::from_str("[[override]]\npattern = \"b\"\ninstructions_pct = 5\n").unwrap();
        assert_eq!(
            near_threshold(&base, &head, &t),
            ["c"].map(String::from).into()
        );
    }
}
