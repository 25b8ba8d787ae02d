//! Rendering: prettytable-compatible tables, Python number formatting, ANSI handling.

use crate::pytext::format_fixed;
use unicode_width::UnicodeWidthStr;

/// colorama's ANSI codes, as SkyPilot emits them.
pub mod ansi {
    /// `Style.BRIGHT`.
    pub const BRIGHT: &str = "\x1b[1m";
    /// `Style.DIM`.
    pub const DIM: &str = "\x1b[2m";
    /// `Fore.GREEN`.
    pub const GREEN: &str = "\x1b[32m";
    /// `Fore.YELLOW`.
    pub const YELLOW: &str = "\x1b[33m";
    /// `Fore.CYAN`.
    pub const CYAN: &str = "\x1b[36m";
    /// `Fore.LIGHTBLACK_EX`.
    pub const LIGHTBLACK: &str = "\x1b[90m";
    /// `Style.RESET_ALL`.
    pub const RESET: &str = "\x1b[0m";
}

/// Removes ANSI escape sequences (CSI `ESC [ ... letter`).
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Display width with ANSI stripped (East-Asian wide characters count 2).
pub fn display_width(s: &str) -> usize {
    if s.contains('\x1b') {
        strip_ansi(s).width()
    } else {
        s.width()
    }
}

/// The table's vCPUs/Mem cell: `-`, an integer, or one decimal.
pub fn format_number(x: Option<f64>) -> String {
    match x {
        None => "-".into(),
        Some(v) if v.fract() == 0.0 => format!("{}", v as i64),
        Some(v) => format_fixed(v, 1),
    }
}

fn column_widths(rows: &[Vec<String>]) -> Vec<usize> {
    let n = rows.iter().map(Vec::len).max().unwrap_or(0);
    (0..n)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| display_width(c))
                .max()
                .unwrap_or(0)
        })
        .collect()
}

fn pad(cell: &str, width: usize) -> String {
    let w = display_width(cell);
    let mut s = String::with_capacity(cell.len() + width.saturating_sub(w));
    s.push_str(cell);
    s.extend(std::iter::repeat_n(' ', width.saturating_sub(w)));
    s
}

/// SkyPilot's optimizer table (prettytable, `hrules=FRAME`, `vrules=NONE`,
/// left aligned, padding 0/2): rule, header, rule, rows, rule. `rows[0]` is the header.
pub fn framed_table(rows: &[Vec<String>]) -> String {
    let widths = column_widths(rows);
    let rule = "-".repeat(1 + widths.iter().map(|w| w + 3).sum::<usize>());
    let line = |row: &Vec<String>| {
        let mut s = String::from(" ");
        for (i, w) in widths.iter().enumerate() {
            s.push_str(&pad(row.get(i).map_or("", String::as_str), *w));
            s.push_str("   ");
        }
        s
    };
    let mut out = Vec::with_capacity(rows.len() + 3);
    out.push(rule.clone());
    if let Some(h) = rows.first() {
        out.push(line(h));
    }
    out.push(rule.clone());
    for r in rows.iter().skip(1) {
        out.push(line(r));
    }
    out.push(rule);
    out.join("\n")
}

/// `log_utils.create_table` default: no border, left aligned, padding 0/2. `rows[0]` is the header.
pub fn borderless_table(rows: &[Vec<String>]) -> String {
    let widths = column_widths(rows);
    rows.iter()
        .map(|row| {
            let mut s = String::new();
            for (i, w) in widths.iter().enumerate() {
                s.push_str(&pad(row.get(i).map_or("", String::as_str), *w));
                s.push_str("  ");
            }
            s
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_rounding_vectors() {
        for (x, d, want) in [
            (0.125, 2, "0.12"),
            (0.375, 2, "0.38"),
            (2.675, 2, "2.67"),
            (1.005, 2, "1.00"),
            (17.15, 1, "17.1"),
            (0.384, 2, "0.38"),
            (3.06, 2, "3.06"),
        ] {
            assert_eq!(format_fixed(x, d), want, "{x}");
        }
    }

    #[test]
    fn framed_table_matches_prettytable_shape() {
        let rows = vec![
            vec![
                "INFRA".to_string(),
                "COST ($)".to_string(),
                "CHOSEN".to_string(),
            ],
            vec![
                "AWS (us-east-1)".to_string(),
                "3.06".to_string(),
                format!("{}   \u{2714}{}", ansi::GREEN, ansi::RESET),
            ],
        ];
        let t = framed_table(&rows);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "-".repeat(1 + 18 + 11 + 9));
        assert_eq!(lines[1], " INFRA             COST ($)   CHOSEN   ");
        assert_eq!(
            strip_ansi(lines[3]),
            " AWS (us-east-1)   3.06          ✔     "
        );
    }
}
