//! The bare client `kube-floor` (`src/bin/kube-floor.rs`) against mocks:
//! it lists every context's nodes once and nothing else, fails when one
//! answers an error, and sends the node-list request `sky` sends.

use std::process::Output;

use benches::process::kube_floor;
use mocks::{MockSet, MocksSpec};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The built binary (cargo builds it for this test).
const EXE: &str = env!("CARGO_BIN_EXE_kube-floor");

/// Runs `kube-floor` with nothing in its environment but `env`.
async fn run(env: &[(&str, &std::path::Path)]) -> Output {
    let mut c = tokio::process::Command::new(EXE);
    c.env_clear();
    for (k, v) in env {
        c.env(k, v);
    }
    c.output()
        .await
        .unwrap_or_else(|e| panic!("running {EXE}: {e}"))
}

/// 64 contexts answering at once, plus `extra` TOML under `[kube]`.
async fn mocks(extra: &str) -> MockSet {
    let spec: MocksSpec = toml::from_str(&format!("[kube]\ncontexts = 64\n{extra}"))
        .unwrap_or_else(|e| panic!("{e}"));
    MockSet::start(&spec)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

#[tokio::test]
async fn lists_the_nodes_of_64_contexts_once_each() {
    let set = mocks("").await;
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let kubeconfig = set
        .write_kubeconfig(dir.path())
        .unwrap_or_else(|e| panic!("{e}"));
    let out = run(&[("KUBECONFIG", kubeconfig.as_path())]).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    kube_floor::verify(&stdout, 64).unwrap_or_else(|e| panic!("{e:#}"));
    assert_eq!(set.kube.len(), 64);
    for context in &set.kube {
        let m = &context.mock;
        assert_eq!(m.nodes().recording().count(), 1, "{}", context.name);
        assert_eq!(m.version().recording().count(), 0, "{}", context.name);
        assert_eq!(m.pods().recording().count(), 0, "{}", context.name);
    }
}

#[tokio::test]
async fn fails_when_a_context_answers_500() {
    // mock-7 leaves the fleet for wiremock (a fault), so its server URL has
    // a path (`/ctx/7`) while the other 63 have none: both are read.
    let set =
        mocks("[kube.overrides.mock-7]\nnodes = { fault = { kind = \"status\", status = 500 } }\n")
            .await;
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let kubeconfig = set
        .write_kubeconfig(dir.path())
        .unwrap_or_else(|e| panic!("{e}"));
    let out = run(&[("KUBECONFIG", kubeconfig.as_path())]).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(stderr.contains("1 of 64 listing(s) failed"), "{stderr}");
    assert!(stderr.contains("context `mock-7`"), "{stderr}");
    assert!(stderr.contains("500"), "{stderr}");
    // Every context was still asked once.
    let asked = set
        .kube
        .iter()
        .filter(|c| c.mock.nodes().recording().count() == 1)
        .count();
    assert_eq!(asked, 64);
}

#[tokio::test]
async fn fails_without_a_kubeconfig() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = run(&[("HOME", dir.path())]).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(".kube/config"), "{stderr}");
}

/// The request line and headers as a server reads them: kube's list
/// request of `/api/v1/nodes` with `limit=500` (what `sky`'s `list_page`
/// sends) under the server URL's path, with the user's bearer token.
#[tokio::test]
async fn sends_the_node_list_request_sky_sends() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let addr = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
    let server = tokio::spawn(async move {
        let (mut conn, _) = listener.accept().await.unwrap_or_else(|e| panic!("{e}"));
        let mut head = Vec::new();
        let mut buf = [0u8; 1024];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = conn.read(&mut buf).await.unwrap_or_else(|e| panic!("{e}"));
            assert!(n > 0, "closed before the request head ended");
            head.extend_from_slice(&buf[..n]);
        }
        let body = br#"{"kind":"NodeList","metadata":{"continue":""},"items":[]}"#;
        let answer = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        conn.write_all(answer.as_bytes())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        conn.write_all(body).await.unwrap_or_else(|e| panic!("{e}"));
        String::from_utf8_lossy(&head).into_owned()
    });
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let server_url = format!("http://{addr}/ctx/3");
    let kubeconfig = mocks::write_kubeconfig(dir.path(), &[("mock-3", server_url.as_str())])
        .unwrap_or_else(|e| panic!("{e}"));
    let out = run(&[("KUBECONFIG", kubeconfig.as_path())]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    kube_floor::verify(&String::from_utf8_lossy(&out.stdout), 1)
        .unwrap_or_else(|e| panic!("{e:#}"));
    let head = server.await.unwrap_or_else(|e| panic!("{e}"));
    let list = kube::core::Request::new("/api/v1/nodes")
        .list(&kube::api::ListParams::default().limit(500))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut lines = head.lines();
    assert_eq!(
        lines.next(),
        Some(format!("GET /ctx/3{} HTTP/1.1", list.uri()).as_str())
    );
    let mut headers: Vec<String> = lines
        .filter(|l| !l.is_empty())
        .map(|l| l.to_ascii_lowercase())
        .collect();
    headers.sort();
    assert_eq!(
        headers,
        [
            "authorization: bearer mock-token-mock-3".to_string(),
            format!("host: {addr}"),
        ]
    );
}
