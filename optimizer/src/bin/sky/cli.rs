//! The command line as clap parses it: `sky`, `--version` and the
//! subcommands, whose flags are the library's low args
//! ([`optimizer::args::flags`]). No logic lives here; the flags become a
//! request in [`optimizer::args::convert`].

use clap::Parser;
use optimizer::args::flags::Command;

/// `sky --version`: this tool's version and the SkyPilot release it follows.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (SkyPilot 0.14.1 launch optimizer)"
);

/// SkyPilot-compatible launch optimizer: prints the "Considered resources"
/// table for a request, checking every enabled cloud concurrently. It plans;
/// SkyPilot's own CLI provisions: a confirmed launch hands it the plan, and
/// every other subcommand (status, down, jobs, serve, ...) runs it.
#[derive(Debug, Parser)]
#[command(name = "sky", version = VERSION, about, long_about = None)]
pub struct Opts {
    #[command(subcommand)]
    pub command: Command,
}

/// Parses the words (clap prints usage errors, `--help` and `--version`
/// itself, and exits).
pub fn parse(args: Vec<std::ffi::OsString>) -> Command {
    let _span = tracing::info_span!("parse_args").entered();
    Opts::parse_from(args).command
}
