//! What SkyPilot's client checks on the local disk before it sends a task
//! anywhere, even with `--dryrun` (`sky/client/sdk.py::validate` →
//! `sky/task.py::Task.expand_and_validate_workdir`, then
//! `expand_and_validate_file_mounts`): per task in chain order, a local
//! `workdir` must be a folder and each copy mount's local source must exist.
//!
//! The planner does no I/O: the answers come from a [`LocalPaths`] the edge
//! implements over the file system (tests: a map). The messages quote the
//! user's strings only, so nothing of the machine leaks into them.

use super::types::{Dag, Workdir};
use crate::pytext::py_str_repr;
use crate::resources::RequestError;

/// The file system as SkyPilot's client sees it: paths as written in the
/// task (`~` is the user's home, a relative path is relative to the folder
/// `sky` runs in — `os.path.abspath(os.path.expanduser(p))`).
pub trait LocalPaths {
    /// `os.path.isdir` (symlinks followed).
    fn is_dir(&self, path: &str) -> bool;
    /// `os.path.exists` (symlinks followed).
    fn exists(&self, path: &str) -> bool;
}

/// `constants.SKY_REMOTE_WORKDIR`.
const REMOTE_WORKDIR: &str = "~/sky_workdir";

/// `data_utils.is_cloud_store_url`: `urllib.parse.urlsplit(url).netloc` is
/// not empty (`s3://b`, `gs://b/x`, `https://h/x`, also `//h/x`).
pub fn is_cloud_store_url(url: &str) -> bool {
    let rest = match url.split_once(':') {
        Some((scheme, rest))
            if scheme
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) =>
        {
            rest
        }
        _ => url,
    };
    rest.strip_prefix("//").is_some_and(|r| {
        r.split(['/', '?', '#'])
            .next()
            .is_some_and(|n| !n.is_empty())
    })
}

/// `Task._validate_path`.
fn no_trailing_slash(path: &str, location: &str) -> Result<(), RequestError> {
    if path.ends_with('/') {
        return Err(RequestError::value(format!(
            "Mount paths cannot end with a slash Found: {path} in {location}"
        )));
    }
    Ok(())
}

/// The client's checks of every task's local paths, in SkyPilot's order.
pub fn check_local_paths(dag: &Dag, fs: &dyn LocalPaths) -> Result<(), RequestError> {
    for task in &dag.tasks {
        if let Some(Workdir::Local { path }) = &task.spec.workdir
            && !fs.is_dir(path)
        {
            return Err(RequestError::value(format!(
                "Workdir must be a valid directory (or a symlink to a directory). {path} not found."
            )));
        }
        for (target, source) in &task.spec.file_mounts {
            let location = format!("file_mounts.{target}: {source}");
            no_trailing_slash(target, &location)?;
            if target == REMOTE_WORKDIR && task.spec.workdir.is_some() {
                return Err(RequestError::value(format!(
                    "Cannot use {} as a destination path of a file mount, as it will be used by the workdir. If uploading a file/folder to the workdir is needed, please specify the full path to the file/folder.",
                    py_str_repr(REMOTE_WORKDIR)
                )));
            }
            no_trailing_slash(source, &location)?;
            if is_cloud_store_url(target) {
                return Err(RequestError::value(
                    "File mount destination paths cannot be cloud storage",
                ));
            }
            if !is_cloud_store_url(source) && !fs.exists(source) && !source.starts_with("skypilot:")
            {
                return Err(RequestError::value(format!(
                    "File mount source {} does not exist locally. To fix: check if it exists, and correct the path.",
                    py_str_repr(source)
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::{Task, TaskSpec};

    /// Folders and files by path as written.
    struct Fake {
        dirs: &'static [&'static str],
        files: &'static [&'static str],
    }

    impl LocalPaths for Fake {
        fn is_dir(&self, path: &str) -> bool {
            self.dirs.contains(&path)
        }
        fn exists(&self, path: &str) -> bool {
            self.dirs.contains(&path) || self.files.contains(&path)
        }
    }

    const FS: Fake = Fake {
        dirs: &[".", "./configs"],
        files: &["~/.ssh/id_ed25519", "run.py"],
    };

    fn check(workdir: Option<&str>, mounts: &[(&str, &str)]) -> Result<(), String> {
        let task = Task {
            spec: TaskSpec {
                workdir: workdir.map(|p| Workdir::Local { path: p.into() }),
                file_mounts: mounts
                    .iter()
                    .map(|(a, b)| (a.to_string(), b.to_string()))
                    .collect(),
                ..TaskSpec::default()
            },
            ..Task::default()
        };
        check_local_paths(&Dag { tasks: vec![task] }, &FS).map_err(|e| e.message)
    }

    #[test]
    fn skypilots_client_checks_in_its_order() {
        assert_eq!(
            check(
                Some("."),
                &[("/c", "./configs"), ("/k", "~/.ssh/id_ed25519")]
            ),
            Ok(())
        );
        assert_eq!(
            check(Some("examples/serve/http_server"), &[("/x", "nowhere")]),
            Err("Workdir must be a valid directory (or a symlink to a directory). examples/serve/http_server not found.".into())
        );
        assert_eq!(
            check(None, &[("/inputs", "~/Downloads/detectron-inputs")]),
            Err("File mount source '~/Downloads/detectron-inputs' does not exist locally. To fix: check if it exists, and correct the path.".into())
        );
        assert_eq!(
            check(None, &[("/a/", "x")]),
            Err("Mount paths cannot end with a slash Found: /a/ in file_mounts./a/: x".into())
        );
        assert_eq!(
            check(Some("."), &[("~/sky_workdir", "run.py")]),
            Err("Cannot use '~/sky_workdir' as a destination path of a file mount, as it will be used by the workdir. If uploading a file/folder to the workdir is needed, please specify the full path to the file/folder.".into())
        );
        assert_eq!(
            check(None, &[("s3://b", "run.py")]),
            Err("File mount destination paths cannot be cloud storage".into())
        );
        assert_eq!(
            check(
                None,
                &[
                    ("/d", "s3://bucket/x"),
                    ("/e", "skypilot:x"),
                    ("/f", "https://h/x")
                ]
            ),
            Ok(())
        );
    }

    #[test]
    fn cloud_urls_are_those_with_a_network_location() {
        for (url, want) in [
            ("s3://b", true),
            ("gs://b/x", true),
            ("//h/x", true),
            ("./x", false),
            ("~/x", false),
            ("/x", false),
            ("s3:/b", false),
            ("skypilot:x", false),
            ("file:///x", false),
        ] {
            assert_eq!(is_cloud_store_url(url), want, "{url}");
        }
    }
}
