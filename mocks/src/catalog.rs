//! A static file server for catalog CSVs.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use wiremock::{MockServer, ResponseTemplate};

use crate::endpoint::{EndpointState, Flavor, OkFn, PathPred, Route, Served};
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
}

impl Default for CatalogOptions {
    fn default() -> Self {
        CatalogOptions {
            files: EndpointOptions::default(),
            root: fixtures::fixtures_dir().join("catalogs"),
            prefix: "/catalogs/v8".into(),
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
        let ok: OkFn = Arc::new(move |request| {
            let rel = request
                .url
                .path()
                .strip_prefix(&dir_prefix)
                .unwrap_or_default();
            let rel = Path::new(rel);
            let inside = rel.components().all(|c| matches!(c, Component::Normal(_)));
            let file = root.join(rel);
            match std::fs::read(&file) {
                Ok(bytes) if inside => (
                    200,
                    ResponseTemplate::new(200).set_body_raw(bytes, mime_for(&file)),
                ),
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
        Ok(CatalogServer {
            served,
            files,
            prefix,
        })
    }

    /// Base URL, `http://127.0.0.1:PORT`.
    pub fn uri(&self) -> String {
        self.served.uri()
    }

    /// `<uri><prefix>`, the directory URL files are fetched under.
    pub fn url(&self) -> String {
        format!("{}{}", self.uri(), self.prefix)
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
