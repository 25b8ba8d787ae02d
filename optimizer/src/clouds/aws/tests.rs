//! The SDK-free reading of environment credentials must say what the SDK
//! itself resolves, or nothing: the identity cache is keyed by it.

use super::credentials::{SharedFiles, detect, from_environment, resolve};
use super::options::AwsOptions;
use super::sdk::{http_clients, sdk_config};
use crate::clouds::{CheckContext, EnvMap};

fn context(home: &std::path::Path, env: &[(&str, &str)]) -> CheckContext {
    CheckContext {
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<EnvMap>(),
        home: home.to_path_buf(),
        state_dir: home.join(".sky"),
        refresh: false,
        cloud_timeout: std::time::Duration::from_secs(1),
        kubernetes_allowed_contexts: None,
        reservation_clouds: Vec::new(),
        gcp_project_id: None,
        sky_config: Default::default(),
    }
}

const KEYS: [(&str, &str); 3] = [
    ("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE"),
    ("AWS_SECRET_ACCESS_KEY", "secret/EXAMPLE"),
    ("AWS_EC2_METADATA_DISABLED", "true"),
];

#[tokio::test]
async fn environment_credentials_read_without_the_sdk_are_the_sdks() {
    let home = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // (extra variables, whether the SDK-free reading applies)
    let cases: &[(&[(&str, &str)], bool)] = &[
        (&[("AWS_REGION", "eu-west-1")], true),
        (&[("AWS_DEFAULT_REGION", "ap-south-1")], true),
        (
            &[
                ("AWS_REGION", "us-west-2"),
                ("AWS_DEFAULT_REGION", "eu-west-1"),
            ],
            true,
        ),
        (
            &[
                ("AWS_REGION", "us-east-2"),
                ("AWS_SESSION_TOKEN", "  token/EXAMPLE \n"),
                ("AWS_ACCOUNT_ID", " 123456789012 "),
            ],
            true,
        ),
        (
            &[("AWS_REGION", "us-east-2"), ("AWS_SESSION_TOKEN", "   ")],
            true,
        ),
        // Left to the SDK: no region in the environment, or an empty one.
        (&[], false),
        (
            &[("AWS_REGION", ""), ("AWS_DEFAULT_REGION", "eu-west-1")],
            false,
        ),
    ];
    let (http, _) = http_clients();
    for (extra, applies) in cases {
        let env: Vec<(&str, &str)> = KEYS.iter().chain(extra.iter()).copied().collect();
        let ctx = context(home.path(), &env);
        let files = SharedFiles::read(&ctx).unwrap_or_else(|e| panic!("{e}"));
        let source = detect(&ctx, &files, false).unwrap_or_else(|e| panic!("{e}"));
        let ours = from_environment(&ctx, &source);
        assert_eq!(ours.is_some(), *applies, "{extra:?}");
        let Some((creds, region)) = ours else {
            continue;
        };
        let options = AwsOptions::default();
        let sdk = sdk_config(&options, &http, &ctx, &files, &source).await;
        let theirs = resolve(&sdk, options.credentials_timeout)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(creds.access_key_id(), theirs.access_key_id(), "{extra:?}");
        assert_eq!(
            creds.secret_access_key(),
            theirs.secret_access_key(),
            "{extra:?}"
        );
        assert_eq!(creds.session_token(), theirs.session_token(), "{extra:?}");
        assert_eq!(creds.account_id(), theirs.account_id(), "{extra:?}");
        assert_eq!(creds.expiry(), theirs.expiry(), "{extra:?}");
        assert_eq!(
            Some(region.as_str()),
            sdk.region().map(|r| r.as_ref()),
            "{extra:?}"
        );
    }
}

#[test]
fn other_credential_sources_are_left_to_the_sdk() {
    let home = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let aws = home.path().join(".aws");
    std::fs::create_dir_all(&aws).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        aws.join("credentials"),
        "[default]\naws_access_key_id = AKIDFILE\naws_secret_access_key = s\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let ctx = context(home.path(), &[("AWS_REGION", "us-east-1")]);
    let files = SharedFiles::read(&ctx).unwrap_or_else(|e| panic!("{e}"));
    let source = detect(&ctx, &files, false).unwrap_or_else(|e| panic!("{e}"));
    assert!(from_environment(&ctx, &source).is_none());
}

#[test]
fn files_read_for_the_credential_look_up_serve_the_check_that_follows() {
    let home = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let aws = home.path().join(".aws");
    std::fs::create_dir_all(&aws).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(aws.join("config"), "[default]\nregion = eu-west-1\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let other = home.path().join("other-config");
    std::fs::write(&other, "[default]\nregion = us-west-2\n").unwrap_or_else(|e| panic!("{e}"));
    let ctx = context(home.path(), &[]);
    let earlier = SharedFiles::read(&ctx).unwrap_or_else(|e| panic!("{e}"));
    // The file changes after the look-up: the check keeps what the look-up
    // read (the two answer the same question), not a second reading.
    std::fs::write(aws.join("config"), "[default]\nregion = ap-south-1\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let reused = SharedFiles::reuse_or_read(Some(earlier), &ctx).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        reused.config.as_deref(),
        Some("[default]\nregion = eu-west-1\n")
    );
    // Files read for other paths are not reused; nothing earlier: read now.
    let moved = context(home.path(), &[("AWS_CONFIG_FILE", "~/other-config")]);
    let read = SharedFiles::reuse_or_read(Some(reused), &moved).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        read.config.as_deref(),
        Some("[default]\nregion = us-west-2\n")
    );
    let fresh = SharedFiles::reuse_or_read(None, &ctx).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        fresh.config.as_deref(),
        Some("[default]\nregion = ap-south-1\n")
    );
}
