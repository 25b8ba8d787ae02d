//! AWS's storage capability, as `sky/clouds/aws.py::AWS._check_storage_credentials`
//! checks it: the credentials and identity of the compute check
//! (`_check_credentials_exist`, shared with it), then S3 `ListBuckets`
//! (`s3_client.list_buckets()`). A `ClientError` from S3 (403
//! `AccessDenied`, `InvalidAccessKeyId`, ...) disables storage with
//! SkyPilot's message; a server error or timeout is not a verdict.
//!
//! One signed REST call does not justify the S3 SDK crate: it is
//! SigV4-signed with `aws-sigv4` (as `ec2.rs` signs EC2) and sent over the
//! crate's small hyper client. `max-buckets=1` keeps the answer small (S3
//! otherwise lists every bucket; the permission checked is the same,
//! `s3:ListAllMyBuckets`). The endpoint is [`super::AwsOptions::s3_endpoint_url`],
//! else `AWS_ENDPOINT_URL_S3`, else `AWS_ENDPOINT_URL` (as the SDK honours
//! them), else S3's regional endpoint (`s3.amazonaws.com` for us-east-1).

use std::time::{Duration, SystemTime};

use aws_credential_types::Credentials;
use aws_sigv4::http_request::{
    PayloadChecksumKind, PercentEncodingMode, SignableBody, SignableRequest, SigningSettings,
    UriPathNormalizationMode, sign,
};
use aws_sigv4::sign::v4;
use bytes::Bytes;
use http::{Method, Request, header};
use http_body_util::Full;
use planner::check::CloudError;

use super::ec2::elements;
use crate::clouds::EnvMap;
use crate::net::{HttpClient, NetError};

/// Why `ListBuckets` did not succeed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ListBucketsError {
    /// S3 answered with an error: botocore's `ClientError`.
    Client {
        /// HTTP status.
        status: u16,
        /// `<Code>`, else the status code (botocore's fallback).
        code: String,
        /// `<Message>`, else the status text.
        message: String,
    },
    /// No answer: the cause (timeouts included).
    Transport(CloudError),
}

impl ListBucketsError {
    /// botocore's `ClientError` text for this call.
    pub(super) fn client_error_text(code: &str, message: &str) -> String {
        format!("An error occurred ({code}) when calling the ListBuckets operation: {message}")
    }
}

/// The S3 endpoint for `region`, from the options and environment as the
/// SDK resolves it.
pub(super) fn endpoint(explicit: Option<&str>, env: &EnvMap, region: &str) -> String {
    let set = |k: &str| env.get(k).map(|v| v.trim()).filter(|v| !v.is_empty());
    let chosen = explicit
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .or_else(|| set("AWS_ENDPOINT_URL_S3"))
        .or_else(|| set("AWS_ENDPOINT_URL"))
        .map(str::to_string);
    chosen.unwrap_or_else(|| {
        let domain = if region.starts_with("cn-") {
            "amazonaws.com.cn"
        } else {
            "amazonaws.com"
        };
        if region == "us-east-1" {
            format!("https://s3.{domain}")
        } else {
            format!("https://s3.{region}.{domain}")
        }
    })
}

/// A SigV4-signed `GET /?max-buckets=1` at `endpoint`, signed for `region`;
/// `Ok` when S3 lists the buckets.
pub(super) async fn list_buckets(
    endpoint: &str,
    region: &str,
    creds: &Credentials,
    connect_timeout: Duration,
    deadline: Duration,
) -> Result<(), ListBucketsError> {
    let transport = |e: CloudError| ListBucketsError::Transport(e);
    let shown = crate::redact::redact_urls(endpoint).into_owned();
    let url = format!("{}/?max-buckets=1", endpoint.trim_end_matches('/'));
    let invalid = |why: String| {
        transport(CloudError::Config(format!(
            "invalid S3 endpoint {shown:?}: {why}"
        )))
    };
    let http = HttpClient::for_urls([url.as_str()], connect_timeout)
        .map_err(|e| transport(CloudError::Config(e)))?;
    let mut request = Request::builder()
        .method(Method::GET)
        .uri(&url)
        .body(Full::new(Bytes::new()))
        .map_err(|e| invalid(e.to_string()))?;
    let host = request
        .uri()
        .authority()
        .map(|a| a.to_string())
        .ok_or_else(|| invalid("no host".into()))?;
    request.headers_mut().insert(
        header::HOST,
        host.parse().map_err(|_| invalid("bad host".into()))?,
    );
    let identity = creds.clone().into();
    // S3's signing rules: the payload hash as a header, paths not
    // normalised nor double-encoded.
    let mut settings = SigningSettings::default();
    settings.payload_checksum_kind = PayloadChecksumKind::XAmzSha256;
    settings.percent_encoding_mode = PercentEncodingMode::Single;
    settings.uri_path_normalization_mode = UriPathNormalizationMode::Disabled;
    let sign_error = |e: &dyn std::fmt::Display| {
        transport(CloudError::Config(format!(
            "cannot sign the S3 request: {e}"
        )))
    };
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name("s3")
        .time(SystemTime::now())
        .settings(settings)
        .build()
        .map_err(|e| sign_error(&e))?
        .into();
    let headers: Vec<(String, String)> = request
        .headers()
        .iter()
        .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
        .collect();
    let signable = SignableRequest::new(
        "GET",
        url.as_str(),
        headers.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        SignableBody::Bytes(&[]),
    )
    .map_err(|e| sign_error(&e))?;
    let (instructions, _) = sign(signable, &params)
        .map_err(|e| sign_error(&e))?
        .into_parts();
    instructions.apply_to_request_http1x(&mut request);
    let answer = http
        .exchange(
            request,
            deadline,
            crate::clouds::http::MAX_STORAGE_BODY_BYTES,
        )
        .await
        .map_err(|e| match e {
            NetError::Timeout(d) => transport(CloudError::Timeout(d)),
            other => transport(CloudError::Service(format!(
                "Failed to reach AWS S3 at {shown}: {}",
                crate::redact::redact(&other.to_string())
            ))),
        })?;
    if answer.status.is_success() {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&answer.body);
    let first = |tag: &str| {
        elements(&text, tag)
            .into_iter()
            .next()
            .map(|v| one_line(&v))
            .filter(|v| !v.is_empty())
    };
    Err(ListBucketsError::Client {
        status: answer.status.as_u16(),
        code: first("Code").unwrap_or_else(|| answer.status.as_u16().to_string()),
        message: first("Message").unwrap_or_else(|| {
            answer
                .status
                .canonical_reason()
                .unwrap_or("Unknown")
                .to_string()
        }),
    })
}

/// Server text on one bounded line, credentials masked.
fn one_line(text: &str) -> String {
    const MAX: usize = 240;
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = joined.chars().take(MAX).collect();
    if joined.chars().count() > MAX {
        out.push('…');
    }
    crate::redact::redact(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_follow_the_sdk_order() {
        let mut env = EnvMap::new();
        assert_eq!(
            endpoint(None, &env, "us-east-1"),
            "https://s3.amazonaws.com"
        );
        assert_eq!(
            endpoint(None, &env, "eu-west-1"),
            "https://s3.eu-west-1.amazonaws.com"
        );
        assert_eq!(
            endpoint(None, &env, "cn-north-1"),
            "https://s3.cn-north-1.amazonaws.com.cn"
        );
        env.insert("AWS_ENDPOINT_URL".into(), "http://all".into());
        assert_eq!(endpoint(None, &env, "us-east-1"), "http://all");
        env.insert("AWS_ENDPOINT_URL_S3".into(), "http://s3only".into());
        assert_eq!(endpoint(None, &env, "us-east-1"), "http://s3only");
        assert_eq!(
            endpoint(Some("http://explicit"), &env, "us-east-1"),
            "http://explicit"
        );
    }
}
