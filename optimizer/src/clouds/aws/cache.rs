//! The identity cache: entries in the state folder under an HMAC of every
//! input that selects the identity, kept for the TTL and never past the
//! credentials' own expiry.

use std::time::{Duration, SystemTime};

use planner::check::AwsIdentity;
use tracing::{debug, warn};

use super::credentials::SharedFiles;
use crate::clouds::CheckContext;
use crate::state::{CacheStore, Clock, KeyedHasher, StateDir};

/// The cache kind (folder under the state directory) of AWS identities.
pub const IDENTITY_CACHE_KIND: &str = "identity";
/// Layout version of the cached [`AwsIdentity`]; bump it when the value changes shape.
pub const IDENTITY_CACHE_SCHEMA: u32 = 1;

/// A cached identity must stop being used this long before the credentials
/// that produced it expire, so a hit never outlives a usable session.
const CREDENTIAL_EXPIRY_MARGIN: Duration = Duration::from_secs(5 * 60);

/// The identity cache and the key hasher of the state folder; `None` (and a
/// warning) when the folder cannot be used.
pub(super) fn open(ctx: &CheckContext, clock: &Clock) -> Option<(CacheStore, KeyedHasher)> {
    let opened = StateDir::open(&ctx.state_dir).and_then(|dir| {
        let (store, hasher) = dir.store_and_hasher(IDENTITY_CACHE_KIND, IDENTITY_CACHE_SCHEMA)?;
        Ok((store.with_clock(clock.clone()), hasher))
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
pub(super) fn fingerprint(
    hasher: &KeyedHasher,
    ctx: &CheckContext,
    files: &SharedFiles,
    creds: &aws_credential_types::Credentials,
    region: &str,
    endpoint_url: Option<&str>,
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
        ("endpoint_override", opt(endpoint_url)),
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

/// Stores `identity` for `ttl`, but never past the credentials' expiry
/// (less a margin); credentials about to expire are not worth an entry.
pub(super) fn remember(
    store: &CacheStore,
    key: &str,
    identity: &AwsIdentity,
    creds: &aws_credential_types::Credentials,
    clock: &Clock,
    ttl: Duration,
) {
    let now = clock.now();
    let mut expires = now + ttl;
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
