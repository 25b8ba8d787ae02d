//! How a `sky` run ends, and the one rule that turns that into its exit
//! code:
//!
//! | code | when |
//! |---|---|
//! | 0 | done: the plan, the report or the listing printed |
//! | 1 | the request cannot be satisfied or is invalid: SkyPilot's error (its `ValueError`s included) |
//! | 2 | usage or configuration error (click's usage errors; this tool's own flags, files and folders) |
//! | 3 | plan printed but some enabled clouds were left out (partial table) — or, for `sky catalog refresh`, some files could not be refreshed |
//! | 4 | no cloud enabled |
//! | 5 | plan printed, but some of its prices are the bundled examples: a catalog could not be downloaded (wins over 3) |
//! | 128 + n | stopped by signal n: 130 interrupted (SIGINT), 143 terminated (SIGTERM) |
//!
//! A flag that cannot be used gets the code of the error SkyPilot's CLI
//! raises for it ([`Raised`]).

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
