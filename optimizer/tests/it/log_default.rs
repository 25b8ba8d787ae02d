//! A run without `SKY_LOG` or `--trace` makes its log subscriber only when
//! something is logged (`bin/sky/lazy_log.rs`); what it prints must be what
//! `SKY_LOG=warn` prints, line for line but the timestamps, and nothing
//! below a warning.

use std::process::Command;

/// `sky launch` with AWS keys, a state "folder" that is a file (the
/// identity cache warns it is disabled) and an STS endpoint nothing
/// listens on; `SKY_LOG` as given.
fn launch(home: &std::path::Path, sky_log: Option<&str>) -> String {
    let state = home.join("state-is-a-file");
    std::fs::write(&state, b"").expect("write");
    let mut command = Command::new(env!("CARGO_BIN_EXE_sky"));
    command
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .env("SKY_BUNDLED_CATALOGS", "1")
        .env("SKY_ENABLED_CLOUDS", "aws,lambda")
        .env("SKY_STATE_DIR", &state)
        .env("AWS_ACCESS_KEY_ID", "AKIDLOGTESTEXAMPLE")
        .env("AWS_SECRET_ACCESS_KEY", "log/test/secret/EXAMPLE")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_ENDPOINT_URL_STS", "http://127.0.0.1:1")
        .args(["launch", "--dryrun", "-y", "-c", "c", "--gpus", "H100:8"]);
    if let Some(level) = sky_log {
        command.env("SKY_LOG", level);
    }
    let out = command.output().expect("run sky");
    String::from_utf8(out.stderr).expect("utf-8")
}

/// The log lines (`<timestamp>  WARN ...`) with their timestamps cut.
fn log_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter_map(|line| {
            let (stamp, rest) = line.split_once(' ')?;
            (stamp.len() > 20 && stamp.ends_with('Z') && stamp.contains('T')).then_some(rest)
        })
        .collect()
}

#[test]
fn the_usual_runs_log_is_the_warn_levels() {
    let home = tempfile::tempdir().expect("tempdir");
    let usual = launch(home.path(), None);
    let warn = launch(home.path(), Some("warn"));
    let lines = log_lines(&usual);
    assert!(
        lines.iter().any(|l| l
            .trim_start()
            .starts_with("WARN AWS identity cache disabled")),
        "the disabled cache is logged: {usual}"
    );
    assert!(
        lines
            .iter()
            .all(|l| l.trim_start().starts_with("WARN") || l.trim_start().starts_with("ERROR")),
        "nothing below a warning: {usual}"
    );
    assert_eq!(lines, log_lines(&warn), "{usual}\n---\n{warn}");
    // Whatever is not a log line (the launch's own output) is the same too.
    let rest = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| log_lines(l).is_empty())
            .map(String::from)
            .collect()
    };
    assert_eq!(rest(&usual), rest(&warn));
}
