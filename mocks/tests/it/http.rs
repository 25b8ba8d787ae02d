use std::io;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A parsed HTTP/1.1 response.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub head: String,
    pub body: Vec<u8>,
}

impl Response {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("body is JSON")
    }
}

/// Sends one request with `Connection: close` and reads the whole response.
pub async fn send(uri: &str, method: &str, path: &str, body: &str) -> io::Result<Response> {
    let rest = uri.strip_prefix("http://").expect("http uri");
    // A mock on a shared server has a path prefix (`http://host:port/ctx/1`).
    let (addr, base) = rest
        .split_once('/')
        .map_or((rest, ""), |(a, _)| (a, &rest[a.len()..]));
    let mut stream = TcpStream::connect(addr).await?;
    let request = format!(
        "{method} {base}{path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await?;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "no response head"))?;
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "bad status line"))?;
    Ok(Response {
        status,
        head,
        body: raw[split + 4..].to_vec(),
    })
}

pub async fn get(uri: &str, path: &str) -> io::Result<Response> {
    send(uri, "GET", path, "").await
}

/// The request the AWS SDK sends for GetCallerIdentity.
pub async fn sts_call(uri: &str) -> io::Result<Response> {
    send(
        uri,
        "POST",
        "/",
        "Action=GetCallerIdentity&Version=2011-06-15",
    )
    .await
}

/// Like [`send`], but gives up after `limit`.
pub async fn send_within(
    limit: Duration,
    uri: &str,
    method: &str,
    path: &str,
    body: &str,
) -> Result<io::Result<Response>, tokio::time::error::Elapsed> {
    tokio::time::timeout(limit, send(uri, method, path, body)).await
}

/// True when `text` is a well-formed XML element tree (tags balanced, one root).
/// Small on purpose: enough to tell a truncated document from a complete one.
pub fn xml_well_formed(text: &str) -> bool {
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = text.trim();
    let mut roots = 0;
    while let Some(open) = rest.find('<') {
        let Some(close) = rest[open..].find('>') else {
            return false;
        };
        let tag = &rest[open + 1..open + close];
        rest = &rest[open + close + 1..];
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            if stack.pop() != Some(name.trim()) {
                return false;
            }
        } else if !tag.ends_with('/') {
            if stack.is_empty() {
                roots += 1;
            }
            stack.push(tag.split_whitespace().next().unwrap_or_default());
        }
    }
    stack.is_empty() && roots == 1
}

#[test]
fn xml_checker_tells_complete_from_truncated() {
    assert!(xml_well_formed(
        "<?xml version=\"1.0\"?><a x=\"1\"><b>t</b><c/></a>"
    ));
    assert!(!xml_well_formed("<a><b>t</b>"));
    assert!(!xml_well_formed("<a><b>t</a></b>"));
    assert!(!xml_well_formed("<a></a><a></a>"));
}
