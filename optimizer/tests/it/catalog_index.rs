//! Pre-indexed catalog images: a launch reuses the image of an unchanged
//! catalog, never serves a changed catalog from an old image, and heals a
//! damaged one.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(path)
}

struct Run {
    stdout: String,
    stderr: String,
}

fn launch(home: &Path, catalogs: &Path) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_sky"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .env("SKY_LOG", "optimizer=debug")
        .env("SKY_ENABLED_CLOUDS", "lambda")
        .env("SKY_CATALOG_DIR", catalogs)
        .args(["launch", "--dryrun", "-y", "-c", "t", "--gpus", "H100:8"])
        .output()
        .expect("sky runs");
    let run = Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert_eq!(out.status.code(), Some(0), "{}\n{}", run.stdout, run.stderr);
    run
}

fn images(home: &Path) -> Vec<PathBuf> {
    let dir = home.join(".sky/catalog-index");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn unchanged_catalogs_load_from_images_and_changes_are_never_missed() {
    let home = tempfile::tempdir().unwrap();
    let catalogs = home.path().join("catalogs");
    std::fs::create_dir_all(catalogs.join("lambda")).unwrap();
    let csv_path = catalogs.join("lambda/vms.csv");
    let csv = std::fs::read_to_string(fixture("catalogs/lambda/vms.csv")).unwrap();
    std::fs::write(&csv_path, &csv).unwrap();

    let first = launch(home.path(), &catalogs);
    assert!(first.stderr.contains("image stored"), "{}", first.stderr);
    assert!(first.stdout.contains("23.92"), "{}", first.stdout);
    assert_eq!(images(home.path()).len(), 1);

    let second = launch(home.path(), &catalogs);
    assert!(
        second.stderr.contains("loaded from its image"),
        "{}",
        second.stderr
    );
    assert_eq!(second.stdout, first.stdout);

    // Same size, new content: the fingerprint (times, inode) must change.
    let cheaper = csv.replace(",23.92,", ",21.37,");
    assert_eq!(cheaper.len(), csv.len());
    std::fs::write(&csv_path, &cheaper).unwrap();
    let third = launch(home.path(), &catalogs);
    assert!(third.stderr.contains("image stored"), "{}", third.stderr);
    assert!(
        third.stdout.contains("21.37") && !third.stdout.contains("23.92"),
        "{}",
        third.stdout
    );
    assert_eq!(images(home.path()).len(), 1, "the old image is pruned");

    // A truncated image is ignored, the CSV parsed and the image rewritten.
    let image = images(home.path()).remove(0);
    let full = std::fs::read(&image).unwrap();
    std::fs::write(&image, &full[..full.len() / 2]).unwrap();
    let fourth = launch(home.path(), &catalogs);
    assert!(
        fourth.stderr.contains("ignoring catalog image"),
        "{}",
        fourth.stderr
    );
    assert_eq!(fourth.stdout, third.stdout);
    assert_eq!(std::fs::read(&image).unwrap(), full);
}

#[test]
fn malformed_rows_are_still_reported_when_loading_from_the_image() {
    let home = tempfile::tempdir().unwrap();
    let catalogs = home.path().join("catalogs");
    std::fs::create_dir_all(catalogs.join("lambda")).unwrap();
    let mut csv = std::fs::read_to_string(fixture("catalogs/lambda/vms.csv")).unwrap();
    csv.push_str("gpu_bad,H100,8.0,lots,1800.0,1.0,us-east-1,,\n");
    std::fs::write(catalogs.join("lambda/vms.csv"), &csv).unwrap();
    let line = csv.lines().count();
    let expected = format!("lambda/vms.csv:{line}: skipped malformed row: vCPUs is not a number");
    let first = launch(home.path(), &catalogs);
    let second = launch(home.path(), &catalogs);
    assert!(
        second.stderr.contains("loaded from its image"),
        "{}",
        second.stderr
    );
    for run in [first, second] {
        assert!(run.stderr.contains(&expected), "{}", run.stderr);
    }
}
