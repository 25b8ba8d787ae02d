//! One small HTTP(S) client for the plain GETs and POSTs outside the cloud
//! SDKs: catalog downloads and the EC2 zone lookup. It is the hyper/rustls
//! (ring) stack the GCP adapter and the AWS SDK already build, so it adds no
//! TLS stack or crypto backend.
//!
//! Every exchange is bounded: a connect timeout on the connector, a deadline
//! around sending *and* reading the body, and a cap on the body size.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

type HttpsClient = Client<hyper_rustls::HttpsConnector<HttpConnector>, Full<Bytes>>;

/// Why one exchange produced no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NetError {
    /// No complete answer within the deadline.
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    /// Not even the status line and headers within the time allowed for
    /// them ([`HttpClient::exchange_streamed`]'s `answer_within`): a host
    /// that accepts and stays silent, worth another host.
    #[error("no answer within {0:?}")]
    Silent(Duration),
    /// Connecting, TLS, or reading the body failed (a body cut short is this).
    #[error("{0}")]
    Transport(String),
    /// The body is larger than allowed.
    #[error("the answer is larger than {0} bytes")]
    TooLarge(usize),
}

/// A whole answer: status, headers and body.
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    /// HTTP status.
    pub status: StatusCode,
    /// The body, complete.
    pub body: Bytes,
}

/// A client; cheap to clone (the connection pool is shared).
#[derive(Clone)]
pub(crate) struct HttpClient {
    client: HttpsClient,
}

impl std::fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HttpClient")
    }
}

impl HttpClient {
    /// A client. `native_roots` loads the platform's CA roots, which only
    /// `https://` URLs need (and which is the most expensive part of
    /// construction: skipped for plain-http endpoints such as local mocks).
    pub fn new(native_roots: bool, connect_timeout: Duration) -> Result<HttpClient, String> {
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
                .map_err(|e| format!("cannot load TLS root certificates: {e}"))?
        } else {
            let config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map_err(|e| format!("TLS configuration: {e}"))?
                .with_root_certificates(rustls::RootCertStore::empty())
                .with_no_client_auth();
            builder.with_tls_config(config)
        };
        let connector = builder.https_or_http().enable_http1().wrap_connector(tcp);
        let client = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(30))
            .build(connector);
        Ok(HttpClient { client })
    }

    /// A client for `urls`: CA roots are loaded only when one of them is `https://`.
    pub fn for_urls<'a>(
        urls: impl IntoIterator<Item = &'a str>,
        connect_timeout: Duration,
    ) -> Result<HttpClient, String> {
        let tls = urls.into_iter().any(|u| u.starts_with("https://"));
        HttpClient::new(tls, connect_timeout)
    }

    /// Sends `request` and reads the whole answer (any status) within
    /// `deadline`, refusing a body over `max_body` bytes.
    pub async fn exchange(
        &self,
        request: Request<Full<Bytes>>,
        deadline: Duration,
        max_body: usize,
    ) -> Result<Answer, NetError> {
        let work = async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| NetError::Transport(crate::clouds::error_chain(&e)))?;
            let (parts, body) = response.into_parts();
            let body = Limited::new(body, max_body)
                .collect()
                .await
                .map_err(|e| {
                    if e.downcast_ref::<http_body_util::LengthLimitError>()
                        .is_some()
                    {
                        NetError::TooLarge(max_body)
                    } else {
                        NetError::Transport(format!("reading the answer: {}", error_text(&*e)))
                    }
                })?
                .to_bytes();
            Ok(Answer {
                status: parts.status,
                body,
            })
        };
        tokio::time::timeout(deadline, work)
            .await
            .unwrap_or(Err(NetError::Timeout(deadline)))
    }
}

/// An answer whose body went elsewhere ([`HttpClient::exchange_streamed`]).
#[derive(Debug, Clone)]
pub(crate) struct StreamedAnswer {
    /// HTTP status.
    pub status: StatusCode,
    /// Response headers.
    pub headers: HeaderMap,
    /// A success's body length (it went to the sink); otherwise the body
    /// itself, cut to [`ERROR_BODY_BYTES`] (for the error message).
    pub body: Streamed,
}

/// Where a [`StreamedAnswer`]'s body is.
#[derive(Debug, Clone)]
pub(crate) enum Streamed {
    /// A 2xx body, written to the sink: its length.
    Sunk(usize),
    /// Any other status's body, kept (at most [`ERROR_BODY_BYTES`]).
    Kept(Bytes),
}

/// Most of an error answer's body that is kept.
pub(crate) const ERROR_BODY_BYTES: usize = 64 << 10;

impl HttpClient {
    /// Sends `request` and, for a 2xx answer, hands each piece of the body
    /// to `sink` as it arrives — nothing of it is kept here, so memory does
    /// not grow with the body — all within `deadline`, refusing a body over
    /// `max_body` bytes (counted as it arrives). Any other status keeps at
    /// most [`ERROR_BODY_BYTES`] of its body. The status and headers must
    /// come within `answer_within` (at most `deadline`), else
    /// [`NetError::Silent`]: the rest of the deadline is left for another
    /// host.
    pub async fn exchange_streamed(
        &self,
        request: Request<Full<Bytes>>,
        deadline: Duration,
        answer_within: Duration,
        max_body: usize,
        mut sink: impl FnMut(&[u8]) -> Result<(), String> + Send,
    ) -> Result<StreamedAnswer, NetError> {
        let answer_within = answer_within.min(deadline);
        let work = async {
            let response = tokio::time::timeout(answer_within, self.client.request(request))
                .await
                .map_err(|_| NetError::Silent(answer_within))?
                .map_err(|e| NetError::Transport(crate::clouds::error_chain(&e)))?;
            let (parts, mut body) = response.into_parts();
            let success = parts.status.is_success();
            let mut kept = Vec::new();
            let mut seen = 0usize;
            while let Some(frame) = body.frame().await {
                let frame = frame.map_err(|e| {
                    NetError::Transport(format!("reading the answer: {}", error_text(&e)))
                })?;
                let Ok(data) = frame.into_data() else {
                    continue;
                };
                seen = seen.saturating_add(data.len());
                if success {
                    if seen > max_body {
                        return Err(NetError::TooLarge(max_body));
                    }
                    sink(&data).map_err(NetError::Transport)?;
                } else {
                    let room = ERROR_BODY_BYTES.saturating_sub(kept.len());
                    kept.extend_from_slice(&data[..data.len().min(room)]);
                    if room == 0 {
                        break;
                    }
                }
            }
            Ok(StreamedAnswer {
                status: parts.status,
                headers: parts.headers,
                body: if success {
                    Streamed::Sunk(seen)
                } else {
                    Streamed::Kept(Bytes::from(kept))
                },
            })
        };
        tokio::time::timeout(deadline, work)
            .await
            .unwrap_or(Err(NetError::Timeout(deadline)))
    }
}

/// An error and its sources on one line.
fn error_text(e: &(dyn std::error::Error + Send + Sync + 'static)) -> String {
    crate::clouds::error_chain(e)
}
