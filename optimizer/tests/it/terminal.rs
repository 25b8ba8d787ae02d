//! What `sky` draws on a terminal and nowhere else: the pending-clouds status
//! line while slow checks run. The terminal is a real pseudo-terminal, so the
//! binary's own `isatty` decides.

use std::io::Read;
use std::os::fd::OwnedFd;
use std::process::{Command, Stdio};

use mocks::{Latency, StsMock};
use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};

/// AWS answers this late, so the checks outlast the status line's delay (300 ms).
const SLOW_STS_MS: u64 = 1500;

/// Opens a pseudo-terminal: `(master, slave)`.
fn pty() -> (OwnedFd, std::fs::File) {
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).expect("openpt");
    grantpt(&master).expect("grantpt");
    unlockpt(&master).expect("unlockpt");
    let name = ptsname(&master, Vec::new()).expect("ptsname");
    let slave = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(name.to_str().expect("pty path is UTF-8"))
        .expect("open the pty slave");
    (master, slave)
}

fn sky(sts: &StsMock, home: &std::path::Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sky"));
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("TERM", "xterm-256color")
        .env("SKY_ENABLED_CLOUDS", "aws,lambda")
        // The example catalogs, chosen: no download from the network.
        .env("SKY_BUNDLED_CATALOGS", "1")
        .args(["launch", "--dryrun", "-y", "-c", "t", "--gpus", "A100"]);
    for (k, v) in sts.aws_env() {
        cmd.env(k, v);
    }
    cmd
}

/// An STS mock answering after [`SLOW_STS_MS`], with the runtime serving it.
fn slow_sts() -> (tokio::runtime::Runtime, StsMock) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let sts = runtime
        .block_on(
            StsMock::builder()
                .latency(Latency::fixed_ms(SLOW_STS_MS))
                .start(),
        )
        .unwrap();
    (runtime, sts)
}

/// Runs `cmd` with stderr on a pseudo-terminal; returns (exit code, stdout, what the terminal showed).
fn run_on_terminal(mut cmd: Command) -> (Option<i32>, String, String) {
    let (master, slave) = pty();
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(slave))
        .spawn()
        .expect("spawn sky");
    // `cmd` still holds the slave; drop it so the master sees EOF when sky exits.
    drop(cmd);
    let reader = std::thread::spawn(move || {
        let mut master = std::fs::File::from(master);
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        // Linux reports a closed slave as EIO, not as a zero read.
        while let Ok(n) = master.read(&mut buf) {
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..n]);
        }
        String::from_utf8_lossy(&seen).into_owned()
    });
    let out = child.wait_with_output().expect("wait for sky");
    let terminal = reader.join().expect("pty reader");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        terminal,
    )
}

#[test]
fn slow_checks_show_the_pending_clouds_on_a_terminal_and_erase_them() {
    let (_runtime, sts) = slow_sts();
    let home = tempfile::tempdir().unwrap();
    let (code, stdout, terminal) = run_on_terminal(sky(&sts, home.path()));
    assert_eq!(code, Some(0), "stdout:\n{stdout}\nterminal:\n{terminal}");
    assert!(
        terminal.contains("Checking infra choices...") && terminal.contains("pending: AWS"),
        "no status line naming AWS on the terminal:\n{terminal:?}"
    );
    // After the last redraw the line is erased (carriage return + erase line).
    let last = terminal.rfind("pending:").expect("a status line was drawn");
    assert!(
        terminal[last..].contains("\r\x1b[2K") || terminal[last..].contains("\x1b[2K\r"),
        "the status line was not erased:\n{terminal:?}"
    );
    assert!(stdout.contains("Considered resources"), "{stdout}");
    assert!(
        !stdout.contains("Checking infra choices"),
        "the status line reached stdout:\n{stdout}"
    );
}

#[test]
fn a_pipe_never_gets_the_status_line() {
    let (_runtime, sts) = slow_sts();
    let home = tempfile::tempdir().unwrap();
    let out = sky(&sts, home.path()).output().expect("run sky");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("Considered resources"), "{stdout}");
    for (name, text) in [("stdout", &stdout), ("stderr", &stderr)] {
        assert!(
            !text.contains("Checking infra choices") && !text.contains('\r'),
            "a status line reached {name} through a pipe:\n{text:?}"
        );
    }
}

/// A `sky` run whose stdin (and stderr, and optionally stdout) is a
/// pseudo-terminal, as a person at a terminal runs it: what the terminal
/// shows is collected as it comes, and the test waits for text, not for
/// time.
struct Session {
    child: std::process::Child,
    master: std::fs::File,
    seen: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    /// Set once the reader has read everything the terminal will show (the
    /// child closed its side): a fast `sky` can exit before the reader has
    /// copied its last words out of the terminal.
    drained: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

/// How long a test waits for text it expects (generous: a loaded CI machine
/// is slow, and a passing run never waits this long).
const PATIENCE: std::time::Duration = std::time::Duration::from_secs(120);

impl Session {
    /// Starts `cmd` on a new pseudo-terminal; stdout is the terminal too
    /// unless `stdout_piped`.
    fn start(mut cmd: Command, stdout_piped: bool) -> Session {
        let (master, slave) = pty();
        let stdout = if stdout_piped {
            Stdio::piped()
        } else {
            Stdio::from(slave.try_clone().unwrap())
        };
        let child = cmd
            .stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(stdout)
            .stderr(Stdio::from(slave))
            .spawn()
            .expect("spawn sky");
        drop(cmd);
        let master = std::fs::File::from(master);
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut reader = master.try_clone().unwrap();
        let sink = seen.clone();
        let drained = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let done = drained.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
            done.store(true, std::sync::atomic::Ordering::Release);
        });
        Session {
            child,
            master,
            seen,
            drained,
        }
    }

    /// What the terminal showed so far.
    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.seen.lock().unwrap()).into_owned()
    }

    /// Waits until the terminal shows `text` `times` times.
    fn wait_for(&mut self, text: &str, times: usize) {
        let start = std::time::Instant::now();
        while self.screen().matches(text).count() < times {
            if let Ok(Some(status)) = self.child.try_wait() {
                // Let the reader copy out what the child wrote before it
                // exited, then look once more.
                while !self.drained.load(std::sync::atomic::Ordering::Acquire)
                    && start.elapsed() < PATIENCE
                {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                if self.screen().matches(text).count() >= times {
                    return;
                }
                panic!(
                    "sky exited ({status}) before showing {text:?}:\n{:?}",
                    self.screen()
                );
            }
            assert!(
                start.elapsed() < PATIENCE,
                "no {text:?} on the terminal:\n{:?}",
                self.screen()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Types `text` at the terminal.
    fn type_in(&mut self, text: &str) {
        use std::io::Write;
        self.master.write_all(text.as_bytes()).unwrap();
    }

    /// Sends SIGINT, as Ctrl-C does to the foreground process.
    fn interrupt(&self) {
        let pid = rustix::process::Pid::from_raw(self.child.id() as i32).expect("a pid");
        rustix::process::kill_process(pid, rustix::process::Signal::INT).expect("kill -INT");
    }

    /// Waits for the exit: its code and the piped stdout (if piped).
    fn finish(mut self) -> (Option<i32>, String) {
        let start = std::time::Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let mut stdout = String::new();
                if let Some(mut out) = self.child.stdout.take() {
                    out.read_to_string(&mut stdout).unwrap();
                }
                return (status.code(), stdout);
            }
            if start.elapsed() > PATIENCE {
                let _ = self.child.kill();
                panic!("sky did not exit:\n{:?}", self.screen());
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

/// `sky launch` as a person types it (no `-y`, no `--dryrun`), offline:
/// bundled catalogs, declared clouds, no network.
fn person(home: &std::path::Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sky"));
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("TERM", "xterm-256color")
        .env("SKY_BUNDLED_CATALOGS", "1")
        .env("SKY_ENABLED_CLOUDS", "lambda")
        .current_dir(home)
        .args(["launch", "-c", "t", "--gpus", "A100"])
        .args(extra);
    cmd
}

#[test]
fn ctrl_c_at_the_prompt_ends_the_run_at_once_with_130_and_writes_nothing() {
    let home = tempfile::tempdir().unwrap();
    let plan = home.path().join("plan.json");
    let plan_arg = plan.display().to_string();
    let mut session = Session::start(person(home.path(), &["--plan-out", &plan_arg]), false);
    session.wait_for("Proceed? [Y/n]: ", 1);
    session.interrupt();
    let screen_before = session.screen();
    let (code, _) = session.finish();
    assert_eq!(code, Some(130), "{screen_before:?}");
    assert!(!plan.exists(), "the plan was written after Ctrl-C");
}

#[test]
fn an_answer_other_than_yes_or_no_asks_again_as_click_does() {
    let home = tempfile::tempdir().unwrap();
    let plan = home.path().join("plan.json");
    let plan_arg = plan.display().to_string();
    let mut session = Session::start(person(home.path(), &["--plan-out", &plan_arg]), false);
    session.wait_for("Proceed? [Y/n]: ", 1);
    session.type_in("maybe\n");
    session.wait_for("Error: invalid input", 1);
    session.wait_for("Proceed? [Y/n]: ", 2);
    session.type_in("n\n");
    session.wait_for("Aborted!", 1);
    let (code, _) = session.finish();
    assert_eq!(code, Some(1));
    assert!(!plan.exists(), "the plan was written after 'n'");
}

#[test]
fn json_output_never_asks_and_without_yes_never_hands_off() {
    let home = tempfile::tempdir().unwrap();
    let plan = home.path().join("plan.json");
    let plan_arg = plan.display().to_string();
    // A person at a terminal pipes the JSON on: `sky launch … -o json | jq`.
    let session = Session::start(
        person(home.path(), &["-o", "json", "--plan-out", &plan_arg]),
        true,
    );
    let (code, stdout) = session.finish();
    assert_eq!(code, Some(0), "{stdout}");
    let doc: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: stdout is not JSON:\n{stdout}"));
    assert_eq!(doc["schema"], "sky-plan/v1");
    assert!(!stdout.contains("Proceed?"), "{stdout}");
    assert!(
        plan.is_file(),
        "-o json without -y: the plan is written, not launched"
    );
}

#[test]
fn the_status_line_honours_no_color_shows_the_clock_and_says_interrupted() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    // AWS answers long after anyone waits: the line stays up until Ctrl-C.
    let sts = runtime
        .block_on(
            StsMock::builder()
                .latency(Latency::fixed_ms(60_000))
                .start(),
        )
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut cmd = sky(&sts, home.path());
    cmd.env("NO_COLOR", "1").args(["--cloud-timeout", "90"]);
    let mut session = Session::start(cmd, true);
    session.wait_for("pending: AWS", 1);
    session.wait_for(" / 90s", 1);
    session.interrupt();
    session.wait_for("Interrupted", 1);
    let screen = session.screen();
    let (code, stdout) = session.finish();
    assert_eq!(code, Some(130), "{screen:?}");
    assert!(stdout.is_empty(), "{stdout}");
    let line = &screen[screen.find("Checking infra choices").unwrap()..];
    assert!(
        !line.contains("\x1b[1;36m") && !line.contains("\x1b[32m"),
        "colours on the status line with NO_COLOR:\n{screen:?}"
    );
}

/// `sky <args>` offline (bundled catalogs, the given declared clouds).
fn offline(home: &std::path::Path, declared: &str, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sky"));
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("TERM", "xterm-256color")
        .env("NO_COLOR", "1")
        .env("SKY_BUNDLED_CATALOGS", "1")
        .env("SKY_ENABLED_CLOUDS", declared)
        .args(args);
    cmd
}

#[test]
fn a_person_gets_hints_that_pipes_and_logs_do_not() {
    let home = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str, &str); 2] = [
        (&["check", "awz"], "aws", "sky: hint: did you mean aws?"),
        (
            &["launch", "--dryrun", "-y", "--infra", "gcp", "--gpus", "T4"],
            "aws",
            "sky: hint: SKY_ENABLED_CLOUDS decides the enabled clouds here and does not name gcp",
        ),
    ];
    for (args, declared, hint) in cases {
        let mut session = Session::start(offline(home.path(), declared, args), true);
        session.wait_for(hint, 1);
        let (code, _) = session.finish();
        assert_eq!(code, Some(1), "sky {}", args.join(" "));
        let piped = offline(home.path(), declared, args).output().unwrap();
        let stderr = String::from_utf8_lossy(&piped.stderr);
        assert_eq!(piped.status.code(), Some(1), "{stderr}");
        assert!(!stderr.contains("hint"), "a hint reached a pipe:\n{stderr}");
        // SkyPilot's own line is there in both.
        assert!(
            stderr.starts_with("ValueError: ") || stderr.contains("or run: sky check gcp"),
            "{stderr}"
        );
    }
}
