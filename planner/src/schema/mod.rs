//! SkyPilot's JSON schemas for task files (`sky/utils/schemas.py`), with
//! the messages of `sky/utils/common_utils.py::validate_schema`
//! (jsonschema's `best_match`), and the limits that keep hostile task files
//! cheap to reject.
//!
//! One module per section of a task file, each holding that section's
//! fields, their forms and its checks: `task.rs` (the top level,
//! `get_task_schema`), `resources.rs` (`get_resources_schema`), `envs.rs`
//! (the `envs:` names and values), `config.rs` (a task's `config:` block,
//! `_task_config_schema`). `form.rs` holds what they share: the forms a
//! value may take, the wording of a violation, and the
//! `additionalProperties` rule for unknown fields; `value.rs` shows YAML
//! values as Python does; `limits.rs` bounds the file; `static_schema.rs`
//! holds the schemas as static data (`build.rs` compiles the JSON files).
//!
//! Only the *shape* of each value is checked here (a string where a string
//! belongs, a boolean for `use_spot`, ...); what the values mean is parsed in
//! [`crate::task`] and [`crate::resources`].

pub(crate) mod config;
pub(crate) mod envs;
mod form;
pub(crate) mod json_schema;
mod limits;
pub(crate) mod resources;
mod static_schema;
pub(crate) mod task;
pub(crate) mod value;

pub use limits::{MAX_TASKS, MAX_YAML_DEPTH, depth_exceeds, reject_tags};
pub use resources::check_resources;
pub use task::check_task;
pub use value::py_value_repr;
