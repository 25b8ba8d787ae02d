//! One side of a report (the head tree, or the base in a git worktree) and
//! its build: every binary the report runs, built **once**, by two cargo
//! commands whose feature sets never change between steps, so nothing is
//! rebuilt later (see [`Side::build`]).

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::runner::{self, BENCH_PANIC_ENV, BenchExecutables, BuildWork};

/// The release build of a side: `sky` alone, exactly as it ships (built
/// beside the harness, cargo would unify their dependencies' features —
/// hyper's `server`, libc's `extra_traits` — into a `sky` nobody ships, and
/// compile the harness, the mocks and their dependencies a second time in
/// the release profile). The `process/*` rows and the harness's launches
/// run this binary.
pub const RELEASE_BUILD: [&str; 8] = [
    "build",
    "--release",
    "-p",
    "optimizer",
    "--bin",
    "sky",
    "--message-format",
    "json-render-diagnostics",
];

/// The bench-profile build of a side, one command and one feature set
/// (with [`BENCH_PANIC_ENV`]): the criterion executable, `bench-ops`,
/// `bench-gate` and the harness binary, which links the same planner,
/// optimizer, mocks and harness libraries as the criterion executable, so
/// the harness costs one binary rather than a release build of its own.
/// Its in-process launches (trace, span and CPU profiles) run at the
/// release profile's optimisation plus line tables; its timed launches are
/// the release `sky` ([`RELEASE_BUILD`]) as a child process.
pub const BENCH_BUILD: [&str; 17] = [
    "build",
    "--profile",
    "bench",
    "-p",
    "benches",
    "-p",
    "harness",
    "--bench",
    "main",
    "--bin",
    "bench-ops",
    "--bin",
    "bench-gate",
    "--bin",
    "harness",
    "--message-format",
    "json-render-diagnostics",
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

/// Everything a side's build produced.
pub struct Built {
    /// The criterion executable and `bench-ops`.
    pub exes: BenchExecutables,
    /// The harness binary (bench profile, beside the release `sky`).
    pub harness_exe: PathBuf,
    /// What the release build compiled.
    pub release: BuildWork,
    /// What the bench-profile build compiled.
    pub bench: BuildWork,
}

impl Side<'_> {
    /// Builds every binary the report runs on this side: `sky` (release,
    /// [`RELEASE_BUILD`]), then the criterion suite, `bench-ops`,
    /// `bench-gate` and the harness (bench profile, [`BENCH_BUILD`]). Later
    /// steps run these executables directly and never invoke cargo again.
    pub fn build(&self) -> anyhow::Result<Built> {
        let release = runner::cargo_build(self.workspace, &self.target, &RELEASE_BUILD, &[])?;
        let exes = runner::build_bench_with(self.workspace, &self.target, &BENCH_BUILD)?;
        let harness_exe = exes.harness_exe.clone().with_context(|| {
            format!(
                "`cargo {}` reported no executable for the harness",
                BENCH_BUILD.join(" ")
            )
        })?;
        let bench = exes.work;
        Ok(Built {
            exes,
            harness_exe,
            release,
            bench,
        })
    }

    /// `what` failed on this side.
    pub fn step<T>(&self, what: &str, r: anyhow::Result<T>) -> anyhow::Result<T> {
        r.with_context(|| format!("{} side: {what} failed", self.name))
    }
}

/// The environment of [`BENCH_BUILD`], as a shell prefix for the report's
/// list of commands.
pub fn bench_env_text() -> String {
    format!("{}={}", BENCH_PANIC_ENV.0, BENCH_PANIC_ENV.1)
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
    fn the_report_recipe_prebuilds_what_the_report_builds() {
        // `just report` builds the head before `bench-gate report` runs: the
        // same command, or the report's own build would compile it again.
        let justfile =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../justfile"))
                .unwrap();
        let args = &BENCH_BUILD[..BENCH_BUILD.len() - 2];
        assert_eq!(BENCH_BUILD[BENCH_BUILD.len() - 2], "--message-format");
        let expected = format!(
            "report_build := \"{} cargo {}\"",
            bench_env_text(),
            args.join(" ")
        );
        assert!(justfile.contains(&expected), "justfile lacks {expected}");
    }

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
