//! GCP reservations against the GCP mock: looked up only when configured,
//! free reserved nodes in the table, targeted reservations, the 300 s cache,
//! failures as a partial table, service accounts, and secrets staying put.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mocks::wiremock::matchers::{method, path, path_regex};
use mocks::wiremock::{Mock, MockServer, ResponseTemplate};
use mocks::{EndpointOptions, Fault, GcpMock, Reservation, reservations_aggregated};
use optimizer::clouds::gcp::RESERVATIONS_CACHE_KIND;
use optimizer::launch::{LaunchOptions, Request, run};
use planner::check::{CacheUse, CloudError, CloudFacts, Outcome};
use planner::cloud::CloudId;
use planner::launch::LaunchResult;
use planner::render::launch::text as launch_text;
use planner::task::Overrides;

/// Planted as the refresh token and client secret; must never leave the request to the mock.
const CANARY: &str = "1//canaryREFRESHtokenDoNotLeak-9f8e7d6c5b4a";
const PRIORITIZE: &str = "gcp:\n  prioritize_reservations: true\n";

/// A temporary machine: HOME with ADC and config, a separate state folder.
struct Machine {
    dir: tempfile::TempDir,
}

impl Machine {
    fn new(gcp: &GcpMock, config: Option<&str>) -> Machine {
        let m = Machine {
            dir: tempfile::tempdir().unwrap(),
        };
        m.write_adc(
            &gcp.authorized_user_json(CANARY)
                .replace("mock-client-secret", &format!("{CANARY}-secret")),
        );
        if let Some(text) = config {
            m.write(".sky/config.yaml", text);
        }
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

    fn write_adc(&self, text: &str) {
        self.write(".config/gcloud/application_default_credentials.json", text);
    }

    fn env(&self, gcp_endpoint: &str) -> BTreeMap<String, String> {
        [
            ("HOME", self.home().display().to_string()),
            ("SKY_STATE_DIR", self.state().display().to_string()),
            (
                "CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE",
                gcp_endpoint.into(),
            ),
            ("CLOUDSDK_CORE_PROJECT", "mock-project".into()),
            // The example catalogs: these launches test reservations, not downloads.
            ("SKY_BUNDLED_CATALOGS", "1".into()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    fn options(&self, gcp: &GcpMock, clouds: &[CloudId]) -> LaunchOptions {
        self.options_for(&gcp.compute_endpoint(), clouds)
    }

    fn options_for(&self, endpoint: &str, clouds: &[CloudId]) -> LaunchOptions {
        let mut opts = LaunchOptions::from_env(self.env(endpoint), self.home()).unwrap();
        opts.declared_clouds = Some(clouds.to_vec());
        opts.cloud_timeout = Duration::from_millis(1500);
        opts.fanout.global_deadline = Duration::from_secs(3);
        opts.gcp.service.retry_backoff = Duration::from_millis(5);
        opts
    }

    fn cache_entries(&self) -> Vec<PathBuf> {
        let Ok(listing) = std::fs::read_dir(self.state().join(RESERVATIONS_CACHE_KIND)) else {
            return Vec::new();
        };
        listing
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect()
    }
}

fn reservation(name: &str, zone: &str, count: u64, in_use: u64, targeted: bool) -> Reservation {
    Reservation {
        name: name.into(),
        zone: zone.into(),
        machine_type: "a2-highgpu-1g".into(),
        count,
        in_use_count: in_use,
        specific_reservation_required: targeted,
        status: "READY".into(),
    }
}

async fn mock(list: Vec<Reservation>) -> GcpMock {
    GcpMock::builder()
        .reservation_list(list)
        .start()
        .await
        .unwrap()
}

fn a100(num_nodes: u32) -> Request {
    Request {
        entrypoint: Vec::new(),
        overrides: Overrides {
            gpus: Some("A100:1".into()),
            infra: Some("gcp/us-central1".into()),
            num_nodes: Some(num_nodes),
            ..Default::default()
        },
    }
}

/// `zone -> cost` of every considered row of the single task, and the chosen zone.
fn costs(result: &LaunchResult) -> (BTreeMap<String, f64>, String) {
    let doc = planner::render::json::plan(result, "c");
    let task = &doc["plan"]["tasks"][0];
    let rows = task["considered"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["zone"].as_str().unwrap().to_string(),
                r["cost"].as_f64().unwrap(),
            )
        })
        .collect();
    (rows, task["chosen"]["zone"].as_str().unwrap().to_string())
}

fn gcp_report(result: &LaunchResult) -> &planner::check::CloudReport {
    result
        .prepared
        .fanout
        .reports
        .iter()
        .find(|r| r.cloud == CloudId::Gcp)
        .unwrap()
}

#[tokio::test]
async fn reservations_are_listed_only_when_configured() {
    let mut builder =
        GcpMock::builder().reservation_list(vec![reservation("r", "us-central1-b", 4, 0, false)]);
    builder.token = EndpointOptions::default().expect(0);
    builder.reservations = EndpointOptions::default().expect(0);
    let gcp = builder.start().await.unwrap();
    for config in [
        None,
        Some("gcp:\n  prioritize_reservations: false\n"),
        Some("gcp:\n  specific_reservations: []\n"),
        Some("aws:\n  prioritize_reservations: true\n"),
    ] {
        let m = Machine::new(&gcp, config);
        let result = run(&m.options(&gcp, &[CloudId::Gcp]), &a100(1))
            .await
            .unwrap();
        let report = gcp_report(&result);
        assert!(
            matches!(&report.outcome, Outcome::Ready(o) if o.facts == CloudFacts::Catalog && o.cache == CacheUse::None),
            "{config:?}: {report:?}"
        );
        assert_eq!(costs(&result).1, "us-central1-a", "{config:?}");
    }
    // The `.expect(0)` mounts are verified here (and panic on drop otherwise).
    gcp.server().verify().await;
}

#[tokio::test]
async fn a_consumable_reservation_makes_its_nodes_free() {
    let gcp = mock(vec![
        reservation("open-b", "us-central1-b", 2, 1, false),
        // Another machine type in the same zone does not count.
        Reservation {
            machine_type: "a2-highgpu-2g".into(),
            ..reservation("other-type", "us-central1-b", 8, 0, false)
        },
    ])
    .await;
    let m = Machine::new(&gcp, Some(PRIORITIZE));

    let one = run(&m.options(&gcp, &[CloudId::Gcp]), &a100(1))
        .await
        .unwrap();
    let (rows, chosen) = costs(&one);
    assert_eq!(chosen, "us-central1-b");
    assert_eq!(rows["us-central1-b"], 0.0);
    assert!(rows["us-central1-a"] > 3.0, "{rows:?}");
    let text = launch_text(&one);
    assert!(
        text.lines()
            .any(|l| l.contains("GCP (us-central1-b)") && l.contains(" 0.00 ")),
        "{text}"
    );

    // Two nodes, one reserved: one node is billed.
    let two = run(&m.options(&gcp, &[CloudId::Gcp]), &a100(2))
        .await
        .unwrap();
    let (rows, chosen) = costs(&two);
    assert_eq!(chosen, "us-central1-b");
    assert!(
        (rows["us-central1-b"] * 2.0 - rows["us-central1-a"]).abs() < 1e-9,
        "{rows:?}"
    );
    // The second launch was answered from the cache.
    assert!(matches!(gcp_report(&two).cache(), CacheUse::Hit { .. }));
    gcp.token().assert_count(1);
    gcp.reservations().assert_count(1);
}

#[tokio::test]
async fn targeted_reservations_count_only_when_listed_in_specific_reservations() {
    let gcp = mock(vec![reservation("targeted", "us-central1-c", 1, 0, true)]).await;

    let m = Machine::new(&gcp, Some(PRIORITIZE));
    let (rows, chosen) = costs(
        &run(&m.options(&gcp, &[CloudId::Gcp]), &a100(1))
            .await
            .unwrap(),
    );
    assert_eq!(chosen, "us-central1-a");
    assert!(rows["us-central1-c"] > 3.0, "{rows:?}");

    let m = Machine::new(
        &gcp,
        Some("gcp:\n  specific_reservations:\n    - projects/mock-project/reservations/targeted\n"),
    );
    let (rows, chosen) = costs(
        &run(&m.options(&gcp, &[CloudId::Gcp]), &a100(1))
            .await
            .unwrap(),
    );
    assert_eq!(chosen, "us-central1-c");
    assert_eq!(rows["us-central1-c"], 0.0);

    // Named for another project: not ours to consume.
    let m = Machine::new(
        &gcp,
        Some("gcp:\n  specific_reservations:\n    - projects/elsewhere/reservations/targeted\n"),
    );
    let (_, chosen) = costs(
        &run(&m.options(&gcp, &[CloudId::Gcp]), &a100(1))
            .await
            .unwrap(),
    );
    assert_eq!(chosen, "us-central1-a");
}

#[tokio::test]
async fn the_list_is_cached_and_refresh_fetches_it_again() {
    let gcp = mock(vec![reservation("open-b", "us-central1-b", 1, 0, false)]).await;
    let m = Machine::new(&gcp, Some(PRIORITIZE));
    let opts = m.options(&gcp, &[CloudId::Gcp]);

    let first = run(&opts, &a100(1)).await.unwrap();
    assert_eq!(gcp_report(&first).cache(), CacheUse::Miss);
    assert_eq!(m.cache_entries().len(), 1);

    let second = run(&opts, &a100(1)).await.unwrap();
    assert!(matches!(gcp_report(&second).cache(), CacheUse::Hit { .. }));
    assert_eq!(launch_text(&first), launch_text(&second));
    gcp.token().assert_count(1);
    gcp.reservations().assert_count(1);

    let mut refresh = opts.clone();
    refresh.refresh = true;
    let third = run(&refresh, &a100(1)).await.unwrap();
    assert_eq!(gcp_report(&third).cache(), CacheUse::Miss);
    gcp.token().assert_count(2);
    gcp.reservations().assert_count(2);

    // Another project is another entry.
    let mut other = opts.clone();
    other
        .env
        .insert("CLOUDSDK_CORE_PROJECT".into(), "other-project".into());
    run(&other, &a100(1)).await.unwrap();
    gcp.reservations().assert_count(3);
    assert_eq!(m.cache_entries().len(), 2);
}

#[tokio::test]
async fn every_page_is_read() {
    let gcp = GcpMock::builder()
        .reservation_list(vec![
            reservation("r1", "us-central1-a", 1, 0, false),
            reservation("r2", "us-central1-b", 1, 0, false),
            reservation("r3", "us-central1-b", 1, 0, false),
        ])
        .page_size(1)
        .start()
        .await
        .unwrap();
    let m = Machine::new(&gcp, Some(PRIORITIZE));
    let result = run(&m.options(&gcp, &[CloudId::Gcp]), &a100(2))
        .await
        .unwrap();
    gcp.reservations().assert_count(3);
    let Outcome::Ready(o) = &gcp_report(&result).outcome else {
        panic!("GCP failed: {:?}", gcp_report(&result))
    };
    let CloudFacts::Gcp(facts) = &o.facts else {
        panic!("{o:?}")
    };
    assert_eq!(facts.project, "mock-project");
    assert_eq!(facts.reservations.len(), 3);
    // Both us-central1-b reservations together cover both nodes.
    let (rows, chosen) = costs(&result);
    assert_eq!(
        (chosen.as_str(), rows["us-central1-b"]),
        ("us-central1-b", 0.0)
    );
}

#[tokio::test]
async fn the_project_comes_from_the_config_first() {
    let gcp = mock(Vec::new()).await;
    let m = Machine::new(
        &gcp,
        Some("gcp:\n  project_id: cfg-project\n  prioritize_reservations: true\n"),
    );
    run(&m.options(&gcp, &[CloudId::Gcp]), &a100(1))
        .await
        .unwrap();
    let paths: Vec<String> = gcp
        .reservations()
        .recording()
        .requests
        .iter()
        .map(|r| r.path.clone())
        .collect();
    assert_eq!(
        paths,
        ["/compute/v1/projects/cfg-project/aggregated/reservations"]
    );
}

#[tokio::test]
async fn a_failing_service_leaves_gcp_out_of_a_partial_table() {
    let mut builder = GcpMock::builder().reservation_list(vec![reservation(
        "open-b",
        "us-central1-b",
        1,
        0,
        false,
    )]);
    builder.reservations = EndpointOptions::default().fault(Fault::Status(503));
    let gcp = builder.start().await.unwrap();
    let m = Machine::new(&gcp, Some(PRIORITIZE));
    let mut request = a100(1);
    request.overrides.infra = None;
    let result = run(&m.options(&gcp, &[CloudId::Gcp, CloudId::Lambda]), &request)
        .await
        .unwrap();

    assert_eq!(result.prepared.excluded.len(), 1);
    let excluded = &result.prepared.excluded[0];
    assert_eq!(excluded.cloud, CloudId::Gcp);
    assert!(
        excluded
            .reason
            .contains("Failed to list GCP reservations in project mock-project")
            && excluded.reason.contains("HTTP 503"),
        "{}",
        excluded.reason
    );
    assert!(!excluded.reason.contains('\n'), "{}", excluded.reason);
    let text = launch_text(&result);
    assert!(text.contains("Lambda ("), "{text}");
    assert!(!text.contains("GCP ("), "{text}");
    // Retried once, and nothing cached.
    gcp.reservations().assert_count(2);
    assert!(m.cache_entries().is_empty());
}

#[tokio::test]
async fn a_hung_service_is_cut_at_the_cloud_deadline() {
    let mut builder = GcpMock::builder();
    builder.reservations = EndpointOptions::default().fault(Fault::Hang);
    let gcp = builder.start().await.unwrap();
    let m = Machine::new(&gcp, Some(PRIORITIZE));
    let mut opts = m.options(&gcp, &[CloudId::Gcp, CloudId::Lambda]);
    opts.cloud_timeout = Duration::from_millis(400);
    let mut request = a100(1);
    request.overrides.infra = None;

    let started = Instant::now();
    let result = run(&opts, &request).await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(
        matches!(
            gcp_report(&result).outcome,
            Outcome::Failed(CloudError::Timeout(_))
        ),
        "{:?}",
        gcp_report(&result)
    );
    assert!(launch_text(&result).contains("Lambda ("));
    assert!(m.cache_entries().is_empty());
}

#[tokio::test]
async fn a_refused_token_is_an_auth_failure_naming_the_credentials() {
    let mut builder = GcpMock::builder();
    builder.token = EndpointOptions::default().fault(Fault::ExpiredToken);
    let gcp = builder.start().await.unwrap();
    let m = Machine::new(&gcp, Some(PRIORITIZE));
    let result = run(&m.options(&gcp, &[CloudId::Gcp]), &a100(1))
        .await
        .unwrap_err();
    // GCP was the only cloud: nothing is enabled, and the hint says why.
    let text = result.to_string();
    assert!(text.contains("credentials rejected"), "{text}");
    assert!(
        text.contains("application_default_credentials.json"),
        "{text}"
    );
    assert!(text.contains("invalid_grant"), "{text}");
    assert!(!text.contains(CANARY), "{text}");
    gcp.reservations().assert_count(0);
}

/// A wiremock GCP whose list answers once and then refuses the token.
async fn revoked_after_one_list() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/token"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(
            r#"{"access_token":"ya29.x","expires_in":3599,"token_type":"Bearer"}"#,
            "application/json",
        ))
        .mount(&server)
        .await;
    let list = || path_regex("^/compute/v1/projects/[^/]+/aggregated/reservations$");
    Mock::given(method("GET"))
        .and(list())
        .respond_with(
            ResponseTemplate::new(200).set_body_raw(
                reservations_aggregated(
                    "mock-project",
                    &[reservation("open-b", "us-central1-b", 1, 0, false)],
                )
                .to_string(),
                "application/json",
            ),
        )
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(list())
        .respond_with(ResponseTemplate::new(403).set_body_raw(
            r#"{"error":{"code":403,"message":"Required 'compute.reservations.list' permission","status":"PERMISSION_DENIED"}}"#,
            "application/json",
        ))
        .mount(&server)
        .await;
    server
}

#[tokio::test]
async fn an_auth_failure_drops_the_cached_list() {
    let server = revoked_after_one_list().await;
    let gcp = mock(Vec::new()).await; // only for its ADC helper's shape
    let m = Machine::new(&gcp, Some(PRIORITIZE));
    m.write_adc(
        &gcp.authorized_user_json(CANARY)
            .replace(&gcp.token_uri(), &format!("{}/token", server.uri())),
    );
    let endpoint = format!("{}/compute/v1/", server.uri());
    let opts = m.options_for(&endpoint, &[CloudId::Gcp, CloudId::Lambda]);

    run(&opts, &a100(1)).await.unwrap();
    assert_eq!(m.cache_entries().len(), 1);

    let mut refresh = opts.clone();
    refresh.refresh = true;
    let mut request = a100(1);
    request.overrides.infra = None;
    let refused = run(&refresh, &request).await.unwrap();
    assert!(
        matches!(&gcp_report(&refused).outcome, Outcome::Failed(CloudError::Auth(m)) if m.contains("PERMISSION_DENIED")),
        "{:?}",
        gcp_report(&refused)
    );
    assert!(
        m.cache_entries().is_empty(),
        "the rejected entry must be gone"
    );

    // Without --refresh the next launch asks again instead of using a stale list.
    let again = run(&opts, &request).await.unwrap();
    assert!(matches!(
        gcp_report(&again).outcome,
        Outcome::Failed(CloudError::Auth(_))
    ));
    let lists = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| r.method.as_str() == "GET")
        .count();
    assert_eq!(lists, 3);
}

#[tokio::test]
async fn service_account_keys_use_a_signed_jwt_grant() {
    let gcp = mock(vec![reservation("open-b", "us-central1-b", 1, 0, false)]).await;
    let m = Machine::new(&gcp, Some(PRIORITIZE));
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/gcp/service-account.json");
    let mut key: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    key["token_uri"] = gcp.token_uri().into();
    let key_path = m.dir.path().join("sa.json");
    std::fs::write(&key_path, key.to_string()).unwrap();
    let mut opts = m.options(&gcp, &[CloudId::Gcp]);
    opts.env.insert(
        "GOOGLE_APPLICATION_CREDENTIALS".into(),
        key_path.display().to_string(),
    );
    opts.env.remove("CLOUDSDK_CORE_PROJECT");

    let result = run(&opts, &a100(1)).await.unwrap();
    assert_eq!(costs(&result).1, "us-central1-b");
    let requests = gcp.server().received_requests().await.unwrap();
    let token = requests
        .iter()
        .find(|r| r.url.path() == "/token")
        .expect("a token request");
    let body = String::from_utf8_lossy(&token.body);
    assert!(
        body.contains("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer")
            && body.contains("assertion="),
        "{body}"
    );
    // The key's own project_id, since nothing else names one.
    assert!(
        requests
            .iter()
            .any(|r| r.url.path() == "/compute/v1/projects/sa-project/aggregated/reservations")
    );
}

/// Every file under `dir`, as text (lossy).
fn tree_text(dir: &Path) -> String {
    let mut out = String::new();
    let Ok(listing) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in listing {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.push_str(&tree_text(&path));
        } else {
            out.push_str(&path.display().to_string());
            out.push_str(&String::from_utf8_lossy(&std::fs::read(&path).unwrap()));
        }
    }
    out
}

#[tokio::test]
async fn the_refresh_token_never_leaves_the_token_request() {
    let gcp = mock(vec![reservation("open-b", "us-central1-b", 1, 0, false)]).await;
    let mut builder = GcpMock::builder();
    builder.token = EndpointOptions::default().fault(Fault::Unauthorized);
    let refused = builder.start().await.unwrap();
    for (mock, expect_ok) in [(&gcp, true), (&refused, false)] {
        let m = Machine::new(mock, Some(PRIORITIZE));
        let trace = m.dir.path().join("trace.json");
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sky"));
        cmd.env_clear()
            .envs(m.env(&mock.compute_endpoint()))
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("SKY_ENABLED_CLOUDS", "gcp,lambda")
            .env("SKY_LOG", "trace")
            .env("NO_COLOR", "1")
            .env("RUST_BACKTRACE", "0")
            .args(["launch", "--dryrun", "-y", "--gpus", "A100:1", "--timings"])
            .arg("--trace")
            .arg(&trace);
        let json = {
            let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_sky"));
            c.env_clear()
                .envs(m.env(&mock.compute_endpoint()))
                .env("SKY_ENABLED_CLOUDS", "gcp,lambda")
                .env("SKY_LOG", "trace")
                .args([
                    "launch",
                    "--dryrun",
                    "-y",
                    "--gpus",
                    "A100:1",
                    "--refresh",
                    "-o",
                    "json",
                ]);
            c
        };
        let (out, json_out) = tokio::task::spawn_blocking(move || {
            let mut json = json;
            (cmd.output().unwrap(), json.output().unwrap())
        })
        .await
        .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(if expect_ok { 0 } else { 3 }),
            "{stdout}\n{stderr}"
        );
        if expect_ok {
            assert!(stdout.contains("GCP (us-central1-b)"), "{stdout}");
        } else {
            let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("GCP")).collect();
            assert!(!warnings.is_empty(), "{stderr}");
        }
        for (what, text) in [
            ("stdout", stdout.into_owned()),
            ("stderr", stderr.into_owned()),
            (
                "json stdout",
                String::from_utf8_lossy(&json_out.stdout).into_owned(),
            ),
            (
                "json stderr",
                String::from_utf8_lossy(&json_out.stderr).into_owned(),
            ),
            ("trace", std::fs::read_to_string(&trace).unwrap()),
            ("state dir", tree_text(&m.state())),
        ] {
            assert!(
                !text.contains(CANARY),
                "the canary leaked into the {what}:\n{text}"
            );
            assert!(
                !text.contains("ya29."),
                "an access token leaked into the {what}:\n{text}"
            );
        }
    }
    // The canary did reach the token endpoint: the grant really used it.
    let requests = gcp.server().received_requests().await.unwrap();
    assert!(requests.iter().any(|r| r.url.path() == "/token"
        && String::from_utf8_lossy(&r.body).contains("canaryREFRESHtoken")));
}
