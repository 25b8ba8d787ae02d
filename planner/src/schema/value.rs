//! YAML values as Python shows them: `yaml.safe_load` builds Python objects,
//! and SkyPilot's messages print them with `str()` or `repr()`. Never Rust
//! debug text (`Sequence [...]`).

use serde_yaml_ng::Value;

use crate::pytext::{py_float_str, py_str_repr};

/// Python's `repr` of a YAML value as `yaml.safe_load` would build it.
pub fn py_value_repr(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(b) => if *b { "True" } else { "False" }.into(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(u)) => u.to_string(),
            _ => py_float_str(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => py_str_repr(s),
        Value::Sequence(items) => {
            let parts: Vec<String> = items.iter().map(py_value_repr).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Mapping(m) => {
            let parts: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}: {}", py_value_repr(k), py_value_repr(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        Value::Tagged(t) => py_value_repr(&t.value),
    }
}

/// A scalar as the task parser reads it (Python's `str()` of the loaded
/// value); `None` for a null. An integer beyond `i64` is read as a float.
pub(crate) fn value_text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::Bool(b) => Some(if *b { "True".into() } else { "False".into() }),
        Value::Number(n) => Some(if let Some(i) = n.as_i64() {
            i.to_string()
        } else {
            py_float_str(n.as_f64().unwrap_or(f64::NAN))
        }),
        Value::String(s) => Some(s.clone()),
        // Python's repr, never Rust's debug text (`Sequence [...]`): the
        // schema checks reject these forms where a scalar belongs, so this
        // only shows up inside messages.
        other => Some(py_value_repr(other)),
    }
}

/// A mapping key as text (a path segment in schema messages).
pub(crate) fn key_text(k: &Value) -> String {
    value_text(k).unwrap_or_default()
}

/// Python's `repr` of a YAML value as the task parser quotes it in
/// messages: [`py_value_repr`], but with its scalars read by [`value_text`].
pub(crate) fn value_repr(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::String(s) => py_str_repr(s),
        Value::Sequence(items) => format!(
            "[{}]",
            items.iter().map(value_repr).collect::<Vec<_>>().join(", ")
        ),
        Value::Mapping(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", value_repr(k), value_repr(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => value_text(other).unwrap_or_default(),
    }
}

/// What a value is, in words (`a list`), for messages about the wrong form.
pub(crate) fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reprs_are_python_not_debug() {
        let v: Value = serde_yaml_ng::from_str("[1, 'a', {b: null}, true, 1.5]").unwrap();
        assert_eq!(py_value_repr(&v), "[1, 'a', {'b': None}, True, 1.5]");
        assert_eq!(value_repr(&v), "[1, 'a', {'b': None}, True, 1.5]");
        assert_eq!(
            value_text(&v).as_deref(),
            Some("[1, 'a', {'b': None}, True, 1.5]")
        );
        assert_eq!(value_text(&Value::Null), None);
    }
}
