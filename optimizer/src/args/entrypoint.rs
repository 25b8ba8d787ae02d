//! SkyPilot's doubt about an entrypoint that looks like a task YAML but
//! cannot be one (`sky/client/cli/command.py::_check_yaml_only`): the
//! reason its `_check_yaml` puts in the question "'<p>' looks like a yaml
//! path but <reason>… Continue?", asked even with `-y`.

use std::path::Path;

use serde::Deserializer as _;
use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::input::{InputError, MAX_TASK_FILE_BYTES, read_regular};

/// Why an entrypoint that looks like a YAML path is not a readable task
/// YAML, worded as `_check_yaml_only` words it (empty when the file loads
/// as a plain string: SkyPilot then gives no reason). `None`: no question
/// (not a YAML path, or a YAML that loads).
pub fn yaml_doubt(words: &[String]) -> Option<String> {
    let entrypoint = words.join(" ");
    // `yaml_file_provided`: one shell word ending in `yaml` (sic: not
    // `.yaml`) or `.yml`.
    let provided = shlex::split(&entrypoint).is_some_and(
        |w| matches!(w.as_slice(), [one] if one.ends_with("yaml") || one.ends_with(".yml")),
    );
    if !provided {
        return None;
    }
    // SkyPilot opens the path as given (no `~`), and expands `~` only to
    // say why it could not.
    let bytes = match read_regular(Path::new(&entrypoint), MAX_TASK_FILE_BYTES) {
        Ok(bytes) => bytes,
        Err(e) => return Some(unreadable(&entrypoint, &e)),
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return Some("is not a valid UTF-8 text file and cannot be parsed as YAML.".into());
    };
    match first_document(&text) {
        Ok(Kind::Text) => Some(String::new()),
        Ok(Kind::Other) => None,
        // PyYAML's own wording of the error is not reproduced: the parser
        // here is another one (serde_yaml_ng), with its own message.
        Err(e) => Some(format!(
            "contains an invalid configuration. Please check syntax.\n\nYAML Error: {e}\n"
        )),
    }
}

/// `_check_yaml_only`'s reason for an `open()` that failed. Where
/// SkyPilot would not fail but block or read without end (a FIFO, a
/// device) or read a file past the task-file cap, the reason is ours.
fn unreadable(entrypoint: &str, error: &InputError) -> String {
    let expanded = expand_user(entrypoint);
    match (std::fs::metadata(&expanded), error) {
        (Err(_), _) => "does not exist. Please check if the path is correct.".into(),
        (Ok(m), _) if m.is_dir() => "is not a file. Please check if the path is correct.".into(),
        (Ok(_), InputError::NotRegular { kind, .. }) => {
            format!("is {kind}, not a regular file. Please check if the path is correct.")
        }
        (Ok(_), InputError::TooLarge { limit, .. }) => {
            format!("is larger than {limit} bytes, too large for a task YAML.")
        }
        // A regular file that could not be read (permissions): Python's
        // `open()` fails the same way.
        (Ok(_), InputError::Io { .. }) => {
            "yaml.safe_load() failed. Please check if the path is correct.".into()
        }
    }
}

/// `os.path.expanduser`: a leading `~` or `~/` is `$HOME`.
fn expand_user(path: &str) -> std::path::PathBuf {
    let home = std::env::var_os("HOME");
    match (path.strip_prefix('~'), home) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => {
            let mut p = std::path::PathBuf::from(home);
            p.push(rest.trim_start_matches('/'));
            p
        }
        _ => path.into(),
    }
}

/// What the first YAML document is, as far as the question cares.
enum Kind {
    /// A plain string (`'sky exec cluster ./my_script.sh'`): not a task.
    Text,
    /// Anything else (a mapping, a list, nothing).
    Other,
}

/// Every document parsed (a syntax error anywhere is an error, as
/// `safe_load_all` reads them all), the first one's kind kept. Values are
/// visited, never built: duplicate keys are not this check's business
/// (SkyPilot reports them later, with its own message).
fn first_document(text: &str) -> Result<Kind, serde_yaml_ng::Error> {
    let mut kind = Kind::Other;
    for (i, document) in serde_yaml_ng::Deserializer::from_str(text).enumerate() {
        let k = document.deserialize_any(KindVisitor)?;
        if i == 0 {
            kind = k;
        }
    }
    Ok(kind)
}

struct KindVisitor;

impl<'de> Visitor<'de> for KindVisitor {
    type Value = Kind;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any YAML document")
    }

    fn visit_str<E>(self, _: &str) -> Result<Kind, E> {
        Ok(Kind::Text)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Kind, E> {
        Ok(Kind::Other)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Kind, E> {
        Ok(Kind::Other)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Kind, E> {
        Ok(Kind::Other)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Kind, E> {
        Ok(Kind::Other)
    }

    fn visit_unit<E>(self) -> Result<Kind, E> {
        Ok(Kind::Other)
    }

    fn visit_none<E>(self) -> Result<Kind, E> {
        Ok(Kind::Other)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Kind, D::Error> {
        d.deserialize_any(KindVisitor)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Kind, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Kind::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Kind, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Kind::Other)
    }

    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<Kind, A::Error> {
        // A tagged value (`!tag x`).
        use serde::de::VariantAccess;
        let (IgnoredAny, variant) = data.variant::<IgnoredAny>()?;
        variant.newtype_variant::<IgnoredAny>()?;
        Ok(Kind::Other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doubt_of(name: &str, content: Option<&[u8]>) -> Option<String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        if let Some(content) = content {
            std::fs::write(&path, content).unwrap();
        }
        yaml_doubt(&[path.display().to_string()])
    }

    #[test]
    fn each_reason_is_skypilots() {
        /// A file name, its content (`None`: no file), the reason expected.
        type Case<'a> = (&'a str, Option<&'a [u8]>, Option<&'a str>);
        let cases: &[Case] = &[
            ("t.yaml", Some(b"resources:\n  cpus: 2\n"), None),
            ("t.yaml", Some(b""), None),
            ("t.yaml", Some(b"a: 1\na: 2\n"), None),
            ("t.yml", Some(b"- 1\n- 2\n"), None),
            (
                "t.yaml",
                None,
                Some("does not exist. Please check if the path is correct."),
            ),
            // `yaml`, not `.yaml`, as SkyPilot tests it.
            (
                "tyaml",
                None,
                Some("does not exist. Please check if the path is correct."),
            ),
            ("t.json", None, None),
            (
                "t.yaml",
                Some(b"\xff\xfe"),
                Some("is not a valid UTF-8 text file and cannot be parsed as YAML."),
            ),
            ("t.yaml", Some(b"echo hi\n"), Some("")),
        ];
        for (name, content, expected) in cases {
            assert_eq!(
                doubt_of(name, *content).as_deref(),
                *expected,
                "{name} {content:?}"
            );
        }
    }

    #[test]
    fn a_syntax_error_anywhere_is_a_doubt_with_the_parsers_message() {
        for content in [&b"a: [1\n"[..], b"a: 1\n---\nb: : :\n  - x\n c"] {
            let reason = doubt_of("t.yaml", Some(content)).expect("a doubt");
            assert!(
                reason.starts_with(
                    "contains an invalid configuration. Please check syntax.\n\nYAML Error: "
                ) && reason.ends_with('\n'),
                "{reason:?}"
            );
        }
    }

    #[test]
    fn a_folder_is_not_a_file_and_several_words_are_a_command() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("d.yaml");
        std::fs::create_dir(&folder).unwrap();
        assert_eq!(
            yaml_doubt(&[folder.display().to_string()]).as_deref(),
            Some("is not a file. Please check if the path is correct.")
        );
        let fifo = dir.path().join("f.yaml");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        // SkyPilot would block opening it; refused at once, never read.
        assert_eq!(
            yaml_doubt(&[fifo.display().to_string()]).as_deref(),
            Some("is a FIFO, not a regular file. Please check if the path is correct.")
        );
        assert_eq!(yaml_doubt(&["echo".into(), "a.yaml".into()]), None);
        assert_eq!(yaml_doubt(&[]), None);
    }
}
