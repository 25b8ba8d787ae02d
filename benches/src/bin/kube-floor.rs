//! `kube-floor`: the bare-client floor of `process/kubernetes/64-contexts-50ms`
//! (its row is `process/floor/kube-64-bare`, `benches/src/process/kube_floor.rs`).
//!
//! The least any client must do for `sky launch --dryrun --refresh` over the
//! kubeconfig's contexts, and nothing more:
//!
//! 1. read the kubeconfig (`KUBECONFIG`, a `:`-separated list, else
//!    `$HOME/.kube/config`) with a line scan, not a YAML parser: for every
//!    context its cluster's `server` and its user's bearer `token`, nothing
//!    else (every context is listed, as `allowed_contexts: all` asks);
//! 2. open one connection per context (plain TCP: the mocks are HTTP), as
//!    separate API servers need, on a current-thread tokio runtime with
//!    hyper's HTTP/1 client connection;
//! 3. send each server the node-list GET `sky` sends
//!    (`optimizer/src/clouds/kubernetes/listing.rs`, `list_page`: kube's
//!    `Request::list` of `/api/v1/nodes` with `limit=500`, the server URL's
//!    path as prefix, `Authorization: Bearer <token>`, `Host` as hyper's
//!    pooled client sets it), all 64 at once;
//! 4. read every body to its end, and exit 0 after printing one line
//!    ([`summary`]).
//!
//! No JSON is parsed: this is the transport floor. The only look inside a
//! body is for a `continue` token, because `sky` would then request a next
//! page the floor does not: a paged answer fails the run instead of making
//! the floor look cheaper than the work. So do a status other than 2xx, a
//! connection error, a kubeconfig the scan cannot read (flow style, a user
//! with anything but a token, an `https` server or a proxy: TLS and
//! authentication plugins are not part of this floor) and no answer within
//! [`DEADLINE`]: the process then exits 1 with the reason on stderr, so a
//! broken floor can never read as a fast one.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail, ensure};
use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper::header::{AUTHORIZATION, HOST};
use hyper::{Request, Uri};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

/// The request target `sky` lists nodes with: kube's `Request::list` of
/// `ListParams::default().limit(500)` (`listing.rs` `PAGE_LIMIT`), byte for
/// byte, the `&` kube's query serializer puts after the `?` included.
const NODES: &str = "/api/v1/nodes?&limit=500";

/// Every listing must have answered by then (the mocks answer in 50 ms); a
/// hung server fails the run instead of hanging the benchmark.
const DEADLINE: Duration = Duration::from_secs(30);

fn main() -> ExitCode {
    match run() {
        Ok(listed) => {
            println!("{}", summary(listed.contexts, listed.bytes));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("kube-floor: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The one line a successful run prints: `listed the nodes of N contexts (B bytes)`.
/// `benches::process::kube_floor::verify` reads it.
fn summary(contexts: usize, bytes: usize) -> String {
    format!("listed the nodes of {contexts} contexts ({bytes} bytes)")
}

/// What the run fetched.
struct Listed {
    contexts: usize,
    bytes: usize,
}

fn run() -> anyhow::Result<Listed> {
    let mut entries = Kubeconfig::default();
    for path in kubeconfig_paths()? {
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading the kubeconfig {}", path.display()))?;
        entries
            .scan(&text)
            .with_context(|| format!("scanning the kubeconfig {}", path.display()))?;
    }
    let targets = entries.targets()?;
    ensure!(!targets.is_empty(), "the kubeconfig has no context");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .context("starting the tokio runtime")?;
    runtime.block_on(async {
        let mut listings = tokio::task::JoinSet::new();
        for target in targets {
            listings.spawn(async move {
                let bytes = list_nodes(&target)
                    .await
                    .with_context(|| format!("context `{}` ({})", target.context, target.server));
                (target.context, bytes)
            });
        }
        let listed = async {
            let mut listed = Listed {
                contexts: 0,
                bytes: 0,
            };
            let mut failed = Vec::new();
            while let Some(done) = listings.join_next().await {
                match done.context("a listing task")? {
                    (_, Ok(bytes)) => {
                        listed.contexts += 1;
                        listed.bytes += bytes;
                    }
                    (_, Err(e)) => failed.push(format!("{e:#}")),
                }
            }
            if !failed.is_empty() {
                bail!(
                    "{} of {} listing(s) failed:\n  {}",
                    failed.len(),
                    failed.len() + listed.contexts,
                    failed.join("\n  ")
                );
            }
            Ok(listed)
        };
        tokio::time::timeout(DEADLINE, listed)
            .await
            .with_context(|| format!("the node lists did not all answer within {DEADLINE:?}"))?
    })
}

/// `KUBECONFIG`'s files (empty entries skipped, as kubectl skips them), or
/// `$HOME/.kube/config`.
fn kubeconfig_paths() -> anyhow::Result<Vec<PathBuf>> {
    if let Some(list) = std::env::var_os("KUBECONFIG") {
        let paths: Vec<PathBuf> = std::env::split_paths(&list)
            .filter(|p| !p.as_os_str().is_empty())
            .collect();
        if !paths.is_empty() {
            return Ok(paths);
        }
    }
    let home = std::env::var_os("HOME").context("neither KUBECONFIG nor HOME is set")?;
    Ok(vec![PathBuf::from(home).join(".kube/config")])
}

/// One context to list: where and as whom.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Target {
    /// The context's name (for messages).
    context: String,
    /// Its cluster's `server`, as written.
    server: String,
    /// `host:port` to connect to and send as `Host`.
    authority: String,
    /// The request target: the server's path, then [`NODES`].
    path: String,
    /// The user's bearer token, if it has one.
    token: Option<String>,
}

/// The node list of one context over a connection of its own; the body's
/// length once read to its end.
async fn list_nodes(target: &Target) -> anyhow::Result<usize> {
    let stream = TcpStream::connect(&target.authority)
        .await
        .with_context(|| format!("connecting to {}", target.authority))?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .context("the HTTP/1 handshake")?;
    let mut request = Request::get(target.path.as_str()).header(HOST, target.authority.as_str());
    if let Some(token) = &target.token {
        request = request.header(AUTHORIZATION, format!("Bearer {token}"));
    }
    let request = request
        .body(Empty::<Bytes>::new())
        .context("building the request")?;
    let fetch = async {
        let response = sender
            .send_request(request)
            .await
            .with_context(|| format!("GET {}", target.path))?;
        let status = response.status();
        let body = response
            .into_body()
            .collect()
            .await
            .with_context(|| format!("reading the body of GET {}", target.path))?
            .to_bytes();
        ensure!(
            status.is_success(),
            "GET {} answered {status}: {}",
            target.path,
            String::from_utf8_lossy(&body[..body.len().min(200)])
        );
        ensure!(
            !has_continue_token(&body),
            "GET {} answered a paged list (a `continue` token): `sky` would fetch the next \
             page, this floor does not",
            target.path
        );
        Ok(body.len())
    };
    // The connection is driven beside the request and dropped (closed) as
    // soon as the body is read: nothing else is sent on it.
    tokio::pin!(fetch, connection);
    tokio::select! {
        biased;
        fetched = &mut fetch => fetched,
        closed = &mut connection => match closed {
            Err(e) => Err(e).context("the connection failed"),
            // Closed by the server: the request's own error says how far it got.
            Ok(()) => fetch.await,
        },
    }
}

/// Whether a list's JSON carries a non-empty `"continue"` string (a next
/// page). A byte scan for the key, not a JSON parse.
fn has_continue_token(body: &[u8]) -> bool {
    const KEY: &[u8] = b"\"continue\"";
    let skip_space = |b: &[u8]| -> usize {
        b.iter()
            .take_while(|c| matches!(**c, b' ' | b'\t' | b'\r' | b'\n'))
            .count()
    };
    let mut rest = body;
    while let Some(at) = rest.windows(KEY.len()).position(|w| w == KEY) {
        rest = &rest[at + KEY.len()..];
        let mut value = &rest[skip_space(rest)..];
        if let Some(after_colon) = value.strip_prefix(b":") {
            value = &after_colon[skip_space(after_colon)..];
            if value.first() == Some(&b'"') && value.get(1).is_some_and(|c| *c != b'"') {
                return true;
            }
        }
    }
    false
}

/// A top-level list of the kubeconfig.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Clusters,
    Users,
    Contexts,
}

/// One item of a list: its `name` and the `key: value` lines beneath it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Item {
    name: Option<String>,
    fields: Vec<(String, String)>,
}

impl Item {
    fn field(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// The three lists of one or more kubeconfig files, in file order.
#[derive(Debug, Default)]
struct Kubeconfig {
    clusters: Vec<Item>,
    users: Vec<Item>,
    contexts: Vec<Item>,
}

impl Kubeconfig {
    /// Adds one file's `clusters`, `users` and `contexts`. Reads block-style
    /// YAML as kubectl and `mocks::write_kubeconfig` write it: top-level
    /// keys at column 0, list items `- ` at one indentation, the item's
    /// `name` at the item's indentation and the scalars of its `cluster:` /
    /// `user:` / `context:` mapping beneath; plain, `"…"` or `'…'` scalars.
    fn scan(&mut self, text: &str) -> anyhow::Result<()> {
        let mut section: Option<Section> = None;
        // The dash column of the current list, and the item being read with its column.
        let mut dash: Option<usize> = None;
        let mut item: Option<(usize, Item)> = None;
        for (n, line) in text.lines().enumerate() {
            let n = n + 1;
            let content = line.trim_start_matches(' ');
            if content.is_empty() || content.starts_with('#') || content == "---" {
                continue;
            }
            ensure!(
                !content.starts_with('\t'),
                "line {n}: a tab in the indentation"
            );
            let indent = line.len() - content.len();
            if indent == 0 && !content.starts_with('-') {
                self.push(section, item.take());
                dash = None;
                let (key, value) = key_value(content).with_context(|| format!("line {n}"))?;
                section = match key {
                    "clusters" => Some(Section::Clusters),
                    "users" => Some(Section::Users),
                    "contexts" => Some(Section::Contexts),
                    _ => None,
                };
                ensure!(
                    section.is_none() || value.is_empty() || value == "[]",
                    "line {n}: `{key}` in flow style (`{value}`) is not read by this scan"
                );
                continue;
            }
            if section.is_none() {
                continue;
            }
            let (column, rest) = match content.strip_prefix('-') {
                Some(rest)
                    if (rest.is_empty() || rest.starts_with(' '))
                        && dash.is_none_or(|d| d == indent) =>
                {
                    self.push(section, item.take());
                    dash = Some(indent);
                    let rest = rest.trim_start_matches(' ');
                    // `- key: …`: the item's keys line up with `key`.
                    let column = match rest.is_empty() {
                        true => indent + 2,
                        false => indent + content.len() - rest.len(),
                    };
                    item = Some((column, Item::default()));
                    (column, rest)
                }
                _ => (indent, content),
            };
            if rest.is_empty() || rest.starts_with('-') {
                // An item that opens on its own line, or a nested list entry.
                continue;
            }
            let Some((item_column, current)) = item.as_mut() else {
                bail!("line {n}: a key outside any list item");
            };
            let (key, value) = key_value(rest).with_context(|| format!("line {n}"))?;
            if column == *item_column && key == "name" {
                current.name = Some(value);
            } else if column > *item_column && !value.is_empty() {
                current.fields.push((key.to_string(), value));
            } else if column > *item_column && section == Some(Section::Users) {
                // A nested mapping under `user:` (exec, auth-provider): refused below.
                current.fields.push((key.to_string(), String::new()));
            }
        }
        self.push(section, item.take());
        Ok(())
    }

    fn push(&mut self, section: Option<Section>, item: Option<(usize, Item)>) {
        let Some((_, item)) = item else { return };
        match section {
            Some(Section::Clusters) => self.clusters.push(item),
            Some(Section::Users) => self.users.push(item),
            Some(Section::Contexts) => self.contexts.push(item),
            None => {}
        }
    }

    /// Every context (the first of a name, as kubectl merges files), with
    /// its cluster's server and user's token.
    fn targets(&self) -> anyhow::Result<Vec<Target>> {
        let named = |items: &[Item], name: &str| -> Option<Item> {
            items
                .iter()
                .find(|i| i.name.as_deref() == Some(name))
                .cloned()
        };
        let mut seen = std::collections::HashSet::new();
        let mut targets = Vec::new();
        for context in &self.contexts {
            let name = context
                .name
                .as_deref()
                .context("a context without a name")?;
            if !seen.insert(name) {
                continue;
            }
            let cluster_name = context
                .field("cluster")
                .with_context(|| format!("context `{name}` names no cluster"))?;
            let cluster = named(&self.clusters, cluster_name)
                .with_context(|| format!("context `{name}`: no cluster `{cluster_name}`"))?;
            if cluster.field("proxy-url").is_some() {
                bail!("cluster `{cluster_name}`: a proxy-url is not part of this floor");
            }
            let server = cluster
                .field("server")
                .with_context(|| format!("cluster `{cluster_name}` has no server"))?;
            let token = match context.field("user") {
                None => None,
                Some(user_name) => {
                    let user = named(&self.users, user_name)
                        .with_context(|| format!("context `{name}`: no user `{user_name}`"))?;
                    if let Some((key, _)) = user.fields.iter().find(|(k, _)| k != "token") {
                        bail!(
                            "user `{user_name}`: `{key}` is not part of this floor (bearer tokens only)"
                        );
                    }
                    user.field("token").map(str::to_string)
                }
            };
            let (authority, path) = split_server(server)
                .with_context(|| format!("cluster `{cluster_name}`: server `{server}`"))?;
            targets.push(Target {
                context: name.to_string(),
                server: server.to_string(),
                authority,
                path,
                token,
            });
        }
        Ok(targets)
    }
}

/// `http://host[:port][/prefix]` → (`host:port`, `/prefix/api/v1/nodes?&limit=500`).
fn split_server(server: &str) -> anyhow::Result<(String, String)> {
    let uri: Uri = server.parse().context("not a URL")?;
    match uri.scheme_str() {
        Some("http") => {}
        Some(other) => bail!("scheme `{other}`: only plain http is part of this floor"),
        None => bail!("no scheme"),
    }
    ensure!(uri.query().is_none(), "a query in a server URL");
    let authority = uri.authority().context("no host")?;
    let host_port = format!(
        "{}:{}",
        authority.host(),
        authority.port_u16().unwrap_or(80)
    );
    let prefix = uri.path().trim_end_matches('/');
    Ok((host_port, format!("{prefix}{NODES}")))
}

/// `key: value` (or `key:`) → the key and the unquoted value.
fn key_value(line: &str) -> anyhow::Result<(&str, String)> {
    let (key, value) = match line.split_once(": ") {
        Some((k, v)) => (k, v.trim()),
        None => match line.strip_suffix(':') {
            Some(k) => (k, ""),
            None => bail!("expected `key: value`, found `{line}`"),
        },
    };
    Ok((key.trim(), unquote(value)?))
}

/// A scalar's value: `"…"` (JSON-style escapes `\"` `\\` `\/`), `'…'`
/// (`''` for a quote), or plain (up to a ` #` comment).
fn unquote(value: &str) -> anyhow::Result<String> {
    if let Some(inner) = value.strip_prefix('"') {
        let mut out = String::with_capacity(inner.len());
        let mut chars = inner.chars();
        loop {
            match chars.next() {
                None => bail!("an unterminated \"…\" scalar"),
                Some('"') => return Ok(out),
                Some('\\') => match chars.next() {
                    Some(c @ ('"' | '\\' | '/')) => out.push(c),
                    other => bail!(
                        "the escape \\{} is not read by this scan",
                        other.unwrap_or(' ')
                    ),
                },
                Some(c) => out.push(c),
            }
        }
    }
    if let Some(inner) = value.strip_prefix('\'') {
        let mut out = String::with_capacity(inner.len());
        let mut chars = inner.chars().peekable();
        loop {
            match chars.next() {
                None => bail!("an unterminated '…' scalar"),
                Some('\'') if chars.peek() == Some(&'\'') => {
                    chars.next();
                    out.push('\'');
                }
                Some('\'') => return Ok(out),
                Some(c) => out.push(c),
            }
        }
    }
    let plain = value.split(" #").next().unwrap_or_default().trim_end();
    Ok(plain.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> anyhow::Result<Vec<Target>> {
        let mut k = Kubeconfig::default();
        k.scan(text)?;
        k.targets()
    }

    #[test]
    fn reads_the_mocks_kubeconfig() {
        let text = mocks::kubeconfig_yaml(&[
            ("mock-0", "http://127.0.0.1:4000"),
            ("mock-1", "http://127.0.0.1:4001/ctx/1/"),
        ]);
        let targets = scan(&text).unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(
            targets,
            [
                Target {
                    context: "mock-0".into(),
                    server: "http://127.0.0.1:4000".into(),
                    authority: "127.0.0.1:4000".into(),
                    path: "/api/v1/nodes?&limit=500".into(),
                    token: Some("mock-token-mock-0".into()),
                },
                Target {
                    context: "mock-1".into(),
                    server: "http://127.0.0.1:4001/ctx/1/".into(),
                    authority: "127.0.0.1:4001".into(),
                    path: "/ctx/1/api/v1/nodes?&limit=500".into(),
                    token: Some("mock-token-mock-1".into()),
                },
            ]
        );
        assert!(scan(&mocks::kubeconfig_yaml(&[])).unwrap().is_empty());
    }

    #[test]
    fn reads_kubectl_s_layout() {
        // kubectl writes keys in order, `name` after the mapping, items at column 0.
        let text = "apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: AAAA\n    server: http://10.0.0.1:8080\n  name: c1\ncontexts:\n- context:\n    cluster: c1\n    namespace: default\n    user: u1 # the admin\n  name: ctx-a\n- context:\n    cluster: c1\n  name: 'ctx-b'\ncurrent-context: ctx-a\nkind: Config\nusers:\n- name: u1\n  user:\n    token: 't''k'\n";
        let targets = scan(text).unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(targets.len(), 2);
        assert_eq!(targets[0].context, "ctx-a");
        assert_eq!(targets[0].authority, "10.0.0.1:8080");
        assert_eq!(targets[0].token.as_deref(), Some("t'k"));
        assert_eq!(targets[1].context, "ctx-b");
        assert_eq!(targets[1].token, None);
    }

    #[test]
    fn refuses_what_the_floor_does_not_do() {
        let https = mocks::kubeconfig_yaml(&[("a", "https://127.0.0.1:6443")]);
        assert!(format!("{:#}", scan(&https).unwrap_err()).contains("only plain http"));
        let exec = "users:\n- name: u\n  user:\n    exec:\n      command: aws\n      args:\n      - eks\ncontexts:\n- name: c\n  context:\n    cluster: k\n    user: u\nclusters:\n- name: k\n  cluster:\n    server: http://h:1\n";
        assert!(format!("{:#}", scan(exec).unwrap_err()).contains("`exec`"));
        let flow = "clusters: [{name: k}]\n";
        assert!(scan(flow).is_err());
        let missing = "contexts:\n- name: c\n  context:\n    cluster: nowhere\n";
        assert!(format!("{:#}", scan(missing).unwrap_err()).contains("no cluster `nowhere`"));
        let proxy = "clusters:\n- name: k\n  cluster:\n    server: http://h:1\n    proxy-url: http://p:3128\ncontexts:\n- name: c\n  context:\n    cluster: k\n";
        assert!(scan(proxy).is_err());
    }

    #[test]
    fn the_first_context_of_a_name_wins() {
        let mut k = Kubeconfig::default();
        for server in ["http://first:1", "http://second:2"] {
            k.scan(&mocks::kubeconfig_yaml(&[("same", server)]))
                .unwrap_or_else(|e| panic!("{e:#}"));
        }
        let targets = k.targets().unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(targets.len(), 1);
        assert_eq!(targets[0].authority, "first:1");
    }

    #[test]
    fn continue_tokens() {
        assert!(!has_continue_token(
            br#"{"metadata":{"resourceVersion":"1"},"items":[]}"#
        ));
        assert!(!has_continue_token(
            br#"{"metadata":{"continue":""},"items":[]}"#
        ));
        assert!(has_continue_token(
            br#"{"metadata":{"continue":"abc"},"items":[]}"#
        ));
        assert!(has_continue_token(br#"{"metadata": {"continue" : "abc"}}"#));
        // The key as a value is not a token.
        assert!(!has_continue_token(br#"{"name":"continue","x":1}"#));
    }

    #[test]
    fn scalars() {
        assert_eq!(unquote(r#""a\"b\\c""#).unwrap(), "a\"b\\c");
        assert_eq!(unquote("'it''s'").unwrap(), "it's");
        assert_eq!(unquote("plain # note").unwrap(), "plain");
        assert!(unquote(r#""open"#).is_err());
        assert!(unquote(r#""\n""#).is_err());
    }
}
