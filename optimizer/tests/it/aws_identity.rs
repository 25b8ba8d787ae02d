//! The AWS adapter against a wiremock STS: identity cache, fingerprint, failures, concurrency.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use optimizer::clouds::aws::{
    AwsCloud, AwsOptions, IDENTITY_CACHE_KIND, IDENTITY_CACHE_SCHEMA, az_mapping_hash,
};
use optimizer::clouds::{CheckContext, Cloud, Credentials, EnvMap};
use optimizer::state::{Clock, Lookup, MissReason, StateDir};
use planner::check::{AwsFacts, AwsIdentity, CacheUse, CheckOutcome, CloudError, CloudFacts};
use wiremock::matchers::{body_string_contains, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY_ID: &str = "AKIDEXAMPLE";
/// Planted in every secret position; must never reach a file or a message.
const CANARY: &str = "wJalrXUtnFEMI-K7MDENG-CANARY-SECRET-7f3a";

const IDENTITY_XML: &str = r#"<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <GetCallerIdentityResult>
    <Arn>arn:aws:iam::123456789012:user/bench</Arn>
    <UserId>AIDAEXAMPLEUSERID</UserId>
    <Account>123456789012</Account>
  </GetCallerIdentityResult>
  <ResponseMetadata><RequestId>01234567-89ab-cdef-0123-456789abcdef</RequestId></ResponseMetadata>
</GetCallerIdentityResponse>"#;

const EMPTY_IDENTITY_XML: &str = r#"<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <GetCallerIdentityResult><Arn></Arn><UserId></UserId><Account></Account></GetCallerIdentityResult>
  <ResponseMetadata><RequestId>01234567-89ab-cdef-0123-456789abcdef</RequestId></ResponseMetadata>
</GetCallerIdentityResponse>"#;

fn expected_identity() -> AwsIdentity {
    AwsIdentity {
        user_id: "AIDAEXAMPLEUSERID".into(),
        account: "123456789012".into(),
        arn: "arn:aws:iam::123456789012:user/bench".into(),
    }
}

fn error_xml(code: &str) -> String {
    format!(
        r#"<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>{code}</Code><Message>request rejected ({code})</Message></Error><RequestId>0123</RequestId></ErrorResponse>"#
    )
}

fn sts() -> wiremock::MockBuilder {
    Mock::given(method("POST"))
        .and(path("/"))
        .and(body_string_contains("Action=GetCallerIdentity"))
}

async fn mount_ok(server: &MockServer) {
    sts()
        .respond_with(ResponseTemplate::new(200).set_body_raw(IDENTITY_XML, "text/xml"))
        .mount(server)
        .await;
}

async fn mount_status(server: &MockServer, status: u16, body: &str) {
    sts()
        .respond_with(ResponseTemplate::new(status).set_body_raw(body.to_string(), "text/xml"))
        .mount(server)
        .await;
}

async fn sts_calls(server: &MockServer) -> usize {
    let requests = server.received_requests().await.unwrap_or_default();
    requests
        .iter()
        .filter(|r| String::from_utf8_lossy(&r.body).contains("Action=GetCallerIdentity"))
        .count()
}

/// Everything a check reads: the injected environment and the shared files under the fake home.
#[derive(Debug, Clone)]
struct Inputs {
    env: EnvMap,
    config: Option<String>,
    credentials: Option<String>,
    endpoint_override: Option<String>,
}

struct Fixture {
    server: MockServer,
    home: tempfile::TempDir,
    state: tempfile::TempDir,
}

impl Fixture {
    async fn new() -> Self {
        let server = MockServer::start().await;
        mount_ok(&server).await;
        Fixture {
            server,
            home: tempfile::tempdir().expect("home"),
            state: tempfile::tempdir().expect("state"),
        }
    }

    fn state_dir(&self) -> PathBuf {
        self.state.path().join("sky")
    }

    fn base(&self) -> Inputs {
        let env = [
            ("AWS_ACCESS_KEY_ID", KEY_ID.to_string()),
            ("AWS_SECRET_ACCESS_KEY", CANARY.to_string()),
            ("AWS_REGION", "us-east-1".to_string()),
            ("AWS_ENDPOINT_URL_STS", self.server.uri()),
        ];
        Inputs {
            env: env.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
            config: Some(
                "[default]\nregion = us-east-1\n\n[profile other]\nregion = us-east-1\n".into(),
            ),
            credentials: Some(format!(
                "[unused]\naws_access_key_id = AKIDUNUSED\naws_secret_access_key = {CANARY}\n"
            )),
            endpoint_override: None,
        }
    }

    /// Writes the shared files of `inputs` and returns the context that reads them.
    fn ctx(&self, inputs: &Inputs, refresh: bool) -> CheckContext {
        let aws = self.home.path().join(".aws");
        fs::create_dir_all(&aws).expect("mkdir .aws");
        for (name, contents) in [
            ("config", &inputs.config),
            ("credentials", &inputs.credentials),
        ] {
            match contents {
                Some(text) => fs::write(aws.join(name), text).expect("write shared file"),
                None => {
                    let _ = fs::remove_file(aws.join(name));
                }
            }
        }
        CheckContext {
            env: inputs.env.clone(),
            home: self.home.path().to_path_buf(),
            state_dir: self.state_dir(),
            refresh,
            cloud_timeout: Duration::from_secs(30),
            kubernetes_allowed_contexts: None,
            reservation_clouds: Vec::new(),
            gcp_project_id: None,
            sky_config: Default::default(),
        }
    }

    fn cloud(&self, inputs: &Inputs) -> AwsCloud {
        let mut options = fast_options();
        options.endpoint_url = inputs.endpoint_override.clone();
        AwsCloud::new(options)
    }

    async fn check(&self, inputs: &Inputs) -> Result<CheckOutcome, CloudError> {
        self.cloud(inputs).check(&self.ctx(inputs, false)).await
    }

    async fn refresh(&self, inputs: &Inputs) -> Result<CheckOutcome, CloudError> {
        self.cloud(inputs).check(&self.ctx(inputs, true)).await
    }

    /// The single identity entry file (panics unless there is exactly one).
    fn entry_file(&self) -> PathBuf {
        let files = entry_files(&self.state_dir());
        assert_eq!(
            files.len(),
            1,
            "expected one identity entry, found {files:?}"
        );
        files[0].clone()
    }
}

fn fast_options() -> AwsOptions {
    let mut options = AwsOptions::default();
    options.detect_ec2 = false;
    options.service.retry_backoff = Duration::from_millis(10);
    options
}

fn entry_files(state_dir: &Path) -> Vec<PathBuf> {
    let Ok(listing) = fs::read_dir(state_dir.join(IDENTITY_CACHE_KIND)) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = listing
        .map(|e| e.expect("dirent").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

fn read_entry(file: &Path) -> serde_json::Value {
    serde_json::from_slice(&fs::read(file).expect("read entry")).expect("entry is valid JSON")
}

fn identity_of(outcome: &CheckOutcome) -> Option<&AwsIdentity> {
    match &outcome.facts {
        CloudFacts::Aws(AwsFacts { identity, .. }) => identity.as_ref(),
        _ => None,
    }
}

#[track_caller]
fn assert_miss(result: &Result<CheckOutcome, CloudError>) {
    let outcome = result.as_ref().expect("check succeeds");
    assert_eq!(outcome.cache, CacheUse::Miss);
    assert_eq!(identity_of(outcome), Some(&expected_identity()));
}

#[track_caller]
fn assert_hit(result: &Result<CheckOutcome, CloudError>) {
    let outcome = result.as_ref().expect("check succeeds");
    assert!(
        matches!(outcome.cache, CacheUse::Hit { .. }),
        "expected a hit, got {:?}",
        outcome.cache
    );
    assert_eq!(identity_of(outcome), Some(&expected_identity()));
}

#[tokio::test]
async fn second_check_is_answered_from_the_cache() {
    let fx = Fixture::new().await;
    let inputs = fx.base();

    let first = fx.check(&inputs).await;
    let second = fx.check(&inputs).await;

    assert_miss(&first);
    assert_hit(&second);
    assert_eq!(
        sts_calls(&fx.server).await,
        1,
        "the second check makes no STS call"
    );
    let requests = fx.server.received_requests().await.unwrap_or_default();
    let auth = requests[0]
        .headers
        .get("authorization")
        .map(|v| v.to_str().unwrap_or_default().to_string());
    assert!(
        auth.unwrap_or_default().contains("Credential=AKIDEXAMPLE/"),
        "signed with the injected key"
    );
    let entry = read_entry(&fx.entry_file());
    assert_eq!(entry["schema"], IDENTITY_CACHE_SCHEMA);
    assert_eq!(entry["kind"], IDENTITY_CACHE_KIND);
    assert_eq!(entry["value"]["user_id"], "AIDAEXAMPLEUSERID");
}

#[tokio::test]
async fn each_fingerprint_input_selects_its_own_entry() {
    let fx = Fixture::new().await;
    let base = fx.base();
    let localhost = fx.server.uri().replace("127.0.0.1", "localhost");
    type Mutation = Box<dyn Fn(&mut Inputs)>;
    let set = |key: &'static str, value: String| -> Mutation {
        Box::new(move |i: &mut Inputs| {
            i.env.insert(key.to_string(), value.clone());
        })
    };
    let mutations: Vec<(&str, Mutation)> = vec![
        (
            "access key id",
            set("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE2".into()),
        ),
        (
            "secret key",
            set("AWS_SECRET_ACCESS_KEY", format!("{CANARY}-rotated")),
        ),
        (
            "session token",
            set("AWS_SESSION_TOKEN", format!("{CANARY}-token")),
        ),
        ("profile", set("AWS_PROFILE", "other".into())),
        ("region", set("AWS_REGION", "eu-west-1".into())),
        (
            "endpoint (env)",
            set("AWS_ENDPOINT_URL_STS", localhost.clone()),
        ),
        (
            "endpoint (option)",
            Box::new(move |i: &mut Inputs| i.endpoint_override = Some(localhost.clone())),
        ),
        (
            "config file",
            Box::new(|i: &mut Inputs| i.config.as_mut().expect("config").push_str("# edited\n")),
        ),
        (
            "credentials file",
            Box::new(|i: &mut Inputs| {
                i.credentials
                    .as_mut()
                    .expect("credentials")
                    .push_str("# edited\n")
            }),
        ),
    ];
    assert_miss(&fx.check(&base).await);
    let mut calls = sts_calls(&fx.server).await;
    assert_eq!(calls, 1);

    for (name, mutate) in &mutations {
        let mut inputs = base.clone();
        mutate(&mut inputs);

        let changed = fx.check(&inputs).await;
        let changed_again = fx.check(&inputs).await;
        let back = fx.check(&base).await;

        let now = sts_calls(&fx.server).await;
        assert_eq!(
            now - calls,
            1,
            "changing the {name} makes exactly one STS call"
        );
        calls = now;
        assert_miss(&changed);
        assert_hit(&changed_again);
        assert_hit(&back);
    }
    assert_eq!(
        entry_files(&fx.state_dir()).len(),
        mutations.len() + 1,
        "one entry per distinct input"
    );
}

#[tokio::test]
async fn rejected_credentials_drop_the_entry() {
    let cases = [
        (403, "InvalidClientTokenId"),
        (403, "SignatureDoesNotMatch"),
        (403, "AccessDenied"),
        (400, "ExpiredToken"),
        (401, "Unauthorized"),
    ];
    for (status, code) in cases {
        let fx = Fixture::new().await;
        let inputs = fx.base();
        assert_miss(&fx.check(&inputs).await);
        assert_eq!(entry_files(&fx.state_dir()).len(), 1);
        fx.server.reset().await;
        mount_status(&fx.server, status, &error_xml(code)).await;

        let rejected = fx.refresh(&inputs).await;

        match &rejected {
            Err(CloudError::Auth(message)) => {
                assert!(!message.contains(CANARY), "{message}");
                assert!(!message.contains('\n'), "one line: {message}");
            }
            other => panic!("{status} {code}: expected an auth error, got {other:?}"),
        }
        assert!(
            entry_files(&fx.state_dir()).is_empty(),
            "{status} {code}: the entry is dropped"
        );
        fx.server.reset().await;
        mount_ok(&fx.server).await;
        assert_miss(&fx.check(&inputs).await);
        assert_eq!(
            sts_calls(&fx.server).await,
            1,
            "{status} {code}: refetched after the drop"
        );
    }
}

#[tokio::test]
async fn failures_and_empty_answers_are_never_cached() {
    let fx = Fixture::new().await;
    let inputs = fx.base();
    fx.server.reset().await;
    mount_status(&fx.server, 500, &error_xml("InternalFailure")).await;

    let failed = fx.check(&inputs).await;

    match &failed {
        Err(CloudError::Service(message)) => {
            assert!(message.contains("InternalFailure"), "{message}");
            assert!(!message.contains('\n'), "{message}");
        }
        other => panic!("expected a service error, got {other:?}"),
    }
    assert_eq!(sts_calls(&fx.server).await, 2, "max_attempts = 2");
    assert!(entry_files(&fx.state_dir()).is_empty());

    fx.server.reset().await;
    mount_status(&fx.server, 200, EMPTY_IDENTITY_XML).await;
    assert!(matches!(
        fx.check(&inputs).await,
        Err(CloudError::Service(_))
    ));
    assert!(
        entry_files(&fx.state_dir()).is_empty(),
        "an empty identity is not cached"
    );

    // A failed refresh keeps the good entry.
    fx.server.reset().await;
    mount_ok(&fx.server).await;
    assert_miss(&fx.check(&inputs).await);
    fx.server.reset().await;
    mount_status(&fx.server, 500, &error_xml("InternalFailure")).await;
    assert!(matches!(
        fx.refresh(&inputs).await,
        Err(CloudError::Service(_))
    ));
    assert_hit(&fx.check(&inputs).await);
}

#[tokio::test]
async fn damaged_entries_are_healed_in_the_same_run() {
    type Damage = fn(&str) -> String;
    let cases: Vec<(&str, Damage)> = vec![
        ("corrupt", |_| "\u{0}\u{1}garbage".into()),
        ("empty", |_| String::new()),
        ("truncated", |t| t[..t.len() / 2].to_string()),
        ("wrong schema", |t| {
            let mut j: serde_json::Value = serde_json::from_str(t).expect("json");
            j["schema"] = 99.into();
            j.to_string()
        }),
        ("future dated", |t| {
            let mut j: serde_json::Value = serde_json::from_str(t).expect("json");
            j["fetched_at_unix_ms"] =
                (j["fetched_at_unix_ms"].as_u64().expect("ms") + 86_400_000).into();
            j["expires_at_unix_ms"] =
                (j["expires_at_unix_ms"].as_u64().expect("ms") + 86_400_000).into();
            j.to_string()
        }),
        ("expired", |t| {
            let mut j: serde_json::Value = serde_json::from_str(t).expect("json");
            j["expires_at_unix_ms"] = (j["fetched_at_unix_ms"].as_u64().expect("ms") - 1).into();
            j.to_string()
        }),
    ];
    for (name, damage) in cases {
        let fx = Fixture::new().await;
        let inputs = fx.base();
        assert_miss(&fx.check(&inputs).await);
        let file = fx.entry_file();
        let valid = fs::read_to_string(&file).expect("read");
        fs::write(&file, damage(&valid)).expect("damage");

        let healed = fx.check(&inputs).await;

        assert_miss(&healed);
        assert_eq!(sts_calls(&fx.server).await, 2, "{name}: one refetch");
        let entry = read_entry(&fx.entry_file());
        assert_eq!(entry["schema"], IDENTITY_CACHE_SCHEMA, "{name}");
        let value: AwsIdentity = serde_json::from_value(entry["value"].clone()).expect("identity");
        assert_eq!(value, expected_identity(), "{name}");
        assert_hit(&fx.check(&inputs).await);
        assert_eq!(
            sts_calls(&fx.server).await,
            2,
            "{name}: the healed entry is used"
        );
    }
}

#[tokio::test]
async fn identity_ttl_is_honoured() {
    let fx = Fixture::new().await;
    let inputs = fx.base();
    let ctx = fx.ctx(&inputs, false);
    let at = |offset: Duration, ttl: Duration| {
        let mut options = fast_options();
        options.service.clock = Clock::ahead_by(offset);
        options.service.cache_ttl = ttl;
        AwsCloud::new(options)
    };
    let hour = Duration::from_secs(3600);

    assert_miss(&at(Duration::ZERO, hour).check(&ctx).await);
    let entry = read_entry(&fx.entry_file());
    let lifetime = entry["expires_at_unix_ms"].as_u64().expect("ms")
        - entry["fetched_at_unix_ms"].as_u64().expect("ms");
    assert_eq!(lifetime, 3_600_000, "default TTL is one hour");

    assert_hit(&at(Duration::from_secs(59 * 60), hour).check(&ctx).await);
    assert_eq!(sts_calls(&fx.server).await, 1);
    assert_miss(&at(Duration::from_secs(61 * 60), hour).check(&ctx).await);
    assert_eq!(sts_calls(&fx.server).await, 2, "expired after the TTL");
}

fn rfc3339(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).expect("after 1970").as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Inputs whose credentials come from `credential_process` with the given expiry.
fn process_inputs(fx: &Fixture, expires_in: Duration) -> (Inputs, u64) {
    let expiry_secs = (SystemTime::now() + expires_in)
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs();
    let expiry = UNIX_EPOCH + Duration::from_secs(expiry_secs);
    let json = format!(
        r#"{{"Version":1,"AccessKeyId":"AKIDPROCESS","SecretAccessKey":"{CANARY}","SessionToken":"{CANARY}-session","Expiration":"{}"}}"#,
        rfc3339(expiry)
    );
    let creds_json = fx.home.path().join("creds.json");
    fs::write(&creds_json, json).expect("write creds.json");
    let mut inputs = fx.base();
    inputs.env.remove("AWS_ACCESS_KEY_ID");
    inputs.env.remove("AWS_SECRET_ACCESS_KEY");
    inputs.config = Some(format!(
        "[default]\ncredential_process = cat {}\n",
        creds_json.display()
    ));
    inputs.credentials = None;
    (inputs, expiry_secs * 1000)
}

#[tokio::test]
async fn credential_expiry_bounds_the_entry() {
    let fx = Fixture::new().await;
    let (inputs, expiry_ms) = process_inputs(&fx, Duration::from_secs(30 * 60));

    assert_miss(&fx.check(&inputs).await);
    assert_hit(&fx.check(&inputs).await);

    let entry = read_entry(&fx.entry_file());
    assert_eq!(
        entry["expires_at_unix_ms"].as_u64(),
        Some(expiry_ms - 5 * 60 * 1000),
        "credential expiry - 5 min"
    );
    let requests = fx.server.received_requests().await.unwrap_or_default();
    let auth = requests[0]
        .headers
        .get("authorization")
        .map(|v| v.to_str().unwrap_or_default().to_string());
    assert!(
        auth.unwrap_or_default().contains("Credential=AKIDPROCESS/"),
        "signed with the process credentials"
    );

    let soon = Fixture::new().await;
    let (inputs, _) = process_inputs(&soon, Duration::from_secs(4 * 60));
    assert_miss(&soon.check(&inputs).await);
    assert_miss(&soon.check(&inputs).await);
    assert_eq!(
        sts_calls(&soon.server).await,
        2,
        "credentials expiring within 5 min are not cached"
    );
    assert!(entry_files(&soon.state_dir()).is_empty());
}

#[tokio::test]
async fn refresh_bypasses_the_cache_and_rewrites_it() {
    let fx = Fixture::new().await;
    let inputs = fx.base();
    assert_miss(&fx.check(&inputs).await);
    let before = read_entry(&fx.entry_file())["fetched_at_unix_ms"]
        .as_u64()
        .expect("ms");

    let refreshed = fx.refresh(&inputs).await;

    assert_miss(&refreshed);
    assert_eq!(sts_calls(&fx.server).await, 2);
    let after = read_entry(&fx.entry_file())["fetched_at_unix_ms"]
        .as_u64()
        .expect("ms");
    assert!(after >= before);
    assert_hit(&fx.check(&inputs).await);
    assert_eq!(sts_calls(&fx.server).await, 2);
}

#[tokio::test]
async fn a_hung_sts_fails_within_the_configured_bound() {
    let fx = Fixture::new().await;
    fx.server.reset().await;
    sts()
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(IDENTITY_XML, "text/xml")
                .set_delay(Duration::from_secs(3600)),
        )
        .mount(&fx.server)
        .await;
    let inputs = fx.base();
    let mut options = fast_options();
    options.service.request_timeout = Duration::from_millis(200);
    options.operation_timeout = Duration::from_millis(800);
    let cloud = AwsCloud::new(options);

    let start = Instant::now();
    let result = cloud.check(&fx.ctx(&inputs, false)).await;
    let elapsed = start.elapsed();

    assert!(matches!(result, Err(CloudError::Timeout(_))), "{result:?}");
    assert!(
        elapsed >= Duration::from_millis(200),
        "at least one attempt ran: {elapsed:?}"
    );
    assert!(
        elapsed < Duration::from_millis(800 + 700),
        "bounded by the operation timeout: {elapsed:?}"
    );
    assert!(entry_files(&fx.state_dir()).is_empty());
}

#[tokio::test]
async fn state_files_are_private_and_never_hold_secrets() {
    let fx = Fixture::new().await;
    let mut inputs = fx.base();
    assert_miss(&fx.check(&inputs).await);
    inputs
        .env
        .insert("AWS_SESSION_TOKEN".into(), format!("{CANARY}-token"));
    assert_miss(&fx.check(&inputs).await);
    let (process, _) = process_inputs(&fx, Duration::from_secs(3600));
    assert_miss(&fx.check(&process).await);

    let mut seen = 0;
    let mut stack = vec![fx.state_dir()];
    while let Some(dir) = stack.pop() {
        assert_eq!(
            fs::metadata(&dir).expect("stat").mode() & 0o777,
            0o700,
            "{}",
            dir.display()
        );
        for dirent in fs::read_dir(&dir).expect("ls") {
            let path = dirent.expect("dirent").path();
            let meta = fs::symlink_metadata(&path).expect("stat");
            if meta.is_dir() {
                stack.push(path);
                continue;
            }
            seen += 1;
            assert_eq!(meta.mode() & 0o777, 0o600, "{}", path.display());
            let bytes = fs::read(&path).expect("read");
            let name = path.to_string_lossy().into_owned();
            for secret in [CANARY, KEY_ID, "AKIDPROCESS"] {
                assert!(!name.contains(secret), "{name}");
                assert!(
                    !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                    "{secret} found in {name}"
                );
            }
        }
    }
    // cache.key + 3 entries + 3 lock files.
    assert_eq!(seen, 7);
}

#[tokio::test]
async fn missing_credentials_are_a_config_error_without_network() {
    let fx = Fixture::new().await;
    let cloud = AwsCloud::new(fast_options());
    let mut inputs = fx.base();
    inputs.env.remove("AWS_ACCESS_KEY_ID");
    inputs.env.remove("AWS_SECRET_ACCESS_KEY");
    inputs.credentials = None;

    let ctx = fx.ctx(&inputs, false);
    let Credentials::Missing(hint) = cloud.credentials(&ctx) else {
        panic!("credentials must be missing")
    };
    assert!(hint.contains("aws configure"), "{hint}");
    match cloud.check(&ctx).await {
        Err(CloudError::Config(message)) => assert!(
            message.starts_with("AWS credentials are not set."),
            "{message}"
        ),
        other => panic!("expected a config error, got {other:?}"),
    }

    inputs.env.insert("AWS_PROFILE".into(), "ghost".into());
    let Credentials::Missing(hint) = cloud.credentials(&fx.ctx(&inputs, false)) else {
        panic!("missing")
    };
    assert!(hint.contains("\"ghost\""), "{hint}");
    assert_eq!(sts_calls(&fx.server).await, 0);
}

#[tokio::test]
async fn credentials_are_detected_like_sky_check() {
    let fx = Fixture::new().await;
    let cloud = AwsCloud::new(fast_options());
    let bare = || {
        let mut i = fx.base();
        i.env.clear();
        i.config = None;
        i.credentials = None;
        i
    };
    let elsewhere = fx.home.path().join("elsewhere-credentials");
    fs::write(
        &elsewhere,
        "[default]\naws_access_key_id = AKID\naws_secret_access_key = S\n",
    )
    .expect("write");
    let with = |f: &dyn Fn(&mut Inputs)| {
        let mut i = bare();
        f(&mut i);
        i
    };
    let cases: Vec<(&str, Inputs, Option<&str>)> = vec![
        ("nothing", bare(), None),
        (
            "env keys",
            with(&|i| {
                i.env.insert("AWS_ACCESS_KEY_ID".into(), "AKID".into());
                i.env.insert("AWS_SECRET_ACCESS_KEY".into(), "S".into());
            }),
            Some("environment"),
        ),
        (
            "key id alone",
            with(&|i| drop(i.env.insert("AWS_ACCESS_KEY_ID".into(), "AKID".into()))),
            None,
        ),
        (
            "credentials file",
            with(&|i| {
                i.credentials =
                    Some("[default]\naws_access_key_id = AKID\naws_secret_access_key = S\n".into())
            }),
            Some("credentials"),
        ),
        (
            "config region only",
            with(&|i| i.config = Some("[default]\nregion = us-west-2\n".into())),
            None,
        ),
        (
            "AWS_PROFILE with role",
            with(&|i| {
                i.env.insert("AWS_PROFILE".into(), "dev".into());
                i.config = Some(
                    "[profile dev]\nrole_arn = arn:aws:iam::1:role/r\nsource_profile = x\n".into(),
                );
            }),
            Some("profile dev"),
        ),
        (
            "sso profile",
            with(&|i| {
                i.config = Some(
                    "[default]\nsso_session = corp\n[sso-session corp]\nsso_region = us-east-1\n"
                        .into(),
                )
            }),
            Some("profile default"),
        ),
        (
            "AWS_SHARED_CREDENTIALS_FILE",
            with(&|i| {
                drop(i.env.insert(
                    "AWS_SHARED_CREDENTIALS_FILE".into(),
                    elsewhere.display().to_string(),
                ))
            }),
            Some("elsewhere-credentials"),
        ),
        (
            "web identity",
            with(&|i| {
                i.env.insert(
                    "AWS_WEB_IDENTITY_TOKEN_FILE".into(),
                    "/var/run/token".into(),
                );
                i.env
                    .insert("AWS_ROLE_ARN".into(), "arn:aws:iam::1:role/r".into());
            }),
            Some("web identity"),
        ),
        (
            "container",
            with(&|i| {
                drop(i.env.insert(
                    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI".into(),
                    "/v2/creds".into(),
                ))
            }),
            Some("container"),
        ),
        (
            "imds endpoint",
            with(&|i| {
                drop(i.env.insert(
                    "AWS_EC2_METADATA_SERVICE_ENDPOINT".into(),
                    "http://169.254.169.254".into(),
                ))
            }),
            Some("instance metadata"),
        ),
    ];

    for (name, inputs, expected) in cases {
        let found = cloud.credentials(&fx.ctx(&inputs, false));
        match (expected, &found) {
            (None, Credentials::Missing(_)) => {}
            (Some(text), Credentials::Present(source)) => {
                assert!(source.contains(text), "{name}: {source}")
            }
            _ => panic!("{name}: expected {expected:?}, got {found:?}"),
        }
    }
}

#[tokio::test]
async fn profile_credentials_come_from_the_injected_home() {
    let fx = Fixture::new().await;
    let mut inputs = fx.base();
    inputs.env.remove("AWS_ACCESS_KEY_ID");
    inputs.env.remove("AWS_SECRET_ACCESS_KEY");
    inputs.credentials = Some(format!(
        "[default]\naws_access_key_id = AKIDFROMFILE\naws_secret_access_key = {CANARY}\n"
    ));

    assert_miss(&fx.check(&inputs).await);

    let requests = fx.server.received_requests().await.unwrap_or_default();
    let auth = requests[0]
        .headers
        .get("authorization")
        .map(|v| v.to_str().unwrap_or_default().to_string());
    assert!(
        auth.unwrap_or_default()
            .contains("Credential=AKIDFROMFILE/")
    );
}

#[test]
fn az_mapping_hash_is_the_md5_prefix_of_the_user_id() {
    assert_eq!(az_mapping_hash(""), "d41d8cd9");
    assert_eq!(az_mapping_hash("AIDAEXAMPLEUSERID"), "fbffe8df");
}

/// Env flags that turn [`concurrent_fetcher_child`] from a no-op into a worker.
const CHILD_STATE: &str = "SKY_IT_AWS_CHILD_STATE";
const CHILD_HOME: &str = "SKY_IT_AWS_CHILD_HOME";
const CHILD_ENDPOINT: &str = "SKY_IT_AWS_CHILD_ENDPOINT";
const CHILD_REFRESH: &str = "SKY_IT_AWS_CHILD_REFRESH";
/// Optional: a folder where the child drops a file when it first reads the cache.
const CHILD_SIGNAL_DIR: &str = "SKY_IT_AWS_CHILD_SIGNAL_DIR";

fn spawn_children(
    fx: &Fixture,
    count: usize,
    refresh: bool,
    signal_dir: Option<&Path>,
) -> Vec<std::process::Child> {
    (0..count)
        .map(|_| {
            let mut cmd = Command::new(std::env::current_exe().expect("test binary"));
            cmd.args([
                "aws_identity::concurrent_fetcher_child",
                "--exact",
                "--nocapture",
                "--test-threads=1",
                "-q",
            ])
            .env(CHILD_STATE, fx.state_dir())
            .env(CHILD_HOME, fx.home.path())
            .env(CHILD_ENDPOINT, fx.server.uri())
            .env(CHILD_REFRESH, if refresh { "1" } else { "0" })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
            if let Some(dir) = signal_dir {
                cmd.env(CHILD_SIGNAL_DIR, dir);
            }
            cmd.spawn().expect("spawn child")
        })
        .collect()
}

/// Waits for the children and returns each one's reported cache outcome.
async fn wait_children(children: Vec<std::process::Child>) -> Vec<String> {
    tokio::task::spawn_blocking(move || {
        children
            .into_iter()
            .map(|child| {
                let out = child.wait_with_output().expect("wait child");
                let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
                assert!(
                    out.status.success(),
                    "child failed: {stdout}\n{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                stdout
                    .lines()
                    .find_map(|l| l.strip_prefix("OUTCOME ").map(str::to_string))
                    .expect("child reports its outcome")
            })
            .collect()
    })
    .await
    .expect("join")
}

async fn run_children(fx: &Fixture, count: usize, refresh: bool) -> Vec<String> {
    wait_children(spawn_children(fx, count, refresh, None)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixteen_processes_queued_on_the_lock_recheck_instead_of_refetching() {
    let fx = Fixture::new().await;
    assert_miss(&fx.check(&fx.base()).await);
    let file = fx.entry_file();
    let key = file
        .file_stem()
        .expect("stem")
        .to_string_lossy()
        .into_owned();
    let store = StateDir::open(fx.state_dir())
        .expect("open")
        .store(IDENTITY_CACHE_KIND, IDENTITY_CACHE_SCHEMA)
        .expect("store");
    // An expired entry: every child reads it (which is observable through
    // its clock) and then queues on the lock this test holds.
    store
        .put_until(
            &key,
            &expected_identity(),
            SystemTime::now() - Duration::from_secs(1),
        )
        .expect("expire the entry");
    let held = store
        .try_lock(&key)
        .expect("try_lock")
        .expect("lock is free");
    let signals = tempfile::tempdir().expect("signal dir");

    let mut children = spawn_children(&fx, 16, false, Some(signals.path()));
    let deadline = Instant::now() + Duration::from_secs(60);
    while fs::read_dir(signals.path()).expect("ls").count() < 16 {
        let exited = children
            .iter_mut()
            .any(|c| c.try_wait().ok().flatten().is_some());
        assert!(!exited, "a child exited before reading the cache");
        assert!(
            Instant::now() < deadline,
            "children never reached the cache"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    drop(held);
    let outcomes = wait_children(children).await;

    assert_eq!(
        sts_calls(&fx.server).await,
        2,
        "one fetch for sixteen queued processes: {outcomes:?}"
    );
    assert_eq!(
        outcomes.iter().filter(|o| *o == "miss").count(),
        1,
        "{outcomes:?}"
    );
    assert_eq!(
        outcomes.iter().filter(|o| *o == "hit").count(),
        15,
        "{outcomes:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixteen_processes_on_a_cold_cache_fetch_once() {
    let fx = Fixture::new().await;

    let outcomes = run_children(&fx, 16, false).await;

    assert_eq!(
        sts_calls(&fx.server).await,
        1,
        "the lock lets one process fetch: {outcomes:?}"
    );
    assert_eq!(
        outcomes.iter().filter(|o| *o == "miss").count(),
        1,
        "{outcomes:?}"
    );
    assert_eq!(
        outcomes.iter().filter(|o| *o == "hit").count(),
        15,
        "{outcomes:?}"
    );
    let entry = read_entry(&fx.entry_file());
    assert_eq!(
        serde_json::from_value::<AwsIdentity>(entry["value"].clone()).expect("identity"),
        expected_identity()
    );
    // The children ran under umask 000.
    assert_eq!(
        fs::metadata(fx.entry_file()).expect("stat").mode() & 0o777,
        0o600
    );
    assert_eq!(
        fs::metadata(fx.state_dir()).expect("stat").mode() & 0o777,
        0o700
    );

    // Sixteen concurrent rewrites while every process keeps reading.
    let outcomes = run_children(&fx, 16, true).await;

    assert!(outcomes.iter().all(|o| o == "miss"), "{outcomes:?}");
    assert_eq!(sts_calls(&fx.server).await, 17);
    let entry = read_entry(&fx.entry_file());
    assert_eq!(entry["schema"], IDENTITY_CACHE_SCHEMA);
}

/// Runs only when re-invoked by [`sixteen_processes_on_a_cold_cache_fetch_once`]:
/// reads every entry before and after its own check and fails on any damaged read.
#[test]
fn concurrent_fetcher_child() {
    let Some(state) = std::env::var_os(CHILD_STATE) else {
        return;
    };
    rustix::process::umask(rustix::fs::Mode::empty());
    let var = |name: &str| std::env::var(name).expect("child env");
    let env: EnvMap = BTreeMap::from([
        ("AWS_ACCESS_KEY_ID".to_string(), KEY_ID.to_string()),
        ("AWS_SECRET_ACCESS_KEY".to_string(), CANARY.to_string()),
        ("AWS_REGION".to_string(), "us-east-1".to_string()),
        ("AWS_ENDPOINT_URL_STS".to_string(), var(CHILD_ENDPOINT)),
    ]);
    let ctx = CheckContext {
        env,
        home: PathBuf::from(var(CHILD_HOME)),
        state_dir: PathBuf::from(&state),
        refresh: var(CHILD_REFRESH) == "1",
        cloud_timeout: Duration::from_secs(30),
        kubernetes_allowed_contexts: None,
        reservation_clouds: Vec::new(),
        gcp_project_id: None,
        sky_config: Default::default(),
    };
    let mut options = fast_options();
    options.service.lock_wait = Duration::from_secs(60);
    if let Some(dir) = std::env::var_os(CHILD_SIGNAL_DIR) {
        // The store reads the clock only once it has parsed an entry: the
        // first call means "this process has looked at the cache".
        let signal = PathBuf::from(dir).join(format!("read-{}", std::process::id()));
        let signalled = std::sync::atomic::AtomicBool::new(false);
        options.service.clock = Clock::from_fn(move || {
            if !signalled.swap(true, std::sync::atomic::Ordering::SeqCst) {
                let _ = fs::write(&signal, b"");
            }
            SystemTime::now()
        });
    }
    let cloud = AwsCloud::new(options);
    let read_all = || {
        let Ok(dir) = StateDir::open(&state) else {
            return;
        };
        let store = dir
            .store(IDENTITY_CACHE_KIND, IDENTITY_CACHE_SCHEMA)
            .expect("store");
        for key in store.keys().expect("keys") {
            match store.get::<AwsIdentity>(&key) {
                Lookup::Hit { value, .. } => assert_eq!(value, expected_identity()),
                // Only the seeded entry of the lock test may be expired;
                // anything else means a torn or corrupt read.
                Lookup::Miss(MissReason::Expired | MissReason::Absent) => {}
                Lookup::Miss(reason) => panic!("read a damaged entry: {reason}"),
            }
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");

    for _ in 0..50 {
        read_all();
    }
    let outcome = runtime.block_on(cloud.check(&ctx)).expect("check succeeds");
    for _ in 0..50 {
        read_all();
    }

    let label = match outcome.cache {
        CacheUse::Hit { .. } => "hit",
        CacheUse::Miss => "miss",
        CacheUse::None => "none",
    };
    println!("OUTCOME {label}");
}
