//! Exec-plugin credentials (`users[].user.exec` in a kubeconfig: `aws eks
//! get-token`, `gke-gcloud-auth-plugin`), run once and reused until they
//! expire, across processes.
//!
//! A plugin takes 0.3–1 s per call and a launch builds a client per context
//! and listing (nodes, then pods): without a cache every launch pays it at
//! least twice. client-go (`k8s.io/client-go/plugin/pkg/client/auth/exec`,
//! `Authenticator.refreshCredsLocked`) keeps the `ExecCredential` a plugin
//! printed until its `status.expirationTimestamp` passes, and runs the
//! plugin again after a 401. This does the same, with the credential kept
//! in the state folder (`kube-exec/<key>.json`, 0600, authenticated by its
//! HMAC like every entry, [`crate::state::CacheStore`]) so that the next
//! process finds it too:
//!
//! * the key is an HMAC digest ([`crate::state::KeyedHasher`]) of the
//!   plugin's command, arguments and `env` entries, the API server, and the
//!   credential variables of the launch's environment the plugins read
//!   ([`KEY_ENV_PREFIXES`]: another `AWS_PROFILE` is another token), so
//!   the file name reveals none of them;
//! * only a credential with an `expirationTimestamp` is stored, and only
//!   until then, less [`EXPIRY_MARGIN`] (client-go's own margin is zero;
//!   a token about to expire could lapse while a launch lists): never past
//!   its expiry;
//! * a 401 from the API server drops the entry ([`ExecCredentials::forget`]);
//! * the token never leaves the entry: it is neither logged nor traced
//!   (the plugin's output is parsed here and its error text names only the
//!   command).
//!
//! A plugin that asks for the cluster's details (`provideClusterInfo`) is
//! left to kube, which fills them in: it is run as before, uncached.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use kube::config::{AuthInfo, ExecConfig, ExecInteractiveMode};
use serde::{Deserialize, Serialize};

use crate::state::{CacheStore, KeyedHasher, Lookup, MissReason, StateDir};

/// The state folder's kind (folder) for exec credentials.
pub const EXEC_CREDENTIALS_KIND: &str = "kube-exec";
/// Layout version of an entry's value.
pub const EXEC_CREDENTIALS_SCHEMA: u32 = 1;
/// A credential is used only while it has at least this long left.
pub const EXPIRY_MARGIN: Duration = Duration::from_secs(30);
/// Variables of the launch's environment that take part in the key: those
/// the usual plugins read to pick an identity (`aws`, `gcloud`, `az`,
/// `kubelogin`), so a changed profile or account is another entry.
pub const KEY_ENV_PREFIXES: [&str; 5] = ["AWS_", "CLOUDSDK_", "GOOGLE_", "AZURE_", "KUBE"];

/// What a plugin's `ExecCredential.status` gave (the part a client uses).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credential {
    /// The bearer token.
    pub token: Option<String>,
    /// PEM client certificate.
    pub client_certificate_data: Option<String>,
    /// PEM client key.
    pub client_key_data: Option<String>,
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the values: this is a secret.
        f.debug_struct("Credential")
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field(
                "client_certificate_data",
                &self.client_certificate_data.as_ref().map(|_| "<redacted>"),
            )
            .field(
                "client_key_data",
                &self.client_key_data.as_ref().map(|_| "<redacted>"),
            )
            .finish()
    }
}

impl Credential {
    /// Puts the credential into `auth` in place of its exec plugin, as kube
    /// would after running it: a token, or a client certificate and key
    /// (kubeconfig's `*-data` fields are base64 of the PEM).
    pub fn apply(&self, auth: &mut AuthInfo) {
        use base64::Engine as _;
        let b64 = |pem: &str| base64::engine::general_purpose::STANDARD.encode(pem);
        auth.exec = None;
        if let Some(token) = &self.token {
            auth.token = Some(token.clone().into());
        }
        if let (Some(cert), Some(key)) = (&self.client_certificate_data, &self.client_key_data) {
            auth.client_certificate_data = Some(b64(cert));
            auth.client_key_data = Some(b64(key).into());
        }
    }

    /// Registers its secret parts with the log redactor, so that no log or
    /// trace line can show them even if a library prints them
    /// ([`crate::redact::remember_secret`], as the AWS and GCP adapters do).
    fn remember(&self) {
        for secret in [&self.token, &self.client_key_data].into_iter().flatten() {
            crate::redact::remember_secret(secret);
        }
    }

    /// Whether a client can authenticate with it.
    fn is_usable(&self) -> bool {
        self.token.is_some()
            || (self.client_certificate_data.is_some() && self.client_key_data.is_some())
    }
}

/// `ExecCredential` as plugins print it (`client.authentication.k8s.io`).
#[derive(Deserialize)]
struct ExecCredential {
    status: Option<Status>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Status {
    expiration_timestamp: Option<String>,
    token: Option<String>,
    client_certificate_data: Option<String>,
    client_key_data: Option<String>,
}

/// Why a plugin gave no credential (the text names the command only).
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// The plugin could not be started.
    #[error("cannot run the exec credential plugin `{command}`: {source}")]
    Start {
        /// The command.
        command: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The plugin ended with a failure.
    #[error("the exec credential plugin `{command}` failed ({status})")]
    Failed {
        /// The command.
        command: String,
        /// Its exit status.
        status: std::process::ExitStatus,
    },
    /// Its output is not an `ExecCredential` with a token or a certificate.
    #[error("the exec credential plugin `{command}` printed no usable ExecCredential")]
    Output {
        /// The command.
        command: String,
    },
}

/// The exec-credential cache of one state folder, opened on first use (like
/// the node cache: opening may create the folder and its key).
#[derive(Debug)]
pub struct ExecCredentials {
    state_dir: PathBuf,
    /// `KEY_ENV_PREFIXES` variables of the launch's environment, sorted.
    key_env: Vec<(String, String)>,
    opened: OnceLock<Option<(CacheStore, KeyedHasher)>>,
}

impl ExecCredentials {
    /// A cache under `state_dir`; `env` is the launch's environment (only
    /// the variables of [`KEY_ENV_PREFIXES`] are kept, for the key).
    pub fn new(state_dir: impl Into<PathBuf>, env: &BTreeMap<String, String>) -> Self {
        let key_env = env
            .iter()
            .filter(|(k, _)| KEY_ENV_PREFIXES.iter().any(|p| k.starts_with(p)))
            // KUBECONFIG names the file the plugin came from, not its identity.
            .filter(|(k, _)| k.as_str() != "KUBECONFIG")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        ExecCredentials {
            state_dir: state_dir.into(),
            key_env,
            opened: OnceLock::new(),
        }
    }

    fn opened(&self) -> Option<&(CacheStore, KeyedHasher)> {
        self.opened
            .get_or_init(|| {
                let state = StateDir::open(&self.state_dir).ok()?;
                let store = state
                    .store(EXEC_CREDENTIALS_KIND, EXEC_CREDENTIALS_SCHEMA)
                    .inspect_err(|e| tracing::debug!(error = %e, "exec credential cache disabled"))
                    .ok()?;
                Some((store, state.hasher().ok()?))
            })
            .as_ref()
    }

    /// The entry name of `exec` talking to `server`; `None` when the plugin
    /// is not cached (no command, or it wants the cluster's details).
    pub fn key(&self, exec: &ExecConfig, server: &str) -> Option<String> {
        if exec.provide_cluster_info {
            return None;
        }
        let command = exec.command.as_deref()?;
        let (_, hasher) = self.opened()?;
        let mut fields: Vec<(&str, Vec<u8>)> = vec![
            ("command", command.as_bytes().to_vec()),
            ("server", server.as_bytes().to_vec()),
            (
                "api_version",
                exec.api_version
                    .as_deref()
                    .unwrap_or("")
                    .as_bytes()
                    .to_vec(),
            ),
        ];
        for arg in exec.args.iter().flatten() {
            fields.push(("arg", arg.as_bytes().to_vec()));
        }
        for (name, value) in plugin_env(exec) {
            fields.push(("env", format!("{name}={value}").into_bytes()));
        }
        for name in exec.drop_env.iter().flatten() {
            fields.push(("drop_env", name.as_bytes().to_vec()));
        }
        for (name, value) in &self.key_env {
            fields.push(("launch_env", format!("{name}={value}").into_bytes()));
        }
        let borrowed: Vec<(&str, &[u8])> = fields.iter().map(|(l, v)| (*l, &v[..])).collect();
        Some(hasher.digest(&borrowed))
    }

    /// The stored credential under `key`, if it has [`EXPIRY_MARGIN`] left;
    /// an expired entry is deleted (no token outlives its expiry on disk
    /// longer than until the next launch that meets it).
    pub fn get(&self, key: &str) -> Option<Credential> {
        let (store, _) = self.opened()?;
        match store.get::<Credential>(key) {
            Lookup::Hit { value, .. } => Some(value),
            Lookup::Miss(MissReason::Expired) => {
                let _ = store.remove(key);
                None
            }
            Lookup::Miss(_) => None,
        }
    }

    /// Stores `credential` under `key` until `expires` less the margin (not
    /// at all when that has passed).
    fn put(&self, key: &str, credential: &Credential, expires: SystemTime) {
        let Some((store, _)) = self.opened() else {
            return;
        };
        let Some(until) = expires.checked_sub(EXPIRY_MARGIN) else {
            return;
        };
        if until <= store.now() {
            return;
        }
        if let Err(e) = store.put_until(key, credential, until) {
            tracing::debug!(error = %e, "cannot store the exec credential");
        }
    }

    /// Drops the entry under `key` (the API server answered 401).
    pub fn forget(&self, key: &str) {
        if let Some((store, _)) = self.opened() {
            let _ = store.remove(key);
        }
    }

    /// The credential of `exec` under `key`: the stored one, else the
    /// plugin's (run here, blocking; stored when it says when it expires).
    pub fn credential(&self, key: &str, exec: &ExecConfig) -> Result<Credential, ExecError> {
        if let Some(hit) = self.get(key) {
            hit.remember();
            tracing::debug!("exec credential from the cache");
            return Ok(hit);
        }
        let (credential, expires) = run_plugin(exec)?;
        credential.remember();
        if let Some(expires) = expires {
            self.put(key, &credential, expires);
        }
        Ok(credential)
    }
}

/// The `env` entries of an exec config, in order (`name`, `value`).
fn plugin_env(exec: &ExecConfig) -> impl Iterator<Item = (&String, &String)> {
    exec.env
        .iter()
        .flatten()
        .filter_map(|e: &HashMap<String, String>| Some((e.get("name")?, e.get("value")?)))
}

/// Runs the plugin as kube's `auth_exec` does (`KUBERNETES_EXEC_INFO`, its
/// `env` and `dropEnv`, interactive unless told `Never`), returning the
/// credential and when it expires.
fn run_plugin(exec: &ExecConfig) -> Result<(Credential, Option<SystemTime>), ExecError> {
    use std::process::{Command, Stdio};
    let command = exec.command.clone().unwrap_or_default();
    let mut cmd = Command::new(&command);
    cmd.args(exec.args.iter().flatten());
    cmd.envs(plugin_env(exec));
    let interactive = exec.interactive_mode != Some(ExecInteractiveMode::Never);
    if interactive {
        cmd.stdin(Stdio::inherit()).stderr(Stdio::inherit());
    } else {
        cmd.stdin(Stdio::null()).stderr(Stdio::null());
    }
    let api_version = exec
        .api_version
        .as_deref()
        .unwrap_or("client.authentication.k8s.io/v1beta1");
    let info = serde_json::json!({
        "apiVersion": api_version,
        "kind": "ExecCredential",
        "spec": { "interactive": interactive },
    });
    cmd.env("KUBERNETES_EXEC_INFO", info.to_string());
    for name in exec.drop_env.iter().flatten() {
        cmd.env_remove(name);
    }
    let out = cmd.output().map_err(|source| ExecError::Start {
        command: command.clone(),
        source,
    })?;
    if !out.status.success() {
        return Err(ExecError::Failed {
            command,
            status: out.status,
        });
    }
    parse_exec_credential(&out.stdout).ok_or(ExecError::Output { command })
}

/// A plugin's output: JSON, or YAML (client-go decodes either).
fn parse_exec_credential(stdout: &[u8]) -> Option<(Credential, Option<SystemTime>)> {
    let parsed: ExecCredential = serde_json::from_slice(stdout)
        .ok()
        .or_else(|| serde_yaml_ng::from_slice(stdout).ok())?;
    let status = parsed.status?;
    let expires = status
        .expiration_timestamp
        .as_deref()
        .and_then(|t| t.parse::<jiff::Timestamp>().ok())
        .map(SystemTime::from);
    let credential = Credential {
        token: status.token.filter(|t| !t.is_empty()),
        client_certificate_data: status.client_certificate_data,
        client_key_data: status.client_key_data,
    };
    credential.is_usable().then_some((credential, expires))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exec_credential_is_read_with_its_expiry() {
        let (c, at) = parse_exec_credential(
            br#"{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential",
                "status":{"expirationTimestamp":"2030-01-02T03:04:05Z","token":"t0k"}}"#,
        )
        .unwrap();
        assert_eq!(c.token.as_deref(), Some("t0k"));
        let at = at.unwrap().duration_since(SystemTime::UNIX_EPOCH).unwrap();
        assert_eq!(at.as_secs(), 1_893_553_445);
        // YAML, no expiry.
        let (c, at) = parse_exec_credential(b"status:\n  token: abc\n").unwrap();
        assert_eq!((c.token.as_deref(), at), (Some("abc"), None));
        // Nothing usable.
        assert!(parse_exec_credential(br#"{"status":{"token":""}}"#).is_none());
        assert!(parse_exec_credential(b"not json").is_none());
        assert!(!format!("{c:?}").contains("abc"), "Debug hides the token");
    }

    fn exec(command: &str, args: &[&str], env: &[(&str, &str)]) -> ExecConfig {
        let mut e: ExecConfig = serde_json::from_value(serde_json::json!({
            "apiVersion": "client.authentication.k8s.io/v1beta1",
            "command": command,
        }))
        .unwrap();
        e.args = Some(args.iter().map(|a| a.to_string()).collect());
        e.env = Some(
            env.iter()
                .map(|(n, v)| {
                    HashMap::from([
                        ("name".to_string(), n.to_string()),
                        ("value".to_string(), v.to_string()),
                    ])
                })
                .collect(),
        );
        e
    }

    #[test]
    fn the_key_follows_command_args_env_server_and_the_launch_profile() {
        let tmp = tempfile::tempdir().unwrap();
        let env = BTreeMap::from([
            ("AWS_PROFILE".to_string(), "dev".to_string()),
            ("TERM".to_string(), "xterm".to_string()),
        ]);
        let cache = ExecCredentials::new(tmp.path(), &env);
        let base = exec("aws", &["eks", "get-token"], &[("A", "1")]);
        let key = cache.key(&base, "https://a").unwrap();
        assert_eq!(cache.key(&base, "https://a").unwrap(), key, "stable");
        let others = [
            cache.key(
                &exec("aws2", &["eks", "get-token"], &[("A", "1")]),
                "https://a",
            ),
            cache.key(
                &exec("aws", &["eks", "get-tokenX"], &[("A", "1")]),
                "https://a",
            ),
            cache.key(
                &exec("aws", &["eks", "get-token"], &[("A", "2")]),
                "https://a",
            ),
            cache.key(&base, "https://b"),
            ExecCredentials::new(
                tmp.path(),
                &BTreeMap::from([("AWS_PROFILE".to_string(), "prod".to_string())]),
            )
            .key(&base, "https://a"),
        ];
        for other in others {
            assert_ne!(other.unwrap(), key);
        }
        // A variable no plugin reads for its identity does not split entries.
        let term = BTreeMap::from([("AWS_PROFILE".to_string(), "dev".to_string())]);
        assert_eq!(
            ExecCredentials::new(tmp.path(), &term).key(&base, "https://a"),
            Some(key.clone())
        );
        assert!(!key.contains("aws") && !key.contains("dev"));
        let mut cluster_info = base.clone();
        cluster_info.provide_cluster_info = true;
        assert_eq!(cache.key(&cluster_info, "https://a"), None);
    }

    /// A credential holding a bearer token only.
    fn bearer(token: &str) -> Credential {
        Credential {
            token: Some(token.into()),
            client_certificate_data: None,
            client_key_data: None,
        }
    }

    #[test]
    fn credentials_are_kept_until_their_expiry_less_the_margin_and_forgotten() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let cache = ExecCredentials::new(tmp.path(), &BTreeMap::new());
        let cred = bearer("secret-token");
        let now = SystemTime::now();
        cache.put("k1", &cred, now + Duration::from_secs(600));
        assert_eq!(cache.get("k1"), Some(cred.clone()));
        let file = tmp.path().join(EXEC_CREDENTIALS_KIND).join("k1.json");
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        // Within the margin of its expiry: never stored.
        cache.put("k2", &cred, now + EXPIRY_MARGIN / 2);
        assert_eq!(cache.get("k2"), None);
        cache.forget("k1");
        assert_eq!(cache.get("k1"), None);
        // The entry sits in a private folder of the private state folder.
        for dir in [
            tmp.path().join(EXEC_CREDENTIALS_KIND),
            tmp.path().to_path_buf(),
        ] {
            let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "{}", dir.display());
        }
    }

    /// A credential from the cache is masked in every log and trace line.
    #[test]
    fn a_cached_credential_is_registered_with_the_redactor() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = ExecCredentials::new(tmp.path(), &BTreeMap::new());
        let secret = "exec-cache-token-0d2f9a";
        let cred = bearer(secret);
        cache.put("k", &cred, SystemTime::now() + Duration::from_secs(600));
        let line = format!("authorization: Bearer {secret}");
        assert!(
            crate::redact::redact(&line).contains(secret),
            "not yet seen"
        );
        // The plugin is never run: the entry answers.
        let got = cache.credential("k", &exec("/nonexistent/plugin", &[], &[]));
        assert_eq!(got.unwrap(), cred);
        assert!(!crate::redact::redact(&line).contains(secret));
    }

    /// An entry whose expiry has passed is never served, and is deleted
    /// when met (written here by a store whose clock ran an hour behind).
    #[test]
    fn an_entry_past_its_expiry_is_a_miss_and_is_deleted() {
        use crate::state::Clock;
        let tmp = tempfile::tempdir().unwrap();
        let cache = ExecCredentials::new(tmp.path(), &BTreeMap::new());
        let cred = bearer("secret-token");
        let state = StateDir::open(tmp.path()).unwrap();
        let past = state
            .store(EXEC_CREDENTIALS_KIND, EXEC_CREDENTIALS_SCHEMA)
            .unwrap()
            .with_clock(Clock::behind_by(Duration::from_secs(3600)));
        let expired = past.now() + Duration::from_secs(600);
        past.put_until("old", &cred, expired).unwrap();
        let file = tmp.path().join(EXEC_CREDENTIALS_KIND).join("old.json");
        assert!(file.exists());
        assert_eq!(cache.get("old"), None);
        assert!(!file.exists(), "the expired token is removed from disk");
    }

    #[test]
    fn a_credential_applies_in_place_of_the_plugin() {
        let mut auth = AuthInfo {
            exec: Some(exec("aws", &[], &[])),
            ..Default::default()
        };
        Credential {
            token: Some("t".into()),
            client_certificate_data: Some("CERT".into()),
            client_key_data: Some("KEY".into()),
        }
        .apply(&mut auth);
        assert!(auth.exec.is_none());
        assert!(auth.token.is_some());
        assert_eq!(auth.client_certificate_data.as_deref(), Some("Q0VSVA=="));
    }
}
