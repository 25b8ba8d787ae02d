//! `sky offers`, through the real binary, offline on the bundled catalogs:
//!
//! - every row of `fixtures/offers/cases.toml` (a command line) is run and
//!   its exit code, stdout and stderr snapshotted (`it__offers__<name>.snap`);
//! - the offers are the launch's: each offer listed, pinned with `-t` and
//!   `--infra`, is accepted by `sky launch --dryrun` at the same price, and
//!   the cheapest offer is the launch's choice.

use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Cases {
    default_clouds: Vec<String>,
    case: Vec<Case>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    args: Vec<String>,
    clouds: Option<Vec<String>>,
}

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/offers")
}

/// `sky <args>` offline with `clouds` declared, from the fixture folder.
fn sky(home: &Path, clouds: &[String], args: &[String]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sky"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("USER", "tester")
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0")
        .env("SKY_BUNDLED_CATALOGS", "1")
        .env("SKY_ENABLED_CLOUDS", clouds.join(","))
        .current_dir(folder())
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run sky")
}

fn cases() -> Cases {
    let text = std::fs::read_to_string(folder().join("cases.toml")).unwrap();
    toml::from_str(&text).unwrap_or_else(|e| panic!("fixtures/offers/cases.toml: {e}"))
}

#[test]
fn offers_snapshots() {
    let cases = cases();
    assert!(cases.case.len() >= 30, "{} cases", cases.case.len());
    let home = tempfile::tempdir().unwrap();
    let results: Vec<(String, String)> = std::thread::scope(|s| {
        let chunks: Vec<&[Case]> = cases.case.chunks(cases.case.len().div_ceil(2)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let (home, defaults) = (home.path(), &cases.default_clouds);
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|c| {
                            let mut args = vec!["offers".to_string()];
                            args.extend(c.args.iter().cloned());
                            let out = sky(home, c.clouds.as_ref().unwrap_or(defaults), &args);
                            let snapshot = format!(
                                "# sky {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
                                args.join(" "),
                                out.status.code().unwrap_or(-1),
                                String::from_utf8_lossy(&out.stdout),
                                String::from_utf8_lossy(&out.stderr)
                            )
                            .replace(&home.display().to_string(), "<home>");
                            (c.name.clone(), snapshot)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("offers thread"))
            .collect()
    });
    let mut settings = insta::Settings::clone_current();
    settings.set_omit_expression(true);
    settings.bind(|| {
        for (name, snapshot) in results {
            insta::assert_snapshot!(name, snapshot);
        }
    });
}

/// `sky offers … -o json`'s first task.
fn offers_json(home: &Path, clouds: &[String], request: &[&str]) -> serde_json::Value {
    let mut args: Vec<String> = ["offers", "-o", "json", "--max-offers", "100000"]
        .map(String::from)
        .to_vec();
    args.extend(request.iter().map(|s| s.to_string()));
    let out = sky(home, clouds, &args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{request:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["schema"], "sky-offers/v1");
    doc["tasks"][0].clone()
}

/// The launch's chosen row (`-o json`), or its error.
fn launch_chosen(
    home: &Path,
    clouds: &[String],
    args: &[String],
) -> Result<serde_json::Value, String> {
    let mut all: Vec<String> = ["launch", "--dryrun", "-y", "-o", "json"]
        .map(String::from)
        .to_vec();
    all.extend(args.iter().cloned());
    let out = sky(home, clouds, &all);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("{all:?}: {e}: {}", String::from_utf8_lossy(&out.stderr)))?;
    if !doc["error"].is_null() {
        return Err(format!("{all:?}: {}", doc["error"]));
    }
    Ok(doc["plan"]["tasks"][0]["chosen"].clone())
}

fn clouds() -> Vec<String> {
    cases().default_clouds
}

#[test]
fn every_offer_pinned_is_accepted_by_the_launch_at_its_price() {
    let home = tempfile::tempdir().unwrap();
    let clouds = clouds();
    // Requests whose offers span per-region and per-zone placement, spot,
    // several nodes and GCP's attached GPUs.
    let requests: [&[&str]; 4] = [
        &["--gpus", "A100:8"],
        &["--gpus", "V100", "--spot"],
        &["--gpus", "H100", "--num-nodes", "2"],
        &["--gpus", "L4", "--any-market"],
    ];
    let mut checked = 0;
    for request in requests {
        let task = offers_json(home.path(), &clouds, request);
        let offers = task["offers"].as_array().unwrap();
        assert!(!offers.is_empty(), "{request:?}");
        // Every offer up to 12 per request, then every 7th: the launches
        // are whole processes.
        for (i, o) in offers.iter().enumerate() {
            if i >= 12 && i % 7 != 0 {
                continue;
            }
            let cloud = o["cloud"].as_str().unwrap();
            let mut infra = format!("{cloud}/{}", o["region"].as_str().unwrap());
            if let Some(z) = o["zone"].as_str() {
                infra = format!("{infra}/{z}");
            }
            let mut args: Vec<String> = vec![
                "-t".into(),
                o["instance_type"].as_str().unwrap().into(),
                "--infra".into(),
                infra,
                "--num-nodes".into(),
                o["num_nodes"].to_string(),
            ];
            if let Some(acc) = o["accelerator"].as_str() {
                args.push("--gpus".into());
                args.push(format!("{acc}:{}", o["accelerator_count"]));
            }
            if o["use_spot"].as_bool().unwrap() {
                args.push("--use-spot".into());
            }
            let chosen = launch_chosen(home.path(), &clouds, &args)
                .unwrap_or_else(|e| panic!("offer {o} is refused by the launch: {e}"));
            let (price, cost) = (
                o["price"].as_f64().unwrap(),
                chosen["cost"].as_f64().unwrap(),
            );
            assert!(
                (price - cost).abs() < 1e-9,
                "{o}: launch costs {cost}, offer says {price}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 40, "only {checked} offers checked");
}

#[test]
fn the_cheapest_offer_is_the_launch_s_choice() {
    let home = tempfile::tempdir().unwrap();
    let clouds = clouds();
    let requests: [&[&str]; 6] = [
        &["--gpus", "H100"],
        &["--gpus", "A100:8", "--use-spot"],
        &["--gpus", "T4:4"],
        &["--cpus", "16+"],
        &["--gpus", "H100:8", "--num-nodes", "3"],
        &["--gpus", "A100", "--infra", "gcp"],
    ];
    for request in requests {
        let task = offers_json(home.path(), &clouds, request);
        let first = &task["offers"][0];
        let args: Vec<String> = request.iter().map(|s| s.to_string()).collect();
        let chosen = launch_chosen(home.path(), &clouds, &args).unwrap();
        assert_eq!(task["price_min"], first["price"], "{request:?}");
        for key in ["cloud", "instance_type", "use_spot"] {
            assert_eq!(first[key], chosen[key], "{request:?}: {key}");
        }
        let (a, b) = (
            first["price"].as_f64().unwrap(),
            chosen["cost"].as_f64().unwrap(),
        );
        assert!((a - b).abs() < 1e-9, "{request:?}: offers {a}, launch {b}");
    }
}

/// The subset of JSON Schema `docs/sky-offers-v1.schema.json` uses: `type`
/// (one or a list), `const`, `enum`, `minimum`, `required`, `properties`
/// with `additionalProperties: false`, `items`, `$ref` to `#/$defs/…`.
fn check_schema(
    root: &serde_json::Value,
    schema: &serde_json::Value,
    v: &serde_json::Value,
    at: &str,
) {
    use serde_json::Value;
    if let Some(r) = schema["$ref"].as_str() {
        let name = r.strip_prefix("#/$defs/").expect("local $ref");
        return check_schema(root, &root["$defs"][name], v, at);
    }
    let type_of = |v: &Value| match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let t = type_of(v);
    assert!(
        types.is_empty() || types.contains(&t) || (t == "integer" && types.contains(&"number")),
        "{at}: {t} is not {types:?}"
    );
    if let Some(c) = schema.get("const") {
        assert_eq!(v, c, "{at}");
    }
    if let Some(e) = schema["enum"].as_array() {
        assert!(e.contains(v), "{at}: {v} not in {e:?}");
    }
    if let (Some(min), Some(x)) = (schema["minimum"].as_f64(), v.as_f64()) {
        assert!(x >= min, "{at}: {x} < {min}");
    }
    if let Value::Object(map) = v {
        for r in schema["required"].as_array().into_iter().flatten() {
            assert!(map.contains_key(r.as_str().unwrap()), "{at}: no {r}");
        }
        let props = &schema["properties"];
        for (k, x) in map {
            match props.get(k) {
                Some(p) => check_schema(root, p, x, &format!("{at}.{k}")),
                None => assert!(
                    schema["additionalProperties"] != Value::Bool(false),
                    "{at}: {k} is not in the schema"
                ),
            }
        }
    }
    if let (Value::Array(xs), Some(items)) = (v, schema.get("items")) {
        for (i, x) in xs.iter().enumerate() {
            check_schema(root, items, x, &format!("{at}[{i}]"));
        }
    }
}

#[test]
fn json_documents_follow_the_documented_schema() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/sky-offers-v1.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let home = tempfile::tempdir().unwrap();
    let requests: [&[&str]; 5] = [
        &["--gpus", "H100:8", "--any-market", "--max-offers", "5"],
        &[
            "--gpus",
            "40GB+",
            "--group-by",
            "gpu",
            "--min-gpu-memory",
            "48",
        ],
        &["task-chain.yaml", "--max-price", "30"],
        &["--gpus", "H10"],
        &[
            "--cpus",
            "4",
            "--infra",
            "aws",
            "--sort-by",
            "memory",
            "--desc",
        ],
    ];
    let mut offers_seen = 0;
    for request in requests {
        let mut args: Vec<String> = ["offers", "-o", "json"].map(String::from).to_vec();
        args.extend(request.iter().map(|s| s.to_string()));
        let out = sky(home.path(), &clouds(), &args);
        let doc: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{request:?}: {e}"));
        check_schema(&schema, &schema, &doc, "$");
        offers_seen += doc["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["offers"].as_array().unwrap().len())
            .sum::<usize>();
    }
    assert!(offers_seen >= 10, "{offers_seen}");
    // The checker itself refuses what the schema does not allow.
    let bad = serde_json::json!({"schema": "sky-offers/v2"});
    let refused = std::panic::catch_unwind(|| check_schema(&schema, &schema, &bad, "$"));
    assert!(refused.is_err());
}

#[test]
fn the_man_page_documents_every_flag_of_sky_offers() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_sky"))
            .args(args)
            .output()
            .expect("run sky")
    };
    let help = String::from_utf8(run(&["offers", "--help"]).stdout).unwrap();
    let mut flags: Vec<&str> = help
        .split(|c: char| c.is_whitespace() || c == ',' || c == '=' || c == '[' || c == '<')
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| w.trim_end_matches(['.', ')', ']', ':']))
        .collect();
    flags.sort();
    flags.dedup();
    for want in [
        "--gpus",
        "--max-offers",
        "--sort-by",
        "--desc",
        "--group-by",
        "--max-price",
        "--min-gpu-memory",
        "--min-total-gpu-memory",
        "--spot",
        "--on-demand",
        "--any-market",
    ] {
        assert!(
            flags.contains(&want),
            "`sky offers --help` lacks {want}:\n{help}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let man = dir.path().join("man1");
    assert!(
        run(&["--generate", "man", man.to_str().unwrap()])
            .status
            .success()
    );
    let page = std::fs::read_to_string(man.join("sky-offers.1")).expect("sky-offers.1");
    for flag in flags {
        assert!(
            page.contains(&flag.replace('-', "\\-")),
            "sky-offers.1 lacks {flag}"
        );
    }
}
