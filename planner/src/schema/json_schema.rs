//! The subset of JSON Schema (Draft 7, as `jsonschema` 4.26 implements it)
//! that SkyPilot 0.14.1's task-file schemas use, with the first error and
//! the wording `sky/utils/common_utils.py::validate_schema` reports.
//!
//! The schemas themselves are data: `skypilot/*.json`, dumped from 0.14.1's
//! `sky/utils/schemas.py` by `harness/conformance/dump_schemas.py`, keys in
//! their order, compiled into static trees by `build.rs`
//! ([`static_schema`](super::static_schema)). Order matters: `jsonschema`'s `iter_errors` walks a schema's
//! keywords in the order they are written (`type`, `required`,
//! `additionalProperties`, then `properties` one by one), and
//! `validate_schema` reports the *first* error, so an unknown field beats a
//! wrong type of a known one.
//!
//! What is reproduced:
//! * the keywords `type`, `required`, `properties`, `patternProperties`,
//!   `additionalProperties`, `items`, `anyOf`, `oneOf`, `not`, `enum`,
//!   SkyPilot's `case_insensitive_enum`/`case_sensitive_enum`
//!   (`sky/utils/validator.py`), `pattern`, `minimum`, `maximum`,
//!   `exclusiveMinimum`, `minItems`, `maxItems`, `minLength`, `maxLength`,
//!   `minProperties`, `maxProperties`, `uniqueItems`, each with jsonschema's
//!   message (`jsonschema/_keywords.py`), values shown as Python's `repr`;
//! * `jsonschema.exceptions.best_match` and its `relevance` key, which
//!   descends into an `anyOf`/`oneOf` error's context;
//! * `validate_schema`: `skip_none`, the did-you-mean sentences for an
//!   `additionalProperties` error, the `envs` special case, `type 'object'`
//!   shown as `type 'dict'`, the JSON path suffix.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use serde_yaml_ng::Value;

use super::static_schema::{self, S};
use super::value::{key_text, py_value_repr};
use crate::pytext::{close_matches, py_str_repr};
use crate::resources::{ErrorKind, RequestError};

/// One of SkyPilot's schemas: static data compiled in (nothing to parse).
pub(crate) struct Schema(&'static S);

impl Schema {
    fn root(&self) -> &'static S {
        self.0
    }
}

/// `schemas.get_task_schema()`.
pub(crate) static TASK: Schema = Schema(&static_schema::TASK);
/// `schemas.get_resources_schema()`.
pub(crate) static RESOURCES: Schema = Schema(&static_schema::RESOURCES);
/// `schemas.get_service_schema()`.
pub(crate) static SERVICE: Schema = Schema(&static_schema::SERVICE);
/// `schemas.get_storage_schema()`.
pub(crate) static STORAGE: Schema = Schema(&static_schema::STORAGE);

/// A schema object's keywords, in file order.
type Keywords = [(&'static str, S)];

/// A step into an instance: a mapping key or a list index.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Index(usize),
    Key(String),
}

impl PartialOrd for Step {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Step {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Step::Index(a), Step::Index(b)) => a.cmp(b),
            (Step::Key(a), Step::Key(b)) => a.cmp(b),
            (Step::Index(_), Step::Key(_)) => Ordering::Less,
            (Step::Key(_), Step::Index(_)) => Ordering::Greater,
        }
    }
}

/// One `jsonschema.ValidationError`.
#[derive(Debug)]
struct SchemaError {
    /// The keyword that failed (`error.validator`).
    keyword: &'static str,
    message: String,
    /// `error.absolute_path`.
    path: Vec<Step>,
    /// Where `error.path` (relative to the enclosing `anyOf`/`oneOf`'s
    /// instance, or the root) starts in `path`.
    rel_start: usize,
    /// `error.absolute_schema_path` as text.
    schema_path: Vec<String>,
    /// `error._matches_type()`.
    matches_type: bool,
    /// The sub-errors of an `anyOf`/`oneOf` (`error.context`).
    context: Vec<SchemaError>,
    /// For an `additionalProperties: false` error: the object's keys (in
    /// YAML order) and the schema's `properties`.
    unknown: Option<(Vec<String>, Vec<String>)>,
}

impl SchemaError {
    /// `jsonschema.exceptions.relevance`: smaller is "deeper and more
    /// specific" (used with `min`).
    fn relevance(&self) -> (isize, &[Step], bool, bool, bool) {
        let rel = &self.path[self.rel_start..];
        (
            -(rel.len() as isize),
            rel,
            !matches!(self.keyword, "anyOf" | "oneOf"),
            false,
            !self.matches_type,
        )
    }

    /// `error.json_path`.
    fn json_path(&self) -> String {
        static PLAIN: LazyLock<Regex> =
            LazyLock::new(|| Regex::new("^[a-zA-Z][a-zA-Z0-9_]*$").expect("static regex"));
        let mut out = String::from("$");
        for step in &self.path {
            match step {
                Step::Index(i) => out.push_str(&format!("[{i}]")),
                Step::Key(k) if PLAIN.is_match(k) => {
                    out.push('.');
                    out.push_str(k);
                }
                Step::Key(k) => {
                    out.push_str("['");
                    out.push_str(&k.replace('\\', "\\\\").replace('\'', "\\'"));
                    out.push_str("']");
                }
            }
        }
        out
    }
}

/// `jsonschema.exceptions.best_match([error])`.
fn best_match(mut best: &SchemaError) -> &SchemaError {
    while !best.context.is_empty() {
        let mut sorted: Vec<&SchemaError> = best.context.iter().collect();
        sorted.sort_by(|a, b| {
            a.relevance()
                .partial_cmp(&b.relevance())
                .unwrap_or(Ordering::Equal)
        });
        if sorted.len() >= 2 && sorted[0].relevance() == sorted[1].relevance() {
            return best;
        }
        best = sorted[0];
    }
    best
}

/// Draft 7's type checker.
fn is_type(v: &Value, ty: &str) -> bool {
    match (ty, v) {
        ("object", Value::Mapping(_))
        | ("array", Value::Sequence(_))
        | ("string", Value::String(_))
        | ("boolean", Value::Bool(_))
        | ("null", Value::Null)
        | ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

fn types_of(schema: &Keywords) -> Vec<&'static str> {
    match schema.iter().find(|(k, _)| *k == "type").map(|(_, v)| v) {
        Some(S::Str(t)) => vec![t],
        Some(S::Seq(ts)) => ts.iter().filter_map(S::as_str).collect(),
        _ => Vec::new(),
    }
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        _ => None,
    }
}

/// The keys of the schema object `keyword` of `schema` (its
/// `properties`, `patternProperties`).
fn string_keys(schema: &Keywords, keyword: &str) -> Vec<String> {
    match schema.iter().find(|(k, _)| *k == keyword).map(|(_, v)| v) {
        Some(S::Map(m)) => m.iter().map(|(k, _)| (*k).to_string()).collect(),
        _ => Vec::new(),
    }
}

/// Walks one schema over one instance, collecting errors in jsonschema's order.
struct Walk {
    path: Vec<Step>,
    schema_path: Vec<String>,
    rel_start: usize,
    /// The patterns compiled so far (an `envs` pattern is met once per key).
    regexes: HashMap<String, Option<Regex>>,
}

impl Walk {
    /// Python's `re.search`; a pattern Rust's engine cannot compile matches
    /// nothing (none of SkyPilot's does that).
    fn search(&mut self, pattern: &str, text: &str) -> bool {
        self.regexes
            .entry(pattern.to_string())
            .or_insert_with(|| Regex::new(pattern).ok())
            .as_ref()
            .is_some_and(|re| re.is_match(text))
    }

    fn error(
        &self,
        keyword: &'static str,
        message: String,
        schema: &Keywords,
        v: &Value,
    ) -> SchemaError {
        let types = types_of(schema);
        SchemaError {
            keyword,
            message,
            path: self.path.clone(),
            rel_start: self.rel_start,
            schema_path: {
                let mut p = self.schema_path.clone();
                p.push(keyword.to_string());
                p
            },
            matches_type: !types.is_empty() && types.iter().any(|t| is_type(v, t)),
            context: Vec::new(),
            unknown: None,
        }
    }

    fn descend(
        &mut self,
        v: &Value,
        schema: &'static S,
        step: Option<Step>,
        schema_steps: &[&str],
        out: &mut Vec<SchemaError>,
    ) {
        let pushed = step.is_some();
        if let Some(s) = step {
            self.path.push(s);
        }
        let n = self.schema_path.len();
        self.schema_path
            .extend(schema_steps.iter().map(|s| s.to_string()));
        self.errors(v, schema, out);
        self.schema_path.truncate(n);
        if pushed {
            self.path.pop();
        }
    }

    /// All errors of `v` against `schema` (`iter_errors`), in order.
    fn errors(&mut self, v: &Value, schema: &'static S, out: &mut Vec<SchemaError>) {
        let s: &'static Keywords = match schema {
            S::Map(s) => s,
            S::Bool(false) => {
                let mut e = self.error(
                    "false",
                    format!("False schema does not allow {}", py_value_repr(v)),
                    &[],
                    v,
                );
                e.schema_path.pop();
                out.push(e);
                return;
            }
            _ => return,
        };
        for (keyword, kv) in s {
            self.keyword(keyword, kv, v, s, out);
        }
    }

    fn keyword(
        &mut self,
        keyword: &str,
        kv: &'static S,
        v: &Value,
        s: &'static Keywords,
        out: &mut Vec<SchemaError>,
    ) {
        let repr = || py_value_repr(v);
        let mut push = |this: &Self, kw: &'static str, msg: String| {
            out.push(this.error(kw, msg, s, v));
        };
        match keyword {
            "type" => {
                let types: Vec<&str> = match kv {
                    S::Str(t) => vec![t],
                    S::Seq(ts) => ts.iter().filter_map(S::as_str).collect(),
                    _ => return,
                };
                if !types.iter().any(|t| is_type(v, t)) {
                    let reprs: Vec<String> = types.iter().map(|t| py_str_repr(t)).collect();
                    push(
                        self,
                        "type",
                        format!("{} is not of type {}", repr(), reprs.join(", ")),
                    );
                }
            }
            "required" => {
                let (Value::Mapping(m), S::Seq(req)) = (v, kv) else {
                    return;
                };
                for name in req.iter().filter_map(S::as_str) {
                    if !m.keys().any(|k| key_text(k) == name) {
                        push(
                            self,
                            "required",
                            format!("{} is a required property", py_str_repr(name)),
                        );
                    }
                }
            }
            "properties" => {
                let (Value::Mapping(m), S::Map(props)) = (v, kv) else {
                    return;
                };
                for (name, sub) in props.iter() {
                    if let Some((_, val)) = m.iter().find(|(k, _)| key_text(k) == *name) {
                        self.descend(
                            val,
                            sub,
                            Some(Step::Key((*name).to_string())),
                            &["properties", name],
                            out,
                        );
                    }
                }
            }
            "patternProperties" => {
                let (Value::Mapping(m), S::Map(pats)) = (v, kv) else {
                    return;
                };
                for (pat, sub) in pats.iter() {
                    for (k, val) in m {
                        let k = key_text(k);
                        if self.search(pat, &k) {
                            self.descend(
                                val,
                                sub,
                                Some(Step::Key(k)),
                                &["patternProperties", pat],
                                out,
                            );
                        }
                    }
                }
            }
            "additionalProperties" => {
                let Value::Mapping(m) = v else { return };
                let props = string_keys(s, "properties");
                let patterns = string_keys(s, "patternProperties").join("|");
                let keys: Vec<String> = m.keys().map(key_text).collect();
                let mut extras: Vec<&String> = Vec::new();
                for k in &keys {
                    if !props.contains(k) && (patterns.is_empty() || !self.search(&patterns, k)) {
                        extras.push(k);
                    }
                }
                match kv {
                    S::Map(_) => {
                        for (k, val) in m {
                            let k = key_text(k);
                            if extras.contains(&&k) {
                                self.descend(
                                    val,
                                    kv,
                                    Some(Step::Key(k)),
                                    &["additionalProperties"],
                                    out,
                                );
                            }
                        }
                    }
                    S::Bool(false) if !extras.is_empty() => {
                        let mut sorted: Vec<&String> = extras.clone();
                        sorted.sort();
                        let joined = sorted
                            .iter()
                            .map(|k| py_str_repr(k))
                            .collect::<Vec<_>>()
                            .join(", ");
                        let message = if s.iter().any(|(k, _)| *k == "patternProperties") {
                            let mut pats = string_keys(s, "patternProperties");
                            pats.sort();
                            let pats: Vec<String> = pats.iter().map(|p| py_str_repr(p)).collect();
                            let verb = if extras.len() == 1 { "does" } else { "do" };
                            format!(
                                "{joined} {verb} not match any of the regexes: {}",
                                pats.join(", ")
                            )
                        } else {
                            let verb = if extras.len() == 1 { "was" } else { "were" };
                            format!(
                                "Additional properties are not allowed ({joined} {verb} unexpected)"
                            )
                        };
                        let mut e = self.error("additionalProperties", message, s, v);
                        e.unknown = Some((keys.clone(), props));
                        out.push(e);
                    }
                    _ => {}
                }
            }
            "items" => {
                let Value::Sequence(items) = v else { return };
                match kv {
                    S::Seq(subs) => {
                        for (i, (item, sub)) in items.iter().zip(subs.iter()).enumerate() {
                            let idx = i.to_string();
                            self.descend(item, sub, Some(Step::Index(i)), &["items", &idx], out);
                        }
                    }
                    sub => {
                        for (i, item) in items.iter().enumerate() {
                            self.descend(item, sub, Some(Step::Index(i)), &["items"], out);
                        }
                    }
                }
            }
            "anyOf" | "oneOf" => {
                let S::Seq(branches) = kv else {
                    return;
                };
                let kw: &'static str = if keyword == "anyOf" { "anyOf" } else { "oneOf" };
                let mut context = Vec::new();
                let mut valid = 0usize;
                let saved = self.rel_start;
                self.rel_start = self.path.len();
                for (i, sub) in branches.iter().enumerate() {
                    let mut errs = Vec::new();
                    let idx = i.to_string();
                    self.descend(v, sub, None, &[kw, &idx], &mut errs);
                    if errs.is_empty() {
                        valid += 1;
                        if kw == "anyOf" {
                            break;
                        }
                    } else if valid == 0 {
                        context.extend(errs);
                    }
                }
                self.rel_start = saved;
                if valid == 0 {
                    let mut e = self.error(
                        kw,
                        format!("{} is not valid under any of the given schemas", repr()),
                        s,
                        v,
                    );
                    e.context = context;
                    out.push(e);
                } else if kw == "oneOf" && valid > 1 {
                    // SkyPilot's schemas never make two branches valid at once.
                    push(
                        self,
                        "oneOf",
                        format!(
                            "{} is valid under more than one of the given schemas",
                            repr()
                        ),
                    );
                }
            }
            "not" => {
                let mut errs = Vec::new();
                self.descend(v, kv, None, &["not"], &mut errs);
                if errs.is_empty() {
                    push(
                        self,
                        "not",
                        format!("{} should not be valid under {}", repr(), kv.py_repr()),
                    );
                }
            }
            "enum" => {
                let S::Seq(options) = kv else { return };
                if !options.iter().any(|o| o.equals(v)) {
                    push(
                        self,
                        "enum",
                        format!("{} is not one of {}", repr(), kv.py_repr()),
                    );
                }
            }
            "case_insensitive_enum" | "case_sensitive_enum" => {
                let (Value::String(text), S::Seq(options)) = (v, kv) else {
                    return;
                };
                let hit = options.iter().filter_map(S::as_str).any(|o| {
                    if keyword == "case_sensitive_enum" {
                        o == text
                    } else {
                        o.to_lowercase() == text.to_lowercase()
                    }
                });
                if !hit {
                    let kw = if keyword == "case_sensitive_enum" {
                        "case_sensitive_enum"
                    } else {
                        "case_insensitive_enum"
                    };
                    push(
                        self,
                        kw,
                        format!("{} is not one of {}", repr(), kv.py_repr()),
                    );
                }
            }
            "pattern" => {
                if let (Value::String(text), Some(p)) = (v, kv.as_str())
                    && !self.search(p, text)
                {
                    push(
                        self,
                        "pattern",
                        format!("{} does not match {}", repr(), py_str_repr(p)),
                    );
                }
            }
            "minimum" | "maximum" | "exclusiveMinimum" => {
                let (Some(x), Some(bound)) = (number(v), kv.as_f64()) else {
                    return;
                };
                let bound_repr = kv.py_repr();
                match keyword {
                    "minimum" if x < bound => push(
                        self,
                        "minimum",
                        format!("{} is less than the minimum of {bound_repr}", repr()),
                    ),
                    "maximum" if x > bound => push(
                        self,
                        "maximum",
                        format!("{} is greater than the maximum of {bound_repr}", repr()),
                    ),
                    "exclusiveMinimum" if x <= bound => push(
                        self,
                        "exclusiveMinimum",
                        format!(
                            "{} is less than or equal to the minimum of {bound_repr}",
                            repr()
                        ),
                    ),
                    _ => {}
                }
            }
            "minItems" | "maxItems" | "minLength" | "maxLength" | "minProperties"
            | "maxProperties" => {
                let Some(limit) = kv.as_u64() else { return };
                let len = match (keyword, v) {
                    ("minItems" | "maxItems", Value::Sequence(items)) => items.len(),
                    ("minLength" | "maxLength", Value::String(t)) => t.chars().count(),
                    ("minProperties" | "maxProperties", Value::Mapping(m)) => m.len(),
                    _ => return,
                } as u64;
                let (kw, message): (&'static str, &str) = match keyword {
                    "minItems" if len < limit => (
                        "minItems",
                        if limit == 1 {
                            "should be non-empty"
                        } else {
                            "is too short"
                        },
                    ),
                    "minLength" if len < limit => (
                        "minLength",
                        if limit == 1 {
                            "should be non-empty"
                        } else {
                            "is too short"
                        },
                    ),
                    "maxItems" if len > limit => (
                        "maxItems",
                        if limit == 0 {
                            "is expected to be empty"
                        } else {
                            "is too long"
                        },
                    ),
                    "maxLength" if len > limit => (
                        "maxLength",
                        if limit == 0 {
                            "is expected to be empty"
                        } else {
                            "is too long"
                        },
                    ),
                    "minProperties" if len < limit => (
                        "minProperties",
                        if limit == 1 {
                            "should be non-empty"
                        } else {
                            "does not have enough properties"
                        },
                    ),
                    "maxProperties" if len > limit => (
                        "maxProperties",
                        if limit == 0 {
                            "is expected to be empty"
                        } else {
                            "has too many properties"
                        },
                    ),
                    _ => return,
                };
                push(self, kw, format!("{} {message}", repr()));
            }
            "uniqueItems" => {
                if let (Value::Sequence(items), S::Bool(true)) = (v, kv) {
                    let dup = items
                        .iter()
                        .enumerate()
                        .any(|(i, a)| items[..i].contains(a));
                    if dup {
                        push(
                            self,
                            "uniqueItems",
                            format!("{} has non-unique elements", repr()),
                        );
                    }
                }
            }
            _ => {}
        }
    }
}

/// `common_utils.validate_schema(obj, schema, prefix, skip_none)`: the
/// first error of `obj` against `schema`, worded as SkyPilot words it,
/// raised as `InvalidSkyPilotConfigError`.
pub(crate) fn validate(
    obj: &Value,
    schema: &Schema,
    prefix: &str,
    skip_none: bool,
) -> Result<(), RequestError> {
    let pruned;
    let obj = match obj {
        Value::Mapping(m) if skip_none => {
            pruned = Value::Mapping(
                m.iter()
                    .filter(|(_, v)| !v.is_null())
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            );
            &pruned
        }
        other => other,
    };
    let mut walk = Walk {
        path: Vec::new(),
        schema_path: Vec::new(),
        rel_start: 0,
        regexes: HashMap::new(),
    };
    let mut errors = Vec::new();
    walk.errors(obj, schema.root(), &mut errors);
    let Some(first) = errors.first() else {
        return Ok(());
    };
    Err(RequestError::new(
        ErrorKind::InvalidConfig,
        message(first, prefix),
    ))
}

fn message(e: &SchemaError, prefix: &str) -> String {
    if e.keyword == "additionalProperties" {
        if e.schema_path == ["properties", "envs", "additionalProperties"] {
            return format!(
                "{prefix}The `envs` field contains invalid keys:\n{}",
                e.message
            );
        }
        if let Some((keys, known)) = &e.unknown {
            let sentences: Vec<String> = keys
                .iter()
                .filter(|k| !known.contains(k))
                .map(
                    |k| match close_matches(k, known.iter().map(String::as_str), 1, 0.6).first() {
                        Some(m) => format!(
                            "Instead of {}, did you mean {}?",
                            py_str_repr(k),
                            py_str_repr(m)
                        ),
                        None => format!("Found unsupported field {}.", py_str_repr(k)),
                    },
                )
                .collect();
            return format!("{prefix}{}", sentences.join(" "));
        }
    }
    let best = best_match(e);
    format!(
        "{prefix}{}. Check problematic field(s): {}",
        best.message.replace("type 'object'", "type 'dict'"),
        best.json_path()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(schema: &Schema, prefix: &str, yaml: &str) -> Result<(), String> {
        let v: Value = serde_yaml_ng::from_str(yaml).expect("test yaml");
        validate(&v, schema, prefix, true).map_err(|e| e.message)
    }

    #[test]
    fn the_schemas_parse() {
        for s in [&TASK, &RESOURCES, &SERVICE, &STORAGE] {
            assert!(s.root().get("properties").is_some());
        }
    }

    /// Diagnosis section 14's probes whose text comes from the schema.
    #[test]
    fn messages_are_skypilots() {
        let task = |y: &str| check(&TASK, "Invalid task YAML: ", y);
        let res = |y: &str| check(&RESOURCES, "Invalid resources YAML: ", y);
        let svc = |y: &str| check(&SERVICE, "Invalid service YAML: ", y);
        let sto = |y: &str| check(&STORAGE, "Invalid storage YAML: ", y);
        for (got, want) in [
            (
                task("foo: 1\nrun: echo"),
                "Invalid task YAML: Found unsupported field 'foo'.",
            ),
            (
                task("foo: 1\nnum_node: 2\nworkdirs: ."),
                "Invalid task YAML: Found unsupported field 'foo'. Instead of 'num_node', did you mean 'num_nodes'? Instead of 'workdirs', did you mean 'workdir'?",
            ),
            (
                task("num_nodes: two\nfoo: 1"),
                "Invalid task YAML: Found unsupported field 'foo'.",
            ),
            (
                task("num_nodes: two"),
                "Invalid task YAML: 'two' is not of type 'integer'. Check problematic field(s): $.num_nodes",
            ),
            (
                task("envs:\n  MY-VAR: '1'"),
                "Invalid task YAML: The `envs` field contains invalid keys:\n'MY-VAR' does not match any of the regexes: '^[a-zA-Z_][a-zA-Z0-9_]*$'",
            ),
            (
                task("envs: [A, B]"),
                "Invalid task YAML: ['A', 'B'] is not of type 'dict'. Check problematic field(s): $.envs",
            ),
            (
                task("secrets: 5"),
                "Invalid task YAML: 5 is not valid under any of the given schemas. Check problematic field(s): $.secrets",
            ),
            (
                task("workdir:\n  url: https://x/y.git\n  branch: main"),
                "Invalid task YAML: Additional properties are not allowed ('branch' was unexpected). Check problematic field(s): $.workdir",
            ),
            (
                res("spot_recovery: FAILOVER"),
                "Invalid resources YAML: Instead of 'spot_recovery', did you mean 'job_recovery'?",
            ),
            (
                res("gpu: V100"),
                "Invalid resources YAML: Found unsupported field 'gpu'.",
            ),
            (
                res("gpu: V100\ninstance: x"),
                "Invalid resources YAML: Found unsupported field 'gpu'. Instead of 'instance', did you mean 'instance_type'?",
            ),
            (
                res("accelerators: {A100: one}"),
                "Invalid resources YAML: 'one' is not valid under any of the given schemas. Check problematic field(s): $.accelerators.A100",
            ),
            (
                res("accelerators: tpu-v2-8\naccelerator_args:\n  tpu_vm_name: x"),
                "Invalid resources YAML: Instead of 'tpu_vm_name', did you mean 'tpu_name'?",
            ),
            (
                res("autostop:\n  idle: 5"),
                "Invalid resources YAML: {'idle': 5} is not valid under any of the given schemas. Check problematic field(s): $.autostop",
            ),
            (
                res("any_of:\n  - clouds: aws"),
                "Invalid resources YAML: Instead of 'clouds', did you mean 'cloud'?",
            ),
            (
                res("any_of:\n  - accelerators: {A100: 1, V100: 1}"),
                "Invalid resources YAML: {'A100': 1, 'V100': 1} has too many properties. Check problematic field(s): $.any_of[0].accelerators",
            ),
            (
                res("any_of: {cloud: aws}"),
                "Invalid resources YAML: {'cloud': 'aws'} is not of type 'array'. Check problematic field(s): $.any_of",
            ),
            (
                res("disk_size: big"),
                "Invalid resources YAML: 'big' does not match '^[0-9]+(kb|ki|mb|mi|gb|gi|tb|ti|pb|pi|KB|KI|MB|MI|GB|GI|TB|TI|PB|PI|Kb|Ki|Mb|Mi|Gb|Gi|Tb|Ti|Pb|Pi)?$'. Check problematic field(s): $.disk_size",
            ),
            (
                svc("replica: 2"),
                "Invalid service YAML: Instead of 'replica', did you mean 'replicas'?",
            ),
            (
                svc("route53_hosted_zone: x"),
                "Invalid service YAML: Found unsupported field 'route53_hosted_zone'.",
            ),
            (
                svc("readiness_probe:\n  path: /\n  initial_delay: 5"),
                "Invalid service YAML: Additional properties are not allowed ('initial_delay' was unexpected). Check problematic field(s): $.readiness_probe",
            ),
            (
                svc("readiness_probe:\n  initial_delay_seconds: 5"),
                "Invalid service YAML: 'path' is a required property. Check problematic field(s): $.readiness_probe",
            ),
            (
                svc("replica_policy:\n  min_replicas: 1\n  max_replica: 2"),
                "Invalid service YAML: Instead of 'max_replica', did you mean 'max_replicas'?",
            ),
            (
                svc("replica_policy:\n  max_replicas: 2"),
                "Invalid service YAML: 'min_replicas' is a required property. Check problematic field(s): $.replica_policy",
            ),
            (
                svc("replicas: two"),
                "Invalid service YAML: 'two' is not of type 'integer'. Check problematic field(s): $.replicas",
            ),
            (
                svc("load_balancing_policy: prefix_tree"),
                "Invalid service YAML: 'prefix_tree' is not one of ['round_robin', 'least_load', 'instance_aware_least_load']. Check problematic field(s): $.load_balancing_policy",
            ),
            (
                svc("tls:\n  keyfile: k.pem"),
                "Invalid service YAML: 'certfile' is a required property. Check problematic field(s): $.tls",
            ),
            (
                svc("replica_policy:\n  min_replicas: 1\n  spot_placer: foo"),
                "Invalid service YAML: 'foo' is not one of ['dynamic_fallback']. Check problematic field(s): $.replica_policy.spot_placer",
            ),
            (
                sto("name: b\nsources: ./x"),
                "Invalid storage YAML: Instead of 'sources', did you mean 'source'?",
            ),
            (
                sto("name: b\nstore: s4"),
                "Invalid storage YAML: 's4' is not one of ['S3', 'GCS', 'AZURE', 'R2', 'IBM', 'OCI', 'NEBIUS', 'COREWEAVE', 'VASTDATA', 'HF', 'VOLUME']. Check problematic field(s): $.store",
            ),
            (
                sto("name: b\nconfig:\n  mount_cached:\n    transfer: 2"),
                "Invalid storage YAML: Instead of 'transfer', did you mean 'transfers'?",
            ),
        ] {
            assert_eq!(got, Err(want.to_string()));
        }
        for ok in ["run: echo", "envs: {A: '1'}"] {
            assert_eq!(task(ok), Ok(()), "{ok}");
        }
        for ok in [
            "replica_policy: {min_replicas: 1, max_replicas: 3, target_qps_per_replica: 0.5}",
            "readiness_probe: {path: /, post_data: {model: x}}",
            "load_balancing_policy: ROUND_ROBIN",
        ] {
            assert_eq!(svc(ok), Ok(()), "{ok}");
        }
    }
}
