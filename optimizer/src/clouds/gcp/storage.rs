//! GCP's storage capability, as `sky/clouds/gcp.py::GCP._check_storage_credentials`
//! checks it (`_check_credentials` with the Cloud Storage API and
//! `gcp_utils.get_minimal_storage_permissions()`): with the
//! application-default credentials' access token,
//!
//! 1. Cloud Resource Manager `projects.testIamPermissions` on the project
//!    with SkyPilot's storage permissions; any not granted disables storage
//!    with SkyPilot's message;
//! 2. whether `storage.googleapis.com` is enabled in the project (Service
//!    Usage `services.get`; SkyPilot lists the enabled services with
//!    `gcloud services list`).
//!
//! Where 0.14.1 then *enables* a disabled API (`gcloud services enable`),
//! `sky` only reports it with 0.14.1's message for an API it could not
//! enable, plus the command that enables it: `sky check` changes nothing in
//! a project. SkyPilot's import and `gcloud` checks have no counterpart (no
//! library or CLI is needed), and neither have the `access_tokens.db` /
//! `credentials.db` files, which the compute check does not require either.
//!
//! The account shown is gcloud's active account (`[core] account`, what
//! `gcloud auth list` reports), else the service account of the key file.

use futures::future::BoxFuture;
use planner::check::{CloudError, StorageOutcome};
use planner::cloud::{CloudId, Provider};
use tracing::Instrument;

use super::adc::{Adc, AdcFile, adc_path};
use super::rest::{self, Failure, Http};
use super::{GcpCloud, gcloud_core_property, resolve_project};
use crate::clouds::{CheckContext, Cloud, Credentials, StorageCheck};

/// The public Cloud Resource Manager root (the version is appended).
pub const DEFAULT_RESOURCE_MANAGER_ROOT: &str = "https://cloudresourcemanager.googleapis.com/";
/// The public Service Usage root (the version is appended).
pub const DEFAULT_SERVICE_USAGE_ROOT: &str = "https://serviceusage.googleapis.com/";
/// gcloud's Cloud Resource Manager override, honoured with gcloud's meaning.
pub const RESOURCE_MANAGER_ENDPOINT_ENV: &str =
    "CLOUDSDK_API_ENDPOINT_OVERRIDES_CLOUDRESOURCEMANAGER";
/// gcloud's Service Usage override, honoured with gcloud's meaning.
pub const SERVICE_USAGE_ENDPOINT_ENV: &str = "CLOUDSDK_API_ENDPOINT_OVERRIDES_SERVICEUSAGE";

/// `constants.STORAGE_MINIMAL_PERMISSIONS + constants.GCP_MINIMAL_PERMISSIONS`
/// (`sky/provision/gcp/constants.py`), in that order.
const STORAGE_PERMISSIONS: &[&str] = &[
    "storage.buckets.create",
    "storage.buckets.delete",
    "serviceusage.services.enable",
    "serviceusage.services.list",
];
/// The API `_check_storage_credentials` needs: `('storage', 'Cloud Storage')`.
const STORAGE_API: (&str, &str) = ("storage", "Cloud Storage");

/// A root from the options, else gcloud's override variable, else the
/// public one; always ending in `/`.
fn api_root(explicit: Option<&str>, ctx: &CheckContext, env: &str, default: &str) -> String {
    let raw = explicit
        .map(str::to_string)
        .or_else(|| ctx.env.get(env).filter(|v| !v.trim().is_empty()).cloned())
        .unwrap_or_else(|| default.to_string());
    let trimmed = raw.trim();
    if trimmed.ends_with('/') {
        trimmed.to_string()
    } else {
        format!("{trimmed}/")
    }
}

/// Python's `repr` of a set of strings (`{'a', 'b'}`), in the given order
/// (SkyPilot's is hash order, which differs per process).
fn py_set(items: &[&str]) -> String {
    let inner: Vec<String> = items
        .iter()
        .map(|i| planner::pytext::py_str_repr(i))
        .collect();
    format!("{{{}}}", inner.join(", "))
}

impl GcpCloud {
    /// `GCP._check_storage_credentials` (see the module docs).
    async fn storage(&self, ctx: &CheckContext) -> StorageOutcome {
        match self.storage_inner(ctx).await {
            Ok(outcome) => outcome,
            Err(e) => StorageOutcome::Failed(e),
        }
    }

    async fn storage_inner(&self, ctx: &CheckContext) -> Result<StorageOutcome, CloudError> {
        // No credentials: the compute check's hint, for both capabilities.
        if let Credentials::Missing(hint) = self.credentials(ctx) {
            return Ok(StorageOutcome::Disabled(hint));
        }
        let adc = AdcFile::read(&adc_path(ctx))?;
        let project = resolve_project(ctx, &adc, "the storage check")?;
        let account = gcloud_core_property(ctx, "account").or_else(|| match &adc.adc {
            Adc::ServiceAccount { client_email, .. } => Some(client_email.clone()),
            Adc::AuthorizedUser { .. } => None,
        });
        // `get_user_identities`: `<account> [project_id=<project>]`.
        let identity = format!(
            "{} [project_id={project}]",
            account.as_deref().unwrap_or("None")
        );
        let crm = api_root(
            self.options.resource_manager_endpoint.as_deref(),
            ctx,
            RESOURCE_MANAGER_ENDPOINT_ENV,
            DEFAULT_RESOURCE_MANAGER_ROOT,
        );
        let usage = api_root(
            self.options.service_usage_endpoint.as_deref(),
            ctx,
            SERVICE_USAGE_ENDPOINT_ENV,
            DEFAULT_SERVICE_USAGE_ROOT,
        );
        let tls = [crm.as_str(), usage.as_str(), adc.token_uri()]
            .iter()
            .any(|u| u.starts_with("https:"));
        let http = Http::new(
            tls,
            self.options.service.connect_timeout,
            self.options.service.request_timeout,
        )?;
        let mut secrets = adc.secrets();
        let form = adc.token_request_body(self.options.service.clock.now())?;
        let access_token = self
            .options
            .service
            .retry("GCP", Failure::is_transient, || {
                http.token(adc.token_uri(), form.clone())
            })
            .await
            .map_err(|f| self.token_error(f, &adc, &secrets))?;
        crate::redact::remember_secret(&access_token);
        secrets.push(&access_token);
        let project_segment: String = form_urlencoded::byte_serialize(project.as_bytes()).collect();

        // 1. `crm.projects().testIamPermissions(resource=project, body=...)`.
        let url = format!("{crm}v1/projects/{project_segment}:testIamPermissions");
        let body = serde_json::json!({ "permissions": STORAGE_PERMISSIONS }).to_string();
        let answer = self
            .options
            .service
            .retry("GCP", Failure::is_transient, || {
                http.json(&url, &access_token, Some(body.clone()))
            })
            .instrument(tracing::debug_span!("gcp_test_iam_permissions"))
            .await;
        let granted: Vec<String> = match answer {
            Ok(doc) => doc
                .get("permissions")
                .and_then(|p| p.as_array())
                .map(|list| {
                    list.iter()
                        .filter_map(|p| p.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
            Err(failure) => {
                return self.call_failed(
                    failure,
                    &format!(
                        "Failed to test the storage permissions of the current GCP identity ({identity})"
                    ),
                    &secrets,
                );
            }
        };
        let missing: Vec<&str> = STORAGE_PERMISSIONS
            .iter()
            .copied()
            .filter(|p| !granted.iter().any(|g| g == p))
            .collect();
        if !missing.is_empty() {
            return Ok(StorageOutcome::Disabled(format!(
                "The following permissions are not enabled for the current GCP identity ({identity}):\n    {}\n    For more details, visit: https://docs.skypilot.co/en/latest/cloud-setup/cloud-permissions/gcp.html",
                py_set(&missing)
            )));
        }

        // 2. `is_api_disabled('storage', project_id)`.
        let (endpoint, display_name) = STORAGE_API;
        let service = format!("{endpoint}.googleapis.com");
        let url = format!("{usage}v1/projects/{project_segment}/services/{service}");
        let answer = self
            .options
            .service
            .retry("GCP", Failure::is_transient, || {
                http.json(&url, &access_token, None)
            })
            .instrument(tracing::debug_span!("gcp_service_state"))
            .await;
        let state = match answer {
            Ok(doc) => doc
                .get("state")
                .and_then(|s| s.as_str())
                .unwrap_or("")
                .to_string(),
            Err(failure) => {
                return self.call_failed(
                    failure,
                    &format!(
                        "Failed to check whether the {display_name} API is enabled in project {project}"
                    ),
                    &secrets,
                );
            }
        };
        if state != "ENABLED" {
            return Ok(StorageOutcome::Disabled(format!(
                "{display_name} API is disabled. Please retry `sky check` in a few minutes, or manually enable it.\n    To enable it: gcloud services enable {service} --project {project}"
            )));
        }
        Ok(StorageOutcome::Enabled)
    }

    /// A failed storage call: a refusal (4xx) is a verdict, anything else
    /// (timeout, transport, 429, 5xx) is not.
    fn call_failed(
        &self,
        failure: Failure,
        what: &str,
        secrets: &[&str],
    ) -> Result<StorageOutcome, CloudError> {
        match failure {
            Failure::Timeout => Err(CloudError::Timeout(self.options.service.request_timeout)),
            Failure::Transport(why) => Err(CloudError::Service(format!(
                "{what}: {}",
                rest::sanitize(&why, secrets)
            ))),
            Failure::Status { status, body } => {
                let text = format!(
                    "{what}: HTTP {}: {}",
                    status.as_u16(),
                    rest::sanitize(&rest::error_message(&body), secrets)
                );
                if status.is_server_error() || status.as_u16() == 429 {
                    Err(CloudError::Service(text))
                } else {
                    Ok(StorageOutcome::Disabled(text))
                }
            }
        }
    }
}

impl StorageCheck for GcpCloud {
    fn provider(&self) -> Provider {
        Provider::Cloud(CloudId::Gcp)
    }

    fn check_storage<'a>(&'a self, ctx: &'a CheckContext) -> BoxFuture<'a, StorageOutcome> {
        Box::pin(
            self.storage(ctx)
                .instrument(tracing::debug_span!("gcp_storage")),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_print_as_python_prints_them() {
        assert_eq!(
            py_set(&["storage.buckets.create", "serviceusage.services.list"]),
            "{'storage.buckets.create', 'serviceusage.services.list'}"
        );
    }
}
