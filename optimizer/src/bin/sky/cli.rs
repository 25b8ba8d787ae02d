//! The command line as clap parses it: `sky`, `--version` and the
//! subcommands, whose flags are the library's low args
//! ([`optimizer::args::flags`]). No logic lives here; the flags become a
//! request in [`optimizer::args::convert`].
//!
//! Two of click's parsing rules are kept, as SkyPilot's CLI parses with
//! click: a flag given twice is not an error, the last one wins
//! (`args_override_self`; repeatable flags such as `--env` still collect
//! every value), and an unknown option is click's `NoSuchOption` with its
//! "Did you mean" (below) rather than clap's "use -- --nodes" tip.

use std::ffi::OsString;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, FromArgMatches, Parser};
use optimizer::args::flags::Command;
use planner::launch::Exit;

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

/// Parses the words (clap prints `--help` and `--version` itself; usage
/// errors are printed here or by clap, and the process exits with 2).
pub fn parse(args: Vec<OsString>) -> Command {
    let _span = tracing::info_span!("parse_args").entered();
    let command = deferred();
    let parsed = command
        .try_get_matches_from(&args)
        .and_then(|mut m| Opts::from_arg_matches_mut(&mut m));
    match parsed {
        Ok(opts) => opts.command,
        Err(e) => match no_such_option(&e, &args) {
            Some(text) => {
                eprintln!("{text}");
                std::process::exit(i32::from(Exit::Config.code()));
            }
            None => e.exit(),
        },
    }
}

/// [`Opts`]'s command tree, click-like ([`click_like`]), with each
/// subcommand's flags defined only when clap reaches it (clap's
/// `Command::defer`): a launch builds launch's flags, not every
/// subcommand's (most of what clap did on a launch). The names, texts and
/// settings are the derive's (a test renders every help and usage of both
/// trees and compares them); completions and man pages use the derive's
/// tree itself.
fn deferred() -> clap::Command {
    use clap::Args;
    use optimizer::args::flags::OffersArgs;
    use optimizer::args::flags::{CatalogArgs, CheckArgs, GpusArgs, GpusListArgs, LaunchArgs};
    /// A subcommand: the variant's doc comment (one line: `about`, no
    /// `long_about`), its flags deferred.
    fn sub(
        name: &'static str,
        about: &'static str,
        args: fn(clap::Command) -> clap::Command,
    ) -> clap::Command {
        clap::Command::new(name)
            .about(about)
            .long_about(None)
            .args_override_self(true)
            .defer(args)
    }
    clap::Command::new("sky")
        .version(VERSION)
        .about(env!("CARGO_PKG_DESCRIPTION"))
        .long_about(None)
        .subcommand_required(true)
        .arg_required_else_help(true)
        .args_override_self(true)
        .subcommands([
            sub(
                "launch",
                "Optimize a task and show the considered resources (provisioning is out of scope)",
                LaunchArgs::augment_args,
            ),
            sub(
                "check",
                "Check which clouds are enabled, and the identities they use",
                CheckArgs::augment_args,
            ),
            sub(
                "catalog",
                "Manage SkyPilot's catalog folder (~/.sky/catalogs/v8)",
                |c| click_like(CatalogArgs::augment_args(c)),
            ),
            sub(
                "gpus",
                "GPU/accelerator commands (`sky gpus list`)",
                |c| click_like(GpusArgs::augment_args(c)),
            ),
            sub(
                "show-gpus",
                "Deprecated: use `sky gpus list`",
                GpusListArgs::augment_args,
            ),
            sub(
                "offers",
                "List every offer for a request (launch's flags): filtered, sorted, grouped, priced per GPU",
                OffersArgs::augment_args,
            ),
        ])
}

/// The command and every subcommand with click's rule for a flag given
/// twice: the last one wins.
fn click_like(command: clap::Command) -> clap::Command {
    let names: Vec<String> = command
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    names
        .iter()
        .fold(command.args_override_self(true), |command, name| {
            command.mut_subcommand(name, click_like)
        })
}

/// click's `NoSuchOption` for an option clap does not know, under the
/// (sub)command's usage lines as click prints a usage error:
///
/// ```text
/// Usage: sky launch [OPTIONS] [ENTRYPOINT]...
/// Try 'sky launch -h' for help.
///
/// Error: No such option: --nodes Did you mean --num-nodes?
/// ```
///
/// The candidate is the closest long option by click's measure
/// (`OptionParser._match_long_opt`: `difflib.get_close_matches`, cutoff
/// 0.6), in click's words for one ("Did you mean X?"). Only the closest:
/// click lists up to three (`--nodes`: "(Possible options: --num-nodes,
/// --yes, -no-d)"), which hides the one meant among near-misses.
/// `None`: not that error (clap prints it).
fn no_such_option(error: &clap::Error, args: &[OsString]) -> Option<String> {
    if error.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(word)) = error.get(ContextKind::InvalidArg) else {
        return None;
    };
    if !word.starts_with('-') {
        return None;
    }
    let option = word.split_once('=').map_or(word.as_str(), |(o, _)| o);
    let (mut command, path) = subcommand_of(args);
    let mut message = format!("No such option: {option}");
    if option.starts_with("--") {
        let longs = long_options(&command);
        let close =
            planner::pytext::close_matches(option, longs.iter().map(String::as_str), 1, 0.6);
        if let Some(one) = close.first() {
            message.push_str(&format!(" Did you mean {one}?"));
        }
    }
    let usage = command.render_usage().to_string();
    Some(format!(
        "{}\nTry '{path} -h' for help.\n\nError: {message}",
        usage.trim_end()
    ))
}

/// The (sub)command the words name, and its path (`sky launch`).
fn subcommand_of(args: &[OsString]) -> (clap::Command, String) {
    let mut command = Opts::command();
    let mut path = String::from("sky");
    for word in args.iter().skip(1).filter_map(|w| w.to_str()) {
        if command.get_subcommands().next().is_none() {
            break;
        }
        if word.starts_with('-') {
            continue;
        }
        match command.find_subcommand(word) {
            Some(sub) => {
                path.push(' ');
                path.push_str(sub.get_name());
                command = sub.clone();
            }
            None => break,
        }
    }
    command = command.bin_name(&path);
    (command, path)
}

/// Every long option of `command` (aliases included), and `--help`.
fn long_options(command: &clap::Command) -> Vec<String> {
    let mut longs: Vec<String> = command
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .flat_map(|a| a.get_long_and_visible_aliases().unwrap_or_default())
        .map(|l| format!("--{l}"))
        .collect();
    longs.push("--help".into());
    longs.sort();
    longs.dedup();
    longs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(words: &[&str]) -> Option<String> {
        let args: Vec<OsString> = words.iter().map(OsString::from).collect();
        let e = deferred()
            .try_get_matches_from(&args)
            .expect_err("a usage error");
        no_such_option(&e, &args)
    }

    /// Every (sub)command of `a` and `b` renders the same help, long help
    /// and usage, with the same settings and the same flags.
    fn same_tree(a: &mut clap::Command, b: &mut clap::Command, path: &str) {
        assert_eq!(a.get_name(), b.get_name(), "{path}");
        assert_eq!(
            a.render_long_help().to_string(),
            b.render_long_help().to_string(),
            "{path}"
        );
        assert_eq!(
            a.render_help().to_string(),
            b.render_help().to_string(),
            "{path}"
        );
        assert_eq!(
            a.render_usage().to_string(),
            b.render_usage().to_string(),
            "{path}"
        );
        assert_eq!(
            a.render_version().to_string(),
            b.render_version().to_string(),
            "{path}"
        );
        let settings = |c: &clap::Command| {
            (
                c.is_args_override_self(),
                c.is_subcommand_required_set(),
                c.is_arg_required_else_help_set(),
                c.get_about().map(ToString::to_string),
                c.get_long_about().map(ToString::to_string),
            )
        };
        assert_eq!(settings(a), settings(b), "{path}");
        let args = |c: &clap::Command| {
            c.get_arguments()
                .map(|arg| format!("{arg:?}"))
                .collect::<Vec<_>>()
        };
        assert_eq!(args(a), args(b), "{path}");
        let names: Vec<String> = a
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .collect();
        let other: Vec<String> = b
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .collect();
        assert_eq!(names, other, "{path}");
        // clap's own `help` subcommand mirrors the tree as it stands when
        // the parent is built, before deferred flags are defined: its
        // output (`sky help catalog` prints catalog's own help) is checked
        // by the CLI tests, not its shape here.
        for name in names.into_iter().filter(|n| n != "help") {
            let (Some(sa), Some(sb)) = (a.find_subcommand_mut(&name), b.find_subcommand_mut(&name))
            else {
                panic!("{path} {name}");
            };
            same_tree(sa, sb, &format!("{path} {name}"));
        }
    }

    #[test]
    fn the_deferred_tree_is_the_derived_one() {
        let mut derived = click_like(Opts::command());
        derived.build();
        let mut deferred = deferred();
        deferred.build();
        same_tree(&mut derived, &mut deferred, "sky");
    }

    #[test]
    fn an_unknown_option_is_clicks_no_such_option_with_did_you_mean() {
        let cases: &[(&[&str], &str)] = &[
            (
                &["sky", "launch", "--nodes", "2"],
                "Usage: sky launch [OPTIONS] [ENTRYPOINT]...\nTry 'sky launch -h' for help.\n\nError: No such option: --nodes Did you mean --num-nodes?",
            ),
            (
                &["sky", "launch", "--gpu=H100"],
                "Usage: sky launch [OPTIONS] [ENTRYPOINT]...\nTry 'sky launch -h' for help.\n\nError: No such option: --gpu Did you mean --gpus?",
            ),
            (
                &["sky", "check", "--verbse"],
                "Usage: sky check [OPTIONS] [CLOUD]...\nTry 'sky check -h' for help.\n\nError: No such option: --verbse Did you mean --verbose?",
            ),
            (
                &["sky", "gpus", "list", "--zzzzzz"],
                "Usage: sky gpus list [OPTIONS] [ACCELERATOR]\nTry 'sky gpus list -h' for help.\n\nError: No such option: --zzzzzz",
            ),
        ];
        for (words, expected) in cases {
            assert_eq!(error_of(words).as_deref(), Some(*expected), "{words:?}");
        }
    }

    #[test]
    fn a_flag_given_twice_takes_the_last_value_and_lists_keep_every_value() {
        let parse = |words: &[&str]| {
            let mut m = deferred().try_get_matches_from(words).expect("parses");
            Opts::from_arg_matches_mut(&mut m).expect("matches")
        };
        let Command::Launch(args) = parse(&[
            "sky", "launch", "--dryrun", "--dryrun", "--gpus", "A", "--gpus", "B",
        ])
        .command
        else {
            panic!("not launch");
        };
        assert_eq!(args.dryrun, Some(true));
        assert_eq!(args.request.gpus.as_deref(), Some("B"));
        let Command::Launch(args) =
            parse(&["sky", "launch", "--env", "A=1", "--env", "B=2"]).command
        else {
            panic!("not launch");
        };
        assert_eq!(args.request.env, ["A=1", "B=2"]);
    }
}
