//! One small, bounded HTTP client for the adapters that speak plain REST or
//! gRPC over hyper + rustls (ring): OCI's identity API (HTTP/1.1) and
//! Nebius' gRPC API (HTTP/2). GCP keeps its own (`gcp/rest.rs`).
//!
//! Every exchange is bounded: a connect timeout on the connector, one
//! deadline around sending the request *and* reading the whole answer, and
//! a cap on the body. Failures are values ([`Failure`]), never panics.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

use planner::check::CloudError;

type HttpsClient = Client<hyper_rustls::HttpsConnector<HttpConnector>, Full<Bytes>>;

/// Which HTTP version the client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Protocol {
    /// HTTP/1.1 (REST).
    Http1,
    /// HTTP/2 only: ALPN `h2` over TLS, prior knowledge (h2c) over plain
    /// HTTP, as gRPC clients do.
    Http2,
}

/// Why one exchange failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// No complete answer within the request timeout.
    Timeout,
    /// Connecting, TLS, or reading the body failed (one line).
    Transport(String),
    /// The body passed the cap: one line naming the host that sent it
    /// (its URL without credentials or query) and the cap, as the catalog
    /// downloads say it. Not worth another attempt.
    TooLarge(String),
}

/// A complete answer: status, headers, body and (HTTP/2) trailers.
#[derive(Debug)]
pub(crate) struct Answer {
    /// HTTP status.
    pub status: StatusCode,
    /// Response headers.
    pub headers: HeaderMap,
    /// The whole body (at most the client's cap).
    pub body: Bytes,
    /// Trailers, when the server sent some.
    pub trailers: Option<HeaderMap>,
}

/// A client with fixed timeouts and body cap.
#[derive(Clone)]
pub(crate) struct HttpClient {
    client: HttpsClient,
    request_timeout: Duration,
    max_body: usize,
}

impl HttpClient {
    /// A client; `tls` loads the platform's CA roots (skipped for plain
    /// `http://` endpoints such as local mocks, where it is pure cost).
    pub(crate) fn new(
        tls: bool,
        protocol: Protocol,
        connect_timeout: Duration,
        request_timeout: Duration,
        max_body: usize,
    ) -> Result<HttpClient, CloudError> {
        let mut tcp = HttpConnector::new();
        tcp.set_connect_timeout(Some(connect_timeout));
        tcp.enforce_http(false);
        // An explicit provider: never the process-level default, which panics
        // when more than one rustls backend is compiled in.
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = hyper_rustls::HttpsConnectorBuilder::new();
        let builder = if tls {
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
        let builder = builder.https_or_http();
        let connector = match protocol {
            Protocol::Http1 => builder.enable_http1().wrap_connector(tcp),
            Protocol::Http2 => builder.enable_http2().wrap_connector(tcp),
        };
        let mut client = Client::builder(TokioExecutor::new());
        client.pool_idle_timeout(Duration::from_secs(30));
        if protocol == Protocol::Http2 {
            client.http2_only(true);
        }
        Ok(HttpClient {
            client: client.build(connector),
            request_timeout,
            max_body,
        })
    }

    /// The per-request deadline.
    pub(crate) fn request_timeout(&self) -> Duration {
        self.request_timeout
    }

    /// Sends one request and reads the whole answer within the deadline.
    pub(crate) async fn exchange(&self, request: Request<Full<Bytes>>) -> Result<Answer, Failure> {
        // Who sent an oversized body, without what may be secret in its URL.
        let shown = crate::state::redact_url(&request.uri().to_string());
        let work = async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| Failure::Transport(crate::clouds::error_chain(&e)))?;
            let (parts, body) = response.into_parts();
            let collected = Limited::new(body, self.max_body)
                .collect()
                .await
                .map_err(|e| {
                    if e.is::<http_body_util::LengthLimitError>() {
                        Failure::TooLarge(too_large(&shown, self.max_body))
                    } else {
                        Failure::Transport(format!("reading the answer: {e}"))
                    }
                })?;
            let trailers = collected.trailers().cloned();
            Ok(Answer {
                status: parts.status,
                headers: parts.headers,
                body: collected.to_bytes(),
                trailers,
            })
        };
        tokio::time::timeout(self.request_timeout, work)
            .await
            .unwrap_or(Err(Failure::Timeout))
    }
}

/// The one line said of a body past `cap` bytes sent by `shown` (a URL
/// already redacted): the catalog downloads' `<url>: the answer is larger
/// than <cap> bytes`.
pub(crate) fn too_large(shown: &str, cap: usize) -> String {
    format!("{shown}: {}", crate::net::NetError::TooLarge(cap))
}

/// One line, known secrets replaced, bounded length.
pub(crate) fn sanitize(text: &str, secrets: &[&str]) -> String {
    const MAX_MESSAGE_CHARS: usize = 240;
    let mut out = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for secret in secrets.iter().filter(|s| s.len() >= 4) {
        out = out.replace(secret, "***");
    }
    if out.chars().count() > MAX_MESSAGE_CHARS {
        out = out.chars().take(MAX_MESSAGE_CHARS).collect::<String>() + "…";
    }
    out
}

/// An RSA signing key from PEM: `PRIVATE KEY` (PKCS#8) or `RSA PRIVATE KEY`
/// (PKCS#1). Encrypted keys are refused with a reason (ring cannot decrypt
/// them).
pub(crate) fn rsa_key(pem: &str) -> Result<ring::signature::RsaKeyPair, &'static str> {
    use base64::Engine as _;
    if pem.contains("ENCRYPTED") {
        return Err(
            "the key is encrypted (a pass phrase is not supported; use an unencrypted key)",
        );
    }
    let start = pem.find("-----BEGIN ").ok_or("not a PEM private key")?;
    let rest = &pem[start + "-----BEGIN ".len()..];
    let label_end = rest.find("-----").ok_or("not a PEM private key")?;
    let label = &rest[..label_end];
    let body = &rest[label_end + 5..];
    let end = body
        .find(&format!("-----END {label}-----"))
        .ok_or("the PEM block is not terminated")?;
    let b64: String = body[..end].chars().filter(|c| !c.is_whitespace()).collect();
    let der = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .map_err(|_| "the PEM body is not base64")?;
    match label {
        "PRIVATE KEY" => ring::signature::RsaKeyPair::from_pkcs8(&der)
            .map_err(|_| "not an RSA PKCS#8 key ring accepts"),
        "RSA PRIVATE KEY" => ring::signature::RsaKeyPair::from_der(&der)
            .map_err(|_| "not an RSA PKCS#1 key ring accepts"),
        _ => Err("not a private key (unexpected PEM label)"),
    }
}

/// RSASSA-PKCS1-v1_5 with SHA-256 of `message`.
pub(crate) fn sign_rs256(
    key: &ring::signature::RsaKeyPair,
    message: &[u8],
) -> Result<Vec<u8>, &'static str> {
    let mut signature = vec![0; key.public().modulus_len()];
    key.sign(
        &ring::signature::RSA_PKCS1_SHA256,
        &ring::rand::SystemRandom::new(),
        message,
        &mut signature,
    )
    .map_err(|_| "signing failed")?;
    Ok(signature)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_load_from_pkcs8_and_refuse_the_rest() {
        let pem = include_str!("../../../fixtures/oci/api_key.pem");
        let key = rsa_key(pem).expect("the test key loads");
        let sig = sign_rs256(&key, b"hello").unwrap();
        let public = ring::signature::UnparsedPublicKey::new(
            &ring::signature::RSA_PKCS1_2048_8192_SHA256,
            key.public().as_ref().to_vec(),
        );
        assert!(public.verify(b"hello", &sig).is_ok());
        assert!(rsa_key("not a key").is_err());
        assert!(
            rsa_key(
                "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----"
            )
            .unwrap_err()
            .contains("encrypted")
        );
        assert!(rsa_key("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----").is_err());
    }

    #[test]
    fn messages_lose_secrets_and_line_breaks() {
        assert_eq!(
            sanitize("bad  token sekrit\nagain", &["sekrit"]),
            "bad token *** again"
        );
        assert!(sanitize(&"x".repeat(500), &[]).chars().count() <= 241);
    }
}
