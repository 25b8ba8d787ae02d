//! `$VAR` / `${VAR}` in a task's `file_mounts`, `service`, `workdir` and
//! `volumes` (`sky/task.py::_fill_in_env_vars`): filled from the task's
//! `envs` before those sections are read.

use std::sync::LazyLock;

use regex::{Captures, Regex};
use serde_yaml_ng::{Mapping, Value};

/// The pattern SkyPilot substitutes (bash variable names, braces optional).
static VAR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\$\{?\b([a-zA-Z_][a-zA-Z0-9_]*)\b\}?").expect("static regex"));

/// `text` with every known variable replaced; unknown names stay as written.
pub(crate) fn fill_str(text: &str, envs: &[(String, String)]) -> String {
    if !text.contains('$') {
        return text.to_string();
    }
    VAR.replace_all(text, |c: &Captures| {
        let name = &c[1];
        envs.iter()
            .find(|(k, _)| k == name)
            .map_or_else(|| c[0].to_string(), |(_, v)| v.clone())
    })
    .into_owned()
}

/// A section with its strings (keys and values) filled in. SkyPilot runs
/// the regex over the section's JSON dump, so only strings can change.
pub(crate) fn fill_in_env_vars(v: &Value, envs: &[(String, String)]) -> Value {
    match v {
        Value::String(s) => Value::String(fill_str(s, envs)),
        Value::Sequence(items) => {
            Value::Sequence(items.iter().map(|i| fill_in_env_vars(i, envs)).collect())
        }
        Value::Mapping(m) => Value::Mapping(
            m.iter()
                .map(|(k, v)| (fill_in_env_vars(k, envs), fill_in_env_vars(v, envs)))
                .collect::<Mapping>(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_names_are_filled_unknown_ones_kept() {
        let envs = [("MODEL".to_string(), "llama".to_string())];
        assert_eq!(
            fill_str("/m/$MODEL/${MODEL}-x/$OTHER", &envs),
            "/m/llama/llama-x/$OTHER"
        );
        let v: Value = serde_yaml_ng::from_str("{path: /v1, post_data: {model: $MODEL}}").unwrap();
        let want: Value =
            serde_yaml_ng::from_str("{path: /v1, post_data: {model: llama}}").unwrap();
        assert_eq!(fill_in_env_vars(&v, &envs), want);
    }
}
