//! What the sections' schemas share: the forms a value may take (a JSON
//! schema `type`, or several under `anyOf`), how `validate_schema` words a
//! violation, and its `additionalProperties` rule for unknown fields.

use serde_yaml_ng::Value;

use super::value::{key_text, py_value_repr};
use crate::pytext::py_str_repr;
use crate::resources::{ErrorKind, RequestError};

/// The form a value must take.
#[derive(Debug, Clone, Copy)]
pub(super) enum Ty {
    Str,
    Num,
    Int,
    Bool,
    Obj,
    Arr,
    Null,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::Str => "string",
            Ty::Num => "number",
            Ty::Int => "integer",
            Ty::Bool => "boolean",
            Ty::Obj => "dict",
            Ty::Arr => "array",
            Ty::Null => "null",
        }
    }

    fn accepts(self, v: &Value) -> bool {
        match (self, v) {
            (Ty::Str, Value::String(_)) => true,
            (Ty::Num, Value::Number(_)) => true,
            // jsonschema counts an integral float (`2.0`) as an integer.
            (Ty::Int, Value::Number(n)) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            (Ty::Bool, Value::Bool(_)) => true,
            (Ty::Obj, Value::Mapping(_)) => true,
            (Ty::Arr, Value::Sequence(_)) => true,
            (Ty::Null, Value::Null) => true,
            _ => false,
        }
    }
}

/// One field's schema: one form, or any of several (`anyOf`), optionally
/// with the items of a list form.
pub(super) struct Field {
    pub(super) key: &'static str,
    pub(super) forms: &'static [Ty],
    /// For the list form: the forms of its items.
    pub(super) items: &'static [Ty],
}

pub(super) const fn one(key: &'static str, ty: &'static [Ty]) -> Field {
    Field {
        key,
        forms: ty,
        items: &[],
    }
}

/// A schema violation as `validate_schema` words it: `prefix` names the
/// schema (`Invalid task YAML: `), `path` the field (`$.resources.cpus`).
pub(super) fn violation(prefix: &str, message: String, path: &str) -> RequestError {
    RequestError::new(
        ErrorKind::InvalidConfig,
        format!("{prefix}{message}. Check problematic field(s): {path}"),
    )
}

fn forms_text(forms: &[Ty]) -> String {
    let names: Vec<&str> = forms.iter().map(|t| t.name()).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// Checks one value against a field's forms, as jsonschema's `best_match`
/// reports it: a plain type error for a single form; for `anyOf`, the
/// error inside the one branch whose type matches (a list's item), else
/// "not valid under any of the given schemas" — to which we add the forms
/// that would have been accepted, since SkyPilot's text does not say.
pub(super) fn check_field(
    prefix: &str,
    field: &Field,
    v: &Value,
    path: &str,
) -> Result<(), RequestError> {
    if field.forms.iter().any(|t| t.accepts(v)) {
        if let (Value::Sequence(items), false) = (v, field.items.is_empty()) {
            for (i, item) in items.iter().enumerate() {
                if !field.items.iter().any(|t| t.accepts(item)) {
                    let at = format!("{path}[{i}]");
                    return Err(violation(prefix, mismatch(item, field.items), &at));
                }
            }
        }
        return Ok(());
    }
    Err(violation(prefix, mismatch(v, field.forms), path))
}

pub(super) fn mismatch(v: &Value, forms: &[Ty]) -> String {
    match forms {
        [one] => format!("{} is not of type '{}'", py_value_repr(v), one.name()),
        _ => format!(
            "{} is not valid under any of the given schemas (expected {})",
            py_value_repr(v),
            forms_text(forms)
        ),
    }
}

/// The schema's error for an unknown key of a section (`what`: `task`,
/// `resources`), with its did-you-mean among the `known` fields.
fn unknown_field(what: &str, key: &str, known: &[&str]) -> RequestError {
    let close = crate::pytext::close_matches(key, known.iter().copied(), 1, 0.6);
    let message = match close.first() {
        Some(k) => format!(
            "Invalid {what} YAML: Instead of {}, did you mean {}?",
            py_str_repr(key),
            py_str_repr(k)
        ),
        None => format!(
            "Invalid {what} YAML: Additional properties are not allowed ({} was unexpected). Known fields: {}.",
            py_str_repr(key),
            known.join(", ")
        ),
    };
    RequestError::new(ErrorKind::InvalidConfig, message)
}

/// The first key of `map` that is not one of `known`, as
/// [`unknown_field`]'s error.
pub(super) fn reject_unknown_keys(
    what: &str,
    map: &serde_yaml_ng::Mapping,
    known: &[&str],
) -> Result<(), RequestError> {
    for k in map.keys() {
        let key = key_text(k);
        if !known.contains(&key.as_str()) {
            return Err(unknown_field(what, &key, known));
        }
    }
    Ok(())
}
