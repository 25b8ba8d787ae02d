//! OCI: credentials are the `~/.oci/config` profile; the one network call on
//! the optimizer's path is the tenancy's region subscriptions.
//!
//! SkyPilot 0.14.1:
//! - `OCI._check_credentials` (`sky/clouds/oci.py`): the `oci` SDK must be
//!   importable, the config file (`$OCI_CONFIG`, else `~/.oci/config`) must
//!   exist, then `IdentityClient.get_user` must succeed for the profile
//!   (`oci.region_configs.default.oci_config_profile`, else
//!   `oci.oci_config_profile`, else `DEFAULT`).
//! - `oci_catalog._get_df` (`sky/catalog/oci_catalog.py`): on first use,
//!   `IdentityClient.list_region_subscriptions(tenancy)` and keep only the
//!   `vms.csv` rows of subscribed regions; a config error or an empty list
//!   keeps the whole catalog, a service error logs a warning and keeps it
//!   too, and a network error propagates (the optimisation fails).
//!
//! Here, [`Cloud::credentials`] is the offline part (the file exists) and
//! [`Cloud::check`] reads the profile and its API key, then lists the
//! subscriptions with a request signed as the OCI SDK signs it
//! (`oci/api.rs`). The list is cached in the state folder for
//! `OciOptions::service`'s `cache_ttl` under an HMAC of the config file, the
//! profile, the API key and the endpoint, dropped when the key is rejected
//! and bypassed by `--refresh`. The pure core filters the catalog
//! (`planner::catalog::oci`).
//!
//! Failures: rejected credentials (401, 403, 404 `NotAuthorizedOrNotFound`)
//! fail the cloud, as `sky check` would; any other failure — a service
//! error, a timeout, a connection error — keeps the whole catalog with a
//! warning, as SkyPilot does for service errors (it aborts on the others).
//! The fetch gets 80 % of the cloud deadline so the fallback happens within it.
//!
//! Endpoint: [`OciOptions::identity_endpoint`], else
//! `SKY_OCI_IDENTITY_ENDPOINT`, else the region's identity endpoint
//! (`https://identity.<region>.oci.<realm domain>`).
//!
//! Offline answers: with [`OciOptions::api_dir`] or `SKY_OCI_API_DIR` set,
//! `<dir>/region_subscriptions.json` (a `ListRegionSubscriptions` answer
//! body) is the list, no credentials are needed and nothing is cached: the
//! scenarios use it, as Kubernetes scenarios use `SKY_KUBE_NODES_DIR`.

mod api;
mod config;

use std::path::PathBuf;
use std::time::Duration;

use futures::future::BoxFuture;
use tracing::{Instrument, debug, warn};

use super::cached::{CachedFacts, fetch_budget};
use super::http_client::{Failure, HttpClient, Protocol, sanitize};
use super::{CheckContext, Cloud, Credentials, ServiceOptions};
use crate::config::expand_home;
use config::{ConfigFile, ConfigLocation};
use planner::check::{CacheUse, CheckOutcome, CloudError, CloudFacts, OciFacts};
use planner::cloud::CloudId;

/// The cache kind (folder under the state directory) of subscription lists.
pub const REGIONS_CACHE_KIND: &str = "oci-regions";
/// Layout version of the cached [`OciFacts`].
pub const REGIONS_CACHE_SCHEMA: u32 = 1;
/// The identity endpoint override (a base URL; the API path is appended).
pub const IDENTITY_ENDPOINT_ENV: &str = "SKY_OCI_IDENTITY_ENDPOINT";
/// The offline answers folder.
pub const API_DIR_ENV: &str = "SKY_OCI_API_DIR";
/// The offline answer file inside it.
pub const SUBSCRIPTIONS_FILE: &str = "region_subscriptions.json";
/// Largest answer read (a tenancy subscribes to a few dozen regions).
const MAX_BODY_BYTES: usize = 1 << 20;

/// Knobs of the OCI adapter. Every field's default is given in its doc.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct OciOptions {
    /// Identity API base URL (`http://127.0.0.1:PORT` for a mock). Beats
    /// `SKY_OCI_IDENTITY_ENDPOINT`. Default: none (the region's endpoint).
    pub identity_endpoint: Option<String>,
    /// Offline answers folder. Beats `SKY_OCI_API_DIR`. Default: none.
    pub api_dir: Option<PathBuf>,
    /// The region-subscriptions call and its cache: `request_timeout`
    /// (default here: 3 s), `cache_ttl` how long a fetched list is reused,
    /// `clock` also dates the signed request. Every other knob keeps the
    /// [`ServiceOptions`] default.
    pub service: ServiceOptions,
}

impl Default for OciOptions {
    fn default() -> Self {
        OciOptions {
            identity_endpoint: None,
            api_dir: None,
            service: ServiceOptions {
                request_timeout: Duration::from_secs(3),
                ..ServiceOptions::default()
            },
        }
    }
}

/// The OCI adapter.
#[derive(Debug, Clone, Default)]
pub struct OciCloud {
    options: OciOptions,
}

/// Why the subscriptions could not be listed.
enum FetchError {
    /// The credentials were refused: the cloud fails.
    Auth(String),
    /// Anything else: the whole catalog is used.
    Unavailable(String),
}

impl OciCloud {
    /// An adapter with these options.
    pub fn new(options: OciOptions) -> Self {
        OciCloud { options }
    }

    /// The options in use.
    pub fn options(&self) -> &OciOptions {
        &self.options
    }

    fn api_dir(&self, ctx: &CheckContext) -> Option<PathBuf> {
        self.options.api_dir.clone().or_else(|| {
            ctx.env
                .get(API_DIR_ENV)
                .filter(|v| !v.trim().is_empty())
                .map(|v| expand_home(v, &ctx.home))
        })
    }

    fn endpoint(&self, ctx: &CheckContext, region: &str) -> String {
        self.options
            .identity_endpoint
            .clone()
            .or_else(|| {
                ctx.env
                    .get(IDENTITY_ENDPOINT_ENV)
                    .filter(|v| !v.trim().is_empty())
                    .cloned()
            })
            .map(|e| e.trim().trim_end_matches('/').to_string())
            .unwrap_or_else(|| config::identity_endpoint(region))
    }

    async fn check_inner(&self, ctx: &CheckContext) -> Result<CheckOutcome, CloudError> {
        let span = tracing::Span::current();
        if let Some(dir) = self.api_dir(ctx) {
            span.record("source", "offline");
            return offline(&dir).map(|facts| CheckOutcome {
                facts: CloudFacts::Oci(facts),
                cache: CacheUse::None,
            });
        }
        let file = ConfigFile::read(ConfigLocation::of(ctx))?;
        let profile = file.profile(&config::profile(&ctx.sky_config), &ctx.home)?;
        let key_pem = std::fs::read(&profile.key_file).map_err(|e| {
            CloudError::Config(format!(
                "OCI credential is not correctly set. Cannot read the API key {} of profile {:?}: {e}",
                profile.key_file.display(),
                profile.name
            ))
        })?;
        let region = config::region_name(&profile.region);
        let endpoint = self.endpoint(ctx, &region);
        span.record("region", tracing::field::display(&region));
        let config_path = file.location.path.to_string_lossy().into_owned();
        let cache = CachedFacts::open(
            ctx,
            REGIONS_CACHE_KIND,
            REGIONS_CACHE_SCHEMA,
            &self.options.service.clock,
            "OCI region subscriptions",
            &[
                ("config_path", config_path.as_bytes()),
                ("config_contents", &file.contents),
                ("profile", profile.name.as_bytes()),
                ("key_contents", &key_pem),
                ("endpoint", endpoint.as_bytes()),
            ],
        );
        if !ctx.refresh
            && let Some((facts, age)) = cache.as_ref().and_then(CachedFacts::lookup::<OciFacts>)
        {
            span.record("cache", "hit");
            return Ok(hit(facts, age));
        }
        let guard = match &cache {
            Some(c) => c.lock(self.options.service.lock_wait).await,
            None => None,
        };
        if !ctx.refresh
            && guard.is_some()
            && let Some((facts, age)) = cache.as_ref().and_then(CachedFacts::lookup::<OciFacts>)
        {
            span.record("cache", "hit");
            return Ok(hit(facts, age));
        }
        span.record("cache", "miss");
        let key_text = String::from_utf8_lossy(&key_pem);
        let key = super::http_client::rsa_key(&key_text).map_err(|why| {
            let why = if profile.has_pass_phrase {
                "the key has a pass_phrase; only unencrypted API keys are supported".into()
            } else {
                why.to_string()
            };
            CloudError::Config(format!(
                "OCI credential is not correctly set. The API key {} of profile {:?} cannot be used: {why}",
                profile.key_file.display(),
                profile.name
            ))
        })?;
        let signer = api::Signer::new(key, &profile.tenancy, &profile.user, &profile.fingerprint);
        let budget = fetch_budget(ctx.cloud_timeout);
        let fetched =
            tokio::time::timeout(budget, self.fetch(&endpoint, &profile.tenancy, &signer))
                .await
                .unwrap_or_else(|_| {
                    Err(FetchError::Unavailable(format!(
                        "no answer within {budget:?}"
                    )))
                });
        match fetched {
            Ok(regions) => {
                let facts = OciFacts {
                    subscribed_regions: regions,
                    unavailable: None,
                };
                if let Some(c) = &cache {
                    c.put(&facts, self.options.service.cache_ttl);
                }
                Ok(CheckOutcome {
                    facts: CloudFacts::Oci(facts),
                    cache: CacheUse::Miss,
                })
            }
            Err(FetchError::Auth(message)) => {
                // Rejected credentials must not keep answering from the cache.
                if let Some(c) = &cache {
                    c.remove();
                }
                Err(CloudError::Auth(message))
            }
            Err(FetchError::Unavailable(why)) => {
                warn!(reason = %why, "OCI region subscriptions unavailable; using every catalog region");
                Ok(CheckOutcome {
                    facts: CloudFacts::Oci(OciFacts {
                        subscribed_regions: Vec::new(),
                        unavailable: Some(format!(
                            "Failed to list the OCI region subscriptions: {why}"
                        )),
                    }),
                    cache: CacheUse::Miss,
                })
            }
        }
    }

    /// The signed request, retried on transient failures.
    async fn fetch(
        &self,
        endpoint: &str,
        tenancy: &str,
        signer: &api::Signer,
    ) -> Result<Vec<String>, FetchError> {
        let http = HttpClient::new(
            endpoint.starts_with("https:"),
            Protocol::Http1,
            self.options.service.connect_timeout,
            self.options.service.request_timeout,
            MAX_BODY_BYTES,
        )
        .map_err(|e| FetchError::Unavailable(e.to_string()))?;
        let answer = self
            .options
            .service
            .retry("OCI", Attempt::is_transient, || async {
                // Signed per attempt: the date header must be current.
                let request = api::region_subscriptions_request(
                    endpoint,
                    tenancy,
                    signer,
                    self.options.service.clock.now(),
                )
                .map_err(Attempt::Fatal)?;
                match http.exchange(request).await {
                    Ok(answer) if answer.status.is_success() => Ok(answer),
                    Ok(answer) => Err(Attempt::Status(answer.status, answer.body)),
                    Err(Failure::Timeout) => Err(Attempt::Timeout(http.request_timeout())),
                    Err(Failure::Transport(why)) => Err(Attempt::Transport(why)),
                    // Asking again would read the same oversized body.
                    Err(Failure::TooLarge(why)) => Err(Attempt::Fatal(why)),
                }
            })
            .await
            .map_err(|failure| classify(failure, tenancy))?;
        let regions =
            api::parse_region_subscriptions(&answer.body).map_err(FetchError::Unavailable)?;
        debug!(
            regions = regions.len(),
            "listed the OCI region subscriptions"
        );
        Ok(regions)
    }
}

/// One failed attempt.
enum Attempt {
    Timeout(Duration),
    Transport(String),
    Status(http::StatusCode, bytes::Bytes),
    Fatal(String),
}

impl Attempt {
    /// Worth another attempt: transport errors, throttling, server errors.
    /// Timeouts are not retried: the deadline would be spent twice.
    fn is_transient(&self) -> bool {
        match self {
            Attempt::Transport(_) => true,
            Attempt::Status(s, _) => s.is_server_error() || s.as_u16() == 429,
            Attempt::Timeout(_) | Attempt::Fatal(_) => false,
        }
    }
}

fn classify(failure: Attempt, tenancy: &str) -> FetchError {
    match failure {
        Attempt::Timeout(t) => FetchError::Unavailable(format!("no answer within {t:?}")),
        Attempt::Transport(why) => FetchError::Unavailable(sanitize(&why, &[])),
        Attempt::Fatal(why) => FetchError::Unavailable(why),
        Attempt::Status(status, body) => {
            let text = format!(
                "HTTP {}: {}",
                status.as_u16(),
                sanitize(&api::error_message(&body), &[])
            );
            if matches!(status.as_u16(), 401 | 403 | 404) {
                FetchError::Auth(format!(
                    "OCI credential is not correctly set: the identity API refused to list the region subscriptions of tenancy {tenancy} ({text})"
                ))
            } else {
                FetchError::Unavailable(text)
            }
        }
    }
}

fn hit(facts: OciFacts, age: Duration) -> CheckOutcome {
    CheckOutcome {
        facts: CloudFacts::Oci(facts),
        cache: CacheUse::Hit { age },
    }
}

/// The offline answer: `<dir>/region_subscriptions.json`.
fn offline(dir: &std::path::Path) -> Result<OciFacts, CloudError> {
    let path = dir.join(SUBSCRIPTIONS_FILE);
    let body = std::fs::read(&path).map_err(|e| {
        CloudError::Config(format!(
            "cannot read the offline OCI answers {} ({API_DIR_ENV}): {e}",
            path.display()
        ))
    })?;
    let regions = api::parse_region_subscriptions(&body)
        .map_err(|e| CloudError::Config(format!("{}: {e}", path.display())))?;
    Ok(OciFacts {
        subscribed_regions: regions,
        unavailable: None,
    })
}

impl Cloud for OciCloud {
    fn id(&self) -> CloudId {
        CloudId::Oci
    }

    /// `OCI._check_credentials`' offline part: the config file exists (the
    /// SDK import and the `get_user` call are not made).
    fn credentials(&self, ctx: &CheckContext) -> Credentials {
        if let Some(dir) = self.api_dir(ctx) {
            return Credentials::Present(format!("offline answers in {}", dir.display()));
        }
        let location = ConfigLocation::of(ctx);
        if location.path.is_file() {
            Credentials::Present(location.path.display().to_string())
        } else {
            Credentials::Missing(location.missing_hint())
        }
    }

    fn check<'a>(
        &'a self,
        ctx: &'a CheckContext,
    ) -> BoxFuture<'a, Result<CheckOutcome, CloudError>> {
        let span = tracing::debug_span!(
            "oci_region_subscriptions",
            region = tracing::field::Empty,
            source = tracing::field::Empty,
            cache = tracing::field::Empty
        );
        Box::pin(self.check_inner(ctx).instrument(span))
    }
}
