//! Questions asked on the terminal before going on.

use std::io::{BufRead, IsTerminal, Write};

use crate::output::Printer;

/// Asks `question` on stdout and reads one line from stdin: `true` to go
/// ahead. An empty answer is `default`; `y`/`yes` (any case) is yes;
/// anything else, or no line at all, is no.
pub fn confirm(printer: &Printer, question: &str, default: bool) -> bool {
    let mut stdout = std::io::stdout();
    let _ = write!(stdout, "{}", printer.paint(printer.color, question));
    let _ = stdout.flush();
    let mut answer = String::new();
    let read = std::io::stdin().lock().read_line(&mut answer).unwrap_or(0);
    if !std::io::stdin().is_terminal() {
        // A terminal echoes the user's Enter; piped input does not.
        println!();
    }
    let answer = answer.trim().to_ascii_lowercase();
    read > 0 && ((answer.is_empty() && default) || answer == "y" || answer == "yes")
}
