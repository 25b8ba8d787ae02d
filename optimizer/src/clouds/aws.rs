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
//!
//! One concern per file: `credentials.rs` (the chain's sources from local
//! hints, and the SDK's chain within a deadline), `sdk.rs` (the SDK's HTTP
//! client and configuration), `sts.rs` (`GetCallerIdentity` and its
//! errors), `cache.rs` (the identity cache), `ec2.rs` (the account's zone
//! names, fetched when SkyPilot would), `s3.rs` (`sky check`'s storage
//! call), `text.rs` (error text), `options.rs` (its knobs). This file is the
//! adapter: the checks that put those together.

use std::fmt;

use aws_sdk_sts::config::SharedHttpClient;
use futures::future::BoxFuture;
use tracing::{Instrument, debug, warn};

mod cache;
mod credentials;
mod ec2;
mod options;
mod s3;
mod sdk;
mod sts;
#[cfg(test)]
mod tests;
mod text;

pub use cache::{IDENTITY_CACHE_KIND, IDENTITY_CACHE_SCHEMA};
pub use ec2::{AzMappingFetch, az_mapping_hash};
pub use options::AwsOptions;

use super::{CheckContext, Cloud, Credentials, StorageCheck};
use crate::state::Lookup;
use credentials::{SharedFiles, detect};
use planner::check::{
    AwsFacts, AwsIdentity, CacheUse, CheckOutcome, CloudError, CloudFacts, StorageOutcome,
};
use planner::cloud::{CloudId, Provider};
use sts::{FALLBACK_REGION, OUTER_GUARD_SLACK};

/// The AWS adapter: local credential detection, and the caller identity
/// through a cross-process, on-disk cache in front of STS GetCallerIdentity.
///
/// `check` returns `Err(CloudError::Config("AWS credentials are not set..."))`
/// when no credentials exist, rather than `Ok` with `identity: None`: the
/// fan-out decides whether a cloud without credentials is fatal.
pub struct AwsCloud {
    options: AwsOptions,
    /// The SDK's HTTP client and the TLS client inside it (for
    /// [`sdk::prewarm_tls`]), built on first use: a launch served by the
    /// identity cache never needs them.
    clients: std::sync::OnceLock<(SharedHttpClient, SharedHttpClient)>,
    /// One resolution for every check of this adapter (see
    /// [`AwsCloud::sharing_identity`]); `None`: each check resolves anew.
    shared: Option<tokio::sync::OnceCell<Result<Resolved, CloudError>>>,
    /// The shared files [`Cloud::credentials`] read, taken by the check
    /// that follows it (the fan-out asks one, then the other): `~/.aws/config`
    /// and `~/.aws/credentials` are read once per check, not twice.
    files_read: std::sync::Mutex<Option<SharedFiles>>,
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

impl Default for AwsCloud {
    fn default() -> Self {
        AwsCloud::new(AwsOptions::default())
    }
}

impl AwsCloud {
    /// An adapter with these options. The HTTPS client (rustls with ring)
    /// is built once, by the first check that calls AWS, and shared by
    /// every later one.
    pub fn new(options: AwsOptions) -> Self {
        AwsCloud {
            options,
            clients: std::sync::OnceLock::new(),
            shared: None,
            files_read: std::sync::Mutex::new(None),
        }
    }

    /// The SDK's HTTP client, and the TLS client inside it.
    fn clients(&self) -> &(SharedHttpClient, SharedHttpClient) {
        self.clients.get_or_init(sdk::http_clients)
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
        let earlier = self.files_read.lock().ok().and_then(|mut slot| slot.take());
        let files = SharedFiles::reuse_or_read(earlier, ctx)?;
        let source = detect(ctx, &files, self.options.detect_ec2).map_err(CloudError::Config)?;
        // The identity cache, opened first: opening it lists its folder,
        // which says whether any identity was ever cached there (when none
        // was, no lookup can hit, and the TLS prewarm is worth starting).
        let opened = cache::open(ctx, &self.options.service.clock);
        let cached_before = opened
            .as_ref()
            .is_some_and(|(store, _)| store.held_entries_when_opened());
        // A warm launch's identity: from the cache, without the SDK when
        // the credentials and the region come from the environment alone.
        if cached_before
            && !ctx.refresh
            && let Some((store, hasher)) = &opened
            && let Some(resolved) = self.cached_without_sdk(ctx, &files, &source, store, hasher)
        {
            return Ok(resolved);
        }
        let (http, https) = self.clients();
        sdk::prewarm_tls(
            https,
            self.options.endpoint_url.as_deref(),
            ctx,
            cached_before,
        );
        let sdk = sdk::sdk_config(&self.options, http, ctx, &files, &source).await;
        let creds = credentials::resolve(&sdk, self.options.credentials_timeout).await?;
        remember_secrets(&creds);
        let region = sdk
            .region()
            .map(|r| r.to_string())
            .unwrap_or_else(|| FALLBACK_REGION.to_string());
        let cache = opened.map(|(store, hasher)| {
            let key = cache::fingerprint(
                &hasher,
                ctx,
                &files,
                &creds,
                &region,
                self.options.endpoint_url.as_deref(),
            );
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
            Some((store, key)) => match store.lock(key, self.options.service.lock_wait).await {
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
        match sts::get_caller_identity(&self.options, &sdk, &creds, ctx.cloud_timeout).await {
            Ok(identity) => {
                if let Some((store, key)) = &cache {
                    cache::remember(
                        store,
                        key,
                        &identity,
                        &creds,
                        &self.options.service.clock,
                        self.options.service.cache_ttl,
                    );
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
    /// The cached identity when [`credentials::from_environment`] can
    /// say what the SDK would resolve: the cache key is the same, and a
    /// hit needs neither the SDK's configuration nor its credential chain.
    /// `None`: not that case, or a miss (the SDK path looks again).
    fn cached_without_sdk(
        &self,
        ctx: &CheckContext,
        files: &SharedFiles,
        source: &credentials::Source,
        store: &crate::state::CacheStore,
        hasher: &crate::state::KeyedHasher,
    ) -> Option<Resolved> {
        let (creds, region) = credentials::from_environment(ctx, source)?;
        remember_secrets(&creds);
        let key = cache::fingerprint(
            hasher,
            ctx,
            files,
            &creds,
            &region,
            self.options.endpoint_url.as_deref(),
        );
        let Lookup::Hit { value, age } = store.get::<AwsIdentity>(&key) else {
            return None;
        };
        tracing::Span::current().record("cache", "hit");
        debug!(
            cache = "hit",
            age_ms = age.as_millis() as u64,
            "AWS identity from the cache (credentials from the environment)"
        );
        Some(Resolved {
            outcome: outcome(value, CacheUse::Hit { age }),
            creds,
            region,
        })
    }
}

/// From here on, whatever is logged (ours or the SDK's) has these masked.
fn remember_secrets(creds: &aws_credential_types::Credentials) {
    crate::redact::remember_secret(creds.access_key_id());
    crate::redact::remember_secret(creds.secret_access_key());
    if let Some(token) = creds.session_token() {
        crate::redact::remember_secret(token);
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
        let answer = match detect(ctx, &files, self.options.detect_ec2) {
            Ok(source) => Credentials::Present(source.describe(&files)),
            Err(hint) => Credentials::Missing(hint),
        };
        if let Ok(mut slot) = self.files_read.lock() {
            *slot = Some(files);
        }
        answer
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
            self.options.service.connect_timeout,
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

fn outcome(identity: AwsIdentity, cache: CacheUse) -> CheckOutcome {
    CheckOutcome {
        facts: CloudFacts::Aws(AwsFacts {
            identity: Some(identity),
            warnings: Vec::new(),
        }),
        cache,
    }
}
