//! What the sections' own checks share: how `validate_schema` words a
//! violation found outside the generic schema walk
//! ([`super::json_schema`]), e.g. by the parsers that read a value's meaning.

use crate::resources::{ErrorKind, RequestError};

/// A schema violation as `validate_schema` words it: `prefix` names the
/// schema (`Invalid task YAML: `), `path` the field (`$.resources.cpus`).
pub(super) fn violation(prefix: &str, message: String, path: &str) -> RequestError {
    RequestError::new(
        ErrorKind::InvalidConfig,
        format!("{prefix}{message}. Check problematic field(s): {path}"),
    )
}
