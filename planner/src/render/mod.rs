//! Rendering in one place: every table and message `sky` prints, from plain
//! data. [`launch`] is a whole `sky launch` (header, notices, tables, errors,
//! timings), [`optimizer`] the optimizer's notices and plan tables, [`json`]
//! the `-o json` plan document, [`check`] the `sky check` report, [`gpus`]
//! `sky gpus list`, [`timings`]
//! `--timings`; [`table`] holds the prettytable layouts they share. Text
//! carries SkyPilot's ANSI colours; [`strip_ansi`] removes them where colour
//! is off.

pub mod check;
pub mod gpus;
pub mod json;
pub mod launch;
pub mod optimizer;
pub mod pipeline;
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
    /// `Fore.LIGHTMAGENTA_EX`.
    pub const LIGHTMAGENTA: &str = "\x1b[95m";
    /// `Style.NORMAL`.
    pub const NORMAL: &str = "\x1b[22m";
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

/// A file's age in words, rounded down to its largest unit: `just now`,
/// `5 minutes ago`, `1 hour ago`, `3 days ago`.
pub fn ago(age: std::time::Duration) -> String {
    let secs = age.as_secs();
    let (n, unit) = match secs {
        0..60 => return "just now".to_string(),
        60..3600 => (secs / 60, "minute"),
        3600..86_400 => (secs / 3600, "hour"),
        _ => (secs / 86_400, "day"),
    };
    format!("{n} {unit}{} ago", if n == 1 { "" } else { "s" })
}

/// What `sky catalog refresh` prints: one line per file.
pub fn catalog_refresh(results: &[(String, crate::launch::Refreshed)]) -> Vec<String> {
    use crate::launch::Refreshed;
    results
        .iter()
        .map(|(file, r)| match r {
            Refreshed::Downloaded { bytes, url } => format!(
                "{file}: downloaded ({:.1} MB) from {url}",
                *bytes as f64 / 1e6
            ),
            Refreshed::NotModified => format!("{file}: not modified (the copy on disk is current)"),
            Refreshed::Edited => format!(
                "{file}: kept: edited by hand (no md5 record, or one that no longer matches); delete it to get SkyPilot's"
            ),
            Refreshed::NotHosted => format!(
                "{file}: not hosted: SkyPilot builds this catalog locally"
            ),
            Refreshed::Failed(e) => format!("{file}: failed: {e}"),
        })
        .collect()
}

#[cfg(test)]
mod ago_tests {
    use super::ago;
    use std::time::Duration;

    #[test]
    fn ages_in_words() {
        assert_eq!(ago(Duration::from_secs(5)), "just now");
        assert_eq!(ago(Duration::from_secs(60)), "1 minute ago");
        assert_eq!(ago(Duration::from_secs(7 * 3600 + 5)), "7 hours ago");
        assert_eq!(ago(Duration::from_secs(86_400)), "1 day ago");
        assert_eq!(ago(Duration::from_secs(3 * 86_400 + 1)), "3 days ago");
    }
}
