//! The report's noise band: how wide the gate's confidence intervals were at
//! the measuring budget this run used, over the rows whose time can fail.
//!
//! A timed row regresses only when the whole 95 % CI of its change lies
//! above its threshold (`benches/src/gate/statistics.rs`), so the CI's
//! half-width is what a real slowdown must exceed the threshold by before
//! this run can call it. Criterion's samples and measuring times (set per
//! group in `benches/benches/*.rs`, shortened for rows whose time cannot
//! fail by [`crate::budget`]) decide that width; the report states it
//! rather than leaving a shorter budget to look as precise as a longer one.

use crate::gate::{Metric, Row, Thresholds};

/// The half-widths of the CIs of the rows whose time gates: `(id, half
/// width, threshold)`, as fractions; rows without a finite CI are left out.
fn gating_half_widths<'a>(rows: &'a [Row], thresholds: &Thresholds) -> Vec<(&'a str, f64, f64)> {
    rows.iter()
        .filter(|r| match r.metric {
            Metric::Ratio => true,
            Metric::Time => !thresholds.limits(&r.id).time_advisory,
            Metric::PeakRss | Metric::Instructions => false,
        })
        .filter_map(|r| {
            let (lo, hi) = r.ci?;
            let half = (hi - lo) / 2.0;
            half.is_finite()
                .then_some((r.id.as_str(), half, r.threshold))
        })
        .collect()
}

/// One markdown paragraph stating the noise band, or `None` when no row's
/// time gates (e.g. a filtered run of advisory rows only).
pub fn noise_band(rows: &[Row], thresholds: &Thresholds) -> Option<String> {
    let mut widths = gating_half_widths(rows, thresholds);
    if widths.is_empty() {
        return None;
    }
    widths.sort_by(|a, b| a.1.total_cmp(&b.1));
    let median = widths[(widths.len() - 1) / 2].1;
    let (widest_id, widest, _) = widths[widths.len() - 1];
    let wider_than_threshold = widths.iter().filter(|(_, h, t)| h > t).count();
    Some(format!(
        "**Noise band at this run's budget:** the 95 % CI of the change of the {} timed and ratio rows that \
         can fail spanned a median ±{:.1} % (widest ±{:.1} %, `{widest_id}`). A row regresses only when its \
         whole CI lies above its threshold, so a slowdown must exceed the threshold by about that much to be \
         called; {wider_than_threshold} row(s) had a CI wider than ±their threshold (noise, not verdicts). \
         Advisory rows measure on a shorter budget (`benches/src/budget.rs`) and are gated by their \
         instruction counts.",
        widths.len(),
        100.0 * median,
        100.0 * widest,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Verdict;

    fn row(id: &str, metric: Metric, ci: Option<(f64, f64)>) -> Row {
        Row {
            id: id.into(),
            metric,
            base: Some(1.0),
            head: Some(1.0),
            floors: (None, None),
            cpu_clock: false,
            reference: None,
            change: Some(0.0),
            ci,
            threshold: 0.10,
            min_abs_ns: 0.0,
            verdict: Verdict::Unchanged,
        }
    }

    #[test]
    fn states_the_ci_of_the_rows_that_can_fail_only() {
        let t: Thresholds =
            toml::from_str("[[override]]\npattern = \"feasibility/*\"\ntime_advisory = true\n")
                .unwrap();
        let rows = [
            row("launch/a", Metric::Time, Some((-0.02, 0.02))),
            row("launch/b", Metric::Time, Some((-0.05, 0.07))),
            row("process/r", Metric::Ratio, Some((-0.30, 0.10))),
            // Advisory, instructions, no CI, infinite CI: not counted.
            row("feasibility/x", Metric::Time, Some((-0.9, 0.9))),
            row("launch/a", Metric::Instructions, None),
            row("launch/c", Metric::Time, None),
            row("launch/d", Metric::Time, Some((f64::NEG_INFINITY, 0.1))),
        ];
        let text = noise_band(&rows, &t).unwrap();
        assert!(text.contains("of the 3 timed and ratio rows"), "{text}");
        assert!(text.contains("median ±6.0 %"), "{text}");
        assert!(text.contains("widest ±20.0 %, `process/r`"), "{text}");
        assert!(text.contains("1 row(s) had a CI wider"), "{text}");
        assert_eq!(noise_band(&rows[3..], &t), None);
    }
}
