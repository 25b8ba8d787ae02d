//! Error text from AWS: one line, known secrets removed, bounded (no dumps).

/// Longest service message kept in an error (one line, no dumps).
const MAX_MESSAGE_CHARS: usize = 240;

/// An error and its sources on one line, with known secrets removed.
pub(super) fn one_line(err: &(dyn std::error::Error + 'static), secrets: &[&str]) -> String {
    truncate(&redact(&crate::clouds::error_chain(err), secrets))
}

/// `text` on one line, with known secrets masked.
pub(super) fn redact(text: &str, secrets: &[&str]) -> String {
    let mut out = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for secret in secrets.iter().filter(|s| s.len() >= 4) {
        out = out.replace(secret, "***");
    }
    out
}

/// `text`, cut at [`MAX_MESSAGE_CHARS`].
pub(super) fn truncate(text: &str) -> String {
    if text.chars().count() <= MAX_MESSAGE_CHARS {
        return text.to_string();
    }
    let mut out: String = text.chars().take(MAX_MESSAGE_CHARS).collect();
    out.push('…');
    out
}
