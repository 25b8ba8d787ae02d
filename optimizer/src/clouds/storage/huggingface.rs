//! Hugging Face buckets (`sky/adaptors/huggingface.py::check_storage_credentials`):
//! a token from `HF_TOKEN` / `HUGGING_FACE_HUB_TOKEN` or the token file
//! `hf auth login` writes, then `HfApi().whoami(token)` —
//! `GET <endpoint>/api/whoami-v2` with the token as a bearer — which must
//! name a user.
//!
//! SkyPilot first imports `huggingface_hub` (and says how to install it when
//! it cannot); `sky` needs no library for one GET, so that step has no
//! counterpart. The endpoint is `huggingface_hub`'s: `HF_ENDPOINT`, else
//! `https://huggingface.co` ([`HuggingFaceOptions::endpoint`] beats both).
//! The token is registered with [`crate::redact`] and never leaves the
//! request's header.

use bytes::Bytes;
use futures::future::BoxFuture;
use http::{Method, Request, StatusCode, header};
use http_body_util::Full;
use planner::check::{CloudError, StorageOutcome};
use planner::cloud::{Provider, StorageOnly};

use super::INDENT;
use crate::clouds::{CheckContext, ServiceOptions, StorageCheck};
use crate::input::{MAX_CONFIG_FILE_BYTES, read_regular};
use crate::net::{HttpClient, NetError};

/// `huggingface_hub.constants.ENDPOINT`'s default.
pub const DEFAULT_ENDPOINT: &str = "https://huggingface.co";
/// `huggingface_hub`'s endpoint override.
pub const ENDPOINT_ENV: &str = "HF_ENDPOINT";
/// `HF_TOKEN_PATH` (where `hf auth login` stores the token).
const TOKEN_PATH: &str = ".cache/huggingface/token";
/// `HF_TOKEN_PATH_LEGACY` (older `huggingface-cli login`).
const TOKEN_PATH_LEGACY: &str = ".huggingface/token";
/// Longest server text kept in a message.
const MAX_DETAIL_CHARS: usize = 240;

/// Knobs of the Hugging Face check. Every field's default is given in its doc.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct HuggingFaceOptions {
    /// Hub endpoint (tests, mirrors). Beats `HF_ENDPOINT`. Default: none.
    pub endpoint: Option<String>,
    /// The `whoami` request: `connect_timeout`, and `request_timeout` its
    /// deadline, answer included. It is asked once and its answer is not
    /// kept (as SkyPilot's check does): the retry and cache knobs are not
    /// read. Default: the [`ServiceOptions`] defaults.
    pub service: ServiceOptions,
}

/// Where the token came from: `whoami`'s 401 message says which to fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TokenSource {
    Environment,
    StoredFile,
    LegacyFile,
}

/// The Hugging Face storage check.
#[derive(Debug, Clone, Default)]
pub(crate) struct HuggingFace {
    options: HuggingFaceOptions,
}

impl HuggingFace {
    /// A check with these options.
    pub(crate) fn new(options: HuggingFaceOptions) -> Self {
        HuggingFace { options }
    }

    fn endpoint(&self, ctx: &CheckContext) -> String {
        self.options
            .endpoint
            .clone()
            .or_else(|| {
                ctx.env
                    .get(ENDPOINT_ENV)
                    .map(|v| v.trim().to_string())
                    .filter(|v| !v.is_empty())
            })
            .unwrap_or_else(|| DEFAULT_ENDPOINT.to_string())
            .trim_end_matches('/')
            .to_string()
    }

    async fn check(&self, ctx: &CheckContext) -> StorageOutcome {
        let Some((token, source)) = token(ctx) else {
            return StorageOutcome::Disabled(format!(
                "Hugging Face token is not set. Set the HF_TOKEN environment variable or run `hf auth login` to authenticate.\
                 \n{INDENT}$ pip install \"skypilot[huggingface]\"\
                 \n{INDENT}$ hf auth login   # or: export HF_TOKEN=<your-token>\
                 \n{INDENT}For more info: https://docs.skypilot.co/en/latest/getting-started/installation.html#huggingface-installation"
            ));
        };
        crate::redact::remember_secret(&token);
        let url = format!("{}/api/whoami-v2", self.endpoint(ctx));
        // What the messages may quote of the URL.
        let shown_url = crate::redact::redact_urls(&url).into_owned();
        let http = match HttpClient::for_urls([url.as_str()], self.options.service.connect_timeout)
        {
            Ok(http) => http,
            Err(e) => return failed(CloudError::Config(validation_failed(&e))),
        };
        let request = Request::builder()
            .method(Method::GET)
            .uri(&url)
            .header(header::AUTHORIZATION, format!("Bearer {token}"))
            .header(header::ACCEPT, "application/json")
            .body(Full::new(Bytes::new()));
        let request = match request {
            Ok(r) => r,
            Err(e) => {
                return failed(CloudError::Config(validation_failed(&format!(
                    "invalid Hugging Face endpoint {shown_url:?}: {e}"
                ))));
            }
        };
        let deadline = self.options.service.request_timeout.min(ctx.cloud_timeout);
        let answer = match http
            .exchange(
                request,
                deadline,
                crate::clouds::http::MAX_STORAGE_BODY_BYTES,
            )
            .await
        {
            Ok(a) => a,
            Err(NetError::Timeout(d)) => return failed(CloudError::Timeout(d)),
            // The host that sent it and the cap, as the catalog downloads say.
            Err(NetError::TooLarge(cap)) => {
                return failed(CloudError::Service(validation_failed(
                    &crate::clouds::http_client::too_large(&crate::state::redact_url(&url), cap),
                )));
            }
            Err(e) => {
                return failed(CloudError::Service(validation_failed(
                    &crate::redact::redact(&e.to_string()),
                )));
            }
        };
        let status = answer.status;
        if status.is_success() {
            let doc: Result<serde_json::Value, _> = serde_json::from_slice(&answer.body);
            return match doc {
                Ok(doc)
                    if doc
                        .get("name")
                        .and_then(|n| n.as_str())
                        .is_some_and(|n| !n.is_empty()) =>
                {
                    StorageOutcome::Enabled
                }
                Ok(_) => StorageOutcome::Disabled(
                    "Hugging Face credentials appear invalid (empty whoami response).".into(),
                ),
                Err(e) => failed(CloudError::Service(validation_failed(&format!(
                    "the answer of {shown_url} is not JSON ({e})"
                )))),
            };
        }
        // `HfApi.whoami`'s messages for 401 and 429, else the error
        // `requests` raises (`hf_raise_for_status`).
        let detail = match status {
            StatusCode::UNAUTHORIZED => {
                let mut text = "Invalid user token.".to_string();
                match source {
                    TokenSource::Environment => text.push_str(
                        " The token from HF_TOKEN environment variable is invalid. Note that HF_TOKEN takes precedence over `hf auth login`.",
                    ),
                    TokenSource::StoredFile => text.push_str(
                        " The token stored is invalid. Please run `hf auth login` to update it.",
                    ),
                    TokenSource::LegacyFile => {}
                }
                text
            }
            StatusCode::TOO_MANY_REQUESTS => "You've hit the rate limit for the /whoami-v2 endpoint, which is intentionally strict for security reasons. If you're calling it often, consider caching the response with `whoami(..., cache=True)`.".to_string(),
            _ => {
                let kind = if status.is_server_error() {
                    "Server"
                } else {
                    "Client"
                };
                let mut text = format!(
                    "{} {kind} Error: {} for url: {shown_url}",
                    status.as_u16(),
                    status.canonical_reason().unwrap_or("")
                );
                let server = server_message(&answer.body);
                if !server.is_empty() {
                    text.push_str(&format!("\n\n{server}"));
                }
                text
            }
        };
        let message = validation_failed(&detail);
        // Throttling and server errors say nothing about the token.
        if status.is_server_error() || status == StatusCode::TOO_MANY_REQUESTS {
            failed(CloudError::Service(message))
        } else {
            StorageOutcome::Disabled(message)
        }
    }
}

impl StorageCheck for HuggingFace {
    fn provider(&self) -> Provider {
        Provider::StorageOnly(StorageOnly::HuggingFace)
    }

    fn check_storage<'a>(&'a self, ctx: &'a CheckContext) -> BoxFuture<'a, StorageOutcome> {
        Box::pin(self.check(ctx))
    }
}

fn failed(e: CloudError) -> StorageOutcome {
    StorageOutcome::Failed(e)
}

/// The message SkyPilot returns when `whoami` raises, `Details: {e}` last.
fn validation_failed(detail: &str) -> String {
    format!(
        "Failed to validate Hugging Face credentials. If your token is expired, run `hf auth login` to refresh it.\
         \n{INDENT}For more info: https://docs.skypilot.co/en/latest/getting-started/installation.html#huggingface-installation\
         \n{INDENT}Details: {detail}"
    )
}

/// The Hub's `{"error": "..."}`, one line, bounded (never the whole body).
fn server_message(body: &[u8]) -> String {
    let text = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(str::to_string))
        .unwrap_or_default();
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = one_line.chars().take(MAX_DETAIL_CHARS).collect();
    if one_line.chars().count() > MAX_DETAIL_CHARS {
        out.push('…');
    }
    crate::redact::redact(&out).into_owned()
}

/// `huggingface.get_token`: `HF_TOKEN`, else `HUGGING_FACE_HUB_TOKEN` (a
/// set but blank one means "no token", files are not tried then), else the
/// first non-empty token file.
fn token(ctx: &CheckContext) -> Option<(String, TokenSource)> {
    let env = ctx
        .env
        .get("HF_TOKEN")
        .filter(|v| !v.is_empty())
        .or_else(|| {
            ctx.env
                .get("HUGGING_FACE_HUB_TOKEN")
                .filter(|v| !v.is_empty())
        });
    if let Some(value) = env {
        let value = value.trim();
        return (!value.is_empty()).then(|| (value.to_string(), TokenSource::Environment));
    }
    [
        (TOKEN_PATH, TokenSource::StoredFile),
        (TOKEN_PATH_LEGACY, TokenSource::LegacyFile),
    ]
    .into_iter()
    .find_map(|(rel, source)| {
        // Unreadable (`OSError`): the next file, as SkyPilot does.
        let bytes = read_regular(&ctx.home.join(rel), MAX_CONFIG_FILE_BYTES).ok()?;
        let text = String::from_utf8_lossy(&bytes).trim().to_string();
        (!text.is_empty()).then_some((text, source))
    })
}
