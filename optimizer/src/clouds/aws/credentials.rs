//! Where AWS credentials come from: the default chain's sources decided from
//! local hints only (environment, shared files, web identity, container,
//! instance metadata — no network), and the SDK's chain run within a
//! deadline.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use aws_credential_types::provider::ProvideCredentials;
use aws_credential_types::provider::error::CredentialsError;
use aws_types::SdkConfig;
use planner::check::CloudError;

use super::text::one_line;
use crate::clouds::CheckContext;
use crate::config::expand_home;

const NO_CREDENTIALS: &str = "AWS credentials are not set. Run the following commands:\n    \
    $ aws configure\n    \
    $ aws configure list  # Ensure that this shows identity is set.\n\
    For more info: https://docs.skypilot.co/en/latest/getting-started/installation.html#cloud-account-setup";

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

/// The credentials the SDK's chain resolves, within `bound`.
pub(super) async fn resolve(
    sdk: &SdkConfig,
    bound: Duration,
) -> Result<aws_credential_types::Credentials, CloudError> {
    let provider = sdk
        .credentials_provider()
        .ok_or_else(|| CloudError::Config(NO_CREDENTIALS.to_string()))?;
    match tokio::time::timeout(bound, provider.provide_credentials()).await {
        Err(_) => Err(CloudError::Timeout(bound)),
        Ok(Ok(creds)) => Ok(creds),
        Ok(Err(CredentialsError::CredentialsNotLoaded(_))) => {
            Err(CloudError::Config(NO_CREDENTIALS.to_string()))
        }
        Ok(Err(CredentialsError::ProviderTimedOut(_))) => Err(CloudError::Timeout(bound)),
        Ok(Err(e @ CredentialsError::InvalidConfiguration(_))) => Err(CloudError::Config(format!(
            "Invalid AWS configuration: {}",
            one_line(&e, &[])
        ))),
        Ok(Err(e)) => Err(CloudError::Config(format!(
            "Failed to load AWS credentials: {}",
            one_line(&e, &[])
        ))),
    }
}

/// The credentials and region the SDK's default chains would resolve, when
/// both come from the environment alone (detection said
/// [`Source::Environment`], and `AWS_REGION` or `AWS_DEFAULT_REGION` is
/// set): what the identity cache is keyed by, without building the SDK's
/// configuration (its profile files, providers and HTTP stack: most of a
/// warm launch's AWS cost). `None`: only the SDK can say; a launch then
/// resolves through it as before.
///
/// Mirrors aws-config 1.x: `EnvironmentVariableCredentialsProvider`
/// (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, a non-blank trimmed
/// `AWS_SESSION_TOKEN`, a non-blank trimmed `AWS_ACCOUNT_ID`) and
/// `EnvironmentVariableRegionProvider` (`AWS_REGION`, else
/// `AWS_DEFAULT_REGION`, as given). A region the SDK would read as empty
/// is left to the SDK. Anything this gets wrong only misses the cache.
pub(super) fn from_environment(
    ctx: &CheckContext,
    source: &Source,
) -> Option<(aws_credential_types::Credentials, String)> {
    if *source != Source::Environment {
        return None;
    }
    let region = ctx
        .env
        .get("AWS_REGION")
        .or_else(|| ctx.env.get("AWS_DEFAULT_REGION"))
        .filter(|r| !r.is_empty())?
        .clone();
    let value = |name: &str| ctx.env.get(name).filter(|v| !v.trim().is_empty());
    let access_key = value("AWS_ACCESS_KEY_ID")?;
    let secret_key = value("AWS_SECRET_ACCESS_KEY")?;
    let trimmed = |name: &str| value(name).map(|v| v.trim().to_string());
    let mut builder = aws_credential_types::Credentials::builder()
        .access_key_id(access_key)
        .secret_access_key(secret_key)
        .provider_name("EnvironmentVariable");
    builder.set_session_token(trimmed("AWS_SESSION_TOKEN"));
    builder.set_account_id(
        trimmed("AWS_ACCOUNT_ID").map(aws_credential_types::attributes::AccountId::from),
    );
    Some((builder.build(), region))
}

/// The shared config and credentials files in play, read once per check.
#[derive(Debug)]
pub(super) struct SharedFiles {
    pub(super) config_path: PathBuf,
    pub(super) config: Option<String>,
    pub(super) credentials_path: PathBuf,
    pub(super) credentials: Option<String>,
}

impl SharedFiles {
    /// The files `AWS_CONFIG_FILE` and `AWS_SHARED_CREDENTIALS_FILE` name
    /// (default: `~/.aws/config`, `~/.aws/credentials`); a missing file is `None`.
    pub(super) fn read(ctx: &CheckContext) -> Result<Self, CloudError> {
        let (config_path, credentials_path) = Self::paths(ctx);
        Self::read_from(config_path, credentials_path)
    }

    /// `earlier` when it was read from the files `ctx` names (the fan-out's
    /// credential look-up just before the check: the files are read once
    /// per check, not twice), else the files read now.
    pub(super) fn reuse_or_read(
        earlier: Option<SharedFiles>,
        ctx: &CheckContext,
    ) -> Result<Self, CloudError> {
        let (config_path, credentials_path) = Self::paths(ctx);
        match earlier {
            Some(files)
                if files.config_path == config_path
                    && files.credentials_path == credentials_path =>
            {
                Ok(files)
            }
            _ => Self::read_from(config_path, credentials_path),
        }
    }

    fn read_from(config_path: PathBuf, credentials_path: PathBuf) -> Result<Self, CloudError> {
        Ok(SharedFiles {
            config: read_optional(&config_path)?,
            credentials: read_optional(&credentials_path)?,
            config_path,
            credentials_path,
        })
    }

    /// Where `AWS_CONFIG_FILE` and `AWS_SHARED_CREDENTIALS_FILE` point.
    fn paths(ctx: &CheckContext) -> (PathBuf, PathBuf) {
        let locate = |var: &str, default: &str| match ctx.env.get(var).filter(|v| !v.is_empty()) {
            Some(raw) => expand_home(raw, &ctx.home),
            None => ctx.home.join(".aws").join(default),
        };
        (
            locate("AWS_CONFIG_FILE", "config"),
            locate("AWS_SHARED_CREDENTIALS_FILE", "credentials"),
        )
    }

    /// Whether either file holds `needle`.
    pub(super) fn mentions(&self, needle: &str) -> bool {
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
pub(super) enum Source {
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
    /// The source as `sky check` names it (`profile default in ~/.aws/credentials`).
    pub(super) fn describe(&self, files: &SharedFiles) -> String {
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
pub(super) fn detect(
    ctx: &CheckContext,
    files: &SharedFiles,
    detect_ec2: bool,
) -> Result<Source, String> {
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
