//! The REST calls (token grant, aggregated reservations list, and the JSON
//! calls of the storage check) over one small hyper client, and the parsing
//! of their answers.
//!
//! Every request is bounded: a connect timeout on the connector and a
//! per-request timeout around sending *and* reading the body. Bodies are
//! capped. Error text is one line, with the credentials' secrets removed.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, StatusCode, header};
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde::Deserialize;

use planner::check::{CloudError, Reservation};

/// Largest answer read (the reservation list of a big project is a few MB).
const MAX_BODY_BYTES: usize = crate::clouds::http::MAX_GCP_BODY_BYTES;
/// Longest server message kept in an error.
const MAX_MESSAGE_CHARS: usize = 240;

type HttpsClient = Client<hyper_rustls::HttpsConnector<HttpConnector>, Full<Bytes>>;

/// Why one HTTP exchange failed.
#[derive(Debug)]
pub enum Failure {
    /// No answer within the request timeout.
    Timeout,
    /// Connecting, TLS, or reading the body failed.
    Transport(String),
    /// The server answered with a non-success status.
    Status {
        /// HTTP status.
        status: StatusCode,
        /// The body (an API error document, usually).
        body: Bytes,
    },
}

impl Failure {
    /// Worth another attempt: transport errors, throttling, server errors.
    /// Timeouts are not retried: the fan-out's deadline would be spent twice.
    pub fn is_transient(&self) -> bool {
        match self {
            Failure::Timeout => false,
            Failure::Transport(_) => true,
            Failure::Status { status, .. } => {
                status.is_server_error() || *status == StatusCode::TOO_MANY_REQUESTS
            }
        }
    }
}

/// A client for the token and compute endpoints.
#[derive(Clone)]
pub struct Http {
    client: HttpsClient,
    request_timeout: Duration,
}

impl Http {
    /// A client; `native_roots` loads the platform's CA roots (skipped for
    /// plain-http endpoints such as local mocks, where TLS is never used and
    /// loading the roots is the most expensive part of construction).
    pub fn new(
        native_roots: bool,
        connect_timeout: Duration,
        request_timeout: Duration,
    ) -> Result<Http, CloudError> {
        let mut tcp = HttpConnector::new();
        tcp.set_connect_timeout(Some(connect_timeout));
        tcp.enforce_http(false);
        // An explicit provider: never the process-level default, which panics
        // when more than one rustls backend is compiled in.
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = hyper_rustls::HttpsConnectorBuilder::new();
        let builder = if native_roots {
            builder
                .with_provider_and_native_roots(provider)
                .map_err(|e| {
                    CloudError::Config(format!("cannot load TLS root certificates: {e}"))
                })?
        } else {
            let config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map_err(|e| CloudError::Config(format!("TLS configuration: {e}")))?
                .with_root_certificates(rustls::RootCertStore::empty())
                .with_no_client_auth();
            builder.with_tls_config(config)
        };
        let connector = builder.https_or_http().enable_http1().wrap_connector(tcp);
        let client = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(30))
            .build(connector);
        Ok(Http {
            client,
            request_timeout,
        })
    }

    /// Sends one request and reads the whole answer, within the request timeout.
    async fn exchange(&self, request: Request<Full<Bytes>>) -> Result<Bytes, Failure> {
        let work = async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| Failure::Transport(crate::clouds::error_chain(&e)))?;
            let status = response.status();
            let body = Limited::new(response.into_body(), MAX_BODY_BYTES)
                .collect()
                .await
                .map_err(|e| Failure::Transport(format!("reading the answer: {e}")))?
                .to_bytes();
            if status.is_success() {
                Ok(body)
            } else {
                Err(Failure::Status { status, body })
            }
        };
        tokio::time::timeout(self.request_timeout, work)
            .await
            .unwrap_or(Err(Failure::Timeout))
    }

    /// POSTs a form to the token endpoint and returns the access token.
    pub async fn token(&self, token_uri: &str, form: String) -> Result<String, Failure> {
        let request = Request::builder()
            .method(Method::POST)
            .uri(token_uri)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(header::ACCEPT, "application/json")
            .body(Full::new(Bytes::from(form)))
            .map_err(|e| Failure::Transport(format!("invalid token URI {token_uri:?}: {e}")))?;
        let body = self.exchange(request).await?;
        #[derive(Deserialize)]
        struct TokenResponse {
            access_token: String,
        }
        serde_json::from_slice::<TokenResponse>(&body)
            .map(|t| t.access_token)
            .map_err(|e| Failure::Transport(format!("malformed token response: {e}")))
    }

    /// An authorized JSON call (`POST` of `body` when given, else `GET`):
    /// the answer's document.
    pub async fn json(
        &self,
        url: &str,
        access_token: &str,
        body: Option<String>,
    ) -> Result<serde_json::Value, Failure> {
        let builder = Request::builder()
            .method(if body.is_some() {
                Method::POST
            } else {
                Method::GET
            })
            .uri(url)
            .header(header::AUTHORIZATION, format!("Bearer {access_token}"))
            .header(header::ACCEPT, "application/json");
        let builder = match body {
            Some(_) => builder.header(header::CONTENT_TYPE, "application/json"),
            None => builder,
        };
        let request = builder
            .body(Full::new(Bytes::from(body.unwrap_or_default())))
            .map_err(|e| Failure::Transport(format!("invalid URL {url:?}: {e}")))?;
        let answer = self.exchange(request).await?;
        serde_json::from_slice(&answer)
            .map_err(|e| Failure::Transport(format!("malformed answer: {e}")))
    }

    /// GETs one page of the aggregated reservations list.
    pub async fn reservations_page(
        &self,
        url: &str,
        access_token: &str,
    ) -> Result<AggregatedList, Failure> {
        let request = Request::builder()
            .method(Method::GET)
            .uri(url)
            .header(header::AUTHORIZATION, format!("Bearer {access_token}"))
            .header(header::ACCEPT, "application/json")
            .body(Full::new(Bytes::new()))
            .map_err(|e| Failure::Transport(format!("invalid compute URL {url:?}: {e}")))?;
        let body = self.exchange(request).await?;
        serde_json::from_slice(&body)
            .map_err(|e| Failure::Transport(format!("malformed reservations list: {e}")))
    }
}

/// The URL of one page: `{api_root}projects/{project}/aggregated/reservations`.
pub fn page_url(api_root: &str, project: &str, page_token: Option<&str>) -> String {
    let mut query = form_urlencoded::Serializer::new(String::new());
    query.append_pair("maxResults", "500");
    if let Some(token) = page_token {
        query.append_pair("pageToken", token);
    }
    let project: String = form_urlencoded::byte_serialize(project.as_bytes()).collect();
    format!(
        "{api_root}projects/{project}/aggregated/reservations?{}",
        query.finish()
    )
}

/// `compute#reservationAggregatedList`, the fields we read.
#[derive(Debug, Deserialize)]
pub struct AggregatedList {
    #[serde(default)]
    items: BTreeMap<String, Scoped>,
    #[serde(rename = "nextPageToken")]
    pub(super) next_page_token: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Scoped {
    #[serde(default)]
    reservations: Vec<RawReservation>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawReservation {
    self_link: Option<String>,
    zone: Option<String>,
    specific_reservation: Option<RawSpecific>,
    #[serde(default)]
    specific_reservation_required: bool,
    status: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawSpecific {
    count: Option<Int64>,
    in_use_count: Option<Int64>,
    instance_properties: Option<RawInstanceProperties>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawInstanceProperties {
    machine_type: Option<String>,
}

/// The REST API sends int64 as a JSON string; accept a number too.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Int64 {
    Text(String),
    Number(i64),
}

impl Int64 {
    fn value(&self) -> Option<i64> {
        match self {
            Int64::Text(s) => s.trim().parse().ok(),
            Int64::Number(n) => Some(*n),
        }
    }
}

impl AggregatedList {
    /// The READY machine-type reservations of this page (what SkyPilot's
    /// `gcloud ... --filter="...machineType=<type> AND status=READY"` keeps,
    /// for every machine type at once).
    pub fn ready_reservations(&self) -> Vec<Reservation> {
        let mut out = Vec::new();
        for raw in self.items.values().flat_map(|s| &s.reservations) {
            if raw.status.as_deref() != Some("READY") {
                continue;
            }
            let (Some(self_link), Some(zone), Some(specific)) =
                (&raw.self_link, &raw.zone, &raw.specific_reservation)
            else {
                continue;
            };
            let Some(machine_type) = specific
                .instance_properties
                .as_ref()
                .and_then(|p| p.machine_type.as_deref())
            else {
                continue;
            };
            out.push(Reservation {
                name: reservation_name(self_link),
                zone: last_segment(zone).to_string(),
                instance_type: last_segment(machine_type).to_string(),
                count: specific.count.as_ref().and_then(Int64::value).unwrap_or(0),
                // The API omits int64 zeros.
                in_use_count: specific
                    .in_use_count
                    .as_ref()
                    .and_then(Int64::value)
                    .unwrap_or(0),
                specific_reservation_required: raw.specific_reservation_required,
            });
        }
        out
    }
}

fn last_segment(s: &str) -> &str {
    s.rsplit('/').next().unwrap_or(s)
}

/// SkyPilot's `GCPReservation.name`: `'/'.join(parts[-6:-4] + parts[-2:])`
/// of the selfLink, i.e. `projects/<p>/reservations/<r>`.
pub fn reservation_name(self_link: &str) -> String {
    let parts: Vec<&str> = self_link.split('/').collect();
    let n = parts.len();
    // Python slices clamp instead of failing; so do these.
    let slice = |from_end: usize, to_end: usize| {
        let start = n.saturating_sub(from_end);
        let end = n.saturating_sub(to_end);
        parts[start..end.max(start)].to_vec()
    };
    let mut name = slice(6, 4);
    name.extend(slice(2, 0));
    name.join("/")
}

/// The message of a Google API or OAuth error body, else its first line.
pub fn error_message(body: &[u8]) -> String {
    if let Ok(doc) = serde_json::from_slice::<serde_json::Value>(body)
        && let Some(e) = doc.get("error")
    {
        if let Some(message) = e.get("message").and_then(|m| m.as_str()) {
            let status = e.get("status").and_then(|s| s.as_str()).unwrap_or("");
            return format!("{status} {message}").trim().to_string();
        }
        if let Some(code) = e.as_str() {
            let description = doc
                .get("error_description")
                .and_then(|d| d.as_str())
                .unwrap_or("");
            return format!("{code}: {description}")
                .trim_end_matches([':', ' '])
                .to_string();
        }
    }
    String::from_utf8_lossy(body)
        .lines()
        .next()
        .unwrap_or("")
        .to_string()
}

/// One line, secrets replaced, bounded length.
pub fn sanitize(text: &str, secrets: &[&str]) -> String {
    let mut out = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for secret in secrets.iter().filter(|s| s.len() >= 4) {
        out = out.replace(secret, "***");
    }
    if out.chars().count() > MAX_MESSAGE_CHARS {
        out = out.chars().take(MAX_MESSAGE_CHARS).collect::<String>() + "…";
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_skypilot_slicing() {
        assert_eq!(
            reservation_name(
                "https://www.googleapis.com/compute/v1/projects/p1/zones/us-central1-a/reservations/r1"
            ),
            "projects/p1/reservations/r1"
        );
        assert_eq!(reservation_name("a/b"), "a/b");
    }

    #[test]
    fn the_fixture_list_parses_to_its_ready_reservations() {
        let body = include_bytes!("../../../../fixtures/gcp/reservations.json");
        let list: AggregatedList = serde_json::from_slice(body).unwrap();
        let got = list.ready_reservations();
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].name, "projects/mock-project/reservations/a2-res-1");
        assert_eq!(got[0].zone, "us-central1-a");
        assert_eq!(got[0].instance_type, "a2-highgpu-1g");
        assert_eq!((got[0].count, got[0].in_use_count), (4, 1));
        assert!(got[1].specific_reservation_required);
        assert!(list.next_page_token.is_none());
    }

    #[test]
    fn non_ready_and_non_machine_reservations_are_skipped() {
        let body = br#"{"items": {"zones/z": {"reservations": [
            {"selfLink": "x/projects/p/zones/z/reservations/a", "zone": "x/zones/z", "status": "CREATING",
             "specificReservation": {"count": "1", "instanceProperties": {"machineType": "m"}}},
            {"selfLink": "x/projects/p/zones/z/reservations/b", "zone": "x/zones/z", "status": "READY"},
            {"selfLink": "x/projects/p/zones/z/reservations/c", "zone": "x/zones/z", "status": "READY",
             "specificReservation": {"count": 3, "instanceProperties": {"machineType": "m"}}}
        ]}}, "nextPageToken": "t2"}"#;
        let list: AggregatedList = serde_json::from_slice(body).unwrap();
        let got = list.ready_reservations();
        assert_eq!(got.len(), 1);
        assert_eq!((got[0].count, got[0].in_use_count), (3, 0));
        assert_eq!(list.next_page_token.as_deref(), Some("t2"));
    }

    #[test]
    fn error_bodies_become_one_line_without_secrets() {
        assert_eq!(
            error_message(
                br#"{"error": {"code": 403, "message": "denied", "status": "PERMISSION_DENIED"}}"#
            ),
            "PERMISSION_DENIED denied"
        );
        assert_eq!(
            error_message(br#"{"error": "invalid_grant", "error_description": "Token has been expired or revoked."}"#),
            "invalid_grant: Token has been expired or revoked."
        );
        assert_eq!(
            sanitize("bad token sekrit-123\n again", &["sekrit-123"]),
            "bad token *** again"
        );
    }

    #[test]
    fn page_urls_carry_the_page_token() {
        assert_eq!(
            page_url("http://h/compute/v1/", "my-proj", Some("a b")),
            "http://h/compute/v1/projects/my-proj/aggregated/reservations?maxResults=500&pageToken=a+b"
        );
    }
}
