//! The bearer token of Nebius calls, as the Nebius SDK gets it for
//! SkyPilot's `sdk()`: an IAM token file is the token; a service-account
//! credentials file (`{"subject-credentials": {"alg": "RS256",
//! "private-key", "kid", "iss", "sub"}}`, `nebius.base.service_account.
//! credentials_file`) signs a one-minute RS256 JWT (`kid` header, `iss` =
//! `sub` = the account, `aud` `token-service.iam.new.nebiuscloud.net`) that
//! `TokenExchangeService.Exchange` trades for an access token
//! (`nebius.base.service_account.service_account.ServiceAccount`).
//! Tokens and keys stay in memory; they are redacted from every message.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Deserialize;

use super::grpc::{self, CallError, Channel};
use super::proto;
use super::settings::CredentialFile;

/// The JWT audience of the SDK.
const AUDIENCE: &str = "token-service.iam.new.nebiuscloud.net";
/// The JWT lifetime of the SDK.
const JWT_TTL_S: u64 = 60;

/// A secret string: usable, never printed.
#[derive(Clone)]
pub(crate) struct Secret(String);

impl Secret {
    /// The value.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// A read credential file: its bytes (for the cache key) and what it holds.
pub(crate) struct Credential {
    /// Which file.
    pub file: CredentialFile,
    /// Its bytes.
    pub contents: Vec<u8>,
    kind: Kind,
}

enum Kind {
    Token(Secret),
    ServiceAccount {
        // Boxed: the key pair is large, and a token is the common case.
        key: Box<ring::signature::RsaKeyPair>,
        kid: String,
        account: String,
    },
}

/// Why a credential is unusable or was refused.
#[derive(Debug)]
pub(crate) enum AuthError {
    /// The file cannot be read or is not a credential.
    Invalid(String),
    /// The token service refused it.
    Refused(String),
    /// The token service could not be reached or answered garbage.
    Unavailable(String),
}

#[derive(Deserialize)]
struct CredentialsFile {
    #[serde(rename = "subject-credentials")]
    subject: SubjectCredentials,
}

#[derive(Deserialize)]
struct SubjectCredentials {
    #[serde(rename = "type", default)]
    kind: String,
    alg: String,
    #[serde(rename = "private-key")]
    private_key: String,
    kid: String,
    iss: String,
    sub: String,
}

impl Credential {
    /// Reads and validates `file` (`SubjectCredentials.validate`: type `JWT`
    /// or empty, `alg` RS256, `iss` = `sub`).
    pub(crate) fn read(file: CredentialFile) -> Result<Credential, AuthError> {
        let path = file.path().to_path_buf();
        let contents = std::fs::read(&path).map_err(|e| {
            AuthError::Invalid(format!(
                "cannot read the Nebius credentials {}: {e}",
                path.display()
            ))
        })?;
        let invalid = |why: String| {
            AuthError::Invalid(format!(
                "invalid Nebius credentials {}: {why}",
                path.display()
            ))
        };
        let kind = match &file {
            CredentialFile::Token(_) => {
                let token = String::from_utf8_lossy(&contents).trim().to_string();
                if token.is_empty() || !token.bytes().all(|b| b.is_ascii_graphic()) {
                    return Err(invalid("the IAM token file is empty or not a token".into()));
                }
                Kind::Token(Secret(token))
            }
            CredentialFile::ServiceAccount(_) => {
                // serde_json's errors quote no input, so they cannot leak the key.
                let doc: CredentialsFile =
                    serde_json::from_slice(&contents).map_err(|e| invalid(e.to_string()))?;
                let s = doc.subject;
                if !s.kind.is_empty() && s.kind != "JWT" {
                    return Err(invalid(format!(
                        "service account credentials type {:?}, only \"JWT\" is supported",
                        s.kind
                    )));
                }
                if s.alg != "RS256" {
                    return Err(invalid(format!(
                        "service account algorithm {:?}, only \"RS256\" is supported",
                        s.alg
                    )));
                }
                if s.iss != s.sub {
                    return Err(invalid("the issuer must be the subject".into()));
                }
                let key = crate::clouds::http_client::rsa_key(&s.private_key)
                    .map_err(|why| invalid(format!("unusable private-key ({why})")))?;
                Kind::ServiceAccount {
                    key: Box::new(key),
                    kid: s.kid,
                    account: s.sub,
                }
            }
        };
        Ok(Credential {
            file,
            contents,
            kind,
        })
    }

    /// The bearer token: the token file's, or a fresh exchange.
    pub(crate) async fn bearer(
        &self,
        channel: &Channel,
        now: SystemTime,
    ) -> Result<Secret, AuthError> {
        match &self.kind {
            Kind::Token(t) => Ok(t.clone()),
            Kind::ServiceAccount { key, kid, account } => {
                let jwt = self_signed_jwt(key, kid, account, now)?;
                let answer = channel
                    .unary(
                        grpc::TOKENS,
                        "Exchange",
                        proto::exchange_token_request(jwt.expose()),
                        None,
                    )
                    .await;
                let redact = |e: &CallError| {
                    crate::clouds::http_client::sanitize(&e.to_string(), &[jwt.expose()])
                };
                match answer {
                    Ok(body) => proto::exchange_token_response(&body)
                        .map(Secret)
                        .map_err(AuthError::Unavailable),
                    Err(e @ CallError::Status { code, .. })
                        if e.is_auth() || code == grpc::INVALID_ARGUMENT =>
                    {
                        Err(AuthError::Refused(format!(
                            "the token service refused the service account {account} of {}: {}",
                            self.file.path().display(),
                            redact(&e)
                        )))
                    }
                    Err(e) => Err(AuthError::Unavailable(format!(
                        "cannot exchange the service-account token: {}",
                        redact(&e)
                    ))),
                }
            }
        }
    }
}

/// The SDK's `ServiceAccount.get_exchange_token_request` JWT.
fn self_signed_jwt(
    key: &ring::signature::RsaKeyPair,
    kid: &str,
    account: &str,
    now: SystemTime,
) -> Result<Secret, AuthError> {
    let iat = now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
    let header = serde_json::json!({ "alg": "RS256", "typ": "JWT", "kid": kid });
    let claims = serde_json::json!({
        "iss": account,
        "sub": account,
        "aud": AUDIENCE,
        "exp": iat + JWT_TTL_S,
        "iat": iat,
    });
    let signing_input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let signature = crate::clouds::http_client::sign_rs256(key, signing_input.as_bytes())
        .map_err(|e| AuthError::Invalid(format!("cannot sign the Nebius token request: {e}")))?;
    Ok(Secret(format!(
        "{signing_input}.{}",
        URL_SAFE_NO_PAD.encode(signature)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_service_account_jwt_verifies_and_has_the_sdks_claims() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("credentials.json");
        std::fs::copy(
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../fixtures/nebius/credentials.json"
            ),
            &path,
        )
        .unwrap();
        let cred = Credential::read(CredentialFile::ServiceAccount(path)).unwrap();
        let Kind::ServiceAccount { key, kid, account } = &cred.kind else {
            panic!("a service account")
        };
        let now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let jwt = self_signed_jwt(key, kid, account, now).unwrap();
        let parts: Vec<&str> = jwt.expose().split('.').collect();
        assert_eq!(parts.len(), 3);
        let claims: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
        assert_eq!(claims["aud"], AUDIENCE);
        assert_eq!(claims["iss"], claims["sub"]);
        assert_eq!(claims["exp"], 1_800_000_060);
        let header: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[0]).unwrap()).unwrap();
        assert_eq!(header["kid"], "publickey-e00mocktestkey");
        ring::signature::UnparsedPublicKey::new(
            &ring::signature::RSA_PKCS1_2048_8192_SHA256,
            key.public().as_ref().to_vec(),
        )
        .verify(
            format!("{}.{}", parts[0], parts[1]).as_bytes(),
            &URL_SAFE_NO_PAD.decode(parts[2]).unwrap(),
        )
        .expect("the JWT verifies");
        assert_eq!(format!("{jwt:?}"), "Secret(***)");
    }

    #[test]
    fn bad_files_are_named_and_keep_their_secrets() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        std::fs::write(
            &path,
            r#"{"subject-credentials": {"alg": "HS256", "private-key": "SEKRIT-KEY", "kid": "k", "iss": "a", "sub": "a"}}"#,
        )
        .unwrap();
        let err = Credential::read(CredentialFile::ServiceAccount(path.clone()))
            .err()
            .map(|e| format!("{e:?}"))
            .unwrap();
        assert!(err.contains("HS256") && err.contains("c.json"), "{err}");
        assert!(!err.contains("SEKRIT"), "{err}");
        std::fs::write(&path, "").unwrap();
        assert!(matches!(
            Credential::read(CredentialFile::Token(path)),
            Err(AuthError::Invalid(_))
        ));
    }
}
