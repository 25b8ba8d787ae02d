//! wiremock stand-ins for the upstreams the optimizer talks to, with latency
//! models, fault injection and request recording.
//!
//! `mocks` knows HTTP shapes only; it depends on no other workspace crate. Every
//! server listens on `127.0.0.1` on a free port and stops when dropped.
//!
//! # Getting started
//!
//! Each upstream has a server type with a builder (its options struct) and
//! `start().await`:
//!
//! | server | endpoints |
//! |---|---|
//! | [`StsMock`] | `POST /` `Action=GetCallerIdentity` → awsQuery XML |
//! | [`KubeMock`] | `GET /version`, `GET /api/v1/nodes`, `GET /api/v1/pods` |
//! | [`GcpMock`] | `POST /token`, `GET /compute/v1/projects/{p}/aggregated/reservations`, `POST /v1/projects/{p}:testIamPermissions`, `GET /v1/projects/{p}/services/{service}` |
//! | [`OciMock`] | `GET /20160918/tenancies/{t}/regionSubscriptions` (OCI-signed) |
//! | [`NebiusMock`] | gRPC over h2c: `ProjectService/List`, `PlatformService/List`, `CalculatorService/EstimateBatch`, `TokenExchangeService/Exchange` |
//! | [`CatalogServer`] | `GET /catalogs/v8/<file>` → files under a directory (ETag/304, truncation) |
//! | [`Ec2Mock`] | `POST /` `Action=DescribeRegions` / `DescribeAvailabilityZones` → EC2 XML |
//! | [`S3Mock`] | `GET /` (`ListBuckets`, SigV4 for `s3`) → REST XML |
//! | [`HuggingFaceMock`] | `GET /api/whoami-v2` (bearer token) → JSON |
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), mocks::MockError> {
//! use mocks::{Fault, Latency, StsMock};
//!
//! // Arrange
//! let sts = StsMock::builder()
//!     .account("111122223333")
//!     .latency(Latency::fixed_ms(20))
//!     .fault(Fault::FailFirst { n: 1, status: 503 })
//!     .start()
//!     .await?;
//! // Act: run the code under test with `sts.aws_env()` in its environment.
//! // Assert
//! sts.get_caller_identity().check_count(0)?;
//! # Ok(()) }
//! ```
//!
//! Pointing clients at the mocks: [`aws_sts_env`] / [`StsMock::aws_env`] give
//! the `AWS_ENDPOINT_URL_STS`, fake keys and region for the AWS SDK;
//! [`write_kubeconfig`] writes a kubeconfig whose contexts use static tokens;
//! [`GcpMock::gcloud_env`] and [`GcpMock::authorized_user_json`] give the
//! compute endpoint override and an ADC file whose `token_uri` is the mock.
//!
//! # Latency
//!
//! [`Latency`] is per endpoint: `Zero`, `Fixed`, `Uniform`, `LogNormal`. Random
//! models draw from a ChaCha8 stream seeded per endpoint
//! ([`EndpointOptions::seed`], else derived from the endpoint name), so the N-th
//! request of a run gets the same delay every run. Delays are served by
//! wiremock's own runtime thread and never come early.
//!
//! # Faults
//!
//! [`Fault`] is per endpoint: error statuses with upstream-shaped error bodies,
//! `Unauthorized`, `Forbidden`, `ExpiredToken`, `Hang` (a 1 h delay),
//! `ConnectionReset` (TCP RST from a small gate in front of wiremock),
//! `MalformedBody` (truncated XML/JSON at 200), `FailFirst { n, status }`, and
//! the streaming faults `Trickle`, `EndlessBody`, `Garbage` and `HugeBody`
//! (100 MB), served by the same raw gate as the reset.
//!
//! # Recording
//!
//! Every endpoint has a [`Recorder`]: arrival time (relative to the server, or
//! [`MockSet`], start), path, assigned delay and status of each request.
//! [`Recorder::check_count`] returns an error on a mismatch;
//! [`Recorder::assert_count`] panics (tests). [`EndpointOptions::expect`] mounts
//! the endpoint with wiremock's `.expect(n)` instead.
//!
//! # Scenario files
//!
//! [`MocksSpec`] (serde) describes a whole set; [`MockSet::start`] starts it
//! and [`MockSet::recordings`] reports per endpoint. Latency and fault shapes:
//!
//! ```toml
//! latency = { kind = "lognormal", median_ms = 50, sigma = 0.3 }
//! fault = { kind = "fail_first", n = 2, status = 503 }
//! ```
//!
//! # Fixtures
//!
//! Canned bodies live in `fixtures/{sts,kube,gcp,s3,huggingface}` and are embedded with
//! `include_str!`; [`fixtures_dir`] locates the directory for tests.

mod catalog;
mod ec2;
mod endpoint;
mod error;
mod fault;
mod fixtures;
mod flavor;
mod fleet;
mod gate;
mod gcp;
mod huggingface;
mod kube;
mod kubeconfig;
mod latency;
mod nebius;
mod oci;
mod record;
mod s3;
mod served;
mod set;
mod sts;

pub use catalog::{CatalogOptions, CatalogServer, GZIP_BOMB_INFLATED, Misbehave, etag_of};
pub use ec2::{Ec2Mock, Ec2Options};
pub use endpoint::EndpointOptions;
pub use error::MockError;
pub use fault::{Fault, HANG_DELAY, HUGE_BODY_BYTES, MAX_STREAM_TIME, TRICKLE_INTERVAL};
pub use fixtures::fixtures_dir;
pub use gcp::{GcpMock, GcpOptions, Reservation, reservations_aggregated};
pub use huggingface::{HuggingFaceMock, HuggingFaceOptions};
pub use kube::{GpuLabel, GpuSpec, KubeMock, KubeOptions, NodePool, node_list, pod_list};
pub use kubeconfig::{kubeconfig_yaml, write_kubeconfig};
pub use latency::{Latency, LatencySampler, MAX_LATENCY};
pub use nebius::{
    ESTIMATE_PATH, NebiusMock, NebiusOptions, NebiusPlatform, NebiusPreset, NebiusProject,
    PLATFORMS_PATH, PROJECTS_PATH, TOKENS_PATH,
};
pub use oci::{OciMock, OciOptions, region_subscriptions};
pub use record::{Recorder, Recording, RequestRecord};
pub use s3::{S3Mock, S3Options};
pub use set::{KubeContext, KubeOverride, KubeSpec, MockSet, MocksSpec};
pub use sts::{StsMock, StsOptions, aws_sts_env};

/// wiremock itself, for mounting extra mocks on a server's [`MockServer`](wiremock::MockServer).
pub use wiremock;
