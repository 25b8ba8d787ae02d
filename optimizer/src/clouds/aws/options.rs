//! The AWS adapter's knobs.

use std::time::Duration;

use super::ec2::AzMappingFetch;
use crate::clouds::ServiceOptions;

/// Knobs of the AWS adapter. Every field's default is given in its doc.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AwsOptions {
    /// STS endpoint override (tests, VPC endpoints). Beats `AWS_ENDPOINT_URL_STS`,
    /// which beats `AWS_ENDPOINT_URL` (both read from [`CheckContext::env`](crate::clouds::CheckContext::env)).
    /// Default: none.
    pub endpoint_url: Option<String>,
    /// The STS and S3 calls and the identity cache. `request_timeout` is
    /// one HTTP attempt's deadline (default here: 2 s); `retry_backoff` the
    /// SDK's first backoff (jittered, doubling, capped at 4×); `cache_ttl`
    /// how long a fetched identity is reused. Every other knob keeps the
    /// [`ServiceOptions`] default.
    pub service: ServiceOptions,
    /// Deadline for the whole STS call, all attempts and backoff included.
    /// Default: 5 s.
    pub operation_timeout: Duration,
    /// Deadline for resolving credentials (credential_process, IMDS,
    /// container endpoint, web identity). Default: 5 s.
    pub credentials_timeout: Duration,
    /// Treat an EC2 instance (detected from `/sys` DMI data) as having
    /// credentials through the instance role. Default: true.
    pub detect_ec2: bool,
    /// Fetch the account's zone names into SkyPilot's catalog folder when
    /// the identity has no `aws/az_mappings-<hash>.csv` yet (EC2
    /// `DescribeAvailabilityZones`, see [`AzMappingFetch`]). Default: none
    /// (a launch sets it when it uses SkyPilot's folder).
    pub az_mappings: Option<AzMappingFetch>,
    /// S3 endpoint of `sky check`'s storage check (`ListBuckets`; tests,
    /// VPC endpoints). Beats `AWS_ENDPOINT_URL_S3`, which beats
    /// `AWS_ENDPOINT_URL`. Default: none (`https://s3.<region>.amazonaws.com`).
    pub s3_endpoint_url: Option<String>,
}

impl Default for AwsOptions {
    fn default() -> Self {
        AwsOptions {
            endpoint_url: None,
            service: ServiceOptions {
                request_timeout: Duration::from_secs(2),
                ..ServiceOptions::default()
            },
            operation_timeout: Duration::from_secs(5),
            credentials_timeout: Duration::from_secs(5),
            detect_ec2: true,
            az_mappings: None,
            s3_endpoint_url: None,
        }
    }
}
