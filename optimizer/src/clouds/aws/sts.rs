//! STS `GetCallerIdentity`: signed with the credentials the cache key was
//! made from, bounded by the shorter of the SDK's deadline and the cloud's,
//! and its errors sorted into auth failures (the credentials are refused)
//! and service failures.

use std::time::Duration;

use aws_config::timeout::TimeoutConfig;
use aws_sdk_sts::config::Region;
use aws_sdk_sts::error::{ProvideErrorMetadata, SdkError};
use aws_types::SdkConfig;
use planner::check::{AwsIdentity, CloudError};

use super::options::AwsOptions;
use super::text::{one_line, redact, truncate};

/// STS is global; boto3 signs for us-east-1 when no region is configured.
pub(super) const FALLBACK_REGION: &str = "us-east-1";
/// Slack over the SDK's own operation timeout before the outer guard fires.
pub(super) const OUTER_GUARD_SLACK: Duration = Duration::from_millis(500);

/// Error codes that mean "these credentials are not accepted".
const AUTH_ERROR_CODES: &[&str] = &[
    "ExpiredToken",
    "ExpiredTokenException",
    "InvalidClientTokenId",
    "SignatureDoesNotMatch",
    "AccessDenied",
    "AccessDeniedException",
    "UnrecognizedClientException",
    "InvalidAccessKeyId",
    "AuthFailure",
];

/// The caller identity, from STS.
pub(super) async fn get_caller_identity(
    options: &AwsOptions,
    sdk: &SdkConfig,
    creds: &aws_credential_types::Credentials,
    cloud_timeout: Duration,
) -> Result<AwsIdentity, CloudError> {
    // Sign with the credentials that were fingerprinted, not a second
    // run of the chain (which could return a different session).
    let mut conf = aws_sdk_sts::config::Builder::from(sdk).credentials_provider(creds.clone());
    if sdk.region().is_none() {
        conf = conf.region(Region::from_static(FALLBACK_REGION));
    }
    // The deadline in force is the shorter of the SDK's operation
    // timeout and the per-cloud one, and that is the one a timeout names.
    let bound = options.operation_timeout.min(cloud_timeout);
    let attempt = options.service.request_timeout.min(bound);
    conf = conf.timeout_config(
        TimeoutConfig::builder()
            .connect_timeout(options.service.connect_timeout.min(bound))
            .operation_attempt_timeout(attempt)
            .operation_timeout(bound)
            .build(),
    );
    let client = aws_sdk_sts::Client::from_conf(conf.build());
    // The SDK enforces `bound` itself; this guard only covers a stuck
    // sleep or resolver outside its timeout machinery.
    let call = tokio::time::timeout(
        bound.saturating_add(OUTER_GUARD_SLACK),
        client.get_caller_identity().send(),
    );
    let secrets = [
        creds.secret_access_key(),
        creds.session_token().unwrap_or_default(),
    ];
    let output = match call.await {
        Err(_) => return Err(CloudError::Timeout(bound)),
        Ok(Err(e)) => return Err(classify_sts_error(&e, bound, &secrets)),
        Ok(Ok(output)) => output,
    };
    let field = |v: Option<&str>| v.filter(|s| !s.is_empty()).map(str::to_string);
    match (
        field(output.user_id()),
        field(output.account()),
        field(output.arn()),
    ) {
        (Some(user_id), Some(account), Some(arn)) => Ok(AwsIdentity {
            user_id,
            account,
            arn,
        }),
        _ => Err(CloudError::Service(
            "Failed to get AWS user: STS GetCallerIdentity returned an incomplete identity".into(),
        )),
    }
}

fn classify_sts_error<E: ProvideErrorMetadata>(
    err: &SdkError<E, aws_sdk_sts::config::http::HttpResponse>,
    bound: Duration,
    secrets: &[&str],
) -> CloudError {
    match err {
        SdkError::TimeoutError(_) => return CloudError::Timeout(bound),
        SdkError::DispatchFailure(failure) if failure.is_timeout() => {
            return CloudError::Timeout(bound);
        }
        SdkError::DispatchFailure(failure) => {
            let detail = failure
                .as_connector_error()
                .map(|c| one_line(c, secrets))
                .unwrap_or_default();
            return CloudError::Service(format!("Failed to reach AWS STS: {detail}"));
        }
        _ => {}
    }
    let status = err.raw_response().map(|r| r.status().as_u16());
    let code = err.code().unwrap_or_default();
    let message = redact(err.message().unwrap_or_default(), secrets);
    let what = match (code.is_empty(), status) {
        (false, _) => code.to_string(),
        (true, Some(status)) => format!("HTTP {status}"),
        (true, None) => "unknown error".to_string(),
    };
    let text = if message.is_empty() {
        what
    } else {
        format!("{what}: {message}")
    };
    let text = truncate(&text);
    if matches!(status, Some(401 | 403)) || AUTH_ERROR_CODES.contains(&code) {
        if code.starts_with("ExpiredToken") {
            return CloudError::Auth(format!("AWS access token is expired. {text}"));
        }
        return CloudError::Auth(format!(
            "Failed to access AWS services with credentials. Make sure that the access and secret keys are correct. {text}"
        ));
    }
    CloudError::Service(format!("Failed to get AWS user: {text}"))
}
