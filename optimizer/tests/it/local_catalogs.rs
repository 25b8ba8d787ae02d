//! Catalogs SkyPilot builds on the user's machine (vSphere's, from the
//! vCenter inventory): `sky` reads the file SkyPilot wrote, never a bundled
//! one, and says what to run when it is absent.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture_catalog() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/catalogs/vsphere/vms.csv")
}

/// Runs `sky launch --dryrun -y <args>` with only vSphere enabled, in a
/// fresh home; `catalog_dir` is `SKY_CATALOG_DIR` when given.
fn launch(home: &Path, catalog_dir: Option<&Path>, args: &[&str]) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sky"));
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .env("SKY_BUNDLED_CATALOGS", "1")
        .env("SKY_ENABLED_CLOUDS", "vsphere")
        .args(["launch", "-c", "sky-test", "--dryrun", "-y"])
        .args(args);
    if let Some(dir) = catalog_dir {
        cmd.env("SKY_CATALOG_DIR", dir);
    }
    let out = cmd.output().expect("sky runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn put_catalog(dir: &Path) {
    std::fs::create_dir_all(dir.join("vsphere")).unwrap();
    std::fs::copy(fixture_catalog(), dir.join("vsphere/vms.csv")).unwrap();
}

#[test]
fn an_absent_vsphere_catalog_says_what_builds_it_and_offers_nothing() {
    // Without a catalog folder the other clouds' catalogs are bundled, but
    // vSphere's is looked for where SkyPilot writes it.
    let home = tempfile::tempdir().unwrap();
    let expected = home.path().join(".sky/catalogs/v8/vsphere/vms.csv");
    let (code, stdout, stderr) = launch(home.path(), None, &[]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let warning = format!(
        "sky: warning: vSphere offers nothing: its catalog {} does not exist. SkyPilot builds it from your vCenter inventory when it checks vSphere: run `sky check vsphere` with SkyPilot (pip install \"skypilot[vsphere]\"), then launch again.",
        expected.display()
    );
    assert!(stderr.contains(&warning), "{stderr}");
    // What SkyPilot does with no file: an empty catalog, nothing feasible.
    assert!(
        stdout.contains("No resource satisfying <Cloud>() on vSphere."),
        "{stdout}"
    );
    assert!(
        stderr.contains("ResourcesUnavailableError: Catalog does not contain any instances"),
        "{stderr}"
    );
    // An empty catalog still validates regions as SkyPilot does.
    let (code, _, stderr) = launch(home.path(), None, &["--infra", "vsphere/vc-dallas"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains(
            "ValueError: Invalid region 'vc-dallas'\nList of supported vsphere regions: ''"
        ),
        "{stderr}"
    );
}

#[test]
fn the_catalog_skypilot_built_is_read_from_home_or_the_catalog_folder() {
    let home = tempfile::tempdir().unwrap();
    put_catalog(&home.path().join(".sky/catalogs/v8"));
    let (code, stdout, stderr) = launch(home.path(), None, &["--gpus", "A100"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(" vSphere (vc-austin)   gpu.A100 "),
        "{stdout}"
    );
    assert!(!stderr.contains("warning"), "{stderr}");

    // A catalog folder replaces ~/.sky/catalogs/v8, for vSphere too.
    let folder = tempfile::tempdir().unwrap();
    let (code, _, stderr) = launch(home.path(), Some(folder.path()), &["--gpus", "A100"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains(&format!(
            "its catalog {} does not exist",
            folder.path().join("vsphere/vms.csv").display()
        )),
        "{stderr}"
    );
    put_catalog(folder.path());
    let empty_home = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = launch(empty_home.path(), Some(folder.path()), &["--gpus", "T4"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(" vSphere (vc-dallas)   gpu.T4 "),
        "{stdout}"
    );
}

#[test]
fn a_broken_vsphere_catalog_is_an_error_naming_the_file() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".sky/catalogs/v8/vsphere");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("vms.csv"), "InstanceType,Price\ncpu.small,0.0\n").unwrap();
    let (code, _, stderr) = launch(home.path(), None, &[]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains(&dir.join("vms.csv").display().to_string())
            && stderr.contains("\"Region\""),
        "{stderr}"
    );
}
