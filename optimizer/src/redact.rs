//! Removing secrets from text before it is logged, traced or shown.
//!
//! Three nets, applied by [`redact`]:
//!
//! * **URLs**: the user-info of any `scheme://user:pass@host` becomes `***@`
//!   and the values of credential-like query parameters (`token=`,
//!   `X-Amz-Signature=`, `key=`, ...) become `***` ([`redact_urls`]);
//! * **known values**: every secret registered with [`remember_secret`] —
//!   the adapters register the credentials they resolve, and the binary the
//!   credential variables of its environment ([`remember_env_secrets`]) —
//!   is replaced by `***` wherever it appears;
//! * **shapes**: AWS access key IDs (`AKIA…`, `ASIA…`, 20 characters) and
//!   the `access_key_id: "…"` field the AWS SDK's `Credentials` debug text
//!   prints at `debug`/`trace` level.
//!
//! Callers log [`redact`]ed text; the `sky` binary additionally wraps its log
//! and trace writers in [`RedactingWriter`], so what third-party crates log
//! passes the same nets. Other adapters should call [`redact`] on any
//! endpoint, error chain or credential source they put in a message.

use std::borrow::Cow;
use std::io::{self, Write};
use std::sync::{LazyLock, RwLock};

use regex::Regex;

/// What replaces a secret.
pub const MASK: &str = "***";

/// Secrets shorter than this are not registered: replacing every `ab` in a
/// log would destroy it and protect nothing.
const MIN_SECRET_LEN: usize = 6;

static SECRETS: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// AWS access key IDs by their documented prefixes, and the SDK's debug
/// field that prints one in clear.
static KEY_ID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA|AKID)[A-Z0-9]{12,}\b|(access_key_id:\s*")[^"]*(")"#,
    )
    .expect("static regex")
});

/// Query parameters whose values are credentials.
static SECRET_QUERY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)([?&](?:[a-z0-9_.-]*(?:token|secret|password|passwd|signature|credential|api[_-]?key|access[_-]?key|sig|key))=)[^&#\s)'\x22]*",
    )
    .expect("static regex")
});

/// `user:password@host` without a scheme (hyper's connection-pool keys,
/// `("http", user:pass@host:port)`, print the authority alone).
static BARE_USERINFO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(^|[\s(,"'=\[])[^\s/@:"'(),\[\]]+:[^\s/@"'(),]+@"#).expect("static regex")
});

/// Registers a secret value: from now on [`redact`] masks it.
pub fn remember_secret(secret: &str) {
    let secret = secret.trim();
    if secret.len() < MIN_SECRET_LEN {
        return;
    }
    let mut secrets = SECRETS.write().unwrap_or_else(|e| e.into_inner());
    if !secrets.iter().any(|s| s == secret) {
        secrets.push(secret.to_string());
        // Longest first, so a secret containing another is masked whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }
}

/// Words that make a variable a credential wherever they appear in its
/// name (compared without regard to case; upper-case ASCII letters first).
const SECRET_WORDS: [&[u8]; 8] = [
    b"SECRET",
    b"TOKEN",
    b"PASSWORD",
    b"PASSWD",
    b"CREDENTIAL",
    b"ACCESS_KEY",
    b"API_KEY",
    b"PRIVATE_KEY",
];

/// Endings that make such a variable name a file or an address instead.
const NOT_SECRET_ENDINGS: [&[u8]; 3] = [b"_FILE", b"_PATH", b"_URI"];

/// Whether an environment variable's name says its value is a credential.
///
/// Every variable of the process passes here once per run, so the name is
/// scanned once, in place: a word is compared only where its first letter
/// stands (no upper-cased copy, no substring searcher per word: 2,000
/// instructions a variable before, under 400 now).
pub fn is_secret_variable(name: &str) -> bool {
    /// The first letters of [`SECRET_WORDS`], one bit per letter.
    const FIRST_LETTERS: u32 = {
        let mut bits = 0;
        let mut i = 0;
        while i < SECRET_WORDS.len() {
            bits |= 1 << (SECRET_WORDS[i][0] - b'A');
            i += 1;
        }
        bits
    };
    let name = name.as_bytes();
    let found = (0..name.len()).any(|i| {
        let first = name[i].to_ascii_uppercase();
        first.is_ascii_uppercase()
            && FIRST_LETTERS & (1 << (first - b'A')) != 0
            && SECRET_WORDS.iter().any(|word| {
                word[0] == first
                    && name[i..]
                        .get(..word.len())
                        .is_some_and(|here| here.eq_ignore_ascii_case(word))
            })
    });
    let ends_with = |end: &[u8]| {
        name.len() >= end.len() && name[name.len() - end.len()..].eq_ignore_ascii_case(end)
    };
    found && !NOT_SECRET_ENDINGS.iter().any(|e| ends_with(e))
}

/// Registers the values of the credential variables among `env` (AWS keys,
/// tokens, passwords; not the variables that only name a file).
pub fn remember_env_secrets<'a>(env: impl IntoIterator<Item = (&'a String, &'a String)>) {
    for (name, value) in env {
        if is_secret_variable(name) {
            remember_secret(value);
        }
    }
}

/// Masks URL user-info and credential query values (see the module docs).
pub fn redact_urls(text: &str) -> Cow<'_, str> {
    let mut out: Option<String> = None;
    if text.contains("://") {
        let mut result = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(i) = rest.find("://") {
            let (head, tail) = rest.split_at(i + 3);
            result.push_str(head);
            // The authority ends at the first '/', '?', '#', whitespace or quote.
            let end = tail
                .find(|c: char| {
                    matches!(c, '/' | '?' | '#' | '"' | '\'' | '<' | '>' | '`') || c.is_whitespace()
                })
                .unwrap_or(tail.len());
            let authority = &tail[..end];
            match authority.rfind('@') {
                Some(at) => {
                    result.push_str(MASK);
                    result.push_str(&authority[at..]);
                }
                None => result.push_str(authority),
            }
            rest = &tail[end..];
        }
        result.push_str(rest);
        if result != text {
            out = Some(result);
        }
    }
    let current = out.as_deref().unwrap_or(text);
    if current.contains('@') && BARE_USERINFO.is_match(current) {
        out = Some(
            BARE_USERINFO
                .replace_all(current, format!("${{1}}{MASK}@"))
                .into_owned(),
        );
    }
    let current = out.as_deref().unwrap_or(text);
    if SECRET_QUERY.is_match(current) {
        out = Some(
            SECRET_QUERY
                .replace_all(current, format!("${{1}}{MASK}"))
                .into_owned(),
        );
    }
    match out {
        Some(s) => Cow::Owned(s),
        None => Cow::Borrowed(text),
    }
}

/// Everything [`redact`] does but the registered values, for text that
/// must not depend on process state (tests).
fn redact_shapes(text: &str) -> Cow<'_, str> {
    let text = redact_urls(text);
    if !KEY_ID.is_match(&text) {
        return text;
    }
    let replaced = KEY_ID.replace_all(&text, |caps: &regex::Captures<'_>| {
        match (caps.get(1), caps.get(2)) {
            (Some(open), Some(close)) => format!("{}{MASK}{}", open.as_str(), close.as_str()),
            _ => MASK.to_string(),
        }
    });
    Cow::Owned(replaced.into_owned())
}

/// `text` with URLs, registered secrets and key IDs masked.
pub fn redact(text: &str) -> Cow<'_, str> {
    let mut text = redact_shapes(text);
    let secrets = SECRETS.read().unwrap_or_else(|e| e.into_inner());
    for secret in secrets.iter() {
        if text.contains(secret.as_str()) {
            text = Cow::Owned(text.replace(secret.as_str(), MASK));
        }
    }
    text
}

/// A writer that passes everything through [`redact`], line by line.
///
/// Text is held until a newline (or [`flush`](Write::flush), or drop) so
/// that a secret split across two `write` calls is still seen whole. For
/// log lines (one event per writer) and for Chrome traces (one JSON entry
/// per line).
pub struct RedactingWriter<W: Write> {
    inner: W,
    pending: Vec<u8>,
}

impl<W: Write> RedactingWriter<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> Self {
        RedactingWriter {
            inner,
            pending: Vec::new(),
        }
    }

    fn emit(&mut self, upto: usize) -> io::Result<()> {
        let chunk: Vec<u8> = self.pending.drain(..upto).collect();
        let text = String::from_utf8_lossy(&chunk);
        self.inner.write_all(redact(&text).as_bytes())
    }
}

impl<W: Write> Write for RedactingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(buf);
        if let Some(last) = self.pending.iter().rposition(|&b| b == b'\n') {
            self.emit(last + 1)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let all = self.pending.len();
        self.emit(all)?;
        self.inner.flush()
    }
}

impl<W: Write> Drop for RedactingWriter<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_lose_their_user_info_and_credential_parameters() {
        for (text, want) in [
            (
                "error sending request for url (https://user:pa55@sts.example.com/x?a=1)",
                "error sending request for url (https://***@sts.example.com/x?a=1)",
            ),
            ("http://tok@127.0.0.1:8080", "http://***@127.0.0.1:8080"),
            (
                "https://host/path?token=abc&b=2",
                "https://host/path?token=***&b=2",
            ),
            (
                "https://s3/x?X-Amz-Signature=deadbeef&X-Amz-Credential=AKIA/x",
                "https://s3/x?X-Amz-Signature=***&X-Amz-Credential=***",
            ),
            ("no url here", "no url here"),
            (
                r#"checkout waiting: ("http", user:pa55@127.0.0.1:8080)"#,
                r#"checkout waiting: ("http", ***@127.0.0.1:8080)"#,
            ),
            ("mail me@example.com", "mail me@example.com"),
        ] {
            assert_eq!(redact_urls(text), want, "{text}");
        }
    }

    #[test]
    fn key_ids_and_sdk_debug_fields_are_masked() {
        let sdk = r#"Credentials { provider_name: "Environment", access_key_id: "mykeyid", secret_access_key: "** redacted **" }"#;
        let got = redact_shapes(sdk);
        assert!(!got.contains("mykeyid"), "{got}");
        assert!(got.contains(r#"access_key_id: "***""#), "{got}");
        let got = redact_shapes("key AKIAIOSFODNN7EXAMPLE used");
        assert_eq!(got, "key *** used");
    }

    #[test]
    fn secret_variable_names_match_the_upper_cased_substring_rule() {
        // The rule as first written: upper-case the name, look for each word.
        fn by_copy(name: &str) -> bool {
            let upper = name.to_ascii_uppercase();
            SECRET_WORDS
                .iter()
                .any(|w| upper.contains(std::str::from_utf8(w).unwrap()))
                && !NOT_SECRET_ENDINGS
                    .iter()
                    .any(|e| upper.ends_with(std::str::from_utf8(e).unwrap()))
        }
        let names = [
            "AWS_SECRET_ACCESS_KEY",
            "aws_secret_access_key",
            "GITHUB_TOKEN",
            "MyPassWord",
            "PASSWD",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "GOOGLE_APPLICATION_CREDENTIALS_FILE",
            "credential_path",
            "OPENAI_API_KEY",
            "SSH_PRIVATE_KEY",
            "SSH_PRIVATE_KEY_URI",
            "ACCESS_KE",
            "TOKE",
            "_FILE",
            "",
            "HOME",
            "PATH",
            "tokenizer",
            "SECRETÉ_ÜBER",
            "ÉTOKEN_FILE",
        ];
        for name in names {
            assert_eq!(is_secret_variable(name), by_copy(name), "{name:?}");
        }
    }

    #[test]
    fn registered_secrets_are_masked_even_across_writes() {
        remember_secret("canary-secret-value-123");
        remember_secret("ab");
        let mut out = Vec::new();
        {
            let mut w = RedactingWriter::new(&mut out);
            w.write_all(b"x canary-secret").unwrap();
            w.write_all(b"-value-123 y\nab\n").unwrap();
        }
        assert_eq!(String::from_utf8(out).unwrap(), "x *** y\nab\n");
        assert!(is_secret_variable("AWS_SECRET_ACCESS_KEY"));
        assert!(is_secret_variable("AWS_SESSION_TOKEN"));
        assert!(is_secret_variable("AWS_ACCESS_KEY_ID"));
        assert!(!is_secret_variable("AWS_WEB_IDENTITY_TOKEN_FILE"));
        assert!(!is_secret_variable("HOME"));
    }
}
