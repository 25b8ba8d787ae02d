//! SkyPilot's schemas as static data: `build.rs` turns
//! `skypilot/*.json` into one [`S`] tree each (`$OUT_DIR/schemas.rs`), so a
//! launch walks them without parsing anything (parsing the JSON cost every
//! task-file launch ~10 M instructions). The values keep the parser's
//! reading: keys in file order, integers apart from floats.

use serde_yaml_ng::Value;

use crate::pytext::{py_float_str, py_str_repr};

/// A schema value (JSON), static.
#[derive(Debug, PartialEq)]
#[allow(
    dead_code,
    reason = "every JSON form is kept: 0.14.1's schemas hold no null or float today, a re-dump may"
)]
pub(crate) enum S {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'static str),
    Seq(&'static [S]),
    /// An object, keys in file order.
    Map(&'static [(&'static str, S)]),
}

include!(concat!(env!("OUT_DIR"), "/schemas.rs"));

impl S {
    /// The value of `key` in an object.
    #[cfg(test)]
    pub(crate) fn get(&self, key: &str) -> Option<&'static S> {
        match self {
            S::Map(m) => m.iter().find(|(k, _)| *k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// A string's text.
    pub(crate) fn as_str(&self) -> Option<&'static str> {
        match self {
            S::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A number, as `serde_yaml_ng::Number::as_f64` reads it.
    pub(crate) fn as_f64(&self) -> Option<f64> {
        match self {
            S::Int(i) => Some(*i as f64),
            S::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// A non-negative integer (`Number::as_u64`: never a float).
    pub(crate) fn as_u64(&self) -> Option<u64> {
        match self {
            S::Int(i) => u64::try_from(*i).ok(),
            _ => None,
        }
    }

    /// Python's `repr`, as [`super::value::py_value_repr`] shows the same
    /// value parsed.
    pub(crate) fn py_repr(&self) -> String {
        match self {
            S::Null => "None".into(),
            S::Bool(b) => if *b { "True" } else { "False" }.into(),
            S::Int(i) => i.to_string(),
            S::Float(f) => py_float_str(*f),
            S::Str(s) => py_str_repr(s),
            S::Seq(items) => {
                let parts: Vec<String> = items.iter().map(S::py_repr).collect();
                format!("[{}]", parts.join(", "))
            }
            S::Map(m) => {
                let parts: Vec<String> = m
                    .iter()
                    .map(|(k, v)| format!("{}: {}", py_str_repr(k), v.py_repr()))
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
        }
    }

    /// Equality with an instance value, as `Value`'s `==` compares the
    /// same value parsed (an integer never equals a float).
    pub(crate) fn equals(&self, v: &Value) -> bool {
        match (self, v) {
            (S::Null, Value::Null) => true,
            (S::Bool(a), Value::Bool(b)) => a == b,
            (S::Int(_) | S::Float(_), Value::Number(n)) => {
                self.to_value() == Value::Number(n.clone())
            }
            (S::Str(a), Value::String(b)) => a == b,
            (S::Seq(a), Value::Sequence(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.equals(y))
            }
            (S::Map(_), Value::Mapping(_)) => self.to_value() == *v,
            (_, Value::Tagged(t)) => self.equals(&t.value),
            _ => false,
        }
    }

    /// The same value as the parser builds it.
    pub(crate) fn to_value(&self) -> Value {
        match self {
            S::Null => Value::Null,
            S::Bool(b) => Value::Bool(*b),
            S::Int(i) => Value::Number((*i).into()),
            S::Float(f) => Value::Number((*f).into()),
            S::Str(s) => Value::String((*s).to_string()),
            S::Seq(items) => Value::Sequence(items.iter().map(S::to_value).collect()),
            S::Map(m) => Value::Mapping(
                m.iter()
                    .map(|(k, v)| (Value::String((*k).to_string()), v.to_value()))
                    .collect(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::value::py_value_repr;

    /// The static trees are the JSON files, parsed as before: same values,
    /// same key order, same Python reprs.
    #[test]
    fn the_static_schemas_are_the_json_files() {
        for (s, json) in [
            (&TASK, include_str!("skypilot/task.json")),
            (&RESOURCES, include_str!("skypilot/resources.json")),
            (&SERVICE, include_str!("skypilot/service.json")),
            (&STORAGE, include_str!("skypilot/storage.json")),
        ] {
            let parsed: Value = serde_yaml_ng::from_str(json).expect("schema json");
            let built = s.to_value();
            assert_eq!(built, parsed);
            let (Value::Mapping(a), Value::Mapping(b)) = (&built, &parsed) else {
                panic!("a schema is an object");
            };
            assert!(a.keys().eq(b.keys()), "key order");
            assert_eq!(s.py_repr(), py_value_repr(&parsed));
            assert!(s.equals(&parsed));
        }
    }
}
