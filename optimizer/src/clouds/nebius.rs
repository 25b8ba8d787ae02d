//! Nebius: credentials are files; the network part is the tenant's own
//! prices (SkyPilot 0.14.1's "personal pricing").
//!
//! SkyPilot 0.14.1:
//! - `Nebius._check_compute_credentials` (`sky/clouds/nebius.py`): an IAM
//!   token file or a credentials file must exist, a tenant id must be known
//!   (config or `~/.nebius/NEBIUS_TENANT_ID.txt`), then listing the tenant's
//!   projects must succeed.
//! - `nebius_catalog._get_df` (`sky/catalog/nebius_catalog.py`): with
//!   `nebius.use_personal_pricing` on (the default) and a tenant, the
//!   tenant's presets are priced through the billing calculator with its
//!   contract prices and replace the list prices per (instance type,
//!   region); any failure falls back to the static catalog silently
//!   (debug log), retried after five minutes; a fetched tenant catalog is
//!   reused for seven hours (`_PULL_FREQUENCY_HOURS`).
//!
//! Here, [`Cloud::credentials`] is the offline part (files and tenant),
//! [`Cloud::check`] gets a bearer token (the token file, or a
//! service-account JWT exchanged at `TokenExchangeService`) and walks the
//! gRPC API (`nebius/pricing.rs`): `ProjectService.List`,
//! `PlatformService.List`, `CalculatorService.EstimateBatch`. The priced
//! presets are cached in the state folder for `NebiusOptions::service`'s `cache_ttl`
//! (seven hours) under an HMAC of the credential file, the tenant, the
//! domain, the endpoint and the configured projects; dropped when the
//! credentials are refused, bypassed by `--refresh`. The pure core builds
//! the tenant catalog and overlays it (`planner::catalog::nebius`).
//!
//! Failures: refused credentials (`UNAUTHENTICATED`, `PERMISSION_DENIED` on
//! the project listing or the token exchange) fail the cloud, as `sky check`
//! would; every other failure — a service error, a timeout, an unpriceable
//! catalog — keeps the list prices, as SkyPilot does, and is not cached.
//! The walk gets 80 % of the cloud deadline so the fallback happens within it.
//!
//! Not sent: SkyPilot 0.14.1 sets `InstanceSpec.follows_spot_price` in the
//! spot estimate; the published `nebius/api` protos available to this
//! project predate that field, so its number is unknown. The spot request
//! carries `preemptible` only (the billing API may then refuse it, which
//! SkyPilot treats as "no spot price").
//!
//! Endpoint: [`NebiusOptions::api_endpoint`], else `SKY_NEBIUS_API_ENDPOINT`
//! (every service at that base URL; `http://` is h2c), else
//! `https://<service>.<domain>`.
//!
//! Offline answers: with [`NebiusOptions::api_dir`] or `SKY_NEBIUS_API_DIR`
//! set, `<dir>/api.json` answers the three calls (format in
//! `nebius/pricing.rs`), no credentials are needed and nothing is cached:
//! the scenarios use it, as Kubernetes scenarios use `SKY_KUBE_NODES_DIR`.

mod auth;
mod grpc;
mod pricing;
mod proto;
mod settings;

use std::path::PathBuf;
use std::time::Duration;

use futures::future::BoxFuture;
use tracing::{Instrument, debug};

use super::cached::{CachedFacts, fetch_budget};
use super::http_client::{HttpClient, Protocol};
use super::{CheckContext, Cloud, Credentials, ServiceOptions};
use crate::config::expand_home;
use auth::{AuthError, Credential};
use planner::check::{CacheUse, CheckOutcome, CloudError, CloudFacts, NebiusFacts};
use planner::cloud::CloudId;
use pricing::WalkError;
use settings::Settings;

/// The cache kind (folder under the state directory) of tenant prices.
pub const PRICES_CACHE_KIND: &str = "nebius-prices";
/// Layout version of the cached [`NebiusFacts`].
pub const PRICES_CACHE_SCHEMA: u32 = 1;
/// The API endpoint override (one base URL for every service).
pub const API_ENDPOINT_ENV: &str = "SKY_NEBIUS_API_ENDPOINT";
/// The offline answers folder.
pub const API_DIR_ENV: &str = "SKY_NEBIUS_API_DIR";
/// Largest answer read (a platform listing is a few kB).
const MAX_BODY_BYTES: usize = 4 << 20;

/// Knobs of the Nebius adapter. Every field's default is given in its doc.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct NebiusOptions {
    /// One base URL for every service (`http://127.0.0.1:PORT` for a mock).
    /// Beats `SKY_NEBIUS_API_ENDPOINT`. Default: none.
    pub api_endpoint: Option<String>,
    /// Offline answers folder. Beats `SKY_NEBIUS_API_DIR`. Default: none.
    pub api_dir: Option<PathBuf>,
    /// The token exchange and pricing calls and the price cache:
    /// `request_timeout` is one call's deadline (default here: 3 s;
    /// SkyPilot's is 10 s, more than the cloud deadline), `cache_ttl` how
    /// long fetched prices are reused (default here: 7 h,
    /// `_PULL_FREQUENCY_HOURS`), `clock` also dates the JWTs. Each call is
    /// made once, as SkyPilot makes it: `max_attempts` and `retry_backoff`
    /// are not read.
    pub service: ServiceOptions,
}

impl Default for NebiusOptions {
    fn default() -> Self {
        NebiusOptions {
            api_endpoint: None,
            api_dir: None,
            service: ServiceOptions {
                request_timeout: Duration::from_secs(3),
                cache_ttl: Duration::from_secs(7 * 60 * 60),
                ..ServiceOptions::default()
            },
        }
    }
}

/// The Nebius adapter.
#[derive(Debug, Clone, Default)]
pub struct NebiusCloud {
    options: NebiusOptions,
}

impl NebiusCloud {
    /// An adapter with these options.
    pub fn new(options: NebiusOptions) -> Self {
        NebiusCloud { options }
    }

    /// The options in use.
    pub fn options(&self) -> &NebiusOptions {
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

    fn endpoint(&self, ctx: &CheckContext, settings: &Settings) -> grpc::Endpoint {
        match self.options.api_endpoint.clone().or_else(|| {
            ctx.env
                .get(API_ENDPOINT_ENV)
                .filter(|v| !v.trim().is_empty())
                .cloned()
        }) {
            Some(base) => grpc::Endpoint::Fixed(base.trim().to_string()),
            None => grpc::Endpoint::Domain(settings.domain.clone()),
        }
    }

    async fn check_inner(&self, ctx: &CheckContext) -> Result<CheckOutcome, CloudError> {
        let span = tracing::Span::current();
        let settings = Settings::read(ctx);
        let static_facts = |tenant: Option<String>, why: Option<String>| CheckOutcome {
            facts: CloudFacts::Nebius(NebiusFacts {
                tenant_id: tenant,
                presets: None,
                fallback: why,
            }),
            cache: CacheUse::None,
        };
        let Some(tenant) = settings.tenant_id.clone() else {
            // `tenant_id is None`: the static catalog, nothing to ask.
            return Ok(static_facts(None, None));
        };
        if !settings.personal_pricing {
            return Ok(static_facts(
                Some(tenant),
                Some("nebius.use_personal_pricing is false".into()),
            ));
        }
        if let Some(dir) = self.api_dir(ctx) {
            span.record("source", "offline");
            let api = pricing::OfflineApi::read(&dir).map_err(CloudError::Config)?;
            return match pricing::fetch_prices(&api, &tenant, &settings).await {
                Ok(presets) => Ok(CheckOutcome {
                    facts: CloudFacts::Nebius(NebiusFacts {
                        tenant_id: Some(tenant),
                        presets: Some(presets),
                        fallback: None,
                    }),
                    cache: CacheUse::None,
                }),
                Err(WalkError::Auth(m)) => Err(CloudError::Auth(m)),
                Err(WalkError::Fallback(why)) => Ok(static_facts(Some(tenant), Some(why))),
            };
        }
        let credential = Credential::read(settings.credential.clone()).map_err(|e| match e {
            AuthError::Invalid(m) | AuthError::Refused(m) | AuthError::Unavailable(m) => {
                CloudError::Config(m)
            }
        })?;
        let endpoint = self.endpoint(ctx, &settings);
        let endpoint_key = format!("{endpoint:?}");
        let projects_key = format!("{:?}/{:?}", settings.project_id, settings.region_projects);
        let credential_path = credential.file.path().to_string_lossy().into_owned();
        let cache = CachedFacts::open(
            ctx,
            PRICES_CACHE_KIND,
            PRICES_CACHE_SCHEMA,
            &self.options.service.clock,
            "Nebius tenant prices",
            &[
                ("credential_path", credential_path.as_bytes()),
                ("credential_contents", &credential.contents),
                ("tenant", tenant.as_bytes()),
                ("endpoint", endpoint_key.as_bytes()),
                ("projects", projects_key.as_bytes()),
                ("domain", settings.domain.as_bytes()),
            ],
        );
        if !ctx.refresh
            && let Some((facts, age)) = cache.as_ref().and_then(CachedFacts::lookup::<NebiusFacts>)
        {
            span.record("cache", "hit");
            return Ok(CheckOutcome {
                facts: CloudFacts::Nebius(facts),
                cache: CacheUse::Hit { age },
            });
        }
        let guard = match &cache {
            Some(c) => c.lock(self.options.service.lock_wait).await,
            None => None,
        };
        if !ctx.refresh
            && guard.is_some()
            && let Some((facts, age)) = cache.as_ref().and_then(CachedFacts::lookup::<NebiusFacts>)
        {
            span.record("cache", "hit");
            return Ok(CheckOutcome {
                facts: CloudFacts::Nebius(facts),
                cache: CacheUse::Hit { age },
            });
        }
        span.record("cache", "miss");
        let budget = fetch_budget(ctx.cloud_timeout);
        let walked =
            tokio::time::timeout(budget, self.walk(&credential, endpoint, &tenant, &settings))
                .await
                .unwrap_or_else(|_| {
                    Err(WalkError::Fallback(format!("no answer within {budget:?}")))
                });
        match walked {
            Ok(presets) => {
                let facts = NebiusFacts {
                    tenant_id: Some(tenant),
                    presets: Some(presets),
                    fallback: None,
                };
                if let Some(c) = &cache {
                    c.put(&facts, self.options.service.cache_ttl);
                }
                Ok(CheckOutcome {
                    facts: CloudFacts::Nebius(facts),
                    cache: CacheUse::Miss,
                })
            }
            Err(WalkError::Auth(message)) => {
                if let Some(c) = &cache {
                    c.remove();
                }
                Err(CloudError::Auth(message))
            }
            Err(WalkError::Fallback(why)) => {
                debug!(reason = %why, "Nebius personal pricing unavailable; using the list prices");
                Ok(CheckOutcome {
                    facts: CloudFacts::Nebius(NebiusFacts {
                        tenant_id: Some(tenant),
                        presets: None,
                        fallback: Some(why),
                    }),
                    cache: CacheUse::Miss,
                })
            }
        }
    }

    /// Token, then the pricing walk on the live API.
    async fn walk(
        &self,
        credential: &Credential,
        endpoint: grpc::Endpoint,
        tenant: &str,
        settings: &Settings,
    ) -> Result<Vec<planner::check::NebiusPreset>, WalkError> {
        let http = HttpClient::new(
            endpoint.tls(),
            Protocol::Http2,
            self.options.service.connect_timeout,
            self.options.service.request_timeout,
            MAX_BODY_BYTES,
        )
        .map_err(|e| WalkError::Fallback(e.to_string()))?;
        let channel = grpc::Channel::new(http, endpoint);
        let token = credential
            .bearer(&channel, self.options.service.clock.now())
            .await
            .map_err(|e| match e {
                AuthError::Refused(m) => WalkError::Auth(m),
                AuthError::Invalid(m) | AuthError::Unavailable(m) => WalkError::Fallback(m),
            })?;
        let api = pricing::LiveApi { channel, token };
        pricing::fetch_prices(&api, tenant, settings).await
    }
}

impl Cloud for NebiusCloud {
    fn id(&self) -> CloudId {
        CloudId::Nebius
    }

    /// `Nebius._check_compute_credentials`' offline part: a token or
    /// credentials file, and a tenant id.
    fn credentials(&self, ctx: &CheckContext) -> Credentials {
        if let Some(dir) = self.api_dir(ctx) {
            return Credentials::Present(format!("offline answers in {}", dir.display()));
        }
        let settings = Settings::read(ctx);
        if !settings.has_credentials {
            return Credentials::Missing(settings.credentials_hint());
        }
        match &settings.tenant_id {
            None => Credentials::Missing(Settings::tenant_hint()),
            Some(tenant) => Credentials::Present(format!(
                "{} (tenant {tenant})",
                settings.credential.path().display()
            )),
        }
    }

    fn check<'a>(
        &'a self,
        ctx: &'a CheckContext,
    ) -> BoxFuture<'a, Result<CheckOutcome, CloudError>> {
        let span = tracing::debug_span!(
            "nebius_prices",
            source = tracing::field::Empty,
            cache = tracing::field::Empty
        );
        Box::pin(self.check_inner(ctx).instrument(span))
    }
}
