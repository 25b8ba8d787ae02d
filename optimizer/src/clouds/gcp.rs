//! GCP: credentials are local files; the only network call is the
//! reservation lookup, made when reservations are configured.
//!
//! SkyPilot 0.14 runs `gcloud compute reservations list --filter=...` once
//! per instance type (a subprocess of ~1.5 s), caching only the last type for
//! 300 s, and only when `gcp.prioritize_reservations` or
//! `gcp.specific_reservations` is set (`sky/clouds/gcp.py::GCP.get_reservations_available_resources`). This adapter makes the
//! same lookup through REST, once per check for the whole project:
//!
//! 1. the application-default credentials file ([`adc`]) is exchanged for an
//!    access token at its `token_uri`;
//! 2. `GET {api_root}projects/{project}/aggregated/reservations` is read page
//!    by page and the READY machine-type reservations are kept;
//! 3. the list is cached on disk for `GcpOptions::service`'s `cache_ttl` under an
//!    HMAC of the credentials file, the project and the API root.
//!
//! The pure core decides which reservations a launchable can consume
//! ([`planner::world::World::reserved_nodes`]). A failed lookup makes GCP
//! a failed cloud (left out of the table with a one-line warning); SkyPilot
//! aborts the whole optimisation instead.
//!
//! Project, first found: `gcp.project_id` in `~/.sky/config.yaml` (the
//! project SkyPilot launches into), `CLOUDSDK_CORE_PROJECT`,
//! `GOOGLE_CLOUD_PROJECT`, the active gcloud configuration's `[core]
//! project` (what SkyPilot's `gcloud` call lists), then the credentials
//! file's `project_id` / `quota_project_id`.
//!
//! API root: [`GcpOptions::compute_endpoint`], else
//! `CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE` (gcloud's own override, same
//! meaning: the root *including* `compute/v1/`), else
//! [`DEFAULT_COMPUTE_API_ROOT`]. Tokens are never logged, cached or reported.

mod adc;
mod rest;
mod storage;

use std::time::Duration;

use futures::future::BoxFuture;
use tracing::{Instrument, debug, warn};

use adc::AdcFile;
pub(crate) use adc::adc_path;

use super::ServiceOptions;
use super::{CheckContext, Cloud, Credentials};
use crate::state::{CacheStore, KeyedHasher, Lookup, StateDir};
use planner::check::{
    CacheUse, CheckOutcome, CloudError, CloudFacts, GcpReservations, Reservation,
};
use planner::cloud::CloudId;
use rest::{Failure, Http};

/// The cache kind (folder under the state directory) of reservation lists.
pub const RESERVATIONS_CACHE_KIND: &str = "gcp-reservations";
/// Layout version of the cached [`GcpReservations`].
pub const RESERVATIONS_CACHE_SCHEMA: u32 = 1;
/// The public compute API root.
pub const DEFAULT_COMPUTE_API_ROOT: &str = "https://compute.googleapis.com/compute/v1/";
/// gcloud's compute endpoint override, honoured with gcloud's meaning.
pub const COMPUTE_ENDPOINT_ENV: &str = "CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE";
pub use storage::{
    DEFAULT_RESOURCE_MANAGER_ROOT, DEFAULT_SERVICE_USAGE_ROOT, RESOURCE_MANAGER_ENDPOINT_ENV,
    SERVICE_USAGE_ENDPOINT_ENV,
};
/// A server that keeps returning pages is broken; stop instead of looping.
const MAX_PAGES: usize = 1000;

const NO_CREDENTIALS: &str =
    "GCP credentials are not set. Run: gcloud init && gcloud auth application-default login";

/// Knobs of the GCP adapter. Every field's default is given in its doc.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct GcpOptions {
    /// Compute API root including the version path (`https://host/compute/v1/`).
    /// Beats `CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE`. Default: none.
    pub compute_endpoint: Option<String>,
    /// Cloud Resource Manager root, without the version (`https://host/`),
    /// for `sky check`'s storage permissions. Beats
    /// `CLOUDSDK_API_ENDPOINT_OVERRIDES_CLOUDRESOURCEMANAGER`. Default: none.
    pub resource_manager_endpoint: Option<String>,
    /// Service Usage root, without the version, for `sky check`'s Cloud
    /// Storage API check. Beats `CLOUDSDK_API_ENDPOINT_OVERRIDES_SERVICEUSAGE`.
    /// Default: none.
    pub service_usage_endpoint: Option<String>,
    /// The Compute and storage-check calls and the reservations cache
    /// (`cache_ttl`, default here: 300 s as SkyPilot's). Every other knob
    /// keeps the [`ServiceOptions`] default (`max_attempts` 2: SkyPilot
    /// retries its gcloud call on connection errors).
    pub service: ServiceOptions,
}

impl Default for GcpOptions {
    fn default() -> Self {
        GcpOptions {
            compute_endpoint: None,
            resource_manager_endpoint: None,
            service_usage_endpoint: None,
            service: ServiceOptions {
                cache_ttl: Duration::from_secs(300),
                ..ServiceOptions::default()
            },
        }
    }
}

/// The GCP adapter.
#[derive(Debug, Clone, Default)]
pub struct GcpCloud {
    options: GcpOptions,
}

impl GcpCloud {
    /// An adapter with these options.
    pub fn new(options: GcpOptions) -> Self {
        GcpCloud { options }
    }

    /// The options in use.
    pub fn options(&self) -> &GcpOptions {
        &self.options
    }

    /// The compute API root in effect for `ctx`, always ending in `/`.
    pub fn api_root(&self, ctx: &CheckContext) -> String {
        let raw = self
            .options
            .compute_endpoint
            .clone()
            .or_else(|| {
                ctx.env
                    .get(COMPUTE_ENDPOINT_ENV)
                    .filter(|v| !v.trim().is_empty())
                    .cloned()
            })
            .unwrap_or_else(|| DEFAULT_COMPUTE_API_ROOT.to_string());
        let trimmed = raw.trim();
        if trimmed.ends_with('/') {
            trimmed.to_string()
        } else {
            format!("{trimmed}/")
        }
    }

    async fn check_inner(&self, ctx: &CheckContext) -> Result<CheckOutcome, CloudError> {
        if !ctx.reservation_clouds.contains(&CloudId::Gcp) {
            return Ok(CheckOutcome {
                facts: CloudFacts::Catalog,
                cache: CacheUse::None,
            });
        }
        let adc = AdcFile::read(&adc_path(ctx))?;
        let project = resolve_project(ctx, &adc, "the reservation lookup")?;
        let api_root = self.api_root(ctx);
        let span = tracing::Span::current();
        span.record("project", tracing::field::display(&project));
        let cache = self.open_cache(ctx).map(|(store, hasher)| {
            let key = fingerprint(&hasher, &adc, &project, &api_root);
            (store, key)
        });

        if !ctx.refresh
            && let Some((store, key)) = &cache
            && let Some(hit) = lookup(store, key)
        {
            span.record("cache", "hit");
            return Ok(hit);
        }
        // Serialise fetchers of the same list across processes; a lock that
        // cannot be had in time only costs a duplicate fetch.
        let guard = match &cache {
            Some((store, key)) => match store.lock(key, self.options.service.lock_wait).await {
                Ok(lock) => Some(lock),
                Err(e) => {
                    warn!(error = %e, "listing GCP reservations without the cache lock");
                    None
                }
            },
            None => None,
        };
        if !ctx.refresh
            && guard.is_some()
            && let Some((store, key)) = &cache
            && let Some(hit) = lookup(store, key)
        {
            span.record("cache", "hit");
            return Ok(hit);
        }

        span.record("cache", "miss");
        match self.fetch(&adc, &project, &api_root).await {
            Ok(reservations) => {
                let value = GcpReservations {
                    project,
                    reservations,
                };
                if let Some((store, key)) = &cache
                    && let Err(e) = store.put(key, &value, self.options.service.cache_ttl)
                {
                    warn!(error = %e, "cannot cache the GCP reservations");
                }
                Ok(CheckOutcome {
                    facts: CloudFacts::Gcp(value),
                    cache: CacheUse::Miss,
                })
            }
            Err(CloudError::Auth(message)) => {
                // Rejected credentials must not keep answering from the cache.
                if let Some((store, key)) = &cache
                    && let Err(e) = store.remove(key)
                {
                    warn!(error = %e, "cannot drop the GCP reservations from the cache");
                }
                Err(CloudError::Auth(message))
            }
            Err(e) => Err(e),
        }
    }

    fn open_cache(&self, ctx: &CheckContext) -> Option<(CacheStore, KeyedHasher)> {
        let opened = StateDir::open(&ctx.state_dir).and_then(|dir| {
            let store = dir.store(RESERVATIONS_CACHE_KIND, RESERVATIONS_CACHE_SCHEMA)?;
            Ok((
                store.with_clock(self.options.service.clock.clone()),
                dir.hasher()?,
            ))
        });
        match opened {
            Ok(cache) => Some(cache),
            Err(e) => {
                // The cache is an optimisation: list every time instead.
                warn!(error = %e, "GCP reservations cache disabled");
                None
            }
        }
    }

    /// Token grant, then every page of the aggregated list.
    async fn fetch(
        &self,
        adc: &AdcFile,
        project: &str,
        api_root: &str,
    ) -> Result<Vec<Reservation>, CloudError> {
        let tls = api_root.starts_with("https:") || adc.token_uri().starts_with("https:");
        let http = Http::new(
            tls,
            self.options.service.connect_timeout,
            self.options.service.request_timeout,
        )?;
        let mut secrets = adc.secrets();
        let form = adc.token_request_body(self.options.service.clock.now())?;
        let token_uri = adc.token_uri();
        let access_token = self
            .options
            .service
            .retry("GCP", Failure::is_transient, || {
                http.token(token_uri, form.clone())
            })
            .await
            .map_err(|f| self.token_error(f, adc, &secrets))?;
        secrets.push(&access_token);

        let mut out = Vec::new();
        let mut page_token: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let url = rest::page_url(api_root, project, page_token.as_deref());
            let page = self
                .options
                .service
                .retry("GCP", Failure::is_transient, || {
                    http.reservations_page(&url, &access_token)
                })
                .await
                .map_err(|f| self.list_error(f, project, &secrets))?;
            out.extend(page.ready_reservations());
            match page.next_page_token.filter(|t| !t.is_empty()) {
                Some(next) if Some(&next) == page_token.as_ref() => {
                    return Err(CloudError::Service(format!(
                        "Failed to list GCP reservations in project {project}: the API repeated page token {next:?}"
                    )));
                }
                Some(next) => page_token = Some(next),
                None => {
                    debug!(
                        reservations = out.len(),
                        "listed the READY GCP reservations"
                    );
                    return Ok(out);
                }
            }
        }
        Err(CloudError::Service(format!(
            "Failed to list GCP reservations in project {project}: more than {MAX_PAGES} pages"
        )))
    }

    fn token_error(&self, failure: Failure, adc: &AdcFile, secrets: &[&str]) -> CloudError {
        // A token URI may carry user-info; it is shown, so it is redacted.
        let uri = crate::redact::redact_urls(adc.token_uri());
        match failure {
            Failure::Timeout => CloudError::Timeout(self.options.service.request_timeout),
            Failure::Transport(why) => CloudError::Service(format!(
                "Failed to get a GCP access token from {uri}: {}",
                rest::sanitize(&why, secrets)
            )),
            Failure::Status { status, body } if matches!(status.as_u16(), 400 | 401 | 403) => {
                CloudError::Auth(format!(
                    "the GCP credentials {} were refused by {uri} (HTTP {}: {}). Run: gcloud auth application-default login",
                    adc.path.display(),
                    status.as_u16(),
                    rest::sanitize(&rest::error_message(&body), secrets)
                ))
            }
            Failure::Status { status, body } => CloudError::Service(format!(
                "Failed to get a GCP access token from {uri}: HTTP {}: {}",
                status.as_u16(),
                rest::sanitize(&rest::error_message(&body), secrets)
            )),
        }
    }

    fn list_error(&self, failure: Failure, project: &str, secrets: &[&str]) -> CloudError {
        let what = format!("Failed to list GCP reservations in project {project}");
        match failure {
            Failure::Timeout => CloudError::Timeout(self.options.service.request_timeout),
            Failure::Transport(why) => {
                CloudError::Service(format!("{what}: {}", rest::sanitize(&why, secrets)))
            }
            Failure::Status { status, body } => {
                let text = format!(
                    "{what}: HTTP {}: {}",
                    status.as_u16(),
                    rest::sanitize(&rest::error_message(&body), secrets)
                );
                if matches!(status.as_u16(), 401 | 403) {
                    CloudError::Auth(text)
                } else {
                    CloudError::Service(text)
                }
            }
        }
    }
}

impl Cloud for GcpCloud {
    fn id(&self) -> CloudId {
        CloudId::Gcp
    }

    fn credentials(&self, ctx: &CheckContext) -> Credentials {
        let path = adc_path(ctx);
        if path.is_file() {
            Credentials::Present(path.display().to_string())
        } else {
            Credentials::Missing(NO_CREDENTIALS.to_string())
        }
    }

    fn check<'a>(
        &'a self,
        ctx: &'a CheckContext,
    ) -> BoxFuture<'a, Result<CheckOutcome, CloudError>> {
        let span = tracing::debug_span!(
            "gcp_reservations",
            project = tracing::field::Empty,
            cache = tracing::field::Empty
        );
        Box::pin(self.check_inner(ctx).instrument(span))
    }
}

fn lookup(store: &CacheStore, key: &str) -> Option<CheckOutcome> {
    match store.get::<GcpReservations>(key) {
        Lookup::Hit { value, age } => {
            debug!(
                cache = "hit",
                age_ms = age.as_millis() as u64,
                "GCP reservations from the cache"
            );
            Some(CheckOutcome {
                facts: CloudFacts::Gcp(value),
                cache: CacheUse::Hit { age },
            })
        }
        Lookup::Miss(reason) => {
            debug!(cache = "miss", reason = %reason, "GCP reservations not cached");
            None
        }
    }
}

/// The cache key: an HMAC of everything that selects the list.
fn fingerprint(hasher: &KeyedHasher, adc: &AdcFile, project: &str, api_root: &str) -> String {
    let path = adc.path.to_string_lossy();
    hasher.digest(&[
        ("credentials_path", path.as_bytes()),
        ("credentials_contents", &adc.contents),
        ("project", project.as_bytes()),
        ("compute_api_root", api_root.as_bytes()),
    ])
}

/// The project to list (order in the module docs); `purpose` names what
/// needs it in the error.
fn resolve_project(ctx: &CheckContext, adc: &AdcFile, purpose: &str) -> Result<String, CloudError> {
    let env = |name: &str| {
        ctx.env
            .get(name)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    ctx.gcp_project_id
        .clone()
        .filter(|p| !p.trim().is_empty())
        .or_else(|| env("CLOUDSDK_CORE_PROJECT"))
        .or_else(|| env("GOOGLE_CLOUD_PROJECT"))
        .or_else(|| gcloud_project(ctx))
        .or_else(|| adc.project().map(str::to_string))
        .ok_or_else(|| {
            CloudError::Config(format!(
                "Failed to get the GCP project id for {purpose}. Set gcp.project_id in \
                 ~/.sky/config.yaml, or run: gcloud config set project <PROJECT_ID>"
            ))
        })
}

/// `[core] project` of gcloud's active configuration.
fn gcloud_project(ctx: &CheckContext) -> Option<String> {
    gcloud_core_property(ctx, "project")
}

/// `[core] <key>` of gcloud's active configuration
/// (`CLOUDSDK_ACTIVE_CONFIG_NAME`, else the `active_config` file, else `default`).
fn gcloud_core_property(ctx: &CheckContext, key: &str) -> Option<String> {
    let dir = adc::gcloud_config_dir(ctx);
    let active = ctx
        .env
        .get("CLOUDSDK_ACTIVE_CONFIG_NAME")
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .or_else(|| {
            std::fs::read_to_string(dir.join("active_config"))
                .ok()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        })
        .unwrap_or_else(|| "default".to_string());
    let text = std::fs::read_to_string(dir.join("configurations").join(format!("config_{active}")))
        .ok()?;
    ini_value(&text, "core", key)
}

/// A value from a minimal INI document (gcloud's properties files).
fn ini_value(text: &str, section: &str, key: &str) -> Option<String> {
    let mut current = String::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with(['#', ';']) || line.is_empty() {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = name.trim().to_string();
            continue;
        }
        if current == section
            && let Some((k, v)) = line.split_once('=')
            && k.trim() == key
        {
            let v = v.trim();
            return (!v.is_empty()).then(|| v.to_string());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ini_values_come_from_their_section() {
        let text = "[auth]\nproject = no\n[core]\naccount = me\nproject = my-proj\n";
        assert_eq!(
            ini_value(text, "core", "project").as_deref(),
            Some("my-proj")
        );
        assert_eq!(ini_value(text, "core", "zone"), None);
    }
}
