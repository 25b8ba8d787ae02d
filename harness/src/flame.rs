//! Rendering folded stacks with inferno: flamegraphs, differential
//! flamegraphs, and the table of stacks whose time moved most.
//!
//! Output is deterministic: fixed options, colours derived from frame names
//! (`deterministic`), stacks sorted, no timestamps. The embedded JavaScript
//! (click to zoom, search) is static text, so two runs of the same code give
//! SVGs that differ only where the numbers differ.

use std::collections::BTreeMap;
use std::path::Path;

use inferno::flamegraph::{self, Options, Palette};

use crate::error::{HarnessError, Result};
use crate::spans::Folded;

/// The stack drawn when there is nothing to draw (inferno refuses empty input).
pub const EMPTY_STACK: &str = "(no samples)";

/// `stack count` lines, sorted.
pub fn folded_lines(folded: &Folded) -> Vec<String> {
    folded
        .iter()
        .filter(|(_, c)| **c > 0)
        .map(|(s, c)| format!("{s} {c}"))
        .collect()
}

/// The text of a `.folded` file.
pub fn folded_text(folded: &Folded) -> String {
    let mut s = folded_lines(folded).join("\n");
    s.push('\n');
    s
}

/// Parses a `.folded` file (`stack count` per line; blank lines ignored).
pub fn parse_folded(text: &str) -> Folded {
    let mut out = Folded::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some((stack, count)) = line.rsplit_once(' ')
            && let Ok(c) = count.parse::<u64>()
        {
            *out.entry(stack.to_string()).or_default() += c;
        }
    }
    out
}

/// Reads a `.folded` file.
pub fn read_folded(path: &Path) -> Result<Folded> {
    let text = std::fs::read_to_string(path).map_err(|e| HarnessError::io(path, e))?;
    Ok(parse_folded(&text))
}

fn options<'a>(title: &str, subtitle: &str, count_name: &str, palette: Palette) -> Options<'a> {
    let mut o = Options::default();
    o.title = title.to_string();
    o.subtitle = Some(subtitle.to_string());
    o.count_name = count_name.to_string();
    o.colors = palette;
    o.deterministic = true;
    o.image_width = Some(1200);
    o.min_width = 0.1;
    o
}

fn render_lines(lines: &[String], mut opts: Options<'_>, out: &Path) -> Result<()> {
    let empty = [format!("{EMPTY_STACK} 1")];
    let lines: &[String] = if lines.is_empty() { &empty } else { lines };
    let mut svg = Vec::new();
    flamegraph::from_lines(&mut opts, lines.iter().map(String::as_str), &mut svg).map_err(|e| {
        HarnessError::Render {
            what: out.display().to_string(),
            detail: e.to_string(),
        }
    })?;
    std::fs::write(out, svg).map_err(|e| HarnessError::io(out, e))
}

/// Renders a flamegraph of `folded` to `out`.
pub fn render(
    folded: &Folded,
    title: &str,
    subtitle: &str,
    count_name: &str,
    out: &Path,
) -> Result<()> {
    let palette = match count_name {
        "samples" => Palette::Basic(flamegraph::color::BasicPalette::Hot),
        _ => Palette::Basic(flamegraph::color::BasicPalette::Aqua),
    };
    render_lines(
        &folded_lines(folded),
        options(title, subtitle, count_name, palette),
        out,
    )
}

/// Renders a differential flamegraph: the shape of `after`, coloured by the
/// change from `before` (red grew, blue shrank). With `negate`, the roles are
/// swapped for drawing (shape of `before`, i.e. what disappeared) while the
/// colours keep meaning "after minus before".
pub fn render_diff(
    before: &Folded,
    after: &Folded,
    negate: bool,
    title: &str,
    subtitle: &str,
    count_name: &str,
    out: &Path,
) -> Result<()> {
    let (first, second) = if negate {
        (after, before)
    } else {
        (before, after)
    };
    let mut diffed = Vec::new();
    let opts = inferno::differential::Options::default();
    inferno::differential::from_readers(
        opts,
        folded_text(first).as_bytes(),
        folded_text(second).as_bytes(),
        &mut diffed,
    )
    .map_err(|e| HarnessError::Render {
        what: out.display().to_string(),
        detail: e.to_string(),
    })?;
    let text = String::from_utf8_lossy(&diffed);
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut o = options(
        title,
        subtitle,
        count_name,
        Palette::Basic(flamegraph::color::BasicPalette::Hot),
    );
    o.negate_differentials = negate;
    render_lines(&lines, o, out)
}

/// A stack (inclusive time) that changed between two folded profiles.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Moved {
    /// `frame;frame`.
    pub stack: String,
    /// Inclusive count before.
    pub before: u64,
    /// Inclusive count after.
    pub after: u64,
}

impl Moved {
    /// `after - before`.
    pub fn delta(&self) -> i64 {
        self.after as i64 - self.before as i64
    }
}

/// Inclusive totals of every stack prefix (a frame's total includes its callees).
pub fn inclusive(folded: &Folded) -> BTreeMap<String, u64> {
    let mut out: BTreeMap<String, u64> = BTreeMap::new();
    for (stack, count) in folded {
        for (i, _) in stack.match_indices(';') {
            *out.entry(stack[..i].to_string()).or_default() += count;
        }
        *out.entry(stack.clone()).or_default() += count;
    }
    out
}

/// The `n` stacks whose inclusive time moved most (by absolute change), largest first.
pub fn top_moved(before: &Folded, after: &Folded, n: usize) -> Vec<Moved> {
    let b = inclusive(before);
    let a = inclusive(after);
    let mut keys: Vec<&String> = b.keys().chain(a.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut moved: Vec<Moved> = keys
        .into_iter()
        .map(|k| Moved {
            stack: k.clone(),
            before: b.get(k).copied().unwrap_or(0),
            after: a.get(k).copied().unwrap_or(0),
        })
        .filter(|m| m.delta() != 0)
        .collect();
    moved.sort_by(|x, y| {
        y.delta()
            .unsigned_abs()
            .cmp(&x.delta().unsigned_abs())
            .then_with(|| x.stack.cmp(&y.stack))
    });
    moved.truncate(n);
    moved
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svgs_are_deterministic() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = parse_folded(
            "launch warm;fan_out;cloud_check aws 1200\nlaunch warm;catalog_load 900\n",
        );
        let (a, b) = (dir.path().join("a.svg"), dir.path().join("b.svg"));
        render(&f, "t", "s", "µs", &a).expect("render a");
        render(&f, "t", "s", "µs", &b).expect("render b");
        let (a, b) = (std::fs::read(a).expect("a"), std::fs::read(b).expect("b"));
        assert!(a == b, "two renders of the same stacks differ");
        let empty = dir.path().join("empty.svg");
        render(&Folded::new(), "t", "s", "samples", &empty).expect("empty input still renders");
        assert!(
            std::fs::read_to_string(empty)
                .unwrap_or_default()
                .contains(EMPTY_STACK)
        );
    }

    #[test]
    fn inclusive_totals_and_top_moved() {
        let before = parse_folded("a;b 10\na;c 5\n");
        let after = parse_folded("a;b 30\na;c 5\nd 1\n");
        let inc = inclusive(&after);
        assert_eq!(inc["a"], 35);
        let top = top_moved(&before, &after, 10);
        assert_eq!(top[0].stack, "a");
        assert_eq!(top[0].delta(), 20);
        assert_eq!(top[1].stack, "a;b");
        assert_eq!(top.last().map(|m| m.stack.as_str()), Some("d"));
    }
}
