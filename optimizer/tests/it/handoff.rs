//! SkyPilot behind this `sky`, through the real binary and a stand-in for
//! SkyPilot's CLI (`fixtures/skypilot-cli/sky`, which records its
//! arguments, stdin, hand-off depth and the task file it was given):
//! pass-through of what `sky` does not implement, the hand-off of a
//! confirmed launch with the plan pinned, how the CLI is found (`PATH` by
//! file identity, `SKYPILOT_CLI`), the loop guard, the missing-CLI error,
//! exit codes and SIGTERM passed along; and what never calls SkyPilot.

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn fake_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/skypilot-cli")
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

/// The system folders (`sh`, `cp`, `sleep`), without any real `sky`.
fn system_path() -> OsString {
    "/usr/bin:/bin".into()
}

/// `PATH` with the fake SkyPilot first.
fn path_with_fake() -> OsString {
    std::env::join_paths([fake_dir(), "/usr/bin".into(), "/bin".into()]).unwrap()
}

/// A run of `sky` in a fresh HOME, recording into `<tmp>/rec`.
struct Run {
    tmp: tempfile::TempDir,
    cmd: Command,
}

impl Run {
    fn new(args: &[&str]) -> Run {
        let tmp = tempfile::tempdir().unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_sky"));
        cmd.env_clear()
            .env("PATH", path_with_fake())
            .env("HOME", tmp.path())
            .env("USER", "tester")
            .env("NO_COLOR", "1")
            .env("SKY_BUNDLED_CATALOGS", "1")
            .env("SKY_ENABLED_CLOUDS", "aws,gcp")
            .env("FAKE_SKYPILOT_RECORD", tmp.path().join("rec"))
            .args(args);
        Run { tmp, cmd }
    }

    fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Run {
        self.cmd.env(key, value);
        self
    }

    fn output(mut self, stdin: &str) -> (Output, Record) {
        self.cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = self.cmd.spawn().expect("run sky");
        let mut input = child.stdin.take().unwrap();
        input.write_all(stdin.as_bytes()).unwrap();
        drop(input);
        let out = child.wait_with_output().unwrap();
        (out, Record(self.tmp.path().join("rec"), self.tmp))
    }
}

/// What the fake SkyPilot recorded (nothing when it never ran).
struct Record(PathBuf, #[allow(dead_code)] tempfile::TempDir);

impl Record {
    fn ran(&self) -> bool {
        self.0.exists()
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.0.join(name))
            .unwrap_or_else(|e| panic!("fake SkyPilot recorded no {name}: {e}"))
    }

    fn args(&self) -> Vec<String> {
        self.read("args").lines().map(String::from).collect()
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn what_sky_does_not_implement_runs_skypilot_with_the_same_words_stdin_and_exit_code() {
    for (args, code) in [
        (&["status", "-r", "--refresh"][..], 0),
        (&["down", "-a", "-y"][..], 7),
        (&["-v"][..], 0),
        (&["jobs", "launch", "--help"][..], 1),
        (&["serve", "status"][..], 0),
        (&["api", "info"][..], 0),
        (&["exec", "c", "--", "echo", "a b"][..], 0),
    ] {
        let (out, rec) = Run::new(args)
            .env("FAKE_SKYPILOT_EXIT", code.to_string())
            .output("input for SkyPilot\n");
        assert_eq!(
            out.status.code(),
            Some(code),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(rec.args(), args, "{args:?}");
        assert_eq!(rec.read("stdin"), "input for SkyPilot\n");
        assert_eq!(rec.read("depth"), "1\n", "the child is one hand-off deep");
        assert_eq!(text(&out.stdout), format!("fake SkyPilot: {}\n", args[0]));
        assert_eq!(text(&out.stderr), "");
    }
}

#[test]
fn our_subcommands_and_dry_runs_never_call_skypilot() {
    for args in [
        &["launch", "--dryrun", "-y", "--gpus", "V100"][..],
        &["launch", "--dryrun", "--gpus", "V100"][..],
        &["gpus", "list", "V100"][..],
        &["show-gpus"][..],
        &["check"][..],
        &["catalog", "refresh", "--help"][..],
        &["--help"][..],
        &["--version"][..],
        &["launch", "--bogus-flag"][..],
    ] {
        let (out, rec) = Run::new(args).output("");
        assert!(!rec.ran(), "{args:?} ran SkyPilot: {}", text(&out.stdout));
        assert!(!text(&out.stdout).contains("fake SkyPilot"), "{args:?}");
    }
    // A flag `sky launch` does not know stays our usage error.
    let (out, _) = Run::new(&["launch", "--bogus-flag"]).output("");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--bogus-flag"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_confirmed_launch_hands_skypilot_the_pinned_plan_and_returns_its_exit_code() {
    let (out, rec) = Run::new(&[
        "launch",
        "-c",
        "t",
        "--gpus",
        "V100",
        "--env",
        "A=1",
        "--cloud-timeout",
        "3",
        "--timings",
        "-i",
        "10",
    ])
    .env("FAKE_SKYPILOT_EXIT", "5")
    .output("y\n");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(5), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains(
            "Launching a new cluster 't'. Proceed? [Y/n]: \nHanding the plan to SkyPilot ("
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("): n1-highmem-8 on GCP (us-central1-a), then 1 more in the order shown.\nfake SkyPilot: launch\n"),
        "{stdout}"
    );
    let args = rec.args();
    let task_path = args.last().unwrap().clone();
    assert_eq!(
        args[..args.len() - 1],
        ["launch", "-c", "t", "--env", "A=1", "-i", "10", "--yes"]
    );
    assert!(task_path.ends_with(".yaml"), "{task_path}");
    assert!(
        !Path::new(&task_path).exists(),
        "the pinned task file is removed after SkyPilot exits"
    );
    assert_eq!(
        rec.read("task"),
        "name: sky-cmd
resources:
  ordered:
  - infra: gcp/us-central1/us-central1-a
    instance_type: n1-highmem-8
    accelerators: V100:1
    use_spot: false
  - infra: aws/us-east-1
    instance_type: p3.2xlarge
    accelerators: V100:1
    use_spot: false
num_nodes: 1
"
    );
}

#[test]
fn a_task_yaml_keeps_its_fields_and_a_chain_is_pinned_per_task() {
    let dir = tempfile::tempdir().unwrap();
    let task = dir.path().join("task.yaml");
    std::fs::write(
        &task,
        "name: train\nnum_nodes: 2\nsetup: pip install x\nrun: python train.py\nenvs:\n  LR: '0.1'\nresources:\n  accelerators: V100\n  use_spot: true\n  disk_size: 100\n",
    )
    .unwrap();
    let (out, rec) =
        Run::new(&["launch", "-y", "--num-nodes", "3", task.to_str().unwrap()]).output("");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let args = rec.args();
    assert_eq!(args.len(), 5, "{args:?}");
    assert_eq!(args[..3], ["launch", "-y", "--cluster"]);
    assert!(
        args[3].starts_with("sky-") && args[3].ends_with("-tester"),
        "{args:?}"
    );
    let pinned = rec.read("task");
    assert!(pinned.starts_with("name: train\nnum_nodes: 3\nsetup: pip install x\nrun: python train.py\nenvs:\n  LR: '0.1'\nresources:\n  ordered:\n  - disk_size: 100\n    infra: "), "{pinned}");
    assert!(pinned.contains("use_spot: true"), "{pinned}");
    assert!(!pinned.contains("use_spot: false"), "{pinned}");

    let chain = fixtures().join("scenarios/chain-two-tasks/task.yaml");
    let (out, rec) = Run::new(&["launch", "-y", chain.to_str().unwrap()]).output("");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let pinned = rec.read("task");
    assert_eq!(pinned.matches("ordered:").count(), 2, "{pinned}");
    assert!(pinned.contains("run: echo preprocess"), "{pinned}");
    assert!(pinned.contains("name: train\nnum_nodes: 2\n"), "{pinned}");
}

#[test]
fn the_sky_on_path_is_found_by_file_identity_skipping_this_one() {
    let dir = tempfile::tempdir().unwrap();
    // This `sky` first on PATH, under its own name, through a symlink.
    let ours = dir.path().join("ours");
    std::fs::create_dir(&ours).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_sky"), ours.join("sky")).unwrap();
    let path =
        std::env::join_paths([ours.clone(), fake_dir(), "/usr/bin".into(), "/bin".into()]).unwrap();
    let mut run = Run::new(&["status"]).env("PATH", &path);
    run.cmd = {
        let mut cmd = Command::new(ours.join("sky"));
        cmd.env_clear()
            .env("PATH", &path)
            .env("HOME", run.tmp.path())
            .env("FAKE_SKYPILOT_RECORD", run.tmp.path().join("rec"))
            .arg("status");
        cmd
    };
    let (out, rec) = run.output("");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(rec.args(), ["status"]);
}

#[test]
fn skypilot_cli_names_the_cli_and_wins_over_path() {
    let (out, rec) = Run::new(&["status"])
        .env("PATH", system_path())
        .env("SKYPILOT_CLI", fake_dir().join("sky"))
        .output("");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(rec.args(), ["status"]);
}

#[test]
fn without_skypilot_one_line_says_how_to_install_it() {
    for args in [&["status"][..], &["launch", "-y", "--gpus", "V100"][..]] {
        let (out, rec) = Run::new(args).env("PATH", system_path()).output("");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with("sky: SkyPilot's CLI was not found"),
            "{stderr}"
        );
        assert!(
            stderr.contains("pip install 'skypilot[aws,gcp,kubernetes]==0.14.1'"),
            "{stderr}"
        );
        assert!(!rec.ran());
    }
}

#[test]
fn a_cli_that_leads_back_to_this_sky_is_refused_not_looped() {
    let dir = tempfile::tempdir().unwrap();
    // SKYPILOT_CLI naming this binary itself: refused by identity.
    let (out, _) = Run::new(&["status"])
        .env("SKYPILOT_CLI", env!("CARGO_BIN_EXE_sky"))
        .output("");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("is this sky, not SkyPilot's"),
        "{}",
        text(&out.stderr)
    );
    // A wrapper that runs this sky again: the depth marker stops it.
    let wrapper = dir.path().join("wrapper");
    std::fs::write(
        &wrapper,
        format!("#!/bin/sh\nexec '{}' \"$@\"\n", env!("CARGO_BIN_EXE_sky")),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let started = Instant::now();
    let (out, _) = Run::new(&["status"])
        .env("SKYPILOT_CLI", &wrapper)
        .output("");
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert_eq!(
        stderr,
        "sky: SkyPilot's CLI leads back to this sky (SKY_HANDOFF_DEPTH=3); set SKYPILOT_CLI to SkyPilot's own `sky`\n"
    );
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[test]
fn sigterm_reaches_skypilot_and_its_exit_code_comes_back() {
    let mut run = Run::new(&["status"]).env("FAKE_SKYPILOT_SLEEP", "30");
    run.cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = run.cmd.spawn().unwrap();
    let rec = run.tmp.path().join("rec");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !rec.join("ready").exists() {
        assert!(Instant::now() < deadline, "the fake SkyPilot never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(42),
        "sky returns SkyPilot's exit code after SIGTERM"
    );
    assert_eq!(
        std::fs::read_to_string(rec.join("signal")).unwrap(),
        "TERM\n"
    );
}
