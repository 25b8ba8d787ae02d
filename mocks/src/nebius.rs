//! Nebius: the gRPC calls of SkyPilot 0.14.1's personal pricing
//! (`nebius_catalog._fetch_user_catalog`) and the SDK's token exchange, over
//! h2c (wiremock's server speaks HTTP/2 with prior knowledge).
//!
//! Unary answers are trailers-only in spirit: `grpc-status` travels in the
//! response headers (wiremock cannot send trailers), which gRPC clients
//! accept. Messages are encoded by hand with the field numbers of the
//! published `nebius/api` protos.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use wiremock::{MockServer, ResponseTemplate};

use crate::endpoint::{EndpointState, OkFn, exact};
use crate::flavor::Flavor;
use crate::served::{Route, Served};
use crate::{EndpointOptions, Fault, Latency, MockError, Recorder, Recording};

/// `ProjectService/List`.
pub const PROJECTS_PATH: &str = "/nebius.iam.v1.ProjectService/List";
/// `PlatformService/List`.
pub const PLATFORMS_PATH: &str = "/nebius.compute.v1.PlatformService/List";
/// `CalculatorService/EstimateBatch`.
pub const ESTIMATE_PATH: &str = "/nebius.billing.v1.CalculatorService/EstimateBatch";
/// `TokenExchangeService/Exchange`.
pub const TOKENS_PATH: &str = "/nebius.iam.v1.TokenExchangeService/Exchange";

/// One project of the tenant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NebiusProject {
    /// `metadata.id` (`project-e00…`).
    pub id: String,
    /// `status.region` (`eu-north1`).
    pub region: String,
}

/// One preset of a platform, with its prices.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NebiusPreset {
    /// Preset name (`1gpu-16vcpu-200gb`).
    pub name: String,
    /// `resources.vcpu_count`.
    pub vcpus: u32,
    /// `resources.memory_gibibytes`.
    pub memory_gib: u32,
    /// `resources.gpu_count`. Default 0.
    #[serde(default)]
    pub gpus: u32,
    /// Hourly on-demand cost (decimal text); `None`: the estimate is refused
    /// with `INVALID_ARGUMENT`.
    pub price: Option<String>,
    /// Hourly preemptible cost; `None`: refused.
    #[serde(default)]
    pub spot_price: Option<String>,
}

/// One platform of a project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NebiusPlatform {
    /// `metadata.name` (`gpu-h100-sxm`, `cpu-d3`).
    pub name: String,
    /// `spec.gpu_memory_gigabytes`. Default 0.
    #[serde(default)]
    pub gpu_memory_gb: u32,
    /// `spec.presets`.
    pub presets: Vec<NebiusPreset>,
}

/// Options of a [`NebiusMock`]; also its builder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NebiusOptions {
    /// `ProjectService/List`.
    pub projects: EndpointOptions,
    /// `PlatformService/List`.
    pub platforms: EndpointOptions,
    /// `CalculatorService/EstimateBatch`.
    pub estimates: EndpointOptions,
    /// `TokenExchangeService/Exchange`.
    pub tokens: EndpointOptions,
    /// The bearer token every service call must carry (the token exchange
    /// hands it out). Default `nebius-mock-access-token`.
    pub access_token: String,
    /// The tenant's projects. Default one in `eu-north1`.
    pub project_list: Vec<NebiusProject>,
    /// Platforms per project id. Default: an H100 platform in the default project.
    pub platform_list: BTreeMap<String, Vec<NebiusPlatform>>,
}

impl Default for NebiusOptions {
    fn default() -> Self {
        let project = "project-e00mock".to_string();
        NebiusOptions {
            projects: EndpointOptions::default(),
            platforms: EndpointOptions::default(),
            estimates: EndpointOptions::default(),
            tokens: EndpointOptions::default(),
            access_token: "nebius-mock-access-token".into(),
            project_list: vec![NebiusProject {
                id: project.clone(),
                region: "eu-north1".into(),
            }],
            platform_list: BTreeMap::from([(
                project,
                vec![NebiusPlatform {
                    name: "gpu-h100-sxm".into(),
                    gpu_memory_gb: 80,
                    presets: vec![NebiusPreset {
                        name: "1gpu-16vcpu-200gb".into(),
                        vcpus: 16,
                        memory_gib: 200,
                        gpus: 1,
                        price: Some("2.1000".into()),
                        spot_price: Some("1.0500".into()),
                    }],
                }],
            )]),
        }
    }
}

impl NebiusOptions {
    /// Sets the latency of every endpoint.
    pub fn latency(mut self, latency: Latency) -> Self {
        for e in [
            &mut self.projects,
            &mut self.platforms,
            &mut self.estimates,
            &mut self.tokens,
        ] {
            e.latency = latency;
        }
        self
    }

    /// Sets the fault of every endpoint.
    pub fn fault(mut self, fault: Fault) -> Self {
        for e in [
            &mut self.projects,
            &mut self.platforms,
            &mut self.estimates,
            &mut self.tokens,
        ] {
            e.fault = fault;
        }
        self
    }

    /// Sets the bearer token expected (and handed out).
    pub fn access_token(mut self, token: &str) -> Self {
        self.access_token = token.into();
        self
    }

    /// Starts the mock.
    pub async fn start(self) -> Result<NebiusMock, MockError> {
        NebiusMock::start_with(self, Instant::now(), 0, "nebius").await
    }
}

/// A minimal protobuf writer (varints and length-delimited fields).
#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    fn bytes(&mut self, field: u32, v: &[u8]) -> &mut Self {
        self.varint((u64::from(field) << 3) | 2);
        self.varint(v.len() as u64);
        self.0.extend_from_slice(v);
        self
    }

    fn string(&mut self, field: u32, v: &str) -> &mut Self {
        if !v.is_empty() {
            self.bytes(field, v.as_bytes());
        }
        self
    }

    fn int(&mut self, field: u32, v: u64) -> &mut Self {
        if v != 0 {
            self.varint(u64::from(field) << 3);
            self.varint(v);
        }
        self
    }

    fn finish(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.0)
    }
}

/// The length-delimited fields of a message (others skipped); `None` if malformed.
fn fields(mut buf: &[u8]) -> Option<Vec<(u32, &[u8])>> {
    fn varint(buf: &mut &[u8]) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let (&b, rest) = buf.split_first()?;
            *buf = rest;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }
    let mut out = Vec::new();
    while !buf.is_empty() {
        let key = varint(&mut buf)?;
        match key & 7 {
            0 => {
                varint(&mut buf)?;
            }
            1 => buf = buf.get(8..)?,
            5 => buf = buf.get(4..)?,
            2 => {
                let len = usize::try_from(varint(&mut buf)?).ok()?;
                let (v, rest) = (buf.get(..len)?, buf.get(len..)?);
                out.push(((key >> 3) as u32, v));
                buf = rest;
            }
            _ => return None,
        }
    }
    Some(out)
}

fn field(msg: &[u8], n: u32) -> Option<&[u8]> {
    fields(msg)?
        .into_iter()
        .rev()
        .find(|(f, _)| *f == n)
        .map(|(_, v)| v)
}

fn text(msg: &[u8], n: u32) -> String {
    field(msg, n)
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .unwrap_or_default()
}

/// The message of a framed gRPC request body.
fn unframe(body: &[u8]) -> Option<&[u8]> {
    let len = u32::from_be_bytes(body.get(1..5)?.try_into().ok()?) as usize;
    body.get(5..5 + len)
}

/// A successful unary answer.
fn grpc_ok(message: &[u8]) -> (u16, ResponseTemplate) {
    let mut framed = vec![0u8];
    framed.extend_from_slice(&(message.len() as u32).to_be_bytes());
    framed.extend_from_slice(message);
    (
        200,
        ResponseTemplate::new(200)
            .insert_header("grpc-status", "0")
            .set_body_raw(framed, "application/grpc"),
    )
}

/// A unary answer with a non-OK status (HTTP 200, status in the headers).
fn grpc_error(code: u32, message: &str) -> (u16, ResponseTemplate) {
    (
        200,
        ResponseTemplate::new(200)
            .insert_header("content-type", "application/grpc")
            .insert_header("grpc-status", code.to_string().as_str())
            .insert_header("grpc-message", message.replace(' ', "%20").as_str()),
    )
}

fn bearer_ok(request: &wiremock::Request, token: &str) -> bool {
    request
        .headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.strip_prefix("Bearer ") == Some(token))
}

/// `ListProjectsResponse`.
fn projects_message(list: &[NebiusProject]) -> Vec<u8> {
    let mut w = Writer::default();
    for p in list {
        let metadata = Writer::default().string(1, &p.id).finish();
        let status = Writer::default().string(4, &p.region).finish();
        let container = Writer::default()
            .bytes(1, &metadata)
            .bytes(3, &status)
            .finish();
        w.bytes(1, &container);
    }
    w.finish()
}

/// `ListPlatformsResponse`.
fn platforms_message(list: &[NebiusPlatform]) -> Vec<u8> {
    let mut w = Writer::default();
    for p in list {
        let metadata = Writer::default().string(3, &p.name).finish();
        let mut spec = Writer::default();
        for s in &p.presets {
            let resources = Writer::default()
                .int(1, s.vcpus.into())
                .int(3, s.memory_gib.into())
                .int(4, s.gpus.into())
                .finish();
            let preset = Writer::default()
                .string(1, &s.name)
                .bytes(2, &resources)
                .finish();
            spec.bytes(1, &preset);
        }
        spec.int(12, p.gpu_memory_gb.into());
        let platform = Writer::default()
            .bytes(1, &metadata)
            .bytes(2, &spec.finish())
            .finish();
        w.bytes(1, &platform);
    }
    w.finish()
}

/// `EstimateBatchResponse` with one hourly general total cost.
fn estimate_message(cost: &str) -> Vec<u8> {
    let unit = Writer::default().string(1, "hour").finish();
    let total = Writer::default().string(2, cost).finish();
    let general = Writer::default().bytes(1, &total).finish();
    let total_cost = Writer::default()
        .bytes(1, &unit)
        .bytes(20, &general)
        .finish();
    Writer::default().bytes(10, &total_cost).finish()
}

/// `(project, platform, preset, preemptible)` of an `EstimateBatchRequest`.
fn estimate_key(message: &[u8]) -> Option<(String, String, String, bool)> {
    let spec = field(message, 1)?;
    let any = field(spec, 1)?;
    let create = field(any, 2)?;
    let project = text(field(create, 1)?, 2);
    let instance = field(create, 2)?;
    let resources = field(instance, 2)?;
    Some((
        project,
        text(resources, 1),
        text(resources, 2),
        field(instance, 19).is_some(),
    ))
}

/// Nebius' services on 127.0.0.1 (one base URL, h2c).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), mocks::MockError> {
/// use mocks::NebiusMock;
///
/// let nebius = NebiusMock::builder().access_token("t0ken").start().await?;
/// assert_eq!(nebius.api_env()[0].0, "SKY_NEBIUS_API_ENDPOINT");
/// # Ok(()) }
/// ```
pub struct NebiusMock {
    served: Served,
    projects: Recorder,
    platforms: Recorder,
    estimates: Recorder,
    tokens: Recorder,
}

impl NebiusMock {
    /// Default options, to be adjusted and then `.start()`ed.
    pub fn builder() -> NebiusOptions {
        NebiusOptions::default()
    }

    pub(crate) async fn start_with(
        opts: NebiusOptions,
        origin: Instant,
        base_seed: u64,
        name: &str,
    ) -> Result<NebiusMock, MockError> {
        let state = |endpoint: &str, o: &EndpointOptions| {
            EndpointState::new(
                &format!("{name}/{endpoint}"),
                o,
                base_seed,
                origin,
                Flavor::Grpc,
            )
        };
        let projects = state("projects", &opts.projects)?;
        let platforms = state("platforms", &opts.platforms)?;
        let estimates = state("estimates", &opts.estimates)?;
        let tokens = state("tokens", &opts.tokens)?;
        let token = Arc::new(opts.access_token.clone());
        let unauthenticated = || grpc_error(16, "Unauthenticated: invalid bearer token");

        let projects_ok: OkFn = {
            let (token, body) = (token.clone(), projects_message(&opts.project_list));
            Arc::new(move |r: &wiremock::Request| {
                if !bearer_ok(r, &token) {
                    return unauthenticated();
                }
                grpc_ok(&body)
            })
        };
        let platforms_ok: OkFn = {
            let (token, list) = (token.clone(), opts.platform_list.clone());
            Arc::new(move |r: &wiremock::Request| {
                if !bearer_ok(r, &token) {
                    return unauthenticated();
                }
                let Some(message) = unframe(&r.body) else {
                    return grpc_error(13, "malformed request frame");
                };
                // `ListPlatformsRequest.parent_id` is field 3.
                let project = text(message, 3);
                grpc_ok(&platforms_message(
                    list.get(&project).map(Vec::as_slice).unwrap_or_default(),
                ))
            })
        };
        let estimates_ok: OkFn = {
            let (token, list) = (token.clone(), opts.platform_list.clone());
            Arc::new(move |r: &wiremock::Request| {
                if !bearer_ok(r, &token) {
                    return unauthenticated();
                }
                let Some((project, platform, preset, spot)) =
                    unframe(&r.body).and_then(estimate_key)
                else {
                    return grpc_error(3, "malformed EstimateBatchRequest");
                };
                let price = list
                    .get(&project)
                    .and_then(|ps| ps.iter().find(|p| p.name == platform))
                    .and_then(|p| p.presets.iter().find(|s| s.name == preset))
                    .and_then(|s| {
                        if spot {
                            s.spot_price.clone()
                        } else {
                            s.price.clone()
                        }
                    });
                match price {
                    Some(cost) => grpc_ok(&estimate_message(&cost)),
                    None => grpc_error(3, "unresolved sku"),
                }
            })
        };
        let tokens_ok: OkFn = {
            let token = token.clone();
            Arc::new(move |r: &wiremock::Request| {
                // `ExchangeTokenRequest.subject_token` (field 3) must be a JWT.
                let jwt = unframe(&r.body).map(|m| text(m, 3)).unwrap_or_default();
                if jwt.split('.').count() != 3 {
                    return grpc_error(3, "subject_token is not a JWT");
                }
                let answer = Writer::default()
                    .string(1, &token)
                    .string(2, "urn:ietf:params:oauth:token-type:access_token")
                    .string(3, "Bearer")
                    .int(4, 43_200)
                    .finish();
                grpc_ok(&answer)
            })
        };
        let recorders = [
            projects.recorder.clone(),
            platforms.recorder.clone(),
            estimates.recorder.clone(),
            tokens.recorder.clone(),
        ];
        let route = |path: &'static str, state, ok, expect| Route {
            method: "POST",
            path: exact(path),
            body_contains: None,
            state,
            ok,
            expect,
        };
        let served = Served::start(vec![
            route(PROJECTS_PATH, projects, projects_ok, opts.projects.expect),
            route(
                PLATFORMS_PATH,
                platforms,
                platforms_ok,
                opts.platforms.expect,
            ),
            route(
                ESTIMATE_PATH,
                estimates,
                estimates_ok,
                opts.estimates.expect,
            ),
            route(TOKENS_PATH, tokens, tokens_ok, opts.tokens.expect),
        ])
        .await?;
        let [projects, platforms, estimates, tokens] = recorders;
        Ok(NebiusMock {
            served,
            projects,
            platforms,
            estimates,
            tokens,
        })
    }

    /// Base URL, `http://127.0.0.1:PORT` (h2c).
    pub fn uri(&self) -> String {
        self.served.uri()
    }

    /// `SKY_NEBIUS_API_ENDPOINT` pointing at this mock.
    pub fn api_env(&self) -> Vec<(&'static str, String)> {
        vec![("SKY_NEBIUS_API_ENDPOINT", self.uri())]
    }

    /// The `ProjectService/List` log.
    pub fn projects(&self) -> &Recorder {
        &self.projects
    }

    /// The `PlatformService/List` log.
    pub fn platforms(&self) -> &Recorder {
        &self.platforms
    }

    /// The `CalculatorService/EstimateBatch` log.
    pub fn estimates(&self) -> &Recorder {
        &self.estimates
    }

    /// The `TokenExchangeService/Exchange` log.
    pub fn tokens(&self) -> &Recorder {
        &self.tokens
    }

    /// Snapshots of every endpoint's log.
    pub fn recordings(&self) -> Vec<Recording> {
        [
            &self.projects,
            &self.platforms,
            &self.estimates,
            &self.tokens,
        ]
        .iter()
        .map(|r| r.recording())
        .collect()
    }

    /// The underlying wiremock server.
    pub fn server(&self) -> &MockServer {
        self.served.server()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_through_the_reader() {
        let body = projects_message(&[NebiusProject {
            id: "project-a".into(),
            region: "eu-north1".into(),
        }]);
        let container = field(&body, 1).unwrap();
        assert_eq!(text(field(container, 1).unwrap(), 1), "project-a");
        assert_eq!(text(field(container, 3).unwrap(), 4), "eu-north1");
        let estimate = estimate_message("1.25");
        let tc = field(&estimate, 10).unwrap();
        assert_eq!(text(field(field(tc, 20).unwrap(), 1).unwrap(), 2), "1.25");
        assert!(fields(&[0x0a, 0x05, 1]).is_none());
    }
}
