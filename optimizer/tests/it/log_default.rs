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

/// A Kubernetes context whose API server answers every listing with a 503
/// is said once, in the warning line and the table's notes: the HTTP
/// client logs nothing of its own (kube's client logged `ERROR failed with
/// status 503 Service Unavailable` for every attempt).
#[test]
fn a_failing_kubernetes_context_is_one_warning_not_a_log_per_attempt() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let server = runtime.block_on(async {
        let server = wiremock::MockServer::start().await;
        wiremock::Mock::given(wiremock::matchers::any())
            .respond_with(wiremock::ResponseTemplate::new(503).set_body_string("no"))
            .mount(&server)
            .await;
        server
    });
    let home = tempfile::tempdir().expect("tempdir");
    let kubeconfig = home.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: ctx\nclusters:\n- name: c\n  cluster:\n    server: {}\ncontexts:\n- name: ctx\n  context:\n    cluster: c\n    user: u\nusers:\n- name: u\n  user:\n    token: abc\n",
            server.uri()
        ),
    )
    .expect("kubeconfig");
    let out = Command::new(env!("CARGO_BIN_EXE_sky"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("NO_COLOR", "1")
        .env("SKY_BUNDLED_CATALOGS", "1")
        .env("SKY_ENABLED_CLOUDS", "kubernetes")
        .env("KUBECONFIG", &kubeconfig)
        // Two attempts within the deadline, not three with their backoff.
        .args([
            "launch",
            "--dryrun",
            "-y",
            "-c",
            "c",
            "--refresh",
            "--cloud-timeout",
            "2",
        ])
        .args(["--gpus", "H100:8"])
        .output()
        .expect("run sky");
    let stderr = String::from_utf8(out.stderr).expect("utf-8");
    let requests = runtime
        .block_on(server.received_requests())
        .unwrap_or_default();
    assert!(requests.len() >= 2, "retried: {} requests", requests.len());
    assert_eq!(log_lines(&stderr), Vec::<&str>::new(), "{stderr}");
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("sky: warning:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains("(503)"), "{stderr}");
}
