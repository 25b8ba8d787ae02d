//! SkyPilot 0.14.1 and `sky` on one catalog folder at once (issue 26):
//! SkyPilot's `sky.catalog.common.read_catalog` (run in the conformance
//! venv named by `SKY_CONFORMANCE_VENV`) and several `sky launch`es,
//! started together against one slow catalog server, share SkyPilot's
//! folder. Both take the same lock per file — `<folder>/.meta/<file>.lock`,
//! an `flock` that filelock 4 and `sky` leave in place on release, so
//! waiters share its inode — and both publish by rename, so each file is
//! downloaded once (counted at the server) and neither side reads a half
//! file: SkyPilot's frames have every row of the served file, every `sky`
//! plans on it (exit 0, no example prices).
//!
//! Skipped, saying so, when `SKY_CONFORMANCE_VENV` is unset or holds no
//! `bin/python` (`just stress` sets it to the checkout's
//! `.venv-conformance`).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use mocks::{CatalogServer, Latency};

/// The files both sides read, with their pull periods in SkyPilot
/// (`aws/vms.csv`: 7 h, `gcp/vms.csv`: 7 h; `common/`: none).
const FILES: [(&str, &str); 4] = [
    ("aws/vms.csv", "7"),
    ("gcp/vms.csv", "7"),
    ("common/accelerators.csv", "None"),
    ("common/metadata.csv", "None"),
];

/// SkyPilot's side: imports first and says `ready`, then on a line from
/// the test reads every file through `read_catalog` (downloading what is
/// missing from the mock, whose URL replaces the hosted one and its
/// mirror) and prints each file's row count.
const SKYPILOT: &str = r#"
import sys
from sky.skylet import constants
from sky.catalog import common
url = sys.argv[1]
constants.HOSTED_CATALOG_DIR_URL = url
constants.HOSTED_CATALOG_DIR_URL_S3_MIRROR = url
files = [(sys.argv[i], None if sys.argv[i + 1] == 'None' else int(sys.argv[i + 1]))
         for i in range(2, len(sys.argv), 2)]
print('ready', flush=True)
sys.stdin.readline()
for name, hours in files:
    frame = common.read_catalog(name, pull_frequency_hours=hours)._load_df()
    print(f'{name} {len(frame)}', flush=True)
"#;

fn venv_python() -> Option<PathBuf> {
    let venv = std::env::var_os("SKY_CONFORMANCE_VENV").filter(|v| !v.is_empty())?;
    let python = Path::new(&venv).join("bin/python");
    python.exists().then_some(python)
}

/// Data rows of a CSV as pandas counts them (lines after the header).
fn rows(bytes: &[u8]) -> usize {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .count()
        - 1
}

#[test]
fn skypilot_and_sky_share_one_catalog_folder_each_file_downloaded_once() {
    let Some(python) = venv_python() else {
        eprintln!(
            "skipped: SKY_CONFORMANCE_VENV does not name a venv with SkyPilot 0.14.1 \
             (bin/python); `just stress` sets it to .venv-conformance"
        );
        return;
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    // Slow enough that every process is waiting on one download or another.
    let server = rt
        .block_on(
            CatalogServer::builder()
                .latency(Latency::fixed_ms(1500))
                .start(),
        )
        .unwrap();
    let machine = tempfile::tempdir().unwrap();
    let home = machine.path().join("home");
    let runtime = machine.path().join("runtime");
    std::fs::create_dir_all(&home).unwrap();
    let mut skypilot = Command::new(&python)
        .arg("-c")
        .arg(SKYPILOT)
        .arg(server.hosted_url())
        .args(FILES.iter().flat_map(|(f, h)| [*f, *h]))
        .env("HOME", &home)
        .env("SKY_RUNTIME_DIR", &runtime)
        .env("SKYPILOT_DISABLE_USAGE_COLLECTION", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run SkyPilot");
    let mut said = BufReader::new(skypilot.stdout.take().unwrap());
    let mut line = String::new();
    said.read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "ready", "SkyPilot did not start");
    let sky = PathBuf::from(env!("CARGO_BIN_EXE_sky"));
    let launches: Vec<_> = (0..3)
        .map(|i| {
            Command::new(&sky)
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("HOME", &home)
                .env("SKY_STATE_DIR", machine.path().join(format!("state-{i}")))
                .env("SKY_RUNTIME_DIR", &runtime)
                .env("SKY_CATALOG_URL", server.hosted_url())
                .env("SKY_CATALOG_MIRROR_URL", "")
                .env("SKY_ENABLED_CLOUDS", "aws,gcp")
                .env("AWS_EC2_METADATA_DISABLED", "true")
                .env("NO_COLOR", "1")
                .args(["launch", "--dryrun", "-y", "-c", "t", "--gpus", "V100"])
                .args(["--cloud-timeout", "20"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("run sky")
        })
        .collect();
    // Go: SkyPilot starts reading as the launches start downloading.
    writeln!(skypilot.stdin.as_mut().unwrap()).unwrap();
    for (i, launch) in launches.into_iter().enumerate() {
        let out = launch.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "sky {i}: {stdout}\n{stderr}");
        assert!(stdout.contains("Considered resources"), "sky {i}: {stdout}");
        assert!(!stdout.contains("are examples"), "sky {i}: {stdout}");
    }
    let mut counts = String::new();
    std::io::Read::read_to_string(&mut said, &mut counts).unwrap();
    let status = skypilot.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(skypilot.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert!(status.success(), "SkyPilot: {counts}\n{stderr}");
    let fixtures = mocks::fixtures_dir().join("catalogs");
    let folder = runtime.join(".sky/catalogs/v8");
    for (file, _) in FILES {
        let served = std::fs::read(fixtures.join(file)).unwrap();
        assert!(
            counts
                .lines()
                .any(|l| l == format!("{file} {}", rows(&served))),
            "SkyPilot read part of {file}: {counts}"
        );
        assert_eq!(std::fs::read(folder.join(file)).unwrap(), served, "{file}");
        assert!(folder.join(".meta").join(format!("{file}.lock")).exists());
    }
    // Once per file, whoever downloaded it.
    assert_eq!(
        server.files().count(),
        FILES.len(),
        "{:?}",
        server.recordings()
    );
}
