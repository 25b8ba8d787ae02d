//! OCI region subscriptions against the OCI mock: the signed request, the
//! catalog narrowed to the subscribed regions, the cache (hit, refresh,
//! dropped on a refusal), failures as data (401 fails the cloud; 5xx and a
//! hang keep the whole catalog within the deadline), latency, and the API
//! key never leaving the machine.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use mocks::wiremock::matchers::method;
use mocks::wiremock::{Mock, ResponseTemplate};
use mocks::{Fault, Latency, OciMock};
use optimizer::clouds::oci::REGIONS_CACHE_KIND;
use optimizer::launch::{LaunchOptions, Request, run};
use planner::check::{CacheUse, CloudFacts, Outcome};
use planner::cloud::CloudId;
use planner::launch::LaunchResult;
use planner::task::Overrides;

const TENANCY: &str = "ocid1.tenancy.oc1..aaaaaaaamocktenancy";
const KEY_PEM: &str = include_str!("../../../fixtures/oci/api_key.pem");
const CONFIG: &str = include_str!("../../../fixtures/oci/config");

/// A temporary machine: HOME with `~/.oci/config` and its API key, a state folder.
struct Machine {
    dir: tempfile::TempDir,
}

impl Machine {
    fn new() -> Machine {
        let m = Machine {
            dir: tempfile::tempdir().unwrap(),
        };
        let oci = m.home().join(".oci");
        std::fs::create_dir_all(&oci).unwrap();
        std::fs::write(oci.join("config"), CONFIG).unwrap();
        std::fs::write(oci.join("oci_api_key.pem"), KEY_PEM).unwrap();
        m
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    fn options(&self, oci: &OciMock) -> LaunchOptions {
        let mut env: BTreeMap<String, String> = [
            ("HOME", self.home().display().to_string()),
            ("SKY_STATE_DIR", self.state().display().to_string()),
            // The example catalogs: no catalog downloads in these tests.
            ("SKY_BUNDLED_CATALOGS", "1".to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        for (k, v) in oci.identity_env() {
            env.insert(k.into(), v);
        }
        let mut opts = LaunchOptions::from_env(env, self.home()).unwrap();
        opts.declared_clouds = Some(vec![CloudId::Oci]);
        opts.cloud_timeout = Duration::from_millis(1500);
        opts.fanout.global_deadline = Duration::from_secs(3);
        opts.oci.service.retry_backoff = Duration::from_millis(5);
        opts
    }

    fn cache_entries(&self) -> usize {
        std::fs::read_dir(self.state().join(REGIONS_CACHE_KIND))
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

fn v100() -> Request {
    Request {
        entrypoint: Vec::new(),
        overrides: Overrides {
            gpus: Some("V100:1".into()),
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
        .find(|r| r.cloud == CloudId::Oci)
        .unwrap()
}

/// The regions of the OCI catalog the planner saw.
fn catalog_regions(result: &LaunchResult) -> BTreeSet<String> {
    let doc = planner::render::json::plan(result, "c");
    let rows = doc["plan"]["tasks"][0]["considered"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    rows.iter()
        .filter_map(|r| r["region"].as_str().map(str::to_string))
        .collect()
}

fn facts(result: &LaunchResult) -> (planner::check::OciFacts, CacheUse) {
    match &report(result).outcome {
        Outcome::Ready(o) => match &o.facts {
            CloudFacts::Oci(f) => (f.clone(), o.cache),
            other => panic!("not OCI facts: {other:?}"),
        },
        other => panic!("OCI not ready: {other:?}"),
    }
}

#[tokio::test]
async fn subscribed_regions_narrow_the_catalog_and_are_cached() {
    let oci = OciMock::builder()
        .regions(&["us-chicago-1", "eu-frankfurt-1"])
        .tenancy(TENANCY)
        .start()
        .await
        .unwrap();
    let m = Machine::new();
    let opts = m.options(&oci);

    let first = run(&opts, &v100()).await.unwrap();
    let (f, cache) = facts(&first);
    assert_eq!(f.subscribed_regions, ["us-chicago-1", "eu-frankfurt-1"]);
    assert_eq!(f.unavailable, None);
    assert_eq!(cache, CacheUse::Miss);
    // V100 is in four catalog regions; only Chicago is subscribed.
    assert_eq!(
        catalog_regions(&first),
        BTreeSet::from(["us-chicago-1".to_string()])
    );
    assert_eq!(oci.subscriptions().count(), 1);
    assert_eq!(m.cache_entries(), 1);

    // The request was signed with the profile's key id; the key stayed home.
    let received = oci.server().received_requests().await.unwrap();
    let auth = received[0]
        .headers
        .get("authorization")
        .unwrap()
        .to_str()
        .unwrap();
    assert!(auth.contains(&format!(
        "keyId=\"{TENANCY}/ocid1.user.oc1..aaaaaaaamockuser/2b:5d:4b:56:ba:c5:4c:5e:75:68:73:01:8e:d5:19:8e\""
    )));
    let key_body: String = KEY_PEM
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .collect();
    for r in &received {
        let all = format!("{:?}{}", r.headers, String::from_utf8_lossy(&r.body));
        assert!(!all.contains(&key_body[..40]), "the API key was sent");
    }

    // Cached: no second request.
    let second = run(&opts, &v100()).await.unwrap();
    assert!(matches!(facts(&second).1, CacheUse::Hit { .. }));
    assert_eq!(facts(&second).0, f);
    assert_eq!(oci.subscriptions().count(), 1);

    // `--refresh` asks again.
    let mut refresh = opts.clone();
    refresh.refresh = true;
    let third = run(&refresh, &v100()).await.unwrap();
    assert_eq!(facts(&third).1, CacheUse::Miss);
    assert_eq!(oci.subscriptions().count(), 2);

    // Nothing secret in the cache.
    for e in std::fs::read_dir(m.state().join(REGIONS_CACHE_KIND)).unwrap() {
        let text = std::fs::read_to_string(e.unwrap().path()).unwrap_or_default();
        assert!(!text.contains(&key_body[..40]));
    }
}

#[tokio::test]
async fn a_refusal_drops_the_cached_list() {
    let oci = OciMock::builder().start().await.unwrap();
    let m = Machine::new();
    run(&m.options(&oci), &v100()).await.unwrap();
    assert_eq!(m.cache_entries(), 1);

    // The key is revoked: the same endpoint now answers 404
    // NotAuthorizedOrNotFound. With --refresh the cloud fails and the entry goes.
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(404).set_body_raw(
            r#"{"code":"NotAuthorizedOrNotFound","message":"Authorization failed or requested resource not found."}"#,
            "application/json",
        ))
        .with_priority(1)
        .mount(oci.server())
        .await;
    let mut opts = m.options(&oci);
    opts.refresh = true;
    // OCI was the only cloud: the launch stops, naming the refusal.
    let why = run(&opts, &v100()).await.unwrap_err().to_string();
    assert!(
        why.contains("OCI: credentials rejected") && why.contains("HTTP 404"),
        "{why}"
    );
    assert_eq!(m.cache_entries(), 0);

    // A tenancy the service does not know is refused the same way.
    let other = OciMock::builder()
        .tenancy("ocid1.tenancy.oc1..someoneelse")
        .start()
        .await
        .unwrap();
    let why = run(&m.options(&other), &v100())
        .await
        .unwrap_err()
        .to_string();
    assert!(why.contains("NotAuthorizedOrNotFound"), "{why}");
}

#[tokio::test]
async fn a_401_fails_the_cloud_without_retry() {
    let oci = OciMock::builder()
        .fault(Fault::Unauthorized)
        .start()
        .await
        .unwrap();
    let m = Machine::new();
    let why = run(&m.options(&oci), &v100())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        why.contains("OCI: credentials rejected") && why.contains("HTTP 401"),
        "{why}"
    );
    assert_eq!(oci.subscriptions().count(), 1);
    assert_eq!(m.cache_entries(), 0);
}

#[tokio::test]
async fn a_server_error_keeps_every_region_with_a_warning() {
    let oci = OciMock::builder()
        .fault(Fault::Status(503))
        .start()
        .await
        .unwrap();
    let m = Machine::new();
    let result = run(&m.options(&oci), &v100()).await.unwrap();
    let (f, _) = facts(&result);
    assert!(f.subscribed_regions.is_empty());
    assert!(
        f.unavailable.as_deref().unwrap().contains("HTTP 503"),
        "{f:?}"
    );
    assert_eq!(
        catalog_regions(&result).len(),
        4,
        "the whole catalog is used"
    );
    assert!(
        result
            .prepared
            .warnings
            .iter()
            .any(|w| w.contains("OCI plans on every catalog region")),
        "{:?}",
        result.prepared.warnings
    );
    // Retried once (max_attempts 2), and not cached.
    assert_eq!(oci.subscriptions().count(), 2);
    assert_eq!(m.cache_entries(), 0);
}

#[tokio::test]
async fn a_hang_falls_back_within_the_deadline() {
    let oci = OciMock::builder().fault(Fault::Hang).start().await.unwrap();
    let m = Machine::new();
    let mut opts = m.options(&oci);
    opts.oci.service.request_timeout = Duration::from_millis(300);
    let t0 = Instant::now();
    let result = run(&opts, &v100()).await.unwrap();
    assert!(
        t0.elapsed() < Duration::from_millis(1500),
        "{:?}",
        t0.elapsed()
    );
    let (f, _) = facts(&result);
    assert!(
        f.unavailable.as_deref().unwrap().contains("no answer"),
        "{f:?}"
    );
    assert_eq!(catalog_regions(&result).len(), 4);
}

#[tokio::test]
async fn latency_is_waited_for() {
    let oci = OciMock::builder()
        .regions(&["us-chicago-1"])
        .latency(Latency::fixed_ms(200))
        .start()
        .await
        .unwrap();
    let m = Machine::new();
    let t0 = Instant::now();
    let result = run(&m.options(&oci), &v100()).await.unwrap();
    assert!(t0.elapsed() >= Duration::from_millis(200));
    assert_eq!(facts(&result).0.subscribed_regions, ["us-chicago-1"]);
    assert!(report(&result).elapsed >= Duration::from_millis(200));
}

#[tokio::test]
async fn offline_answers_need_no_credentials_and_no_server() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("region_subscriptions.json"),
        mocks::region_subscriptions(&["ap-batam-1".to_string()]).to_string(),
    )
    .unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let env: BTreeMap<String, String> = [
        ("HOME", home.display().to_string()),
        ("SKY_BUNDLED_CATALOGS", "1".to_string()),
        (
            "SKY_STATE_DIR",
            dir.path().join("state").display().to_string(),
        ),
        ("SKY_OCI_API_DIR", dir.path().display().to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let mut opts = LaunchOptions::from_env(env, home).unwrap();
    opts.declared_clouds = Some(vec![CloudId::Oci]);
    let result = run(&opts, &v100()).await.unwrap();
    assert_eq!(facts(&result).1, CacheUse::None);
    assert_eq!(
        catalog_regions(&result),
        BTreeSet::from(["ap-batam-1".to_string()])
    );
}
