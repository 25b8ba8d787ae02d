//! `IdentityClient.list_region_subscriptions`: `GET
//! {identity}/20160918/tenancies/{tenancyId}/regionSubscriptions`, signed
//! as every OCI API request is (OCI's HTTP Signature scheme, draft-cavage
//! `rsa-sha256` over `date (request-target) host`, `keyId` =
//! `tenancy/user/fingerprint`; the OCI SDK's `oci.signer.Signer`).

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use bytes::Bytes;
use http::{Method, Request, header};
use http_body_util::Full;
use serde::Deserialize;

/// The identity API version path.
pub(crate) const API_VERSION: &str = "20160918";

/// What signs a request: the key and its `keyId`.
pub(crate) struct Signer {
    key: ring::signature::RsaKeyPair,
    key_id: String,
}

impl Signer {
    /// A signer for `tenancy/user/fingerprint` with `key`.
    pub(crate) fn new(
        key: ring::signature::RsaKeyPair,
        tenancy: &str,
        user: &str,
        fingerprint: &str,
    ) -> Signer {
        Signer {
            key,
            key_id: format!("{tenancy}/{user}/{fingerprint}"),
        }
    }

    /// The `Authorization` value for a body-less request: the signature of
    /// the lines `date: …`, `(request-target): <method> <path>` and
    /// `host: …`, joined by `\n`.
    pub(crate) fn authorization(
        &self,
        method: &str,
        path_and_query: &str,
        host: &str,
        date: &str,
    ) -> Result<String, &'static str> {
        let signing = signing_string(method, path_and_query, host, date);
        let signature = crate::clouds::http_client::sign_rs256(&self.key, signing.as_bytes())?;
        Ok(format!(
            "Signature algorithm=\"rsa-sha256\",headers=\"date (request-target) host\",keyId=\"{}\",signature=\"{}\",version=\"1\"",
            self.key_id,
            base64::engine::general_purpose::STANDARD.encode(signature)
        ))
    }
}

/// The string OCI signs for a GET/DELETE/HEAD request.
pub(crate) fn signing_string(method: &str, path_and_query: &str, host: &str, date: &str) -> String {
    format!(
        "date: {date}\n(request-target): {} {path_and_query}\nhost: {host}",
        method.to_lowercase()
    )
}

/// The signed request for the tenancy's region subscriptions.
pub(crate) fn region_subscriptions_request(
    endpoint: &str,
    tenancy: &str,
    signer: &Signer,
    now: SystemTime,
) -> Result<Request<Full<Bytes>>, String> {
    let base = endpoint.trim_end_matches('/');
    let tenancy_seg: String = form_urlencoded::byte_serialize(tenancy.as_bytes()).collect();
    let path = format!("/{API_VERSION}/tenancies/{tenancy_seg}/regionSubscriptions");
    let url = format!("{base}{path}");
    let uri: http::Uri = url
        .parse()
        .map_err(|e| format!("invalid OCI identity endpoint {endpoint:?}: {e}"))?;
    let host = uri
        .authority()
        .map(|a| a.as_str().to_string())
        .ok_or_else(|| format!("invalid OCI identity endpoint {endpoint:?}: no host"))?;
    // The signed path is the one sent, with the endpoint's own prefix.
    let path_and_query = uri
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or(path);
    let date = http_date(now);
    let authorization = signer
        .authorization("GET", &path_and_query, &host, &date)
        .map_err(|e| format!("cannot sign the OCI request: {e}"))?;
    Request::builder()
        .method(Method::GET)
        .uri(uri)
        .header(header::HOST, host)
        .header(header::DATE, date)
        .header(header::AUTHORIZATION, authorization)
        .header(header::ACCEPT, "application/json")
        .header(
            header::USER_AGENT,
            concat!("skypilot-optimizer/", env!("CARGO_PKG_VERSION")),
        )
        .body(Full::new(Bytes::new()))
        .map_err(|e| format!("invalid OCI request: {e}"))
}

/// One `RegionSubscription`, the fields SkyPilot reads.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RegionSubscription {
    region_name: Option<String>,
}

/// `[r.region_name for r in subscriptions]` of an answer body.
pub(crate) fn parse_region_subscriptions(body: &[u8]) -> Result<Vec<String>, String> {
    let list: Vec<RegionSubscription> =
        serde_json::from_slice(body).map_err(|e| format!("malformed region subscriptions: {e}"))?;
    Ok(list.into_iter().filter_map(|r| r.region_name).collect())
}

/// The message of an OCI error body (`{"code": …, "message": …}`), else its
/// first line.
pub(crate) fn error_message(body: &[u8]) -> String {
    #[derive(Deserialize)]
    struct Error {
        code: Option<String>,
        message: Option<String>,
    }
    if let Ok(e) = serde_json::from_slice::<Error>(body) {
        return match (e.code, e.message) {
            (Some(c), Some(m)) => format!("{c}: {m}"),
            (Some(c), None) => c,
            (None, Some(m)) => m,
            (None, None) => String::new(),
        };
    }
    String::from_utf8_lossy(body)
        .lines()
        .next()
        .unwrap_or("")
        .to_string()
}

/// An RFC 7231 IMF-fixdate (`Tue, 01 Dec 2026 23:00:00 GMT`), what
/// `email.utils.formatdate(usegmt=True)` writes.
pub(crate) fn http_date(t: SystemTime) -> String {
    let secs = t
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let (hh, mm, ss) = (rem / 3600, (rem % 3600) / 60, rem % 60);
    // 1970-01-01 was a Thursday.
    let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][(days % 7) as usize];
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let month_name = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ][(month - 1) as usize];
    format!("{weekday}, {day:02} {month_name} {year} {hh:02}:{mm:02}:{ss:02} GMT")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates_are_imf_fixdates() {
        assert_eq!(http_date(UNIX_EPOCH), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(
            http_date(UNIX_EPOCH + Duration::from_secs(1_709_251_199)),
            "Thu, 29 Feb 2024 23:59:59 GMT"
        );
        assert_eq!(
            http_date(UNIX_EPOCH + Duration::from_secs(4_102_444_800)),
            "Fri, 01 Jan 2100 00:00:00 GMT"
        );
    }

    #[test]
    fn requests_are_signed_over_date_target_and_host() {
        let key = crate::clouds::http_client::rsa_key(include_str!(
            "../../../../fixtures/oci/api_key.pem"
        ))
        .unwrap();
        let public = key.public().as_ref().to_vec();
        let signer = Signer::new(key, "ocid1.tenancy.oc1..t", "ocid1.user.oc1..u", "aa:bb");
        let now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let req = region_subscriptions_request(
            "http://127.0.0.1:8080/",
            "ocid1.tenancy.oc1..t",
            &signer,
            now,
        )
        .unwrap();
        assert_eq!(
            req.uri().path(),
            "/20160918/tenancies/ocid1.tenancy.oc1..t/regionSubscriptions"
        );
        assert_eq!(req.headers()[header::HOST], "127.0.0.1:8080");
        let auth = req.headers()[header::AUTHORIZATION].to_str().unwrap();
        assert!(
            auth.starts_with("Signature algorithm=\"rsa-sha256\",headers=\"date (request-target) host\",keyId=\"ocid1.tenancy.oc1..t/ocid1.user.oc1..u/aa:bb\",signature=\""),
            "{auth}"
        );
        let sig_b64 = auth
            .split("signature=\"")
            .nth(1)
            .and_then(|s| s.split('"').next())
            .unwrap();
        let sig = base64::engine::general_purpose::STANDARD
            .decode(sig_b64)
            .unwrap();
        let signed = signing_string(
            "GET",
            "/20160918/tenancies/ocid1.tenancy.oc1..t/regionSubscriptions",
            "127.0.0.1:8080",
            &http_date(now),
        );
        ring::signature::UnparsedPublicKey::new(
            &ring::signature::RSA_PKCS1_2048_8192_SHA256,
            public,
        )
        .verify(signed.as_bytes(), &sig)
        .expect("the signature verifies");
    }

    #[test]
    fn answers_and_errors_parse() {
        let body = br#"[{"regionKey":"ORD","regionName":"us-chicago-1","status":"READY","isHomeRegion":true},
                        {"regionKey":"JNB","regionName":"af-johannesburg-1","status":"IN_PROGRESS","isHomeRegion":false}]"#;
        assert_eq!(
            parse_region_subscriptions(body).unwrap(),
            ["us-chicago-1", "af-johannesburg-1"]
        );
        assert!(parse_region_subscriptions(b"{").is_err());
        assert_eq!(
            error_message(br#"{"code":"NotAuthenticated","message":"The required information to complete authentication was not provided."}"#),
            "NotAuthenticated: The required information to complete authentication was not provided."
        );
        assert_eq!(error_message(b"oops\nmore"), "oops");
    }
}
