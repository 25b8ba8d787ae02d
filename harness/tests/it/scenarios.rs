//! The committed scenarios load; the standalone mocks print a usable environment.

use harness::scenario::{Scenario, default_scenarios_dir};

const HARNESS_SCENARIOS: &[&str] = &[
    "seed-7-clouds",
    "many-contexts",
    "k8s-1000-pods",
    "one-cloud-hangs",
    "expired-credentials",
    "flaky-sts",
    "tiny",
    "gcp-reservations",
    "all-8-clouds",
    "64-contexts-50ms",
    "sky-launch-5s",
    "skypilot-small",
];

#[test]
fn every_harness_scenario_loads() {
    for name in HARNESS_SCENARIOS {
        let s = Scenario::load(name, &default_scenarios_dir()).unwrap_or_else(|e| panic!("{e}"));
        assert!(!s.clouds.is_empty(), "{name}");
    }
}

#[test]
fn missing_scenario_names_the_file() {
    let err = Scenario::load("no-such-scenario", &default_scenarios_dir())
        .expect_err("missing")
        .to_string();
    assert!(err.contains("no-such-scenario/harness.toml"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn standalone_mocks_print_the_environment() {
    let s = Scenario::load("tiny", &default_scenarios_dir()).unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    harness::standalone::serve(&s, &mut out, async {})
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&out);
    for var in [
        "AWS_ENDPOINT_URL_STS=http://127.0.0.1:",
        "KUBECONFIG=",
        "HOME=",
        "SKY_ENABLED_CLOUDS=aws,gcp,kubernetes",
    ] {
        assert!(
            text.contains(&format!("export {var}")),
            "{var} missing:\n{text}"
        );
    }
}
