//! The exit-code rule as a table: every row of `fixtures/exit-codes.toml`
//! through the real binary — its exit code, and the kind of error it
//! printed (how stderr starts), which go together.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

#[derive(Debug, serde::Deserialize)]
struct Table {
    case: Vec<Case>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// Why this row is here (documentation only).
    #[serde(default)]
    #[allow(dead_code)]
    why: Option<String>,
    args: Vec<String>,
    /// Added to, or overriding, the base environment.
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// Files created in the working directory first (name → content).
    #[serde(default)]
    files: BTreeMap<String, String>,
    code: i32,
    /// How stderr starts.
    stderr: String,
}

fn table() -> Table {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/exit-codes.toml");
    let text = std::fs::read_to_string(&path).expect("read fixtures/exit-codes.toml");
    toml::from_str(&text).expect("fixtures/exit-codes.toml is a table of cases")
}

fn run(case: &Case) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in &case.files {
        std::fs::write(dir.path().join(name), content).unwrap();
    }
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sky"));
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir.path())
        .env("NO_COLOR", "1")
        .env("SKY_BUNDLED_CATALOGS", "1")
        .env("SKY_ENABLED_CLOUDS", "aws,gcp")
        .envs(&case.env)
        .current_dir(dir.path())
        .args(&case.args)
        .stdin(Stdio::null());
    let out = cmd.output().expect("run sky");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_ending_exits_with_the_code_the_rule_gives_it() {
    let table = table();
    assert!(table.case.len() >= 20, "the table lost its rows");
    let mut wrong = Vec::new();
    for case in &table.case {
        let (code, stderr) = run(case);
        if code != Some(case.code) || !stderr.starts_with(&case.stderr) {
            wrong.push(format!(
                "sky {}: exit {code:?} (expected {}), stderr:\n{stderr}",
                case.args.join(" "),
                case.code
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
