//! Rendering in one place: every table and message `sky` prints, from plain
//! data. [`launch`] is a whole `sky launch` (header, notices, tables, errors,
//! timings), [`optimizer`] the optimizer's notices and plan tables, [`json`]
//! the `-o json` plan document, [`check`] the `sky check` report, [`timings`]
//! `--timings`; [`table`] holds the prettytable layouts they share. Text
//! carries SkyPilot's ANSI colours; [`strip_ansi`] removes them where colour
//! is off.

pub mod check;
pub mod json;
pub mod launch;
pub mod optimizer;
pub mod table;
pub mod timings;

pub use table::{borderless_table, framed_table};

use crate::cloud::CloudId;

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
        // Python's `str(int(x))`: exact at any size (an `as i64` cast would
        // saturate at 9223372036854775807), and no sign on zero.
        Some(0.0) => "0".into(),
        Some(v) if v.fract() == 0.0 => format!("{v:.0}"),
        Some(v) => format_fixed(v, 1),
    }
}

/// A list of clouds as SkyPilot prints a Python list of cloud objects:
/// `[AWS, GCP]`.
pub fn cloud_list(clouds: &[CloudId]) -> String {
    format!(
        "[{}]",
        clouds
            .iter()
            .map(|c| c.repr())
            .collect::<Vec<_>>()
            .join(", ")
    )
}
