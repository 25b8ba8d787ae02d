//! Credential files whose *content* SkyPilot checks before it enables a
//! cloud ([`Credential::HomeFileKeys`]): which of the required keys a file
//! defines. Only key names are looked at and reported; values are never
//! copied out of the file, so nothing secret can reach a message.
//!
//! [`Credential::HomeFileKeys`]: planner::cloud::Credential::HomeFileKeys

use std::path::Path;

use planner::cloud::KeySyntax;
use serde_yaml_ng::Value;

/// What a credential file says about its keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FileKeys {
    /// There is no such file.
    Absent,
    /// Every required key is defined.
    Complete,
    /// The file exists but lacks these keys (in the order asked for).
    Lacking(Vec<&'static str>),
    /// The file exists but cannot be read as `syntax` says; the text says
    /// where (a line number, never the content).
    Unreadable(String),
}

/// Which of `keys` the file at `path` defines.
pub(crate) fn check(path: &Path, syntax: KeySyntax, keys: &'static [&'static str]) -> FileKeys {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return FileKeys::Absent,
        Err(e) => return FileKeys::Unreadable(format!("cannot read it ({})", e.kind())),
    };
    let lacking: Vec<&'static str> = match syntax {
        KeySyntax::Yaml => {
            let doc: Value = match serde_yaml_ng::from_str(&text) {
                Ok(doc) => doc,
                // The parser's message can quote the file; keep only where.
                Err(e) => {
                    return FileKeys::Unreadable(match e.location() {
                        Some(at) => format!("it is not valid YAML (line {})", at.line()),
                        None => "it is not valid YAML".to_string(),
                    });
                }
            };
            keys.iter()
                .copied()
                .filter(|k| !yaml_has(&doc, k))
                .collect()
        }
        KeySyntax::Assignments => {
            let defined: Vec<&str> = text
                .lines()
                .map(str::trim)
                .filter_map(|l| l.split_once(" = ").map(|(k, _)| k))
                .collect();
            keys.iter()
                .copied()
                .filter(|k| !defined.contains(k))
                .collect()
        }
    };
    if lacking.is_empty() {
        FileKeys::Complete
    } else {
        FileKeys::Lacking(lacking)
    }
}

/// Whether `doc` defines the key path `key` (`a`, `a.b`, `list[].b`). An
/// empty document defines nothing; a `list[]` segment needs a non-empty
/// list whose every item defines the rest (vSphere iterates `vcenters`).
fn yaml_has(doc: &Value, key: &str) -> bool {
    let Some((head, rest)) = split_segment(key) else {
        return false;
    };
    let (name, each) = match head.strip_suffix("[]") {
        Some(name) => (name, true),
        None => (head, false),
    };
    let Some(value) = doc.as_mapping().and_then(|m| m.get(name)) else {
        return false;
    };
    match (each, rest) {
        (false, None) => true,
        (false, Some(rest)) => yaml_has(value, rest),
        (true, rest) => match value.as_sequence() {
            Some(items) if !items.is_empty() => items
                .iter()
                .all(|item| rest.is_none_or(|rest| yaml_has(item, rest))),
            _ => false,
        },
    }
}

/// `a.b.c` → (`a`, `b.c`).
fn split_segment(key: &str) -> Option<(&str, Option<&str>)> {
    if key.is_empty() {
        return None;
    }
    Some(match key.split_once('.') {
        Some((head, rest)) => (head, Some(rest)),
        None => (key, None),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const IBM: &[&str] = &["iam_api_key", "resource_group_id"];
    const VSPHERE: &[&str] = &[
        "vcenters[].name",
        "vcenters[].username",
        "vcenters[].password",
        "vcenters[].clusters",
    ];
    const SCP: &[&str] = &["access_key", "secret_key", "project_id"];

    fn run(syntax: KeySyntax, keys: &'static [&'static str], content: Option<&str>) -> FileKeys {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("credential");
        if let Some(c) = content {
            std::fs::write(&path, c).unwrap();
        }
        check(&path, syntax, keys)
    }

    #[test]
    fn keys_are_checked_per_syntax() {
        use FileKeys::*;
        let cases: &[(KeySyntax, &'static [&'static str], Option<&str>, FileKeys)] = &[
            (KeySyntax::Yaml, IBM, None, Absent),
            (
                KeySyntax::Yaml,
                IBM,
                Some("iam_api_key: k\nresource_group_id: g\n"),
                Complete,
            ),
            // SkyPilot only asks whether the key is there.
            (
                KeySyntax::Yaml,
                IBM,
                Some("iam_api_key:\nresource_group_id: g\n"),
                Complete,
            ),
            (
                KeySyntax::Yaml,
                IBM,
                Some("iam_api_key: k\n"),
                Lacking(vec!["resource_group_id"]),
            ),
            (KeySyntax::Yaml, IBM, Some(""), Lacking(IBM.to_vec())),
            (
                KeySyntax::Yaml,
                IBM,
                Some("- a\n- b\n"),
                Lacking(IBM.to_vec()),
            ),
            (
                KeySyntax::Yaml,
                IBM,
                Some("iam_api_key: [unclosed\n"),
                Unreadable("it is not valid YAML (line 2)".into()),
            ),
            (
                KeySyntax::Yaml,
                VSPHERE,
                Some(
                    "vcenters:\n- name: a\n  username: u\n  password: p\n  clusters: [{name: c}]\n",
                ),
                Complete,
            ),
            (
                KeySyntax::Yaml,
                VSPHERE,
                Some(
                    "vcenters:\n- name: a\n  username: u\n  password: p\n  clusters: []\n- name: b\n  username: u\n",
                ),
                Lacking(vec!["vcenters[].password", "vcenters[].clusters"]),
            ),
            (
                KeySyntax::Yaml,
                VSPHERE,
                Some("vcenters: []\n"),
                Lacking(VSPHERE.to_vec()),
            ),
            (
                KeySyntax::Assignments,
                SCP,
                Some("access_key = a\nsecret_key = s\nproject_id = p\n"),
                Complete,
            ),
            // `key=value` does not count, nor does `key = ` with nothing after
            // it (SkyPilot's split of the stripped line fails there).
            (
                KeySyntax::Assignments,
                SCP,
                Some("  access_key = a  \nsecret_key=s\nproject_id = \n"),
                Lacking(vec!["secret_key", "project_id"]),
            ),
        ];
        for (syntax, keys, content, want) in cases {
            assert_eq!(&run(*syntax, keys, *content), want, "{content:?}");
        }
    }

    #[test]
    fn unreadable_files_never_quote_their_content() {
        let got = run(KeySyntax::Yaml, IBM, Some("iam_api_key: \"s3cr3t\n"));
        let FileKeys::Unreadable(why) = got else {
            panic!("{got:?}");
        };
        assert!(!why.contains("s3cr3t"), "{why}");
    }
}
