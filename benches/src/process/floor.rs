//! The process floor: a hello-world Rust binary built with `rustc -O`, the
//! least any command-line program costs to start and exit on this machine
//! (`process/floor/hello-world`). The other whole-process rows are judged
//! as ratios to its median, so a slower or busier machine moves the floor
//! and the rows together while the ratio stays.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail, ensure};

/// The program (the one every Rust tutorial starts with).
pub const SOURCE: &str = "fn main() {\n    println!(\"Hello, world!\");\n}\n";

/// What it prints.
pub const OUTPUT: &str = "Hello, world!\n";

/// The command that builds it, for messages.
pub const BUILD: &str = "rustc -O --edition 2021 hello-world.rs";

/// Builds the floor binary next to the release `sky`
/// (`target/release/bench-floor/hello-world`) unless an up-to-date one is
/// there, and returns its path. The source is rewritten only when it
/// changed, and the binary rebuilt when it is older than the source.
pub fn hello_world() -> anyhow::Result<PathBuf> {
    let sky = super::release_sky()?;
    let dir = sky
        .parent()
        .map(|d| d.join("bench-floor"))
        .context("the release folder")?;
    build_in(&dir)
}

/// [`hello_world`] into `dir`.
pub fn build_in(dir: &Path) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let src = dir.join("hello-world.rs");
    let exe = dir.join(format!("hello-world{}", std::env::consts::EXE_SUFFIX));
    if std::fs::read_to_string(&src).ok().as_deref() != Some(SOURCE) {
        std::fs::write(&src, SOURCE).with_context(|| format!("writing {}", src.display()))?;
    }
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let fresh = matches!((modified(&src), modified(&exe)), (Some(s), Some(e)) if e >= s);
    if !fresh {
        let out = Command::new("rustc")
            .args(["-O", "--edition", "2021", "-o"])
            .arg(&exe)
            .arg(&src)
            .output()
            .with_context(|| format!("running `{BUILD}` (is rustc on PATH?)"))?;
        if !out.status.success() {
            bail!(
                "`{BUILD}` in {} failed ({}): {}",
                dir.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    Ok(exe)
}

/// Fails unless `stdout` is the floor binary's greeting.
pub fn verify(stdout: &str) -> anyhow::Result<()> {
    ensure!(
        stdout == OUTPUT,
        "the floor binary printed {stdout:?}, expected {OUTPUT:?}"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_builds_once_and_greets() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let exe = build_in(dir.path()).unwrap_or_else(|e| panic!("{e:#}"));
        let built = std::fs::metadata(&exe)
            .and_then(|m| m.modified())
            .unwrap_or_else(|e| panic!("{e}"));
        let out = Command::new(&exe)
            .env_clear()
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(out.status.success());
        verify(&String::from_utf8_lossy(&out.stdout)).unwrap_or_else(|e| panic!("{e:#}"));
        // Up to date: not rebuilt.
        assert_eq!(
            build_in(dir.path()).unwrap_or_else(|e| panic!("{e:#}")),
            exe
        );
        let again = std::fs::metadata(&exe)
            .and_then(|m| m.modified())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(built, again);
        assert!(verify("Hello\n").is_err());
    }
}
