//! `sky --generate KIND [DIR]`: man pages and shell completions made from the
//! same clap definition the parser uses, so they never drift from the flags
//! (ripgrep's `rg --generate`). Handled before parsing because `--generate`
//! is not part of any subcommand.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::Opts;

/// What `--generate` accepts, as shown in its error message.
const KINDS: &str =
    "man DIR, complete-bash, complete-zsh, complete-fish, complete-powershell, complete-elvish";

/// `Some(exit code)` when the arguments are a `--generate` request (the
/// output is written and `sky` should exit), `None` otherwise.
pub fn handle(args: &[std::ffi::OsString]) -> Option<u8> {
    if args.get(1).is_none_or(|a| a != "--generate") {
        return None;
    }
    let kind = args.get(2).and_then(|a| a.to_str());
    let dir = args.get(3).map(PathBuf::from);
    let result = match (kind, dir, args.len()) {
        (Some("man"), Some(dir), 4) => man_pages(&dir).map(|written| {
            for page in written {
                eprintln!("wrote {}", page.display());
            }
        }),
        (Some(kind), None, 3) => match kind.strip_prefix("complete-").map(str::parse::<Shell>) {
            Some(Ok(shell)) => {
                clap_complete::generate(shell, &mut Opts::command(), "sky", &mut std::io::stdout());
                Ok(())
            }
            _ => Err(anyhow::anyhow!(
                "sky --generate: unknown kind {kind:?}; expected one of: {KINDS}"
            )),
        },
        _ => Err(anyhow::anyhow!(
            "sky --generate: expected `sky --generate KIND` with KIND one of: {KINDS}"
        )),
    };
    Some(match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("{e:#}");
            2
        }
    })
}

/// Writes `sky.1` and one page per visible subcommand (`sky-launch.1`, ...)
/// into `dir`; returns the paths written.
fn man_pages(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    clap_mangen::generate_to(Opts::command(), dir)
        .with_context(|| format!("cannot write the man pages into {}", dir.display()))?;
    let mut written: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("sky") && n.ends_with(".1"))
        })
        .collect();
    written.sort();
    Ok(written)
}
