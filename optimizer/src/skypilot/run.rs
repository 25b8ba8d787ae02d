//! Running SkyPilot's CLI as this process's stand-in: the same terminal
//! (stdin, stdout and stderr inherited), the same process group (so the
//! terminal's Ctrl-C, Ctrl-\ and hang-up reach it directly, once), SIGTERM
//! forwarded (sent to this process alone by `kill`, `timeout` and
//! supervisors), and its exit status returned as an exit code.

use std::ffi::OsString;
use std::path::Path;

use tokio::signal::unix::{SignalKind, signal};

use super::DEPTH_VAR;

/// Runs `cli` with `words`, telling it it is `depth` hand-offs deep; returns
/// its exit code (128 + n when signal n ended it). Call inside a runtime.
pub async fn run(cli: &Path, words: &[OsString], depth: u32) -> std::io::Result<u8> {
    // Listening replaces the default action: SIGINT/SIGQUIT/SIGHUP from the
    // terminal must not end this process before the CLI has finished.
    let mut int = signal(SignalKind::interrupt())?;
    let mut quit = signal(SignalKind::quit())?;
    let mut hup = signal(SignalKind::hangup())?;
    let mut term = signal(SignalKind::terminate())?;
    let mut child = tokio::process::Command::new(cli)
        .args(words)
        .env(DEPTH_VAR, (depth + 1).to_string())
        .spawn()?;
    let pid = child.id();
    let status = loop {
        tokio::select! {
            status = child.wait() => break status?,
            _ = term.recv() => forward(pid, rustix::process::Signal::TERM),
            // The terminal sent these to the whole foreground group, the CLI
            // included: forwarding would deliver them twice (a second
            // Ctrl-C makes SkyPilot abandon its clean-up).
            _ = int.recv() => {}
            _ = quit.recv() => {}
            _ = hup.recv() => {}
        }
    };
    Ok(exit_code(status))
}

fn forward(pid: Option<u32>, sig: rustix::process::Signal) {
    let pid = pid
        .and_then(|p| i32::try_from(p).ok())
        .and_then(rustix::process::Pid::from_raw);
    if let Some(pid) = pid {
        // The child may have just exited: nothing to do then.
        let _ = rustix::process::kill_process(pid, sig);
    }
}

/// The shell's convention: the exit code, or 128 + the signal's number.
fn exit_code(status: std::process::ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => u8::try_from(code & 0xff).unwrap_or(1),
        (None, Some(sig)) => u8::try_from(128 + (sig & 0x7f)).unwrap_or(255),
        (None, None) => 1,
    }
}
