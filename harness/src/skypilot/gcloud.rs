//! The `gcloud` SkyPilot finds on `PATH` in the harness: it answers the one
//! command SkyPilot 0.14.1 runs while it optimises,
//!
//! ```text
//! gcloud compute reservations list \
//!   --filter="specificReservation.instanceProperties.machineType=<type> AND status=READY" \
//!   --format="json(specificReservation.count, specificReservation.inUseCount, specificReservationRequired, selfLink, zone)"
//! ```
//!
//! (`sky/clouds/utils/gcp_utils.py::_list_reservations_for_instance_type`,
//! run when `gcp.prioritize_reservations` or `gcp.specific_reservations` is
//! set), the way the real one does: `GET .../aggregated/reservations` of the
//! project on the compute endpoint gcloud is told to use
//! (`CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE`, `CLOUDSDK_CORE_PROJECT`), every
//! page, then the filter and the projection applied on the client side. The
//! endpoint is the scenario's GCP mock, so the answer comes after the
//! scenario's GCP reservations latency and the request is recorded like any
//! other (one `gcp/reservations` request per `gcloud` run).
//!
//! It speaks plain HTTP to loopback only: any other endpoint is refused, and
//! any other command exits 1 naming what it does answer. The harness binary
//! is this program (`harness gcloud ...`, behind a two-line shell script
//! named `gcloud`), so the stand-in needs no interpreter of its own.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Map, Value};

/// What one run of the stand-in answered: its stdout, or its stderr and exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Printed on stdout, exit 0.
    Ok(String),
    /// Printed on stderr with this exit code.
    Fail(i32, String),
}

/// How long one request to the mock may take before the stand-in gives up
/// (a hung mock must not hang SkyPilot forever: its `run_with_retries` has
/// no deadline of its own).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);

/// The most pages followed (a mock that always answers `nextPageToken` must not loop forever).
const MAX_PAGES: usize = 1000;

/// Runs the stand-in on `args` (after `gcloud`) with the environment `env`.
pub fn run(args: &[String], env: &BTreeMap<String, String>) -> Answer {
    let positional: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with("--"))
        .collect();
    if positional != ["compute", "reservations", "list"] {
        return Answer::Fail(
            1,
            format!(
                "ERROR: (gcloud) the harness's gcloud stand-in answers only `gcloud compute reservations list`, not `gcloud {}`\n",
                args.join(" ")
            ),
        );
    }
    let flag = |name: &str| {
        args.iter()
            .find_map(|a| a.strip_prefix(&format!("--{name}=")))
            .map(|v| v.trim_matches('"').to_string())
    };
    let Some(endpoint) = env.get("CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE") else {
        return Answer::Fail(
            1,
            "ERROR: (gcloud) CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE is not set: the stand-in only talks to the harness's GCP mock\n".into(),
        );
    };
    let project = flag("project")
        .or_else(|| env.get("CLOUDSDK_CORE_PROJECT").cloned())
        .unwrap_or_default();
    if project.is_empty() {
        return Answer::Fail(
            1,
            "ERROR: (gcloud.compute.reservations.list) The required property [project] is not currently set.\n".into(),
        );
    }
    let filter = match flag("filter").map(|f| parse_filter(&f)).transpose() {
        Ok(f) => f.unwrap_or_default(),
        Err(e) => return Answer::Fail(1, format!("ERROR: (gcloud) --filter: {e}\n")),
    };
    let fields = flag("format").map(|f| projection(&f)).unwrap_or_default();
    let reservations = match list_all(endpoint, &project) {
        Ok(r) => r,
        Err(e) => {
            return Answer::Fail(
                1,
                format!("ERROR: (gcloud.compute.reservations.list) {e}\n"),
            );
        }
    };
    let kept: Vec<Value> = reservations
        .into_iter()
        .filter(|r| matches(r, &filter))
        .map(|r| project_fields(&r, &fields))
        .collect();
    let mut out = serde_json::to_string_pretty(&Value::Array(kept)).unwrap_or_else(|_| "[]".into());
    out.push('\n');
    Answer::Ok(out)
}

/// `a.b=c AND d=e` → `[("a.b", "c"), ("d", "e")]` (the only filter form SkyPilot sends).
pub fn parse_filter(filter: &str) -> Result<Vec<(String, String)>, String> {
    let mut terms = Vec::new();
    for term in filter.split(" AND ") {
        let term = term.trim();
        if term.is_empty() {
            continue;
        }
        let Some((key, value)) = term.split_once('=') else {
            return Err(format!("`{term}` is not `key=value`"));
        };
        terms.push((
            key.trim().to_string(),
            value.trim().trim_matches('"').to_string(),
        ));
    }
    Ok(terms)
}

/// `json(a.b, c)` → `["a.b", "c"]`; plain `json` (or anything else) projects nothing away.
pub fn projection(format: &str) -> Vec<String> {
    format
        .strip_prefix("json(")
        .and_then(|r| r.strip_suffix(')'))
        .map(|inner| {
            inner
                .split(',')
                .map(|f| f.trim().to_string())
                .filter(|f| !f.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

fn lookup<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(value, |v, key| v.get(key))
}

fn matches(reservation: &Value, filter: &[(String, String)]) -> bool {
    filter.iter().all(|(key, want)| {
        lookup(reservation, key).is_some_and(|v| match v {
            Value::String(s) => s == want,
            Value::Bool(b) => want.parse::<bool>().is_ok_and(|w| w == *b),
            Value::Number(n) => want.parse::<f64>().is_ok_and(|w| n.as_f64() == Some(w)),
            _ => false,
        })
    })
}

/// The reservation with only `fields` (dotted paths), nested as gcloud's
/// `json(...)` projection prints them.
fn project_fields(reservation: &Value, fields: &[String]) -> Value {
    if fields.is_empty() {
        return reservation.clone();
    }
    let mut out = Map::new();
    for field in fields {
        if let Some(value) = lookup(reservation, field) {
            let parts: Vec<&str> = field.split('.').collect();
            insert(&mut out, &parts, value.clone());
        }
    }
    Value::Object(out)
}

/// `value` at `path` below `map`, creating the objects on the way.
fn insert(map: &mut Map<String, Value>, path: &[&str], value: Value) {
    match path {
        [] => {}
        [last] => {
            map.insert((*last).to_string(), value);
        }
        [first, rest @ ..] => {
            let slot = map
                .entry((*first).to_string())
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(inner) = slot {
                insert(inner, rest, value);
            }
        }
    }
}

/// Every reservation of the project's aggregated list, all pages.
fn list_all(endpoint: &str, project: &str) -> Result<Vec<Value>, String> {
    let base = format!(
        "{}/projects/{project}/aggregated/reservations",
        endpoint.trim_end_matches('/')
    );
    let mut out = Vec::new();
    let mut token: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let url = match &token {
            Some(t) => format!("{base}?pageToken={t}"),
            None => base.clone(),
        };
        let (status, body) = http_get(&url)?;
        let doc: Value = serde_json::from_slice(&body)
            .map_err(|e| format!("{url}: HTTP {status}, not JSON: {e}"))?;
        if status != 200 {
            let message = lookup(&doc, "error.message")
                .and_then(Value::as_str)
                .unwrap_or("request failed");
            return Err(format!("HTTPError {status}: {message}"));
        }
        if let Some(Value::Object(items)) = doc.get("items") {
            for scoped in items.values() {
                if let Some(Value::Array(list)) = scoped.get("reservations") {
                    out.extend(list.iter().cloned());
                }
            }
        }
        token = doc
            .get("nextPageToken")
            .and_then(Value::as_str)
            .map(str::to_string);
        if token.is_none() {
            return Ok(out);
        }
    }
    Err(format!("{base}: more than {MAX_PAGES} pages"))
}

/// `http://127.0.0.1:<port>/<path>` → `(host:port, /path)`; anything else is refused.
pub fn loopback_target(url: &str) -> Result<(String, String), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("{url}: the stand-in speaks plain HTTP to loopback only"))?;
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let name = host.rsplit_once(':').map_or(host, |(h, _)| h);
    if !matches!(name, "127.0.0.1" | "localhost" | "[::1]") {
        return Err(format!(
            "{url}: not loopback; the stand-in reaches only the harness's mocks"
        ));
    }
    Ok((host.to_string(), path.to_string()))
}

/// One `GET` over HTTP/1.1 with `Connection: close`: `(status, body)`.
fn http_get(url: &str) -> Result<(u16, Vec<u8>), String> {
    let (host, path) = loopback_target(url)?;
    let mut stream = TcpStream::connect(&host).map_err(|e| format!("{url}: {e}"))?;
    stream
        .set_read_timeout(Some(REQUEST_TIMEOUT))
        .map_err(|e| format!("{url}: {e}"))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: application/json\r\nUser-Agent: harness-gcloud\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| format!("{url}: {e}"))?;
    let mut raw = Vec::new();
    stream
        .read_to_end(&mut raw)
        .map_err(|e| format!("{url}: {e}"))?;
    parse_response(&raw).map_err(|e| format!("{url}: {e}"))
}

/// Status and body of a whole HTTP/1.1 response (`Content-Length`, chunked, or to EOF).
pub fn parse_response(raw: &[u8]) -> Result<(u16, Vec<u8>), String> {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("no end of headers")?;
    let head = String::from_utf8_lossy(&raw[..end]);
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or("no status line")?;
    let chunked = lines.any(|l| {
        l.split_once(':').is_some_and(|(k, v)| {
            k.trim().eq_ignore_ascii_case("transfer-encoding")
                && v.trim().eq_ignore_ascii_case("chunked")
        })
    });
    let body = &raw[end + 4..];
    if !chunked {
        return Ok((status, body.to_vec()));
    }
    let mut out = Vec::new();
    let mut rest = body;
    loop {
        let line_end = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("truncated chunk size")?;
        let size_text = String::from_utf8_lossy(&rest[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| format!("bad chunk size `{size_text}`"))?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Ok((status, out));
        }
        if rest.len() < size {
            return Err("truncated chunk".into());
        }
        out.extend_from_slice(&rest[..size]);
        rest = rest.get(size + 2..).unwrap_or_default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn skypilots_filter_and_projection_parse() {
        let f = parse_filter(
            "specificReservation.instanceProperties.machineType=a3-highgpu-8g AND status=READY",
        )
        .unwrap();
        assert_eq!(
            f,
            [
                (
                    "specificReservation.instanceProperties.machineType".to_string(),
                    "a3-highgpu-8g".to_string()
                ),
                ("status".to_string(), "READY".to_string())
            ]
        );
        assert!(parse_filter("status READY").is_err());
        assert_eq!(
            projection("json(specificReservation.count, zone)"),
            ["specificReservation.count", "zone"]
        );
        assert!(projection("json").is_empty());
    }

    #[test]
    fn filtering_and_projection_keep_gclouds_shape() {
        let r = json!({"name": "r1", "status": "READY", "zone": "z",
            "specificReservation": {"count": "2", "inUseCount": "1",
                "instanceProperties": {"machineType": "a2-highgpu-1g"}}});
        let f = parse_filter(
            "specificReservation.instanceProperties.machineType=a2-highgpu-1g AND status=READY",
        )
        .unwrap();
        assert!(matches(&r, &f));
        let other =
            parse_filter("specificReservation.instanceProperties.machineType=a3-highgpu-8g")
                .unwrap();
        assert!(!matches(&r, &other));
        let p = project_fields(
            &r,
            &projection("json(specificReservation.count, specificReservation.inUseCount, zone)"),
        );
        assert_eq!(
            p,
            json!({"specificReservation": {"count": "2", "inUseCount": "1"}, "zone": "z"})
        );
    }

    #[test]
    fn only_loopback_and_only_reservations() {
        assert!(loopback_target("http://127.0.0.1:9/compute/v1/x").is_ok());
        assert!(loopback_target("https://compute.googleapis.com/compute/v1/").is_err());
        assert!(loopback_target("http://10.0.0.1:80/").is_err());
        let env = BTreeMap::new();
        let a = run(
            &["config".into(), "get-value".into(), "project".into()],
            &env,
        );
        assert!(
            matches!(a, Answer::Fail(1, ref m) if m.contains("compute reservations list")),
            "{a:?}"
        );
    }

    #[test]
    fn chunked_and_plain_bodies() {
        let plain = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n[]";
        assert_eq!(parse_response(plain).unwrap(), (200, b"[]".to_vec()));
        let chunked =
            b"HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n";
        assert_eq!(parse_response(chunked).unwrap(), (404, b"{}".to_vec()));
    }
}
