//! The raw gate: a TCP front for servers with an endpoint whose fault
//! wiremock cannot produce ([`Fault::is_raw`](crate::Fault::is_raw)).
//!
//! The gate reads the request head; if method and path belong to such an
//! endpoint it records the request, waits the endpoint's latency, and then:
//! [`Fault::ConnectionReset`] sets `SO_LINGER` 0 and drops the socket (the
//! kernel sends RST); [`Fault::Trickle`] sends a 200 head and one body byte
//! per [`TRICKLE_INTERVAL`]; [`Fault::EndlessBody`] streams a chunked body
//! that never ends; [`Fault::Garbage`] sends seeded non-HTTP noise and
//! closes; [`Fault::HugeBody`] sends a [`HUGE_BODY_BYTES`] body. Streams stop
//! when the client hangs up, or after [`MAX_STREAM_TIME`]. Anything else is
//! proxied to the wiremock server with `Connection: close`, so every request
//! is seen by the gate on a fresh connection.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use crate::MockError;
use crate::endpoint::{EndpointState, PathPred};
use crate::fault::{Fault, HUGE_BODY_BYTES, MAX_STREAM_TIME, TRICKLE_INTERVAL};
use crate::flavor::Flavor;

type ResetRoute = (&'static str, PathPred, Arc<EndpointState>);

const MAX_HEAD: usize = 64 * 1024;
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);

pub(crate) struct Gate {
    addr: SocketAddr,
    // Dropping the sender stops the accept loop and the gate's runtime.
    _shutdown: oneshot::Sender<()>,
}

impl Gate {
    pub(crate) fn start(upstream: SocketAddr, resets: Vec<ResetRoute>) -> Result<Gate, MockError> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(MockError::Listen)?;
        listener.set_nonblocking(true).map_err(MockError::Listen)?;
        let addr = listener.local_addr().map_err(MockError::Listen)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(MockError::Listen)?;
        let (tx, rx) = oneshot::channel();
        let resets = Arc::new(resets);
        std::thread::Builder::new()
            .name(format!("mocks-gate-{}", addr.port()))
            .spawn(move || runtime.block_on(serve(listener, upstream, resets, rx)))
            .map_err(MockError::Listen)?;
        Ok(Gate {
            addr,
            _shutdown: tx,
        })
    }

    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }
}

async fn serve(
    listener: std::net::TcpListener,
    upstream: SocketAddr,
    resets: Arc<Vec<ResetRoute>>,
    mut shutdown: oneshot::Receiver<()>,
) {
    let Ok(listener) = TcpListener::from_std(listener) else {
        return;
    };
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    tokio::spawn(handle(stream, upstream, resets.clone()));
                }
                // e.g. EMFILE: back off instead of spinning.
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            },
        }
    }
}

async fn read_head(stream: &mut TcpStream) -> Option<(Vec<u8>, usize)> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            return Some((buf, i + 4));
        }
        if buf.len() > MAX_HEAD {
            return None;
        }
    }
}

fn content_type(flavor: Flavor) -> &'static str {
    match flavor {
        Flavor::Sts | Flavor::Ec2 => "text/xml",
        Flavor::S3 => "application/xml",
        Flavor::Kube | Flavor::GcpApi | Flavor::OAuth | Flavor::Oci | Flavor::HfApi => {
            "application/json"
        }
        Flavor::Grpc => "application/grpc",
        Flavor::Text => "text/plain",
    }
}

/// The faulty answer of a raw endpoint; returns when it is done or the
/// client hung up.
async fn answer_raw(client: &mut TcpStream, state: &EndpointState) {
    let ty = content_type(state.flavor);
    match state.fault {
        Fault::Trickle => {
            let head =
                format!("HTTP/1.1 200 OK\r\nContent-Type: {ty}\r\nContent-Length: 1000000\r\n\r\n");
            if client.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            // A JSON/XML-looking opening, then whitespace, one byte at a time.
            for byte in b"{\"items\": [".iter().chain(std::iter::repeat(&b' ')) {
                if client.write_all(&[*byte]).await.is_err() {
                    return;
                }
                tokio::time::sleep(TRICKLE_INTERVAL).await;
            }
        }
        Fault::EndlessBody => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {ty}\r\nTransfer-Encoding: chunked\r\n\r\n"
            );
            if client.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            let mut chunk = format!("{:x}\r\n", 64 * 1024).into_bytes();
            chunk.extend(std::iter::repeat_n(b' ', 64 * 1024));
            chunk.extend_from_slice(b"\r\n");
            loop {
                if client.write_all(&chunk).await.is_err() {
                    return;
                }
            }
        }
        Fault::HugeBody => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {ty}\r\nContent-Length: {HUGE_BODY_BYTES}\r\n\r\n"
            );
            if client.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            let block = vec![b' '; 64 * 1024];
            let mut left = HUGE_BODY_BYTES;
            while left > 0 {
                let n = left.min(block.len() as u64) as usize;
                if client.write_all(&block[..n]).await.is_err() {
                    return;
                }
                left -= n as u64;
            }
        }
        Fault::Garbage => {
            // xorshift noise: repeatable, and never a valid status line.
            let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
            let mut noise = Vec::with_capacity(16 * 1024);
            noise.extend_from_slice(b"\x00\xffNOT-HTTP ");
            while noise.len() < 16 * 1024 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                noise.push(x as u8);
            }
            let _ = client.write_all(&noise).await;
            let _ = client.shutdown().await;
        }
        _ => {}
    }
}

async fn handle(mut client: TcpStream, upstream: SocketAddr, resets: Arc<Vec<ResetRoute>>) {
    let Ok(Some((buf, head_end))) =
        tokio::time::timeout(HEAD_TIMEOUT, read_head(&mut client)).await
    else {
        return;
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut request_line = head.lines().next().unwrap_or_default().split_whitespace();
    let method = request_line.next().unwrap_or_default();
    let target = request_line.next().unwrap_or_default();
    let path = target.split('?').next().unwrap_or_default();

    if let Some((_, _, state)) = resets.iter().find(|(m, p, _)| *m == method && p(path)) {
        let (_, delay) = state.next();
        let status = match state.fault {
            Fault::ConnectionReset | Fault::Garbage => None,
            _ => Some(200),
        };
        state.recorder.record(method, path, delay, status);
        tokio::time::sleep(delay).await;
        let _ = tokio::time::timeout(MAX_STREAM_TIME, answer_raw(&mut client, state)).await;
        if state.fault == Fault::ConnectionReset {
            let _ = client.set_zero_linger();
        }
        drop(client);
        return;
    }

    let Ok(mut server) = TcpStream::connect(upstream).await else {
        let _ = client.set_zero_linger();
        return;
    };
    let mut rewritten = String::with_capacity(head.len() + 20);
    for line in head.trim_end_matches("\r\n").split("\r\n") {
        let name = line.split(':').next().unwrap_or_default().trim();
        if name.eq_ignore_ascii_case("connection") || name.eq_ignore_ascii_case("keep-alive") {
            continue;
        }
        rewritten.push_str(line);
        rewritten.push_str("\r\n");
    }
    rewritten.push_str("Connection: close\r\n\r\n");
    if server.write_all(rewritten.as_bytes()).await.is_err()
        || server.write_all(&buf[head_end..]).await.is_err()
    {
        return;
    }
    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
}
