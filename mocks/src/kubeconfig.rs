//! Writing a kubeconfig that points at [`KubeMock`](crate::KubeMock)s.

use std::path::{Path, PathBuf};

use crate::MockError;

/// Writes `<dir>/kubeconfig` with one cluster, user and context per
/// `(context_name, server_uri)` pair, and returns its path.
///
/// Users authenticate with a static `token: mock-token-<context>` (never
/// `exec:`, which kube would run during config construction). The first
/// context is the `current-context`; every context uses namespace `default`.
/// Scalars are written as double-quoted YAML strings, so any context name is safe.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("mocks-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = mocks::write_kubeconfig(&dir, &[("a", "http://127.0.0.1:1"), ("b", "http://127.0.0.1:2")]).unwrap();
/// let text = std::fs::read_to_string(&path).unwrap();
/// assert!(text.contains("current-context: \"a\""));
/// assert!(text.contains("token: \"mock-token-b\""));
/// # std::fs::remove_dir_all(dir).unwrap();
/// ```
pub fn write_kubeconfig(dir: &Path, contexts: &[(&str, &str)]) -> Result<PathBuf, MockError> {
    let path = dir.join("kubeconfig");
    std::fs::write(&path, kubeconfig_yaml(contexts)).map_err(|source| MockError::WriteFile {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}

/// The kubeconfig text [`write_kubeconfig`] writes.
pub fn kubeconfig_yaml(contexts: &[(&str, &str)]) -> String {
    // A JSON string is a valid YAML double-quoted scalar.
    let q = |s: &str| serde_json::Value::from(s).to_string();
    let mut y = String::from("apiVersion: v1\nkind: Config\npreferences: {}\n");
    let current = contexts.first().map(|(name, _)| *name).unwrap_or_default();
    y.push_str(&format!("current-context: {}\n", q(current)));
    y.push_str("clusters:\n");
    if contexts.is_empty() {
        y.truncate(y.len() - 1);
        y.push_str(" []\n");
    }
    for (name, uri) in contexts {
        y.push_str(&format!(
            "- name: {}\n  cluster:\n    server: {}\n",
            q(name),
            q(uri)
        ));
    }
    y.push_str(if contexts.is_empty() {
        "users: []\n"
    } else {
        "users:\n"
    });
    for (name, _) in contexts {
        y.push_str(&format!(
            "- name: {}\n  user:\n    token: {}\n",
            q(&format!("{name}-user")),
            q(&format!("mock-token-{name}"))
        ));
    }
    y.push_str(if contexts.is_empty() {
        "contexts: []\n"
    } else {
        "contexts:\n"
    });
    for (name, _) in contexts {
        y.push_str(&format!(
            "- name: {}\n  context:\n    cluster: {}\n    user: {}\n    namespace: \"default\"\n",
            q(name),
            q(name),
            q(&format!("{name}-user"))
        ));
    }
    y
}
