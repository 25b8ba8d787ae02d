//! What keeps a hostile task file cheap to reject: a nesting bound checked
//! before the YAML parser runs, a bound on the tasks of one file, and no
//! custom tags (PyYAML's `safe_load` refuses them too).

use serde_yaml_ng::Value;

use crate::pytext::py_str_repr;
use crate::resources::RequestError;

/// Deepest nesting a task file may have (flow brackets plus block
/// indentation levels). serde_yaml_ng stops at 128 levels too, but only after
/// its scanner has spent time growing faster than linearly with the depth;
/// this bound is checked first, in one linear pass over the text.
pub const MAX_YAML_DEPTH: usize = 128;

/// Most tasks one task file may chain. SkyPilot has no limit, but a chain's
/// optimisation and tables grow with it; a real pipeline has a handful.
pub const MAX_TASKS: usize = 256;

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

    #[test]
    fn tags_are_refused_by_name() {
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
