//! Peak resident set size of one child process, without GNU `time`.
//!
//! The kernel reports a process's peak RSS to whoever waits for it, but the
//! standard library's `wait` drops it, and `getrusage(RUSAGE_CHILDREN)`
//! gives the largest of *all* children waited for so far. So the bench
//! executable runs the process through a fresh copy of itself
//! ([`WRAPPER_FLAG`]): that copy has exactly one child, spawns it with the
//! environment and arguments it was given, waits, and appends the child's
//! `ru_maxrss` to its stderr ([`MARKER`]). [`wrapper_main`] is the first
//! thing the bench executable's `main` calls.

use std::ffi::OsString;
use std::process::{Command, ExitCode, Stdio};

use anyhow::{Context, bail};

/// The first argument that turns the bench executable into the wrapper:
/// `<bench exe> --peak-rss-of PROGRAM [ARGS…]`.
pub const WRAPPER_FLAG: &str = "--peak-rss-of";

/// Starts the last line the wrapper writes to stderr: `sky-bench-peak-rss-kib=N`.
pub const MARKER: &str = "sky-bench-peak-rss-kib=";

/// In the wrapper (the executable was started with [`WRAPPER_FLAG`]): runs
/// the program, reports its peak RSS, and returns the exit code to end with;
/// `None` otherwise (a normal benchmark run).
pub fn wrapper_main() -> Option<ExitCode> {
    let mut args = std::env::args_os().skip(1);
    if args.next().is_none_or(|a| a != WRAPPER_FLAG) {
        return None;
    }
    let rest: Vec<OsString> = args.collect();
    let Some((program, args)) = rest.split_first() else {
        eprintln!("{WRAPPER_FLAG}: no program given");
        return Some(ExitCode::from(2));
    };
    let status = match Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .status()
    {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "{WRAPPER_FLAG}: cannot run {}: {e}",
                program.to_string_lossy()
            );
            return Some(ExitCode::from(2));
        }
    };
    if let Some(kib) = children_peak_rss_kib() {
        eprintln!("\n{MARKER}{kib}");
    }
    let code = status.code().unwrap_or(2);
    Some(ExitCode::from(u8::try_from(code).unwrap_or(2)))
}

/// The largest peak RSS (KiB) of the children waited for; `None` off Linux
/// (where `ru_maxrss` is not in KiB) or when the call fails.
fn children_peak_rss_kib() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        use nix::sys::resource::{UsageWho, getrusage};
        getrusage(UsageWho::RUSAGE_CHILDREN)
            .ok()
            .and_then(|u| u64::try_from(u.max_rss()).ok())
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Runs `command` through the wrapper (same program, arguments and
/// environment; output captured) and returns the process's peak RSS in KiB,
/// `None` where the platform does not report it. Fails when the process
/// does not exit 0.
pub fn peak_rss_kib(command: Command) -> anyhow::Result<Option<u64>> {
    let exe = std::env::current_exe().context("locating the bench executable")?;
    let mut wrapped = Command::new(exe);
    wrapped
        .arg(WRAPPER_FLAG)
        .arg(command.get_program())
        .args(command.get_args());
    if command.get_envs().len() > 0 {
        // `env_clear` cannot be read back from a `Command`; the rows set
        // their whole environment, so start the wrapper from it alone.
        wrapped.env_clear();
    }
    for (k, v) in command.get_envs() {
        match v {
            Some(v) => wrapped.env(k, v),
            None => wrapped.env_remove(k),
        };
    }
    let out = wrapped.output().context("running the peak-RSS wrapper")?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        bail!(
            "`{}` exited {} under the peak-RSS wrapper: {}",
            command.get_program().to_string_lossy(),
            out.status,
            stderr.trim()
        );
    }
    Ok(stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(MARKER))
        .and_then(|n| n.trim().parse().ok()))
}
