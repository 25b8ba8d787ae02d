//! `harness run tiny` end to end: every report file, the trace's tracks, the
//! SVGs, a second run against the first as baseline, and no credential in
//! any file either run wrote.

use std::path::Path;
use std::process::Command;

use crate::util::{assert_svg, chrome_slices, tracks_per_launch};

const FILES: &[&str] = &[
    "README.md",
    "summary.md",
    "raw.json",
    "scenario.toml",
    "optimizer-output.txt",
    "trace.json",
    "spans-flamegraph.svg",
    "spans.folded",
    "cpu.folded",
    "timeline.svg",
    "timeline-serial.svg",
    "timeline-concurrent.svg",
    "timeline-warm.svg",
    "distribution.svg",
];

const DIFFS: &[&str] = &[
    "diff-spans-forward.svg",
    "diff-spans-reverse.svg",
    "diff-cpu-forward.svg",
    "diff-cpu-reverse.svg",
];

fn harness_run(out: &Path, folder_args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_harness"))
        .args([
            "run",
            "tiny",
            "--engine",
            "in-process",
            "--cpu-extra",
            "1",
            // One warm launch only: the CPU profile is too thin to draw, and the README must say so.
            "--cpu-samples",
            "0",
            "--no-progress",
            "--out",
        ])
        .arg(out)
        .args(folder_args)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run the harness binary");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "harness run failed: {}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

fn report_dir(out: &Path) -> std::path::PathBuf {
    let dirs: Vec<_> = std::fs::read_dir(out)
        .expect("out dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(
        dirs.len(),
        1,
        "one report folder in {}: {dirs:?}",
        out.display()
    );
    let dir = dirs[0].clone();
    let name = dir
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    assert!(
        name.ends_with("-tiny"),
        "folder name <date>-<host>-tiny: {name}"
    );
    assert!(
        name.as_bytes()[..10]
            .iter()
            .enumerate()
            .all(|(i, b)| if i == 4 || i == 7 {
                *b == b'-'
            } else {
                b.is_ascii_digit()
            }),
        "{name}"
    );
    dir
}

#[test]
fn tiny_run_writes_every_file_and_a_baseline_diff() {
    let _serial = crate::util::timing_lock();
    let tmp = tempfile::tempdir().expect("tempdir");
    let first_out = tmp.path().join("first");
    let stdout = harness_run(&first_out, &[]);
    assert!(stdout.contains("concurrent, warm cache"), "{stdout}");
    let first = report_dir(&first_out);
    for f in FILES {
        let p = first.join(f);
        assert!(
            p.is_file() && std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0) > 0,
            "missing or empty {f}"
        );
    }
    for svg in [
        "spans-flamegraph.svg",
        "timeline.svg",
        "timeline-warm.svg",
        "distribution.svg",
    ] {
        assert_svg(&first.join(svg));
    }
    // One debug launch is far below the samples a profile needs: not drawn, and said so.
    let readme = std::fs::read_to_string(first.join("README.md")).unwrap_or_default();
    assert!(
        !first.join("cpu-flamegraph.svg").exists(),
        "a thin CPU profile was drawn"
    );
    assert!(readme.contains("too thin to draw"), "{readme}");
    // The README leads with what the numbers say and shows both plots inline.
    assert!(readme.contains("## What the numbers say"), "{readme}");
    assert!(readme.contains("- Concurrency: serial "), "{readme}");
    assert!(readme.contains("![Timeline"), "{readme}");
    assert!(readme.contains("(distribution.svg)"), "{readme}");
    // The plots name every mode.
    let timeline = std::fs::read_to_string(first.join("timeline.svg")).unwrap_or_default();
    let distribution = std::fs::read_to_string(first.join("distribution.svg")).unwrap_or_default();
    for label in [
        "serial, no cache",
        "concurrent, no cache",
        "concurrent, warm cache",
    ] {
        assert!(timeline.contains(label), "timeline.svg lacks {label}");
        assert!(
            distribution.contains(label),
            "distribution.svg lacks {label}"
        );
    }
    assert!(
        timeline.contains("cloud_check") || timeline.contains("aws"),
        "no cloud row"
    );

    // One async track per cloud in every launch.
    let slices = chrome_slices(&first.join("trace.json"));
    let launches = tracks_per_launch(&slices);
    assert_eq!(
        launches.keys().map(String::as_str).collect::<Vec<_>>(),
        ["launch concurrent", "launch serial", "launch warm"]
    );
    for (launch, clouds) in &launches {
        assert_eq!(
            clouds.keys().map(String::as_str).collect::<Vec<_>>(),
            ["aws", "gcp", "kubernetes"],
            "{launch}"
        );
        let mut all_ids = std::collections::BTreeSet::new();
        for (cloud, ids) in clouds {
            assert_eq!(ids.len(), 1, "{launch}: {cloud} spans {} tracks", ids.len());
            assert!(
                all_ids.insert(*ids.iter().next().unwrap_or(&0)),
                "{launch}: {cloud} shares a track"
            );
        }
    }

    // raw.json: every measured and warm-up sample, all three modes.
    let raw: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(first.join("raw.json")).unwrap_or_default())
            .expect("raw.json");
    assert_eq!(raw["schema"], "harness-raw/v2");
    assert_eq!(
        raw["timelines"].as_array().map(Vec::len),
        Some(3),
        "one timeline per mode"
    );
    let samples = raw["samples"].as_array().expect("samples");
    assert_eq!(samples.len(), 3 * (2 + 1), "3 modes x (2 runs + 1 warm-up)");
    assert_eq!(
        raw["instrumented"]["traced"].as_array().map(Vec::len),
        Some(3)
    );
    let spans = std::fs::read_to_string(first.join("spans.folded")).unwrap_or_default();
    assert!(
        spans.contains("launch serial;fan_out;cloud_check aws"),
        "{spans}"
    );

    // Second run, diffed against the first.
    let second_out = tmp.path().join("second");
    let stdout = harness_run(
        &second_out,
        &["--baseline", first.to_str().unwrap_or_default()],
    );
    assert!(stdout.contains("moved most"), "{stdout}");
    assert!(stdout.contains("against the baseline"), "{stdout}");
    let second = report_dir(&second_out);
    for f in FILES.iter().chain(DIFFS) {
        assert!(second.join(f).is_file(), "missing {f}");
    }
    for f in DIFFS {
        assert_svg(&second.join(f));
        let svg = std::fs::read_to_string(second.join(f)).unwrap_or_default();
        assert!(
            svg.contains("red: more of the time now"),
            "{f} has no legend"
        );
    }
    let summary = std::fs::read_to_string(second.join("summary.md")).unwrap_or_default();
    assert!(summary.contains("## Against the baseline"), "{summary}");
    // Every mode of the same code judged against the noise of the two runs.
    let raw: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(second.join("raw.json")).unwrap_or_default())
            .expect("raw.json");
    let modes = raw["baseline"]["modes"].as_array().expect("baseline modes");
    assert_eq!(modes.len(), 3, "{modes:?}");
    for m in modes {
        assert!(m["noise_ms"].as_f64().is_some_and(|n| n >= 0.0), "{m}");
    }
    assert_eq!(
        raw["instrumented"]["traced"].as_array().map(Vec::len),
        Some(3 * harness::baseline::TRACED_ROUNDS),
        "several traced rounds per mode measure the spans' noise"
    );

    // The credentials the sandbox hands `sky` (every cloud of `tiny` is
    // configured): the AWS key pair and the Kubernetes bearer tokens. None
    // may reach a report, a trace, a flamegraph or a folded stack.
    let canaries: Vec<String> = mocks::aws_sts_env("http://unused")
        .into_iter()
        .filter(|(k, _)| k.starts_with("AWS_ACCESS") || k.starts_with("AWS_SECRET"))
        .map(|(_, v)| v)
        .chain(["mock-token-".to_string()])
        .collect();
    assert_eq!(canaries.len(), 3, "{canaries:?}");
    let mut scanned = 0;
    for dir in [&first, &second] {
        for file in walk(dir) {
            let bytes = std::fs::read(&file).unwrap_or_default();
            let text = String::from_utf8_lossy(&bytes);
            for canary in &canaries {
                assert!(
                    !text.contains(canary.as_str()),
                    "{} contains the credential {canary:?}",
                    file.display()
                );
            }
            scanned += 1;
        }
    }
    assert!(scanned >= 2 * FILES.len(), "scanned only {scanned} files");
}

/// Every file below `dir`.
fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}
