//! The way to each context's API server: kube's own request layers (base
//! URI, authentication, extra headers), kube's connector (TLS, timeouts),
//! and one HTTP/1 connection per client.
//!
//! `kube::Client::try_from(Config)` builds, for every client, a rustls
//! configuration (with its session cache), an HTTPS connector, a hyper
//! client with its own connection pool, a tracing layer and a tower
//! `Buffer` whose worker is a spawned task that every request and answer
//! passes through. With 64 contexts that is 64 of each, built on the one
//! runtime thread before the first request leaves, and two task hand-offs
//! per answer. Here the contexts that reach their servers the same way (the
//! same CA, client certificate, server name and timeouts) share one
//! connector. Everything that decides what is sent stays kube's: the layers
//! come from [`ConfigExt`] (`base_uri_layer`, `auth_layer`,
//! `extra_headers_layer`), the TLS setup from
//! `ConfigExt::rustls_https_connector_with_connector`, and the connector is
//! wrapped as kube wraps it (`kube_client::client::builder::make_generic_builder`).
//!
//! Below the layers, a client sends its requests over a connection of its
//! own (`hyper::client::conn::http1`), as hyper-util's legacy client (kube's)
//! sends an HTTP/1 request: the `Host` header, the origin-form target, the
//! handshake, the wait for the connection to be ready, a request retried on
//! a new connection when a reused one closed before it went out, and its
//! errors (`client error (Connect)`, `client error (SendRequest)`, ...).
//! What it leaves out is the pool: with 64 contexts the legacy client's
//! checkout, connecting lock, lazy connect and pool bookkeeping cost ~2.8 ms
//! before the last request left (measured against a bare `http1` client on
//! the same mocks). A client's connection outlives it: dropped, it goes to
//! the [`Transports`]' idle connections, for the next client of the same
//! server and connector (the pod listing after the node listing).
//!
//! The TCP connections themselves can be opened before any client exists
//! ([`Transports::connect_early`]): the listing opens one per context whose
//! server is an IP address, all in one go, and the connector hands each to
//! the first client that connects to that address. Opening 64 sockets one
//! after the other costs what the kernel's handshakes cost (~35 µs each on
//! loopback); opened one per context between building its client and
//! request, the same connects took ~100 µs each (the network stack and the
//! client's code evicting each other from the caches), and the last
//! request left ~2.5 ms later. A connection that failed is reported as
//! hyper's connector reports a failed connect (`tcp connect error` over the
//! I/O error), and the listing's next attempt connects anew.
//!
//! What kube's stack had that this one leaves out: the tracing layer, whose
//! `ERROR failed with status 503 ...` lines reached the terminal for every
//! failed attempt on top of the one warning line per unreachable context,
//! and the retry layer, which kube's `Config::default_retry` turns on and
//! the listing already turned off (it retries as SkyPilot does).

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http::Uri;
use http::header::{HOST, HeaderValue};
use http::uri::{Authority, Scheme};
use http::{Request, Response};
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use hyper_timeout::TimeoutConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioIo;
use kube::client::{Body, ConfigExt};
use tokio::net::{TcpSocket, TcpStream};
use tower::util::BoxService;
use tower::{BoxError, Service, ServiceBuilder, ServiceExt};

/// kube's connector: HTTP or HTTPS (rustls) with the connection's timeouts
/// (those the kube `Config` sets), over [`EarlyConnector`].
type Connector = TimeoutConnector<hyper_rustls::HttpsConnector<EarlyConnector>>;

/// The connectors of one launch, one per way of reaching a server, and the
/// connections its clients left open.
///
/// Lives as long as the adapter that made it (so the node and pod listings
/// of one context share their connection too) and, in `sky launch`, until
/// the table is printed (held by the write-behind). Clones share it all.
#[derive(Clone, Default)]
pub(super) struct Transports {
    /// Each TLS setup's connector, and the number that tells its idle
    /// connections from another setup's.
    shared: Arc<Mutex<HashMap<TlsKey, (usize, Connector)>>>,
    /// Connections whose client is gone, ready for the next request to the
    /// same server through the same setup.
    idle: IdleConnections,
    /// Connections opened by [`Transports::connect_early`] that no client
    /// has taken yet.
    early: EarlyConnections,
}

impl std::fmt::Debug for Transports {
    // The keys hold client-key data: never shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let setups = self.shared.lock().map(|m| m.len()).unwrap_or(0);
        f.debug_struct("Transports")
            .field("setups", &setups)
            .field("early", &self.early.len())
            .finish()
    }
}

/// A TCP connection on its way up: the connect call was made, the
/// handshake may still be running.
type Connecting = Pin<Box<dyn Future<Output = std::io::Result<TcpStream>> + Send>>;

/// The connections opened to one address, oldest first, each with its batch.
type EarlyQueue = VecDeque<(u64, Connecting)>;

/// Connections opened ahead of their clients, by server address, oldest
/// first (the likeliest to be up), each with the [`EarlyBatch`] that opened
/// it; each is taken at most once.
#[derive(Clone, Default)]
struct EarlyConnections {
    waiting: Arc<Mutex<HashMap<SocketAddr, EarlyQueue>>>,
    batches: Arc<std::sync::atomic::AtomicU64>,
}

impl EarlyConnections {
    /// The oldest connection opened to `addr` that no client took.
    fn take(&self, addr: SocketAddr) -> Option<Connecting> {
        let mut map = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        let waiting = map.get_mut(&addr)?;
        let connecting = waiting.pop_front().map(|(_, c)| c);
        if waiting.is_empty() {
            map.remove(&addr);
        }
        connecting
    }

    /// Closes (drops) the untaken connections of `batch`.
    fn close(&self, batch: u64) {
        let mut map = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        map.retain(|_, waiting| {
            waiting.retain(|(b, _)| *b != batch);
            !waiting.is_empty()
        });
    }

    /// How many wait to be taken.
    fn len(&self) -> usize {
        let map = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        map.values().map(VecDeque::len).sum()
    }
}

/// The connections one [`Transports::connect_early`] call opened: those no
/// client took are closed when it is dropped (the listing done, or dropped
/// at its deadline), and only those (another listing's stay).
#[must_use = "the early connections are closed when this is dropped"]
pub(super) struct EarlyBatch {
    id: u64,
    early: EarlyConnections,
}

impl Drop for EarlyBatch {
    fn drop(&mut self) {
        self.early.close(self.id);
    }
}

/// How long a connection may wait idle for another client: hyper-util's
/// legacy pool's default idle timeout.
const IDLE_TIMEOUT: Duration = Duration::from_secs(90);

/// One context's client.
pub(super) enum ApiClient {
    /// kube's layers, then a connection of its own.
    Layered(DirectClient),
    /// A cluster behind a `proxy-url`: kube's own client, so that the
    /// answer (kube is built without its proxy features) is kube's.
    Kube(kube::Client),
}

/// kube's layers over a service that hands back the request they made:
/// what the layers make of a request is what is sent. (The layers take an
/// `http::Response` from below; the request comes back as its body.)
type Layers = BoxService<Request<Body>, Response<Request<Body>>, BoxError>;

/// A server, as reached through one TLS setup (`None`: a setup of one
/// client's own): where an idle connection can serve another client.
#[derive(Clone, PartialEq, Eq, Hash)]
struct ServerKey {
    setup: Option<usize>,
    scheme: Scheme,
    authority: Authority,
}

/// Open connections whose client was dropped, by server, each with when it
/// became idle.
#[derive(Clone, Default)]
struct IdleConnections(Arc<Mutex<HashMap<ServerKey, Vec<IdleSince>>>>);

/// An idle connection and when it became idle.
type IdleSince = (Instant, SendRequest<Body>);

impl IdleConnections {
    /// The most recently idle connection to `key` that is still open and
    /// idle for less than [`IDLE_TIMEOUT`]; the closed and the stale ones
    /// met on the way are dropped.
    fn take(&self, key: &ServerKey) -> Option<SendRequest<Body>> {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let idle = map.get_mut(key)?;
        let mut found = None;
        while let Some((since, sender)) = idle.pop() {
            if !sender.is_closed() && since.elapsed() < IDLE_TIMEOUT {
                found = Some(sender);
                break;
            }
        }
        if idle.is_empty() {
            map.remove(key);
        }
        found
    }

    /// Keeps `sender` for the next client of `key`.
    fn put(&self, key: ServerKey, sender: SendRequest<Body>) {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        map.entry(key).or_default().push((Instant::now(), sender));
    }
}

/// A client's connection and the server it is to.
struct Open {
    server: ServerKey,
    sender: SendRequest<Body>,
}

/// kube's layers, then one HTTP/1 connection (see the module docs).
pub(super) struct DirectClient {
    layers: Layers,
    connector: Connector,
    /// The setup the connector is; `None`: its connections serve this
    /// client only (a TLS identity from an exec plugin or auth provider).
    setup: Option<usize>,
    idle: IdleConnections,
    open: Option<Open>,
}

impl Drop for DirectClient {
    fn drop(&mut self) {
        if let Some(open) = self.open.take()
            && open.server.setup.is_some()
            && !open.sender.is_closed()
        {
            self.idle.put(open.server, open.sender);
        }
    }
}

/// The answer to one request, whichever client sent it.
pub(super) enum ApiResponse {
    Layered(Response<Incoming>),
    Kube(Response<Body>),
}

impl ApiResponse {
    /// The status and headers of the answer.
    pub(super) fn head(&self) -> (http::StatusCode, &http::HeaderMap) {
        match self {
            ApiResponse::Layered(r) => (r.status(), r.headers()),
            ApiResponse::Kube(r) => (r.status(), r.headers()),
        }
    }
}

/// What decides how a connection to a server is made, apart from the
/// server: two contexts with equal keys share a connector, and a
/// connection one leaves idle can serve the other.
/// Holds client-key data when a kubeconfig inlines one; it never leaves
/// memory (the map is the launch's, dropped with it).
#[derive(PartialEq, Eq, Hash)]
struct TlsKey {
    root_cert: Option<Vec<Vec<u8>>>,
    root_cert_file: Option<PathBuf>,
    accept_invalid_certs: bool,
    tls_server_name: Option<String>,
    client_certificate: Option<String>,
    client_certificate_data: Option<String>,
    client_key: Option<String>,
    client_key_data: Option<String>,
    connect_timeout: Option<Duration>,
    read_timeout: Option<Duration>,
    write_timeout: Option<Duration>,
    reset_reader_on_write: bool,
}

impl TlsKey {
    /// The key of `config`, or `None` when its TLS identity can come from an
    /// exec plugin or auth provider (kube's `exec_identity_pem` runs the
    /// plugin): such a context gets a connector, and connections, of its own.
    fn of(config: &kube::Config) -> Option<TlsKey> {
        use secrecy::ExposeSecret as _;
        let auth = &config.auth_info;
        if auth.exec.is_some() || auth.auth_provider.is_some() {
            return None;
        }
        Some(TlsKey {
            root_cert: config.root_cert.clone(),
            root_cert_file: config.root_cert_file.clone(),
            accept_invalid_certs: config.accept_invalid_certs,
            tls_server_name: config.tls_server_name.clone(),
            client_certificate: auth.client_certificate.clone(),
            client_certificate_data: auth.client_certificate_data.clone(),
            client_key: auth.client_key.clone(),
            client_key_data: auth
                .client_key_data
                .as_ref()
                .map(|k| k.expose_secret().to_string()),
            connect_timeout: config.connect_timeout,
            read_timeout: config.read_timeout,
            write_timeout: config.write_timeout,
            reset_reader_on_write: config.reset_reader_on_write,
        })
    }
}

impl Transports {
    /// How many connections wait idle for another client (closed ones
    /// included until met).
    #[cfg(test)]
    pub(super) fn idle_len(&self) -> usize {
        let map = self.idle.0.lock().unwrap_or_else(|e| e.into_inner());
        map.values().map(Vec::len).sum()
    }

    /// Opens one TCP connection to each of `servers` (an address listed
    /// twice gets two), for the clients built next to take: the `connect`
    /// calls are made here, one after the other, and the handshakes finish
    /// while the clients are built. The connections no client took are
    /// closed when the returned batch is dropped. An address whose connect
    /// fails at once gets nothing (its client connects, and reports, on its
    /// own); outside a Tokio runtime nothing is opened.
    pub(super) fn connect_early(
        &self,
        servers: impl IntoIterator<Item = SocketAddr>,
    ) -> EarlyBatch {
        let id = self
            .early
            .batches
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let batch = EarlyBatch {
            id,
            early: self.early.clone(),
        };
        // The sockets are registered with the current runtime.
        if tokio::runtime::Handle::try_current().is_err() {
            return batch;
        }
        let mut opened: Vec<(SocketAddr, Connecting)> = Vec::new();
        for addr in servers {
            let socket = match addr.ip() {
                IpAddr::V4(_) => TcpSocket::new_v4(),
                IpAddr::V6(_) => TcpSocket::new_v6(),
            };
            let Ok(socket) = socket else { continue };
            let mut connecting: Connecting = Box::pin(socket.connect(addr));
            // The first poll makes the `connect` call and registers the
            // socket with the runtime (readiness is recorded whatever waker
            // is registered); the waker that will matter is the one of the
            // client's connector, which polls it next.
            let mut cx = Context::from_waker(std::task::Waker::noop());
            match connecting.as_mut().poll(&mut cx) {
                Poll::Pending => opened.push((addr, connecting)),
                Poll::Ready(Ok(stream)) => {
                    opened.push((addr, Box::pin(std::future::ready(Ok(stream)))))
                }
                Poll::Ready(Err(e)) => {
                    tracing::debug!(%addr, error = %e, "early connect failed");
                }
            }
        }
        let mut map = self.early.waiting.lock().unwrap_or_else(|e| e.into_inner());
        for (addr, connecting) in opened {
            map.entry(addr).or_default().push_back((id, connecting));
        }
        batch
    }

    /// The client of `config`, built as kube builds one (the same checks, in
    /// the same order, with the same errors), its connector (and the
    /// connections left idle) shared with earlier contexts of the same
    /// [`TlsKey`]. Runs an exec plugin or auth
    /// provider when `config` has one: call it off the runtime thread then.
    pub(super) fn client(&self, config: kube::Config) -> Result<ApiClient, kube::Error> {
        if config.proxy_url.is_some() {
            return kube::Client::try_from(config).map(ApiClient::Kube);
        }
        // kube's `make_generic_builder`: the auth layer first, then the
        // connector, then the extra headers.
        let auth = config.auth_layer()?;
        let (setup, connector) = match TlsKey::of(&config) {
            Some(key) => {
                let mut shared = self.shared.lock().unwrap_or_else(|e| e.into_inner());
                let setups = shared.len();
                match shared.get(&key) {
                    Some((setup, connector)) => (Some(*setup), connector.clone()),
                    None => {
                        let connector = connector_of(&config, &self.early)?;
                        shared.insert(key, (setups, connector.clone()));
                        (Some(setups), connector)
                    }
                }
            }
            None => (None, connector_of(&config, &self.early)?),
        };
        let layers = ServiceBuilder::new()
            .layer(config.base_uri_layer())
            .option_layer(auth)
            .layer(config.extra_headers_layer()?)
            .map_err(BoxError::from)
            .service(tower::service_fn(|request: Request<Body>| {
                std::future::ready(Ok::<_, BoxError>(Response::new(request)))
            }));
        Ok(ApiClient::Layered(DirectClient {
            layers: BoxService::new(layers),
            connector,
            setup,
            idle: self.idle.clone(),
            open: None,
        }))
    }
}

/// kube's connector for `config` (`make_generic_builder`, without a
/// proxy), taking `early` connections where there are any.
fn connector_of(config: &kube::Config, early: &EarlyConnections) -> Result<Connector, kube::Error> {
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    let connector = EarlyConnector {
        http,
        early: early.clone(),
    };
    let https = config.rustls_https_connector_with_connector(connector)?;
    let mut connector = TimeoutConnector::new(https);
    connector.set_connect_timeout(config.connect_timeout);
    connector.set_read_timeout(config.read_timeout);
    connector.set_write_timeout(config.write_timeout);
    connector.set_reset_reader_on_write(config.reset_reader_on_write);
    Ok(connector)
}

/// hyper's `HttpConnector`, except that a connection opened early to the
/// address it is asked for is used instead of a new one. Below TLS: an
/// `https` server's handshake runs over the early connection as over any.
#[derive(Clone)]
pub(super) struct EarlyConnector {
    http: HttpConnector,
    early: EarlyConnections,
}

/// What [`EarlyConnector`] connects to: a TCP stream, or why not.
type Connected = Pin<Box<dyn Future<Output = Result<TokioIo<TcpStream>, BoxError>> + Send>>;

impl Service<Uri> for EarlyConnector {
    type Response = TokioIo<TcpStream>;
    type Error = BoxError;
    type Future = Connected;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.http.poll_ready(cx).map_err(BoxError::from)
    }

    fn call(&mut self, uri: Uri) -> Connected {
        let early = literal_addr(&uri).and_then(|addr| self.early.take(addr));
        let Some(connecting) = early else {
            let connecting = self.http.call(uri);
            return Box::pin(async move { connecting.await.map_err(BoxError::from) });
        };
        Box::pin(async move {
            connecting
                .await
                .map(TokioIo::new)
                // Not connected again (a second attempt at a server that
                // refused or is unreachable would double the wait): the
                // error is said as hyper's connector says it.
                .map_err(|cause| BoxError::from(TcpConnectError(cause)))
        })
    }
}

/// A failed early connection, as hyper-util's `HttpConnector` reports a
/// failed connect (`ConnectError`: `tcp connect error` over the I/O error).
#[derive(Debug)]
struct TcpConnectError(std::io::Error);

impl std::fmt::Display for TcpConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("tcp connect error")
    }
}

impl std::error::Error for TcpConnectError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// The socket address of an `http` or `https` `uri` whose host is an IP
/// address (no name to resolve): the port it gives, else the scheme's
/// (hyper's `get_host_port`).
pub(super) fn literal_addr(uri: &Uri) -> Option<SocketAddr> {
    let default_port = match uri.scheme_str()? {
        "https" => 443,
        "http" => 80,
        _ => return None,
    };
    let host = uri.host()?;
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    let ip: IpAddr = host.parse().ok()?;
    Some(SocketAddr::new(ip, uri.port_u16().unwrap_or(default_port)))
}

impl ApiClient {
    /// Sends `request`; errors are kube's, as `kube::Client::send` makes them.
    pub(super) async fn send(
        &mut self,
        request: Request<Body>,
    ) -> Result<ApiResponse, kube::Error> {
        match self {
            ApiClient::Kube(client) => client.send(request).await.map(ApiResponse::Kube),
            ApiClient::Layered(client) => {
                // As `kube::Client::send`: a layer not ready is a
                // `Service` error; a failed call is read by `kube_error`.
                let request = client
                    .layers
                    .ready()
                    .await
                    .map_err(kube::Error::Service)?
                    .call(request)
                    .await
                    .map_err(kube_error)?
                    .into_body();
                let response = client.send(request).await.map_err(kube_error)?;
                Ok(ApiResponse::Layered(response))
            }
        }
    }
}

impl DirectClient {
    /// Sends a request the layers made, as hyper-util's legacy
    /// `Client::send_request` sends one over HTTP/1.
    async fn send(&mut self, mut request: Request<Body>) -> Result<Response<Incoming>, BoxError> {
        let uri = request.uri();
        let (Some(scheme), Some(authority)) = (uri.scheme(), uri.authority()) else {
            return Err(ClientError::new("UserAbsoluteUriRequired", None).into());
        };
        let server = ServerKey {
            setup: self.setup,
            scheme: scheme.clone(),
            authority: authority.clone(),
        };
        if !request.headers().contains_key(HOST) {
            let host = host_header(request.uri())?;
            request.headers_mut().insert(HOST, host);
        }
        origin_form(request.uri_mut());
        loop {
            let (mut sender, reused) = self.connection_to(&server).await?;
            match sender.try_send_request(request).await {
                Ok(response) => {
                    self.open = Some(Open { server, sender });
                    return Ok(response);
                }
                Err(mut failed) => match failed.take_message() {
                    // A reused connection closed before the request went
                    // out: again, on a new one.
                    Some(unsent) if reused => request = unsent,
                    Some(_) => {
                        return Err(
                            ClientError::new("Canceled", Some(failed.into_error().into())).into(),
                        );
                    }
                    None => {
                        return Err(ClientError::new(
                            "SendRequest",
                            Some(failed.into_error().into()),
                        )
                        .into());
                    }
                },
            }
        }
    }

    /// A connection to `server` ready for a request, and whether it was
    /// used before: this client's own, an idle one, else a new one.
    async fn connection_to(
        &mut self,
        server: &ServerKey,
    ) -> Result<(SendRequest<Body>, bool), BoxError> {
        let own = self.open.take().filter(|open| open.server == *server);
        let shared = server.setup.is_some();
        let mut reusable = own.map(|open| open.sender);
        loop {
            let candidate = match reusable.take() {
                Some(sender) => Some(sender),
                None if shared => self.idle.take(server),
                None => None,
            };
            let Some(mut sender) = candidate else { break };
            if sender.ready().await.is_ok() {
                return Ok((sender, true));
            }
        }
        let dst = Uri::builder()
            .scheme(server.scheme.clone())
            .authority(server.authority.clone())
            .path_and_query("/")
            .build()
            .map_err(|e| ClientError::new("Connect", Some(e.into())))?;
        let io = self
            .connector
            .ready()
            .await
            .map_err(|e| ClientError::new("Connect", Some(e)))?
            .call(dst)
            .await
            .map_err(|e| ClientError::new("Connect", Some(e)))?;
        let (mut sender, connection) = hyper::client::conn::http1::Builder::new()
            .handshake(io)
            .await
            .map_err(|e| ClientError::new("SendRequest", Some(e.into())))?;
        // The connection is driven by a task of its own (the answer's body
        // is read after `send` returns); what ended it is kept for the
        // readiness error below, as the legacy client keeps it.
        let (ended_tx, ended_rx) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            if let Err(e) = connection.with_upgrades().await {
                tracing::debug!(error = %e, "API server connection ended");
                let _ = ended_tx.send(e);
            }
        });
        match sender.ready().await {
            Ok(()) => Ok((sender, false)),
            Err(e) if e.is_closed() => {
                let why = ended_rx.await.unwrap_or(e);
                Err(ClientError::new("SendRequest", Some(why.into())).into())
            }
            Err(e) => Err(ClientError::new("SendRequest", Some(e.into())).into()),
        }
    }
}

/// The `Host` header for `uri`: its host, and its port when it is not the
/// scheme's (hyper-util's `set_host`).
fn host_header(uri: &Uri) -> Result<HeaderValue, BoxError> {
    let host = uri.host().unwrap_or_default();
    let secure = matches!(uri.scheme_str(), Some("https" | "wss"));
    let value = match (uri.port_u16(), secure) {
        (Some(443), true) | (Some(80), false) | (None, _) => HeaderValue::from_str(host),
        (Some(port), _) => HeaderValue::from_str(&format!("{host}:{port}")),
    };
    value.map_err(BoxError::from)
}

/// The request target an HTTP/1 request is sent with: the path and query
/// (hyper-util's `origin_form`).
fn origin_form(uri: &mut Uri) {
    *uri = match uri.path_and_query() {
        Some(path) if path.as_str() != "/" => {
            let mut parts = http::uri::Parts::default();
            parts.path_and_query = Some(path.clone());
            Uri::from_parts(parts).unwrap_or_default()
        }
        _ => Uri::default(),
    };
}

/// hyper-util's legacy client error, which is what kube's client reports
/// under `ServiceError`: `client error (Kind)` over its cause.
#[derive(Debug)]
struct ClientError {
    kind: &'static str,
    source: Option<BoxError>,
}

impl ClientError {
    /// An error of `kind` (the legacy client's `ErrorKind` name) over `source`.
    fn new(kind: &'static str, source: Option<BoxError>) -> ClientError {
        ClientError { kind, source }
    }
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "client error ({})", self.kind)
    }
}

impl std::error::Error for ClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as _)
    }
}

/// kube's reading of a service error (`kube::Client::send`): an error a
/// layer made is kube's, a hyper error is `HyperError`, the rest `Service`.
fn kube_error(err: BoxError) -> kube::Error {
    err.downcast::<kube::Error>()
        .map(|e| *e)
        .or_else(|err| {
            err.downcast::<hyper::Error>()
                .map(|e| kube::Error::HyperError(*e))
        })
        .unwrap_or_else(kube::Error::Service)
}
