//! A task file → a [`Dag`]: the documents of a task YAML, each a task
//! (`sky/utils/dag_utils.py::load_chain_dag_from_yaml`,
//! `sky/task.py::Task.from_yaml_config`). The sections are read by
//! [`super::sections`] and [`super::resource_set`], after the schema
//! ([`crate::schema`]) has checked their shape.

use serde_yaml_ng::{Mapping, Value};

use super::env_vars::{fill_in_env_vars, fill_str};
use super::file_mounts::parse_file_mounts;
use super::resource_set::resource_set_from_mapping;
use super::sections::{parse_envs, parse_secret_names, parse_task_config, parse_task_volumes};
use super::types::{Dag, DataSize, ResourceSet, ServiceKind, Task, TaskSpec, Workdir};
use crate::catalog::GpuMetadata;
use crate::pytext::py_str_repr;
use crate::resources::{ErrorKind, RequestError, Resources};
use crate::schema::value::{kind_name, value_text};
use crate::schema::{self, MAX_TASKS, MAX_YAML_DEPTH};

/// Parses a task YAML (one or more `---`-separated documents). `source` names the file in errors.
pub fn parse_task_yaml(
    text: &str,
    source: &str,
    metadata: &[GpuMetadata],
) -> Result<Dag, RequestError> {
    parse_task_yaml_with(text, source, metadata, &[])
}

/// [`parse_task_yaml`] with the `--env` overrides SkyPilot applies while it
/// loads each task (`Task.from_yaml_config(env_overrides=...)`), before it
/// rejects an `envs:` entry without a value.
pub fn parse_task_yaml_with(
    text: &str,
    source: &str,
    metadata: &[GpuMetadata],
    env_overrides: &[(String, String)],
) -> Result<Dag, RequestError> {
    // Checked before the YAML parser runs: its scanner slows down faster
    // than linearly on deep nesting before its own recursion limit stops it.
    if let Some(line) = schema::depth_exceeds(text, MAX_YAML_DEPTH) {
        return Err(RequestError::value(format!(
            "Invalid YAML in {source}: nested deeper than {MAX_YAML_DEPTH} levels at line {line}."
        )));
    }
    // All documents are read first (`yaml_utils.read_yaml_all_str`): a
    // syntax error anywhere beats a task error in an earlier document.
    let mut docs: Vec<Option<Mapping>> = Vec::new();
    for doc in serde_yaml_ng::Deserializer::from_str(text) {
        if docs.len() == MAX_TASKS {
            return Err(RequestError::value(format!(
                "Invalid task YAML {source}: more than {MAX_TASKS} tasks in one file."
            )));
        }
        let value = <Value as serde::Deserialize>::deserialize(doc)
            .map_err(|e| RequestError::value(format!("Invalid YAML in {source}: {e}")))?;
        schema::reject_tags(&value, source)?;
        docs.push(match value {
            Value::Null => None,
            Value::Mapping(m) => Some(m),
            other => {
                return Err(RequestError::value(format!(
                    "Invalid task YAML {source}: expected a mapping at the top level, found {}.",
                    kind_name(&other)
                )));
            }
        });
    }
    // `not any(c for c in configs)`: every document null or `{}`.
    if docs
        .iter()
        .all(|d| d.as_ref().is_none_or(Mapping::is_empty))
    {
        return Err(RequestError::value(format!(
            "{} is empty or contains no task definition. Add at least a `run:` (or `setup:`) field.",
            py_str_repr(source)
        )));
    }
    let docs = chain_documents(docs)?;
    let mut tasks = Vec::new();
    for map in docs.iter().flatten() {
        tasks.push(task_from_mapping(map, source, metadata, env_overrides)?);
    }
    Ok(Dag { tasks })
}

/// `sky/utils/dag_utils.py::_load_chain_dag`: a first document holding only
/// `name` (or `name` and `execution`) names the pipeline instead of being a
/// task (`execution` must then be `serial`); a file holding only that
/// header is one task of that name. Null documents are skipped by the
/// caller (`if task_config is None: continue`).
fn chain_documents(mut docs: Vec<Option<Mapping>>) -> Result<Vec<Option<Mapping>>, RequestError> {
    let Some(Some(first)) = docs.first() else {
        return Ok(docs);
    };
    let keys: Vec<String> = first.keys().map(crate::schema::value::key_text).collect();
    let is_header = match keys.as_slice() {
        [k] => k == "name",
        [a, b] => {
            let mut pair = [a.as_str(), b.as_str()];
            pair.sort_unstable();
            pair == ["execution", "name"]
        }
        _ => false,
    };
    if !is_header {
        return Ok(docs);
    }
    if let Some(execution) = first.get("execution").filter(|v| !v.is_null())
        && execution.as_str() != Some("serial")
    {
        return Err(RequestError::value(format!(
            "Invalid execution mode for pipeline: {}. Pipelines must use execution: serial (or omit it). Use execution: parallel for job groups.",
            crate::schema::py_value_repr(execution)
        )));
    }
    let header = docs.remove(0);
    if docs.is_empty() {
        // Only the header: still one task, of that name.
        let mut task = Mapping::new();
        if let Some(name) = header.as_ref().and_then(|h| h.get("name")) {
            task.insert(Value::from("name"), name.clone());
        }
        docs.push(Some(task));
    }
    Ok(docs)
}

fn task_from_mapping(
    map: &Mapping,
    source: &str,
    metadata: &[GpuMetadata],
    env_overrides: &[(String, String)],
) -> Result<Task, RequestError> {
    schema::check_task(map)?;
    let name = map.get("name").and_then(value_text);
    let num_nodes = match map.get("num_nodes") {
        None | Some(Value::Null) => 1,
        Some(v) => parse_num_nodes(v)?,
    };
    let envs = parse_envs(map.get("envs"), env_overrides)?;
    let secret_names = parse_secret_names(map.get("secrets"))?;
    let file_mounts = parse_file_mounts(map.get("file_mounts"), &envs)?;
    let inputs = parse_data_size(map.get("inputs"), "input")?;
    let outputs = parse_data_size(map.get("outputs"), "output")?;
    let config = parse_task_config(map.get("config"))?;
    let mut resources = match map.get("resources") {
        None | Some(Value::Null) => ResourceSet::AnyOf(vec![Resources::default()]),
        Some(Value::Mapping(m)) => resource_set_from_mapping(m, metadata)?,
        Some(other) => {
            return Err(RequestError::value(format!(
                "Invalid task YAML {source}: \"resources\" must be a mapping, found {}.",
                kind_name(other)
            )));
        }
    };
    if let Some(cfg) = &config {
        for r in resources.all_mut() {
            r.config_overrides = Some(cfg.clone());
        }
    }
    let workdir = match map.get("workdir") {
        None | Some(Value::Null) => None,
        Some(Value::Mapping(m)) => Some(Workdir::Git {
            url: m.get("url").and_then(value_text).unwrap_or_default(),
            reference: m.get("ref").and_then(value_text),
        }),
        Some(other) => value_text(other).map(|path| Workdir::Local {
            path: fill_str(&path, &envs),
        }),
    };
    // `$VAR`s of the envs are filled into the service section before it is
    // read (`Task.from_yaml_config` → `_fill_in_env_vars`).
    let service = match (map.get("service"), map.get("pool")) {
        (Some(s), Some(p)) if !s.is_null() && !p.is_null() => {
            return Err(RequestError::value(
                "Cannot set both service and pool in the same task.",
            ));
        }
        (Some(s), _) if !s.is_null() => {
            let spec = crate::service::from_yaml_config(&fill_in_env_vars(s, &envs))?;
            Some(if spec.pool {
                ServiceKind::Pool
            } else {
                ServiceKind::Service
            })
        }
        (_, Some(p)) if !p.is_null() => {
            crate::service::pool_from_yaml_config(&fill_in_env_vars(p, &envs))?;
            Some(ServiceKind::Pool)
        }
        _ => None,
    };
    let run = map.get("run").and_then(value_text);
    Ok(Task {
        name,
        num_nodes,
        resources,
        run,
        spec: TaskSpec {
            envs,
            secret_names,
            workdir,
            setup: map.get("setup").and_then(value_text),
            file_mounts,
            service,
            volumes: parse_task_volumes(map.get("volumes"))?,
            inputs,
            outputs,
        },
    })
}

/// `inputs:` / `outputs:` (`Task.from_yaml_config`): the schema allows at
/// most one entry with a number value; an empty mapping fails SkyPilot's
/// `assert len(inputs_dict) == 1, 'Only one input is allowed.'`.
fn parse_data_size(value: Option<&Value>, what: &str) -> Result<Option<DataSize>, RequestError> {
    let Some(Value::Mapping(m)) = value else {
        return Ok(None);
    };
    let Some((key, size)) = m.iter().next().filter(|_| m.len() == 1) else {
        return Err(RequestError::new(
            ErrorKind::AssertionError,
            format!("Only one {what} is allowed."),
        ));
    };
    let gigabytes = match size {
        Value::Number(n) => n.as_f64().unwrap_or(0.0),
        _ => 0.0,
    };
    let shown = match size {
        Value::Number(n) if n.is_f64() => crate::pytext::py_float_str(gigabytes),
        Value::Number(n) => n.to_string(),
        other => value_text(other).unwrap_or_default(),
    };
    Ok(Some(DataSize {
        path: value_text(key).unwrap_or_default(),
        gigabytes,
        shown,
    }))
}

fn parse_num_nodes(v: &Value) -> Result<u32, RequestError> {
    let shown = value_text(v).unwrap_or_default();
    let bad = || RequestError::value(format!("num_nodes should be a positive int. Got: {shown}"));
    // The task schema rejects non-integers before SkyPilot's own check.
    let schema = |shown: &str| schema::task::type_error(shown, "integer", "num_nodes");
    match v {
        Value::Number(n) => match n.as_i64() {
            Some(i) if i > 0 && i <= u32::MAX as i64 => Ok(i as u32),
            Some(_) => Err(bad()),
            // 1.0 passes the schema (an integral float) and fails SkyPilot's check.
            None if n.as_f64().is_some_and(|f| f.fract() == 0.0) => Err(bad()),
            None => Err(schema(&shown)),
        },
        _ => Err(schema(&py_str_repr(&shown))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Result<Vec<Option<String>>, String> {
        parse_task_yaml(text, "t.yaml", &[])
            .map(|dag| dag.tasks.into_iter().map(|t| t.name).collect())
            .map_err(|e| e.message)
    }

    #[test]
    fn a_name_only_first_document_names_the_chain() {
        let two = |a: &str, b: &str| Ok(vec![Some(a.to_string()), Some(b.to_string())]);
        assert_eq!(
            names("name: pipeline\n---\nname: a\nrun: x\n---\nname: b\nrun: y\n"),
            two("a", "b")
        );
        assert_eq!(
            names("name: p\nexecution: serial\n---\nname: a\n---\nname: b\n---\n"),
            two("a", "b")
        );
        assert_eq!(names("name: p\n"), Ok(vec![Some("p".to_string())]));
        // A first document with more than the header's fields is a task.
        assert_eq!(names("name: a\nrun: x\n---\nname: b\n"), two("a", "b"));
        assert_eq!(
            names("name: p\nexecution: parallel\n---\nname: a\n"),
            Err("Invalid execution mode for pipeline: 'parallel'. Pipelines must use execution: serial (or omit it). Use execution: parallel for job groups.".into())
        );
        assert_eq!(
            names("---\n{}\n"),
            Err("'t.yaml' is empty or contains no task definition. Add at least a `run:` (or `setup:`) field.".into())
        );
    }
}
