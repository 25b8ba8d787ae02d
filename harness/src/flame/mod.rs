//! Flamegraphs, the one implementation behind the harness reports and the
//! bench suite: folded stacks ([`folded`]), on-CPU sampling ([`cpu`]), and
//! rendering with inferno, plain and differential.
//!
//! **One set of inferno options** (see [`options`]), chosen so that any two
//! SVGs of this workspace can be compared by eye:
//!
//! * `hash = true`: a frame's colour is a function of its name only (stable
//!   across runs and machines, no random generator), and names that share a
//!   prefix (one crate's or module's functions) get similar hues;
//! * palette by what is counted: `hot` for on-CPU samples, `aqua` for
//!   wall-clock span time, so a span graph is never mistaken for a CPU one;
//! * fluid width (`image_width = None`): the SVG stretches to the browser
//!   window, which keeps narrow frames readable; the file itself does not
//!   depend on it;
//! * `min_width = 0.1` px: sub-pixel frames are left out (they are invisible
//!   and make CPU profiles of whole launches several times larger);
//! * differential graphs are **normalised** (`normalize = true`: the before
//!   profile is scaled to the after profile's total), so a uniformly slower
//!   or busier machine does not paint everything red and the colours show
//!   where the *share* of time moved; absolute changes are in the harness's
//!   "moved most" table and the gate's verdicts. Hex addresses are stripped
//!   (`strip_hex`) so two builds' unsymbolised frames still match.
//!
//! Output is deterministic: fixed options, stacks sorted, no timestamps. The
//! embedded JavaScript (click to zoom, search) is static text, so two runs of
//! the same code give SVGs that differ only where the numbers differ. Empty
//! input draws a single [`EMPTY_STACK`] frame (inferno refuses empty input),
//! so every SVG is a real flamegraph.

pub mod cpu;
pub mod folded;

use std::path::Path;

use inferno::flamegraph::color::BasicPalette;
use inferno::flamegraph::{self, Options, Palette};

pub use cpu::{CPU_SAMPLE_HZ, CpuProfile, CpuSampler};
pub use folded::{
    Folded, Moved, folded_lines, folded_text, inclusive, parse_folded, read_folded, top_moved,
    write_folded,
};

use crate::error::{HarnessError, Result};

/// The stack drawn when there is nothing to draw.
pub const EMPTY_STACK: &str = "(no samples)";

/// What the counts of a profile are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counts {
    /// On-CPU samples (pprof).
    CpuSamples,
    /// Wall-clock microseconds of span self time.
    WallMicros,
}

impl Counts {
    /// The unit inferno prints in tooltips.
    pub fn unit(self) -> &'static str {
        match self {
            Counts::CpuSamples => "samples",
            Counts::WallMicros => "µs",
        }
    }

    fn palette(self) -> Palette {
        match self {
            Counts::CpuSamples => Palette::Basic(BasicPalette::Hot),
            Counts::WallMicros => Palette::Basic(BasicPalette::Aqua),
        }
    }
}

/// Title, subtitle and kind of counts of one SVG.
#[derive(Debug, Clone, Copy)]
pub struct Chart<'a> {
    /// The heading.
    pub title: &'a str,
    /// The line under it (scenario, date, revision), if any.
    pub subtitle: Option<&'a str>,
    /// What is counted.
    pub counts: Counts,
}

impl<'a> Chart<'a> {
    /// A chart with a subtitle.
    pub fn new(title: &'a str, subtitle: &'a str, counts: Counts) -> Chart<'a> {
        Chart {
            title,
            subtitle: Some(subtitle),
            counts,
        }
    }
}

/// The inferno options of every flamegraph here (see the module docs for why).
pub fn options(chart: &Chart<'_>) -> Options<'static> {
    let mut o = Options::default();
    o.title = chart.title.to_string();
    o.subtitle = chart.subtitle.map(str::to_string);
    o.count_name = chart.counts.unit().to_string();
    o.colors = chart.counts.palette();
    o.hash = true;
    o.image_width = None;
    o.min_width = 0.1;
    o
}

/// The options of every differential graph (see the module docs for why).
pub fn differential_options() -> inferno::differential::Options {
    inferno::differential::Options {
        normalize: true,
        strip_hex: true,
    }
}

/// inferno's differential input, `stack before after` per line, with the
/// before counts normalised to the after total. Sorted: inferno emits the
/// stacks in hash-map order.
fn differential_lines(before: &Folded, after: &Folded) -> std::io::Result<Vec<String>> {
    let mut diffed = Vec::new();
    inferno::differential::from_readers(
        differential_options(),
        folded_text(before).as_bytes(),
        folded_text(after).as_bytes(),
        &mut diffed,
    )?;
    let mut lines: Vec<String> = String::from_utf8_lossy(&diffed)
        .lines()
        .map(str::to_string)
        .collect();
    lines.sort();
    Ok(lines)
}

fn render_error(out: &Path, e: impl std::fmt::Display) -> HarnessError {
    HarnessError::Render {
        what: out.display().to_string(),
        detail: e.to_string(),
    }
}

fn render_lines(lines: &[String], mut opts: Options<'_>, out: &Path) -> Result<()> {
    let empty = [format!("{EMPTY_STACK} 1")];
    let lines: &[String] = if lines.is_empty() { &empty } else { lines };
    let mut svg = Vec::new();
    flamegraph::from_lines(&mut opts, lines.iter().map(String::as_str), &mut svg)
        .map_err(|e| render_error(out, e))?;
    std::fs::write(out, svg).map_err(|e| HarnessError::io(out, e))
}

/// Renders a flamegraph of `folded` to `out`.
pub fn render(folded: &Folded, chart: &Chart<'_>, out: &Path) -> Result<()> {
    render_lines(&folded_lines(folded), options(chart), out)
}

/// Renders a differential flamegraph: the shape of `after`, coloured by the
/// (normalised) change from `before`: red grew, blue shrank. With `negate`,
/// the roles are swapped for drawing (shape of `before`, i.e. what
/// disappeared) while the colours keep meaning "after minus before".
pub fn render_diff(
    before: &Folded,
    after: &Folded,
    negate: bool,
    chart: &Chart<'_>,
    out: &Path,
) -> Result<()> {
    let (first, second) = if negate {
        (after, before)
    } else {
        (before, after)
    };
    let lines = differential_lines(first, second).map_err(|e| render_error(out, e))?;
    let mut o = options(chart);
    o.negate_differentials = negate;
    render_lines(&lines, o, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(counts: Counts) -> Chart<'static> {
        Chart::new("t", "s", counts)
    }

    #[test]
    fn svgs_are_deterministic() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = parse_folded(
            "launch warm;fan_out;cloud_check aws 1200\nlaunch warm;catalog_load 900\n",
        );
        let (a, b) = (dir.path().join("a.svg"), dir.path().join("b.svg"));
        render(&f, &chart(Counts::WallMicros), &a).expect("render a");
        render(&f, &chart(Counts::WallMicros), &b).expect("render b");
        let (a, b) = (std::fs::read(a).expect("a"), std::fs::read(b).expect("b"));
        assert!(a == b, "two renders of the same stacks differ");
        let empty = dir.path().join("empty.svg");
        render(&Folded::new(), &chart(Counts::CpuSamples), &empty)
            .expect("empty input still renders");
        assert!(
            std::fs::read_to_string(empty)
                .unwrap_or_default()
                .contains(EMPTY_STACK)
        );
    }

    #[test]
    fn differentials_are_normalised() {
        // Everything twice as slow: normalised, nothing moved.
        let before = parse_folded("a;b 10\na;c 30\n");
        let after = parse_folded("a;b 20\na;c 60\n");
        let lines = differential_lines(&before, &after).expect("diff");
        assert_eq!(lines, ["a;b 20 20", "a;c 60 60"]);
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("d.svg");
        render_diff(&before, &after, true, &chart(Counts::CpuSamples), &out).expect("render");
        assert!(std::fs::read_to_string(&out).is_ok_and(|s| s.contains("<svg")));
    }
}
