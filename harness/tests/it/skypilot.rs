//! The SkyPilot engine end to end at a small scale: `harness run
//! skypilot-small --engine skypilot`, one launch per mode, where the SkyPilot venv exists
//! (`.venv-skypilot`, or `$HARNESS_SKYPILOT_VENV`). Without it the test says
//! so and passes: it never builds the venv (that needs PyPI and minutes).

use std::collections::BTreeSet;
use std::process::Command;

use harness::skypilot::{SkyPilotVenv, venv};

/// The rows of a "Considered resources" table: `INFRA INSTANCE ... COST`, whitespace normalised.
fn table_rows(text: &str) -> BTreeSet<String> {
    text.lines()
        .skip_while(|l| !l.starts_with("Considered resources"))
        .filter(|l| l.starts_with(' ') && !l.trim_start().starts_with("INFRA"))
        .map(|l| {
            l.replace('✔', "")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[test]
fn skypilot_runs_under_the_same_mocks_and_reports_beside_sky() {
    let venv = match SkyPilotVenv::locate() {
        Ok(v) => v,
        Err(missing) => {
            eprintln!(
                "skipped: {missing}. {} to run this test.",
                venv::how_to_get()
            );
            return;
        }
    };
    let _serial = crate::util::timing_lock();
    let tmp = tempfile::tempdir().expect("tempdir");
    let output = Command::new(env!("CARGO_BIN_EXE_harness"))
        .args([
            "run",
            "skypilot-small",
            "--engine",
            "skypilot",
            "--runs",
            "1",
            "--warmup",
            "0",
            "--cpu-extra",
            "1",
            "--cpu-samples",
            "0",
            "--no-progress",
            "--name",
            "report",
            // Relative, as `just report-sample` gives it: SkyPilot runs in
            // its sandbox HOME, and its timeline and profile must still land here.
            "--out",
            "out",
        ])
        .current_dir(tmp.path())
        .env(venv::VENV_ENV, &venv.root)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run the harness binary");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "harness run --engine skypilot failed: {}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    for label in ["SkyPilot 0.14.1, no cache", "SkyPilot 0.14.1, warm"] {
        assert!(stdout.contains(label), "{label} missing:\n{stdout}");
    }
    let dir = tmp.path().join("out/report");

    // The same request against the same catalogs: the same table.
    let ours = std::fs::read_to_string(dir.join("optimizer-output.txt")).unwrap_or_default();
    let theirs = std::fs::read_to_string(dir.join("skypilot-output.txt")).unwrap_or_default();
    assert!(!table_rows(&ours).is_empty(), "{ours}");
    assert_eq!(
        table_rows(&ours),
        table_rows(&theirs),
        "sky:\n{ours}\nSkyPilot:\n{theirs}"
    );

    let raw: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("raw.json")).unwrap_or_default())
            .expect("raw.json");
    let samples = raw["samples"].as_array().expect("samples");
    let of = |mode: &str| -> Vec<&serde_json::Value> {
        samples
            .iter()
            .filter(|s| s["mode"] == mode && s["warmup"] == false)
            .collect()
    };
    // SkyPilot reached the STS mock (its identity) with nothing cached, and
    // kept the identity file for its warm launch.
    let cold = of("skypilot");
    let warm = of("skypilot-warm");
    assert_eq!((cold.len(), warm.len()), (1, 1));
    let sts = |s: &serde_json::Value| {
        s["requests"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|h| h["endpoint"] == "sts")
            .map(|h| h["at_ms"].as_array().map_or(0, Vec::len))
            .sum::<usize>()
    };
    assert_eq!(sts(cold[0]), 1, "{}", cold[0]);
    assert_eq!(sts(warm[0]), 0, "{}", warm[0]);
    for s in cold.iter().chain(&warm) {
        let (wall, floor) = (
            s["wall_ms"].as_f64().unwrap_or(0.0),
            s["floor_ms"].as_f64().unwrap_or(-1.0),
        );
        assert!(floor >= 0.0 && wall > floor, "{s}");
        assert_eq!(s["overhead_ms"].as_f64(), Some(wall - floor), "{s}");
    }

    // Its timeline (from SKYPILOT_TIMELINE_FILE_PATH) and its py-spy profile, next to sky's.
    let timelines = raw["timelines"].as_array().expect("timelines");
    let modes: Vec<&str> = timelines
        .iter()
        .filter_map(|t| t["mode"].as_str())
        .collect();
    assert_eq!(
        modes,
        ["serial", "concurrent", "warm", "skypilot", "skypilot-warm"]
    );
    let sp = timelines
        .iter()
        .find(|t| t["mode"] == "skypilot")
        .expect("skypilot timeline");
    let rows: Vec<&str> = sp["rows"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["label"].as_str())
        .collect();
    for row in [
        "start-up",
        "aws",
        "gcp",
        "kubernetes",
        "catalogs",
        "plan & print",
    ] {
        assert!(rows.contains(&row), "{row} missing from {rows:?}");
    }
    for f in [
        "traces/skypilot.json",
        "traces/skypilot-warm.json",
        "skypilot-cpu.folded",
        "timeline-skypilot.svg",
    ] {
        let len = std::fs::metadata(dir.join(f)).map(|m| m.len()).unwrap_or(0);
        assert!(len > 0, "{f} missing or empty");
    }
    crate::util::assert_svg(&dir.join("timeline.svg"));
    let samples_taken = raw["instrumented"]["skypilot_cpu_samples"]
        .as_u64()
        .unwrap_or(0);
    assert!(samples_taken > 0, "py-spy took no sample");
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap_or_default();
    assert!(
        readme.contains(&format!("{samples_taken} samples")),
        "the README states the count"
    );
    assert!(readme.contains("SkyPilot 0.14.1, no cache"), "{readme}");

    // The credentials handed to both engines reach no file of the report
    // (SkyPilot's timeline and profile included).
    let canaries: Vec<String> = mocks::aws_sts_env("http://unused")
        .into_iter()
        .filter(|(k, _)| k.starts_with("AWS_ACCESS") || k.starts_with("AWS_SECRET"))
        .map(|(_, v)| v)
        .chain(["mock-token-".to_string()])
        .collect();
    let mut scanned = 0;
    let mut todo = vec![dir.clone()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
                continue;
            }
            let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap_or_default()).into_owned();
            for c in &canaries {
                assert!(
                    !text.contains(c.as_str()),
                    "{} contains the credential {c:?}",
                    p.display()
                );
            }
            scanned += 1;
        }
    }
    assert!(scanned >= 15, "scanned only {scanned} files");
}
