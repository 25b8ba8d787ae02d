//! Finding SkyPilot's CLI: `SKYPILOT_CLI` if set, else the first `sky` on
//! `PATH` that is not this binary — compared by file identity (device and
//! inode of the file a path resolves to, symlinks and hard links included),
//! never by name — else an error saying how to install SkyPilot.

use std::ffi::OsString;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::{CLI_VAR, DEPTH_VAR, INSTALL_HINT};

/// Hand-offs deeper than this are a loop: the CLI found leads back to this
/// `sky` (a wrapper script that runs it, say). A legitimate chain is at most
/// `sky` → SkyPilot → `sky` (SkyPilot running `sky` from `PATH`) → SkyPilot.
pub const MAX_DEPTH: u32 = 3;

/// What finding the CLI reads (the binary fills it from the process).
#[derive(Debug, Clone, Default)]
pub struct Locate {
    /// `$SKYPILOT_CLI`, when set and not empty.
    pub cli: Option<OsString>,
    /// `$PATH`.
    pub path: Option<OsString>,
    /// This binary (`std::env::current_exe`), to skip it on `PATH`.
    pub own_exe: Option<PathBuf>,
    /// `$SKY_HANDOFF_DEPTH`: how many hand-offs led to this process.
    pub depth: u32,
}

/// Why SkyPilot's CLI cannot be run.
#[derive(Debug, thiserror::Error)]
pub enum LocateError {
    /// Neither `SKYPILOT_CLI` nor `PATH` has one.
    #[error(
        "SkyPilot's CLI was not found: no `sky` on PATH besides this one and SKYPILOT_CLI is not set; install SkyPilot with {INSTALL_HINT}"
    )]
    NotInstalled,
    /// `SKYPILOT_CLI` names a file that is not an executable.
    #[error("{CLI_VAR}={0} is not an executable file; set it to SkyPilot's `sky` ({INSTALL_HINT})")]
    NotExecutable(String),
    /// `SKYPILOT_CLI` is this very binary.
    #[error(
        "{CLI_VAR}={0} is this sky, not SkyPilot's; set it to SkyPilot's `sky` ({INSTALL_HINT})"
    )]
    IsThisSky(String),
    /// Too many hand-offs in a row.
    #[error(
        "SkyPilot's CLI leads back to this sky ({DEPTH_VAR}={0}); set {CLI_VAR} to SkyPilot's own `sky`"
    )]
    Loop(u32),
}

/// Device and inode of the file `path` resolves to, if it is an executable file.
fn identity(path: &Path) -> Option<(u64, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    (meta.is_file() && meta.permissions().mode() & 0o111 != 0).then(|| (meta.dev(), meta.ino()))
}

/// SkyPilot's CLI.
pub fn locate(input: &Locate) -> Result<PathBuf, LocateError> {
    if input.depth >= MAX_DEPTH {
        return Err(LocateError::Loop(input.depth));
    }
    let own = input.own_exe.as_deref().and_then(identity);
    if let Some(cli) = input.cli.as_ref().filter(|c| !c.is_empty()) {
        let path = PathBuf::from(cli);
        // A bare name is looked up on PATH, as a shell would.
        let resolved = if path.components().count() == 1 {
            search_path(input.path.as_deref(), &path, None).unwrap_or(path)
        } else {
            path
        };
        let shown = resolved.display().to_string();
        return match identity(&resolved) {
            None => Err(LocateError::NotExecutable(shown)),
            Some(id) if Some(id) == own => Err(LocateError::IsThisSky(shown)),
            Some(_) => Ok(resolved),
        };
    }
    search_path(input.path.as_deref(), Path::new("sky"), own).ok_or(LocateError::NotInstalled)
}

/// The first executable `name` in `path`'s folders whose identity is not `skip`.
fn search_path(
    path: Option<&std::ffi::OsStr>,
    name: &Path,
    skip: Option<(u64, u64)>,
) -> Option<PathBuf> {
    std::env::split_paths(path?)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|candidate| identity(candidate).is_some_and(|id| Some(id) != skip))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn executable(dir: &Path, name: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn the_first_sky_on_path_that_is_not_this_one_by_identity() {
        let tmp = tempfile::tempdir().unwrap();
        let (ours, alias, theirs) = (
            tmp.path().join("a"),
            tmp.path().join("b"),
            tmp.path().join("c"),
        );
        for d in [&ours, &alias, &theirs] {
            std::fs::create_dir(d).unwrap();
        }
        let own = executable(&ours, "sky");
        // The same file under another folder (a symlink) is still this sky.
        std::os::unix::fs::symlink(&own, alias.join("sky")).unwrap();
        // Not executable: skipped.
        std::fs::write(theirs.join("sky"), "").unwrap();
        let later = tmp.path().join("d");
        std::fs::create_dir(&later).unwrap();
        let skypilot = executable(&later, "sky");
        let path = std::env::join_paths([&ours, &alias, &theirs, &later]).unwrap();
        let input = Locate {
            path: Some(path.clone()),
            own_exe: Some(alias.join("sky")),
            ..Locate::default()
        };
        assert_eq!(locate(&input).unwrap(), skypilot);
        // Hard links share the inode too.
        std::fs::remove_file(skypilot.clone()).unwrap();
        std::fs::hard_link(&own, &skypilot).unwrap();
        assert!(matches!(locate(&input), Err(LocateError::NotInstalled)));
    }

    #[test]
    fn skypilot_cli_wins_and_is_checked() {
        let tmp = tempfile::tempdir().unwrap();
        let own = executable(tmp.path(), "sky");
        let other = executable(tmp.path(), "real-sky");
        let mut input = Locate {
            cli: Some(other.clone().into()),
            path: Some(tmp.path().into()),
            own_exe: Some(own.clone()),
            depth: 0,
        };
        assert_eq!(locate(&input).unwrap(), other);
        input.cli = Some("real-sky".into());
        assert_eq!(locate(&input).unwrap(), other);
        input.cli = Some(own.clone().into());
        assert!(matches!(locate(&input), Err(LocateError::IsThisSky(_))));
        input.cli = Some(tmp.path().join("missing").into());
        let err = locate(&input).unwrap_err();
        assert!(
            err.to_string().contains("is not an executable file"),
            "{err}"
        );
        input.cli = Some(other.into());
        input.depth = MAX_DEPTH;
        assert!(matches!(locate(&input), Err(LocateError::Loop(3))));
    }

    #[test]
    fn nothing_found_says_how_to_install_skypilot_in_one_line() {
        let err = locate(&Locate::default()).unwrap_err().to_string();
        assert!(err.contains("pip install 'skypilot"), "{err}");
        assert!(!err.contains('\n'), "{err}");
    }
}
