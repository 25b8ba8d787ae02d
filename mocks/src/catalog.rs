//! A static file server for catalog CSVs, as the hosted catalog serves them:
//! with an `ETag` and a `Last-Modified`, answering a conditional request for
//! an unchanged file with 304, and optionally cutting every body short.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use wiremock::{MockServer, ResponseTemplate};

use crate::endpoint::{EndpointState, OkFn, PathPred};
use crate::flavor::Flavor;
use crate::served::{Route, Served};
use crate::{EndpointOptions, Fault, Latency, MockError, Recorder, Recording, fixtures};

/// Options of a [`CatalogServer`]; also its builder.
///
/// `GET <prefix>/<rel>` answers the file `<root>/<rel>` (read on every
/// request, so files may change between runs), 404 when it does not exist or
/// `<rel>` tries to leave `root`. With the defaults,
/// `/catalogs/v8/aws/vms.csv` serves `fixtures/catalogs/aws/vms.csv`, i.e.
/// [`CatalogServer::url`] stands in for SkyPilot's
/// `HOSTED_CATALOG_DIR_URL/CATALOG_SCHEMA_VERSION`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CatalogOptions {
    /// Every file request.
    pub files: EndpointOptions,
    /// Directory served. Default `fixtures/catalogs`.
    pub root: PathBuf,
    /// URL path prefix, no trailing slash. Default `/catalogs/v8`.
    pub prefix: String,
    /// Send only the first half of each file while announcing its whole
    /// length (`Content-Length`): the connection ends mid-body, as a
    /// dropped download does. Default false.
    pub truncate: bool,
    /// What every file request gets instead of its file. Default: the file.
    pub misbehave: Misbehave,
}

/// A catalog host answering what no catalog host should (on top of the
/// [`Fault`]s every endpoint has).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Misbehave {
    /// Serve the file (the default).
    #[default]
    None,
    /// `302` to the same path with `?r=N+1`: a redirect loop.
    RedirectLoop,
    /// `304 Not Modified` to every request, conditional or not.
    NotModified,
    /// `200` with an HTML login page (a captive portal), whatever the path.
    CaptivePortal,
    /// `200` with `Content-Encoding: gzip` and a small gzip stream that
    /// inflates to 1 GB of zeros (a gzip bomb).
    GzipBomb,
}

impl Default for CatalogOptions {
    fn default() -> Self {
        CatalogOptions {
            files: EndpointOptions::default(),
            root: fixtures::fixtures_dir().join("catalogs"),
            prefix: "/catalogs/v8".into(),
            truncate: false,
            misbehave: Misbehave::None,
        }
    }
}

impl CatalogOptions {
    /// Sets the latency of file requests.
    pub fn latency(mut self, latency: Latency) -> Self {
        self.files.latency = latency;
        self
    }

    /// Sets the fault of file requests.
    pub fn fault(mut self, fault: Fault) -> Self {
        self.files.fault = fault;
        self
    }

    /// Sets the served directory.
    pub fn root(mut self, root: impl Into<PathBuf>) -> Self {
        self.root = root.into();
        self
    }

    /// Sets the URL prefix.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Cuts every body short (see [`CatalogOptions::truncate`]).
    pub fn truncate(mut self, truncate: bool) -> Self {
        self.truncate = truncate;
        self
    }

    /// Answers every file request with `misbehave` instead of its file.
    pub fn misbehave(mut self, misbehave: Misbehave) -> Self {
        self.misbehave = misbehave;
        self
    }

    /// Starts the server.
    pub async fn start(self) -> Result<CatalogServer, MockError> {
        CatalogServer::start_with(self, Instant::now(), 0, "catalog").await
    }
}

fn mime_for(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("csv") => "text/csv",
        Some("json") => "application/json",
        Some("yaml" | "yml") => "application/yaml",
        Some("txt") => "text/plain",
        _ => "application/octet-stream",
    }
}

/// What a misbehaving host answers (`None`: serve the file).
fn misbehaving(
    misbehave: Misbehave,
    request: &wiremock::Request,
    bomb: &[u8],
) -> Option<(u16, ResponseTemplate)> {
    Some(match misbehave {
        Misbehave::None => return None,
        Misbehave::RedirectLoop => {
            let n: u64 = request
                .url
                .query_pairs()
                .find(|(k, _)| k == "r")
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(0);
            let location = format!("{}?r={}", request.url.path(), n + 1);
            (
                302,
                ResponseTemplate::new(302).insert_header("Location", location.as_str()),
            )
        }
        Misbehave::NotModified => (304, ResponseTemplate::new(304)),
        Misbehave::CaptivePortal => (
            200,
            ResponseTemplate::new(200).set_body_raw(
                "<!DOCTYPE html><html><head><title>Sign in to Hotel-WiFi</title></head>\n<body><form action=\"/login\"><input name=\"room\"></form></body></html>\n",
                "text/html",
            ),
        ),
        Misbehave::GzipBomb => (
            200,
            ResponseTemplate::new(200)
                .insert_header("Content-Encoding", "gzip")
                .set_body_raw(bomb.to_vec(), "text/csv"),
        ),
    })
}

/// How many zeros a [`Misbehave::GzipBomb`] body inflates to: 1 GB.
pub const GZIP_BOMB_INFLATED: u64 = 1 << 30;

/// A gzip member whose deflate stream (fixed Huffman codes: a literal 0,
/// then back-references of 258 bytes at distance 1) inflates to
/// [`GZIP_BOMB_INFLATED`] zeros from about 6.5 MB. The trailer's CRC is left
/// zero: a client that inflates has taken the whole gigabyte before it
/// could notice.
fn gzip_bomb() -> Vec<u8> {
    struct Bits {
        out: Vec<u8>,
        acc: u64,
        n: u32,
    }
    impl Bits {
        /// `len` bits of `value`, least significant first (deflate's order).
        fn put(&mut self, value: u64, len: u32) {
            self.acc |= value << self.n;
            self.n += len;
            while self.n >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.n -= 8;
            }
        }
        /// A Huffman code, most significant bit first.
        fn code(&mut self, code: u64, len: u32) {
            let reversed = (0..len).fold(0, |r, i| (r << 1) | ((code >> i) & 1));
            self.put(reversed, len);
        }
    }
    let mut bits = Bits {
        out: vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff],
        acc: 0,
        n: 0,
    };
    bits.put(1, 1); // BFINAL
    bits.put(1, 2); // BTYPE = fixed Huffman
    bits.code(0b0011_0000, 8); // literal 0
    let repeats = (GZIP_BOMB_INFLATED - 1) / 258;
    for _ in 0..repeats {
        bits.code(0b1100_0101, 8); // length 258 (code 285)
        bits.code(0, 5); // distance 1 (code 0)
    }
    let rest = GZIP_BOMB_INFLATED - 1 - repeats * 258;
    for _ in 0..rest {
        bits.code(0b0011_0000, 8);
    }
    bits.code(0, 7); // end of block
    bits.put(0, 7); // pad to a byte
    let mut out = bits.out;
    out.extend_from_slice(&0u32.to_le_bytes()); // CRC32 (left zero)
    out.extend_from_slice(&(GZIP_BOMB_INFLATED as u32).to_le_bytes()); // ISIZE mod 2^32
    out
}

/// The entity tag of `bytes`: a 64-bit FNV-1a digest (stable across runs).
pub fn etag_of(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("\"{h:016x}\"")
}

/// One file's answer: 304 when the request's `If-None-Match` names its
/// current tag (or, without one, its `If-Modified-Since` is not older than
/// the file), else the file.
fn serve_file(request: &wiremock::Request, file: &Path, bytes: Vec<u8>) -> (u16, ResponseTemplate) {
    let etag = etag_of(&bytes);
    let modified = std::fs::metadata(file).and_then(|m| m.modified()).ok();
    let header = |name: &str| {
        request
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let unchanged = match (header("if-none-match"), header("if-modified-since")) {
        (Some(tags), _) => tags.split(',').any(|t| t.trim() == etag || t.trim() == "*"),
        (None, Some(since)) => match (httpdate::parse_http_date(&since), modified) {
            // HTTP dates have whole seconds.
            (Ok(since), Some(m)) => m.duration_since(since).map_or(true, |d| d.as_secs() == 0),
            _ => false,
        },
        (None, None) => false,
    };
    let mut tpl = if unchanged {
        ResponseTemplate::new(304)
    } else {
        ResponseTemplate::new(200).set_body_raw(bytes, mime_for(file))
    };
    tpl = tpl.insert_header("etag", etag.as_str());
    if let Some(m) = modified {
        tpl = tpl.insert_header("last-modified", httpdate::fmt_http_date(m).as_str());
    }
    (if unchanged { 304 } else { 200 }, tpl)
}

/// Serves a directory tree of catalog files on 127.0.0.1.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), mocks::MockError> {
/// let catalogs = mocks::CatalogServer::builder().root(std::env::temp_dir()).start().await?;
/// assert!(catalogs.url().ends_with("/catalogs/v8"));
/// # Ok(()) }
/// ```
pub struct CatalogServer {
    served: Served,
    files: Recorder,
    prefix: String,
    /// The front that cuts bodies short ([`CatalogOptions::truncate`]).
    cutter: Option<Cutter>,
}

/// A TCP front that forwards each request to the server (which answers it
/// whole: latency, recording, headers) and passes on the answer's head with
/// only the first half of its body, then closes: the client sees a
/// `Content-Length` promise broken mid-body. (hyper, under wiremock, refuses
/// to send a body shorter than its length itself.)
struct Cutter {
    addr: std::net::SocketAddr,
    // Dropping the sender stops the accept loop and the front's runtime.
    _shutdown: tokio::sync::oneshot::Sender<()>,
}

impl Cutter {
    fn start(upstream: std::net::SocketAddr) -> Result<Cutter, MockError> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(MockError::Listen)?;
        listener.set_nonblocking(true).map_err(MockError::Listen)?;
        let addr = listener.local_addr().map_err(MockError::Listen)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(MockError::Listen)?;
        let (tx, mut rx) = tokio::sync::oneshot::channel::<()>();
        std::thread::Builder::new()
            .name(format!("mocks-cutter-{}", addr.port()))
            .spawn(move || {
                runtime.block_on(async move {
                    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                        return;
                    };
                    loop {
                        tokio::select! {
                            _ = &mut rx => break,
                            accepted = listener.accept() => match accepted {
                                Ok((stream, _)) => {
                                    tokio::spawn(cut(stream, upstream));
                                }
                                Err(_) => tokio::time::sleep(std::time::Duration::from_millis(10)).await,
                            },
                        }
                    }
                })
            })
            .map_err(MockError::Listen)?;
        Ok(Cutter {
            addr,
            _shutdown: tx,
        })
    }
}

/// One request through the [`Cutter`].
async fn cut(mut client: tokio::net::TcpStream, upstream: std::net::SocketAddr) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut head = Vec::new();
    let mut chunk = [0u8; 4096];
    let end = loop {
        match client.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&chunk[..n]),
        }
        if let Some(i) = head.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        if head.len() > 64 * 1024 {
            return;
        }
    };
    // Every request on its own connection, so the answer ends with it.
    let text = String::from_utf8_lossy(&head[..end]).into_owned();
    let mut request = String::new();
    for line in text.split("\r\n") {
        let name = line.split(':').next().unwrap_or_default().trim();
        if !name.eq_ignore_ascii_case("connection") {
            request.push_str(line);
            request.push_str("\r\n");
        }
    }
    request.push_str("Connection: close\r\n\r\n");
    let Ok(mut server) = tokio::net::TcpStream::connect(upstream).await else {
        return;
    };
    let mut answer = Vec::new();
    if server.write_all(request.as_bytes()).await.is_err()
        || server.read_to_end(&mut answer).await.is_err()
    {
        return;
    }
    let Some(split) = answer.windows(4).position(|w| w == b"\r\n\r\n") else {
        return;
    };
    let body = &answer[split + 4..];
    let _ = client.write_all(&answer[..split + 4]).await;
    let _ = client.write_all(&body[..body.len() / 2]).await;
    let _ = client.shutdown().await;
}

impl CatalogServer {
    /// Default options, to be adjusted and then `.start()`ed.
    pub fn builder() -> CatalogOptions {
        CatalogOptions::default()
    }

    pub(crate) async fn start_with(
        opts: CatalogOptions,
        origin: Instant,
        base_seed: u64,
        name: &str,
    ) -> Result<CatalogServer, MockError> {
        let prefix = opts.prefix.trim_end_matches('/').to_owned();
        if !prefix.is_empty() && !prefix.starts_with('/') {
            return Err(MockError::InvalidOption(format!(
                "catalog prefix `{prefix}` must start with `/`"
            )));
        }
        let state = EndpointState::new(name, &opts.files, base_seed, origin, Flavor::Text)?;
        let files = state.recorder.clone();
        let dir_prefix = format!("{prefix}/");
        let matcher_prefix = dir_prefix.clone();
        let path: PathPred = Arc::new(move |p: &str| p.starts_with(&matcher_prefix));
        let root = opts.root.clone();
        let misbehave = opts.misbehave;
        let bomb = Arc::new(match misbehave {
            Misbehave::GzipBomb => gzip_bomb(),
            _ => Vec::new(),
        });
        let ok: OkFn = Arc::new(move |request| {
            if let Some(answer) = misbehaving(misbehave, request, &bomb) {
                return answer;
            }
            let rel = request
                .url
                .path()
                .strip_prefix(&dir_prefix)
                .unwrap_or_default();
            let rel = Path::new(rel);
            let inside = rel.components().all(|c| matches!(c, Component::Normal(_)));
            let file = root.join(rel);
            match std::fs::read(&file) {
                Ok(bytes) if inside => serve_file(request, &file, bytes),
                _ => (
                    404,
                    ResponseTemplate::new(404).set_body_raw("not found\n", "text/plain"),
                ),
            }
        });
        let served = Served::start(vec![Route {
            method: "GET",
            path,
            body_contains: None,
            state,
            ok,
            expect: opts.files.expect,
        }])
        .await?;
        let cutter = if opts.truncate {
            let upstream = served.uri();
            let addr = upstream
                .trim_start_matches("http://")
                .parse()
                .map_err(|e| {
                    MockError::InvalidOption(format!("catalog address {upstream}: {e}"))
                })?;
            Some(Cutter::start(addr)?)
        } else {
            None
        };
        Ok(CatalogServer {
            served,
            files,
            prefix,
            cutter,
        })
    }

    /// Base URL, `http://127.0.0.1:PORT`.
    pub fn uri(&self) -> String {
        match &self.cutter {
            Some(c) => format!("http://{}", c.addr),
            None => self.served.uri(),
        }
    }

    /// `<uri><prefix>`, the directory URL files are fetched under.
    pub fn url(&self) -> String {
        format!("{}{}", self.uri(), self.prefix)
    }

    /// What SkyPilot's `HOSTED_CATALOG_DIR_URL` stands for: [`url`](Self::url)
    /// without its last segment (the schema version, `v8` by default), so
    /// that `<hosted_url>/v8/aws/vms.csv` is served.
    pub fn hosted_url(&self) -> String {
        let url = self.url();
        match url.rfind('/') {
            Some(i) if i > self.uri().len() => url[..i].to_string(),
            _ => url,
        }
    }

    /// The file request log.
    pub fn files(&self) -> &Recorder {
        &self.files
    }

    /// Snapshots of every endpoint's log.
    pub fn recordings(&self) -> Vec<Recording> {
        vec![self.files.recording()]
    }

    /// The underlying wiremock server.
    pub fn server(&self) -> &MockServer {
        self.served.server()
    }
}
