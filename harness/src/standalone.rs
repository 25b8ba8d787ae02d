//! `harness mocks`: start a scenario's mocks and keep them running, so
//! whole-process tools (hyperfine, `/usr/bin/time`) can measure `sky` against them.

use std::future::Future;
use std::io::Write;

use mocks::MockSet;

use crate::engine::{Mode, ProcessLauncher};
use crate::error::{HarnessError, Result};
use crate::sandbox::Sandbox;
use crate::scenario::Scenario;

fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-:=,+@%".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Starts the mocks, prints how to point `sky` at them to `out`, then waits
/// for `stop` (Ctrl-C in the binary) and prints the request counts.
pub async fn serve(
    scenario: &Scenario,
    out: &mut dyn Write,
    stop: impl Future<Output = ()>,
) -> Result<()> {
    let set = MockSet::start(&scenario.file.mocks).await?;
    let sandbox = Sandbox::new(scenario)?;
    // Concurrent-mode environment; `SKY_FANOUT=serial` gives the serial mode.
    let env = sandbox.mode_env(scenario, &set, "standalone", false)?;
    let env_file = sandbox.root().join("env");
    let env_text: String = env.env.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
    std::fs::write(&env_file, &env_text).map_err(|e| HarnessError::io(&env_file, e))?;
    let args: Vec<String> = ProcessLauncher::args(scenario, Mode::Concurrent)
        .iter()
        .map(|a| shell_quote(a))
        .collect();
    let io = |e: std::io::Error| HarnessError::io("<stdout>", e);
    writeln!(
        out,
        "# mocks for scenario `{}` are running: {}",
        scenario.name, scenario.file.description
    )
    .map_err(io)?;
    for r in set.recorders() {
        writeln!(out, "#   {}", r.endpoint()).map_err(io)?;
    }
    writeln!(
        out,
        "# Point sky at them (HOME is a temporary home with fake credentials):"
    )
    .map_err(io)?;
    for (k, v) in &env.env {
        writeln!(out, "export {k}={}", shell_quote(v)).map_err(io)?;
    }
    writeln!(
        out,
        "# The same environment, one variable per line: {}",
        env_file.display()
    )
    .map_err(io)?;
    writeln!(out, "# Then, for example:").map_err(io)?;
    writeln!(out, "#   sky {}", args.join(" ")).map_err(io)?;
    writeln!(
        out,
        "#   hyperfine -w 1 \"env -i $(tr '\\n' ' ' < {}) target/release/sky {}\"",
        env_file.display(),
        args.join(" ")
    )
    .map_err(io)?;
    writeln!(out, "# Press Ctrl-C to stop.").map_err(io)?;
    out.flush().map_err(io)?;
    stop.await;
    writeln!(out, "# requests received:").map_err(io)?;
    for r in set.recordings() {
        if r.count() > 0 {
            writeln!(out, "#   {:<28} {}", r.endpoint, r.count()).map_err(io)?;
        }
    }
    Ok(())
}
