//! OCI: the identity API's region subscriptions of a tenancy
//! (`IdentityClient.list_region_subscriptions`, what SkyPilot 0.14.1's
//! `oci_catalog._get_df` calls).

use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::json;
use wiremock::{MockServer, ResponseTemplate};

use crate::endpoint::{EndpointState, OkFn, PathPred, ok_raw};
use crate::flavor::Flavor;
use crate::served::{Route, Served};
use crate::{EndpointOptions, Fault, Latency, MockError, Recorder, Recording};

/// Options of an [`OciMock`]; also its builder.
///
/// The endpoint is `GET /20160918/tenancies/{tenancy}/regionSubscriptions`.
/// A request without an OCI HTTP signature (`Authorization: Signature …`
/// with `keyId`, `signature`, and `date (request-target) host` signed, plus
/// a `date` header) gets 401 `NotAuthenticated`; a tenancy other than
/// [`OciOptions::tenancy`] (when set) gets 404 `NotAuthorizedOrNotFound`,
/// as the real service answers both. The signature itself is not verified.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OciOptions {
    /// `GET /20160918/tenancies/{tenancy}/regionSubscriptions`.
    pub subscriptions: EndpointOptions,
    /// The subscribed region names, in order; the first is the home region.
    /// Default `us-ashburn-1`, `us-chicago-1`.
    pub regions: Vec<String>,
    /// The only tenancy answered. Default: any.
    pub tenancy: Option<String>,
}

impl Default for OciOptions {
    fn default() -> Self {
        OciOptions {
            subscriptions: EndpointOptions::default(),
            regions: vec!["us-ashburn-1".into(), "us-chicago-1".into()],
            tenancy: None,
        }
    }
}

impl OciOptions {
    /// Sets the endpoint's latency.
    pub fn latency(mut self, latency: Latency) -> Self {
        self.subscriptions.latency = latency;
        self
    }

    /// Sets the endpoint's fault.
    pub fn fault(mut self, fault: Fault) -> Self {
        self.subscriptions.fault = fault;
        self
    }

    /// Replaces the subscribed regions.
    pub fn regions(mut self, regions: &[&str]) -> Self {
        self.regions = regions.iter().map(|r| r.to_string()).collect();
        self
    }

    /// Answers only this tenancy.
    pub fn tenancy(mut self, tenancy: &str) -> Self {
        self.tenancy = Some(tenancy.into());
        self
    }

    /// Starts the mock.
    pub async fn start(self) -> Result<OciMock, MockError> {
        OciMock::start_with(self, Instant::now(), 0, "oci").await
    }
}

/// The `ListRegionSubscriptions` body for `regions` (the first is home).
pub fn region_subscriptions(regions: &[String]) -> serde_json::Value {
    let list: Vec<_> = regions
        .iter()
        .enumerate()
        .map(|(i, r)| {
            json!({
                "regionKey": region_key(r),
                "regionName": r,
                "status": "READY",
                "isHomeRegion": i == 0,
            })
        })
        .collect();
    serde_json::Value::Array(list)
}

/// A three-letter key in the style of OCI's (`us-chicago-1` → `USC`); the
/// real keys are airport codes, which no client reads.
fn region_key(region: &str) -> String {
    region
        .split('-')
        .filter_map(|p| p.chars().next())
        .collect::<String>()
        .to_uppercase()
}

fn subscriptions_path() -> PathPred {
    Arc::new(|p: &str| {
        p.strip_prefix("/20160918/tenancies/")
            .and_then(|rest| rest.strip_suffix("/regionSubscriptions"))
            .is_some_and(|t| !t.is_empty() && !t.contains('/'))
    })
}

/// Whether `request` carries an OCI HTTP signature of the right shape.
fn signed(request: &wiremock::Request) -> bool {
    let Some(auth) = request
        .headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    auth.starts_with("Signature ")
        && auth.contains("keyId=\"")
        && auth.contains("signature=\"")
        && auth.contains("headers=\"date (request-target) host\"")
        && request.headers.contains_key("date")
}

/// OCI's identity API on 127.0.0.1.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), mocks::MockError> {
/// use mocks::OciMock;
///
/// let oci = OciMock::builder().regions(&["eu-frankfurt-1"]).start().await?;
/// assert_eq!(oci.identity_env()[0].0, "SKY_OCI_IDENTITY_ENDPOINT");
/// # Ok(()) }
/// ```
pub struct OciMock {
    served: Served,
    subscriptions: Recorder,
}

impl OciMock {
    /// Default options, to be adjusted and then `.start()`ed.
    pub fn builder() -> OciOptions {
        OciOptions::default()
    }

    pub(crate) async fn start_with(
        opts: OciOptions,
        origin: Instant,
        base_seed: u64,
        name: &str,
    ) -> Result<OciMock, MockError> {
        let state = EndpointState::new(
            &format!("{name}/subscriptions"),
            &opts.subscriptions,
            base_seed,
            origin,
            Flavor::Oci,
        )?;
        let body = region_subscriptions(&opts.regions).to_string();
        let tenancy = opts.tenancy.clone();
        let ok: OkFn = Arc::new(move |request: &wiremock::Request| {
            if !signed(request) {
                return error(
                    401,
                    "NotAuthenticated",
                    "The required information to complete authentication was not provided.",
                );
            }
            let asked = request
                .url
                .path()
                .trim_start_matches("/20160918/tenancies/")
                .trim_end_matches("/regionSubscriptions")
                .to_string();
            if tenancy.as_ref().is_some_and(|t| *t != asked) {
                return error(
                    404,
                    "NotAuthorizedOrNotFound",
                    "Authorization failed or requested resource not found.",
                );
            }
            ok_raw(body.clone(), "application/json")
        });
        let recorder = state.recorder.clone();
        let served = Served::start(vec![Route {
            method: "GET",
            path: subscriptions_path(),
            body_contains: None,
            state,
            ok,
            expect: opts.subscriptions.expect,
        }])
        .await?;
        Ok(OciMock {
            served,
            subscriptions: recorder,
        })
    }

    /// Base URL, `http://127.0.0.1:PORT`: the identity endpoint.
    pub fn uri(&self) -> String {
        self.served.uri()
    }

    /// `SKY_OCI_IDENTITY_ENDPOINT` pointing at this mock.
    pub fn identity_env(&self) -> Vec<(&'static str, String)> {
        vec![("SKY_OCI_IDENTITY_ENDPOINT", self.uri())]
    }

    /// The subscriptions request log.
    pub fn subscriptions(&self) -> &Recorder {
        &self.subscriptions
    }

    /// Snapshots of every endpoint's log.
    pub fn recordings(&self) -> Vec<Recording> {
        vec![self.subscriptions.recording()]
    }

    /// The underlying wiremock server.
    pub fn server(&self) -> &MockServer {
        self.served.server()
    }
}

fn error(status: u16, code: &str, message: &str) -> (u16, ResponseTemplate) {
    (
        status,
        ResponseTemplate::new(status).set_body_raw(
            json!({ "code": code, "message": message }).to_string(),
            "application/json",
        ),
    )
}
