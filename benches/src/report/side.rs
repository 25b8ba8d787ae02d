//! One side of a report (the head tree, or the base in a git worktree) and
//! its build: every binary the report runs, built **once**, by two cargo
//! commands whose feature sets never change between steps, so nothing is
//! rebuilt later (see [`Side::build`]).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

use crate::runner::{self, BenchExecutables};

/// The release build of a side: `sky` and the harness together, so cargo
/// resolves their dependencies' features once (built apart, `sky` alone
/// and the harness's copy of the optimizer differ in features such as
/// hyper's `server` and libc's `extra_traits`, and every switch between
/// the two rebuilt a different copy of the dependency tree).
pub const RELEASE_BUILD: [&str; 10] = [
    "build",
    "--release",
    "-p",
    "optimizer",
    "--bin",
    "sky",
    "-p",
    "harness",
    "--bin",
    "harness",
];

/// One side of the comparison: a tree and the target dir it builds into.
pub struct Side<'a> {
    /// `base` or `head`, for messages and file names.
    pub name: &'static str,
    /// The tree.
    pub workspace: &'a Path,
    /// Its cargo target directory.
    pub target: PathBuf,
}

impl Side<'_> {
    /// Builds every binary the report runs on this side: `sky` and the
    /// harness (release, one command), the criterion suite, `bench-ops` and
    /// `bench-gate` (bench profile, one command). Later steps run these
    /// executables directly and never invoke cargo again.
    pub fn build(&self) -> anyhow::Result<BenchExecutables> {
        self.cargo(&RELEASE_BUILD)
            .status()
            .context("running cargo")
            .and_then(|s| {
                if s.success() {
                    Ok(())
                } else {
                    bail!("`cargo {}` failed ({s})", RELEASE_BUILD.join(" "))
                }
            })?;
        runner::build_bench_executables(self.workspace, &self.target)
    }

    fn cargo(&self, args: &[&str]) -> Command {
        let mut c = Command::new("cargo");
        c.args(args)
            .current_dir(self.workspace)
            .env("CARGO_TARGET_DIR", &self.target);
        c
    }

    /// `what` failed on this side.
    pub fn step<T>(&self, what: &str, r: anyhow::Result<T>) -> anyhow::Result<T> {
        r.with_context(|| format!("{} side: {what} failed", self.name))
    }
}

/// Hard-links every file of `from` into `to` that `to` does not have yet:
/// the base build then starts from the head's compiled dependencies, and
/// cargo rebuilds only the crates whose sources or flags differ. Cargo writes
/// new files for what it rebuilds, so the head's files are never changed.
/// Run before every base build (cheap: a walk and links), so dependencies
/// the head gained since the last report are shared too. The top level's
/// files (the head's `sky`, `harness`, … as cargo copies them out) are left
/// alone: the base build puts its own there.
pub fn seed_target(from: &Path, to: &Path) -> std::io::Result<u64> {
    seed_level(from, to, true)
}

fn seed_level(from: &Path, to: &Path, top: bool) -> std::io::Result<u64> {
    let mut linked = 0;
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type()?;
        if kind.is_dir() {
            linked += seed_level(&src, &dst, false)?;
        } else if !top && kind.is_file() && !dst.exists() {
            std::fs::hard_link(&src, &dst)?;
            linked += 1;
        }
    }
    Ok(linked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeding_links_files_without_touching_the_source() {
        let tmp = tempfile::tempdir().unwrap();
        let (from, to) = (tmp.path().join("head"), tmp.path().join("base"));
        std::fs::create_dir_all(from.join("deps")).unwrap();
        std::fs::write(from.join("deps/libx.rlib"), "x").unwrap();
        std::fs::write(from.join("deps/sky-1"), "binary").unwrap();
        std::fs::write(from.join("sky"), "binary").unwrap();
        assert_eq!(seed_target(&from, &to).unwrap(), 2);
        assert_eq!(
            std::fs::read_to_string(to.join("deps/libx.rlib")).unwrap(),
            "x"
        );
        // The head's top-level binaries are not the base's.
        assert!(!to.join("sky").exists());
        // A rebuild replaces the base's file; the head's stays as it was.
        std::fs::remove_file(to.join("deps/sky-1")).unwrap();
        std::fs::write(to.join("deps/sky-1"), "rebuilt").unwrap();
        assert_eq!(
            std::fs::read_to_string(from.join("deps/sky-1")).unwrap(),
            "binary"
        );
        // Seeding again links only what is new.
        std::fs::write(from.join("deps/liby.rlib"), "y").unwrap();
        assert_eq!(seed_target(&from, &to).unwrap(), 1);
    }
}
