//! The transport against kube's own client, request for request: for each
//! kubeconfig (plain HTTP and TLS, tokens, basic auth, token files,
//! impersonation, CAs inline and on disk, a wrong CA, `insecure-skip-tls-verify`,
//! `tls-server-name`, client certificates required, given and missing, a
//! proxy, a refused port, a server that never answers) a request sent
//! through [`Transports`] must reach the server with the same head and come
//! back with the same status and body, or fail with the same error text, as
//! the same request sent through `kube::Client::try_from`; and so must the
//! same request over a connection opened early
//! ([`Transports::connect_early`]), which must be the only connection made.
//! Contexts that reach their servers differently never share a connector;
//! a connection a client leaves is reused by the next client of the same
//! server and connector, and one the server closed meanwhile is not.
//!
//! The test PKI is `fixtures/kube/tls/` (made by its `gen.sh`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig};
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;

use super::transport::{ApiResponse, Transports};

fn tls_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/kube/tls")
}

fn pem(name: &str) -> String {
    std::fs::read_to_string(tls_dir().join(name)).expect("test PKI file")
}

fn b64(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(text)
}

/// How the test API server takes connections.
#[derive(Clone, Copy, PartialEq)]
enum Listen {
    Plain,
    Tls,
    /// TLS, and a client certificate signed by the test CA is required.
    TlsClientCert,
    /// Accepts and reads, never answers.
    Silent,
    /// Plain; keeps its connections open after answering until told to
    /// close them all ([`ApiServer::close_all`]), without saying so (no
    /// `connection: close`).
    CloseWhenTold,
}

/// A test API server: answers every request with a small NodeList and
/// records each request's head (request line and headers, lower-cased
/// names, sorted).
struct ApiServer {
    port: u16,
    heads: Arc<Mutex<Vec<String>>>,
    connections: Arc<std::sync::atomic::AtomicUsize>,
    /// Connections that ended (the client closed, or the server did).
    ended: Arc<std::sync::atomic::AtomicUsize>,
    /// Told, a `CloseWhenTold` server closes every open connection.
    close: Arc<tokio::sync::Notify>,
}

const BODY: &str = r#"{"kind":"NodeList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"n1","labels":{"nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3"}},"status":{"capacity":{"cpu":"8","memory":"32Gi","nvidia.com/gpu":"8"},"allocatable":{"cpu":"8","memory":"32Gi","nvidia.com/gpu":"8"},"conditions":[{"type":"Ready","status":"True"}]}}]}"#;

fn server_tls(client_cert: bool) -> tokio_rustls::TlsAcceptor {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let certs: Vec<CertificateDer<'static>> =
        CertificateDer::pem_file_iter(tls_dir().join("server.crt"))
            .expect("server.crt")
            .collect::<Result<_, _>>()
            .expect("server.crt");
    let key = PrivateKeyDer::from_pem_file(tls_dir().join("server.key")).expect("server.key");
    let builder = rustls::ServerConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .expect("protocols");
    let config = if client_cert {
        let mut roots = rustls::RootCertStore::empty();
        for ca in CertificateDer::pem_file_iter(tls_dir().join("ca.crt")).expect("ca.crt") {
            roots.add(ca.expect("ca.crt")).expect("ca.crt");
        }
        let verifier =
            rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .expect("client verifier");
        builder
            .with_client_cert_verifier(verifier)
            .with_single_cert(certs, key)
    } else {
        builder.with_no_client_auth().with_single_cert(certs, key)
    };
    tokio_rustls::TlsAcceptor::from(Arc::new(config.expect("server config")))
}

impl ApiServer {
    async fn start(listen: Listen) -> ApiServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let heads = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let acceptor = match listen {
            Listen::Tls => Some(server_tls(false)),
            Listen::TlsClientCert => Some(server_tls(true)),
            Listen::Plain | Listen::Silent | Listen::CloseWhenTold => None,
        };
        let close = Arc::new(tokio::sync::Notify::new());
        let closing = Arc::clone(&close);
        let ended = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (recorded, counted, ends) = (
            Arc::clone(&heads),
            Arc::clone(&connections),
            Arc::clone(&ended),
        );
        tokio::spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    return;
                };
                counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let heads = Arc::clone(&recorded);
                let acceptor = acceptor.clone();
                let ends = Arc::clone(&ends);
                let close = Arc::clone(&closing);
                tokio::spawn(async move {
                    match acceptor {
                        Some(acceptor) => {
                            if let Ok(tls) = acceptor.accept(tcp).await {
                                serve(tls, heads, listen, close).await;
                            }
                        }
                        None => serve(tcp, heads, listen, close).await,
                    }
                    ends.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                });
            }
        });
        ApiServer {
            port,
            heads,
            connections,
            ended,
            close,
        }
    }

    /// Waits (up to 5 s) until `n` connections have ended.
    async fn wait_ended(&self, n: usize) {
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while self.ended() < n && std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Closes every connection of a `CloseWhenTold` server.
    fn close_all(&self) {
        self.close.notify_waiters();
    }

    fn connections(&self) -> usize {
        self.connections.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn ended(&self) -> usize {
        self.ended.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn addr(&self) -> std::net::SocketAddr {
        std::net::SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }
}

/// Reads requests off one connection and answers each (keep-alive).
async fn serve<S: AsyncRead + AsyncWrite + Unpin>(
    mut io: S,
    heads: Arc<Mutex<Vec<String>>>,
    listen: Listen,
    close: Arc<tokio::sync::Notify>,
) {
    let mut buf = Vec::new();
    loop {
        let mut chunk = [0u8; 4096];
        let end = loop {
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break end;
            }
            let read = tokio::select! {
                read = io.read(&mut chunk) => read,
                () = close.notified(), if listen == Listen::CloseWhenTold => return,
            };
            match read {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buf[..end]).into_owned();
        buf.drain(..end + 4);
        let mut lines = head.split("\r\n");
        let mut normalised = vec![lines.next().unwrap_or_default().to_string()];
        let mut headers: Vec<String> = lines
            .map(|l| match l.split_once(':') {
                Some((k, v)) => format!("{}: {}", k.to_ascii_lowercase(), v.trim()),
                None => l.to_string(),
            })
            .collect();
        headers.sort();
        normalised.extend(headers);
        heads.lock().unwrap().push(normalised.join("\n"));
        if listen == Listen::Silent {
            std::future::pending::<()>().await;
        }
        let answer = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{BODY}",
            BODY.len()
        );
        if io.write_all(answer.as_bytes()).await.is_err() {
            return;
        }
    }
}

/// A kubeconfig whose one context reaches `server` over plain HTTP with a token.
fn plain_kubeconfig(server: &ApiServer) -> Kubeconfig {
    kubeconfig(&format!("server: http://{}", server.addr()), "token: t")
}

/// The address in the `server:` line of a test cluster, when its host is
/// an IP address (the listing opens no early connection to a name).
fn server_line_addr(cluster: &str) -> Option<std::net::SocketAddr> {
    let url = cluster
        .lines()
        .find_map(|l| l.strip_prefix("server: "))
        .expect("a server line");
    super::transport::literal_addr(&url.parse().expect("server URL"))
}

/// A kubeconfig of one context `c` whose cluster is `cluster` (YAML lines
/// under `cluster:`) and whose user is `user` (lines under `user:`).
fn kubeconfig(cluster: &str, user: &str) -> Kubeconfig {
    let indent = |block: &str, by: &str| {
        block
            .lines()
            .map(|l| format!("{by}{l}\n"))
            .collect::<String>()
    };
    let yaml = format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: k\n  cluster:\n{}contexts:\n- name: c\n  context:\n    cluster: k\n    user: u\nusers:\n- name: u\n  user:\n{}",
        indent(cluster, "    "),
        if user.is_empty() {
            "    {}\n".to_string()
        } else {
            indent(user, "    ")
        },
    );
    Kubeconfig::from_yaml(&yaml).expect("test kubeconfig")
}

/// `kubeconfig`'s `kube::Config` as the listing makes it (`client_for`:
/// no connection timeouts — each attempt is bounded as a whole, here by
/// [`bounded`] —, no retries, empty roots for plain HTTP).
async fn config_of(kubeconfig: Kubeconfig) -> kube::Config {
    let options = KubeConfigOptions {
        context: Some("c".into()),
        ..Default::default()
    };
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .expect("config");
    if config.cluster_url.scheme_str() == Some("http") && config.root_cert.is_none() {
        config.root_cert = Some(Vec::new());
    }
    config.connect_timeout = None;
    config.read_timeout = None;
    config.write_timeout = None;
    config.default_retry = false;
    config
}

/// `work` within `timeout`, as the listing bounds an attempt.
async fn bounded(timeout: Duration, work: impl Future<Output = String>) -> String {
    tokio::time::timeout(timeout, work)
        .await
        .unwrap_or_else(|_| "timed out".to_string())
}

fn list_request() -> http::Request<kube::client::Body> {
    let params = kube::api::ListParams::default().limit(500);
    kube::core::Request::new("/api/v1/nodes")
        .list(&params)
        .expect("request")
        .map(kube::client::Body::from)
}

/// What one request came to: the status and body, or the error's text
/// (its whole chain, as the listing reports it); a client that cannot be
/// built says so.
async fn through_transport(transports: &Transports, config: kube::Config) -> String {
    let mut client = match transports.client(config) {
        Ok(c) => c,
        Err(e) => return format!("build: {}", crate::clouds::error_chain(&e)),
    };
    match client.send(list_request()).await {
        Err(e) => format!("send: {}", crate::clouds::error_chain(&e)),
        Ok(ApiResponse::Layered(r)) => {
            let status = r.status();
            let body = crate::clouds::http::read_capped(r.into_body(), 1 << 20).await;
            format!("{status} {body:?}")
        }
        Ok(ApiResponse::Kube(r)) => {
            let status = r.status();
            let body = crate::clouds::http::read_capped(r.into_body(), 1 << 20).await;
            format!("{status} {body:?}")
        }
    }
}

async fn through_kube(config: kube::Config) -> String {
    let client = match kube::Client::try_from(config) {
        Ok(c) => c,
        Err(e) => return format!("build: {}", crate::clouds::error_chain(&e)),
    };
    match client.send(list_request()).await {
        Err(e) => format!("send: {}", crate::clouds::error_chain(&e)),
        Ok(r) => {
            let status = r.status();
            let body = crate::clouds::http::read_capped(r.into_body(), 1 << 20).await;
            format!("{status} {body:?}")
        }
    }
}

struct Case {
    name: &'static str,
    listen: Listen,
    /// Cluster lines; `{url}` is the server's address, `{port}` its port.
    cluster: String,
    user: String,
    /// Whether the request must succeed (so that a case cannot pass by
    /// both clients failing the same way where success is the point).
    ok: bool,
}

/// A local port nothing listens on: bound, read and let go.
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

fn cases(dir: &Path) -> Vec<Case> {
    let ca = b64(&pem("ca.crt"));
    let other_ca = b64(&pem("other-ca.crt"));
    let client_cert = b64(&pem("client.crt"));
    let client_key = b64(&pem("client.key"));
    let token_file = dir.join("token");
    std::fs::write(&token_file, "file-token").expect("token file");
    // kube reads a token file as it is: a final newline is not a valid
    // header value (the same failure both ways).
    let plugin = dir.join("exec-plugin.sh");
    std::fs::write(
        &plugin,
        "#!/bin/sh\nprintf '%s' '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"exec-token\"}}'\n",
    )
    .expect("plugin");
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&plugin, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    }
    let exec_user = format!(
        "exec:\n  apiVersion: client.authentication.k8s.io/v1beta1\n  command: {}\n  interactiveMode: Never",
        plugin.display()
    );
    let token_line = dir.join("token-line");
    std::fs::write(&token_line, "file-token\n").expect("token file");
    let case = |name, listen, cluster: String, user: &str, ok| Case {
        name,
        listen,
        cluster,
        user: user.to_string(),
        ok,
    };
    vec![
        case(
            "plain, no user",
            Listen::Plain,
            "server: http://127.0.0.1:{port}".into(),
            "",
            true,
        ),
        case(
            "plain, token",
            Listen::Plain,
            "server: http://127.0.0.1:{port}".into(),
            "token: secret-token",
            true,
        ),
        case(
            "plain, basic auth",
            Listen::Plain,
            "server: http://127.0.0.1:{port}".into(),
            "username: admin\npassword: hunter2",
            true,
        ),
        case(
            "plain, token file",
            Listen::Plain,
            "server: http://127.0.0.1:{port}".into(),
            &format!("tokenFile: {}", token_file.display()),
            true,
        ),
        case(
            "plain, token file ending in a newline",
            Listen::Plain,
            "server: http://127.0.0.1:{port}".into(),
            &format!("tokenFile: {}", token_line.display()),
            false,
        ),
        case(
            "plain, impersonation",
            Listen::Plain,
            "server: http://127.0.0.1:{port}".into(),
            "token: t\nas: someone\nas-groups:\n- g1\n- g2\nas-uid: \"42\"",
            true,
        ),
        case(
            "plain, an exec plugin's token",
            Listen::Plain,
            "server: http://127.0.0.1:{port}".into(),
            &exec_user,
            true,
        ),
        case(
            "TLS, an exec plugin's token",
            Listen::Tls,
            format!("server: https://127.0.0.1:{{port}}\ncertificate-authority-data: {ca}"),
            &exec_user,
            true,
        ),
        case(
            "plain, a path under the server",
            Listen::Plain,
            "server: http://127.0.0.1:{port}/prefix/".into(),
            "token: t",
            true,
        ),
        case(
            "TLS, CA inline",
            Listen::Tls,
            format!("server: https://127.0.0.1:{{port}}\ncertificate-authority-data: {ca}"),
            "token: t",
            true,
        ),
        case(
            "TLS, CA on disk",
            Listen::Tls,
            format!(
                "server: https://localhost:{{port}}\ncertificate-authority: {}",
                tls_dir().join("ca.crt").display()
            ),
            "token: t",
            true,
        ),
        case(
            "TLS, another CA",
            Listen::Tls,
            format!("server: https://127.0.0.1:{{port}}\ncertificate-authority-data: {other_ca}"),
            "token: t",
            false,
        ),
        case(
            "TLS, no CA (platform roots)",
            Listen::Tls,
            "server: https://127.0.0.1:{port}".into(),
            "token: t",
            false,
        ),
        case(
            "TLS, verification off",
            Listen::Tls,
            "server: https://127.0.0.1:{port}\ninsecure-skip-tls-verify: true".into(),
            "token: t",
            true,
        ),
        case(
            "TLS, tls-server-name",
            Listen::Tls,
            format!(
                "server: https://127.0.0.1:{{port}}\ncertificate-authority-data: {ca}\ntls-server-name: kube.test"
            ),
            "token: t",
            true,
        ),
        case(
            "TLS, a tls-server-name the certificate lacks",
            Listen::Tls,
            format!(
                "server: https://127.0.0.1:{{port}}\ncertificate-authority-data: {ca}\ntls-server-name: elsewhere.test"
            ),
            "token: t",
            false,
        ),
        case(
            "TLS, client certificate inline",
            Listen::TlsClientCert,
            format!("server: https://127.0.0.1:{{port}}\ncertificate-authority-data: {ca}"),
            &format!("client-certificate-data: {client_cert}\nclient-key-data: {client_key}"),
            true,
        ),
        case(
            "TLS, client certificate on disk",
            Listen::TlsClientCert,
            format!("server: https://127.0.0.1:{{port}}\ncertificate-authority-data: {ca}"),
            &format!(
                "client-certificate: {}\nclient-key: {}",
                tls_dir().join("client.crt").display(),
                tls_dir().join("client.key").display()
            ),
            true,
        ),
        case(
            "TLS, client certificate required, none given",
            Listen::TlsClientCert,
            format!("server: https://127.0.0.1:{{port}}\ncertificate-authority-data: {ca}"),
            "token: t",
            false,
        ),
        case(
            "TLS, a client key that is not PEM",
            Listen::Tls,
            format!("server: https://127.0.0.1:{{port}}\ncertificate-authority-data: {ca}"),
            &format!(
                "client-certificate-data: {client_cert}\nclient-key-data: {}",
                b64("not a key")
            ),
            false,
        ),
        case(
            "plain, behind a proxy",
            Listen::Plain,
            "server: http://127.0.0.1:{port}\nproxy-url: http://127.0.0.1:9".into(),
            "token: t",
            false,
        ),
        case(
            "TLS server, plain client",
            Listen::Tls,
            "server: http://127.0.0.1:{port}".into(),
            "token: t",
            false,
        ),
        case(
            "a refused port",
            Listen::Plain,
            // The discard port: nothing listens there on a test machine.
            format!("server: http://127.0.0.1:{}", closed_port()),
            "token: t",
            false,
        ),
        case(
            "no answer",
            Listen::Silent,
            "server: http://127.0.0.1:{port}".into(),
            "token: t",
            false,
        ),
    ]
}

#[tokio::test(flavor = "current_thread")]
async fn every_request_is_what_kubes_client_sends_and_gets() {
    // kube's rustls stack asks for the process default provider when one
    // is installed; the listing never installs one, and nor does this test.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut failures = Vec::new();
    for case in cases(dir.path()) {
        let server = ApiServer::start(case.listen).await;
        let cluster = case.cluster.replace("{port}", &server.port.to_string());
        let timeout = if case.listen == Listen::Silent {
            Duration::from_millis(300)
        } else {
            Duration::from_secs(5)
        };
        let kubeconfig = kubeconfig(&cluster, &case.user);
        let ours = bounded(
            timeout,
            through_transport(&Transports::default(), config_of(kubeconfig.clone()).await),
        )
        .await;
        let ours_heads = server.heads();
        // The same request over a connection opened before the client, to
        // the server the cluster names.
        let early = Transports::default();
        let early_addr = server_line_addr(&cluster);
        let batch = early.connect_early(early_addr);
        let connections_before = server.connections();
        let ours_early = bounded(
            timeout,
            through_transport(&early, config_of(kubeconfig.clone()).await),
        )
        .await;
        drop(batch);
        let early_connections = server.connections() - connections_before;
        let early_heads: Vec<String> = server.heads()[ours_heads.len()..].to_vec();
        let seen = ours_heads.len() + early_heads.len();
        let theirs = bounded(timeout, through_kube(config_of(kubeconfig).await)).await;
        let theirs_heads: Vec<String> = server.heads()[seen..].to_vec();
        for (way, outcome, heads) in [
            ("ours", &ours, &ours_heads),
            ("ours, connected early", &ours_early, &early_heads),
        ] {
            if *outcome != theirs {
                failures.push(format!(
                    "{}: outcome differs\n  {way}:  {outcome}\n  kube's: {theirs}",
                    case.name
                ));
            }
            if *heads != theirs_heads {
                failures.push(format!(
                    "{}: request heads differ\n  {way}:  {heads:?}\n  kube's: {theirs_heads:?}",
                    case.name
                ));
            }
        }
        if early_addr.is_some() && ours_early.starts_with("200 ") && early_connections != 1 {
            failures.push(format!(
                "{}: connected early, the server saw {early_connections} connections, not 1",
                case.name
            ));
        }
        let succeeded = ours.starts_with("200 ");
        if succeeded != case.ok {
            failures.push(format!(
                "{}: expected {}, got {ours}",
                case.name,
                if case.ok { "success" } else { "a failure" }
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test(flavor = "current_thread")]
async fn contexts_share_a_pool_only_when_they_connect_the_same_way() {
    let server = ApiServer::start(Listen::Tls).await;
    let ca = b64(&pem("ca.crt"));
    let other_ca = b64(&pem("other-ca.crt"));
    let url = format!("https://127.0.0.1:{}", server.port);
    let transports = Transports::default();
    let trusted = || {
        kubeconfig(
            &format!("server: {url}\ncertificate-authority-data: {ca}"),
            "token: a",
        )
    };
    // Two contexts with the same CA (different tokens): one connection,
    // reused by the second.
    let first = through_transport(&transports, config_of(trusted()).await).await;
    let same_way = kubeconfig(
        &format!("server: {url}\ncertificate-authority-data: {ca}"),
        "token: b",
    );
    let second = through_transport(&transports, config_of(same_way).await).await;
    assert!(
        first.starts_with("200 ") && second.starts_with("200 "),
        "{first}\n{second}"
    );
    assert_eq!(server.connections(), 1);
    let heads = server.heads();
    assert!(heads[0].contains("authorization: Bearer a"), "{heads:?}");
    assert!(heads[1].contains("authorization: Bearer b"), "{heads:?}");
    // A context that does not trust the server's CA must not ride on the
    // trusted one's connection or connector.
    let distrusting = kubeconfig(
        &format!("server: {url}\ncertificate-authority-data: {other_ca}"),
        "token: c",
    );
    let third = through_transport(&transports, config_of(distrusting).await).await;
    assert!(third.starts_with("send: "), "{third}");
    assert_eq!(
        server.heads().len(),
        2,
        "the distrusting context reached the server"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn early_connections_are_taken_once_and_the_rest_closed() {
    let server = ApiServer::start(Listen::Plain).await;
    let transports = Transports::default();
    // Two opened for one server: the first client takes one, the other
    // stays unused until the listing closes it.
    let batch = transports.connect_early([server.addr(), server.addr()]);
    let config = || config_of(plain_kubeconfig(&server));
    let first = through_transport(&transports, config().await).await;
    assert!(first.starts_with("200 "), "{first}");
    assert_eq!(
        server.connections(),
        2,
        "both early connections reached the server"
    );
    assert_eq!(server.heads().len(), 1);
    drop(batch);
    server.wait_ended(1).await;
    assert_eq!(
        server.ended(),
        1,
        "the unused early connection was not closed"
    );
    // The next client reuses the first one's connection (left idle), and
    // opens nothing.
    let second = through_transport(&transports, config().await).await;
    assert!(second.starts_with("200 "), "{second}");
    assert_eq!(server.connections(), 2);
    assert_eq!(server.heads().len(), 2);
}

#[tokio::test(flavor = "current_thread")]
async fn a_connection_the_server_closed_is_not_reused() {
    let server = ApiServer::start(Listen::CloseWhenTold).await;
    let transports = Transports::default();
    let config = || config_of(plain_kubeconfig(&server));
    let first = through_transport(&transports, config().await).await;
    assert!(first.starts_with("200 "), "{first}");
    assert_eq!(
        transports.idle_len(),
        1,
        "the first client's connection was not left idle"
    );
    // The server closes it without saying so; the next request must still
    // be answered, over a new connection.
    server.close_all();
    server.wait_ended(1).await;
    assert_eq!(server.ended(), 1);
    let second = through_transport(&transports, config().await).await;
    assert!(second.starts_with("200 "), "{second}");
    assert_eq!(server.connections(), 2);
    assert_eq!(server.heads().len(), 2);
}

#[test]
fn only_ip_servers_reached_directly_get_an_early_connection() {
    let cases: &[(&str, &str, Option<&str>)] = &[
        (
            "server: http://10.1.2.3:6443",
            "token: t",
            Some("10.1.2.3:6443"),
        ),
        ("server: https://10.1.2.3", "token: t", Some("10.1.2.3:443")),
        ("server: http://10.1.2.3", "token: t", Some("10.1.2.3:80")),
        (
            "server: https://10.1.2.3:6443/k8s/clusters/c",
            "token: t",
            Some("10.1.2.3:6443"),
        ),
        (
            "server: https://[2001:db8::1]:6443",
            "token: t",
            Some("[2001:db8::1]:6443"),
        ),
        (
            "server: https://[2001:db8::1]",
            "",
            Some("[2001:db8::1]:443"),
        ),
        ("server: https://kube.example.com:6443", "token: t", None),
        ("server: https://localhost", "token: t", None),
        ("server: ftp://10.1.2.3:21", "token: t", None),
        (
            "server: http://10.1.2.3:6443\nproxy-url: http://10.9.9.9:3128",
            "token: t",
            None,
        ),
        (
            "server: https://10.1.2.3:6443",
            "exec:\n  apiVersion: client.authentication.k8s.io/v1beta1\n  command: aws",
            None,
        ),
        (
            "server: https://10.1.2.3:6443",
            "auth-provider:\n  name: gcp",
            None,
        ),
    ];
    for (cluster, user, expected) in cases {
        let kubeconfig = kubeconfig(cluster, user);
        let found = super::kubeconfig::direct_addr(&kubeconfig, "c");
        let expected = expected.map(|a| a.parse::<std::net::SocketAddr>().expect("address"));
        assert_eq!(found, expected, "{cluster} / {user}");
    }
    // A context that is not in the kubeconfig has no server.
    let kubeconfig = kubeconfig("server: http://10.1.2.3", "token: t");
    assert_eq!(super::kubeconfig::direct_addr(&kubeconfig, "other"), None);
}
