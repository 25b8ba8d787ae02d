//! Nebius tenant prices against the gRPC mock (h2c): the walk (projects,
//! platforms, two estimates per preset), the tenant price replacing the list
//! price, the seven-hour cache (hit, refresh, dropped on a refusal), the
//! service-account token exchange, failures as data (UNAUTHENTICATED fails
//! the cloud; HTTP 5xx and a hang keep the list prices within the deadline),
//! latency, and the credentials never leaving the machine.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use mocks::{EndpointOptions, Fault, Latency, NebiusMock};
use optimizer::clouds::nebius::PRICES_CACHE_KIND;
use optimizer::launch::{LaunchOptions, Request, run};
use planner::check::{CacheUse, CloudFacts, NebiusFacts, Outcome};
use planner::cloud::CloudId;
use planner::launch::LaunchResult;
use planner::task::Overrides;

/// Planted as the IAM token; must only ever appear as the bearer value.
const TOKEN: &str = "nebius-canary-token-DoNotLeak-7f6e5d";
const TENANT_CONFIG: &str = "nebius:\n  tenant_id: tenant-e00mock\n";
const SA_CREDENTIALS: &str = include_str!("../../../fixtures/nebius/credentials.json");

struct Machine {
    dir: tempfile::TempDir,
}

impl Machine {
    /// A machine with an IAM token file and a tenant in the config.
    fn with_token() -> Machine {
        let m = Machine::bare();
        m.write(".nebius/NEBIUS_IAM_TOKEN.txt", &format!("{TOKEN}\n"));
        m
    }

    fn bare() -> Machine {
        let m = Machine {
            dir: tempfile::tempdir().unwrap(),
        };
        m.write(".sky/config.yaml", TENANT_CONFIG);
        m
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.home().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn options(&self, nebius: &NebiusMock) -> LaunchOptions {
        let mut env: BTreeMap<String, String> = [
            ("HOME", self.home().display().to_string()),
            ("SKY_STATE_DIR", self.state().display().to_string()),
            // The example catalogs: no catalog downloads in these tests.
            ("SKY_BUNDLED_CATALOGS", "1".to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        for (k, v) in nebius.api_env() {
            env.insert(k.into(), v);
        }
        let mut opts = LaunchOptions::from_env(env, self.home()).unwrap();
        opts.declared_clouds = Some(vec![CloudId::Nebius]);
        opts.cloud_timeout = Duration::from_millis(1500);
        opts.fanout.global_deadline = Duration::from_secs(3);
        opts
    }

    fn cache_entries(&self) -> usize {
        std::fs::read_dir(self.state().join(PRICES_CACHE_KIND))
            .map(|l| {
                l.filter(|e| {
                    e.as_ref()
                        .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "json"))
                })
                .count()
            })
            .unwrap_or(0)
    }
}

fn h100() -> Request {
    Request {
        entrypoint: Vec::new(),
        overrides: Overrides {
            gpus: Some("H100:1".into()),
            ..Default::default()
        },
    }
}

fn report(result: &LaunchResult) -> &planner::check::CloudReport {
    result
        .prepared
        .fanout
        .reports
        .iter()
        .find(|r| r.cloud == CloudId::Nebius)
        .unwrap()
}

fn facts(result: &LaunchResult) -> (NebiusFacts, CacheUse) {
    match &report(result).outcome {
        Outcome::Ready(o) => match &o.facts {
            CloudFacts::Nebius(f) => (f.clone(), o.cache),
            other => panic!("not Nebius facts: {other:?}"),
        },
        other => panic!("Nebius not ready: {other:?}"),
    }
}

/// The chosen row's hourly cost.
fn chosen_cost(result: &LaunchResult) -> f64 {
    let doc = planner::render::json::plan(result, "c");
    let task = &doc["plan"]["tasks"][0];
    task["chosen"]["cost"]
        .as_f64()
        .unwrap_or_else(|| panic!("no chosen cost in {task}"))
}

#[tokio::test]
async fn tenant_prices_replace_the_list_price_and_are_cached() {
    let nebius = NebiusMock::builder()
        .access_token(TOKEN)
        .start()
        .await
        .unwrap();
    let m = Machine::with_token();
    let opts = m.options(&nebius);

    let first = run(&opts, &h100()).await.unwrap();
    let (f, cache) = facts(&first);
    assert_eq!(cache, CacheUse::Miss);
    assert_eq!(f.tenant_id.as_deref(), Some("tenant-e00mock"));
    let presets = f.presets.clone().expect("priced presets");
    assert_eq!(presets.len(), 1);
    assert_eq!(presets[0].price, "2.1000");
    assert_eq!(presets[0].spot_price.as_deref(), Some("1.0500"));
    // The list price is 2.95; the tenant pays 2.10.
    assert!(
        (chosen_cost(&first) - 2.1).abs() < 1e-9,
        "{}",
        chosen_cost(&first)
    );
    assert_eq!(nebius.projects().count(), 1);
    assert_eq!(nebius.platforms().count(), 1);
    assert_eq!(nebius.estimates().count(), 2, "on-demand and spot");
    assert_eq!(nebius.tokens().count(), 0, "a token file needs no exchange");
    assert_eq!(m.cache_entries(), 1);

    // Cached: no call at all.
    let second = run(&opts, &h100()).await.unwrap();
    assert!(matches!(facts(&second).1, CacheUse::Hit { .. }));
    assert_eq!(facts(&second).0, f);
    assert_eq!(nebius.projects().count(), 1);

    // `--refresh` walks again.
    let mut refresh = opts.clone();
    refresh.refresh = true;
    let third = run(&refresh, &h100()).await.unwrap();
    assert_eq!(facts(&third).1, CacheUse::Miss);
    assert_eq!(nebius.projects().count(), 2);

    // The token went out as the bearer only, and is in no cache entry.
    for e in std::fs::read_dir(m.state().join(PRICES_CACHE_KIND)).unwrap() {
        let text = std::fs::read_to_string(e.unwrap().path()).unwrap_or_default();
        assert!(!text.contains(TOKEN));
    }
    for r in nebius.server().received_requests().await.unwrap() {
        assert!(!String::from_utf8_lossy(&r.body).contains(TOKEN));
        assert_eq!(
            r.headers.get("authorization").unwrap().to_str().unwrap(),
            format!("Bearer {TOKEN}")
        );
    }
}

#[tokio::test]
async fn a_refused_token_fails_the_cloud_and_drops_the_cache() {
    let good = NebiusMock::builder()
        .access_token(TOKEN)
        .start()
        .await
        .unwrap();
    let m = Machine::with_token();
    run(&m.options(&good), &h100()).await.unwrap();
    assert_eq!(m.cache_entries(), 1);

    // A service that refuses the token (UNAUTHENTICATED at HTTP 200); the
    // endpoint is part of the cache key, so this is a miss.
    let refusing = NebiusMock::builder()
        .access_token("some-other-token")
        .start()
        .await
        .unwrap();
    // Nebius was the only cloud: the launch stops, naming the refusal.
    let why = run(&m.options(&refusing), &h100())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        why.contains("Nebius: credentials rejected") && why.contains("UNAUTHENTICATED"),
        "{why}"
    );
    assert!(!why.contains(TOKEN));
    assert_eq!(
        refusing.platforms().count(),
        0,
        "the walk stops at the projects"
    );
}

#[tokio::test]
async fn a_refusal_with_refresh_removes_the_entry() {
    let nebius = NebiusMock::builder()
        .access_token(TOKEN)
        .start()
        .await
        .unwrap();
    let m = Machine::with_token();
    run(&m.options(&nebius), &h100()).await.unwrap();
    assert_eq!(m.cache_entries(), 1);
    // Same endpoint, same credential, now revoked: a refusal in front of the projects.
    mocks::wiremock::Mock::given(mocks::wiremock::matchers::path(mocks::PROJECTS_PATH))
        .respond_with(
            mocks::wiremock::ResponseTemplate::new(200)
                .insert_header("content-type", "application/grpc")
                .insert_header("grpc-status", "16")
                .insert_header("grpc-message", "token%20revoked"),
        )
        .with_priority(1)
        .mount(nebius.server())
        .await;
    let mut opts = m.options(&nebius);
    opts.refresh = true;
    let why = run(&opts, &h100()).await.unwrap_err().to_string();
    assert!(why.contains("token revoked"), "{why}");
    assert_eq!(m.cache_entries(), 0);
}

#[tokio::test]
async fn a_server_error_keeps_the_list_prices() {
    let mut builder = NebiusMock::builder().access_token(TOKEN);
    builder.projects = EndpointOptions::default().fault(Fault::Status(503));
    let nebius = builder.start().await.unwrap();
    let m = Machine::with_token();
    let result = run(&m.options(&nebius), &h100()).await.unwrap();
    let (f, cache) = facts(&result);
    assert_eq!(f.presets, None);
    assert!(
        f.fallback.as_deref().unwrap().contains("UNAVAILABLE"),
        "{f:?}"
    );
    assert_eq!(cache, CacheUse::Miss);
    assert!((chosen_cost(&result) - 2.95).abs() < 1e-9);
    assert_eq!(m.cache_entries(), 0, "a fallback is not cached");
}

#[tokio::test]
async fn unpriced_estimates_fall_back_to_the_list_prices() {
    let mut builder = NebiusMock::builder().access_token(TOKEN);
    builder.estimates = EndpointOptions::default().fault(Fault::Status(500));
    let nebius = builder.start().await.unwrap();
    let m = Machine::with_token();
    let result = run(&m.options(&nebius), &h100()).await.unwrap();
    let (f, _) = facts(&result);
    assert_eq!(f.presets, None, "{f:?}");
    assert!((chosen_cost(&result) - 2.95).abs() < 1e-9);
}

#[tokio::test]
async fn a_hang_falls_back_within_the_deadline() {
    let mut builder = NebiusMock::builder().access_token(TOKEN);
    builder.platforms = EndpointOptions::default().fault(Fault::Hang);
    let nebius = builder.start().await.unwrap();
    let m = Machine::with_token();
    let mut opts = m.options(&nebius);
    opts.nebius.service.request_timeout = Duration::from_millis(300);
    let t0 = Instant::now();
    let result = run(&opts, &h100()).await.unwrap();
    assert!(
        t0.elapsed() < Duration::from_millis(1500),
        "{:?}",
        t0.elapsed()
    );
    let (f, _) = facts(&result);
    assert_eq!(f.presets, None);
    assert!(f.fallback.is_some());
    assert!((chosen_cost(&result) - 2.95).abs() < 1e-9);
}

#[tokio::test]
async fn latency_is_waited_for() {
    let nebius = NebiusMock::builder()
        .access_token(TOKEN)
        .latency(Latency::fixed_ms(100))
        .start()
        .await
        .unwrap();
    let m = Machine::with_token();
    let t0 = Instant::now();
    let result = run(&m.options(&nebius), &h100()).await.unwrap();
    // Projects, then platforms, then the estimates in parallel: three rounds.
    assert!(
        t0.elapsed() >= Duration::from_millis(300),
        "{:?}",
        t0.elapsed()
    );
    assert!(facts(&result).0.presets.is_some());
}

#[tokio::test]
async fn a_service_account_exchanges_a_jwt_for_the_token() {
    let nebius = NebiusMock::builder()
        .access_token("exchanged-access-token")
        .start()
        .await
        .unwrap();
    let m = Machine::bare();
    m.write(".nebius/credentials.json", SA_CREDENTIALS);
    let result = run(&m.options(&nebius), &h100()).await.unwrap();
    assert!(facts(&result).0.presets.is_some());
    assert_eq!(nebius.tokens().count(), 1);
    // The private key never leaves: only the signed JWT does.
    let key_line = SA_CREDENTIALS.split("\\n").nth(1).expect("a key body line");
    for r in nebius.server().received_requests().await.unwrap() {
        let all = format!("{:?}{}", r.headers, String::from_utf8_lossy(&r.body));
        assert!(!all.contains(key_line), "the private key was sent");
    }
}
