//! The reset gate: a raw TCP front for servers with a
//! [`Fault::ConnectionReset`](crate::Fault::ConnectionReset) endpoint.
//!
//! wiremock always answers, so a reset needs its own listener. The gate reads
//! the request head; if method and path belong to a resetting endpoint it
//! records the request, waits the endpoint's latency, sets `SO_LINGER` 0 and
//! drops the socket (the kernel sends RST). Anything else is proxied to the
//! wiremock server with `Connection: close`, so every request is seen by the
//! gate on a fresh connection.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use crate::MockError;
use crate::endpoint::{EndpointState, PathPred};

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
        state.recorder.record(method, path, delay, None);
        tokio::time::sleep(delay).await;
        let _ = client.set_zero_linger();
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
