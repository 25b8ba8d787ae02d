//! How a `sky` run ends, and the one rule that turns that into its exit
//! code (the README's "Exit codes" table; `fixtures/exit-codes.toml` tests
//! it through the binary):
//!
//! | code | when | printed as |
//! |---|---|---|
//! | 0 | done: the plan, the report or the listing printed | |
//! | 1 | the request: SkyPilot refuses the task or a value (its `ValueError`s and exceptions), nothing satisfies it, or a question was answered no or not at all | `ValueError: …`, `sky.exceptions.…: …`, SkyPilot's bare messages, `Aborted!` |
//! | 2 | the invocation: the command line is malformed (unknown option, a value of the wrong type or choice, a missing file or folder a flag names, flags that exclude each other), or this tool's own options and configuration are unusable | `Error: …` (click's usage errors), clap's `error: …`, `sky: error: …` |
//! | 3 | plan printed but some enabled clouds were left out (partial table) — or, for `sky catalog refresh`, some files could not be refreshed | |
//! | 4 | no cloud enabled | |
//! | 5 | plan printed, but some of its prices are the bundled examples: a catalog could not be downloaded (wins over 3) | the note under the table; `example_prices` in `-o json` |
//! | 128 + n | stopped by signal n: 130 interrupted (SIGINT, also at a question), 143 terminated (SIGTERM) | nothing |
//!
//! So the code follows what the error is, whichever check finds it: a flag
//! error gets the code of the error SkyPilot's CLI raises for it
//! ([`Raised`]); clap's own usage errors exit with 2 where they are printed
//! ([`crate::cli`]).

use optimizer::args::{ArgsError, Raised};
use planner::launch::Exit;

/// How a run ended.
#[derive(Debug)]
pub enum Ending {
    /// The subcommand ran to its end, with this status.
    Exit(Exit),
    /// A signal stopped it (the signal's number).
    Signal(u8),
    /// The flags could not be used; nothing ran.
    Args(ArgsError),
    /// Anything else that stopped it (configuration, I/O): 2.
    Error(anyhow::Error),
}

impl Ending {
    /// The process exit code.
    pub fn code(&self) -> u8 {
        match self {
            Ending::Exit(exit) => exit.code(),
            Ending::Signal(number) => 128 + number,
            Ending::Args(e) => match e.raised() {
                Raised::Value | Raised::Bare => Exit::Request.code(),
                Raised::Usage | Raised::CommandUsage | Raised::Ours => Exit::Config.code(),
            },
            Ending::Error(_) => Exit::Config.code(),
        }
    }
}
