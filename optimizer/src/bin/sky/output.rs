//! Printing: rendered lines to their streams (coloured only where they
//! should be), the conversion's notices, and the error a run ends with.
//! What is printed is made elsewhere (`planner::render`, the library's
//! messages); nothing here decides anything.

use std::io::{IsTerminal, Write};

use optimizer::args::{ArgsError, Notice, Raised};
use planner::render;
use planner::render::launch::{Line, Stream};
use planner::text::strip_ansi;

use crate::exit::Ending;

/// Whether stdout gets colours: a terminal, and `NO_COLOR` unset or empty.
pub fn stdout_color() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Prints rendered lines, each stream coloured only where it should be.
pub struct Printer {
    /// Colours on stdout (a terminal, `NO_COLOR` unset).
    pub color: bool,
}

impl Printer {
    /// Prints `lines` in order, each to its stream; stdout is flushed before
    /// each stderr line so that the two interleave as written.
    pub fn print(&self, lines: &[Line]) {
        let mut stdout = std::io::stdout().lock();
        // The stdout lines between two stderr ones go out in one write
        // (stdout is line-buffered: one system call per line otherwise).
        let mut pending = String::new();
        // A closed pipe (`sky ... | head`) is not an error worth reporting.
        let mut put = |pending: &mut String| {
            let _ = stdout.write_all(pending.as_bytes());
            let _ = stdout.flush();
            pending.clear();
        };
        for line in lines {
            match line.stream {
                Stream::Stdout => {
                    pending.push_str(&self.paint(self.color, &line.text));
                    pending.push('\n');
                }
                Stream::Stderr => {
                    put(&mut pending);
                    let color = self.color && std::io::stderr().is_terminal();
                    eprintln!("{}", self.paint(color, &line.text));
                }
            }
        }
        put(&mut pending);
    }

    /// Prints one line of text on stdout.
    pub fn stdout(&self, text: &str) {
        self.print(&[Line {
            stream: Stream::Stdout,
            text: text.to_string(),
        }]);
    }

    /// `text` as it is with `color`, else without its ANSI codes.
    pub fn paint(&self, color: bool, text: &str) -> String {
        if color {
            text.to_string()
        } else {
            strip_ansi(text)
        }
    }
}

/// Prints the conversion's notices, in order.
pub fn notices(printer: &Printer, notices: &[Notice]) {
    for notice in notices {
        match notice {
            // Said by `sky catalog refresh` only, whose output is never coloured.
            Notice::OptionWarning(w) => {
                Printer { color: false }.print(&[render::launch::warning(w)])
            }
            Notice::DeprecatedLocationFlags => {
                printer.print(&[render::launch::deprecated_location_flags()]);
            }
            Notice::CheckLocationIgnored(text) => printer.stdout(text),
        }
    }
}

/// Prints the error a run ends with, if any, on stderr (after what stdout
/// holds so far).
pub fn ending(ending: &Ending) {
    let message = match ending {
        Ending::Exit(_) | Ending::Signal(_) => return,
        Ending::Args(e) => args_error(e),
        Ending::Error(e) => format!("sky: error: {e:#}"),
    };
    error_line(&message);
}

/// Prints one error line on stderr, after what stdout holds so far.
pub fn error_line(message: &str) {
    let _ = std::io::stdout().flush();
    eprintln!("{message}");
}

/// A flag error as SkyPilot's CLI raises it.
fn args_error(e: &ArgsError) -> String {
    match e.raised() {
        Raised::Usage => format!("Error: {e}"),
        Raised::CommandUsage => match e {
            // click's parser, under `sky launch`'s usage lines.
            ArgsError::NumNodesNotInt(_) => format!(
                "Usage: sky launch [OPTIONS] [ENTRYPOINT]...\nTry 'sky launch -h' for help.\n\nError: {e}"
            ),
            _ => render::gpus::usage_error(&e.to_string()),
        },
        Raised::Value => format!("ValueError: {e}"),
        Raised::Bare => e.to_string(),
        Raised::Ours => format!("sky: error: {}", chain(e)),
    }
}

/// An error and its causes, `: `-separated (anyhow's `{:#}`).
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
