//! The client's view of the local disk for [`planner::task::LocalPaths`]:
//! a task's paths as SkyPilot's client resolves them,
//! `os.path.abspath(os.path.expanduser(p))` — `~` is the user's home, a
//! relative path is relative to the folder `sky` runs in, `..` is folded
//! lexically — then `os.path.isdir` / `os.path.exists` (symlinks followed).

use std::path::{Component, Path, PathBuf};

use super::options::LaunchOptions;
use crate::config::expand_home;

/// Answers from the file system, for one launch's home and folder.
pub(super) struct HostPaths<'a> {
    home: &'a Path,
    /// The folder `sky` runs in (`None`: the process's own).
    cwd: Option<&'a Path>,
}

impl<'a> HostPaths<'a> {
    pub(super) fn new(options: &'a LaunchOptions) -> Self {
        HostPaths {
            home: &options.home,
            cwd: options.project_dir.as_deref(),
        }
    }

    /// `os.path.abspath(os.path.expanduser(path))`.
    fn resolve(&self, path: &str) -> PathBuf {
        let expanded = expand_home(path, self.home);
        let joined = match self.cwd {
            Some(cwd) if expanded.is_relative() => cwd.join(expanded),
            _ => expanded,
        };
        let mut out = PathBuf::new();
        for part in joined.components() {
            match part {
                Component::ParentDir => {
                    out.pop();
                }
                Component::CurDir => {}
                other => out.push(other.as_os_str()),
            }
        }
        out
    }
}

impl planner::task::LocalPaths for HostPaths<'_> {
    fn is_dir(&self, path: &str) -> bool {
        self.resolve(path).is_dir()
    }

    fn exists(&self, path: &str) -> bool {
        self.resolve(path).exists()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_as_pythons_abspath_expanduser() {
        let (home, cwd) = (Path::new("/home/u"), Path::new("/work/repo"));
        let paths = HostPaths {
            home,
            cwd: Some(cwd),
        };
        for (given, want) in [
            ("~/x", "/home/u/x"),
            ("~", "/home/u"),
            ("./a/../b", "/work/repo/b"),
            ("configs", "/work/repo/configs"),
            ("/abs/./p", "/abs/p"),
        ] {
            assert_eq!(paths.resolve(given), PathBuf::from(want), "{given}");
        }
    }
}
