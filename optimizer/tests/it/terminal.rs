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
