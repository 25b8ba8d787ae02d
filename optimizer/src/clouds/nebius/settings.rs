//! Where Nebius' credentials, tenant and API domain come from, as
//! `sky/adaptors/nebius.py` reads them, and the `sky check` hints of
//! `Nebius._check_compute_credentials`.
//!
//! - Workspace config: `workspaces.<active_workspace>.nebius` over
//!   `nebius` in `~/.sky/config.yaml` (`skypilot_config.get_workspace_cloud`).
//! - Credentials (`sdk()`): the workspace's `credentials_file_path` (a
//!   service-account credentials file), else `~/.nebius/NEBIUS_IAM_TOKEN.txt`,
//!   else `~/.nebius/credentials.json`.
//! - Tenant (`get_tenant_id`): the workspace's `tenant_id`, else
//!   `nebius.tenant_id`, else `~/.nebius/NEBIUS_TENANT_ID.txt`.
//! - Domain (`api_domain`): the workspace's `domain`, else `nebius.domain`,
//!   else `~/.nebius/NEBIUS_DOMAIN.txt`, else the SDK's `api.nebius.cloud:443`.
//! - Personal pricing (`nebius_catalog._get_df`): `nebius.use_personal_pricing`
//!   (default true); a region's project: `nebius.region_configs.<region>.project_id`,
//!   else `nebius.project_id`, else the listed project.

use std::path::{Path, PathBuf};

use serde_yaml_ng::Value;

use super::super::CheckContext;
use crate::config::expand_home;
use planner::config::SkyConfig;

/// `tenant_id_path()`.
pub(crate) const TENANT_ID_PATH: &str = "~/.nebius/NEBIUS_TENANT_ID.txt";
/// `iam_token_path()`.
pub(crate) const IAM_TOKEN_PATH: &str = "~/.nebius/NEBIUS_IAM_TOKEN.txt";
/// `domain_path()`.
pub(crate) const DOMAIN_PATH: &str = "~/.nebius/NEBIUS_DOMAIN.txt";
/// `_get_default_credentials_path()`.
pub(crate) const DEFAULT_CREDENTIALS_PATH: &str = "~/.nebius/credentials.json";
/// The SDK's `nebius.base.constants.DOMAIN`.
pub(crate) const DEFAULT_DOMAIN: &str = "api.nebius.cloud:443";
/// `_INDENT_PREFIX`.
const INDENT: &str = "    ";

/// Which credential the SDK would use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CredentialFile {
    /// An IAM token file (a bearer token, read stripped).
    Token(PathBuf),
    /// A service-account credentials file (`subject-credentials` JSON).
    ServiceAccount(PathBuf),
}

impl CredentialFile {
    /// The file.
    pub(crate) fn path(&self) -> &Path {
        match self {
            CredentialFile::Token(p) | CredentialFile::ServiceAccount(p) => p,
        }
    }
}

/// Everything the adapter reads before any call.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    /// `credentials_path()` as SkyPilot prints it (unexpanded).
    pub credentials_path_shown: String,
    /// Whether a token or credentials file exists (`is_token_or_cred_file_exist`).
    pub has_credentials: bool,
    /// The credential `sdk()` would pick.
    pub credential: CredentialFile,
    /// `get_tenant_id()`.
    pub tenant_id: Option<String>,
    /// `api_domain()`, or the SDK default.
    pub domain: String,
    /// `nebius.use_personal_pricing`.
    pub personal_pricing: bool,
    /// `nebius.project_id` (the fallback of every region).
    pub project_id: Option<String>,
    /// `nebius.region_configs` (region → its `project_id`).
    pub region_projects: Vec<(String, String)>,
}

impl Settings {
    /// Reads the config, the `~/.nebius` files and the environment-free defaults.
    pub(crate) fn read(ctx: &CheckContext) -> Settings {
        let cfg = &ctx.sky_config;
        let ws = workspace_cloud(cfg);
        let global = cfg.raw.get("nebius");
        let lookup = |key: &str| {
            ws.and_then(|w| w.get(key))
                .and_then(scalar)
                .or_else(|| global.and_then(|g| g.get(key)).and_then(scalar))
        };
        let home = &ctx.home;
        let read_trimmed = |shown: &str| {
            std::fs::read_to_string(expand_home(shown, home))
                .ok()
                .map(|t| t.trim().to_string())
        };
        let workspace_credentials = lookup("credentials_file_path");
        let credentials_path_shown = workspace_credentials
            .clone()
            .unwrap_or_else(|| DEFAULT_CREDENTIALS_PATH.to_string());
        let token_path = expand_home(IAM_TOKEN_PATH, home);
        let credentials_path = expand_home(&credentials_path_shown, home);
        let has_credentials = token_path.exists() || credentials_path.exists();
        let credential = match &workspace_credentials {
            Some(p) => CredentialFile::ServiceAccount(expand_home(p, home)),
            None if token_path.is_file() => CredentialFile::Token(token_path),
            None => CredentialFile::ServiceAccount(expand_home(DEFAULT_CREDENTIALS_PATH, home)),
        };
        let tenant_id = lookup("tenant_id").or_else(|| read_trimmed(TENANT_ID_PATH));
        let domain = lookup("domain")
            .or_else(|| read_trimmed(DOMAIN_PATH))
            .filter(|d| !d.is_empty())
            .unwrap_or_else(|| DEFAULT_DOMAIN.to_string());
        let personal_pricing = match global.and_then(|g| g.get("use_personal_pricing")) {
            None => true,
            Some(v) => truthy(v),
        };
        let project_id = global.and_then(|g| g.get("project_id")).and_then(scalar);
        let region_projects = global
            .and_then(|g| g.get("region_configs"))
            .and_then(Value::as_mapping)
            .map(|m| {
                m.iter()
                    .filter_map(|(region, conf)| {
                        Some((scalar(region)?, conf.get("project_id").and_then(scalar)?))
                    })
                    .collect()
            })
            .unwrap_or_default();
        Settings {
            credentials_path_shown,
            has_credentials,
            credential,
            tenant_id,
            domain,
            personal_pricing,
            project_id,
            region_projects,
        }
    }

    /// The project SkyPilot prices `region` in: the configured one, else `listed`.
    pub(crate) fn project_for(&self, region: &str, listed: &str) -> String {
        self.region_projects
            .iter()
            .find(|(r, _)| r == region)
            .map(|(_, p)| p.clone())
            .or_else(|| self.project_id.clone())
            .unwrap_or_else(|| listed.to_string())
    }

    /// `token_cred_msg` of `_check_compute_credentials`.
    pub(crate) fn credentials_hint(&self) -> String {
        format!(
            "{INDENT}Credentials can be set up by running: \n{INDENT}  $ nebius iam get-access-token > {IAM_TOKEN_PATH} \n{INDENT} or generate  {} \n",
            self.credentials_path_shown
        )
    }

    /// `tenant_msg` of `_check_compute_credentials`.
    pub(crate) fn tenant_hint() -> String {
        format!(
            "{INDENT} Copy your tenant ID from the web console and save it to file \n{INDENT}  $ echo $NEBIUS_TENANT_ID_PATH > {TENANT_ID_PATH} \n{INDENT} Or if you have 1 tenant you can run:\n{INDENT}  $ nebius --format json iam whoami|jq -r '.user_profile.tenants[0].tenant_id' > {TENANT_ID_PATH} \n"
        )
    }
}

/// `workspaces.<active>.nebius`, when it is a mapping.
fn workspace_cloud(cfg: &SkyConfig) -> Option<&Value> {
    let active = cfg
        .raw
        .get("active_workspace")
        .and_then(scalar)
        .unwrap_or_else(|| "default".to_string());
    cfg.raw
        .get("workspaces")?
        .get(active.as_str())?
        .get("nebius")
        .filter(|v| v.is_mapping())
}

/// A YAML scalar as text (`tenant_id: 123` is a number to YAML).
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(if *b { "True" } else { "False" }.to_string()),
        _ => None,
    }
}

/// Python truthiness of a YAML value.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Sequence(s) => !s.is_empty(),
        Value::Mapping(m) => !m.is_empty(),
        Value::Tagged(t) => truthy(&t.value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn ctx(home: &Path, config: &str) -> CheckContext {
        CheckContext {
            env: Default::default(),
            home: home.to_path_buf(),
            state_dir: home.join(".sky"),
            refresh: false,
            cloud_timeout: Duration::from_secs(5),
            kubernetes_allowed_contexts: None,
            reservation_clouds: Vec::new(),
            gcp_project_id: None,
            sky_config: planner::config::parse_sky_config(config, "config.yaml").unwrap(),
        }
    }

    #[test]
    fn files_and_config_are_read_in_skypilots_order() {
        let home = tempfile::tempdir().unwrap();
        let s = Settings::read(&ctx(home.path(), ""));
        assert!(!s.has_credentials);
        assert_eq!(s.tenant_id, None);
        assert_eq!(s.domain, DEFAULT_DOMAIN);
        assert!(s.personal_pricing);
        assert!(
            s.credentials_hint()
                .contains("or generate  ~/.nebius/credentials.json")
        );

        std::fs::create_dir_all(home.path().join(".nebius")).unwrap();
        std::fs::write(home.path().join(".nebius/NEBIUS_IAM_TOKEN.txt"), "tok\n").unwrap();
        std::fs::write(
            home.path().join(".nebius/NEBIUS_TENANT_ID.txt"),
            " tenant-file \n",
        )
        .unwrap();
        let s = Settings::read(&ctx(home.path(), ""));
        assert!(s.has_credentials);
        assert_eq!(s.tenant_id.as_deref(), Some("tenant-file"));
        assert!(matches!(s.credential, CredentialFile::Token(_)));

        let s = Settings::read(&ctx(
            home.path(),
            "nebius:\n  tenant_id: tenant-cfg\n  domain: api.example:443\n  use_personal_pricing: false\n  project_id: p-all\n  region_configs:\n    eu-north1:\n      project_id: p-north\n\
             workspaces:\n  default:\n    nebius:\n      tenant_id: tenant-ws\n      credentials_file_path: ~/sa.json\n",
        ));
        assert_eq!(s.tenant_id.as_deref(), Some("tenant-ws"));
        assert_eq!(s.domain, "api.example:443");
        assert!(!s.personal_pricing);
        assert_eq!(
            s.credential,
            CredentialFile::ServiceAccount(home.path().join("sa.json"))
        );
        assert_eq!(s.credentials_path_shown, "~/sa.json");
        assert_eq!(s.project_for("eu-north1", "listed"), "p-north");
        assert_eq!(s.project_for("us-central1", "listed"), "p-all");
    }
}
