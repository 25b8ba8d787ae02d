//! The bundled catalogs (`fixtures/catalogs/`, embedded by
//! `src/catalogs/bundled.rs`):
//! - a fingerprint of every file, so the pre-indexed image of one build's
//!   catalogs is never taken for another's: `SKY_BUNDLED_CATALOGS_ID`;
//! - `$OUT_DIR/bundled_vms.rs`: one `(cloud folder, include_bytes!)` entry per
//!   `<cloud>/vms.csv` present, so adding a cloud's fixture needs no code.
//!
//! It also links `sky` as a position-dependent executable on Linux/glibc:
//! a PIE `sky` carries ~44k relative relocations (the AWS SDK's and
//! rustls' tables of pointers) that the dynamic loader applies, page by
//! page, on every start — about 1 ms and 190 page faults of a launch whose
//! goal is 5 ms. The objects stay position-independent (they are shared with
//! the tests and the harness); only the final link of the binary changes.
//! `SKY_LINK_PIE=1` keeps the PIE default (e.g. for packagers who require
//! address-space randomisation of the executable).

use std::path::{Path, PathBuf};

#[path = "link/link_args.rs"]
mod link_args;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn link_position_dependent_sky() {
    println!("cargo::rerun-if-env-changed=SKY_LINK_PIE");
    let linux_gnu = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu");
    if linux_gnu && std::env::var_os("SKY_LINK_PIE").is_none_or(|v| v.is_empty()) {
        println!("cargo::rustc-link-arg-bin=sky=-no-pie");
    }
}

fn main() {
    link_position_dependent_sky();
    link_args::sky_link_args();
    let root = Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"))
        .join("../fixtures/catalogs");
    println!("cargo::rerun-if-changed={}", root.display());
    let mut paths = Vec::new();
    files(&root, &mut paths);
    paths.sort();
    // FNV-1a over names and contents: a fingerprint, not a security boundary.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for path in &paths {
        feed(
            path.strip_prefix(&root)
                .unwrap_or(path)
                .to_string_lossy()
                .as_bytes(),
        );
        feed(&std::fs::read(path).unwrap_or_default());
    }
    println!("cargo::rustc-env=SKY_BUNDLED_CATALOGS_ID={hash:016x}");

    let mut table = String::from("&[\n");
    for path in &paths {
        let Ok(rel) = path.strip_prefix(&root) else {
            continue;
        };
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if let [cloud, file] = parts.as_slice()
            && file == "vms.csv"
        {
            table.push_str(&format!(
                "    ({cloud:?}, include_bytes!({:?}) as &[u8]),\n",
                path.display().to_string()
            ));
        }
    }
    table.push(']');
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("bundled_vms.rs");
    std::fs::write(&out, table).expect("OUT_DIR is writable");
}
