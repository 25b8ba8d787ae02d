//! The type checks of SkyPilot's task and resources JSON schemas
//! (`sky/utils/schemas.py::get_task_schema`, `get_resources_schema`,
//! `_get_single_resources_schema`), with the messages of
//! `sky/utils/common_utils.py::validate_schema` (jsonschema's `best_match`),
//! and the limits that keep hostile task files cheap to reject.
//!
//! Only the *shape* of each value is checked here (a string where a string
//! belongs, a boolean for `use_spot`, ...); what the values mean is parsed in
//! [`crate::task`] and [`crate::resources`]. A value is shown as Python shows
//! it (`[1]`, `'maybe'`, `{'a': 1}`), never as Rust debug text.

use serde_yaml_ng::{Mapping, Value};

use crate::pytext::{py_float_str, py_str_repr};
use crate::resources::{ErrorKind, RequestError};

/// Deepest nesting a task file may have (flow brackets plus block
/// indentation levels). serde_yaml_ng stops at 128 levels too, but only after
/// its scanner has spent time growing faster than linearly with the depth;
/// this bound is checked first, in one linear pass over the text.
pub const MAX_YAML_DEPTH: usize = 128;

/// Most tasks one task file may chain. SkyPilot has no limit, but a chain's
/// optimisation and tables grow with it; a real pipeline has a handful.
pub const MAX_TASKS: usize = 256;

/// The form a value must take.
#[derive(Debug, Clone, Copy)]
enum Ty {
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
struct Field {
    key: &'static str,
    forms: &'static [Ty],
    /// For the list form: the forms of its items.
    items: &'static [Ty],
}

const fn one(key: &'static str, ty: &'static [Ty]) -> Field {
    Field {
        key,
        forms: ty,
        items: &[],
    }
}

const TASK_FIELDS: &[Field] = &[
    one("name", &[Ty::Str]),
    one("workdir", &[Ty::Str, Ty::Obj]),
    one("event_callback", &[Ty::Str]),
    one("file_mounts", &[Ty::Obj]),
    one("service", &[Ty::Obj]),
    one("pool", &[Ty::Obj]),
    one("setup", &[Ty::Str]),
    one("run", &[Ty::Str]),
    one("envs", &[Ty::Obj]),
    one("secrets", &[Ty::Obj, Ty::Arr]),
    one("config", &[Ty::Obj]),
    one("volumes", &[Ty::Obj]),
];

const RESOURCE_FIELDS: &[Field] = &[
    one("cloud", &[Ty::Str]),
    one("region", &[Ty::Str]),
    one("zone", &[Ty::Str]),
    one("infra", &[Ty::Str]),
    one("cpus", &[Ty::Str, Ty::Num]),
    one("memory", &[Ty::Str, Ty::Num]),
    Field {
        key: "accelerators",
        forms: &[Ty::Str, Ty::Obj, Ty::Arr],
        items: &[Ty::Str],
    },
    one("instance_type", &[Ty::Str]),
    one("use_spot", &[Ty::Bool]),
    one("job_recovery", &[Ty::Str, Ty::Obj]),
    one("spot_recovery", &[Ty::Str, Ty::Obj]),
    one("volumes", &[Ty::Arr]),
    one("disk_size", &[Ty::Str, Ty::Int]),
    one("disk_tier", &[Ty::Str]),
    one("network_tier", &[Ty::Str]),
    one("local_disk", &[Ty::Str]),
    one("max_hourly_cost", &[Ty::Num]),
    Field {
        key: "ports",
        forms: &[Ty::Str, Ty::Int, Ty::Arr, Ty::Null],
        items: &[Ty::Str, Ty::Int],
    },
    one("labels", &[Ty::Obj]),
    one("accelerator_args", &[Ty::Obj]),
    one("image_id", &[Ty::Str, Ty::Obj, Ty::Null]),
    one("autostop", &[Ty::Bool, Ty::Str, Ty::Int, Ty::Obj]),
    one("priority", &[Ty::Int]),
    one("any_of", &[Ty::Arr]),
    one("ordered", &[Ty::Arr]),
];

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

/// A schema violation as `validate_schema` words it.
fn violation(prefix: &str, message: String, path: &str) -> RequestError {
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
fn check_field(prefix: &str, field: &Field, v: &Value, path: &str) -> Result<(), RequestError> {
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

fn mismatch(v: &Value, forms: &[Ty]) -> String {
    match forms {
        [one] => format!("{} is not of type '{}'", py_value_repr(v), one.name()),
        _ => format!(
            "{} is not valid under any of the given schemas (expected {})",
            py_value_repr(v),
            forms_text(forms)
        ),
    }
}

/// The first tagged value (`!foo bar`) inside `v`, as its tag. PyYAML's
/// `safe_load` has no constructor for custom tags and refuses the file.
fn first_tag(v: &Value) -> Option<String> {
    match v {
        Value::Tagged(t) => Some(t.tag.to_string()),
        Value::Sequence(items) => items.iter().find_map(first_tag),
        Value::Mapping(m) => m
            .iter()
            .find_map(|(k, v)| first_tag(k).or_else(|| first_tag(v))),
        _ => None,
    }
}

/// Rejects custom YAML tags anywhere in a task document (`source` names the file).
pub fn reject_tags(v: &Value, source: &str) -> Result<(), RequestError> {
    match first_tag(v) {
        Some(tag) => Err(RequestError::value(format!(
            "Invalid YAML in {source}: could not determine a constructor for the tag {}",
            py_str_repr(&tag)
        ))),
        None => Ok(()),
    }
}

/// The task schema's type checks for the top-level fields (null values are
/// skipped, as `validate_schema(skip_none=True)` does).
pub fn check_task(map: &Mapping) -> Result<(), RequestError> {
    for field in TASK_FIELDS {
        if let Some(v) = map.get(field.key).filter(|v| !v.is_null()) {
            check_field("Invalid task YAML: ", field, v, &format!("$.{}", field.key))?;
        }
    }
    Ok(())
}

/// The resources schema's type checks, for a `resources:` mapping and each
/// of its `any_of`/`ordered` entries (`$.any_of[0].use_spot`).
pub fn check_resources(map: &Mapping) -> Result<(), RequestError> {
    check_resource_fields(map, "$")?;
    for key in ["any_of", "ordered"] {
        if let Some(Value::Sequence(items)) = map.get(key) {
            for (i, item) in items.iter().enumerate() {
                let path = format!("$.{key}[{i}]");
                match item {
                    Value::Mapping(m) => check_resource_fields(m, &path)?,
                    other => {
                        return Err(violation(
                            "Invalid resources YAML: ",
                            mismatch(other, &[Ty::Obj]),
                            &path,
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

fn check_resource_fields(map: &Mapping, base: &str) -> Result<(), RequestError> {
    for field in RESOURCE_FIELDS {
        let Some(v) = map.get(field.key) else {
            continue;
        };
        // The resources schema is validated without `skip_none`, but a
        // null is what an empty YAML value means and SkyPilot's own
        // `from_yaml_config` drops it first.
        if v.is_null() {
            continue;
        }
        let path = format!("{base}.{}", field.key);
        check_field("Invalid resources YAML: ", field, v, &path)?;
        if field.key == "accelerators"
            && let Value::Mapping(m) = v
        {
            // `{name: count}`: each count a number (or empty).
            for (k, c) in m {
                if !(c.is_null() || c.is_number()) {
                    let at = format!("{path}.{}", crate::task::key_text(k));
                    return Err(violation(
                        "Invalid resources YAML: ",
                        mismatch(c, &[Ty::Null, Ty::Num]),
                        &at,
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The nesting depth of a YAML text, over-estimated in one linear pass:
/// open flow brackets (`[`, `{` outside quotes and comments) plus the
/// levels of the block indentation stack. Returns the 1-based line where
/// the depth first exceeds `limit`.
pub fn depth_exceeds(text: &str, limit: usize) -> Option<usize> {
    let mut indents: Vec<usize> = Vec::new();
    let mut flow = 0usize;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start_matches([' ', '\t']);
        if flow == 0 && !trimmed.is_empty() && !trimmed.starts_with('#') {
            let indent = line.len() - trimmed.len();
            while indents.last().is_some_and(|&top| top > indent) {
                indents.pop();
            }
            // A `- ` sequence entry nests its content one level deeper too.
            if indents.last().is_none_or(|&top| top < indent) {
                indents.push(indent);
            }
        }
        // `- - - x` opens one block sequence per dash on a single line.
        let mut rest = trimmed;
        let mut dashes = 0usize;
        while let Some(r) = rest.strip_prefix("- ").or_else(|| rest.strip_prefix("-\t")) {
            dashes += 1;
            rest = r.trim_start_matches([' ', '\t']);
        }
        let mut quote: Option<char> = None;
        let mut after_space = true;
        for c in trimmed.chars() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(c),
                // A comment starts at a `#` after whitespace (`a#b` is a scalar).
                (None, '#') if after_space => break,
                (None, '[' | '{') => {
                    flow += 1;
                    if flow + indents.len() + dashes > limit {
                        return Some(n + 1);
                    }
                }
                (None, ']' | '}') => flow = flow.saturating_sub(1),
                _ => {}
            }
            after_space = c == ' ' || c == '\t';
        }
        if flow + indents.len() + dashes > limit {
            return Some(n + 1);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(yaml: &str) -> Mapping {
        serde_yaml_ng::from_str(yaml).expect("test yaml")
    }

    #[test]
    fn wrong_types_name_the_field_and_the_form() {
        for (yaml, want) in [
            (
                "name: [1]",
                "Invalid task YAML: [1] is not of type 'string'. Check problematic field(s): $.name",
            ),
            (
                "run: {a: 1}",
                "Invalid task YAML: {'a': 1} is not of type 'string'. Check problematic field(s): $.run",
            ),
        ] {
            let err = check_task(&map(yaml)).unwrap_err();
            assert_eq!(err.message, want, "{yaml}");
            assert_eq!(err.kind, ErrorKind::InvalidConfig);
        }
        for (yaml, want) in [
            (
                "use_spot: maybe",
                "Invalid resources YAML: 'maybe' is not of type 'boolean'. Check problematic field(s): $.use_spot",
            ),
            (
                "accelerators: [1]",
                "Invalid resources YAML: 1 is not of type 'string'. Check problematic field(s): $.accelerators[0]",
            ),
            (
                "cpus: [1]",
                "Invalid resources YAML: [1] is not valid under any of the given schemas (expected string or number). Check problematic field(s): $.cpus",
            ),
            (
                "any_of: [{use_spot: maybe}]",
                "Invalid resources YAML: 'maybe' is not of type 'boolean'. Check problematic field(s): $.any_of[0].use_spot",
            ),
            (
                "accelerators: {V100: x}",
                "Invalid resources YAML: 'x' is not valid under any of the given schemas (expected null or number). Check problematic field(s): $.accelerators.V100",
            ),
        ] {
            let err = check_resources(&map(yaml)).unwrap_err();
            assert_eq!(err.message, want, "{yaml}");
        }
        for ok in [
            "use_spot: true",
            "cpus: 4+",
            "cpus: 4",
            "accelerators: {V100: 1}",
            "accelerators: [V100, T4]",
            "ports: [8080, '9000-9010']",
            "disk_size: 100",
            "ports: null",
        ] {
            assert!(check_resources(&map(ok)).is_ok(), "{ok}");
        }
    }

    #[test]
    fn reprs_are_python_not_debug() {
        let v: Value = serde_yaml_ng::from_str("[1, 'a', {b: null}, true, 1.5]").unwrap();
        assert_eq!(py_value_repr(&v), "[1, 'a', {'b': None}, True, 1.5]");
        let tagged: Value = serde_yaml_ng::from_str("name: !foo bar").unwrap();
        let err = reject_tags(&tagged, "t.yaml").unwrap_err();
        assert!(err.message.contains("'!foo'"), "{}", err.message);
        assert!(!err.message.contains("Tagged"), "{}", err.message);
    }

    #[test]
    fn depth_is_bounded_in_one_pass() {
        let flow = format!(
            "run: x\nresources: {}{}\n",
            "[".repeat(200),
            "]".repeat(200)
        );
        assert_eq!(depth_exceeds(&flow, MAX_YAML_DEPTH), Some(2));
        let block: String = (0..200).map(|i| format!("{}a:\n", " ".repeat(i))).collect();
        assert!(depth_exceeds(&block, MAX_YAML_DEPTH).is_some());
        let fine = "name: x\nresources:\n  any_of:\n    - {cpus: 4, accelerators: [V100]}\nrun: |\n  echo '[[[['\n";
        assert_eq!(depth_exceeds(fine, MAX_YAML_DEPTH), None);
    }
}
