//! Bounded HTTP answers for every adapter.
//!
//! An endpoint that answers 200 and then streams forever (or sends 100 MB)
//! must not grow the process without bound before a deadline ends it. Every
//! adapter reads bodies through a cap:
//!
//! * hyper or kube bodies: [`read_capped`] (the GCP REST client, the
//!   Kubernetes node listing);
//! * the AWS SDK, which reads bodies itself: [`CappedHttpClient`] wraps the
//!   SDK's HTTP client so every response body it hands the SDK is
//!   [`Limited`]; past the cap the SDK sees a body error.
//!
//! New adapters should do the same with a cap of their own size (the
//! constants below), and put [`crate::redact::redact`] around any URL or
//! error chain they log.

use aws_smithy_runtime_api::client::connector_metadata::ConnectorMetadata;
use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpClient,
    SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::HttpRequest;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::body::SdkBody;
use bytes::Bytes;
use http_body_util::{BodyExt, Limited};

/// Largest AWS STS answer (a `GetCallerIdentity` response is under 1 kB).
pub const MAX_STS_BODY_BYTES: usize = 1 << 20;
/// Largest GCP REST answer (a big project's reservation list is a few MB).
pub const MAX_GCP_BODY_BYTES: usize = 8 << 20;
/// Largest answer of a storage check (an S3 `ListBuckets` asked for one
/// bucket, a Hugging Face `whoami`: a few kB).
pub const MAX_STORAGE_BODY_BYTES: usize = 1 << 20;
/// Largest page of a Kubernetes node listing (pages are requested with a
/// `limit`, so a large cluster comes in several pages below this).
pub const MAX_KUBE_PAGE_BYTES: usize = 16 << 20;

/// Why a capped body could not be read.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    /// The body is larger than the cap.
    #[error("the answer is larger than {limit} bytes")]
    TooLarge {
        /// The cap.
        limit: usize,
    },
    /// Reading failed (connection reset, ...).
    #[error("reading the answer: {0}")]
    Read(String),
}

/// Reads a whole body, failing as soon as it passes `limit` bytes.
pub async fn read_capped<B>(body: B, limit: usize) -> Result<Bytes, BodyError>
where
    B: http_body::Body<Data = Bytes>,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    match Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => Err(BodyError::TooLarge { limit }),
        Err(e) => Err(BodyError::Read(crate::clouds::error_chain(&*e))),
    }
}

/// An AWS SDK HTTP client whose response bodies are capped at `limit` bytes.
#[derive(Debug)]
pub struct CappedHttpClient {
    inner: SharedHttpClient,
    limit: usize,
}

impl CappedHttpClient {
    /// Wraps `inner`.
    pub fn new(inner: SharedHttpClient, limit: usize) -> Self {
        CappedHttpClient { inner, limit }
    }
}

impl HttpClient for CappedHttpClient {
    fn http_connector(
        &self,
        settings: &HttpConnectorSettings,
        components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        SharedHttpConnector::new(CappedConnector {
            inner: self.inner.http_connector(settings, components),
            limit: self.limit,
        })
    }

    fn connector_metadata(&self) -> Option<ConnectorMetadata> {
        self.inner.connector_metadata()
    }
}

#[derive(Debug)]
struct CappedConnector {
    inner: SharedHttpConnector,
    limit: usize,
}

impl HttpConnector for CappedConnector {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let call = self.inner.call(request);
        let limit = self.limit;
        HttpConnectorFuture::new(async move {
            let response = call.await?;
            Ok(response.map(move |body| SdkBody::from_body_1_x(Limited::new(body, limit))))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::{Full, StreamBody};

    #[tokio::test]
    async fn bodies_past_the_cap_fail_without_being_read_whole() {
        let small = Full::new(Bytes::from_static(b"hello"));
        assert_eq!(read_capped(small, 5).await.unwrap(), "hello");
        let big = Full::new(Bytes::from(vec![0u8; 1024]));
        assert!(matches!(
            read_capped(big, 100).await,
            Err(BodyError::TooLarge { limit: 100 })
        ));
        // An endless stream stops at the cap.
        let endless = StreamBody::new(futures::stream::repeat_with(|| {
            Ok::<_, std::io::Error>(http_body::Frame::data(Bytes::from_static(&[b'x'; 4096])))
        }));
        assert!(matches!(
            read_capped(endless, 1 << 20).await,
            Err(BodyError::TooLarge { .. })
        ));
    }
}
