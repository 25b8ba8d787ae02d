//! GCP: the OAuth token endpoint, the compute reservations list, and what
//! `sky check`'s storage check asks: Cloud Resource Manager
//! `projects.testIamPermissions` and Service Usage `services.get`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use wiremock::MockServer;

use crate::endpoint::{EndpointState, OkFn, PathPred, exact, ok_fixed, ok_raw};
use crate::flavor::Flavor;
use crate::served::{Route, Served};
use crate::{EndpointOptions, Fault, Latency, MockError, Recorder, Recording, fixtures};

/// One specific reservation in the generated list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reservation {
    /// Reservation name.
    pub name: String,
    /// Zone, e.g. `us-central1-a`.
    pub zone: String,
    /// `specificReservation.instanceProperties.machineType`, e.g. `a2-highgpu-1g`.
    pub machine_type: String,
    /// `specificReservation.count`.
    pub count: u64,
    /// `specificReservation.inUseCount`. Default 0.
    #[serde(default)]
    pub in_use_count: u64,
    /// `specificReservationRequired` (targeted reservation). Default false.
    #[serde(default)]
    pub specific_reservation_required: bool,
    /// `status`. Default `READY`.
    #[serde(default = "ready")]
    pub status: String,
}

fn ready() -> String {
    "READY".into()
}

/// Options of a [`GcpMock`]; also its builder.
///
/// The reservations endpoint is the **aggregated** list,
/// `GET /compute/v1/projects/{project}/aggregated/reservations`: that is what
/// `gcloud compute reservations list` (SkyPilot 0.14's reservation lookup, no
/// `--zones`) calls. Any `{project}` is answered; `filter` is ignored, so the
/// client-side filter must do the work (`machineType`, `status=READY`).
/// Counts are strings, as in the REST API. With [`GcpOptions::page_size`] the
/// generated list is paged through `nextPageToken` / `pageToken`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GcpOptions {
    /// `POST /token`: the OAuth 2 token endpoint.
    pub token: EndpointOptions,
    /// `GET /compute/v1/projects/{project}/aggregated/reservations`.
    pub reservations: EndpointOptions,
    /// `POST /v1/projects/{project}:testIamPermissions` (Cloud Resource Manager).
    pub test_iam_permissions: EndpointOptions,
    /// `GET /v1/projects/{project}/services/{service}` (Service Usage).
    pub services: EndpointOptions,
    /// The permissions `testIamPermissions` grants among those asked.
    /// Default: `None`, every one asked.
    pub granted_permissions: Option<Vec<String>>,
    /// Services (`storage.googleapis.com`) whose state is `DISABLED`;
    /// every other one is `ENABLED`. Default none.
    pub disabled_services: Vec<String>,
    /// The access token handed out. Default `ya29.mock-access-token`.
    pub access_token: String,
    /// Its `expires_in`, seconds. Default 3599.
    pub expires_in: u64,
    /// Project used in generated `selfLink`s. Default `mock-project`.
    pub project: String,
    /// Generated reservations. Default none.
    pub reservation_list: Vec<Reservation>,
    /// Serve this aggregated-list JSON file as-is instead.
    pub reservations_file: Option<PathBuf>,
    /// Reservations per page of the generated list (`nextPageToken` is
    /// `page-<n>`; an unknown `pageToken` gets 400). Default: one page.
    pub page_size: Option<usize>,
}

impl Default for GcpOptions {
    fn default() -> Self {
        GcpOptions {
            token: EndpointOptions::default(),
            reservations: EndpointOptions::default(),
            test_iam_permissions: EndpointOptions::default(),
            services: EndpointOptions::default(),
            granted_permissions: None,
            disabled_services: Vec::new(),
            access_token: "ya29.mock-access-token".into(),
            expires_in: 3599,
            project: "mock-project".into(),
            reservation_list: Vec::new(),
            reservations_file: None,
            page_size: None,
        }
    }
}

impl GcpOptions {
    /// Sets the latency of every endpoint.
    pub fn latency(mut self, latency: Latency) -> Self {
        self.token.latency = latency;
        self.reservations.latency = latency;
        self.test_iam_permissions.latency = latency;
        self.services.latency = latency;
        self
    }

    /// Sets the fault of every endpoint.
    pub fn fault(mut self, fault: Fault) -> Self {
        self.token.fault = fault;
        self.reservations.fault = fault;
        self.test_iam_permissions.fault = fault;
        self.services.fault = fault;
        self
    }

    /// Grants only these permissions in `testIamPermissions`.
    pub fn granted_permissions(mut self, permissions: Vec<String>) -> Self {
        self.granted_permissions = Some(permissions);
        self
    }

    /// Reports these services as `DISABLED`.
    pub fn disabled_services(mut self, services: Vec<String>) -> Self {
        self.disabled_services = services;
        self
    }

    /// Replaces the generated reservations.
    pub fn reservation_list(mut self, list: Vec<Reservation>) -> Self {
        self.reservation_list = list;
        self
    }

    /// Pages the generated list, `n` reservations per page.
    pub fn page_size(mut self, n: usize) -> Self {
        self.page_size = Some(n.max(1));
        self
    }

    /// Serves an aggregated-list file as-is.
    pub fn reservations_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.reservations_file = Some(path.into());
        self
    }

    /// Starts the mock.
    pub async fn start(self) -> Result<GcpMock, MockError> {
        GcpMock::start_with(self, Instant::now(), 0, "gcp").await
    }
}

/// Builds a `compute#reservationAggregatedList` for `project`.
pub fn reservations_aggregated(project: &str, list: &[Reservation]) -> Value {
    let mut zones: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for (i, r) in list.iter().enumerate() {
        let zone_url = format!(
            "https://www.googleapis.com/compute/v1/projects/{project}/zones/{}",
            r.zone
        );
        zones
            .entry(format!("zones/{}", r.zone))
            .or_default()
            .push(json!({
                "kind": "compute#reservation",
                "id": (7_000_000_000_000_000_000u64 + i as u64).to_string(),
                "creationTimestamp": "2025-06-01T00:00:00.000-07:00",
                "selfLink": format!("{zone_url}/reservations/{}", r.name),
                "zone": zone_url,
                "name": r.name,
                "specificReservation": {
                    "instanceProperties": { "machineType": r.machine_type },
                    "count": r.count.to_string(),
                    "inUseCount": r.in_use_count.to_string(),
                },
                "specificReservationRequired": r.specific_reservation_required,
                "status": r.status,
            }));
    }
    let items: serde_json::Map<String, Value> = zones
        .into_iter()
        .map(|(zone, reservations)| (zone, json!({ "reservations": reservations })))
        .collect();
    json!({
        "kind": "compute#reservationAggregatedList",
        "id": format!("projects/{project}/aggregated/reservations"),
        "items": items,
        "selfLink": format!("https://www.googleapis.com/compute/v1/projects/{project}/aggregated/reservations"),
    })
}

/// The answer to one `pageToken` (`None` = first page) of a paged generated list.
fn reservations_page(
    project: &str,
    list: &[Reservation],
    page_size: usize,
    page_token: Option<&str>,
) -> Option<Value> {
    let page = match page_token {
        None => 0,
        Some(t) => t.strip_prefix("page-")?.parse::<usize>().ok()?,
    };
    let start = page.checked_mul(page_size)?;
    if start > list.len() || (start == list.len() && page > 0) {
        return None;
    }
    let end = (start + page_size).min(list.len());
    let mut body = reservations_aggregated(project, &list[start..end]);
    if end < list.len() {
        body["nextPageToken"] = Value::String(format!("page-{}", page + 1));
    }
    Some(body)
}

/// `/v1/projects/{project}:testIamPermissions`.
fn test_iam_permissions_path() -> PathPred {
    Arc::new(|p: &str| {
        p.strip_prefix("/v1/projects/")
            .and_then(|rest| rest.strip_suffix(":testIamPermissions"))
            .is_some_and(|project| !project.is_empty() && !project.contains('/'))
    })
}

/// `/v1/projects/{project}/services/{service}`.
fn service_path() -> PathPred {
    Arc::new(|p: &str| {
        p.strip_prefix("/v1/projects/")
            .and_then(|rest| rest.split_once("/services/"))
            .is_some_and(|(project, service)| {
                !project.is_empty() && !service.is_empty() && !service.contains('/')
            })
    })
}

fn aggregated_path() -> PathPred {
    Arc::new(|p: &str| {
        p.strip_prefix("/compute/v1/projects/")
            .and_then(|rest| rest.strip_suffix("/aggregated/reservations"))
            .is_some_and(|project| !project.is_empty() && !project.contains('/'))
    })
}

/// GCP on 127.0.0.1: `POST /token` and the aggregated reservations list.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), mocks::MockError> {
/// use mocks::{GcpMock, Reservation};
///
/// let gcp = GcpMock::builder()
///     .reservation_list(vec![Reservation {
///         name: "r1".into(), zone: "us-central1-a".into(), machine_type: "a2-highgpu-1g".into(),
///         count: 4, in_use_count: 1, specific_reservation_required: false, status: "READY".into(),
///     }])
///     .start()
///     .await?;
/// assert!(gcp.reservations_uri("my-project").ends_with("/compute/v1/projects/my-project/aggregated/reservations"));
/// # Ok(()) }
/// ```
pub struct GcpMock {
    served: Served,
    token: Recorder,
    reservations: Recorder,
    test_iam_permissions: Recorder,
    services: Recorder,
}

impl GcpMock {
    /// Default options, to be adjusted and then `.start()`ed.
    pub fn builder() -> GcpOptions {
        GcpOptions::default()
    }

    /// Starts a mock with default options.
    pub async fn start() -> Result<GcpMock, MockError> {
        GcpOptions::default().start().await
    }

    pub(crate) async fn start_with(
        opts: GcpOptions,
        origin: Instant,
        base_seed: u64,
        name: &str,
    ) -> Result<GcpMock, MockError> {
        let token = EndpointState::new(
            &format!("{name}/token"),
            &opts.token,
            base_seed,
            origin,
            Flavor::OAuth,
        )?;
        let reservations = EndpointState::new(
            &format!("{name}/reservations"),
            &opts.reservations,
            base_seed,
            origin,
            Flavor::GcpApi,
        )?;
        let token_body = json!({
            "access_token": opts.access_token,
            "expires_in": opts.expires_in,
            "scope": "https://www.googleapis.com/auth/cloud-platform",
            "token_type": "Bearer",
        })
        .to_string()
        .into_bytes();
        let reservations_ok: OkFn = match (&opts.reservations_file, opts.page_size) {
            (Some(path), _) => ok_fixed(fixtures::read(path)?, "application/json"),
            (None, None) => ok_fixed(
                reservations_aggregated(&opts.project, &opts.reservation_list)
                    .to_string()
                    .into_bytes(),
                "application/json",
            ),
            (None, Some(size)) => {
                let (project, list) = (opts.project.clone(), opts.reservation_list.clone());
                Arc::new(move |request: &wiremock::Request| {
                    let token = request
                        .url
                        .query_pairs()
                        .find(|(k, _)| k == "pageToken")
                        .map(|(_, v)| v.into_owned());
                    match reservations_page(&project, &list, size, token.as_deref()) {
                        Some(body) => ok_raw(body.to_string(), "application/json"),
                        None => (
                            400,
                            wiremock::ResponseTemplate::new(400).set_body_raw(
                                json!({"error": {"code": 400, "status": "INVALID_ARGUMENT",
                                        "message": "Invalid value for field 'pageToken'"}})
                                .to_string(),
                                "application/json",
                            ),
                        ),
                    }
                })
            }
        };
        let iam = EndpointState::new(
            &format!("{name}/test_iam_permissions"),
            &opts.test_iam_permissions,
            base_seed,
            origin,
            Flavor::GcpApi,
        )?;
        let services = EndpointState::new(
            &format!("{name}/services"),
            &opts.services,
            base_seed,
            origin,
            Flavor::GcpApi,
        )?;
        let granted = opts.granted_permissions.clone();
        let iam_ok: OkFn = Arc::new(move |request: &wiremock::Request| {
            let asked: Vec<String> = serde_json::from_slice::<Value>(&request.body)
                .ok()
                .and_then(|doc| {
                    doc.get("permissions")
                        .and_then(|p| p.as_array())
                        .map(|list| {
                            list.iter()
                                .filter_map(|p| p.as_str().map(str::to_string))
                                .collect()
                        })
                })
                .unwrap_or_default();
            let answer: Vec<String> = asked
                .into_iter()
                .filter(|p| granted.as_ref().is_none_or(|g| g.contains(p)))
                .collect();
            // The API omits an empty list.
            let body = if answer.is_empty() {
                json!({})
            } else {
                json!({ "permissions": answer })
            };
            ok_raw(body.to_string(), "application/json")
        });
        let disabled = opts.disabled_services.clone();
        let services_ok: OkFn = Arc::new(move |request: &wiremock::Request| {
            let path = request.url.path();
            let (project, service) = path
                .strip_prefix("/v1/projects/")
                .and_then(|rest| rest.split_once("/services/"))
                .unwrap_or(("", ""));
            let state = if disabled.iter().any(|d| d == service) {
                "DISABLED"
            } else {
                "ENABLED"
            };
            let body = json!({
                "name": format!("projects/{project}/services/{service}"),
                "config": { "name": service },
                "state": state,
                "parent": format!("projects/{project}"),
            });
            ok_raw(body.to_string(), "application/json")
        });
        let recorders = (
            token.recorder.clone(),
            reservations.recorder.clone(),
            iam.recorder.clone(),
            services.recorder.clone(),
        );
        let served = Served::start(vec![
            Route {
                method: "POST",
                path: exact("/token"),
                body_contains: None,
                state: token,
                ok: ok_fixed(token_body, "application/json"),
                expect: opts.token.expect,
            },
            Route {
                method: "GET",
                path: aggregated_path(),
                body_contains: None,
                state: reservations,
                ok: reservations_ok,
                expect: opts.reservations.expect,
            },
            Route {
                method: "POST",
                path: test_iam_permissions_path(),
                body_contains: None,
                state: iam,
                ok: iam_ok,
                expect: opts.test_iam_permissions.expect,
            },
            Route {
                method: "GET",
                path: service_path(),
                body_contains: None,
                state: services,
                ok: services_ok,
                expect: opts.services.expect,
            },
        ])
        .await?;
        Ok(GcpMock {
            served,
            token: recorders.0,
            reservations: recorders.1,
            test_iam_permissions: recorders.2,
            services: recorders.3,
        })
    }

    /// Base URL, `http://127.0.0.1:PORT`.
    pub fn uri(&self) -> String {
        self.served.uri()
    }

    /// `<uri>/token`.
    pub fn token_uri(&self) -> String {
        format!("{}/token", self.uri())
    }

    /// `<uri>/compute/v1/projects/<project>/aggregated/reservations`.
    pub fn reservations_uri(&self, project: &str) -> String {
        format!(
            "{}/compute/v1/projects/{project}/aggregated/reservations",
            self.uri()
        )
    }

    /// The compute API root as gcloud's `api_endpoint_overrides/compute`
    /// means it: `<uri>/compute/v1/`.
    pub fn compute_endpoint(&self) -> String {
        format!("{}/compute/v1/", self.uri())
    }

    /// gcloud's endpoint overrides pointing at this mock (which the
    /// optimizer honours too): `CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE`
    /// (`<uri>/compute/v1/`), `..._CLOUDRESOURCEMANAGER` and
    /// `..._SERVICEUSAGE` (`<uri>/`, the version is the client's).
    pub fn gcloud_env(&self) -> Vec<(&'static str, String)> {
        let root = format!("{}/", self.uri());
        vec![
            (
                "CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE",
                self.compute_endpoint(),
            ),
            (
                "CLOUDSDK_API_ENDPOINT_OVERRIDES_CLOUDRESOURCEMANAGER",
                root.clone(),
            ),
            ("CLOUDSDK_API_ENDPOINT_OVERRIDES_SERVICEUSAGE", root),
        ]
    }

    /// An `authorized_user` application-default credentials file whose
    /// `token_uri` is this mock's `/token`.
    pub fn authorized_user_json(&self, refresh_token: &str) -> String {
        json!({
            "type": "authorized_user",
            "client_id": "mock-client-id.apps.googleusercontent.com",
            "client_secret": "mock-client-secret",
            "refresh_token": refresh_token,
            "token_uri": self.token_uri(),
        })
        .to_string()
    }

    /// The `/token` request log.
    pub fn token(&self) -> &Recorder {
        &self.token
    }

    /// The reservations request log.
    pub fn reservations(&self) -> &Recorder {
        &self.reservations
    }

    /// The `testIamPermissions` request log.
    pub fn test_iam_permissions(&self) -> &Recorder {
        &self.test_iam_permissions
    }

    /// The `services.get` request log.
    pub fn services(&self) -> &Recorder {
        &self.services
    }

    /// Snapshots of every endpoint's log.
    pub fn recordings(&self) -> Vec<Recording> {
        vec![
            self.token.recording(),
            self.reservations.recording(),
            self.test_iam_permissions.recording(),
            self.services.recording(),
        ]
    }

    /// The underlying wiremock server.
    pub fn server(&self) -> &MockServer {
        self.served.server()
    }
}
