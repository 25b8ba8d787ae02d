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

/// One `sky launch --dryrun -y --gpus H100:8` in `home`, `envs` naming the
/// catalogs and clouds; it must succeed.
fn launch_with(home: &Path, envs: &[(&str, &std::ffi::OsStr)]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_sky"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .env("SKY_LOG", "optimizer=debug")
        .envs(envs.iter().copied())
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

/// Lambda alone, its catalog from the folder `catalogs`.
fn launch(home: &Path, catalogs: &Path) -> Run {
    launch_with(
        home,
        &[
            ("SKY_ENABLED_CLOUDS", "lambda".as_ref()),
            ("SKY_CATALOG_DIR", catalogs.as_os_str()),
        ],
    )
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

/// A launch on the bundled catalogs, `clouds` enabled.
/// `clouds` on the bundled catalogs.
fn launch_bundled(home: &Path, clouds: &str) -> Run {
    launch_with(
        home,
        &[
            ("SKY_ENABLED_CLOUDS", clouds.as_ref()),
            ("SKY_BUNDLED_CATALOGS", "1".as_ref()),
        ],
    )
}

fn packs(home: &Path) -> Vec<PathBuf> {
    let mut v = images(home);
    v.retain(|p| p.extension().is_some_and(|e| e == "pack"));
    v
}

#[test]
fn bundled_images_are_packed_once_current_and_a_bad_pack_is_rebuilt() {
    let home = tempfile::tempdir().unwrap();
    let count = |log: &str, what: &str| log.matches(what).count();

    // The first launch parses and stores each image; no pack yet.
    let first = launch_bundled(home.path(), "lambda,runpod");
    assert_eq!(count(&first.stderr, "image stored"), 2, "{}", first.stderr);
    assert!(packs(home.path()).is_empty());
    // The next finds both images current and packs them.
    let second = launch_bundled(home.path(), "lambda,runpod");
    assert_eq!(second.stdout, first.stdout);
    assert_eq!(count(&second.stderr, "loaded from its image"), 2);
    assert!(second.stderr.contains("pack stored"), "{}", second.stderr);
    assert_eq!(packs(home.path()).len(), 1);
    // Then every image comes from the pack, and nothing is written.
    let third = launch_bundled(home.path(), "lambda,runpod");
    assert_eq!(third.stdout, first.stdout);
    assert_eq!(count(&third.stderr, "loaded from the bundled pack"), 2);
    assert_eq!(count(&third.stderr, "loaded from its image"), 0);
    assert!(!third.stderr.contains("stored"), "{}", third.stderr);

    // A cloud the pack lacks: parsed first (the pack is left as it is),
    // then read from its image and added to the pack.
    let wider = launch_bundled(home.path(), "lambda,runpod,cudo");
    assert_eq!(count(&wider.stderr, "image stored"), 1, "{}", wider.stderr);
    assert!(!wider.stderr.contains("pack stored"));
    let again = launch_bundled(home.path(), "lambda,runpod,cudo");
    assert_eq!(again.stdout, wider.stdout);
    assert_eq!(count(&again.stderr, "loaded from the bundled pack"), 2);
    assert_eq!(count(&again.stderr, "loaded from its image"), 1);
    assert!(again.stderr.contains("pack stored"));
    let packed = launch_bundled(home.path(), "lambda,runpod,cudo");
    assert_eq!(count(&packed.stderr, "loaded from the bundled pack"), 3);
    assert_eq!(packed.stdout, wider.stdout);
    // The narrower launch still reads its two from the wider pack.
    let narrow = launch_bundled(home.path(), "lambda,runpod");
    assert_eq!(count(&narrow.stderr, "loaded from the bundled pack"), 2);
    assert_eq!(narrow.stdout, first.stdout);

    // A damaged pack is ignored (each image read from its own file) and
    // written again.
    let pack = packs(home.path()).remove(0);
    let full = std::fs::read(&pack).unwrap();
    std::fs::write(&pack, &full[..full.len() / 2]).unwrap();
    let healed = launch_bundled(home.path(), "lambda,runpod,cudo");
    assert_eq!(healed.stdout, wider.stdout);
    assert_eq!(count(&healed.stderr, "loaded from its image"), 3);
    assert!(healed.stderr.contains("pack stored"));
    let after = launch_bundled(home.path(), "lambda,runpod,cudo");
    assert_eq!(count(&after.stderr, "loaded from the bundled pack"), 3);
    assert_eq!(after.stdout, wider.stdout);
    assert_eq!(std::fs::read(&pack).unwrap().len(), full.len());
}
