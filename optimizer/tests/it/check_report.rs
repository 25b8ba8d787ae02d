//! `sky check` as 0.14.1 lays it out (`sky/check.py`), end to end: the real
//! pipeline (`optimizer::launch::check`, one concurrent fan-out) against
//! mocked clouds at zero latency, rendered by `planner::render::check`.
//! One snapshot per layout: the per-cloud lines and the summary, `-v`
//! (activated account, cached answer), several workspaces (summaries only),
//! `--workspace` (details and the disabled-clouds note), `-o json`
//! (0.14.1's document); then the storage capability: S3 `ListBuckets`
//! (enabled, denied, failures that are not a verdict), GCP's storage
//! permissions and API, and the storage-only providers.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use mocks::{Fault, GcpMock, HuggingFaceMock, S3Mock, StsMock};
use optimizer::launch::{ENABLED_CLOUDS_FILE, LaunchError, LaunchOptions, check};
use planner::check::CheckReport;
use planner::cloud::{CloudId, StorageOnly};
use planner::render::check::{CheckView, json, report};
use planner::text::strip_ansi;

/// A secret no output may carry.
const CANARY_SECRET: &str = "canarySECRETdoNotLeak0123456789abcdefABCD";

/// Options for a `sky check` in a fresh home with AWS answered by `sts`
/// (identity) and `s3` (storage) and a Lambda API key on disk; `clouds` as
/// named on the command line.
fn options(home: &Path, sts: &StsMock, s3: &S3Mock, clouds: Option<&[CloudId]>) -> LaunchOptions {
    let mut env: BTreeMap<String, String> = sts
        .aws_env()
        .into_iter()
        .chain(s3.aws_env())
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    env.insert("AWS_SECRET_ACCESS_KEY".into(), CANARY_SECRET.into());
    env.insert("HOME".into(), home.display().to_string());
    env.insert("SKY_BUNDLED_CATALOGS".into(), "1".into());
    std::fs::create_dir_all(home.join(".lambda_cloud")).unwrap();
    std::fs::write(
        home.join(".lambda_cloud/lambda_keys"),
        "api_key = lambdaKEY0123456789\n",
    )
    .unwrap();
    let mut opts = LaunchOptions::from_env(env, home.to_path_buf()).unwrap();
    opts.declared_clouds = clouds.map(<[CloudId]>::to_vec);
    opts.cloud_timeout = Duration::from_millis(1500);
    opts.fanout.global_deadline = Duration::from_secs(3);
    opts.aws.detect_ec2 = false;
    opts
}

fn text(lines: &[String]) -> String {
    let out = strip_ansi(&lines.join("\n"));
    assert!(!out.contains(CANARY_SECRET), "{out}");
    out
}

const SOME: &[CloudId] = &[CloudId::Aws, CloudId::Lambda, CloudId::Azure];

#[tokio::test]
async fn per_cloud_lines_and_the_enabled_infra_summary() {
    let sts = StsMock::builder().start().await.unwrap();
    let s3 = S3Mock::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let r = check(&options(home.path(), &sts, &s3, Some(SOME)))
        .await
        .unwrap();
    // One resolution and STS call serves both of AWS's checks.
    sts.get_caller_identity().assert_count(1);
    s3.list_buckets().assert_count(1);
    let lines = report(&r, &CheckView::default());
    // The status line is colored and reset as click.style leaves it.
    assert!(
        lines
            .iter()
            .any(|l| l == "\x1b[2m  Azure: disabled \x1b[0m\x1b[0m"),
        "{lines:?}"
    );
    insta::assert_snapshot!("check-default", text(&lines));
}

#[tokio::test]
async fn verbose_shows_the_activated_account_and_a_cached_answer() {
    let sts = StsMock::builder().start().await.unwrap();
    let s3 = S3Mock::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let opts = options(home.path(), &sts, &s3, Some(SOME));
    check(&opts).await.unwrap();
    // The second check answers AWS from the identity cache.
    let r = check(&opts).await.unwrap();
    let out = text(&report(&r, &CheckView { verbose: true }));
    assert!(
        out.contains("    Activated account: AIDAEXAMPLEUSERID [account=123456789012]"),
        "{out}"
    );
    assert!(!out.contains("AKIA"), "an identity, never a key id: {out}");
    // The age is whole seconds; a slow machine may make it 1s.
    let out = out.replace("cache, 1s old", "cache, 0s old");
    insta::assert_snapshot!("check-verbose", out);
    let plain = text(&report(&r, &CheckView::default()));
    assert!(!plain.contains("Activated account"), "{plain}");
}

const WORKSPACES: &str = "workspaces:\n  team-a:\n    aws:\n      disabled: true\n  team-b: {}\n";

#[tokio::test]
async fn several_workspaces_are_summarised_and_one_is_shown_in_full() {
    let sts = StsMock::builder().start().await.unwrap();
    let s3 = S3Mock::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".sky")).unwrap();
    std::fs::write(home.path().join(".sky/config.yaml"), WORKSPACES).unwrap();
    let mut opts = options(home.path(), &sts, &s3, None);
    // Every cloud is checked; only AWS and Lambda have credentials here.
    let all = check(&opts).await.unwrap();
    let out = text(&report(&all, &CheckView::default()));
    insta::assert_snapshot!("check-workspaces", out);
    // `-o json`: every workspace, `default` first, then the config's order
    // (0.14.1: a Python set's); AWS absent where it is disabled.
    insta::assert_snapshot!("check-workspaces-json", json(&all));
    opts.workspace = Some("team-a".into());
    opts.declared_clouds = Some(SOME.to_vec());
    let one = check(&opts).await.unwrap();
    insta::assert_snapshot!(
        "check-workspace-team-a",
        text(&report(&one, &CheckView::default()))
    );
    // An undefined workspace: 0.14.1's `ValueError` after the header,
    // nothing checked.
    opts.workspace = Some("team-c".into());
    let r = check(&opts).await.unwrap();
    assert_eq!(
        r.invalid.as_deref(),
        Some(
            "Workspace 'team-c' not found in SkyPilot configuration. Available workspaces: default, team-a, team-b"
        )
    );
    assert!(r.fanout.reports.is_empty() && r.fanout.storage.is_empty());
    assert_eq!(
        text(&report(&r, &CheckView::default())),
        "Checking credentials to enable infra for SkyPilot (Workspaces: default, team-a, team-b)."
    );
}

/// `-o json` is 0.14.1's document: workspace → cloud → its enabled
/// capabilities, as `json.dumps(indent=2)` writes it; the clouds named on
/// the command line in the order named; a disabled cloud absent; `-v`
/// changes nothing.
#[tokio::test]
async fn json_output_is_skypilots_document() {
    let sts = StsMock::builder().start().await.unwrap();
    let s3 = S3Mock::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let r = check(&options(home.path(), &sts, &s3, Some(SOME)))
        .await
        .unwrap();
    let doc = json(&r);
    assert_eq!(
        doc,
        "{\n  \"default\": {\n    \"AWS\": [\n      \"compute\",\n      \"storage\"\n    ],\n    \"Lambda\": [\n      \"compute\"\n    ]\n  }\n}"
    );
    assert!(!doc.contains("AIDA"), "no identity: {doc}");
    insta::assert_snapshot!("check-json", doc);
}

/// One cloud's line and the lines indented below it.
fn cloud_block(out: &str, cloud: &str) -> String {
    let mut block = Vec::new();
    for line in out.lines() {
        if block.is_empty() {
            if line.starts_with(&format!("  {cloud}: ")) {
                block.push(line);
            }
        } else if line.starts_with("    ") {
            block.push(line);
        } else {
            break;
        }
    }
    block.join("\n") + "\n"
}

/// The text of the cloud lines only (up to the summary).
fn lines_of(r: &CheckReport) -> String {
    let out = text(&report(r, &CheckView::default()));
    out.split("\n\n🎉").next().unwrap_or_default().to_string()
}

#[tokio::test]
async fn a_denied_list_buckets_disables_storage_with_skypilots_message() {
    let sts = StsMock::start().await.unwrap();
    let s3 = S3Mock::builder()
        .fault(Fault::Forbidden)
        .start()
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let r = check(&options(home.path(), &sts, &s3, Some(&[CloudId::Aws])))
        .await
        .unwrap();
    s3.list_buckets().assert_count(1);
    let out = text(&report(&r, &CheckView::default()));
    // A verdict: no "not a verdict" note; compute stays enabled.
    assert!(!out.contains("not a verdict"), "{out}");
    assert_eq!(r.enabled(), vec![CloudId::Aws]);
    insta::assert_snapshot!("check-storage-denied", out);
    // Keys that S3 does not know are refused the same way, code and message
    // from S3's answer.
    let s3 = S3Mock::builder()
        .fault(Fault::Unauthorized)
        .start()
        .await
        .unwrap();
    let r = check(&options(home.path(), &sts, &s3, Some(&[CloudId::Aws])))
        .await
        .unwrap();
    assert!(
        lines_of(&r).contains(
            "    Details: [botocore.exceptions.ClientError] An error occurred (InvalidAccessKeyId) when calling the ListBuckets operation: The AWS Access Key Id you provided does not exist in our records."
        ),
        "{}",
        lines_of(&r)
    );
}

/// A server error or a hang during `ListBuckets` is not a verdict, as for
/// compute (`a_transient_sts_failure_during_check_is_not_a_verdict`): said
/// so, and AWS keeps its (compute) standing for later launches.
#[tokio::test]
async fn storage_failures_that_are_not_a_verdict() {
    let cases = [
        (Fault::Status(503), "An error occurred (SlowDown)"),
        (Fault::Status(500), "An error occurred (InternalError)"),
        (Fault::Hang, "timed out after"),
        (
            Fault::ConnectionReset,
            "Failed to reach AWS S3 at http://127.0.0.1:",
        ),
        // The body cap (`clouds/http.rs`): 100 MB are not read.
        (Fault::HugeBody, "the answer is larger than 1048576 bytes"),
    ];
    for (fault, says) in cases {
        let label = format!("{fault:?}");
        let sts = StsMock::start().await.unwrap();
        let s3 = S3Mock::builder().fault(fault).start().await.unwrap();
        let home = tempfile::tempdir().unwrap();
        let mut opts = options(home.path(), &sts, &s3, None);
        opts.declared_clouds = None;
        opts.cloud_timeout = Duration::from_millis(600);
        let started = std::time::Instant::now();
        let r = check(&opts).await.unwrap();
        // The per-cloud deadline bounds the hang (plus the global slack).
        assert!(started.elapsed() < Duration::from_secs(3), "{label}");
        let aws = cloud_block(&lines_of(&r), "AWS");
        assert!(
            aws.starts_with("  AWS: enabled [compute]\n"),
            "{label}: {aws}"
        );
        assert!(aws.contains("Reason [storage]: "), "{label}: {aws}");
        assert!(aws.contains(says), "{label}: {aws}");
        assert!(
            aws.contains(
                "(not a verdict: the cloud keeps its previous standing for later launches)"
            ),
            "{label}: {aws}"
        );
        let persisted: Vec<String> = serde_json::from_str(
            &std::fs::read_to_string(opts.state_dir.join(ENABLED_CLOUDS_FILE)).unwrap(),
        )
        .unwrap();
        assert!(persisted.contains(&"aws".to_string()), "{label}");
        // `-o json`: storage is not enabled, whatever the reason.
        let doc: serde_json::Value = serde_json::from_str(&json(&r)).unwrap();
        assert_eq!(
            doc["default"]["AWS"],
            serde_json::json!(["compute"]),
            "{label}"
        );
    }
}

/// The S3 endpoint may come from the options instead of the environment
/// (and beats it).
#[tokio::test]
async fn the_s3_endpoint_can_be_given_in_the_options() {
    let sts = StsMock::start().await.unwrap();
    let s3 = S3Mock::start().await.unwrap();
    let elsewhere = S3Mock::builder()
        .fault(Fault::Forbidden)
        .start()
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut opts = options(home.path(), &sts, &elsewhere, Some(&[CloudId::Aws]));
    opts.aws.s3_endpoint_url = Some(s3.uri());
    let r = check(&opts).await.unwrap();
    s3.list_buckets().assert_count(1);
    elsewhere.list_buckets().assert_count(0);
    assert!(
        lines_of(&r).ends_with("  AWS: enabled [compute, storage]"),
        "{}",
        lines_of(&r)
    );
}

/// Storage is checked by `sky check` only: a launch never lists buckets.
#[tokio::test]
async fn launches_never_list_buckets() {
    use optimizer::launch::{Request, run};
    let sts = StsMock::start().await.unwrap();
    let s3 = S3Mock::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let opts = options(home.path(), &sts, &s3, Some(&[CloudId::Aws]));
    let request = Request {
        entrypoint: Vec::new(),
        overrides: planner::task::Overrides {
            gpus: Some("V100".into()),
            ..Default::default()
        },
    };
    run(&opts, &request).await.unwrap();
    s3.list_buckets().assert_count(0);
    check(&opts).await.unwrap();
    s3.list_buckets().assert_count(1);
}

/// `capabilities: [compute]` in the config: storage is neither checked nor
/// shown (`check._get_workspace_cloud_capabilities`).
#[tokio::test]
async fn capabilities_in_the_config_restrict_what_is_checked() {
    let sts = StsMock::start().await.unwrap();
    let s3 = S3Mock::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".sky")).unwrap();
    std::fs::write(
        home.path().join(".sky/config.yaml"),
        "aws:\n  capabilities: [compute]\n",
    )
    .unwrap();
    let mut opts = options(home.path(), &sts, &s3, Some(&[CloudId::Aws]));
    let r = check(&opts).await.unwrap();
    s3.list_buckets().assert_count(0);
    assert!(
        lines_of(&r).ends_with("  AWS: enabled [compute]"),
        "{}",
        lines_of(&r)
    );
    // A value the schema refuses is a configuration error naming the key.
    std::fs::write(
        home.path().join(".sky/config.yaml"),
        "aws:\n  capabilities: [gpu]\n",
    )
    .unwrap();
    opts.declared_clouds = None;
    match check(&opts).await {
        Err(LaunchError::Usage(m)) => assert!(m.contains("aws.capabilities"), "{m}"),
        other => panic!("{other:?}"),
    }
}

/// A GCP home: an `authorized_user` ADC file whose token URI is `gcp`, the
/// project in the config, gcloud's active account.
fn gcp_home(home: &Path, gcp: &GcpMock) -> LaunchOptions {
    let gcloud = home.join(".config/gcloud");
    std::fs::create_dir_all(gcloud.join("configurations")).unwrap();
    std::fs::write(
        gcloud.join("application_default_credentials.json"),
        gcp.authorized_user_json(CANARY_SECRET),
    )
    .unwrap();
    std::fs::write(
        gcloud.join("configurations/config_default"),
        "[core]\naccount = me@example.com\nproject = mock-project\n",
    )
    .unwrap();
    let mut env: BTreeMap<String, String> = gcp
        .gcloud_env()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    env.insert("HOME".into(), home.display().to_string());
    env.insert("SKY_BUNDLED_CATALOGS".into(), "1".into());
    let mut opts = LaunchOptions::from_env(env, home.to_path_buf()).unwrap();
    opts.declared_clouds = Some(vec![CloudId::Gcp]);
    opts.set_cloud_timeout(Duration::from_millis(1500));
    opts
}

#[tokio::test]
async fn gcp_storage_needs_its_permissions_and_the_cloud_storage_api() {
    // Everything granted, the API enabled.
    let gcp = GcpMock::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let r = check(&gcp_home(home.path(), &gcp)).await.unwrap();
    gcp.test_iam_permissions().assert_count(1);
    gcp.services().assert_count(1);
    assert_eq!(
        lines_of(&r),
        "Checking credentials to enable infra for SkyPilot.\n  GCP: enabled [compute, storage]"
    );

    let gcp = GcpMock::builder()
        .granted_permissions(vec![
            "storage.buckets.create".into(),
            "serviceusage.services.list".into(),
        ])
        .start()
        .await
        .unwrap();
    let r = check(&gcp_home(home.path(), &gcp)).await.unwrap();
    gcp.services().assert_count(0);
    let missing = lines_of(&r);

    let gcp = GcpMock::builder()
        .disabled_services(vec!["storage.googleapis.com".into()])
        .start()
        .await
        .unwrap();
    let r = check(&gcp_home(home.path(), &gcp)).await.unwrap();
    let disabled = lines_of(&r);
    insta::assert_snapshot!(
        "check-gcp-storage-denied",
        format!("{missing}\n---\n{}", disabled.replace(&gcp.uri(), "<mock>"))
    );
    assert!(!missing.contains(CANARY_SECRET) && !disabled.contains("ya29."));
}

#[tokio::test]
async fn gcp_storage_failures() {
    // (fault on the permission test, what the storage reason says, transient)
    let cases = [
        (
            Fault::Forbidden,
            "Failed to test the storage permissions of the current GCP identity (me@example.com [project_id=mock-project]): HTTP 403: PERMISSION_DENIED",
            false,
        ),
        (Fault::Status(503), "HTTP 503: UNAVAILABLE", true),
        (Fault::Hang, "timed out after", true),
    ];
    for (fault, says, transient) in cases {
        let label = format!("{fault:?}");
        let mut options = mocks::GcpOptions::default();
        options.test_iam_permissions.fault = fault;
        let gcp = options.start().await.unwrap();
        let home = tempfile::tempdir().unwrap();
        let mut opts = gcp_home(home.path(), &gcp);
        opts.set_cloud_timeout(Duration::from_millis(600));
        let r = check(&opts).await.unwrap();
        let out = lines_of(&r);
        assert!(
            out.contains("  GCP: enabled [compute]\n    Reason [storage]: "),
            "{label}: {out}"
        );
        assert!(out.contains(says), "{label}: {out}");
        assert_eq!(out.contains("not a verdict"), transient, "{label}: {out}");
    }
    // Refused credentials: the token grant fails, a verdict.
    let gcp = GcpMock::builder()
        .fault(Fault::ExpiredToken)
        .start()
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let r = check(&gcp_home(home.path(), &gcp)).await.unwrap();
    let out = lines_of(&r);
    assert!(
        out.contains("Reason [storage]: credentials rejected: the GCP credentials"),
        "{out}"
    );
    assert!(out.contains("invalid_grant"), "{out}");
    assert!(!out.contains(CANARY_SECRET), "{out}");
}

/// A home with Cloudflare R2 set up, CoreWeave half set up, VAST Data not
/// at all, and a Hugging Face token the (mocked) Hub knows.
fn storage_only_home(home: &Path, hub: &HuggingFaceMock) -> LaunchOptions {
    let write = |rel: &str, text: &str| {
        let path = home.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        ".cloudflare/r2.credentials",
        &format!("[r2]\naws_access_key_id = r2KEY\naws_secret_access_key = {CANARY_SECRET}\n"),
    );
    write(".cloudflare/accountid", "0123456789abcdef\n");
    write(
        ".coreweave/cw.credentials",
        "[cw]\naws_access_key_id = cwKEY\n",
    );
    write(".cache/huggingface/token", &format!("{}\n", hub.token()));
    let mut env: BTreeMap<String, String> = hub
        .env()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    env.insert("HOME".into(), home.display().to_string());
    env.insert("SKY_BUNDLED_CATALOGS".into(), "1".into());
    let mut opts = LaunchOptions::from_env(env, home.to_path_buf()).unwrap();
    opts.declared_clouds = Some(Vec::new());
    opts.declared_storage_only = StorageOnly::ALL.to_vec();
    opts.set_cloud_timeout(Duration::from_millis(1500));
    opts
}

#[tokio::test]
async fn storage_only_providers_are_listed_and_summarised() {
    let hub = HuggingFaceMock::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let opts = storage_only_home(home.path(), &hub);
    let r = check(&opts).await.unwrap();
    hub.whoami().assert_count(1);
    let out = text(&report(&r, &CheckView::default()));
    assert!(!out.contains(hub.token()), "{out}");
    insta::assert_snapshot!("check-storage-only", out);
    insta::assert_snapshot!("check-storage-only-json", json(&r));
    // Storage-only providers are never enabled for launches.
    assert!(r.enabled().is_empty());
    let persisted = std::fs::read_to_string(opts.state_dir.join(ENABLED_CLOUDS_FILE));
    assert!(persisted.is_err(), "named clouds persist nothing");
}

#[tokio::test]
async fn hugging_face_failures() {
    let home = tempfile::tempdir().unwrap();
    // A token the Hub refuses (from the environment: the message says so).
    let hub = HuggingFaceMock::start().await.unwrap();
    let mut opts = storage_only_home(home.path(), &hub);
    opts.declared_storage_only = vec![StorageOnly::HuggingFace];
    opts.env
        .insert("HF_TOKEN".into(), "hf_refusedTOKEN0123456789".into());
    let r = check(&opts).await.unwrap();
    let out = lines_of(&r);
    assert_eq!(
        out,
        "Checking credentials to enable infra for SkyPilot.\n  HuggingFace: disabled \n    Reason [storage]: Failed to validate Hugging Face credentials. If your token is expired, run `hf auth login` to refresh it.\n    For more info: https://docs.skypilot.co/en/latest/getting-started/installation.html#huggingface-installation\n    Details: Invalid user token. The token from HF_TOKEN environment variable is invalid. Note that HF_TOKEN takes precedence over `hf auth login`."
    );
    assert!(!out.contains("hf_refusedTOKEN"), "{out}");
    // An empty user: SkyPilot's "appear invalid".
    let hub = HuggingFaceMock::builder().name("").start().await.unwrap();
    let mut opts = storage_only_home(home.path(), &hub);
    opts.declared_storage_only = vec![StorageOnly::HuggingFace];
    let out = lines_of(&check(&opts).await.unwrap());
    assert!(
        out.ends_with(
            "Reason [storage]: Hugging Face credentials appear invalid (empty whoami response)."
        ),
        "{out}"
    );
    // Server errors, throttling and hangs are not a verdict.
    for (fault, says) in [
        (
            Fault::Status(503),
            "503 Server Error: Service Unavailable for url: http://127.0.0.1:",
        ),
        (
            Fault::Status(429),
            "You've hit the rate limit for the /whoami-v2 endpoint",
        ),
        (Fault::Hang, "timed out after"),
    ] {
        let label = format!("{fault:?}");
        let hub = HuggingFaceMock::builder()
            .fault(fault)
            .start()
            .await
            .unwrap();
        let mut opts = storage_only_home(home.path(), &hub);
        opts.declared_storage_only = vec![StorageOnly::HuggingFace];
        opts.set_cloud_timeout(Duration::from_millis(600));
        let out = lines_of(&check(&opts).await.unwrap());
        assert!(out.contains(says), "{label}: {out}");
        assert!(out.contains("not a verdict"), "{label}: {out}");
    }
}

/// `allowed_clouds` may name storage-only providers; those it leaves out,
/// and those a workspace disables, are in the note.
#[tokio::test]
async fn allowed_clouds_and_workspaces_cover_storage_only_providers() {
    let hub = HuggingFaceMock::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".sky")).unwrap();
    std::fs::write(
        home.path().join(".sky/config.yaml"),
        "allowed_clouds: [lambda, cloudflare, coreweave]\n\
         workspaces:\n  team:\n    coreweave:\n      disabled: true\n",
    )
    .unwrap();
    let mut opts = storage_only_home(home.path(), &hub);
    opts.declared_clouds = None;
    opts.declared_storage_only.clear();
    opts.workspace = Some("team".into());
    let r = check(&opts).await.unwrap();
    // Hugging Face is not allowed: no call.
    hub.whoami().assert_count(0);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    insta::assert_snapshot!(
        "check-storage-only-allowed",
        text(&report(&r, &CheckView::default()))
    );
}

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// The real binary, every storage call made (S3, GCP's two, the Hub), with
/// debug logs and a trace: no secret, token or key id reaches stdout,
/// stderr, the trace or the state folder.
#[test]
fn storage_checks_leak_no_credential() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (sts, s3, gcp, hub) = runtime.block_on(async {
        (
            StsMock::start().await.unwrap(),
            S3Mock::start().await.unwrap(),
            GcpMock::start().await.unwrap(),
            HuggingFaceMock::start().await.unwrap(),
        )
    });
    let home = tempfile::tempdir().unwrap();
    // GCP's ADC (refresh token: the canary), gcloud's account; the Hub's
    // token in its file.
    let opts = gcp_home(home.path(), &gcp);
    std::fs::create_dir_all(home.path().join(".cache/huggingface")).unwrap();
    std::fs::write(home.path().join(".cache/huggingface/token"), hub.token()).unwrap();
    let trace = home.path().join("trace.json");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sky"));
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("NO_COLOR", "1")
        .env("SKY_LOG", "debug")
        .env("SKY_BUNDLED_CATALOGS", "1")
        .envs(opts.env.iter().filter(|(k, _)| k.starts_with("CLOUDSDK_")))
        .envs(sts.aws_env())
        .envs(s3.aws_env())
        .envs(hub.env())
        .env("AWS_SECRET_ACCESS_KEY", CANARY_SECRET);
    let out = cmd
        .args(["check", "aws", "gcp", "huggingface", "--timings", "--trace"])
        .arg(&trace)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    for line in [
        "  AWS: enabled [compute, storage]",
        "  GCP: enabled [compute, storage]",
        "  HuggingFace: enabled [storage]",
    ] {
        assert!(stdout.contains(line), "{line}\n{stdout}\n{stderr}");
    }
    s3.list_buckets().assert_count(1);
    gcp.test_iam_permissions().assert_count(1);
    hub.whoami().assert_count(1);
    let trace_text = std::fs::read_to_string(&trace).unwrap();
    assert!(trace_text.contains("storage_check"), "{trace_text}");
    let mut everything = format!("{stdout}{stderr}{trace_text}");
    let mut files = Vec::new();
    walk(home.path(), &mut files);
    for file in files {
        // The credential files themselves hold the secrets, by design.
        let name = file.display().to_string();
        if name.contains("application_default_credentials") || name.ends_with("huggingface/token") {
            continue;
        }
        everything.push_str(&name);
        everything.push_str(&String::from_utf8_lossy(&std::fs::read(&file).unwrap()));
    }
    for secret in [
        CANARY_SECRET,
        &CANARY_SECRET[..16],
        "AKIDMOCKEXAMPLE",
        hub.token(),
        "ya29.mock-access-token",
        "mock-client-secret",
    ] {
        assert!(!everything.contains(secret), "{secret} leaked");
    }
}
