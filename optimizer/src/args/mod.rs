//! From the command line to what the pipeline takes, in two steps as
//! ripgrep's `crates/core/flags/` does (low args → high args):
//!
//! 1. clap parses the words into the low args ([`flags`]): every value as
//!    the user typed it, nothing checked, nothing read;
//! 2. [`convert`] checks them, reads what they name (the dotenv files of
//!    `--env-file` and `--secret-file`, through [`crate::input`]'s capped
//!    reader) and builds the high args, an [`Invocation`]: per subcommand
//!    the [`LaunchOptions`](crate::launch::LaunchOptions) and what it runs
//!    — a launch [`Request`](crate::launch::Request), the clouds `sky
//!    check` names, a `sky gpus list` [`Query`](planner::gpus::Query), the
//!    clouds to refresh — plus how its result is shown.
//!
//! A value that cannot be used is an [`ArgsError`] naming the flag and the
//! form it expects, and never reaches the pipeline. The conversion reads
//! the process only through an [`Environment`], so tests pass their own.

mod catalog;
mod check;
mod dotenv;
mod entrypoint;
mod error;
pub mod flags;
mod gpus;
mod invocation;
mod launch;
mod offers;
mod options;
#[cfg(test)]
mod tests;

pub use error::{ArgsError, Raised};
use flags::Command;
pub use invocation::{CatalogRefresh, Check, GpusList, Invocation, Launch, Notice};
pub use offers::Offers;
pub use options::Environment;

/// What [`convert`] made of the low args.
#[derive(Debug)]
pub struct Converted {
    /// Said first, whether or not the conversion succeeded.
    pub notices: Vec<Notice>,
    /// The subcommand to run, or why the flags cannot be used.
    pub invocation: Result<Invocation, ArgsError>,
}

/// The low args → the high args: checks every flag in SkyPilot's order
/// (the first error wins) and builds what the subcommand runs.
pub fn convert(command: Command, env: Environment) -> Converted {
    let mut notices = Vec::new();
    let invocation = match command {
        Command::Launch(args) => launch::convert(*args, env).map(|l| Invocation::Launch(l.into())),
        Command::Check(args) => {
            check::convert(args, env, &mut notices).map(|c| Invocation::Check(c.into()))
        }
        Command::Catalog(args) => catalog::convert(args, env, &mut notices),
        Command::Gpus(args) => gpus::convert(args.into_list(), env, &mut notices)
            .map(|g| Invocation::GpusList(g.into())),
        Command::ShowGpus(args) => {
            gpus::convert(*args, env, &mut notices).map(|g| Invocation::GpusList(g.into()))
        }
        Command::Offers(args) => offers::convert(*args, env).map(|o| Invocation::Offers(o.into())),
    };
    Converted {
        notices,
        invocation,
    }
}
