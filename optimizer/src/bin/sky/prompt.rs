//! Questions asked before going on, as click's `confirm` asks them
//! (`click/termui.py::confirm`): the question on stdout, one line read from
//! stdin; `y`/`yes` and `n`/`no` (any case) answer it, an empty line takes
//! the default, anything else says `Error: invalid input` and asks again,
//! and no line at all (end of input) is no answer.
//!
//! The answer is read on a blocking thread, so the caller's `select!` on
//! SIGINT/SIGTERM still runs while the question waits: Ctrl-C at a question
//! ends the run at once (130), like anywhere else, instead of waiting for
//! Enter.

use std::io::{BufRead, IsTerminal, Write};

use crate::output::Printer;

/// How a question was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// `y`/`yes`, or an empty line with a yes default.
    Yes,
    /// `n`/`no`, or an empty line with a no default.
    No,
    /// End of input (no terminal, nothing piped): click's `Abort`.
    Unanswered,
}

impl Answer {
    /// Whether to go ahead.
    pub fn yes(self) -> bool {
        self == Answer::Yes
    }
}

/// A yes/no question.
#[derive(Debug, Clone, Copy)]
pub struct Question<'a> {
    /// The text, with its `[Y/n]: ` suffix.
    pub text: &'a str,
    /// What an empty line answers.
    pub default: bool,
    /// After an answer read from a pipe, end the line (a terminal echoes
    /// the user's Enter; a pipe does not). SkyPilot's `_check_yaml`
    /// question leaves it open, as click does.
    pub newline_when_piped: bool,
}

/// What click says to an answer that is neither yes nor no.
const INVALID_INPUT: &str = "Error: invalid input";

/// Asks `question` until it is answered (see the module).
pub async fn confirm(printer: &Printer, question: Question<'_>) -> Answer {
    loop {
        {
            let mut stdout = std::io::stdout().lock();
            let _ = write!(stdout, "{}", printer.paint(printer.color, question.text));
            let _ = stdout.flush();
        }
        let pending = Pending::new();
        let line = read_line().await;
        pending.answered();
        if question.newline_when_piped && !std::io::stdin().is_terminal() {
            println!();
        }
        let Some(line) = line else {
            return Answer::Unanswered;
        };
        match line.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => return Answer::Yes,
            "n" | "no" => return Answer::No,
            "" if question.default => return Answer::Yes,
            "" => return Answer::No,
            _ => printer.stdout(INVALID_INPUT),
        }
    }
}

/// One line of stdin, read on a blocking thread; `None` at end of input.
async fn read_line() -> Option<String> {
    let read = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        match std::io::stdin().lock().read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line),
        }
    });
    read.await.ok().flatten()
}

/// A question waiting for its answer. Dropped unanswered (a signal ended
/// the run), it ends the question's line on the terminal, so that what
/// follows (the shell's prompt) starts on a line of its own.
struct Pending {
    answered: bool,
}

impl Pending {
    fn new() -> Self {
        Pending { answered: false }
    }

    fn answered(mut self) {
        self.answered = true;
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if !self.answered && std::io::stdout().is_terminal() {
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout);
            let _ = stdout.flush();
        }
    }
}
