//! Folded stacks (`frame;frame;frame count`, Brendan Gregg's format): the
//! in-memory form, the `.folded` files, and the stacks whose inclusive time
//! moved most between two profiles.

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::{HarnessError, Result};

/// Folded stacks: `frame;frame;frame` → count (µs or samples). Sorted, so
/// files and SVGs built from it are deterministic.
pub type Folded = BTreeMap<String, u64>;

/// A frame name made safe for the folded format: `;` separates frames (the
/// count follows the last space, so spaces are fine), and Rust names such as
/// `<[u8; 32] as Trait>::f` contain one.
pub fn frame(name: &str) -> String {
    name.replace(';', ":")
}

/// `stack count` lines, sorted, zero counts left out.
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

/// Parses a `.folded` file (`stack count` per line; blank lines ignored,
/// repeated stacks summed).
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

/// Writes a `.folded` file.
pub fn write_folded(folded: &Folded, path: &Path) -> Result<()> {
    std::fs::write(path, folded_text(folded)).map_err(|e| HarnessError::io(path, e))
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

    #[test]
    fn files_round_trip_and_frames_stay_frames() {
        let f = parse_folded("x;y 3\n\nx;y 2\nbad line\nz 0\n");
        assert_eq!(f["x;y"], 5);
        assert_eq!(folded_text(&f), "x;y 5\n", "zero counts are dropped");
        assert_eq!(parse_folded(&folded_text(&f)), parse_folded("x;y 5"));
        assert_eq!(frame("<[u8; 32] as T>::f"), "<[u8: 32] as T>::f");
    }
}
