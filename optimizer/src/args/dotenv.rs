//! The task's environment variables and secrets from `--env-file`,
//! `--secret-file`, `--env` and `--secret`, as SkyPilot's CLI reads them
//! (`sky/client/cli/flags.py::_parse_dotenv_file`, `_parse_env_var`;
//! `command.py::_merge_cli_and_file_vars`).

use std::path::Path;

use super::error::ArgsError;
use crate::clouds::EnvMap;
use crate::input::{MAX_CONFIG_FILE_BYTES, read_regular_text};

/// `KEY=VALUE` pairs in first-seen order, a later value replacing an
/// earlier one in place.
pub(super) type Vars = Vec<(String, String)>;

/// Sets `key` to `value`, in place when it is there already.
fn set(vars: &mut Vars, key: String, value: String) {
    match vars.iter_mut().find(|(name, _)| *name == key) {
        Some((_, slot)) => *slot = value,
        None => vars.push((key, value)),
    }
}

/// `_parse_dotenv_file`: `KEY=VALUE` lines (`export ` allowed, `#`
/// comments, single or double quotes around the value, an unquoted value
/// ending at ` #`). `flag` names the option that gave `path`.
pub(super) fn read_file(flag: &'static str, path: &Path) -> Result<Vars, ArgsError> {
    if !path.is_file() {
        return Err(ArgsError::DotenvMissing {
            flag,
            path: path.to_path_buf(),
        });
    }
    // Through the capped reader, like every other input file: a FIFO or a
    // huge file is an error naming the file, never a hang.
    let text = read_regular_text(path, MAX_CONFIG_FILE_BYTES)
        .map_err(|error| ArgsError::DotenvUnreadable { flag, error })?;
    parse(flag, path, &text)
}

/// The lines of a dotenv file read from `path`.
pub(super) fn parse(flag: &'static str, path: &Path, text: &str) -> Result<Vars, ArgsError> {
    let mut out = Vars::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line).trim_start();
        let Some((k, v)) = line.split_once('=') else {
            return Err(ArgsError::DotenvLine {
                flag,
                path: path.to_path_buf(),
                line: n + 1,
                text: line.to_string(),
            });
        };
        let v = v.trim();
        let v = if let Some(inner) = v
            .strip_prefix('"')
            .and_then(|x| x.strip_suffix('"'))
            .or_else(|| v.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')))
        {
            inner.to_string()
        } else {
            // An unquoted value ends at ` #` (an inline comment).
            v.split(" #").next().unwrap_or("").trim_end().to_string()
        };
        set(&mut out, k.trim().to_string(), v);
    }
    Ok(out)
}

/// `_parse_env_var`: `KEY=VALUE`, or `KEY` taken from this process.
pub(super) fn var(
    flag: &'static str,
    text: &str,
    env: &EnvMap,
) -> Result<(String, String), ArgsError> {
    match text.split_once('=') {
        Some((k, v)) => Ok((k.to_string(), v.to_string())),
        None => match env.get(text) {
            Some(v) => Ok((text.to_string(), v.clone())),
            None => Err(ArgsError::UnsetVariable {
                flag,
                name: text.to_string(),
            }),
        },
    }
}

/// `_merge_cli_and_file_vars`: later files win, the flags win over files.
pub(super) fn merge(files: &[Vars], flags: Vars) -> Vars {
    let mut out = Vars::new();
    for (k, v) in files.iter().flatten().cloned().chain(flags) {
        set(&mut out, k, v);
    }
    out
}
