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
