//! `sky check` as 0.14.1 lays it out (`sky/check.py`), end to end: the real
//! pipeline (`optimizer::launch::check`, one concurrent fan-out) against
//! mocked clouds at zero latency, rendered by `planner::render::check`.
//! One snapshot per layout: the per-cloud lines and the summary, `-v`
//! (activated account, cached answer), several workspaces (summaries only),
//! `--workspace` (details and the disabled-clouds note), `-o json`.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use mocks::StsMock;
use optimizer::launch::{LaunchError, LaunchOptions, check};
use planner::cloud::CloudId;
use planner::render::check::{CheckView, json, report};
use planner::render::strip_ansi;

/// A secret no output may carry.
const CANARY_SECRET: &str = "canarySECRETdoNotLeak0123456789abcdefABCD";

/// Options for a `sky check` in a fresh home with AWS answered by `sts`
/// and a Lambda API key on disk; `clouds` as named on the command line.
fn options(home: &Path, sts: &StsMock, clouds: Option<&[CloudId]>) -> LaunchOptions {
    let mut env: BTreeMap<String, String> = sts
        .aws_env()
        .into_iter()
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
    let home = tempfile::tempdir().unwrap();
    let r = check(&options(home.path(), &sts, Some(SOME)))
        .await
        .unwrap();
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
    let home = tempfile::tempdir().unwrap();
    let opts = options(home.path(), &sts, Some(SOME));
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
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".sky")).unwrap();
    std::fs::write(home.path().join(".sky/config.yaml"), WORKSPACES).unwrap();
    let mut opts = options(home.path(), &sts, None);
    // Every cloud is checked; only AWS and Lambda have credentials here.
    let all = check(&opts).await.unwrap();
    let out = text(&report(&all, &CheckView::default()));
    insta::assert_snapshot!("check-workspaces", out);
    opts.workspace = Some("team-a".into());
    opts.declared_clouds = Some(SOME.to_vec());
    let one = check(&opts).await.unwrap();
    insta::assert_snapshot!(
        "check-workspace-team-a",
        text(&report(&one, &CheckView::default()))
    );
    opts.workspace = Some("team-c".into());
    match check(&opts).await {
        Err(LaunchError::Usage(m)) => assert_eq!(
            m,
            "Workspace 'team-c' not found in SkyPilot configuration. Available workspaces: default, team-a, team-b"
        ),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn json_output_follows_the_documented_schema() {
    let sts = StsMock::builder().start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let r = check(&options(home.path(), &sts, Some(SOME)))
        .await
        .unwrap();
    let doc: serde_json::Value =
        serde_json::from_str(&json(&r, &CheckView { verbose: true })).unwrap();
    let ws = &doc["workspaces"][0];
    assert_eq!(ws["workspace"], "default");
    assert_eq!(ws["enabled"], serde_json::json!(["AWS", "Lambda"]));
    let aws = &ws["clouds"][0];
    assert_eq!(aws["cloud"], "AWS");
    assert_eq!(aws["capabilities"], serde_json::json!(["compute"]));
    assert_eq!(aws["identity"], "AIDAEXAMPLEUSERID [account=123456789012]");
    let azure = &ws["clouds"][1];
    assert_eq!(azure["enabled"], false);
    assert_eq!(azure["capabilities"], serde_json::json!([]));
    assert!(azure["reason"].as_str().unwrap().contains("az login"));
    insta::assert_snapshot!("check-json", json(&r, &CheckView { verbose: true }));
}
