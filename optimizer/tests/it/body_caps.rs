//! Every adapter that reads a whole answer caps it (issue 26), and the
//! error of a body past the cap names the host that sent it and the cap,
//! as the catalog downloads say it (`<url>: the answer is larger than <cap>
//! bytes`, the URL without credentials or query): EC2's zone names, OCI's
//! region subscriptions, Nebius' pricing API and the Hugging Face storage
//! check, each against its loopback mock answering every request with a
//! body one byte over the cap.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mocks::wiremock::matchers::any;
use mocks::wiremock::{Mock, MockServer, ResponseTemplate};
use mocks::{CatalogServer, Ec2Mock, HuggingFaceMock, NebiusMock, OciMock, StsMock};
use optimizer::launch::{LaunchOptions, Request, check, run};
use planner::cloud::{CloudId, StorageOnly};
use planner::launch::LaunchResult;
use planner::render::check::{CheckView, report};
use planner::task::Overrides;

/// One adapter: its cap, and what a launch (or check) against a host that
/// sends more says, with the host's URL.
struct Case {
    name: &'static str,
    /// The adapter's cap (its `MAX_*_BODY_BYTES`).
    cap: usize,
    run: fn(&tokio::runtime::Runtime, &Path, usize) -> (String, String),
}

/// Every request `server` gets is answered 200 with `bytes` bytes.
async fn oversized(server: &MockServer, bytes: usize) {
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_bytes(vec![b'x'; bytes]))
        .with_priority(1)
        .mount(server)
        .await;
}

fn env(pairs: impl IntoIterator<Item = (&'static str, String)>) -> BTreeMap<String, String> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

fn write(home: &Path, rel: &str, text: &str) {
    let path = home.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn fixture(rel: &str) -> PathBuf {
    mocks::fixtures_dir().join(rel)
}

fn v100() -> Request {
    Request {
        entrypoint: Vec::new(),
        overrides: Overrides {
            gpus: Some("V100".into()),
            ..Default::default()
        },
    }
}

/// A launch's warnings and the fan-out's reports, as one text.
fn said(result: &LaunchResult) -> String {
    format!(
        "{}\n{:?}",
        result.prepared.warnings.join("\n"),
        result.prepared.fanout.reports
    )
}

/// A launch declaring `cloud` in `home`, with `env`.
fn options(home: &Path, mut env: BTreeMap<String, String>, cloud: CloudId) -> LaunchOptions {
    env.insert("HOME".into(), home.join("home").display().to_string());
    env.insert(
        "SKY_STATE_DIR".into(),
        home.join("state").display().to_string(),
    );
    let mut opts = LaunchOptions::from_env(env, home.join("home")).unwrap();
    opts.declared_clouds = Some(vec![cloud]);
    opts.set_cloud_timeout(Duration::from_secs(3));
    opts.aws.detect_ec2 = false;
    opts
}

/// EC2 (the AWS zone names, fetched into SkyPilot's folder): STS answers,
/// the catalogs are served, EC2 sends too much.
fn ec2(rt: &tokio::runtime::Runtime, dir: &Path, bytes: usize) -> (String, String) {
    let (catalogs, sts, ec2) = rt.block_on(async {
        let catalogs = CatalogServer::builder()
            .root(fixture("catalogs"))
            .start()
            .await
            .unwrap();
        let ec2 = Ec2Mock::builder().start().await.unwrap();
        oversized(ec2.server(), bytes).await;
        (catalogs, StsMock::start().await.unwrap(), ec2)
    });
    let mut env = env(sts.aws_env());
    env.insert("AWS_ENDPOINT_URL_EC2".into(), ec2.uri());
    env.insert("SKY_CATALOG_URL".into(), catalogs.hosted_url());
    env.insert("SKY_CATALOG_MIRROR_URL".into(), String::new());
    env.insert(
        "SKY_RUNTIME_DIR".into(),
        dir.join("runtime").display().to_string(),
    );
    env.insert("AWS_EC2_METADATA_DISABLED".into(), "true".into());
    let opts = options(dir, env, CloudId::Aws);
    let result = rt.block_on(run(&opts, &v100())).unwrap();
    (ec2.uri(), said(&result))
}

/// OCI's region subscriptions (identity API).
fn oci(rt: &tokio::runtime::Runtime, dir: &Path, bytes: usize) -> (String, String) {
    let oci = rt.block_on(async {
        let oci = OciMock::builder().start().await.unwrap();
        oversized(oci.server(), bytes).await;
        oci
    });
    let home = dir.join("home");
    write(
        &home,
        ".oci/config",
        &std::fs::read_to_string(fixture("oci/config")).unwrap(),
    );
    write(
        &home,
        ".oci/oci_api_key.pem",
        &std::fs::read_to_string(fixture("oci/api_key.pem")).unwrap(),
    );
    let mut env = env(oci.identity_env());
    env.insert("SKY_BUNDLED_CATALOGS".into(), "1".into());
    let result = rt
        .block_on(run(&options(dir, env, CloudId::Oci), &v100()))
        .unwrap();
    (oci.uri(), said(&result))
}

/// Nebius' pricing API (gRPC over HTTP/2): the first call already sends
/// too much.
fn nebius(rt: &tokio::runtime::Runtime, dir: &Path, bytes: usize) -> (String, String) {
    let nebius = rt.block_on(async {
        let nebius = NebiusMock::builder()
            .access_token("nebius-token-for-the-cap-test")
            .start()
            .await
            .unwrap();
        oversized(nebius.server(), bytes).await;
        nebius
    });
    let home = dir.join("home");
    write(
        &home,
        ".sky/config.yaml",
        "nebius:\n  tenant_id: tenant-e00mock\n",
    );
    write(
        &home,
        ".nebius/NEBIUS_IAM_TOKEN.txt",
        "nebius-token-for-the-cap-test\n",
    );
    let mut env = env(nebius.api_env());
    env.insert("SKY_BUNDLED_CATALOGS".into(), "1".into());
    let result = rt
        .block_on(run(&options(dir, env, CloudId::Nebius), &v100()))
        .unwrap();
    (nebius.uri(), said(&result))
}

/// The Hugging Face storage check (`whoami-v2`), through `sky check`.
fn hugging_face(rt: &tokio::runtime::Runtime, dir: &Path, bytes: usize) -> (String, String) {
    let hub = rt.block_on(async {
        let hub = HuggingFaceMock::start().await.unwrap();
        oversized(hub.server(), bytes).await;
        hub
    });
    let home = dir.join("home");
    write(
        &home,
        ".cache/huggingface/token",
        &format!("{}\n", hub.token()),
    );
    let mut env = env(hub.env());
    env.insert("SKY_BUNDLED_CATALOGS".into(), "1".into());
    let mut opts = options(dir, env, CloudId::Aws);
    opts.declared_clouds = Some(Vec::new());
    opts.declared_storage_only = vec![StorageOnly::HuggingFace];
    let r = rt.block_on(check(&opts)).unwrap();
    (hub.uri(), report(&r, &CheckView::default()).join("\n"))
}

#[test]
fn a_body_over_the_cap_names_its_host_and_the_cap() {
    let cases = [
        Case {
            name: "EC2",
            cap: 1 << 20,
            run: ec2,
        },
        Case {
            name: "OCI",
            cap: 1 << 20,
            run: oci,
        },
        Case {
            name: "Nebius",
            cap: 4 << 20,
            run: nebius,
        },
        Case {
            name: "Hugging Face",
            cap: 1 << 20,
            run: hugging_face,
        },
    ];
    let rt = tokio::runtime::Runtime::new().unwrap();
    for case in cases {
        let dir = tempfile::tempdir().unwrap();
        let (url, said) = (case.run)(&rt, dir.path(), case.cap + 1);
        let host = url.trim_end_matches('/');
        assert!(
            host.starts_with("http://127.0.0.1:"),
            "{}: {host}",
            case.name
        );
        let cut = format!("the answer is larger than {} bytes", case.cap);
        let line = said
            .lines()
            .flat_map(|l| l.split("\\n"))
            .find(|l| l.contains(&cut))
            .unwrap_or_else(|| panic!("{}: no line says {cut:?}:\n{said}", case.name));
        assert!(
            line.contains(&format!("{host}/")),
            "{}: the host is not named: {line}",
            case.name
        );
    }
}
