//! The kubeconfig as kubectl writes it, read without a general YAML
//! parser: a fast path in front of kube's reader, which reads everything
//! else.
//!
//! kube reads a kubeconfig with `serde_saphyr` (`Kubeconfig::from_yaml`):
//! ~670 instructions per byte, 1.5 ms for 64 contexts (14.8 KB) before the
//! first request can leave. Most kubeconfigs use a small, plain part of
//! YAML: block mappings and sequences, one entry per line, scalars that are
//! quoted without escapes or plain and unmistakably strings, `true`,
//! `false`, `null`, `{}` and `[]`. [`kubeconfig_from_yaml`] reads a text made
//! only of that into a JSON tree and hands it to kube's own `Deserialize`
//! (so every field, default and flatten is kube's), then merges it as
//! `from_yaml` does; at the first line outside that part — a comment, an
//! anchor, a tag, a flow collection, a block scalar, an escape, a tab, a
//! duplicate key, a scalar YAML could read as anything but a string, a
//! second document — or when kube's `Deserialize` refuses the tree, the
//! whole text goes to `Kubeconfig::from_yaml`, whose value or error is the
//! answer. The differential tests (`plain_yaml_tests.rs`) hold the two
//! readers equal on generated, mutated and fixture kubeconfigs.

use kube::config::{Kubeconfig, KubeconfigError};
use serde_json::{Map, Value};

/// Most nodes (keys, scalars, collections) read here; more goes to kube,
/// whose budget stops at 250 000 (`serde_saphyr::Budget::max_nodes`).
const MAX_NODES: usize = 100_000;
/// Deepest nesting read here; kube's budget stops at 64.
const MAX_DEPTH: usize = 32;
/// Longest key read here (YAML bounds an implicit key at 1024 characters).
const MAX_KEY_BYTES: usize = 256;

/// One kubeconfig file's text read as `Kubeconfig::from_yaml` reads it:
/// the same value for every text, or kube's error.
pub(super) fn kubeconfig_from_yaml(text: &str) -> Result<Kubeconfig, KubeconfigError> {
    match read_plain(text) {
        Some(kubeconfig) => Ok(kubeconfig),
        None => Kubeconfig::from_yaml(text),
    }
}

/// The kubeconfig of a text in the plain part of YAML that kube's
/// `Deserialize` accepts; `None` for any other text.
pub(super) fn read_plain(text: &str) -> Option<Kubeconfig> {
    let root = Reader::new(text)?.document()?;
    let document: Kubeconfig = serde_json::from_value(root).ok()?;
    // `from_yaml` folds its documents into a default one.
    Kubeconfig::default().merge(document).ok()
}

/// A non-blank line: its indentation and what follows it.
#[derive(Clone, Copy)]
struct Line<'a> {
    indent: usize,
    text: &'a str,
    /// Whether a blank line comes just before it: inside a multi-line
    /// plain scalar YAML reads that as a line break, not a space (left to
    /// kube).
    blank_before: bool,
}

/// The lines of a text, read as nested blocks from `pos` on.
struct Reader<'a> {
    lines: Vec<Line<'a>>,
    pos: usize,
    nodes: usize,
}

impl<'a> Reader<'a> {
    /// The text's lines; `None` for a byte other than printable ASCII and
    /// `\n`, a line of spaces, trailing spaces, or a comment line.
    fn new(text: &'a str) -> Option<Self> {
        if !text
            .bytes()
            .all(|b| b == b'\n' || (0x20..0x7f).contains(&b))
        {
            return None;
        }
        let mut lines = Vec::with_capacity(text.len() / 24);
        let mut blank_before = false;
        // The lines as `text.split('\n')` gives them, cut at byte offsets:
        // `str::split` with a char pattern costs ~180 instructions a line
        // (its searcher's set-up), most of the line's own reading.
        let mut start = 0;
        for piece in text.as_bytes().split(|&b| b == b'\n') {
            let raw = &text[start..start + piece.len()];
            start += piece.len() + 1;
            if raw.is_empty() {
                blank_before = true;
                continue;
            }
            let text = raw.trim_start_matches(' ');
            if text.is_empty() || text.ends_with(' ') || text.starts_with('#') {
                return None;
            }
            lines.push(Line {
                indent: raw.len() - text.len(),
                text,
                blank_before,
            });
            blank_before = false;
        }
        Some(Reader {
            lines,
            pos: 0,
            nodes: 0,
        })
    }

    /// The one document: a mapping at column 0 that every line belongs to.
    fn document(mut self) -> Option<Value> {
        if self.lines.first()?.indent != 0 || is_item(self.lines[0].text) {
            return None;
        }
        let root = self.block(0, 0)?;
        (self.pos == self.lines.len()).then_some(root)
    }

    /// Counts a node; `None` past [`MAX_NODES`].
    fn count(&mut self) -> Option<()> {
        self.nodes += 1;
        (self.nodes <= MAX_NODES).then_some(())
    }

    /// The block (sequence or mapping) whose first line is the current one,
    /// at `indent`.
    fn block(&mut self, indent: usize, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.count()?;
        if is_item(self.lines.get(self.pos)?.text) {
            self.sequence(indent, depth)
        } else {
            self.mapping(indent, depth)
        }
    }

    /// A block mapping at `indent`: `key: value` or `key:` and a nested
    /// block, one key per line, until a line less indented.
    fn mapping(&mut self, indent: usize, depth: usize) -> Option<Value> {
        let mut map = Map::new();
        while let Some(line) = self.lines.get(self.pos).copied() {
            if line.indent < indent {
                break;
            }
            if line.indent > indent || is_item(line.text) {
                return None;
            }
            let (key, rest) = split_key(line.text)?;
            self.pos += 1;
            self.count()?;
            let value = if rest.is_empty() {
                self.nested(indent, depth)?
            } else {
                self.count()?;
                self.scalar(rest.strip_prefix(' ')?, indent)?
            };
            if map.insert(key.to_owned(), value).is_some() {
                return None;
            }
        }
        Some(Value::Object(map))
    }

    /// The value of a key at `indent` with nothing after its colon: a block
    /// more indented, or a sequence at the key's own indentation. (A key
    /// with no value at all is null in YAML; left to kube.)
    fn nested(&mut self, indent: usize, depth: usize) -> Option<Value> {
        let line = *self.lines.get(self.pos)?;
        if line.indent > indent || (line.indent == indent && is_item(line.text)) {
            self.block(line.indent, depth + 1)
        } else {
            None
        }
    }

    /// A block sequence at `indent`: `- ` items, each a scalar or a block
    /// starting on the item's line.
    fn sequence(&mut self, indent: usize, depth: usize) -> Option<Value> {
        let mut items = Vec::new();
        while let Some(line) = self.lines.get(self.pos).copied() {
            if line.indent != indent || !is_item(line.text) {
                break;
            }
            let after = line.text.get(2..)?;
            let rest = after.trim_start_matches(' ');
            if rest.is_empty() {
                return None;
            }
            if is_item(rest) || split_key(rest).is_some() {
                // The item's block starts on this line, at the column of `rest`.
                let column = indent + 2 + (after.len() - rest.len());
                self.lines[self.pos] = Line {
                    indent: column,
                    text: rest,
                    blank_before: line.blank_before,
                };
                items.push(self.block(column, depth + 1)?);
            } else {
                self.pos += 1;
                self.count()?;
                items.push(self.scalar(rest, indent)?);
            }
        }
        Some(Value::Array(items))
    }
}

impl Reader<'_> {
    /// An inline value whose line was just read, with the lines after it
    /// indented past `indent`: a plain scalar's continuation lines, folded
    /// into it with a space each, as YAML folds them (gcloud writes a long
    /// `installHint` so).
    fn scalar(&mut self, first: &str, indent: usize) -> Option<Value> {
        let value = inline_value(first)?;
        let Some(next) = self.lines.get(self.pos) else {
            return Some(value);
        };
        if next.indent <= indent {
            return Some(value);
        }
        // Only a plain scalar goes on (after a quoted one, a `true`, a
        // `{}`: left to kube).
        let Value::String(mut text) = value else {
            return None;
        };
        if !plain_scalar(first) {
            return None;
        }
        while let Some(line) = self.lines.get(self.pos).copied() {
            if line.indent <= indent {
                break;
            }
            if line.blank_before || !plain_scalar(line.text) || split_key(line.text).is_some() {
                return None;
            }
            text.push(' ');
            text.push_str(line.text);
            self.pos += 1;
        }
        Some(Value::String(text))
    }
}

/// Whether a line's text starts a sequence item (`- ...` or a lone `-`).
fn is_item(text: &str) -> bool {
    text == "-" || text.starts_with("- ")
}

/// A mapping line's plain key and what follows its colon (empty, or a
/// space and the value); `None` when the line does not start with a key
/// read here.
fn split_key(text: &str) -> Option<(&str, &str)> {
    let colon = text.bytes().position(|b| b == b':')?;
    let (key, rest) = (&text[..colon], &text[colon + 1..]);
    let plain_key = key.len() <= MAX_KEY_BYTES
        && key.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/'))
        && !resolves_otherwise(key);
    (plain_key && (rest.is_empty() || rest.starts_with(' '))).then_some((key, rest))
}

/// An inline value: `{}`, `[]`, a quoted string without escapes, `true`,
/// `false`, `null`, or a plain scalar that YAML reads as a string only.
fn inline_value(text: &str) -> Option<Value> {
    match text {
        "{}" => return Some(Value::Object(Map::new())),
        "[]" => return Some(Value::Array(Vec::new())),
        "true" => return Some(Value::Bool(true)),
        "false" => return Some(Value::Bool(false)),
        "null" => return Some(Value::Null),
        _ => {}
    }
    // The text is printable ASCII (`Reader::new`): bytes are characters.
    let quoted = |q: u8, forbidden: &[u8]| {
        let inner = text.as_bytes().strip_prefix(&[q])?.strip_suffix(&[q])?;
        (!inner.iter().any(|b| forbidden.contains(b)))
            .then(|| Value::String(text[1..text.len() - 1].to_owned()))
    };
    match text.as_bytes().first()? {
        // `\` starts an escape; `''` is an escaped quote.
        b'"' => quoted(b'"', b"\"\\"),
        b'\'' => quoted(b'\'', b"'"),
        _ => plain_scalar(text).then(|| Value::String(text.to_owned())),
    }
}

/// Whether `text` is a plain scalar that YAML reads as this string and
/// nothing else: it starts with a letter, `/`, `_` or dashes and a letter
/// (`--region`), holds letters, digits, spaces and `._/:=+@-~%#` only, no
/// `: ` or ` #`, does not end with `:`, and is no boolean, null or
/// infinity spelling.
fn plain_scalar(text: &str) -> bool {
    let bytes = text.as_bytes();
    let undashed = text.trim_start_matches('-');
    let start = match bytes.first() {
        Some(b'-') => undashed
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic()),
        Some(b) => b.is_ascii_alphabetic() || matches!(b, b'/' | b'_'),
        None => false,
    };
    start
        && bytes.iter().enumerate().all(|(i, &b)| {
            let after = i.checked_sub(1).map(|p| bytes[p]);
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'.' | b'_' | b'/' | b':' | b'=' | b'+' | b'@' | b'-' | b'~' | b'%'
                )
                // No `: ` (a key) and no ` #` (a comment).
                || (b == b' ' && after != Some(b':'))
                || (b == b'#' && after.is_some_and(|a| a != b' '))
        })
        && !text.ends_with(':')
        && !resolves_otherwise(undashed)
}

/// Whether a plain scalar starting with a letter could be read as anything
/// but a string: YAML 1.1 booleans (which `serde_saphyr` reads), null, and
/// the spellings of infinity and not-a-number.
fn resolves_otherwise(text: &str) -> bool {
    // By length first: every key and most scalars are compared to none.
    let words: &[&str] = match text.len() {
        1 => &["y", "n", "~"],
        2 => &["no", "on"],
        3 => &["yes", "off", "inf", "nan"],
        4 => &["true", "null"],
        5 => &["false"],
        8 => &["infinity"],
        _ => &[],
    };
    words.iter().any(|w| text.eq_ignore_ascii_case(w))
}

#[cfg(test)]
#[path = "plain_yaml_tests.rs"]
mod tests;
