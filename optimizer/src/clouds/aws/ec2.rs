//! The account's availability-zone names, as SkyPilot fetches them when it
//! has an AWS identity but no `aws/az_mappings-<hash>.csv` for it
//! (`sky/catalog/aws_catalog.py::_get_az_mappings`, through
//! `sky/catalog/data_fetchers/fetch_aws.py::fetch_availability_zone_mappings`):
//! EC2 `DescribeRegions` in us-east-1, then `DescribeAvailabilityZones` in
//! every enabled region SkyPilot knows (`ALL_REGIONS`), concurrently. Zone
//! IDs (`use1-az4`) are the same for every account; the names
//! (`us-east-1a`) are shuffled per account, hence one file per identity.
//!
//! Two signed Query API calls do not justify the EC2 SDK crate (one of the
//! largest in the ecosystem): they are SigV4-signed with `aws-sigv4` (already
//! built for STS) and sent over the crate's small hyper client. The file is
//! written into SkyPilot's catalog folder as SkyPilot writes it (`pandas
//! to_csv`: `AvailabilityZoneName,AvailabilityZone`, one row per zone) with
//! its md5 record, so SkyPilot uses it too.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use aws_credential_types::Credentials;
use aws_sigv4::http_request::{SignableBody, SignableRequest, SigningSettings, sign};
use aws_sigv4::sign::v4;
use bytes::Bytes;
use http::{Method, Request, header};
use http_body_util::Full;
use md5::{Digest, Md5};
use tokio::time::Instant;

use crate::clouds::EnvMap;
use crate::clouds::http_client::too_large;
use crate::net::{HttpClient, NetError};
use crate::state::{FileMode, redact_url, write_atomic};

/// The `<hash>` of SkyPilot's `az_mappings-<hash>.csv`: the first 8 hex
/// characters of the md5 of the STS `UserId`.
pub fn az_mapping_hash(user_id: &str) -> String {
    let digest = Md5::digest(user_id.as_bytes());
    digest.iter().take(4).map(|b| format!("{b:02x}")).collect()
}

/// `fetch_aws.ALL_REGIONS`: the regions SkyPilot maps (in its order).
pub const ALL_REGIONS: &[&str] = &[
    "us-east-1",
    "us-east-2",
    "us-west-1",
    "us-west-2",
    "ca-central-1",
    "eu-central-1",
    "eu-west-1",
    "eu-west-2",
    "eu-south-1",
    "eu-south-2",
    "eu-west-3",
    "eu-north-1",
    "me-central-1",
    "af-south-1",
    "ap-east-1",
    "ap-southeast-3",
    "ap-south-1",
    "ap-northeast-3",
    "ap-northeast-2",
    "ap-southeast-1",
    "ap-southeast-2",
    "ap-southeast-4",
    "ap-northeast-1",
];

/// The EC2 Query API version the calls speak.
const API_VERSION: &str = "2016-11-15";
/// Largest answer read (a region lists a handful of zones).
const MAX_BODY_BYTES: usize = 1 << 20;

/// Where zone mappings are fetched and kept (`AwsOptions::az_mappings`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AzMappingFetch {
    /// SkyPilot's catalog folder (`~/.sky/catalogs/v8`): the mapping goes to
    /// `aws/az_mappings-<hash>.csv` below it.
    pub folder: PathBuf,
    /// EC2 endpoint override (tests, VPC endpoints). Beats
    /// `AWS_ENDPOINT_URL_EC2`, which beats `AWS_ENDPOINT_URL`; default
    /// `https://ec2.<region>.amazonaws.com`.
    pub endpoint_url: Option<String>,
    /// Deadline of one EC2 request.
    pub request_timeout: Duration,
    /// TCP/TLS connect deadline.
    pub connect_timeout: Duration,
}

impl AzMappingFetch {
    /// Fetching into `folder`, with the default endpoint and timeouts.
    pub fn new(folder: impl Into<PathBuf>) -> AzMappingFetch {
        AzMappingFetch {
            folder: folder.into(),
            endpoint_url: None,
            request_timeout: Duration::from_secs(2),
            connect_timeout: Duration::from_secs(1),
        }
    }

    /// `aws/az_mappings-<hash>.csv` in the folder.
    pub fn mapping_path(&self, hash: &str) -> PathBuf {
        self.folder.join(format!("aws/az_mappings-{hash}.csv"))
    }

    fn endpoint(&self, env: &EnvMap, region: &str) -> String {
        let set = |k: &str| env.get(k).filter(|v| !v.trim().is_empty()).cloned();
        self.endpoint_url
            .clone()
            .or_else(|| set("AWS_ENDPOINT_URL_EC2"))
            .or_else(|| set("AWS_ENDPOINT_URL"))
            .unwrap_or_else(|| format!("https://ec2.{region}.amazonaws.com"))
    }
}

/// One failed call, one line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct CallError {
    /// The EC2 error code (`AuthFailure`), when the service answered.
    code: Option<String>,
    message: String,
}

/// The text of every `<tag>…</tag>` in `xml`, in order, XML-unescaped.
/// EC2's answers are flat enough (no attributes, no CDATA on these
/// elements) for this to be exact.
pub(super) fn elements<'a>(xml: &'a str, tag: &str) -> Vec<String> {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    let mut out = Vec::new();
    let mut rest: &'a str = xml;
    while let Some(start) = rest.find(&open) {
        let after = &rest[start + open.len()..];
        let Some(end) = after.find(&close) else {
            break;
        };
        out.push(unescape(&after[..end]));
        rest = &after[end + close.len()..];
    }
    out
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// A SigV4-signed EC2 Query call in `region`; the answer's XML.
async fn call(
    http: &HttpClient,
    fetch: &AzMappingFetch,
    env: &EnvMap,
    creds: &Credentials,
    region: &str,
    action: &str,
    deadline: Instant,
) -> Result<String, CallError> {
    let url = format!("{}/", fetch.endpoint(env, region).trim_end_matches('/'));
    let body = format!("Action={action}&Version={API_VERSION}");
    let plain = |message: String| CallError {
        code: None,
        message,
    };
    let mut request = Request::builder()
        .method(Method::POST)
        .uri(&url)
        .header(
            header::CONTENT_TYPE,
            "application/x-www-form-urlencoded; charset=utf-8",
        )
        .body(Full::new(Bytes::from(body.clone())))
        .map_err(|e| plain(format!("invalid EC2 endpoint {url:?}: {e}")))?;
    let host = request
        .uri()
        .authority()
        .map(|a| a.to_string())
        .unwrap_or_default();
    request.headers_mut().insert(
        header::HOST,
        host.parse()
            .map_err(|_| plain(format!("invalid EC2 endpoint {url:?}")))?,
    );
    let identity = creds.clone().into();
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name("ec2")
        .time(SystemTime::now())
        .settings(SigningSettings::default())
        .build()
        .map_err(|e| plain(format!("cannot sign the EC2 request: {e}")))?
        .into();
    let headers: Vec<(String, String)> = request
        .headers()
        .iter()
        .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
        .collect();
    let signable = SignableRequest::new(
        "POST",
        url.as_str(),
        headers.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        SignableBody::Bytes(body.as_bytes()),
    )
    .map_err(|e| plain(format!("cannot sign the EC2 request: {e}")))?;
    let (instructions, _) = sign(signable, &params)
        .map_err(|e| plain(format!("cannot sign the EC2 request: {e}")))?
        .into_parts();
    instructions.apply_to_request_http1x(&mut request);
    let left = deadline
        .saturating_duration_since(Instant::now())
        .min(fetch.request_timeout);
    let answer = http
        .exchange(request, left, MAX_BODY_BYTES)
        .await
        .map_err(|e| match e {
            // The host that sent it and the cap, as the catalog downloads say.
            NetError::TooLarge(cap) => plain(format!(
                "EC2 {action} in {region}: {}",
                too_large(&redact_url(&url), cap)
            )),
            e => plain(format!("EC2 {action} in {region}: {e}")),
        })?;
    let text = String::from_utf8_lossy(&answer.body).into_owned();
    if answer.status.is_success() {
        return Ok(text);
    }
    let code = elements(&text, "Code").into_iter().next();
    let message = elements(&text, "Message").into_iter().next();
    Err(CallError {
        message: format!(
            "EC2 {action} in {region}: {}{}",
            code.clone()
                .unwrap_or_else(|| format!("HTTP {}", answer.status.as_u16())),
            message.map(|m| format!(": {m}")).unwrap_or_default()
        ),
        code,
    })
}

/// SkyPilot's CSV of a mapping: header, then `name,id` per zone, LF.
fn to_csv(zones: &[(String, String)]) -> String {
    let mut out = String::from("AvailabilityZoneName,AvailabilityZone\n");
    for (name, id) in zones {
        out.push_str(name);
        out.push(',');
        out.push_str(id);
        out.push('\n');
    }
    out
}

/// Makes sure `aws/az_mappings-<hash>.csv` exists for this identity: when it
/// does (the usual case: one `stat`), nothing is sent; otherwise the zones
/// are fetched before `deadline` and the file written. Returns the warnings
/// to show (regions that could not be listed, or why nothing was written).
pub async fn ensure_mapping(
    fetch: &AzMappingFetch,
    env: &EnvMap,
    creds: &Credentials,
    hash: &str,
    deadline: Instant,
) -> Vec<String> {
    let path = fetch.mapping_path(hash);
    if path.exists() {
        return Vec::new();
    }
    let http = match HttpClient::for_urls(
        [fetch.endpoint(env, "us-east-1").as_str()],
        fetch.connect_timeout,
    ) {
        Ok(http) => http,
        Err(e) => return vec![format!("cannot fetch the AWS zone names: {e}")],
    };
    let failed = |e: String| {
        vec![format!(
            "cannot fetch the AWS zone names of this account ({e}); AWS zones keep their IDs (use1-az1, ...)"
        )]
    };
    let regions = match call(
        &http,
        fetch,
        env,
        creds,
        "us-east-1",
        "DescribeRegions",
        deadline,
    )
    .await
    {
        Ok(xml) => {
            let enabled = elements(&xml, "regionName");
            ALL_REGIONS
                .iter()
                .filter(|r| enabled.iter().any(|e| e == *r))
                .copied()
                .collect::<Vec<_>>()
        }
        Err(e) if e.code.as_deref() == Some("UnauthorizedOperation") => {
            return failed(format!(
                "{}; ensure that the ec2:DescribeRegions action is allowed",
                e.message
            ));
        }
        Err(e) => return failed(e.message),
    };
    let calls = regions.iter().map(|region| {
        let http = http.clone();
        async move {
            let result = call(
                &http,
                fetch,
                env,
                creds,
                region,
                "DescribeAvailabilityZones",
                deadline,
            )
            .await;
            (*region, result)
        }
    });
    let mut zones = Vec::new();
    let mut missing = Vec::new();
    for (region, result) in futures::future::join_all(calls).await {
        match result {
            Ok(xml) => {
                let names = elements(&xml, "zoneName");
                let ids = elements(&xml, "zoneId");
                zones.extend(names.into_iter().zip(ids));
            }
            Err(e) => missing.push((region, e.message)),
        }
    }
    if zones.is_empty() {
        let why = missing
            .first()
            .map(|(_, m)| m.clone())
            .unwrap_or_else(|| "no enabled region".into());
        return failed(why);
    }
    let mut warnings = Vec::new();
    if !missing.is_empty() {
        let regions: Vec<&str> = missing.iter().map(|(r, _)| *r).collect();
        warnings.push(format!(
            "AWS: missing availability zone mappings for these enabled regions: {} ({})",
            regions.join(", "),
            missing[0].1
        ));
    }
    if let Err(e) = write_mapping(&fetch.folder, &path, &to_csv(&zones)) {
        warnings.push(format!("cannot save the AWS zone names: {e}"));
    }
    warnings
}

/// The mapping and its md5 record (`.meta/aws/az_mappings-<hash>.csv.md5`).
fn write_mapping(folder: &Path, path: &Path, text: &str) -> Result<(), String> {
    let rel = path.strip_prefix(folder).unwrap_or(path);
    let mut md5_path = folder.join(".meta").join(rel).into_os_string();
    md5_path.push(".md5");
    let md5_path = PathBuf::from(md5_path);
    for dir in [path.parent(), md5_path.parent()].into_iter().flatten() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    write_atomic(path, text.as_bytes(), FileMode::User).map_err(|e| e.to_string())?;
    let md5 = {
        use md5::{Digest, Md5};
        crate::state::hex(&Md5::digest(text.as_bytes()))
    };
    write_atomic(&md5_path, md5.as_bytes(), FileMode::User).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_are_read_in_order_and_unescaped() {
        let xml = "<r><item><zoneName>us-east-1a</zoneName><zoneId>use1-az6</zoneId></item>\
                   <item><zoneName>a&amp;b</zoneName><zoneId>x</zoneId></item></r>";
        assert_eq!(elements(xml, "zoneName"), vec!["us-east-1a", "a&b"]);
        assert_eq!(elements(xml, "zoneId"), vec!["use1-az6", "x"]);
        assert!(elements(xml, "missing").is_empty());
        assert!(elements("<zoneName>cut", "zoneName").is_empty());
    }

    #[test]
    fn the_csv_is_skypilots() {
        let csv = to_csv(&[
            ("us-east-1a".into(), "use1-az6".into()),
            ("us-east-1b".into(), "use1-az1".into()),
        ]);
        assert_eq!(
            csv,
            "AvailabilityZoneName,AvailabilityZone\nus-east-1a,use1-az6\nus-east-1b,use1-az1\n"
        );
        let parsed = planner::catalog::AzMapping::from_reader(csv.as_bytes(), "t").unwrap();
        assert_eq!(parsed.len(), 2);
    }
}
