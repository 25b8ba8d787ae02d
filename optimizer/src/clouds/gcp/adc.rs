//! Application-default credentials (ADC): where the JSON file is, what it
//! holds, and the OAuth 2 grant that turns it into an access token.
//!
//! Two file types are supported, the ones `gcloud auth application-default
//! login` and a downloaded service-account key produce:
//!
//! * `authorized_user`: refresh-token grant (`client_id`, `client_secret`,
//!   `refresh_token`);
//! * `service_account`: JWT-bearer grant, an RS256 assertion signed with the
//!   key's `private_key` (PKCS#8 or PKCS#1 PEM) by `ring`.
//!
//! Other types (`external_account`, `impersonated_service_account`, ...) are a
//! configuration error that names the file. Secrets live in [`Secret`], whose
//! `Debug` is redacted, and are only ever written into a request body.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::Value;

use crate::clouds::CheckContext;
use crate::config::expand_home;
use planner::check::CloudError;

/// google-auth's token endpoint, used when the file names none
/// (`authorized_user` files written by gcloud usually do not).
pub const DEFAULT_TOKEN_URI: &str = "https://oauth2.googleapis.com/token";
/// The OAuth scope requested for service accounts (gcloud's default scope).
pub const SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";
/// Lifetime asked for in a service-account assertion (Google's maximum).
const ASSERTION_LIFETIME_S: u64 = 3600;

/// A secret string: usable, never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// The secret itself, for a request body or a redaction list.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// The credentials of one ADC file.
#[derive(Debug, Clone)]
pub enum Adc {
    /// `gcloud auth application-default login`.
    AuthorizedUser {
        /// OAuth client id.
        client_id: String,
        /// OAuth client secret.
        client_secret: Secret,
        /// The long-lived refresh token.
        refresh_token: Secret,
        /// Token endpoint (`token_uri`, else [`DEFAULT_TOKEN_URI`]).
        token_uri: String,
        /// `quota_project_id`, a last-resort project.
        quota_project_id: Option<String>,
    },
    /// A service-account key file.
    ServiceAccount {
        /// `client_email`: the assertion's issuer.
        client_email: String,
        /// `private_key` (PEM).
        private_key: Secret,
        /// `private_key_id`: the assertion's `kid`.
        private_key_id: Option<String>,
        /// Token endpoint (`token_uri`, else [`DEFAULT_TOKEN_URI`]).
        token_uri: String,
        /// `project_id` of the key.
        project_id: Option<String>,
    },
}

/// An ADC file read from disk: its bytes (part of the cache key) and its credentials.
#[derive(Debug, Clone)]
pub struct AdcFile {
    /// Where it was read.
    pub path: PathBuf,
    /// Its exact contents (never logged; hashed into the cache key).
    pub contents: Vec<u8>,
    /// What it holds.
    pub adc: Adc,
}

/// The ADC file gcloud and google-auth would use: `GOOGLE_APPLICATION_CREDENTIALS`,
/// else `$CLOUDSDK_CONFIG/application_default_credentials.json`, else
/// `~/.config/gcloud/application_default_credentials.json`.
pub fn adc_path(ctx: &CheckContext) -> PathBuf {
    let var = |name: &str| ctx.env.get(name).filter(|v| !v.trim().is_empty());
    if let Some(path) = var("GOOGLE_APPLICATION_CREDENTIALS") {
        return expand_home(path, &ctx.home);
    }
    let dir = match var("CLOUDSDK_CONFIG") {
        Some(dir) => expand_home(dir, &ctx.home),
        None => ctx.home.join(".config").join("gcloud"),
    };
    dir.join("application_default_credentials.json")
}

/// gcloud's configuration folder (`CLOUDSDK_CONFIG`, else `~/.config/gcloud`).
pub fn gcloud_config_dir(ctx: &CheckContext) -> PathBuf {
    match ctx
        .env
        .get("CLOUDSDK_CONFIG")
        .filter(|v| !v.trim().is_empty())
    {
        Some(dir) => expand_home(dir, &ctx.home),
        None => ctx.home.join(".config").join("gcloud"),
    }
}

const LOGIN_HINT: &str = "Run: gcloud auth application-default login";

impl AdcFile {
    /// Reads and parses the ADC file at `path`.
    pub fn read(path: &Path) -> Result<AdcFile, CloudError> {
        let contents = crate::input::read_regular(path, crate::input::MAX_CONFIG_FILE_BYTES)
            .map_err(|e| {
                CloudError::Config(format!(
                    "Cannot read GCP credentials {}: {}. {LOGIN_HINT}",
                    path.display(),
                    e.cause()
                ))
            })?;
        let adc = parse(&contents, path)?;
        Ok(AdcFile {
            path: path.to_path_buf(),
            contents,
            adc,
        })
    }

    /// The project the file itself names (service account `project_id`, else `quota_project_id`).
    pub fn project(&self) -> Option<&str> {
        match &self.adc {
            Adc::AuthorizedUser {
                quota_project_id, ..
            } => quota_project_id.as_deref(),
            Adc::ServiceAccount { project_id, .. } => project_id.as_deref(),
        }
    }

    /// Secrets of this file, for redacting error text.
    pub fn secrets(&self) -> Vec<&str> {
        match &self.adc {
            Adc::AuthorizedUser {
                client_secret,
                refresh_token,
                ..
            } => vec![client_secret.expose(), refresh_token.expose()],
            Adc::ServiceAccount { private_key, .. } => vec![private_key.expose()],
        }
    }

    /// The token endpoint.
    pub fn token_uri(&self) -> &str {
        match &self.adc {
            Adc::AuthorizedUser { token_uri, .. } | Adc::ServiceAccount { token_uri, .. } => {
                token_uri
            }
        }
    }

    /// The `application/x-www-form-urlencoded` body of the token request.
    pub fn token_request_body(&self, now: SystemTime) -> Result<String, CloudError> {
        let mut form = form_urlencoded::Serializer::new(String::new());
        match &self.adc {
            Adc::AuthorizedUser {
                client_id,
                client_secret,
                refresh_token,
                ..
            } => {
                form.append_pair("grant_type", "refresh_token")
                    .append_pair("client_id", client_id)
                    .append_pair("client_secret", client_secret.expose())
                    .append_pair("refresh_token", refresh_token.expose());
            }
            Adc::ServiceAccount { .. } => {
                let assertion = self.assertion(now)?;
                form.append_pair("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer")
                    .append_pair("assertion", &assertion);
            }
        }
        Ok(form.finish())
    }

    /// The signed RS256 JWT of a service account (RFC 7523 §2.1).
    fn assertion(&self, now: SystemTime) -> Result<String, CloudError> {
        let Adc::ServiceAccount {
            client_email,
            private_key,
            private_key_id,
            token_uri,
            ..
        } = &self.adc
        else {
            return Err(CloudError::Config("not a service account".into()));
        };
        let iat = now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
        let mut header = serde_json::json!({ "alg": "RS256", "typ": "JWT" });
        if let Some(kid) = private_key_id {
            header["kid"] = Value::String(kid.clone());
        }
        let claims = serde_json::json!({
            "iss": client_email,
            "scope": SCOPE,
            "aud": token_uri,
            "iat": iat,
            "exp": iat + ASSERTION_LIFETIME_S,
        });
        let signing_input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let key = rsa_key(private_key.expose()).map_err(|why| {
            CloudError::Config(format!(
                "GCP service-account key {} has an unusable private_key ({why}); download a new JSON key for {client_email}",
                self.path.display()
            ))
        })?;
        let mut signature = vec![0; key.public().modulus_len()];
        key.sign(
            &ring::signature::RSA_PKCS1_SHA256,
            &ring::rand::SystemRandom::new(),
            signing_input.as_bytes(),
            &mut signature,
        )
        .map_err(|_| {
            CloudError::Config(format!(
                "cannot sign with the GCP service-account key {}",
                self.path.display()
            ))
        })?;
        Ok(format!(
            "{signing_input}.{}",
            URL_SAFE_NO_PAD.encode(signature)
        ))
    }
}

/// An RSA key from PEM: `PRIVATE KEY` (PKCS#8, what Google issues) or `RSA PRIVATE KEY` (PKCS#1).
fn rsa_key(pem: &str) -> Result<ring::signature::RsaKeyPair, &'static str> {
    let (label, der) = pem_body(pem).ok_or("not a PEM private key")?;
    match label.as_str() {
        "PRIVATE KEY" => ring::signature::RsaKeyPair::from_pkcs8(&der)
            .map_err(|_| "not an RSA PKCS#8 key ring accepts"),
        "RSA PRIVATE KEY" => ring::signature::RsaKeyPair::from_der(&der)
            .map_err(|_| "not an RSA PKCS#1 key ring accepts"),
        _ => Err("unexpected PEM label"),
    }
}

/// The label and decoded body of the first PEM block.
fn pem_body(pem: &str) -> Option<(String, Vec<u8>)> {
    let start = pem.find("-----BEGIN ")?;
    let rest = &pem[start + "-----BEGIN ".len()..];
    let label_end = rest.find("-----")?;
    let label = rest[..label_end].to_string();
    let body_start = &rest[label_end + 5..];
    let end = body_start.find(&format!("-----END {label}-----"))?;
    let b64: String = body_start[..end]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    STANDARD.decode(b64).ok().map(|der| (label, der))
}

fn parse(contents: &[u8], path: &Path) -> Result<Adc, CloudError> {
    let invalid = |why: String| {
        CloudError::Config(format!(
            "Invalid GCP credentials {}: {why}. {LOGIN_HINT}",
            path.display()
        ))
    };
    // serde_json's errors quote no input, so they cannot leak a secret.
    let doc: Value = serde_json::from_slice(contents).map_err(|e| invalid(e.to_string()))?;
    let field = |name: &str| {
        doc.get(name)
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    let required = |name: &str| field(name).ok_or_else(|| invalid(format!("missing \"{name}\"")));
    let token_uri = field("token_uri").unwrap_or_else(|| DEFAULT_TOKEN_URI.to_string());
    match field("type").as_deref() {
        Some("authorized_user") => Ok(Adc::AuthorizedUser {
            client_id: required("client_id")?,
            client_secret: Secret(required("client_secret")?),
            refresh_token: Secret(required("refresh_token")?),
            token_uri,
            quota_project_id: field("quota_project_id"),
        }),
        Some("service_account") => Ok(Adc::ServiceAccount {
            client_email: required("client_email")?,
            private_key: Secret(required("private_key")?),
            private_key_id: field("private_key_id"),
            token_uri,
            project_id: field("project_id"),
        }),
        Some(other) => Err(CloudError::Config(format!(
            "GCP credentials {} have type \"{other}\", which the reservation lookup does not support \
             (supported: authorized_user, service_account). {LOGIN_HINT}, or remove \
             gcp.prioritize_reservations and gcp.specific_reservations from ~/.sky/config.yaml",
            path.display()
        ))),
        None => Err(invalid("missing \"type\"".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authorized_user_gets_the_default_token_uri_and_a_refresh_grant() {
        let file = AdcFile {
            path: PathBuf::from("/x/adc.json"),
            contents: Vec::new(),
            adc: parse(
                br#"{"type":"authorized_user","client_id":"cid","client_secret":"cs&x","refresh_token":"1//rt","quota_project_id":"qp"}"#,
                Path::new("/x/adc.json"),
            )
            .unwrap(),
        };
        assert_eq!(file.token_uri(), DEFAULT_TOKEN_URI);
        assert_eq!(file.project(), Some("qp"));
        assert_eq!(
            file.token_request_body(SystemTime::now()).unwrap(),
            "grant_type=refresh_token&client_id=cid&client_secret=cs%26x&refresh_token=1%2F%2Frt"
        );
        assert!(!format!("{file:?}").contains("1//rt"));
    }

    #[test]
    fn unsupported_and_incomplete_files_name_the_file() {
        let err = parse(br#"{"type":"external_account"}"#, Path::new("/x/adc.json")).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("/x/adc.json") && text.contains("external_account"),
            "{text}"
        );
        let err = parse(
            br#"{"type":"authorized_user","client_id":"c","client_secret":"s"}"#,
            Path::new("/x/adc.json"),
        )
        .unwrap_err();
        assert!(err.to_string().contains("refresh_token"), "{err}");
        let err = parse(b"{not json", Path::new("/x/adc.json")).unwrap_err();
        assert!(
            err.to_string()
                .contains("Invalid GCP credentials /x/adc.json")
        );
    }

    #[test]
    fn service_accounts_sign_a_verifiable_rs256_assertion() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/gcp/service-account.json");
        let file = AdcFile::read(&path).unwrap();
        assert_eq!(file.project(), Some("sa-project"));
        assert!(!format!("{file:?}").contains("BEGIN PRIVATE KEY"));
        let now = UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        let body = file.token_request_body(now).unwrap();
        let form: std::collections::BTreeMap<String, String> =
            form_urlencoded::parse(body.as_bytes())
                .into_owned()
                .collect();
        assert_eq!(
            form["grant_type"],
            "urn:ietf:params:oauth:grant-type:jwt-bearer"
        );
        let parts: Vec<&str> = form["assertion"].split('.').collect();
        assert_eq!(parts.len(), 3);
        let decode = |p: &str| -> Value {
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(p).unwrap()).unwrap()
        };
        let (header, claims) = (decode(parts[0]), decode(parts[1]));
        assert_eq!(header["alg"], "RS256");
        assert_eq!(header["kid"], "0123456789abcdef-test-only");
        assert_eq!(claims["iss"], "sky-test@sa-project.iam.gserviceaccount.com");
        assert_eq!(claims["aud"], DEFAULT_TOKEN_URI);
        assert_eq!(claims["scope"], SCOPE);
        assert_eq!(claims["exp"], 1_700_000_000u64 + 3600);

        let Adc::ServiceAccount { private_key, .. } = &file.adc else {
            panic!("a service account")
        };
        let key = rsa_key(private_key.expose()).unwrap();
        let public = ring::signature::UnparsedPublicKey::new(
            &ring::signature::RSA_PKCS1_2048_8192_SHA256,
            ring::signature::KeyPair::public_key(&key).as_ref().to_vec(),
        );
        let signed = format!("{}.{}", parts[0], parts[1]);
        public
            .verify(
                signed.as_bytes(),
                &URL_SAFE_NO_PAD.decode(parts[2]).unwrap(),
            )
            .expect("the signature verifies with the key's public half");
    }

    #[test]
    fn pem_bodies_decode() {
        let (label, der) =
            pem_body("junk\n-----BEGIN PRIVATE KEY-----\nAAEC\nAw==\n-----END PRIVATE KEY-----\n")
                .unwrap();
        assert_eq!(label, "PRIVATE KEY");
        assert_eq!(der, vec![0, 1, 2, 3]);
        assert!(pem_body("-----BEGIN PRIVATE KEY-----\nAAEC").is_none());
        assert!(rsa_key("-----BEGIN PRIVATE KEY-----\nAAEC\n-----END PRIVATE KEY-----").is_err());
    }
}
