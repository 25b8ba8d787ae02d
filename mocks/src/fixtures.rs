//! The one place that knows where `fixtures/` is, plus the canned bodies
//! embedded into the crate so binaries work from any directory.

use std::path::{Path, PathBuf};

/// The workspace's `fixtures/` directory (`CARGO_MANIFEST_DIR/../fixtures`),
/// resolved at compile time. Use it in tests and benches; shipped binaries
/// should not rely on it (the crate embeds what it needs).
pub fn fixtures_dir() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).join("fixtures")
}

/// `fixtures/sts/get-caller-identity.xml`: placeholders `arn`, `user_id`, `account`, `request_id`.
pub(crate) const STS_IDENTITY_XML: &str =
    include_str!("../../fixtures/sts/get-caller-identity.xml");
/// `fixtures/sts/error.xml`: placeholders `type`, `code`, `message`, `request_id`.
pub(crate) const STS_ERROR_XML: &str = include_str!("../../fixtures/sts/error.xml");
/// `fixtures/kube/version.json`, served as-is.
pub(crate) const KUBE_VERSION_JSON: &str = include_str!("../../fixtures/kube/version.json");

/// `fixtures/s3/list-buckets.xml`: placeholders `owner_id`, `bucket`.
pub(crate) const S3_LIST_BUCKETS_XML: &str = include_str!("../../fixtures/s3/list-buckets.xml");
/// `fixtures/s3/error.xml`: placeholders `code`, `message`, `request_id`.
pub(crate) const S3_ERROR_XML: &str = include_str!("../../fixtures/s3/error.xml");
/// `fixtures/huggingface/whoami-v2.json`: placeholder `name`.
pub(crate) const HF_WHOAMI_JSON: &str = include_str!("../../fixtures/huggingface/whoami-v2.json");

/// Request id used in every STS body.
pub(crate) const REQUEST_ID: &str = "01234567-89ab-cdef-0123-456789abcdef";

/// Fills `{{key}}` placeholders with XML-escaped values.
pub(crate) fn render(template: &str, vars: &[(&str, &str)]) -> String {
    let mut out = template.to_owned();
    for (key, value) in vars {
        out = out.replace(&format!("{{{{{key}}}}}"), &xml_escape(value));
    }
    out
}

fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// Reads a data file, naming it in the error.
pub(crate) fn read(path: &Path) -> Result<Vec<u8>, crate::MockError> {
    std::fs::read(path).map_err(|source| crate::MockError::ReadFile {
        path: path.to_owned(),
        source,
    })
}
