//! AWS: credential chain, STS GetCallerIdentity and the identity cache.
//!
//! SkyPilot needs the caller identity only to pick the account's
//! availability-zone mapping file (`az_mappings-<md5(UserId)[:8]>.csv`, see
//! [`az_mapping_hash`]). It caches `[UserId, Account]` forever, keyed by an
//! md5 of `aws configure list`, which masks all but four characters of the
//! key: rotating a key with the same suffix, or changing the secret or the
//! token, returns a stale identity. This adapter keys the cache by an HMAC of
//! everything that selects the identity (resolved key id, secret and token,
//! profile, region, endpoints, and the contents of the shared config and
//! credentials files), bounds it with a TTL and the credentials' own expiry,
//! and serialises fetchers across processes with a per-key lock.
//!
//! The adapter never reads the process environment or `$HOME` directly: the
//! SDK's default chain runs on [`CheckContext::env`] and [`CheckContext::home`].

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use aws_config::BehaviorVersion;
use aws_config::retry::RetryConfig;
use aws_config::timeout::TimeoutConfig;
use aws_credential_types::provider::ProvideCredentials;
use aws_credential_types::provider::error::CredentialsError;
use aws_runtime::env_config::file::{EnvConfigFileKind, EnvConfigFiles};
use aws_sdk_sts::config::{Region, SharedHttpClient};
use aws_sdk_sts::error::{ProvideErrorMetadata, SdkError};
use aws_smithy_http_client::tls;
use aws_types::SdkConfig;
use aws_types::os_shim_internal::{Env, Fs};
use futures::future::BoxFuture;
use md5::{Digest, Md5};
use tracing::{Instrument, debug, warn};

mod ec2;
mod s3;

pub use ec2::AzMappingFetch;

use super::{CheckContext, Cloud, Credentials, StorageCheck};
use crate::config::expand_home;
use crate::state::{CacheStore, Clock, KeyedHasher, Lookup, StateDir};
use planner::check::{
    AwsFacts, AwsIdentity, CacheUse, CheckOutcome, CloudError, CloudFacts, StorageOutcome,
};
use planner::cloud::{CloudId, Provider};

/// The cache kind (folder under the state directory) of AWS identities.
pub const IDENTITY_CACHE_KIND: &str = "identity";
/// Layout version of the cached [`AwsIdentity`]; bump it when the value changes shape.
pub const IDENTITY_CACHE_SCHEMA: u32 = 1;

/// A cached identity must stop being used this long before the credentials
/// that produced it expire, so a hit never outlives a usable session.
const CREDENTIAL_EXPIRY_MARGIN: Duration = Duration::from_secs(5 * 60);
/// STS is global; boto3 signs for us-east-1 when no region is configured.
const FALLBACK_REGION: &str = "us-east-1";
/// Slack over the SDK's own operation timeout before the outer guard fires.
const OUTER_GUARD_SLACK: Duration = Duration::from_millis(500);
/// Longest service message kept in an error (one line, no dumps).
const MAX_MESSAGE_CHARS: usize = 240;

const NO_CREDENTIALS: &str = "AWS credentials are not set. Run the following commands:\n    \
    $ aws configure\n    \
    $ aws configure list  # Ensure that this shows identity is set.\n\
    For more info: https://docs.skypilot.co/en/latest/getting-started/installation.html#cloud-account-setup";

/// Error codes that mean "these credentials are not accepted".
const AUTH_ERROR_CODES: &[&str] = &[
    "ExpiredToken",
    "ExpiredTokenException",
    "InvalidClientTokenId",
    "SignatureDoesNotMatch",
    "AccessDenied",
    "AccessDeniedException",
    "UnrecognizedClientException",
    "InvalidAccessKeyId",
    "AuthFailure",
];

/// Keys that make a shared-file profile a credential source.
const PROFILE_CREDENTIAL_KEYS: &[&str] = &[
    "aws_access_key_id",
    "role_arn",
    "credential_process",
    "credential_source",
    "web_identity_token_file",
    "sso_session",
    "sso_start_url",
    "sso_account_id",
    "login_session",
];

/// Knobs of the AWS adapter. Every field's default is given in its doc.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AwsOptions {
    /// STS endpoint override (tests, VPC endpoints). Beats `AWS_ENDPOINT_URL_STS`,
    /// which beats `AWS_ENDPOINT_URL` (both read from [`CheckContext::env`]).
    /// Default: none.
    pub endpoint_url: Option<String>,
    /// Deadline for one HTTP attempt, response included. Default: 2 s.
    pub attempt_timeout: Duration,
    /// Deadline for the whole STS call, all attempts and backoff included.
    /// Default: 5 s.
    pub operation_timeout: Duration,
    /// Attempts per STS call (1 = no retry). Default: 2.
    pub max_attempts: u32,
    /// First retry backoff (jittered, doubling, capped at 4×). Default: 100 ms.
    pub initial_backoff: Duration,
    /// TCP/TLS connect deadline. Default: 1 s.
    pub connect_timeout: Duration,
    /// Deadline for resolving credentials (credential_process, IMDS,
    /// container endpoint, web identity). Default: 5 s.
    pub credentials_timeout: Duration,
    /// How long a fetched identity is reused. Default: 1 h.
    pub identity_ttl: Duration,
    /// How long to wait for another process that is fetching the same
    /// identity before fetching anyway. Default: 10 s.
    pub lock_wait: Duration,
    /// Treat an EC2 instance (detected from `/sys` DMI data) as having
    /// credentials through the instance role. Default: true.
    pub detect_ec2: bool,
    /// The time source for cache ages and expiry. Default: the system clock.
    pub clock: Clock,
    /// Fetch the account's zone names into SkyPilot's catalog folder when
    /// the identity has no `aws/az_mappings-<hash>.csv` yet (EC2
    /// `DescribeAvailabilityZones`, see [`AzMappingFetch`]). Default: none
    /// (a launch sets it when it uses SkyPilot's folder).
    pub az_mappings: Option<AzMappingFetch>,
    /// S3 endpoint of `sky check`'s storage check (`ListBuckets`; tests,
    /// VPC endpoints). Beats `AWS_ENDPOINT_URL_S3`, which beats
    /// `AWS_ENDPOINT_URL`. Default: none (`https://s3.<region>.amazonaws.com`).
    pub s3_endpoint_url: Option<String>,
}

impl Default for AwsOptions {
    fn default() -> Self {
        AwsOptions {
            endpoint_url: None,
            attempt_timeout: Duration::from_secs(2),
            operation_timeout: Duration::from_secs(5),
            max_attempts: 2,
            initial_backoff: Duration::from_millis(100),
            connect_timeout: Duration::from_secs(1),
            credentials_timeout: Duration::from_secs(5),
            identity_ttl: Duration::from_secs(60 * 60),
            lock_wait: Duration::from_secs(10),
            detect_ec2: true,
            clock: Clock::system(),
            az_mappings: None,
            s3_endpoint_url: None,
        }
    }
}

/// The AWS adapter: local credential detection, and the caller identity
/// through a cross-process, on-disk cache in front of STS GetCallerIdentity.
///
/// `check` returns `Err(CloudError::Config("AWS credentials are not set..."))`
/// when no credentials exist, rather than `Ok` with `identity: None`: the
/// fan-out decides whether a cloud without credentials is fatal.
pub struct AwsCloud {
    options: AwsOptions,
    http: SharedHttpClient,
    /// The TLS client inside `http`, for [`AwsCloud::prewarm_tls`].
    https: SharedHttpClient,
    /// One resolution for every check of this adapter (see
    /// [`AwsCloud::sharing_identity`]); `None`: each check resolves anew.
    shared: Option<tokio::sync::OnceCell<Result<Resolved, CloudError>>>,
}

/// What the credential chain and STS said: the compute check's answer, the
/// credentials it signed with, and the region they are configured for.
#[derive(Clone)]
struct Resolved {
    outcome: CheckOutcome,
    creds: aws_credential_types::Credentials,
    region: String,
}

impl fmt::Debug for AwsCloud {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AwsCloud")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
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

impl Default for AwsCloud {
    fn default() -> Self {
        AwsCloud::new(AwsOptions::default())
    }
}

impl AwsCloud {
    /// An adapter with these options. The HTTPS client (rustls with ring)
    /// is built once here and shared by every check.
    pub fn new(options: AwsOptions) -> Self {
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
        let http = SharedHttpClient::new(super::http::CappedHttpClient::new(
            SharedHttpClient::new(http),
            super::http::MAX_STS_BODY_BYTES,
        ));
        AwsCloud {
            options,
            http,
            https,
            shared: None,
        }
    }

    /// An adapter whose compute check ([`Cloud::check`]) and storage check
    /// ([`StorageCheck::check_storage`]) share one credential resolution
    /// and STS call, as SkyPilot caches `_check_credentials_exist` per
    /// request: what `sky check` builds. Resolving again means a new adapter.
    pub fn sharing_identity(options: AwsOptions) -> Self {
        AwsCloud {
            shared: Some(tokio::sync::OnceCell::new()),
            ..AwsCloud::new(options)
        }
    }

    /// The options this adapter was built with.
    pub fn options(&self) -> &AwsOptions {
        &self.options
    }

    /// Loads the system trust store on a detached thread when this launch
    /// will certainly call STS (`--refresh`, or no identity was ever cached in
    /// this state folder): the request then follows the SDK configuration and
    /// the cache set-up (key, folders, fsyncs), work the 8–20 ms load can
    /// overlap. Detached, so it never delays the exit.
    fn prewarm_tls(&self, ctx: &CheckContext) {
        let cached_before = std::fs::read_dir(ctx.state_dir.join(IDENTITY_CACHE_KIND))
            .is_ok_and(|mut entries| entries.next().is_some());
        if (cached_before && !ctx.refresh) || self.sts_endpoint_is_plain_http(ctx) {
            return;
        }
        let https = self.https.clone();
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
    fn sts_endpoint_is_plain_http(&self, ctx: &CheckContext) -> bool {
        let ignore_env = ctx
            .env
            .get("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")
            .is_some_and(|v| v.eq_ignore_ascii_case("true"));
        let endpoint = self.options.endpoint_url.clone().or_else(|| {
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

    /// The identity, then — when SkyPilot would — the account's zone names,
    /// within what is left of the cloud's deadline (a slow EC2 only costs the
    /// mapping, never the AWS check).
    async fn identity(&self, ctx: &CheckContext) -> Result<CheckOutcome, CloudError> {
        let started = tokio::time::Instant::now();
        let Resolved {
            mut outcome, creds, ..
        } = self.resolve(ctx).await?;
        if let (Some(fetch), CloudFacts::Aws(facts)) =
            (&self.options.az_mappings, &mut outcome.facts)
            && let Some(identity) = &facts.identity
        {
            // Leave the fan-out a margin to take the answer before its deadline.
            let deadline = started + ctx.cloud_timeout.saturating_sub(OUTER_GUARD_SLACK);
            facts.warnings = ec2::ensure_mapping(
                fetch,
                &ctx.env,
                &creds,
                &az_mapping_hash(&identity.user_id),
                deadline,
            )
            .instrument(tracing::debug_span!("aws_az_mapping"))
            .await;
        }
        Ok(outcome)
    }

    /// [`AwsCloud::identity_and_credentials`], once per adapter when it is
    /// [shared](AwsCloud::sharing_identity).
    async fn resolve(&self, ctx: &CheckContext) -> Result<Resolved, CloudError> {
        match &self.shared {
            Some(cell) => cell
                .get_or_init(|| self.identity_and_credentials(ctx))
                .await
                .clone(),
            None => self.identity_and_credentials(ctx).await,
        }
    }

    async fn identity_and_credentials(&self, ctx: &CheckContext) -> Result<Resolved, CloudError> {
        self.prewarm_tls(ctx);
        let files = SharedFiles::read(ctx)?;
        let source = detect(ctx, &files, self.options.detect_ec2).map_err(CloudError::Config)?;
        let sdk = self.sdk_config(ctx, &files, &source).await;
        let creds = self.resolve_credentials(&sdk).await?;
        // From here on, whatever is logged (ours or the SDK's) has these masked.
        crate::redact::remember_secret(creds.access_key_id());
        crate::redact::remember_secret(creds.secret_access_key());
        if let Some(token) = creds.session_token() {
            crate::redact::remember_secret(token);
        }
        let region = sdk
            .region()
            .map(|r| r.to_string())
            .unwrap_or_else(|| FALLBACK_REGION.to_string());
        let cache = self.open_cache(ctx).map(|(store, hasher)| {
            let key = self.fingerprint(&hasher, ctx, &files, &creds, &region);
            (store, key)
        });
        let span = tracing::Span::current();

        if let Some((store, key)) = &cache
            && !ctx.refresh
        {
            match store.get::<AwsIdentity>(key) {
                Lookup::Hit { value, age } => {
                    span.record("cache", "hit");
                    debug!(
                        cache = "hit",
                        age_ms = age.as_millis() as u64,
                        "AWS identity from the cache"
                    );
                    return Ok(Resolved {
                        outcome: outcome(value, CacheUse::Hit { age }),
                        creds,
                        region,
                    });
                }
                Lookup::Miss(reason) => {
                    debug!(cache = "miss", reason = %reason, "AWS identity not cached")
                }
            }
        }

        // Serialise fetchers of the same identity across processes; a lock
        // that cannot be had in time only costs a duplicate STS call.
        let guard = match &cache {
            Some((store, key)) => match store.lock(key, self.options.lock_wait).await {
                Ok(lock) => Some(lock),
                Err(e) => {
                    warn!(error = %e, "fetching the AWS identity without the cache lock");
                    None
                }
            },
            None => None,
        };
        if let (Some((store, key)), Some(_)) = (&cache, &guard)
            && !ctx.refresh
            && let Lookup::Hit { value, age } = store.get::<AwsIdentity>(key)
        {
            span.record("cache", "hit");
            debug!(
                cache = "hit",
                age_ms = age.as_millis() as u64,
                "AWS identity cached by another process"
            );
            return Ok(Resolved {
                outcome: outcome(value, CacheUse::Hit { age }),
                creds,
                region,
            });
        }

        span.record("cache", "miss");
        match self
            .get_caller_identity(&sdk, &creds, ctx.cloud_timeout)
            .await
        {
            Ok(identity) => {
                if let Some((store, key)) = &cache {
                    self.remember(store, key, &identity, &creds);
                }
                Ok(Resolved {
                    outcome: outcome(identity, CacheUse::Miss),
                    creds,
                    region,
                })
            }
            Err(CloudError::Auth(message)) => {
                if let Some((store, key)) = &cache
                    && let Err(e) = store.remove(key)
                {
                    warn!(error = %e, "cannot drop the rejected AWS identity from the cache");
                }
                Err(CloudError::Auth(message))
            }
            Err(e) => Err(e),
        }
    }

    /// The SDK configuration from the injected environment and home folder.
    async fn sdk_config(
        &self,
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
            .connect_timeout(self.options.connect_timeout)
            .operation_attempt_timeout(self.options.attempt_timeout)
            .operation_timeout(self.options.operation_timeout)
            .build();
        let retries = RetryConfig::standard()
            .with_max_attempts(self.options.max_attempts.max(1))
            .with_initial_backoff(self.options.initial_backoff)
            .with_max_backoff(self.options.initial_backoff * 4);
        let mut loader = aws_config::defaults(BehaviorVersion::latest())
            .env(Env::from(env))
            .fs(Fs::real())
            .profile_files(profile_files)
            .http_client(self.http.clone())
            .timeout_config(timeouts)
            .retry_config(retries);
        if let Some(url) = &self.options.endpoint_url {
            loader = loader.endpoint_url(url);
        }
        loader.load().await
    }

    async fn resolve_credentials(
        &self,
        sdk: &SdkConfig,
    ) -> Result<aws_credential_types::Credentials, CloudError> {
        let provider = sdk
            .credentials_provider()
            .ok_or_else(|| CloudError::Config(NO_CREDENTIALS.to_string()))?;
        let bound = self.options.credentials_timeout;
        match tokio::time::timeout(bound, provider.provide_credentials()).await {
            Err(_) => Err(CloudError::Timeout(bound)),
            Ok(Ok(creds)) => Ok(creds),
            Ok(Err(CredentialsError::CredentialsNotLoaded(_))) => {
                Err(CloudError::Config(NO_CREDENTIALS.to_string()))
            }
            Ok(Err(CredentialsError::ProviderTimedOut(_))) => Err(CloudError::Timeout(bound)),
            Ok(Err(e @ CredentialsError::InvalidConfiguration(_))) => Err(CloudError::Config(
                format!("Invalid AWS configuration: {}", one_line(&e, &[])),
            )),
            Ok(Err(e)) => Err(CloudError::Config(format!(
                "Failed to load AWS credentials: {}",
                one_line(&e, &[])
            ))),
        }
    }

    fn open_cache(&self, ctx: &CheckContext) -> Option<(CacheStore, KeyedHasher)> {
        let opened = StateDir::open(&ctx.state_dir).and_then(|dir| {
            let store = dir.store(IDENTITY_CACHE_KIND, IDENTITY_CACHE_SCHEMA)?;
            Ok((store.with_clock(self.options.clock.clone()), dir.hasher()?))
        });
        match opened {
            Ok(cache) => Some(cache),
            Err(e) => {
                // The cache is an optimisation: a broken state folder must
                // not make AWS unusable, but the user should hear about it.
                warn!(error = %e, "AWS identity cache disabled");
                None
            }
        }
    }

    /// The cache key: an HMAC of every input that selects the identity.
    fn fingerprint(
        &self,
        hasher: &KeyedHasher,
        ctx: &CheckContext,
        files: &SharedFiles,
        creds: &aws_credential_types::Credentials,
        region: &str,
    ) -> String {
        let env = |name: &str| opt(ctx.env.get(name).map(String::as_str));
        let config_path = files.config_path.to_string_lossy();
        let credentials_path = files.credentials_path.to_string_lossy();
        let fields: Vec<(&str, Vec<u8>)> = vec![
            ("access_key_id", creds.access_key_id().as_bytes().to_vec()),
            (
                "secret_access_key",
                creds.secret_access_key().as_bytes().to_vec(),
            ),
            ("session_token", opt(creds.session_token())),
            ("profile", env("AWS_PROFILE")),
            ("region", region.as_bytes().to_vec()),
            (
                "endpoint_override",
                opt(self.options.endpoint_url.as_deref()),
            ),
            ("env_endpoint_sts", env("AWS_ENDPOINT_URL_STS")),
            ("env_endpoint", env("AWS_ENDPOINT_URL")),
            (
                "env_ignore_endpoints",
                env("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"),
            ),
            ("config_path", config_path.as_bytes().to_vec()),
            ("config_contents", opt(files.config.as_deref())),
            ("credentials_path", credentials_path.as_bytes().to_vec()),
            ("credentials_contents", opt(files.credentials.as_deref())),
        ];
        let borrowed: Vec<(&str, &[u8])> = fields.iter().map(|(l, v)| (*l, v.as_slice())).collect();
        hasher.digest(&borrowed)
    }

    fn remember(
        &self,
        store: &CacheStore,
        key: &str,
        identity: &AwsIdentity,
        creds: &aws_credential_types::Credentials,
    ) {
        let now = self.options.clock.now();
        let mut expires = now + self.options.identity_ttl;
        if let Some(cred_expiry) = creds.expiry() {
            expires = expires.min(
                cred_expiry
                    .checked_sub(CREDENTIAL_EXPIRY_MARGIN)
                    .unwrap_or(SystemTime::UNIX_EPOCH),
            );
        }
        if expires <= now {
            debug!("AWS credentials expire too soon to cache the identity");
            return;
        }
        if let Err(e) = store.put_until(key, identity, expires) {
            warn!(error = %e, "cannot cache the AWS identity");
        }
    }

    async fn get_caller_identity(
        &self,
        sdk: &SdkConfig,
        creds: &aws_credential_types::Credentials,
        cloud_timeout: Duration,
    ) -> Result<AwsIdentity, CloudError> {
        // Sign with the credentials that were fingerprinted, not a second
        // run of the chain (which could return a different session).
        let mut conf = aws_sdk_sts::config::Builder::from(sdk).credentials_provider(creds.clone());
        if sdk.region().is_none() {
            conf = conf.region(Region::from_static(FALLBACK_REGION));
        }
        // The deadline in force is the shorter of the SDK's operation
        // timeout and the per-cloud one, and that is the one a timeout names.
        let bound = self.options.operation_timeout.min(cloud_timeout);
        let attempt = self.options.attempt_timeout.min(bound);
        conf = conf.timeout_config(
            TimeoutConfig::builder()
                .connect_timeout(self.options.connect_timeout.min(bound))
                .operation_attempt_timeout(attempt)
                .operation_timeout(bound)
                .build(),
        );
        let client = aws_sdk_sts::Client::from_conf(conf.build());
        // The SDK enforces `bound` itself; this guard only covers a stuck
        // sleep or resolver outside its timeout machinery.
        let call = tokio::time::timeout(
            bound.saturating_add(OUTER_GUARD_SLACK),
            client.get_caller_identity().send(),
        );
        let secrets = [
            creds.secret_access_key(),
            creds.session_token().unwrap_or_default(),
        ];
        let output = match call.await {
            Err(_) => return Err(CloudError::Timeout(bound)),
            Ok(Err(e)) => return Err(classify_sts_error(&e, bound, &secrets)),
            Ok(Ok(output)) => output,
        };
        let field = |v: Option<&str>| v.filter(|s| !s.is_empty()).map(str::to_string);
        match (
            field(output.user_id()),
            field(output.account()),
            field(output.arn()),
        ) {
            (Some(user_id), Some(account), Some(arn)) => Ok(AwsIdentity {
                user_id,
                account,
                arn,
            }),
            _ => Err(CloudError::Service(
                "Failed to get AWS user: STS GetCallerIdentity returned an incomplete identity"
                    .into(),
            )),
        }
    }
}

impl Cloud for AwsCloud {
    fn id(&self) -> CloudId {
        CloudId::Aws
    }

    fn credentials(&self, ctx: &CheckContext) -> Credentials {
        let files = match SharedFiles::read(ctx) {
            Ok(files) => files,
            Err(e) => return Credentials::Missing(e.to_string()),
        };
        match detect(ctx, &files, self.options.detect_ec2) {
            Ok(source) => Credentials::Present(source.describe(&files)),
            Err(hint) => Credentials::Missing(hint),
        }
    }

    fn check<'a>(
        &'a self,
        ctx: &'a CheckContext,
    ) -> BoxFuture<'a, Result<CheckOutcome, CloudError>> {
        let span = tracing::debug_span!("aws_identity", cache = tracing::field::Empty);
        Box::pin(self.identity(ctx).instrument(span))
    }
}

impl AwsCloud {
    /// `AWS._check_storage_credentials`: the compute check's credentials
    /// and identity (its answer, when they fail), then `ListBuckets`.
    async fn storage(&self, ctx: &CheckContext) -> StorageOutcome {
        let started = tokio::time::Instant::now();
        if let Credentials::Missing(hint) = self.credentials(ctx) {
            return StorageOutcome::Disabled(hint);
        }
        let resolved = match self.resolve(ctx).await {
            Ok(r) => r,
            Err(e) => return StorageOutcome::Failed(e),
        };
        let identity = match &resolved.outcome.facts {
            CloudFacts::Aws(AwsFacts {
                identity: Some(i), ..
            }) => format!("{} [account={}]", i.user_id, i.account),
            _ => "None".to_string(),
        };
        let endpoint = s3::endpoint(
            self.options.s3_endpoint_url.as_deref(),
            &ctx.env,
            &resolved.region,
        );
        // Leave the fan-out a margin to take the answer before its deadline.
        let left = (started + ctx.cloud_timeout.saturating_sub(OUTER_GUARD_SLACK))
            .saturating_duration_since(tokio::time::Instant::now())
            .min(self.options.operation_timeout);
        let result = s3::list_buckets(
            &endpoint,
            &resolved.region,
            &resolved.creds,
            self.options.connect_timeout,
            left,
        )
        .instrument(tracing::debug_span!("aws_s3_list_buckets"))
        .await;
        match result {
            Ok(()) => StorageOutcome::Enabled,
            Err(s3::ListBucketsError::Transport(e)) => StorageOutcome::Failed(e),
            Err(s3::ListBucketsError::Client {
                status,
                code,
                message,
            }) => {
                let text = format!(
                    "Failed to list buckets for the account {identity}. It is likely due to permission issues, please check the storage permission required for AWS: https://docs.skypilot.co/en/latest/cloud-setup/cloud-permissions/aws.html\n    Details: [botocore.exceptions.ClientError] {}",
                    s3::ListBucketsError::client_error_text(&code, &message)
                );
                // Throttling and server errors say nothing about the
                // permission: not a verdict.
                if status >= 500 || status == 429 || code == "SlowDown" {
                    StorageOutcome::Failed(CloudError::Service(text))
                } else {
                    StorageOutcome::Disabled(text)
                }
            }
        }
    }
}

impl StorageCheck for AwsCloud {
    fn provider(&self) -> Provider {
        Provider::Cloud(CloudId::Aws)
    }

    fn check_storage<'a>(&'a self, ctx: &'a CheckContext) -> BoxFuture<'a, StorageOutcome> {
        Box::pin(
            self.storage(ctx)
                .instrument(tracing::debug_span!("aws_storage")),
        )
    }
}

/// The `<hash>` of SkyPilot's `az_mappings-<hash>.csv`: the first 8 hex
/// characters of the md5 of the STS `UserId`.
pub fn az_mapping_hash(user_id: &str) -> String {
    let digest = Md5::digest(user_id.as_bytes());
    digest.iter().take(4).map(|b| format!("{b:02x}")).collect()
}

fn outcome(identity: AwsIdentity, cache: CacheUse) -> CheckOutcome {
    CheckOutcome {
        facts: CloudFacts::Aws(AwsFacts {
            identity: Some(identity),
            warnings: Vec::new(),
        }),
        cache,
    }
}

/// Encodes an optional value so that "absent" and "empty" differ.
fn opt(value: Option<&str>) -> Vec<u8> {
    match value {
        None => vec![0],
        Some(v) => {
            let mut out = Vec::with_capacity(v.len() + 1);
            out.push(1);
            out.extend_from_slice(v.as_bytes());
            out
        }
    }
}

fn classify_sts_error<E: ProvideErrorMetadata>(
    err: &SdkError<E, aws_sdk_sts::config::http::HttpResponse>,
    bound: Duration,
    secrets: &[&str],
) -> CloudError {
    match err {
        SdkError::TimeoutError(_) => return CloudError::Timeout(bound),
        SdkError::DispatchFailure(failure) if failure.is_timeout() => {
            return CloudError::Timeout(bound);
        }
        SdkError::DispatchFailure(failure) => {
            let detail = failure
                .as_connector_error()
                .map(|c| one_line(c, secrets))
                .unwrap_or_default();
            return CloudError::Service(format!("Failed to reach AWS STS: {detail}"));
        }
        _ => {}
    }
    let status = err.raw_response().map(|r| r.status().as_u16());
    let code = err.code().unwrap_or_default();
    let message = redact(err.message().unwrap_or_default(), secrets);
    let what = match (code.is_empty(), status) {
        (false, _) => code.to_string(),
        (true, Some(status)) => format!("HTTP {status}"),
        (true, None) => "unknown error".to_string(),
    };
    let text = if message.is_empty() {
        what
    } else {
        format!("{what}: {message}")
    };
    let text = truncate(&text);
    if matches!(status, Some(401 | 403)) || AUTH_ERROR_CODES.contains(&code) {
        if code.starts_with("ExpiredToken") {
            return CloudError::Auth(format!("AWS access token is expired. {text}"));
        }
        return CloudError::Auth(format!(
            "Failed to access AWS services with credentials. Make sure that the access and secret keys are correct. {text}"
        ));
    }
    CloudError::Service(format!("Failed to get AWS user: {text}"))
}

/// An error and its sources on one line, with known secrets removed.
fn one_line(err: &(dyn std::error::Error + 'static), secrets: &[&str]) -> String {
    truncate(&redact(&super::error_chain(err), secrets))
}

fn redact(text: &str, secrets: &[&str]) -> String {
    let mut out = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for secret in secrets.iter().filter(|s| s.len() >= 4) {
        out = out.replace(secret, "***");
    }
    out
}

fn truncate(text: &str) -> String {
    if text.chars().count() <= MAX_MESSAGE_CHARS {
        return text.to_string();
    }
    let mut out: String = text.chars().take(MAX_MESSAGE_CHARS).collect();
    out.push('…');
    out
}

/// The shared config and credentials files in play, read once per check.
#[derive(Debug)]
struct SharedFiles {
    config_path: PathBuf,
    config: Option<String>,
    credentials_path: PathBuf,
    credentials: Option<String>,
}

impl SharedFiles {
    fn read(ctx: &CheckContext) -> Result<Self, CloudError> {
        let locate = |var: &str, default: &str| match ctx.env.get(var).filter(|v| !v.is_empty()) {
            Some(raw) => expand_home(raw, &ctx.home),
            None => ctx.home.join(".aws").join(default),
        };
        let config_path = locate("AWS_CONFIG_FILE", "config");
        let credentials_path = locate("AWS_SHARED_CREDENTIALS_FILE", "credentials");
        Ok(SharedFiles {
            config: read_optional(&config_path)?,
            credentials: read_optional(&credentials_path)?,
            config_path,
            credentials_path,
        })
    }

    fn mentions(&self, needle: &str) -> bool {
        [&self.config, &self.credentials]
            .iter()
            .any(|f| f.as_deref().is_some_and(|t| t.contains(needle)))
    }
}

fn read_optional(path: &Path) -> Result<Option<String>, CloudError> {
    use crate::input::{MAX_CONFIG_FILE_BYTES, read_regular_text};
    match read_regular_text(path, MAX_CONFIG_FILE_BYTES) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.io_kind() == Some(io::ErrorKind::NotFound) => Ok(None),
        Err(e) => Err(CloudError::Config(format!(
            "Invalid AWS configuration: {e}"
        ))),
    }
}

/// Where the default chain will find credentials, decided from local hints only.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    Environment,
    Profile {
        name: String,
        in_credentials_file: bool,
    },
    WebIdentity,
    Container,
    InstanceMetadata,
}

impl Source {
    fn describe(&self, files: &SharedFiles) -> String {
        match self {
            Source::Environment => "environment (AWS_ACCESS_KEY_ID)".to_string(),
            Source::Profile {
                name,
                in_credentials_file: true,
            } => {
                format!("profile {name} in {}", files.credentials_path.display())
            }
            Source::Profile {
                name,
                in_credentials_file: false,
            } => {
                format!("profile {name} in {}", files.config_path.display())
            }
            Source::WebIdentity => "web identity (AWS_WEB_IDENTITY_TOKEN_FILE)".to_string(),
            Source::Container => "container credentials endpoint".to_string(),
            Source::InstanceMetadata => "EC2 instance metadata (instance role)".to_string(),
        }
    }
}

/// Mirrors the order of the SDK's default chain (and so `sky check`): environment,
/// profile, web identity, container, instance metadata.
fn detect(ctx: &CheckContext, files: &SharedFiles, detect_ec2: bool) -> Result<Source, String> {
    let set = |name: &str| ctx.env.get(name).is_some_and(|v| !v.trim().is_empty());
    if set("AWS_ACCESS_KEY_ID") && set("AWS_SECRET_ACCESS_KEY") {
        return Ok(Source::Environment);
    }
    let explicit_profile = ctx.env.get("AWS_PROFILE").filter(|p| !p.trim().is_empty());
    let profile = explicit_profile
        .map(|p| p.trim().to_string())
        .unwrap_or_else(|| "default".to_string());
    let in_credentials = files
        .credentials
        .as_deref()
        .is_some_and(|t| profile_has_credentials(t, &profile, false));
    let in_config = files
        .config
        .as_deref()
        .is_some_and(|t| profile_has_credentials(t, &profile, true));
    if in_credentials || in_config {
        return Ok(Source::Profile {
            name: profile,
            in_credentials_file: in_credentials,
        });
    }
    if set("AWS_WEB_IDENTITY_TOKEN_FILE") && set("AWS_ROLE_ARN") {
        return Ok(Source::WebIdentity);
    }
    if set("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") || set("AWS_CONTAINER_CREDENTIALS_FULL_URI") {
        return Ok(Source::Container);
    }
    let imds_disabled = ctx
        .env
        .get("AWS_EC2_METADATA_DISABLED")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    if !imds_disabled && (set("AWS_EC2_METADATA_SERVICE_ENDPOINT") || (detect_ec2 && on_ec2())) {
        return Ok(Source::InstanceMetadata);
    }
    if let Some(name) = explicit_profile {
        return Err(format!(
            "AWS profile {name:?} (AWS_PROFILE) has no credentials in {} or {}.\n{NO_CREDENTIALS}",
            files.credentials_path.display(),
            files.config_path.display()
        ));
    }
    Err(NO_CREDENTIALS.to_string())
}

/// Whether `profile` in a shared file carries a credential-bearing key.
///
/// A minimal reading of the AWS ini dialect: `[name]` in the credentials
/// file, `[profile name]` (or `[default]`) in the config file; indented
/// lines are sub-properties and are skipped.
fn profile_has_credentials(text: &str, profile: &str, is_config: bool) -> bool {
    let mut in_profile = false;
    for line in text.lines() {
        if line.starts_with([' ', '\t']) {
            continue;
        }
        let line = line.trim();
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        if let Some(section) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let section = section.trim();
            let name = if is_config {
                match section.strip_prefix("profile ") {
                    Some(name) => name.trim(),
                    None if section == "default" => section,
                    None => "",
                }
            } else {
                section
            };
            in_profile = name == profile;
            continue;
        }
        if in_profile
            && let Some((key, value)) = line.split_once('=')
            && !value.trim().is_empty()
            && PROFILE_CREDENTIAL_KEYS.contains(&key.trim().to_ascii_lowercase().as_str())
        {
            return true;
        }
    }
    false
}

/// EC2 instances say so in their DMI data; reading two small `/sys` files is
/// far cheaper than a metadata probe that times out on every other machine.
fn on_ec2() -> bool {
    let read = |p: &str| {
        std::fs::read_to_string(p)
            .map(|s| s.trim().to_string())
            .unwrap_or_default()
    };
    read("/sys/devices/virtual/dmi/id/sys_vendor") == "Amazon EC2"
        || read("/sys/devices/virtual/dmi/id/board_asset_tag").starts_with("i-")
        || read("/sys/hypervisor/uuid").starts_with("ec2")
}
