//! How the `sky` binary is linked beyond position-dependence (included by
//! `build.rs`; Linux/glibc on x86_64, where rustc links with its own lld):
//!
//! - **Hot code first** (`--symbol-ordering-file=link/sky.order`): the
//!   functions a warm launch, `sky offers` and `sky gpus list` run, placed
//!   together at the start of `.text`. Spread over a 14 MB `.text` they
//!   cost a warm 7-cloud launch ~70 page faults (the kernel maps 64 kB
//!   around each); together, ~12 (317 -> 260 faults in all, peak RSS
//!   11 -> 5 MB). The list names symbols, so a stale one only orders less:
//!   a name that no longer exists is skipped, never an error. Names ending
//!   in `.llvm.<hash>` change with any edit to their codegen unit (which
//!   mixes modules), the others with the crate's dependencies and features,
//!   so regenerate it with `just link-order` (`optimizer/link/order.py`)
//!   after any change to this crate; `just link-order-check` (run first by
//!   the bench recipes) exits 2 when more than 5 listed names are gone.
//! - **The unwinder linked in** (`libgcc_eh.a`, whole): `sky` no longer
//!   needs `libgcc_s.so.1` (std's backtraces call `_Unwind_*`), so the
//!   dynamic loader opens, maps and relocates one library fewer: 10 system
//!   calls, 6 page faults and ~38,000 instructions per start.
//!
//! `SKY_LINK_PLAIN=1` keeps rustc's default link (another linker that lacks
//! `--symbol-ordering-file`, or a toolchain without `libgcc_eh.a`).

/// Prints the `cargo::` lines that link `sky` as described above.
pub fn sky_link_args() {
    println!("cargo::rerun-if-env-changed=SKY_LINK_PLAIN");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let target = var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ENV") == "gnu"
        && var("CARGO_CFG_TARGET_ARCH") == "x86_64";
    if !target || !var("SKY_LINK_PLAIN").is_empty() {
        return;
    }
    let order = std::path::Path::new(&var("CARGO_MANIFEST_DIR")).join("link/sky.order");
    println!("cargo::rerun-if-changed={}", order.display());
    if order.is_file() {
        println!(
            "cargo::rustc-link-arg-bin=sky=-Wl,--symbol-ordering-file={}",
            order.display()
        );
        println!("cargo::rustc-link-arg-bin=sky=-Wl,--no-warn-symbol-ordering");
    }
    println!("cargo::rustc-link-arg-bin=sky=-Wl,--whole-archive,-lgcc_eh,--no-whole-archive");
}
