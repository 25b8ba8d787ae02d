//! Small formats SkyPilot's output uses beyond Python's own
//! ([`pytext`](crate::pytext)): the optimizer table's numbers, and a file's
//! age in words.

use crate::pytext::format_fixed;

/// The table's vCPUs/Mem cell: `-`, an integer, or one decimal
/// (`print_optimized_plan`'s `format_number` in `sky/optimizer.py`).
pub fn format_number(x: Option<f64>) -> String {
    match x {
        None => "-".into(),
        // Python's `str(int(x))`: exact at any size (an `as i64` cast would
        // saturate at 9223372036854775807), and no sign on zero.
        Some(0.0) => "0".into(),
        // Below 2^53 an integral float is its `i64` exactly, and integers
        // format for a fraction of what a float's exact expansion costs.
        Some(v) if v.fract() == 0.0 && v.abs() < 9.0e15 => {
            itoa::Buffer::new().format(v as i64).to_string()
        }
        Some(v) if v.fract() == 0.0 => format!("{v:.0}"),
        Some(v) => format_fixed(v, 1),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn ages_in_words() {
        assert_eq!(ago(Duration::from_secs(5)), "just now");
        assert_eq!(ago(Duration::from_secs(60)), "1 minute ago");
        assert_eq!(ago(Duration::from_secs(7 * 3600 + 5)), "7 hours ago");
        assert_eq!(ago(Duration::from_secs(86_400)), "1 day ago");
        assert_eq!(ago(Duration::from_secs(3 * 86_400 + 1)), "3 days ago");
    }

    #[test]
    fn table_numbers_are_integers_or_one_decimal() {
        assert_eq!(format_number(None), "-");
        assert_eq!(format_number(Some(0.0)), "0");
        assert_eq!(format_number(Some(-0.0)), "0");
        assert_eq!(format_number(Some(192.0)), "192");
        assert_eq!(format_number(Some(0.5)), "0.5");
        assert_eq!(format_number(Some(1e20)), "100000000000000000000");
        assert_eq!(format_number(Some(-8.0)), "-8");
        assert_eq!(format_number(Some(8.9e15)), "8900000000000000");
    }
}
