//! A task's `file_mounts:` (`sky/task.py::Task.from_yaml_config`): a string
//! value is a copy mount (`target: source`); a mapping is a storage
//! (`sky/data/storage.py::Storage.from_yaml_config`, checked against the
//! storage schema) or, with `store: volume`, a volume whose `source` is
//! copied under `<target>/data`; anything else is an error. Their `$VAR`s
//! are filled in first.

use serde_yaml_ng::Value;

use super::env_vars::fill_in_env_vars;
use crate::resources::RequestError;
use crate::schema::json_schema::{self, STORAGE};
use crate::schema::value::{key_text, value_text};

/// The copy mounts of a task, `(target, source)` as written (after `$VAR`
/// substitution), in YAML order; the storages checked against their schema.
pub(super) fn parse_file_mounts(
    value: Option<&Value>,
    envs: &[(String, String)],
) -> Result<Vec<(String, String)>, RequestError> {
    let Some(section) = value.filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let Value::Mapping(mounts) = fill_in_env_vars(section, envs) else {
        // The task schema has already required a mapping.
        return Ok(Vec::new());
    };
    let mut copies = Vec::new();
    let mut storages = Vec::new();
    for (dst, src) in &mounts {
        let dst = key_text(dst);
        match src {
            Value::String(s) => copies.push((dst, s.clone())),
            Value::Mapping(m) => {
                // `StoreType.VOLUME.value.lower()`: only the exact lower-case word.
                if m.get("store").and_then(Value::as_str) == Some("volume") {
                    if let Some(source) = m.get("source").and_then(Value::as_str)
                        && !source.is_empty()
                    {
                        copies.push((
                            format!("{}/data", dst.trim_end_matches('/')),
                            source.to_string(),
                        ));
                    }
                } else {
                    storages.push(src);
                }
            }
            other => {
                return Err(RequestError::value(format!(
                    "Unable to parse file_mount {dst}:{}",
                    value_text(other).unwrap_or_else(|| "None".into())
                )));
            }
        }
    }
    for storage in storages {
        json_schema::validate(storage, &STORAGE, "Invalid storage YAML: ", true)?;
    }
    Ok(copies)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mounts(yaml: &str) -> Result<Vec<(String, String)>, String> {
        let v: Value = serde_yaml_ng::from_str(yaml).expect("test yaml");
        let envs = [("B".to_string(), "bucket".to_string())];
        parse_file_mounts(Some(&v), &envs).map_err(|e| e.message)
    }

    #[test]
    fn copies_storages_and_volumes() {
        assert_eq!(
            mounts(
                "/a: ~/x\n/b: {name: $B, mode: MOUNT}\n/c/: {store: volume, name: v, source: ./d}\n/e: s3://$B"
            ),
            Ok(vec![
                ("/a".into(), "~/x".into()),
                ("/c/data".into(), "./d".into()),
                ("/e".into(), "s3://bucket".into()),
            ])
        );
        assert_eq!(
            mounts("/d: 1"),
            Err("Unable to parse file_mount /d:1".into())
        );
        assert_eq!(
            mounts("/d:"),
            Err("Unable to parse file_mount /d:None".into())
        );
        assert_eq!(
            mounts("/d:\n  name: b\n  sources: ./x"),
            Err("Invalid storage YAML: Instead of 'sources', did you mean 'source'?".into())
        );
        assert_eq!(
            mounts("/d:\n  name: b\n  persistant: true"),
            Err("Invalid storage YAML: Instead of 'persistant', did you mean 'persistent'?".into())
        );
    }
}
