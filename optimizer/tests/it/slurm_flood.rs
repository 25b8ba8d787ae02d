//! Many Slurm login nodes sending without end at once (issue 26): each
//! node's output is capped per stream, and every node of one check shares
//! one byte budget (`SlurmOptions::max_total_output_bytes`), so the
//! process stays under 64 MB however many nodes there are. Through the
//! library (the budget shared and said), and through the binary (under
//! `just stress`, `SKY_STRESS=1`: peak RSS under 64 MB).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use optimizer::clouds::slurm::{SlurmCloud, SlurmOptions};
use optimizer::clouds::{CheckContext, Cloud};
use planner::check::CloudFacts;

fn stress() -> bool {
    std::env::var_os("SKY_STRESS").is_some_and(|v| !v.is_empty())
}

/// `~/.slurm/config` with `n` clusters `c0`…, each its own login node.
fn clusters(home: &Path, n: usize) {
    let config: String = (0..n)
        .map(|i| format!("Host c{i}\n    HostName login{i}.example.com\n    User u\n\n"))
        .collect();
    std::fs::create_dir_all(home.join(".slurm")).unwrap();
    std::fs::write(home.join(".slurm/config"), config).unwrap();
}

/// An `ssh` program with this shell body.
fn program(dir: &Path, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("ssh");
    std::fs::write(&path, format!("#!/usr/bin/env bash\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn ctx(home: &Path, timeout: Duration) -> CheckContext {
    let env: BTreeMap<String, String> = [
        (
            "PATH".to_string(),
            std::env::var("PATH").unwrap_or_default(),
        ),
        ("USER".to_string(), "tester".to_string()),
    ]
    .into_iter()
    .collect();
    CheckContext {
        env,
        home: home.to_path_buf(),
        state_dir: home.join(".sky"),
        refresh: false,
        cloud_timeout: timeout,
        kubernetes_allowed_contexts: None,
        reservation_clouds: Vec::new(),
        gcp_project_id: None,
        sky_config: Default::default(),
    }
}

/// Six login nodes of 3 MB each against an 8 MB budget: at most two get
/// their answer whole; every other fails saying the budget, not the
/// per-node cap (which they are under).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_nodes_share_one_output_budget() {
    let home = tempfile::tempdir().unwrap();
    clusters(home.path(), 6);
    let ssh = program(
        home.path(),
        "head -c 3000000 /dev/zero | tr '\\0' x; exit 0",
    );
    let mut options = SlurmOptions {
        ssh_program: ssh.display().to_string(),
        ..SlurmOptions::default()
    };
    options.max_total_output_bytes = 8 << 20;
    let cloud = SlurmCloud::new(options, None);
    let outcome = cloud
        .check(&ctx(home.path(), Duration::from_secs(20)))
        .await
        .expect("a login node's failure is data");
    let CloudFacts::Slurm(clusters) = outcome.facts else {
        panic!("not Slurm facts");
    };
    assert_eq!(clusters.len(), 6);
    let over: Vec<&String> = clusters
        .iter()
        .filter_map(|c| c.inventory.as_ref().err())
        .filter(|e| !e.starts_with("RuntimeError: Unexpected output"))
        .collect();
    // Whole answers are not frames: they fail to parse, which is fine; what
    // counts is how many were read whole.
    let whole = clusters.len() - over.len();
    assert!(whole <= 2, "{whole} answers of 3 MB read within 8 MB");
    assert!(!over.is_empty());
    for e in over {
        assert_eq!(
            e, "RuntimeError: the login nodes' answers exceeded 8388608 bytes in all",
            "{e}"
        );
    }
}

/// Sixteen login nodes sending on stdout and stderr without end, through a
/// launch: it ends by its deadline, plans (Slurm has nothing to offer),
/// and under `SKY_STRESS=1` its peak RSS is under 64 MB.
#[test]
fn many_endless_login_nodes_stay_under_64_mb() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    clusters(&home, 16);
    let ssh = program(dir.path(), "yes >&2 & exec yes");
    let sky = PathBuf::from(env!("CARGO_BIN_EXE_sky"));
    let mut cmd = if stress() {
        let mut c = Command::new("/usr/bin/time");
        c.args(["-f", "SKY-RSS %M"]).arg(&sky);
        c
    } else {
        Command::new(&sky)
    };
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env("SKY_STATE_DIR", dir.path().join("state"))
        .env("SKY_BUNDLED_CATALOGS", "1")
        .env("SKY_ENABLED_CLOUDS", "slurm,lambda")
        .env("SKY_SLURM_SSH", &ssh)
        .env("NO_COLOR", "1")
        .args([
            "launch",
            "--dryrun",
            "-y",
            "-c",
            "t",
            "--gpus",
            "H100",
            "--cloud-timeout",
            "3",
        ]);
    let started = Instant::now();
    let out = cmd.output().expect("run sky");
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let rss: u64 = stderr
        .rfind("SKY-RSS ")
        .and_then(|at| stderr[at + 8..].trim().parse::<u64>().ok())
        .unwrap_or(0)
        * 1024;
    eprintln!(
        "16 endless login nodes: {took:?}, peak RSS {} MB",
        rss >> 20
    );
    assert!(out.status.code().is_some(), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Lambda"), "{stdout}\n{stderr}");
    // The global deadline is --cloud-timeout + 1 s.
    assert!(took < Duration::from_secs(6), "{took:?}");
    if stress() {
        assert!(rss > 0, "no peak RSS measured: {stderr}");
        assert!(rss < 64 << 20, "peak RSS {} MB", rss >> 20);
    }
}
