//! colorama's ANSI codes as SkyPilot emits them, and the text they colour
//! measured and stripped.

use unicode_width::UnicodeWidthStr;

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

/// Removes ANSI escape sequences (CSI `ESC [ ... letter`).
pub fn strip_ansi(s: &str) -> String {
    // Scanned by bytes: the escape, `[` and the final letter are ASCII, and
    // no byte of a multi-byte UTF-8 character is ASCII, so the text between
    // sequences is copied in whole slices.
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut copied = 0;
    let mut at = 0;
    while let Some(found) = memchr::memchr(0x1b, &bytes[at..]) {
        let esc = at + found;
        if bytes.get(esc + 1) != Some(&b'[') {
            at = esc + 1;
            continue;
        }
        out.push_str(&s[copied..esc]);
        let end = bytes[esc + 2..]
            .iter()
            .position(u8::is_ascii_alphabetic)
            .map_or(bytes.len(), |i| esc + 2 + i + 1);
        copied = end;
        at = end;
    }
    out.push_str(&s[copied..]);
    out
}

/// Display width with ANSI stripped (East-Asian wide characters count 2).
pub fn display_width(s: &str) -> usize {
    // Printable ASCII is one column a byte.
    if s.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        s.len()
    } else if s.contains('\x1b') {
        strip_ansi(s).width()
    } else {
        s.width()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The character-by-character reading the byte scan replaces.
    fn strip_by_chars(s: &str) -> String {
        let mut out = String::new();
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

    #[test]
    fn escapes_are_stripped_as_a_character_reading_strips_them() {
        for s in [
            "",
            "plain",
            "\x1b[1m\x1b[36mCloud GPUs\x1b[0m\n",
            "a\x1b\x1b[32mb",
            "a\x1bb",
            "\x1b",
            "\x1b[",
            "cut \x1b[12;3",
            "wide \u{4e2d}\x1b[1m\u{6587}\x1b[0m é\x1b[é1mx",
        ] {
            assert_eq!(strip_ansi(s), strip_by_chars(s), "{s:?}");
        }
    }

    #[test]
    fn widths_count_columns_not_bytes() {
        assert_eq!(display_width("H100"), 4);
        assert_eq!(display_width("\x1b[1mH100\x1b[0m"), 4);
        assert_eq!(display_width("\u{4e2d}\u{6587}"), 4);
        assert_eq!(display_width("é"), 1);
        assert_eq!(display_width(""), 0);
    }
}
