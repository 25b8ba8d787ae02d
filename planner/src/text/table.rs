//! The two prettytable layouts SkyPilot prints: the optimizer's framed table
//! and `log_utils.create_table`'s borderless one.

use super::ansi::display_width;

/// A cell of several lines, in [`framed_table`]'s measured widths.
const SEVERAL_LINES: usize = usize::MAX;

/// Appends `n` copies of the ASCII `c`: a slice at a time (pushing them
/// one `char` at a time checks and encodes each one).
fn repeat(out: &mut String, c: char, n: usize) {
    const SPACES: &str = "                                                                ";
    const DASHES: &str = "----------------------------------------------------------------";
    let run = match c {
        ' ' => SPACES,
        '-' => DASHES,
        _ => {
            out.extend(std::iter::repeat_n(c, n));
            return;
        }
    };
    let mut left = n;
    while left > 0 {
        let k = left.min(run.len());
        out.push_str(&run[..k]);
        left -= k;
    }
}

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
    let rule = |out: &mut String| repeat(out, '-', line_len);
    // A cell of several lines (the egress plan's task reprs) makes its row
    // that many lines high; the other cells are blank below their first.
    let lines = |out: &mut String, row: &Vec<String>, measured: &[usize]| {
        if !measured.contains(&SEVERAL_LINES) {
            out.push_str("\n ");
            for (i, w) in widths.iter().enumerate() {
                let (cell, width) = row.get(i).map_or(("", 0), |c| (c.as_str(), measured[i]));
                out.push_str(cell);
                repeat(out, ' ', w.saturating_sub(width));
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
/// every line of a row to the same height). Missing cells of a short row
/// are empty.
pub fn borderless_table(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    if columns == 0 {
        return "\n".repeat(rows.len().saturating_sub(1));
    }
    let mut cells = BorderlessCells::with_columns(columns, rows.len());
    for row in rows {
        for i in 0..columns {
            cells.cell(row.get(i).map_or("", String::as_str));
        }
    }
    cells.finish()
}

/// A [`borderless_table`] written cell by cell into one buffer, row after
/// row: a caller may write a cell's text straight into [`Self::text`]
/// (numbers formatted in place) and close it with [`Self::end`]. The GPU
/// listing's `--all` is ~1,000 rows of nine cells, and a `String` per cell
/// was most of its cost.
pub struct BorderlessCells {
    /// Every cell's text, one after the other (the header's first).
    text: String,
    /// Where each cell ends in `text`, row by row, and its display width.
    ends: Vec<(usize, usize)>,
    /// Each column's widest cell.
    widths: Vec<usize>,
    /// Whether a cell holds a line break (then laid out line by line, each
    /// line of a row padded to the row's height).
    multi_line: bool,
}

impl BorderlessCells {
    /// A table whose first row is `header`, with room for `rows` more.
    pub fn new(header: &[&str], rows: usize) -> Self {
        let mut cells = Self::with_columns(header.len(), rows + 1);
        for h in header {
            cells.cell(h);
        }
        cells
    }

    /// An empty table of `columns` columns (at least one), with room for
    /// `rows` rows.
    fn with_columns(columns: usize, rows: usize) -> Self {
        BorderlessCells {
            text: String::with_capacity(rows * columns * 12),
            ends: Vec::with_capacity(rows * columns),
            widths: vec![0; columns.max(1)],
            multi_line: false,
        }
    }

    /// The buffer the open cell's text is pushed onto.
    pub fn text(&mut self) -> &mut String {
        &mut self.text
    }

    /// Ends the cell whose text was pushed onto [`Self::text`].
    pub fn end(&mut self) {
        let start = self.ends.last().map_or(0, |&(end, _)| end);
        let cell = &self.text[start..];
        let width = display_width(cell);
        self.multi_line |= cell.bytes().any(|b| b == b'\n' || b == b'\r');
        let column = self.ends.len() % self.widths.len();
        self.widths[column] = self.widths[column].max(width);
        self.ends.push((self.text.len(), width));
    }

    /// One whole cell.
    pub fn cell(&mut self, s: &str) {
        self.text.push_str(s);
        self.end();
    }

    fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1].0 };
        &self.text[start..self.ends[i].0]
    }

    /// The table as [`borderless_table`] lays it out.
    pub fn finish(self) -> String {
        let columns = self.widths.len();
        if self.multi_line {
            // A cell of several lines (a hostile catalog's quoted field).
            let rows: Vec<Vec<String>> = (0..self.ends.len())
                .step_by(columns)
                .map(|r| {
                    (r..(r + columns).min(self.ends.len()))
                        .map(|i| self.get(i).to_string())
                        .collect()
                })
                .collect();
            return multi_line_table(&rows);
        }
        let line_len: usize = self.widths.iter().map(|w| w + 2).sum();
        let rows = self.ends.len().div_ceil(columns);
        let mut out = String::with_capacity(rows * (line_len + 1));
        const SPACES: &str = "                                                                ";
        let mut start = 0;
        for (r, row) in self.ends.chunks(columns).enumerate() {
            if r > 0 {
                out.push('\n');
            }
            for (&(end, width), column) in row.iter().zip(&self.widths) {
                out.push_str(&self.text[start..end]);
                start = end;
                let mut pad = column - width + 2;
                while pad > 0 {
                    let n = pad.min(SPACES.len());
                    out.push_str(&SPACES[..n]);
                    pad -= n;
                }
            }
        }
        out
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
            assert_eq!(borderless_table(rows), multi_line_table(rows), "{rows:?}");
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
