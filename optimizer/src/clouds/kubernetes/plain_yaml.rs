//! The kubeconfig as kubectl writes it, read without a general YAML
//! parser: a fast path in front of kube's reader, which reads everything
//! else.
//!
//! kube reads a kubeconfig with `serde_saphyr` (`Kubeconfig::from_yaml`):
//! ~670 instructions per byte, 1.5 ms for 64 contexts (14.8 KB) before the
//! first request can leave. Most kubeconfigs use a small, plain part of
//! YAML: block mappings and sequences, one entry per line, scalars that are
//! quoted without escapes or plain and unmistakably strings, `true`,
//! `false`, `null`, `{}` and `[]`. [`kubeconfig_from_yaml`] hands a text
//! made only of that to kube's own `Deserialize` (so every field, default
//! and flatten is kube's) through a `serde::Deserializer` over its lines,
//! which answers as `serde_json::Value`'s would for the same values, then
//! merges it as `from_yaml` does; at the first line outside that part — a
//! comment, an anchor, a tag, a flow collection, a block scalar, an
//! escape, a tab, a duplicate key, a scalar YAML could read as anything
//! but a string, a second document — or when kube's `Deserialize` refuses
//! the text, the whole text goes to `Kubeconfig::from_yaml`, whose value or
//! error is the answer. The differential tests (`plain_yaml_tests.rs`)
//! hold the two readers equal on generated, mutated and fixture
//! kubeconfigs.

use std::fmt;

use kube::config::{Kubeconfig, KubeconfigError};
use serde::Deserialize as _;
use serde::de::value::{BorrowedStrDeserializer, StringDeserializer};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

/// Most nodes (keys, scalars, collections) read here; more goes to kube,
/// whose budget stops at 250 000 (`serde_saphyr::Budget::max_nodes`).
const MAX_NODES: usize = 100_000;
/// Deepest nesting read here; kube's budget stops at 64.
const MAX_DEPTH: usize = 32;
/// Longest key read here (YAML bounds an implicit key at 1024 characters).
const MAX_KEY_BYTES: usize = 256;
/// Most keys of one mapping read here: each key is checked against the
/// mapping's earlier ones (YAML refuses a duplicate), a linear scan that
/// must stay short. Kubeconfig mappings hold a dozen at most.
const MAX_KEYS: usize = 64;

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
///
/// The text is handed to kube's `Deserialize` straight from its lines
/// ([`Node`] is a `serde::Deserializer` over them): no tree is built
/// between the two (a `serde_json::Value` tree and `from_value` cost
/// ~60 % of the read). Kube's derived code asks for each value as it
/// reads its fields; every part of the text is read (what kube ignores is
/// walked all the same), so a text is accepted only when all of it is in
/// the plain part.
pub(super) fn read_plain(text: &str) -> Option<Kubeconfig> {
    let mut reader = Reader::new(text)?;
    let first = reader.lines.first()?;
    // The one document: a mapping at column 0 that every line belongs to.
    if first.indent != 0 || is_item(first.text) {
        return None;
    }
    let root = Node {
        reader: &mut reader,
        at: At::Block {
            indent: 0,
            depth: 0,
        },
    };
    let document = Kubeconfig::deserialize(root).ok()?;
    if reader.pos != reader.lines.len() {
        return None;
    }
    // `from_yaml` folds its documents into a default one.
    Kubeconfig::default().merge(document).ok()
}

/// Why the plain path did not read a text: it is left to kube, whose
/// error (if any) is the answer, so no reason is kept (and no message
/// formatted).
#[derive(Debug)]
struct Refused;

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not in the plain part of YAML read here")
    }
}

impl std::error::Error for Refused {}

impl de::Error for Refused {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Refused
    }
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
    /// The keys of the mappings being read, innermost last (each mapping
    /// knows where its own start).
    keys: Vec<&'a str>,
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
            keys: Vec::with_capacity(32),
        })
    }

    /// Counts a node; refused past [`MAX_NODES`].
    fn count(&mut self) -> Result<(), Refused> {
        self.nodes += 1;
        if self.nodes <= MAX_NODES {
            Ok(())
        } else {
            Err(Refused)
        }
    }

    /// The block (sequence or mapping) whose first line is the current one,
    /// at `indent`, handed to `visitor`; a sequence only when `sequence_ok`.
    /// The visitor must read the whole block.
    fn block<V: Visitor<'a>>(
        &mut self,
        indent: usize,
        depth: usize,
        sequence_ok: bool,
        visitor: V,
    ) -> Result<V::Value, Refused> {
        if depth > MAX_DEPTH {
            return Err(Refused);
        }
        self.count()?;
        if is_item(self.lines.get(self.pos).ok_or(Refused)?.text) {
            if !sequence_ok {
                return Err(Refused);
            }
            let mut items = Sequence {
                reader: self,
                indent,
                depth,
                done: false,
            };
            let value = visitor.visit_seq(&mut items)?;
            if items.done { Ok(value) } else { Err(Refused) }
        } else {
            let keys_from = self.keys.len();
            let mut entries = Mapping {
                reader: self,
                indent,
                depth,
                keys_from,
                rest: "",
                done: false,
            };
            let value = visitor.visit_map(&mut entries)?;
            let done = entries.done;
            self.keys.truncate(keys_from);
            if done { Ok(value) } else { Err(Refused) }
        }
    }

    /// An inline value whose line was just read, with the lines after it
    /// indented past `indent`: a plain scalar's continuation lines, folded
    /// into it with a space each, as YAML folds them (gcloud writes a long
    /// `installHint` so).
    fn inline(&mut self, first: &'a str, indent: usize) -> Result<Scalar<'a>, Refused> {
        let value = inline_value(first).ok_or(Refused)?;
        if self
            .lines
            .get(self.pos)
            .is_none_or(|next| next.indent <= indent)
        {
            return Ok(value);
        }
        // Only a plain scalar goes on (after a quoted one, a `true`, a
        // `{}`: left to kube).
        if !matches!(value, Scalar::Str(_)) || !plain_scalar(first) {
            return Err(Refused);
        }
        let mut text = first.to_owned();
        while let Some(line) = self.lines.get(self.pos).copied() {
            if line.indent <= indent {
                break;
            }
            if line.blank_before || !plain_scalar(line.text) || split_key(line.text).is_some() {
                return Err(Refused);
            }
            text.push(' ');
            text.push_str(line.text);
            self.pos += 1;
        }
        Ok(Scalar::Folded(text))
    }
}

/// An inline value as YAML reads it.
enum Scalar<'a> {
    Null,
    Bool(bool),
    /// `{}`.
    EmptyMap,
    /// `[]`.
    EmptySeq,
    /// A string as the text holds it (plain, or inside its quotes).
    Str(&'a str),
    /// A plain string folded from continuation lines.
    Folded(String),
}

impl<'a> Scalar<'a> {
    /// Hands the value to `visitor` as `serde_json::Value`'s deserializer
    /// hands the same value.
    fn visit<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Refused> {
        match self {
            Scalar::Null => visitor.visit_unit(),
            Scalar::Bool(b) => visitor.visit_bool(b),
            Scalar::EmptyMap => visitor.visit_map(Empty),
            Scalar::EmptySeq => visitor.visit_seq(Empty),
            Scalar::Str(s) => visitor.visit_borrowed_str(s),
            Scalar::Folded(s) => visitor.visit_string(s),
        }
    }
}

/// Where a value is in the text.
enum At<'a> {
    /// A block (mapping or sequence) whose first line is the current one.
    Block { indent: usize, depth: usize },
    /// An inline value (its line already read); continuation lines
    /// indented past `indent` may follow.
    Inline { text: &'a str, indent: usize },
    /// An inline value already read.
    Read(Scalar<'a>),
}

/// One value of the text, as a `serde::Deserializer`. It answers as
/// `serde_json::Value`'s deserializer answers for the tree of the same
/// text (which kube's `Deserialize` was given before), except that it
/// refuses a struct written as a sequence and an enum written as a
/// mapping (refusing is always safe: the text goes to kube).
struct Node<'r, 'a> {
    reader: &'r mut Reader<'a>,
    at: At<'a>,
}

impl<'de> de::Deserializer<'de> for Node<'_, 'de> {
    type Error = Refused;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        match self.at {
            At::Block { indent, depth } => self.reader.block(indent, depth, true, visitor),
            At::Inline { text, indent } => self.reader.inline(text, indent)?.visit(visitor),
            At::Read(scalar) => scalar.visit(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        let at = match self.at {
            At::Inline { text, indent } => At::Read(self.reader.inline(text, indent)?),
            at => at,
        };
        match at {
            At::Read(Scalar::Null) => visitor.visit_none(),
            at => visitor.visit_some(Node {
                reader: self.reader,
                at,
            }),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Refused> {
        let scalar = match self.at {
            At::Block { indent, depth } => {
                return self.reader.block(indent, depth, false, visitor);
            }
            At::Inline { text, indent } => self.reader.inline(text, indent)?,
            At::Read(scalar) => scalar,
        };
        match scalar {
            Scalar::EmptyMap => visitor.visit_map(Empty),
            _ => Err(Refused),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Refused> {
        let scalar = match self.at {
            At::Block { .. } => return Err(Refused),
            At::Inline { text, indent } => self.reader.inline(text, indent)?,
            At::Read(scalar) => scalar,
        };
        // A unit variant by its name, as `Value::String` gives it.
        match scalar {
            Scalar::Str(s) => visitor.visit_enum(BorrowedStrDeserializer::new(s)),
            Scalar::Folded(s) => visitor.visit_enum(StringDeserializer::new(s)),
            _ => Err(Refused),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Refused> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        // What kube ignores is read all the same: the whole text must be
        // in the plain part.
        self.deserialize_any(de::IgnoredAny)?;
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map identifier
    }
}

/// A block mapping at `indent`: `key: value` or `key:` and a nested block,
/// one key per line, until a line less indented.
struct Mapping<'r, 'a> {
    reader: &'r mut Reader<'a>,
    indent: usize,
    depth: usize,
    /// Where this mapping's keys start in [`Reader::keys`].
    keys_from: usize,
    /// What follows the colon of the key just read.
    rest: &'a str,
    /// Whether the mapping's end was reached.
    done: bool,
}

impl<'a> MapAccess<'a> for Mapping<'_, 'a> {
    type Error = Refused;

    fn next_key_seed<K: DeserializeSeed<'a>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Refused> {
        let reader = &mut *self.reader;
        let Some(line) = reader.lines.get(reader.pos).copied() else {
            self.done = true;
            return Ok(None);
        };
        if line.indent < self.indent {
            self.done = true;
            return Ok(None);
        }
        if line.indent > self.indent || is_item(line.text) {
            return Err(Refused);
        }
        let (key, rest) = split_key(line.text).ok_or(Refused)?;
        let earlier = &reader.keys[self.keys_from..];
        if earlier.len() >= MAX_KEYS || earlier.contains(&key) {
            return Err(Refused);
        }
        reader.keys.push(key);
        reader.pos += 1;
        reader.count()?;
        self.rest = rest;
        seed.deserialize(BorrowedStrDeserializer::new(key))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'a>>(&mut self, seed: V) -> Result<V::Value, Refused> {
        let reader = &mut *self.reader;
        let at = if self.rest.is_empty() {
            // A block more indented, or a sequence at the key's own
            // indentation. (A key with no value at all is null in YAML;
            // left to kube.)
            let line = reader.lines.get(reader.pos).ok_or(Refused)?;
            if line.indent > self.indent || (line.indent == self.indent && is_item(line.text)) {
                At::Block {
                    indent: line.indent,
                    depth: self.depth + 1,
                }
            } else {
                return Err(Refused);
            }
        } else {
            reader.count()?;
            At::Inline {
                text: self.rest.strip_prefix(' ').ok_or(Refused)?,
                indent: self.indent,
            }
        };
        seed.deserialize(Node { reader, at })
    }
}

/// A block sequence at `indent`: `- ` items, each a scalar or a block
/// starting on the item's line.
struct Sequence<'r, 'a> {
    reader: &'r mut Reader<'a>,
    indent: usize,
    depth: usize,
    /// Whether the sequence's end was reached.
    done: bool,
}

impl<'a> SeqAccess<'a> for Sequence<'_, 'a> {
    type Error = Refused;

    fn next_element_seed<T: DeserializeSeed<'a>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Refused> {
        let reader = &mut *self.reader;
        let Some(line) = reader.lines.get(reader.pos).copied() else {
            self.done = true;
            return Ok(None);
        };
        if line.indent != self.indent || !is_item(line.text) {
            self.done = true;
            return Ok(None);
        }
        let after = line.text.get(2..).ok_or(Refused)?;
        let rest = after.trim_start_matches(' ');
        if rest.is_empty() {
            return Err(Refused);
        }
        let at = if is_item(rest) || split_key(rest).is_some() {
            // The item's block starts on this line, at the column of `rest`.
            let column = self.indent + 2 + (after.len() - rest.len());
            reader.lines[reader.pos] = Line {
                indent: column,
                text: rest,
                blank_before: line.blank_before,
            };
            At::Block {
                indent: column,
                depth: self.depth + 1,
            }
        } else {
            reader.pos += 1;
            reader.count()?;
            At::Inline {
                text: rest,
                indent: self.indent,
            }
        };
        seed.deserialize(Node { reader, at }).map(Some)
    }
}

/// The entries of `{}` and the items of `[]`.
struct Empty;

impl<'a> MapAccess<'a> for Empty {
    type Error = Refused;

    fn next_key_seed<K: DeserializeSeed<'a>>(&mut self, _: K) -> Result<Option<K::Value>, Refused> {
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'a>>(&mut self, _: V) -> Result<V::Value, Refused> {
        // Never asked: there is no key.
        Err(Refused)
    }
}

impl<'a> SeqAccess<'a> for Empty {
    type Error = Refused;

    fn next_element_seed<T: DeserializeSeed<'a>>(
        &mut self,
        _: T,
    ) -> Result<Option<T::Value>, Refused> {
        Ok(None)
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
fn inline_value(text: &str) -> Option<Scalar<'_>> {
    match text {
        "{}" => return Some(Scalar::EmptyMap),
        "[]" => return Some(Scalar::EmptySeq),
        "true" => return Some(Scalar::Bool(true)),
        "false" => return Some(Scalar::Bool(false)),
        "null" => return Some(Scalar::Null),
        _ => {}
    }
    // The text is printable ASCII (`Reader::new`): bytes are characters.
    let quoted = |q: u8, forbidden: &[u8]| {
        let inner = text.as_bytes().strip_prefix(&[q])?.strip_suffix(&[q])?;
        (!inner.iter().any(|b| forbidden.contains(b)))
            .then(|| Scalar::Str(&text[1..text.len() - 1]))
    };
    match text.as_bytes().first()? {
        // `\` starts an escape; `''` is an escaped quote.
        b'"' => quoted(b'"', b"\"\\"),
        b'\'' => quoted(b'\'', b"'"),
        _ => plain_scalar(text).then_some(Scalar::Str(text)),
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
