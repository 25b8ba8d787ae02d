//! The bare-client floor of the 64-context row: `kube-floor`
//! (`src/bin/kube-floor.rs`), run by `process/floor/kube-64-bare` on the
//! same sandbox and mocks as `process/kubernetes/64-contexts-50ms`, which
//! is judged as a ratio to it.
//!
//! The mocks answer each node list after 50 ms, but 64 answers on a
//! 2-core machine cannot all arrive at 50 ms: the mock server, the kernel
//! and the client share the cores. A client that only reads the kubeconfig,
//! opens the 64 connections, sends the 64 node-list GETs `sky` sends and
//! reads the 64 bodies measures what the machine and the mocks cost that
//! launch before `sky` does anything of its own (about 60 ms where the
//! latency floor says 50). `sky`'s median over this row's is what `sky`
//! adds, and the ratio moves with the machine as both rows do.

use std::path::PathBuf;

use anyhow::{Context, ensure};

/// The binary's name (`[[bin]]` of `benches/Cargo.toml`).
pub const BIN: &str = "kube-floor";

/// The command that builds it on its own. `cargo bench -p benches` (and
/// the report's bench-profile build of the criterion target) build it too:
/// cargo builds a package's binaries for its benchmark targets.
pub const BUILD: &str = "cargo build --release -p benches --bin kube-floor";

/// The number of contexts the row lists (the scenario's `kube.contexts`).
pub const CONTEXTS: usize = 64;

/// `kube-floor` beside the release `sky` (`target/release/`), or an error
/// saying how to build it.
pub fn path() -> anyhow::Result<PathBuf> {
    let sky = super::release_sky()?;
    let exe = sky
        .parent()
        .context("the release folder")?
        .join(format!("{BIN}{}", std::env::consts::EXE_SUFFIX));
    ensure!(
        exe.is_file(),
        "the bare client is missing at {}: run `{BUILD}` first",
        exe.display()
    );
    Ok(exe)
}

/// Fails unless `stdout` is a successful run's line for `contexts`
/// contexts: `listed the nodes of N contexts (B bytes)` with B > 0.
pub fn verify(stdout: &str, contexts: usize) -> anyhow::Result<()> {
    let prefix = format!("listed the nodes of {contexts} contexts (");
    let bytes = stdout
        .strip_prefix(&prefix)
        .and_then(|rest| rest.strip_suffix(" bytes)\n"))
        .and_then(|n| n.parse::<u64>().ok());
    ensure!(
        bytes.is_some_and(|b| b > 0),
        "`{BIN}` printed {stdout:?}, expected `{prefix}<bytes> bytes)`"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verify_reads_the_summary_line() {
        assert!(verify("listed the nodes of 64 contexts (91234 bytes)\n", 64).is_ok());
        assert!(verify("listed the nodes of 63 contexts (91234 bytes)\n", 64).is_err());
        assert!(verify("listed the nodes of 64 contexts (0 bytes)\n", 64).is_err());
        assert!(verify("", 64).is_err());
    }
}
