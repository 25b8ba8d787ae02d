//! Where SkyPilot 0.14.1 is installed for the harness, and how to get it.
//!
//! The engine needs `skypilot[aws,kubernetes]==0.14.1` (boto3 and the AWS
//! CLI: SkyPilot asks STS and EC2 through them; the Kubernetes client) and
//! py-spy, pinned in `harness/skypilot/requirements.lock`. The conformance
//! venv (`harness/conformance/setup.sh`) has SkyPilot without the AWS extra:
//! there, SkyPilot never asks STS or EC2 (its identity lookup fails on the
//! missing import and it falls back to a default zone mapping), so it cannot
//! stand for a user's install under the mocks.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{HarnessError, Result};
use crate::skypilot::SKYPILOT_VERSION;
use crate::workspace::workspace_root;

/// Overrides the venv's location.
pub const VENV_ENV: &str = "HARNESS_SKYPILOT_VENV";

/// A usable SkyPilot venv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkyPilotVenv {
    /// The venv folder.
    pub root: PathBuf,
    /// Its Python.
    pub python: PathBuf,
    /// Its py-spy.
    pub py_spy: PathBuf,
}

/// Why no venv could be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// Where it was looked for.
    pub root: PathBuf,
    /// What is wrong there.
    pub reason: String,
}

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "no SkyPilot {SKYPILOT_VERSION} venv at {} ({})",
            self.root.display(),
            self.reason
        )
    }
}

/// `$HARNESS_SKYPILOT_VENV`, else `<workspace>/.venv-skypilot`.
pub fn default_dir() -> PathBuf {
    std::env::var_os(VENV_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join(".venv-skypilot"))
}

/// The setup script (`harness/skypilot/setup.sh`).
pub fn setup_script() -> PathBuf {
    workspace_root().join("harness/skypilot/setup.sh")
}

/// One line saying how to get SkyPilot's rows.
pub fn how_to_get() -> String {
    format!(
        "SkyPilot {SKYPILOT_VERSION}'s rows need its venv: `harness demo --with-skypilot` (or `bash harness/skypilot/setup.sh`) builds {} from PyPI once (~2-4 min on 2 cores)",
        default_dir().display()
    )
}

impl SkyPilotVenv {
    /// The venv at `root`, if it runs SkyPilot 0.14.1 with boto3 and the
    /// Kubernetes client and has py-spy (asks its Python, ~0.1 s).
    pub fn at(root: &Path) -> std::result::Result<SkyPilotVenv, Missing> {
        let missing = |reason: &str| Missing {
            root: root.to_path_buf(),
            reason: reason.to_string(),
        };
        let python = root.join("bin/python");
        let py_spy = root.join("bin/py-spy");
        if !python.is_file() {
            return Err(missing("no bin/python"));
        }
        if !py_spy.is_file() {
            return Err(missing("no bin/py-spy"));
        }
        let probe = "import importlib.util as u, importlib.metadata as m\n\
                     missing = [p for p in ('boto3', 'kubernetes') if u.find_spec(p) is None]\n\
                     print(m.version('skypilot'), *missing)";
        let out = Command::new(&python)
            .args(["-c", probe])
            .env_clear()
            .output()
            .map_err(|e| missing(&format!("cannot run its Python: {e}")))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let mut words = text.split_whitespace();
        match words.next() {
            Some(v) if out.status.success() && v == SKYPILOT_VERSION => {}
            Some(v) if out.status.success() => {
                return Err(missing(&format!("it has skypilot {v}")));
            }
            _ => return Err(missing("skypilot is not installed in it")),
        }
        let absent: Vec<&str> = words.collect();
        if !absent.is_empty() {
            return Err(missing(&format!("it lacks {}", absent.join(", "))));
        }
        Ok(SkyPilotVenv {
            root: root.to_path_buf(),
            python,
            py_spy,
        })
    }

    /// The venv at [`default_dir`].
    pub fn locate() -> std::result::Result<SkyPilotVenv, Missing> {
        SkyPilotVenv::at(&default_dir())
    }

    /// Builds the venv at [`default_dir`] with the setup script (PyPI; its
    /// progress goes to the terminal), then locates it.
    pub fn setup() -> Result<SkyPilotVenv> {
        let script = setup_script();
        let dir = default_dir();
        let status = Command::new("bash")
            .arg(&script)
            .arg(&dir)
            .status()
            .map_err(|e| HarnessError::io(&script, e))?;
        if !status.success() {
            return Err(HarnessError::SkyPilot(format!(
                "{} {} failed ({status}); it needs PyPI",
                script.display(),
                dir.display()
            )));
        }
        SkyPilotVenv::locate().map_err(|m| HarnessError::SkyPilot(m.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_without_python_is_missing_with_a_reason() {
        let dir = tempfile::tempdir().unwrap();
        let err = SkyPilotVenv::at(dir.path()).unwrap_err();
        assert_eq!(err.reason, "no bin/python");
        assert!(
            err.to_string().contains("no SkyPilot 0.14.1 venv at"),
            "{err}"
        );
        assert!(how_to_get().contains("--with-skypilot"));
    }
}
