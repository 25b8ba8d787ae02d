//! The SDK side of the AWS adapter: its HTTP client (TLS only for
//! `https://` requests, bodies capped) and its configuration, built from the
//! injected environment and home folder, never the process's.

use std::collections::HashMap;

use aws_config::BehaviorVersion;
use aws_config::retry::RetryConfig;
use aws_config::timeout::TimeoutConfig;
use aws_runtime::env_config::file::{EnvConfigFileKind, EnvConfigFiles};
use aws_sdk_sts::config::SharedHttpClient;
use aws_smithy_http_client::tls;
use aws_types::SdkConfig;
use aws_types::os_shim_internal::{Env, Fs};
use tracing::debug;

use super::credentials::{SharedFiles, Source};
use super::options::AwsOptions;
use crate::clouds::CheckContext;
use crate::clouds::http::{CappedHttpClient, MAX_STS_BODY_BYTES};

/// The SDK's HTTP client for every call of an adapter, and the TLS client
/// inside it (for [`prewarm_tls`]). The HTTPS client (rustls with ring) is
/// built here, once per adapter.
pub(super) fn http_clients() -> (SharedHttpClient, SharedHttpClient) {
    let https = aws_smithy_http_client::Builder::new()
        .tls_provider(tls::Provider::Rustls(
            tls::rustls_provider::CryptoMode::Ring,
        ))
        .build_https();
    let http = TlsOnlyForHttps {
        plain: aws_smithy_http_client::Builder::new().build_http(),
        tls: https.clone(),
    };
    // Every body the SDK reads is capped: an STS stand-in that streams
    // forever must not grow the process.
    let http = SharedHttpClient::new(CappedHttpClient::new(
        SharedHttpClient::new(http),
        MAX_STS_BODY_BYTES,
    ));
    (http, https)
}

/// The SDK's HTTP client, with TLS only for `https://` requests: the stock
/// client builds its TLS connector — loading the system trust store, ~150
/// PEM files, 8–20 ms — before its first request, whatever the scheme. This
/// one sends plain-HTTP requests (local STS stand-ins, VPC endpoint
/// proxies) through a plain connector and builds the TLS one on the first
/// `https://` request.
#[derive(Debug)]
struct TlsOnlyForHttps {
    plain: SharedHttpClient,
    tls: SharedHttpClient,
}

impl aws_smithy_runtime_api::client::http::HttpClient for TlsOnlyForHttps {
    fn http_connector(
        &self,
        settings: &aws_smithy_runtime_api::client::http::HttpConnectorSettings,
        components: &aws_smithy_runtime_api::client::runtime_components::RuntimeComponents,
    ) -> aws_smithy_runtime_api::client::http::SharedHttpConnector {
        aws_smithy_runtime_api::client::http::SharedHttpConnector::new(SchemeConnector {
            plain: self.plain.http_connector(settings, components),
            tls: self.tls.clone(),
            settings: settings.clone(),
            components: components.clone(),
            tls_connector: std::sync::OnceLock::new(),
        })
    }

    fn connector_metadata(
        &self,
    ) -> Option<aws_smithy_runtime_api::client::connector_metadata::ConnectorMetadata> {
        self.tls.connector_metadata()
    }
}

/// [`TlsOnlyForHttps`]'s connector: routes each request by its scheme.
#[derive(Debug)]
struct SchemeConnector {
    plain: aws_smithy_runtime_api::client::http::SharedHttpConnector,
    tls: SharedHttpClient,
    settings: aws_smithy_runtime_api::client::http::HttpConnectorSettings,
    components: aws_smithy_runtime_api::client::runtime_components::RuntimeComponents,
    tls_connector: std::sync::OnceLock<aws_smithy_runtime_api::client::http::SharedHttpConnector>,
}

impl aws_smithy_runtime_api::client::http::HttpConnector for SchemeConnector {
    fn call(
        &self,
        request: aws_smithy_runtime_api::client::orchestrator::HttpRequest,
    ) -> aws_smithy_runtime_api::client::http::HttpConnectorFuture {
        use aws_smithy_runtime_api::client::http::HttpClient;
        if request.uri().starts_with("http://") {
            return self.plain.call(request);
        }
        self.tls_connector
            .get_or_init(|| self.tls.http_connector(&self.settings, &self.components))
            .call(request)
    }
}

/// Loads the system trust store on a detached thread when this launch
/// will certainly call STS (`--refresh`, or no identity was ever cached in
/// this state folder: `cached_before` false): the request then follows the
/// SDK configuration and the cache set-up (key, folders, fsyncs), work the
/// 8–20 ms load can overlap. Detached, so it never delays the exit.
pub(super) fn prewarm_tls(
    https: &SharedHttpClient,
    endpoint_url: Option<&str>,
    ctx: &CheckContext,
    cached_before: bool,
) {
    if (cached_before && !ctx.refresh) || sts_endpoint_is_plain_http(endpoint_url, ctx) {
        return;
    }
    let https = https.clone();
    let spawned = std::thread::Builder::new()
        .name("tls-prewarm".into())
        .spawn(move || {
            use aws_smithy_runtime_api::client::http::HttpClient;
            use aws_smithy_runtime_api::client::runtime_components::RuntimeComponentsBuilder;
            // Builds a connector as the first request would; the loaded
            // trust store is kept for the process.
            let _ = https.validate_base_client_config(
                &RuntimeComponentsBuilder::new("tls-prewarm"),
                &aws_sdk_sts::config::ConfigBag::base(),
            );
        });
    if let Err(e) = spawned {
        debug!(error = %e, "cannot start the TLS prewarm thread");
    }
}

/// Whether STS is reached over plain HTTP (an endpoint override, as the
/// SDK resolves them: the option, then `AWS_ENDPOINT_URL_STS`, then
/// `AWS_ENDPOINT_URL`): then no request needs the trust store.
fn sts_endpoint_is_plain_http(endpoint_url: Option<&str>, ctx: &CheckContext) -> bool {
    let ignore_env = ctx
        .env
        .get("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let endpoint = endpoint_url.map(str::to_string).or_else(|| {
        (!ignore_env)
            .then(|| {
                ctx.env
                    .get("AWS_ENDPOINT_URL_STS")
                    .or_else(|| ctx.env.get("AWS_ENDPOINT_URL"))
                    .cloned()
            })
            .flatten()
    });
    endpoint.is_some_and(|e| e.starts_with("http://"))
}

/// The SDK configuration from the injected environment and home folder.
pub(super) async fn sdk_config(
    options: &AwsOptions,
    http: &SharedHttpClient,
    ctx: &CheckContext,
    files: &SharedFiles,
    source: &Source,
) -> SdkConfig {
    let mut env: HashMap<String, String> = ctx
        .env
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    env.insert("HOME".to_string(), ctx.home.to_string_lossy().into_owned());
    // Detection already ruled instance metadata out as the credential
    // source; without this the region and credential chains would probe
    // 169.254.169.254 on every machine that is not an EC2 instance.
    if !matches!(source, Source::InstanceMetadata) && !files.mentions("credential_source") {
        env.entry("AWS_EC2_METADATA_DISABLED".to_string())
            .or_insert_with(|| "true".to_string());
    }
    // The files are handed over as contents, so the SDK resolves exactly
    // the bytes that went into the cache key.
    let profile_files = EnvConfigFiles::builder()
        .with_contents(
            EnvConfigFileKind::Config,
            files.config.clone().unwrap_or_default(),
        )
        .with_contents(
            EnvConfigFileKind::Credentials,
            files.credentials.clone().unwrap_or_default(),
        )
        .build();
    let timeouts = TimeoutConfig::builder()
        .connect_timeout(options.service.connect_timeout)
        .operation_attempt_timeout(options.service.request_timeout)
        .operation_timeout(options.operation_timeout)
        .build();
    let retries = RetryConfig::standard()
        .with_max_attempts(options.service.max_attempts.max(1))
        .with_initial_backoff(options.service.retry_backoff)
        .with_max_backoff(options.service.retry_backoff * 4);
    let mut loader = aws_config::defaults(BehaviorVersion::latest())
        .env(Env::from(env))
        .fs(Fs::real())
        .profile_files(profile_files)
        .http_client(http.clone())
        .timeout_config(timeouts)
        .retry_config(retries);
    if let Some(url) = &options.endpoint_url {
        loader = loader.endpoint_url(url);
    }
    loader.load().await
}
