//! Failed catalog downloads, remembered (`<state>/catalog-failures/*.json`)
//! so that a machine without a route to the catalog host pays the download
//! deadline once, not on every launch.
//!
//! One record per file and host: when it last failed, how many times in a
//! row, and why (one short line). A host is not asked for that file again
//! before its back-off has passed — [`BACKOFF_FIRST`], doubling with each
//! failure in a row up to [`BACKOFF_MAX`] — unless asked to retry now
//! (`sky catalog refresh`, `sky launch --retry-downloads`); a success
//! removes the record.
//!
//! Nothing secret is kept: the host is the URL's `host[:port]` (never its
//! user-info, path or query), and the reason is written by the download
//! routine from redacted URLs only ([`redact_url`]). Records follow the
//! state folder's rules: 0700 folder, 0600 files, atomic replace; a damaged
//! record is no record.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::fs_util::{self, FileMode};
use super::{StateDir, StateError, unix_ms};

/// The back-off after one failure.
pub const BACKOFF_FIRST: Duration = Duration::from_secs(5 * 60);
/// The longest back-off (the sixth failure in a row and later).
pub const BACKOFF_MAX: Duration = Duration::from_secs(60 * 60);
/// Longest reason kept, in characters.
const MAX_REASON_CHARS: usize = 200;
/// Record format; another one is no record.
const SCHEMA: u32 = 1;

/// One remembered failure: `file` from `host`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DownloadFailure {
    schema: u32,
    /// The host (`host[:port]`).
    pub host: String,
    /// The file, relative to the catalog folder (`aws/vms.csv`).
    pub file: String,
    /// When it last failed (Unix milliseconds).
    pub failed_at_unix_ms: u64,
    /// Failures in a row.
    pub failures: u32,
    /// Why it last failed, one short line.
    pub reason: String,
}

impl DownloadFailure {
    /// How long after its last failure the host is asked again.
    pub fn backoff(&self) -> Duration {
        let doublings = self.failures.saturating_sub(1).min(16);
        BACKOFF_FIRST
            .saturating_mul(1 << doublings)
            .min(BACKOFF_MAX)
    }

    /// When it last failed.
    pub fn failed_at(&self) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_millis(self.failed_at_unix_ms)
    }

    /// When the host may be asked again.
    pub fn retry_at(&self) -> SystemTime {
        self.failed_at() + self.backoff()
    }

    /// Whether the host is not to be asked at `now`. A failure dated in the
    /// future (a clock set back) is retried at once rather than trusted.
    pub fn holds_at(&self, now: SystemTime) -> bool {
        now >= self.failed_at() && now < self.retry_at()
    }
}

/// The records of failed downloads.
#[derive(Debug, Clone)]
pub struct DownloadBackoff {
    dir: PathBuf,
}

impl DownloadBackoff {
    /// Opens (creating if needed) `<state>/catalog-failures/`.
    pub fn open(state: &StateDir) -> Result<Self, StateError> {
        let dir = state.path().join("catalog-failures");
        fs_util::ensure_private_dir(&dir, state.euid)?;
        Ok(DownloadBackoff { dir })
    }

    /// `<sha256(host, file)>.json`: a fixed-form name whatever the inputs.
    fn path(&self, host: &str, file: &str) -> PathBuf {
        let digest = Sha256::digest(format!("{host}\0{file}").as_bytes());
        self.dir
            .join(format!("{}.json", fs_util::hex(&digest[..12])))
    }

    /// The record of `file` from `host`, if any (and intact).
    pub fn get(&self, host: &str, file: &str) -> Option<DownloadFailure> {
        let bytes = std::fs::read(self.path(host, file)).ok()?;
        serde_json::from_slice::<DownloadFailure>(&bytes)
            .ok()
            .filter(|r| r.schema == SCHEMA && r.host == host && r.file == file)
    }

    /// Records that `file` could not be had from `host` at `now` (one more
    /// failure in a row), and returns the record.
    pub fn record(
        &self,
        host: &str,
        file: &str,
        reason: &str,
        now: SystemTime,
    ) -> Result<DownloadFailure, StateError> {
        let failures = self.get(host, file).map_or(0, |r| r.failures);
        let one_line = reason.split_whitespace().collect::<Vec<_>>().join(" ");
        let record = DownloadFailure {
            schema: SCHEMA,
            host: host.to_string(),
            file: file.to_string(),
            failed_at_unix_ms: unix_ms(now),
            failures: failures.saturating_add(1),
            reason: one_line.chars().take(MAX_REASON_CHARS).collect(),
        };
        let path = self.path(host, file);
        let json = serde_json::to_vec(&record).map_err(|source| StateError::Encode {
            path: path.clone(),
            source,
        })?;
        fs_util::write_cache_atomic(&path, &json, FileMode::Private)?;
        Ok(record)
    }

    /// Forgets the failures of `file` from `host` (it answered).
    pub fn clear(&self, host: &str, file: &str) {
        let _ = std::fs::remove_file(self.path(host, file));
    }
}

/// `url` without what may be secret: its user-info, query and fragment
/// (`https://user:token@host/p?sig=…` → `https://host/p`). Not a URL: as is.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.split(['?', '#']).next().unwrap_or_default().to_string();
    };
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let (authority, path) = rest.find('/').map_or((rest, ""), |i| rest.split_at(i));
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    format!("{scheme}://{host}{path}")
}

/// The `host[:port]` of `url` (no user-info), as records are keyed.
pub fn url_host(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    authority
        .rsplit_once('@')
        .map_or(authority, |(_, h)| h)
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log() -> (tempfile::TempDir, DownloadBackoff) {
        let dir = tempfile::tempdir().unwrap();
        let state = StateDir::open(dir.path().join("state")).unwrap();
        let log = DownloadBackoff::open(&state).unwrap();
        (dir, log)
    }

    #[test]
    fn the_backoff_grows_with_each_failure_and_a_success_forgets() {
        let (_dir, log) = log();
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        assert!(log.get("h", "aws/vms.csv").is_none());
        let first = log.record("h", "aws/vms.csv", "refused", t0).unwrap();
        assert_eq!(first.backoff(), BACKOFF_FIRST);
        assert!(first.holds_at(t0 + Duration::from_secs(60)));
        assert!(!first.holds_at(t0 + BACKOFF_FIRST));
        let second = log
            .record("h", "aws/vms.csv", "refused\nagain", t0)
            .unwrap();
        assert_eq!(second.backoff(), BACKOFF_FIRST * 2);
        assert_eq!(second.reason, "refused again");
        for _ in 0..20 {
            log.record("h", "aws/vms.csv", "x", t0).unwrap();
        }
        assert_eq!(log.get("h", "aws/vms.csv").unwrap().backoff(), BACKOFF_MAX);
        // Another file or another host is another record.
        assert!(log.get("h", "gcp/vms.csv").is_none());
        assert!(log.get("mirror", "aws/vms.csv").is_none());
        log.clear("h", "aws/vms.csv");
        assert!(log.get("h", "aws/vms.csv").is_none());
    }

    #[test]
    fn a_failure_dated_in_the_future_does_not_hold() {
        let (_dir, log) = log();
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let r = log.record("h", "f", "x", t0).unwrap();
        assert!(!r.holds_at(t0 - Duration::from_secs(1)));
    }

    #[test]
    fn records_are_private_and_damaged_ones_are_none() {
        use std::os::unix::fs::PermissionsExt;
        let (_dir, log) = log();
        log.record("h", "f", "x", SystemTime::now()).unwrap();
        let path = log.path("h", "f");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        std::fs::write(&path, b"{not json").unwrap();
        assert!(log.get("h", "f").is_none());
    }

    #[test]
    fn urls_lose_their_secrets() {
        assert_eq!(
            redact_url("https://user:tok@example.com:8443/v8/aws/vms.csv?sig=abc#x"),
            "https://example.com:8443/v8/aws/vms.csv"
        );
        assert_eq!(redact_url("http://h/p"), "http://h/p");
        assert_eq!(
            url_host("https://u:p@Example.com:8443/v8?q"),
            "example.com:8443"
        );
        assert_eq!(url_host("http://127.0.0.1:9"), "127.0.0.1:9");
    }
}
