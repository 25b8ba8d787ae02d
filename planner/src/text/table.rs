//! The two prettytable layouts SkyPilot prints: the optimizer's framed table
//! and `log_utils.create_table`'s borderless one.

use super::ansi::display_width;

/// A cell of several lines, in [`framed_table`]'s measured widths.
const SEVERAL_LINES: usize = usize::MAX;

/// SkyPilot's optimizer table (prettytable, `hrules=FRAME`, `vrules=NONE`,
/// left aligned, padding 0/2): rule, header, rule, rows, rule. `rows[0]` is the header.
pub fn framed_table(rows: &[Vec<String>]) -> String {
    let ncols = rows.iter().map(Vec::len).max().unwrap_or(0);
    // Each one-line cell's width, measured once, row after row
    // (`SEVERAL_LINES` for a cell of several lines, measured line by line).
    let measured: Vec<usize> = rows
        .iter()
        .flat_map(|r| {
            r.iter().map(|c| {
                if c.contains('\n') {
                    SEVERAL_LINES
                } else {
                    display_width(c)
                }
            })
        })
        .collect();
    let mut widths = vec![0usize; ncols];
    let mut at = 0;
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            let w = match measured[at + i] {
                SEVERAL_LINES => cell.split('\n').map(display_width).max().unwrap_or(0),
                w => w,
            };
            widths[i] = widths[i].max(w);
        }
        at += row.len();
    }
    let line_len = 1 + widths.iter().map(|w| w + 3).sum::<usize>();
    // Written straight into one string: every line is `line_len` columns
    // (a few more bytes where a cell holds colour codes or wide characters).
    let mut out = String::with_capacity((rows.len() + 3) * (line_len + 16));
    let rule = |out: &mut String| out.extend(std::iter::repeat_n('-', line_len));
    // A cell of several lines (the egress plan's task reprs) makes its row
    // that many lines high; the other cells are blank below their first.
    let lines = |out: &mut String, row: &Vec<String>, measured: &[usize]| {
        if !measured.contains(&SEVERAL_LINES) {
            out.push_str("\n ");
            for (i, w) in widths.iter().enumerate() {
                let (cell, width) = row.get(i).map_or(("", 0), |c| (c.as_str(), measured[i]));
                out.push_str(cell);
                out.extend(std::iter::repeat_n(' ', w.saturating_sub(width)));
                out.push_str("   ");
            }
            return;
        }
        let height = row.iter().map(|c| c.split('\n').count()).max().unwrap_or(1);
        for k in 0..height {
            out.push_str("\n ");
            for (i, w) in widths.iter().enumerate() {
                let cell = row.get(i).and_then(|c| c.split('\n').nth(k)).unwrap_or("");
                out.push_str(cell);
                out.extend(std::iter::repeat_n(
                    ' ',
                    w.saturating_sub(display_width(cell)),
                ));
                out.push_str("   ");
            }
        }
    };
    rule(&mut out);
    let mut at = 0;
    if let Some(h) = rows.first() {
        lines(&mut out, h, &measured[..h.len()]);
        at = h.len();
    }
    out.push('\n');
    rule(&mut out);
    for r in rows.iter().skip(1) {
        lines(&mut out, r, &measured[at..at + r.len()]);
        at += r.len();
    }
    out.push('\n');
    rule(&mut out);
    out
}

/// `log_utils.create_table` default: no border, left aligned, padding 0/2.
/// `rows[0]` is the header; a cell may span several lines (prettytable pads
/// every line of a row to the same height).
pub fn borderless_table(rows: &[Vec<String>]) -> String {
    // Most cells are one line: their width is measured once, and a table
    // without a multi-line cell is written straight into one string (the
    // GPU listing's `--all` is ~1,000 rows of nine cells).
    let multi_line = |c: &String| c.contains(['\n', '\r']);
    if rows.iter().flatten().any(multi_line) {
        multi_line_table(rows)
    } else {
        single_line_table(rows)
    }
}

/// [`borderless_table`] of rows with a multi-line cell: each line of a row
/// is padded to the row's height.
fn multi_line_table(rows: &[Vec<String>]) -> String {
    let ncols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..ncols)
        .map(|i| {
            rows.iter()
                .flat_map(|r| {
                    r.get(i)
                        .map(|c| c.lines().map(display_width).max().unwrap_or(0))
                })
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = Vec::new();
    for row in rows {
        let height = row
            .iter()
            .map(|c| c.lines().count().max(1))
            .max()
            .unwrap_or(1);
        for line_idx in 0..height {
            let mut s = String::new();
            for (i, w) in widths.iter().enumerate() {
                let cell = row
                    .get(i)
                    .and_then(|c| c.lines().nth(line_idx))
                    .unwrap_or("");
                s.push_str(cell);
                s.push_str(&" ".repeat(w - display_width(cell) + 2));
            }
            out.push(s);
        }
    }
    out.join("\n")
}

/// [`borderless_table`] of rows whose every cell is one line (an empty cell
/// is an empty line).
fn single_line_table(rows: &[Vec<String>]) -> String {
    let ncols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let cell_widths: Vec<Vec<usize>> = rows
        .iter()
        .map(|r| r.iter().map(|c| display_width(c)).collect())
        .collect();
    let mut widths = vec![0usize; ncols];
    for row in &cell_widths {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(*c);
        }
    }
    let line_len: usize = widths.iter().map(|w| w + 2).sum();
    let mut out = String::with_capacity(rows.len() * (line_len + 1));
    for (n, (row, cell_width)) in rows.iter().zip(&cell_widths).enumerate() {
        if n > 0 {
            out.push('\n');
        }
        for (i, w) in widths.iter().enumerate() {
            let (cell, width) = match row.get(i) {
                Some(c) => (c.as_str(), cell_width[i]),
                None => ("", 0),
            };
            out.push_str(cell);
            out.extend(std::iter::repeat_n(' ', w - width + 2));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{ansi, strip_ansi};

    #[test]
    fn one_line_tables_print_as_multi_line_ones_do() {
        let s = |v: &[&str]| v.iter().map(|c| c.to_string()).collect::<Vec<_>>();
        let tables = [
            vec![
                s(&["GPU", "QTY"]),
                s(&["H100", "8"]),
                s(&["A10G", "1, 2, 4"]),
            ],
            vec![
                s(&["A", "B", "C"]),
                s(&["x"]),
                s(&["", "", "wide \u{4e2d}"]),
            ],
            vec![s(&["\x1b[1mH\x1b[0m", "é"]), s(&["longer", ""])],
            vec![s(&["only header"])],
            vec![],
        ];
        for rows in &tables {
            assert_eq!(single_line_table(rows), multi_line_table(rows), "{rows:?}");
            assert_eq!(borderless_table(rows), multi_line_table(rows));
        }
        assert_eq!(
            borderless_table(&tables[0]),
            "GPU   QTY      \nH100  8        \nA10G  1, 2, 4  "
        );
        let lines = vec![s(&["A", "B"]), s(&["two\nlines", "x"])];
        assert_eq!(
            borderless_table(&lines),
            "A      B  \ntwo    x  \nlines     "
        );
    }

    #[test]
    fn framed_table_pads_lines_of_tall_cells_and_short_rows() {
        let rows: Vec<Vec<String>> = vec![
            vec!["A".into(), "B".into()],
            vec!["x\nyy".into(), "z".into()],
            vec!["w".into()],
        ];
        assert_eq!(
            framed_table(&rows),
            [
                "----------",
                " A    B   ",
                "----------",
                " x    z   ",
                " yy       ",
                " w        ",
                "----------",
            ]
            .join("\n")
        );
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
