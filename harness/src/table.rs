//! Fixed-width text tables for the terminal: the harness's mode comparison
//! and the bench gate's verdicts print through the same layout (columns
//! padded to their widest cell, two spaces apart, a dashed rule under the
//! header).

/// How a column's cells are padded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Text: padded on the right.
    Left,
    /// Numbers: padded on the left.
    Right,
}

/// The table as text, one line per row, each ending in a newline. Widths
/// count characters, not bytes (`µs`, `Δ %`); `align` gives each column's
/// alignment by index.
pub fn text_table<R: AsRef<[String]>>(
    headers: &[&str],
    rows: &[R],
    align: impl Fn(usize) -> Align,
) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, c) in widths.iter_mut().zip(row.as_ref()) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| -> String {
        cells
            .zip(&widths)
            .enumerate()
            .map(|(i, (c, &w))| match align(i) {
                Align::Left => format!("{c:<w$}"),
                Align::Right => format!("{c:>w$}"),
            })
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let mut out = line(&mut headers.iter().copied());
    out.push('\n');
    out.push_str(&"-".repeat(widths.iter().sum::<usize>() + 2 * (widths.len().max(1) - 1)));
    out.push('\n');
    for row in rows {
        out.push_str(&line(&mut row.as_ref().iter().map(String::as_str)));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_line_up_by_characters() {
        let rows = [
            vec!["a".to_string(), "1.5 µs".to_string()],
            vec!["long name".to_string(), "2".to_string()],
        ];
        let t = text_table(&["id", "Δ"], &rows, |i| {
            if i == 0 { Align::Left } else { Align::Right }
        });
        assert_eq!(
            t,
            "id              Δ\n-----------------\na          1.5 µs\nlong name       2\n"
        );
    }
}
