//! `sky launch --explain` on every launch scenario of `fixtures/scenarios`:
//! it runs (CSVs, then catalog images: the same text), exits as the case
//! expects, adds only its section (text: after the table; `-o json`: the
//! `explain` key) to the case's own snapshot, and that section is
//! snapshotted per case (`snapshots/explain__<case>.snap`).

use std::path::{Path, PathBuf};

use super::scenarios::{cases, is_launch, run_case_with};

/// The explanation's first line.
const HEADER: &str = "Why this plan (--explain):";

/// The `table_scenarios` filters: what varies run to run.
fn filtered(text: &str) -> String {
    let t = regex::Regex::new(r"\d+\.\d+ ms")
        .unwrap()
        .replace_all(text, "[T] ms");
    regex::Regex::new(r"critical path: \S+ \(")
        .unwrap()
        .replace_all(&t, "critical path: [CLOUD] (")
        .into_owned()
}

/// A case's committed snapshot without insta's header.
fn committed(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/snapshots")
        .join(format!("{name}.snap"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let body = text
        .splitn(3, "---\n")
        .nth(2)
        .unwrap_or_else(|| panic!("{}: no insta header", path.display()));
    body.to_string()
}

/// The section `--explain` added to `snapshot` (whose stdout is `stdout`),
/// and the snapshot without it.
fn split(snapshot: &str, stdout: &str) -> (String, String) {
    if let Some(start) = stdout
        .find("\n{\n")
        .map(|i| i + 1)
        .or_else(|| stdout.starts_with("{\n").then_some(0))
        && let Some(end) = stdout.rfind("\n}\n").map(|i| i + 3)
        && let Ok(mut doc) = serde_json::from_str::<serde_json::Value>(&stdout[start..end])
    {
        let explain = doc
            .as_object_mut()
            .and_then(|o| o.remove("explain"))
            .unwrap_or(serde_json::Value::Null);
        let plain = format!("{}\n", serde_json::to_string_pretty(&doc).unwrap());
        let rest = snapshot.replacen(&stdout[start..end], &plain, 1);
        let section = format!("{}\n", serde_json::to_string_pretty(&explain).unwrap());
        return (section, rest);
    }
    let mut section = String::new();
    let mut rest = String::new();
    let mut inside = false;
    for line in snapshot.split_inclusive('\n') {
        if line.trim_end() == HEADER {
            inside = true;
        } else if inside
            && !(line.starts_with("  ")
                || line.starts_with("Task")
                || line.starts_with("Not considered ("))
        {
            inside = false;
        }
        if inside {
            section.push_str(line);
        } else {
            rest.push_str(line);
        }
    }
    if section.is_empty() {
        section.push_str("(no explanation: the launch stopped before the optimizer)\n");
    }
    (section, rest)
}

#[test]
fn explain_every_launch_scenario() {
    let cases: Vec<(String, PathBuf)> = cases().into_iter().filter(|(_, d)| is_launch(d)).collect();
    assert!(cases.len() >= 30, "expected the scenario corpus");
    let results: Vec<(String, String, Option<String>)> = std::thread::scope(|s| {
        let chunks: Vec<&[(String, PathBuf)]> = cases.chunks(cases.len().div_ceil(2)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|(name, dir)| {
                            let ((snapshot, failure), stdout) = run_case_with(dir, &["--explain"]);
                            let (section, rest) = split(&snapshot, &stdout);
                            let plain = committed(name);
                            let failure = failure.or_else(|| {
                                (filtered(&rest).trim_end() != plain.trim_end()).then(|| {
                                    format!(
                                        "{name}: with --explain, the output less the explanation differs from the case's snapshot:\n{rest}"
                                    )
                                })
                            });
                            (name.clone(), section, failure)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("scenario thread"))
            .collect()
    });
    let failures: Vec<&String> = results.iter().filter_map(|(_, _, f)| f.as_ref()).collect();
    assert!(
        failures.is_empty(),
        "{} scenario(s) failed with --explain:\n{}",
        failures.len(),
        failures
            .iter()
            .map(|f| f.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        for (name, section, _) in results {
            insta::assert_snapshot!(format!("explain__{name}"), section);
        }
    });
}

/// The example of the README: the last `sky check` enabled Lambda, Cudo,
/// Paperspace and RunPod; RunPod's credentials are gone since; the task
/// names Lambda, Cudo and RunPod. Paperspace is excluded by the pin,
/// RunPod lacks credentials, Cudo loses on price.
#[test]
fn explains_a_pin_missing_credentials_and_a_price() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    for (path, body) in [
        (".lambda_cloud/lambda_keys", "api_key = placeholder\n"),
        (".config/cudo/cudo.yml", "key: placeholder\n"),
        (".paperspace/config.json", "{\"apiKey\": \"placeholder\"}\n"),
        (
            ".sky/enabled-clouds.json",
            "[\"lambda\",\"cudo\",\"paperspace\",\"runpod\"]",
        ),
    ] {
        std::fs::create_dir_all(h.join(path).parent().unwrap()).unwrap();
        std::fs::write(h.join(path), body).unwrap();
    }
    let task = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/explain/pin-credentials-price.yaml");
    let run = |extra: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sky"))
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", h)
            .env("USER", "tester")
            .env("NO_COLOR", "1")
            .env("SKY_BUNDLED_CATALOGS", "1")
            .current_dir(task.parent().unwrap())
            .args(["launch", "-c", "sky-test", "--dryrun", "-y", "--explain"])
            .args(extra)
            .arg("pin-credentials-price.yaml")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let text = run(&[]);
    for want in [
        "Task 'train' (1 node): chosen Lambda gpu_8x_a100",
        "+2.65 per hour",
        "Paperspace  -",
        "excluded by the request's pin: infra lambda, cudo, runpod",
        "no credentials: RunPod credentials not found. Run: runpod config (looked for ~/.runpod/config.toml)",
    ] {
        assert!(text.contains(want), "{want:?} not in:\n{text}");
    }
    insta::assert_snapshot!("explain_pin_credentials_price", text);
    let doc: serde_json::Value = serde_json::from_str(&run(&["-o", "json"])).unwrap();
    let clouds = &doc["explain"]["tasks"][0]["clouds"];
    let kinds: Vec<(&str, &str)> = clouds
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["cloud"].as_str().unwrap(),
                c["reason"].as_str().or(c["verdict"].as_str()).unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("lambda", "chosen"),
            ("cudo", "offer"),
            ("paperspace", "pinned_elsewhere"),
            ("runpod", "no_credentials"),
        ]
    );
    assert_eq!(
        doc["explain"]["tasks"][0]["locations"]["decided_by"],
        "enumeration_order"
    );
}
