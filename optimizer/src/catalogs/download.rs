//! Downloading one catalog file into SkyPilot's folder, the way
//! `sky/catalog/common.py::read_catalog`'s `_update_catalog` does it, plus
//! what it lacks: a deadline, a size cap, conditional requests and a
//! validated, atomic write.
//!
//! Per file: take `<meta>.lock` (SkyPilot's `filelock.FileLock`, an `flock`
//! on the same path, so `sky` and SkyPilot exclude each other), look again
//! (another process may just have downloaded it), leave a file edited by
//! hand alone, GET `<url>/v8/<file>` — conditional (`If-None-Match`,
//! `If-Modified-Since`) when the copy on disk is the one those validators
//! describe — falling back to the mirror when the primary is rate-limited
//! (429, as SkyPilot does since its #5622) or unavailable (5xx, no
//! connection), check that the body is a usable catalog, then replace the
//! file atomically and write its md5 record as SkyPilot does.
//!
//! A failed refresh keeps the old file and, like SkyPilot's
//! `os.utime(catalog_path, None)`, marks it current so the next launches do
//! not retry before another pull period has passed. A failure is also
//! remembered per file and host ([`Backoff`], the state folder's
//! `catalog-failures/`): a host is not asked for that file again before its
//! back-off has passed, so a machine without a route to it pays the
//! deadline once, not on every launch.

use std::fs::{File, Metadata, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use http::{Method, Request, StatusCode, header};
use http_body_util::Full;
use md5::{Digest, Md5};
use planner::cloud::CatalogPull;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use super::folder::{self, Folder, Standing};
use crate::net::{HttpClient, NetError, Streamed, StreamedAnswer};
use crate::state::{
    Clock, DownloadBackoff, DownloadFailure, FileMode, TempFile, redact_url, url_host, write_atomic,
};

/// SkyPilot's `constants.HOSTED_CATALOG_DIR_URL`.
pub const HOSTED_CATALOG_DIR_URL: &str =
    "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs";
/// SkyPilot's `constants.HOSTED_CATALOG_DIR_URL_S3_MIRROR`.
pub const HOSTED_CATALOG_DIR_URL_S3_MIRROR: &str =
    "https://skypilot-catalog.s3.us-east-1.amazonaws.com/catalogs";

/// Largest catalog accepted: 16 MB, four times the biggest hosted file
/// (AWS's `vms.csv`, about 3.6 MB), so that a body read back for its check
/// and the catalog parsed from it stay well under the 64 MB a launch may
/// use whatever a host sends.
pub const MAX_CATALOG_BYTES: usize = 16 << 20;
/// Most rows a catalog may have (AWS's, the longest, has about 40,000):
/// counted while the body is streamed back from its temporary file, before
/// anything is parsed, so that a body of many tiny rows is refused before
/// it costs memory.
pub const MAX_CATALOG_ROWS: usize = 200_000;
/// Largest `common/` table accepted: 256 kB, over a hundred times the
/// hosted ones (`common/accelerators.csv` is about 2 kB, a row per
/// accelerator). These tables are read whole into cells
/// (`planner::catalog::common`), so a body of the `vms.csv` cap would cost
/// several times its size: a bigger one is refused as it streams in.
pub const MAX_COMMON_BYTES: usize = 256 << 10;
/// Most rows a `common/` table may have (the hosted ones have a few dozen).
pub const MAX_COMMON_ROWS: usize = 10_000;
/// The piece of a temporary file read at a time by [`precheck`].
const PRECHECK_CHUNK: usize = 64 << 10;
/// Longest server text kept in an error.
const MAX_MESSAGE_CHARS: usize = 80;
/// Lock polling: first and longest pause.
const POLL_MIN: Duration = Duration::from_millis(5);
const POLL_MAX: Duration = Duration::from_millis(100);

/// Where catalogs are downloaded from, and the limits of one download.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DownloadOptions {
    /// The hosted catalog (`SKY_CATALOG_URL`; default
    /// [`HOSTED_CATALOG_DIR_URL`]). Files are `<url>/v8/<cloud>/vms.csv`.
    pub url: String,
    /// The mirror tried when the primary is rate-limited or unavailable
    /// (`SKY_CATALOG_MIRROR_URL`; default [`HOSTED_CATALOG_DIR_URL_S3_MIRROR`];
    /// `None` when set empty).
    pub mirror_url: Option<String>,
    /// TCP/TLS connect deadline.
    pub connect_timeout: Duration,
    /// Largest body accepted.
    pub max_bytes: usize,
}

impl Default for DownloadOptions {
    fn default() -> Self {
        DownloadOptions {
            url: HOSTED_CATALOG_DIR_URL.to_string(),
            mirror_url: Some(HOSTED_CATALOG_DIR_URL_S3_MIRROR.to_string()),
            connect_timeout: Duration::from_secs(2),
            max_bytes: MAX_CATALOG_BYTES,
        }
    }
}

impl DownloadOptions {
    /// The URL of `file` under `base` (`<base>/v8/<file>`).
    pub fn file_url(base: &str, file: &str) -> String {
        format!(
            "{}/{}/{file}",
            base.trim_end_matches('/'),
            folder::SCHEMA_VERSION
        )
    }

    /// The base URLs in the order they are tried.
    pub fn bases(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.url.as_str()).chain(self.mirror_url.as_deref())
    }
}

/// The caps of one file: bytes and rows (a `common/` table's are smaller).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Caps {
    bytes: usize,
    rows: usize,
}

impl Caps {
    /// The caps of `file` under `options`.
    fn of(file: &str, options: &DownloadOptions) -> Caps {
        if file.starts_with("common/") {
            Caps {
                bytes: options.max_bytes.min(MAX_COMMON_BYTES),
                rows: MAX_COMMON_ROWS,
            }
        } else {
            Caps {
                bytes: options.max_bytes,
                rows: MAX_CATALOG_ROWS,
            }
        }
    }
}

/// One file to bring up to date.
#[derive(Debug, Clone)]
pub struct Job {
    /// Relative to the folder: `aws/vms.csv`, `common/metadata.csv`.
    pub file: String,
    /// Its pull period.
    pub pull: CatalogPull,
    /// Download even when the copy is current (`sky catalog refresh`); a
    /// file edited by hand is still left alone.
    pub force: bool,
}

/// The failed downloads remembered, and whether their back-off is waived.
#[derive(Debug, Clone, Default)]
pub struct Backoff {
    /// The records (`None`: no usable state folder, nothing remembered).
    pub log: Option<DownloadBackoff>,
    /// Ask every host now, whatever its back-off (`sky catalog refresh`,
    /// `--retry-downloads`).
    pub retry_now: bool,
}

impl Backoff {
    /// The failure that keeps `base` from being asked for `file` at `now`.
    fn holding(&self, base: &str, file: &str, now: SystemTime) -> Option<DownloadFailure> {
        if self.retry_now {
            return None;
        }
        let record = self.log.as_ref()?.get(&url_host(base), file)?;
        record.holds_at(now).then_some(record)
    }

    /// `base` failed to give `file`: remembered.
    fn failed(&self, base: &str, file: &str, reason: &str, now: SystemTime) {
        if let Some(log) = &self.log
            && let Err(e) = log.record(&url_host(base), file, reason, now)
        {
            tracing::debug!(error = %e, "cannot remember a failed download");
        }
    }

    /// `base` answered for `file`: its failures are forgotten.
    fn answered(&self, base: &str, file: &str) {
        if let Some(log) = &self.log {
            log.clear(&url_host(base), file);
        }
    }
}

/// A download not attempted because every host is in back-off, in one line.
fn held_error(record: &DownloadFailure, now: SystemTime) -> String {
    let ago = now.duration_since(record.failed_at()).unwrap_or_default();
    let left = record.retry_at().duration_since(now).unwrap_or_default();
    let minutes = left.as_secs().div_ceil(60).max(1);
    format!(
        "{} ({}; not retried for {minutes} min)",
        record.reason,
        planner::text::ago(ago)
    )
}

/// What became of one file.
#[derive(Debug)]
pub enum Fetched<T> {
    /// A new copy was downloaded, checked and written; `value` is what the
    /// check made of it, as the keeper kept it.
    Downloaded {
        /// What was kept of the checked content (for a `vms.csv`: nothing
        /// once its image is stored, else the parsed catalog).
        value: T,
        /// The new file's metadata.
        meta: Metadata,
        /// Where it came from.
        url: String,
        /// Its size in bytes.
        bytes: usize,
    },
    /// The server confirmed the copy on disk (HTTP 304).
    NotModified {
        /// The file's metadata (modification time now).
        meta: Metadata,
    },
    /// Current after all: another process brought it up to date while this
    /// one waited for the lock (or it was current and not forced).
    Current {
        /// The file's metadata.
        meta: Metadata,
    },
    /// Edited by hand: left as it is.
    Edited {
        /// The file's metadata.
        meta: Metadata,
    },
    /// No usable copy came down. `stale` is the old file, kept.
    Failed {
        /// One line: what went wrong.
        error: String,
        /// The old file's metadata, when there is one.
        stale: Option<Metadata>,
    },
}

/// The validators of the copy `sky` last downloaded (`.meta/<file>.http.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Validators {
    /// The URL that served it (an ETag means nothing to another server).
    url: String,
    /// md5 of the copy they describe: used only while the file still is that copy.
    md5: String,
    etag: Option<String>,
    last_modified: Option<String>,
}

/// SkyPilot's lock, held until dropped.
struct FileLock(File);

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

/// Takes `<meta>.lock` by polling (never blocking a runtime thread) until
/// `deadline`. filelock keeps the file in place, so waiters share its inode.
async fn lock(path: &Path, deadline: Instant) -> Result<FileLock, String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| format!("cannot open the lock {}: {e}", path.display()))?;
    let mut pause = POLL_MIN;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(FileLock(file)),
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(format!("cannot lock {}: {e}", path.display()));
            }
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(format!(
                "another process kept {} locked (downloading the same file?)",
                path.display()
            ));
        }
        tokio::time::sleep(pause.min(deadline - now)).await;
        pause = (pause * 2).min(POLL_MAX);
    }
}

/// What the folder says before any request, with the lock held.
enum Before {
    /// Nothing to do: current (another process refreshed it, or not forced).
    Current(Metadata),
    /// Nothing to do: edited by hand.
    Edited(Metadata),
    /// Download; `existing` is the copy that would be replaced, with the
    /// validators that still describe it.
    Go {
        existing: Option<Metadata>,
        validators: Option<Validators>,
    },
}

fn look(folder: &Folder, job: &Job, now: SystemTime) -> Result<Before, String> {
    let standing = folder
        .standing(&job.file, job.pull, now)
        .map_err(|e| format!("cannot inspect {}: {e}", folder.path(&job.file).display()))?;
    let existing = match standing {
        Standing::Missing => None,
        Standing::Current(meta) if !job.force => return Ok(Before::Current(meta)),
        Standing::Current(meta) | Standing::Due(meta) => Some(meta),
    };
    let Some(existing) = existing else {
        return Ok(Before::Go {
            existing: None,
            validators: None,
        });
    };
    let modified = folder
        .is_modified(&job.file)
        .map_err(|e| format!("cannot read {}: {e}", folder.path(&job.file).display()))?;
    if modified {
        return Ok(Before::Edited(existing));
    }
    // Not modified: the file's md5 is its record's. The validators count
    // only if they were taken from that very copy.
    let record = std::fs::read_to_string(folder.md5_path(&job.file)).unwrap_or_default();
    let validators = std::fs::read(folder.validators_path(&job.file))
        .ok()
        .and_then(|b| serde_json::from_slice::<Validators>(&b).ok())
        .filter(|v| v.md5 == record);
    Ok(Before::Go {
        existing: Some(existing),
        validators,
    })
}

/// One GET's result, classified.
enum Got {
    /// A 2xx body, streamed into a temporary file beside the target (not
    /// yet checked nor published).
    Body {
        temp: TempFile,
        bytes: usize,
        validators: Validators,
    },
    NotModified,
    /// Worth the mirror: rate-limited, server error, no connection.
    Retryable(String),
    Fatal(String),
}

/// At most one downloaded body is read back and checked at a time, so the
/// bodies of the downloads in flight never sit in memory together (each
/// streams to its own temporary file).
static CHECKING: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(1);

/// One GET of `url` before `deadline`, its status and headers due by
/// `answer_by` (a host silent until then is given up for the next one).
async fn get(
    client: &HttpClient,
    url: &str,
    target: &Path,
    validators: Option<&Validators>,
    (answer_by, deadline): (Instant, Instant),
    max_bytes: usize,
) -> Got {
    let mut request = Request::builder().method(Method::GET).uri(url).header(
        header::USER_AGENT,
        concat!(
            "sky/",
            env!("CARGO_PKG_VERSION"),
            " (SkyPilot/0.7 compatible)"
        ),
    );
    if let Some(v) = validators.filter(|v| v.url == url) {
        if let Some(etag) = &v.etag {
            request = request.header(header::IF_NONE_MATCH, etag);
        }
        if let Some(lm) = &v.last_modified {
            request = request.header(header::IF_MODIFIED_SINCE, lm);
        }
    }
    // Errors name the URL without what may be secret in it.
    let shown = redact_url(url);
    let request = match request.body(Full::new(Bytes::new())) {
        Ok(r) => r,
        Err(e) => return Got::Fatal(format!("invalid URL {shown:?}: {e}")),
    };
    let now = Instant::now();
    let left = deadline.saturating_duration_since(now);
    let answer_within = answer_by.saturating_duration_since(now);
    // The body streams to a temporary file beside the target as it arrives
    // (small writes to the page cache), its md5 taken on the way.
    let mut temp: Option<TempFile> = None;
    let mut md5 = Md5::new();
    let sink = |piece: &[u8]| -> Result<(), String> {
        let file = match &mut temp {
            Some(file) => file,
            None => {
                temp.insert(TempFile::create(target, FileMode::User).map_err(|e| e.to_string())?)
            }
        };
        md5.update(piece);
        file.write(piece).map_err(|e| e.to_string())
    };
    let answer = client
        .exchange_streamed(request, left, answer_within, max_bytes, sink)
        .await;
    match answer {
        Err(NetError::Timeout(_)) => Got::Fatal(format!("no answer from {shown} in time")),
        Err(NetError::Silent(waited)) => Got::Retryable(format!(
            "no answer from {shown} in {:.1} s",
            waited.as_secs_f64()
        )),
        Err(e @ NetError::TooLarge(_)) => Got::Fatal(format!("{shown}: {e}")),
        Err(NetError::Transport(e)) => Got::Retryable(format!("cannot reach {shown}: {e}")),
        Ok(answer) if answer.status == StatusCode::NOT_MODIFIED => {
            if validators.is_some_and(|v| v.url == url) {
                Got::NotModified
            } else {
                Got::Fatal(format!("{shown} answered 304 to an unconditional request"))
            }
        }
        Ok(StreamedAnswer {
            status,
            headers,
            body: Streamed::Sunk(bytes),
        }) if status.is_success() => {
            let text = |name: header::HeaderName| {
                headers
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string)
            };
            let temp = match temp {
                Some(temp) => temp,
                // An empty body: an empty file, for the check to refuse.
                None => match TempFile::create(target, FileMode::User) {
                    Ok(temp) => temp,
                    Err(e) => return Got::Fatal(e.to_string()),
                },
            };
            Got::Body {
                temp,
                bytes,
                validators: Validators {
                    url: url.to_string(),
                    md5: crate::state::hex(&md5.finalize()),
                    etag: text(header::ETAG),
                    last_modified: text(header::LAST_MODIFIED),
                },
            }
        }
        Ok(answer) => status_error(&answer, &shown),
    }
}

/// An answer with an error status, in one line: worth the mirror when
/// rate-limited or a server error.
fn status_error(answer: &StreamedAnswer, url: &str) -> Got {
    let what = format!("HTTP {} from {url}", answer.status.as_u16());
    let kept = match &answer.body {
        Streamed::Kept(body) => &body[..],
        Streamed::Sunk(_) => &[],
    };
    let body = String::from_utf8_lossy(kept);
    // An error page says nothing the status does not.
    let detail: String = if body.to_ascii_lowercase().contains("<html") {
        String::new()
    } else {
        body.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .take(MAX_MESSAGE_CHARS)
            .collect()
    };
    let text = if detail.is_empty() {
        what
    } else {
        format!("{what}: {detail}")
    };
    if answer.status == StatusCode::TOO_MANY_REQUESTS || answer.status.is_server_error() {
        Got::Retryable(text)
    } else {
        Got::Fatal(text)
    }
}

/// Brings `job.file` up to date in `folder` before `deadline`: see the
/// module documentation. `check` turns a downloaded body into a value (a
/// parsed catalog); a body it rejects is never written. `keep` is given
/// that value with the published file's path and metadata, still within
/// the one-body-at-a-time turn ([`CHECKING`]), and returns what the caller
/// keeps of it (a `vms.csv` stores its image and drops its rows there, so
/// the rows of two bodies are never held at once).
#[allow(clippy::too_many_arguments)]
pub async fn fetch<T, U, F, K>(
    client: &HttpClient,
    options: &DownloadOptions,
    folder: &Folder,
    job: &Job,
    deadline: Instant,
    clock: &Clock,
    backoff: &Backoff,
    (check, keep): (F, K),
) -> Fetched<U>
where
    T: Send + 'static,
    U: Send + 'static,
    F: FnOnce(&[u8]) -> Result<T, String> + Send + 'static,
    K: FnOnce(T, &Path, &Metadata) -> U + Send + 'static,
{
    let stale = || std::fs::metadata(folder.path(&job.file)).ok();
    // Hosts that failed to give this file lately are not asked again yet;
    // with none left, nothing is tried (no lock, no connection).
    let now = clock.now();
    let mut held = None;
    let bases: Vec<&str> = options
        .bases()
        .filter(|base| match backoff.holding(base, &job.file, now) {
            Some(record) => {
                held.get_or_insert(record);
                false
            }
            None => true,
        })
        .collect();
    if let (true, Some(record)) = (bases.is_empty(), &held) {
        return Fetched::Failed {
            error: held_error(record, now),
            stale: stale(),
        };
    }
    let _lock = match lock(&folder.lock_path(&job.file), deadline).await {
        Ok(lock) => lock,
        Err(error) => {
            let stale = stale();
            return Fetched::Failed { error, stale };
        }
    };
    let (existing, validators) = match look(folder, job, clock.now()) {
        Ok(Before::Edited(meta)) => return Fetched::Edited { meta },
        Ok(Before::Current(meta)) => return Fetched::Current { meta },
        Ok(Before::Go {
            existing,
            validators,
        }) => (existing, validators),
        Err(error) => {
            let stale = stale();
            return Fetched::Failed { error, stale };
        }
    };
    let path = folder.path(&job.file);
    let failed = |error: String| {
        // SkyPilot: "Failed to fetch ... Using cached catalog files." and
        // `os.utime(catalog_path, None)`.
        let stale = existing.as_ref().map(|_| {
            if let Err(e) = folder::touch(&path, clock.now()) {
                tracing::debug!(file = %path.display(), error = %e, "cannot mark the stale catalog current");
            }
            std::fs::metadata(&path).ok()
        });
        Fetched::Failed {
            error,
            stale: stale.flatten(),
        }
    };
    if let Some(dir) = path.parent()
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        return failed(format!("cannot create {}: {e}", dir.display()));
    }
    let caps = Caps::of(&job.file, options);
    let from = Asked {
        client,
        target: path.clone(),
        max_bytes: caps.bytes,
        file: &job.file,
        backoff,
        clock,
    };
    match get_from_bases(&from, &bases, validators.as_ref(), deadline).await {
        Err(errors) => failed(errors),
        Ok((_, Got::NotModified)) => {
            match folder::touch(&path, clock.now()).and_then(|()| std::fs::metadata(&path)) {
                Ok(meta) => Fetched::NotModified { meta },
                Err(e) => failed(format!("cannot update {}: {e}", path.display())),
            }
        }
        Ok((
            base,
            Got::Body {
                temp,
                bytes,
                validators,
            },
        )) => {
            let url = validators.url.clone();
            let checked = write_checked(folder, &job.file, temp, validators, caps, (check, keep));
            match checked.await {
                Ok((value, meta)) => {
                    backoff.answered(base, &job.file);
                    Fetched::Downloaded {
                        value,
                        meta,
                        url,
                        bytes,
                    }
                }
                Err(e) => {
                    // The host answered with something that is not this
                    // file's catalog (a login page, another cloud's CSV).
                    backoff.failed(base, &job.file, &e, clock.now());
                    failed(e)
                }
            }
        }
        // `get_from_bases` answers the others as errors.
        Ok((_, Got::Retryable(e) | Got::Fatal(e))) => failed(e),
    }
}

/// What one file's GETs share.
struct Asked<'a> {
    client: &'a HttpClient,
    /// The file in the folder (its temporary file goes beside it).
    target: PathBuf,
    max_bytes: usize,
    file: &'a str,
    backoff: &'a Backoff,
    clock: &'a Clock,
}

/// GETs `file` from each base in turn while the answer is worth the
/// mirror; `Err` joins every error met.
/// Each host's failure is remembered, each answer clears it; a body's host
/// is returned with it (its check is still to come).
async fn get_from_bases<'b>(
    asked: &Asked<'_>,
    bases: &[&'b str],
    validators: Option<&Validators>,
    deadline: Instant,
) -> Result<(&'b str, Got), String> {
    let mut errors = Vec::new();
    for (at, &base) in bases.iter().enumerate() {
        let now = Instant::now();
        if now >= deadline {
            // Not asked: nothing to remember about this host.
            break;
        }
        // A host followed by another must answer (status and headers) in
        // half the time left, so that a host that accepts and stays silent
        // leaves the next one the other half of the same deadline; the last
        // host has all of it. A slow body is not cut short: once a host
        // answers, its body has until the deadline.
        let answer_by = if at + 1 < bases.len() {
            now + (deadline - now) / 2
        } else {
            deadline
        };
        let url = DownloadOptions::file_url(base, asked.file);
        let got = get(
            asked.client,
            &url,
            &asked.target,
            validators,
            (answer_by, deadline),
            asked.max_bytes,
        )
        .await;
        match got {
            Got::Retryable(e) => {
                asked
                    .backoff
                    .failed(base, asked.file, &e, asked.clock.now());
                errors.push(e);
            }
            Got::Fatal(e) => {
                asked
                    .backoff
                    .failed(base, asked.file, &e, asked.clock.now());
                errors.push(e);
                return Err(errors.join("; then "));
            }
            Got::NotModified => {
                asked.backoff.answered(base, asked.file);
                return Ok((base, Got::NotModified));
            }
            // Cleared once the body proves to be the catalog.
            got => return Ok((base, got)),
        }
    }
    Err(errors.join("; then "))
}

/// Checks a downloaded body and, when `check` accepts it, publishes it
/// and hands what the check made of it to `keep` — reading it back,
/// parsing, the fsyncs and keeping are blocking work, off the runtime, one
/// body at a time ([`CHECKING`]): the body is dropped before the file is
/// published, and the check's value is what `keep` makes of it before the
/// next body is read. Returns that and the new file's metadata. A refused
/// body's temporary file is removed (dropped).
async fn write_checked<T, U, F, K>(
    folder: &Folder,
    file: &str,
    temp: TempFile,
    validators: Validators,
    caps: Caps,
    (check, keep): (F, K),
) -> Result<(U, Metadata), String>
where
    T: Send + 'static,
    U: Send + 'static,
    F: FnOnce(&[u8]) -> Result<T, String> + Send + 'static,
    K: FnOnce(T, &Path, &Metadata) -> U + Send + 'static,
{
    let folder = folder.clone();
    let file = file.to_string();
    let _turn = CHECKING
        .acquire()
        .await
        .map_err(|e| format!("the download check failed: {e}"))?;
    tokio::task::spawn_blocking(move || {
        let shown = redact_url(&validators.url);
        precheck(temp.path(), caps.rows)
            .map_err(|e| format!("{shown} is not a usable catalog: {e}"))?;
        let body = std::fs::read(temp.path())
            .map_err(|e| format!("cannot read {}: {e}", temp.path().display()))?;
        let value = check(&body).map_err(|e| format!("{shown} is not a usable catalog: {e}"))?;
        drop(body);
        publish(&folder, &file, temp, &validators)?;
        let path = folder.path(&file);
        let meta = std::fs::metadata(&path)
            .map_err(|e| format!("cannot inspect {}: {e}", path.display()))?;
        let kept = keep(value, &path, &meta);
        Ok::<_, String>((kept, meta))
    })
    .await
    .unwrap_or_else(|e| Err(format!("the download task failed: {e}")))
}

/// Checks a downloaded body in bounded pieces ([`PRECHECK_CHUNK`]) from its
/// temporary file, before it is read whole and parsed: a CSV's text (no NUL
/// byte, a header line of comma-separated names, not markup) of at most
/// `max_rows` rows ([`MAX_CATALOG_ROWS`], [`MAX_COMMON_ROWS`]). Garbage, a
/// binary file or a page of tiny rows is refused here at the cost of one
/// piece of memory.
fn precheck(path: &Path, max_rows: usize) -> Result<(), String> {
    use std::io::Read;
    let mut file = File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut piece = vec![0u8; PRECHECK_CHUNK];
    let mut header: Vec<u8> = Vec::new();
    let mut in_header = true;
    let mut rows = 0usize;
    loop {
        let n = file
            .read(&mut piece)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if n == 0 {
            break;
        }
        let piece = &piece[..n];
        if piece.contains(&0) {
            return Err("it is not text (a NUL byte)".into());
        }
        if in_header {
            let end = piece.iter().position(|&b| b == b'\n');
            header.extend_from_slice(&piece[..end.unwrap_or(n)]);
            if header.len() > PRECHECK_CHUNK {
                return Err(format!(
                    "its first line is longer than {PRECHECK_CHUNK} bytes (not a CSV header)"
                ));
            }
            in_header = end.is_none();
        }
        rows += piece.iter().filter(|&&b| b == b'\n').count();
        if rows > max_rows + 1 {
            return Err(format!("it has more than {max_rows} rows"));
        }
    }
    let header =
        std::str::from_utf8(&header).map_err(|_| "its first line is not UTF-8 text".to_string())?;
    // Markup (a login page) or JSON (an API's error) is not a CSV header.
    let names_only = header.contains(',') && !header.contains(['<', '>', '{', '}']);
    if !names_only {
        return Err("its first line is not a CSV header (column names)".into());
    }
    Ok(())
}

/// Publishes the file (its temporary file renamed over it), then its md5
/// record (SkyPilot's format: the hex digest, no newline) and `sky`'s
/// validators, as SkyPilot orders them.
fn publish(
    folder: &Folder,
    file: &str,
    temp: TempFile,
    validators: &Validators,
) -> Result<(), String> {
    if let Some(dir) = folder.md5_path(file).parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    temp.persist().map_err(|e| e.to_string())?;
    write_atomic(
        &folder.md5_path(file),
        validators.md5.as_bytes(),
        FileMode::User,
    )
    .map_err(|e| e.to_string())?;
    let json = serde_json::to_vec(validators).unwrap_or_default();
    if let Err(e) = write_atomic(&folder.validators_path(file), &json, FileMode::User) {
        // Only the next conditional request is lost.
        tracing::debug!(error = %e, "cannot record the catalog's HTTP validators");
    }
    Ok(())
}
