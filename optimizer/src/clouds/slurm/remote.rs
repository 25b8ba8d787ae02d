//! One login-node invocation: the SSH program run with SkyPilot's options,
//! under a deadline, with its output bounded; every failure is data.
//!
//! SkyPilot 0.14.1 reaches a login node with `SlurmLoginNodeCommandRunner`
//! (`sky/utils/command_runner.py`): `ssh` with the options of
//! `ssh_options_list` (no host key checks, `ConnectTimeout`, keep-alives,
//! `IdentitiesOnly` only when the config asks for it, `ProxyCommand` /
//! `ProxyJump`) and the command as `/bin/bash --login -c '<cmd>'`. The
//! `ControlMaster` connection sharing is left out: this adapter makes one
//! invocation per cluster.

use std::process::Stdio;
use std::time::Duration;

use planner::catalog::slurm::{CommandOutput, HostConfig};
use tokio::io::{AsyncRead, AsyncReadExt};

/// How to reach one login node, from its `~/.slurm/config` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Connection {
    /// `HostName`.
    pub hostname: String,
    /// `Port` (22 by default).
    pub port: u16,
    /// `User`.
    pub user: String,
    /// The first `IdentityFile`, expanded.
    pub identity_file: Option<String>,
    /// `ProxyCommand` (not `none`).
    pub proxy_command: Option<String>,
    /// `ProxyJump`.
    pub proxy_jump: Option<String>,
    /// `IdentitiesOnly yes`.
    pub identities_only: bool,
}

impl Connection {
    /// What `SlurmClient(...)` is built from, checked in SkyPilot's order
    /// (the port, then the user, then the key file); the error is the
    /// exception SkyPilot would raise, as `format_exception` prints it.
    pub fn from_host(host: &HostConfig, home: &std::path::Path) -> Result<Connection, String> {
        let port_text = host.get("port").unwrap_or("22");
        let port: u16 = port_text.trim().parse().map_err(|_| {
            format!(
                "ValueError: invalid literal for int() with base 10: {}",
                planner::pytext::py_str_repr(port_text)
            )
        })?;
        let user = host
            .get("user")
            .ok_or_else(|| "KeyError: 'user'".to_string())?
            .to_string();
        let identity_file = match host.identity_file() {
            None => None,
            Some(key) => {
                let expanded = crate::config::expand_home(key, home);
                if !expanded.exists() {
                    return Err(format!(
                        "FileNotFoundError: SSH private key not found: {}",
                        expanded.display()
                    ));
                }
                Some(expanded.display().to_string())
            }
        };
        Ok(Connection {
            hostname: host.hostname().to_string(),
            port,
            user,
            identity_file,
            proxy_command: host.get("proxycommand").map(str::to_string),
            proxy_jump: host.get("proxyjump").map(str::to_string),
            identities_only: host.identities_only(),
        })
    }

    /// The SSH program's arguments for `command` (`ssh_options_list`).
    pub fn ssh_args(&self, command: &str, connect_timeout: Duration) -> Vec<String> {
        let mut args: Vec<String> = vec!["-T".into()];
        if let Some(key) = &self.identity_file {
            args.extend(["-i".into(), key.clone()]);
        }
        let mut option = |k: &str, v: String| args.extend(["-o".into(), format!("{k}={v}")]);
        option("Port", self.port.to_string());
        option("StrictHostKeyChecking", "no".into());
        option("UserKnownHostsFile", "/dev/null".into());
        option("LogLevel", "ERROR".into());
        if self.identities_only {
            option("IdentitiesOnly", "yes".into());
        }
        option("ExitOnForwardFailure", "yes".into());
        option("ServerAliveInterval", "5".into());
        option("ServerAliveCountMax", "3".into());
        option(
            "ConnectTimeout",
            format!("{}s", connect_timeout.as_secs().max(1)),
        );
        if let Some(p) = &self.proxy_command {
            option("ProxyCommand", p.clone());
        }
        if let Some(j) = &self.proxy_jump {
            option("ProxyJump", j.clone());
        }
        args.push(format!("{}@{}", self.user, self.hostname));
        args.push(format!("/bin/bash --login -c {}", shell_quote(command)));
        args
    }
}

/// Python's `shlex.quote`.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "@%+=:,./-_".contains(c))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', "'\"'\"'"))
}

/// Limits of one invocation.
#[derive(Debug, Clone)]
pub struct Limits {
    /// The whole invocation, connect included.
    pub deadline: Duration,
    /// Most bytes kept of stdout and of stderr each; more is a failure.
    pub max_output: usize,
    /// The bytes every login node of one check may send in all, shared by
    /// its invocations: what is kept of every node's output at once stays
    /// under it, however many nodes there are.
    pub budget: Budget,
}

/// A byte budget shared by the login-node invocations of one check
/// (`SlurmOptions::max_total_output_bytes`).
///
/// Bytes are taken as they are read, so every node is still asked at once
/// (a few kB each in the common case: nothing waits on the budget) and only
/// the bytes past the budget fail — the node that read them, with a reason.
/// A concurrency limit would bound the sum too, but would make a launch
/// with many clusters wait on its slowest nodes in turn.
#[derive(Debug, Clone)]
pub struct Budget {
    left: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    total: usize,
}

impl Budget {
    /// A budget of `total` bytes.
    pub fn new(total: usize) -> Budget {
        Budget {
            left: std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(total)),
            total,
        }
    }

    /// Takes `n` bytes; `Err` (and nothing taken) when fewer are left.
    fn take(&self, n: usize) -> Result<(), String> {
        use std::sync::atomic::Ordering;
        self.left
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |left| {
                left.checked_sub(n)
            })
            .map(|_| ())
            .map_err(|_| {
                format!(
                    "RuntimeError: the login nodes' answers exceeded {} bytes in all",
                    self.total
                )
            })
    }
}

/// Reads at most `max` bytes, each taken from `budget`; `Err` when the
/// stream has more, or the budget is spent.
async fn read_bounded(
    mut r: impl AsyncRead + Unpin,
    max: usize,
    budget: &Budget,
) -> Result<Vec<u8>, String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let n = r
            .read(&mut chunk)
            .await
            .map_err(|e| format!("OSError: {e}"))?;
        if n == 0 {
            return Ok(buf);
        }
        if buf.len() + n > max {
            return Err(format!(
                "RuntimeError: the login node's answer exceeded {max} bytes"
            ));
        }
        budget.take(n)?;
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// Text of an answer: without a copy when it is UTF-8 (the usual case).
fn text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Runs `program args...` with exactly `env`, killing it at the deadline or
/// when its output grows past the bound. `Err` is why there is no answer.
pub async fn run(
    program: &str,
    args: &[String],
    env: &std::collections::BTreeMap<String, String>,
    limits: Limits,
) -> Result<CommandOutput, String> {
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .env_clear()
        .envs(env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        // Its own process group, so that a deadline also ends what it started
        // (a shell, a proxy command) and no grandchild keeps the pipes open.
        .process_group(0)
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!(
                "FileNotFoundError: [Errno 2] No such file or directory: {}",
                planner::pytext::py_str_repr(program)
            ),
            _ => format!("OSError: cannot run {program}: {e}"),
        })?;
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err("OSError: the SSH program's output is not readable".into());
    };
    let pid = child.id();
    let work = async {
        let (out, err) = tokio::join!(
            read_bounded(stdout, limits.max_output, &limits.budget),
            read_bounded(stderr, limits.max_output, &limits.budget)
        );
        let (out, err) = (out?, err?);
        let status = child.wait().await.map_err(|e| format!("OSError: {e}"))?;
        Ok::<_, String>(CommandOutput {
            // Killed by a signal: what a shell reports (128 + signal).
            returncode: status.code().unwrap_or(255),
            stdout: text(out),
            stderr: text(err),
        })
    };
    let result = tokio::time::timeout(limits.deadline, work).await;
    if !matches!(result, Ok(Ok(_))) {
        kill_group(pid);
    }
    match result {
        Ok(result) => result,
        // Dropping `child` kills it too (`kill_on_drop`).
        Err(_) => Err(format!(
            "subprocess.TimeoutExpired: the login node did not answer within {} seconds",
            format_seconds(limits.deadline)
        )),
    }
}

/// Ends the invocation's process group (best effort: it may be gone).
fn kill_group(pid: Option<u32>) {
    let Some(pid) = pid.and_then(|p| rustix::process::Pid::from_raw(p as i32)) else {
        return;
    };
    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
}

fn format_seconds(d: Duration) -> String {
    planner::pytext::format_float(d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_and_arguments() {
        assert_eq!(shell_quote("sinfo"), "sinfo");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), "'it'\"'\"'s'");
        assert_eq!(shell_quote(""), "''");
        let c = Connection {
            hostname: "login".into(),
            port: 2222,
            user: "bob".into(),
            identity_file: Some("/k".into()),
            proxy_command: None,
            proxy_jump: Some("bastion".into()),
            identities_only: true,
        };
        let args = c.ssh_args("echo hi", Duration::from_secs(4));
        assert_eq!(args[0..3], ["-T", "-i", "/k"]);
        assert!(args.contains(&"Port=2222".to_string()));
        assert!(args.contains(&"IdentitiesOnly=yes".to_string()));
        assert!(args.contains(&"ProxyJump=bastion".to_string()));
        assert!(args.contains(&"ConnectTimeout=4s".to_string()));
        assert_eq!(args[args.len() - 2], "bob@login");
        assert_eq!(args[args.len() - 1], "/bin/bash --login -c 'echo hi'");
    }
}
