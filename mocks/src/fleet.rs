//! Many Kubernetes API servers answered concurrently, as separate clusters
//! would answer them: the [`MockSet`](crate::MockSet)'s contexts without a
//! fault, each on a port of its own.
//!
//! Why not wiremock here: a wiremock server is one thread whose
//! current-thread runtime handles one request at a time (the server state's
//! write lock, a walk over every mounted mock), and a response's delay is a
//! `tokio::time::sleep` created when the request is *handled* — not when
//! it arrived. With 64 contexts on one server the k-th request's 50 ms only
//! began after the k−1 before it had been handled, the timer wheel rounded
//! every deadline up to its next millisecond tick, and the 64 answers were
//! then written in turn: a client that sent all 64 requests at once got the
//! last answer some 5–10 ms after 50 ms (64 wiremock servers instead were
//! 64 threads and runtimes, whose wake-ups on two cores cost more than the
//! client under test).
//!
//! Here every context has its own listener, served by one thread with a
//! current-thread runtime; a request's delay runs from the moment its head
//! is read, and it ends on a precise alarm (a thread waiting on a condition
//! variable until the earliest deadline: ~0.1 ms late, where a tokio timer
//! is ~1 ms late). Answers are shared bytes, written as they fall due.
//! Endpoints with a fault stay on wiremock ([`crate::served`]), whose
//! responders know every fault.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::sync::oneshot;

use crate::MockError;
use crate::endpoint::EndpointState;

/// One endpoint of a tenant: its exact path (queries are ignored), state and body.
pub(crate) struct FleetRoute {
    pub(crate) path: &'static str,
    pub(crate) state: Arc<EndpointState>,
    pub(crate) body: Bytes,
}

/// The running servers: one listener per tenant, one serving thread, one alarm thread.
pub(crate) struct Fleet {
    addrs: Vec<SocketAddr>,
    stop: Option<oneshot::Sender<()>>,
    alarm: Alarm,
}

impl Fleet {
    /// Starts one server per tenant, in order; `tenant_addr(i)` is the i-th's address.
    pub(crate) fn start(tenants: Vec<Vec<FleetRoute>>) -> Result<Fleet, MockError> {
        let mut listeners = Vec::with_capacity(tenants.len());
        for _ in &tenants {
            let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(MockError::Listen)?;
            l.set_nonblocking(true).map_err(MockError::Listen)?;
            listeners.push(l);
        }
        let addrs = listeners
            .iter()
            .map(|l| l.local_addr())
            .collect::<Result<Vec<_>, _>>()
            .map_err(MockError::Listen)?;
        let alarm = Alarm::start();
        let (stop, stopped) = oneshot::channel::<()>();
        let serving_alarm = alarm.clone();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()
            .map_err(MockError::Listen)?;
        std::thread::Builder::new()
            .name("mock-kube-fleet".into())
            .spawn(move || {
                runtime.block_on(async move {
                    for (listener, routes) in listeners.into_iter().zip(tenants) {
                        let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                            continue;
                        };
                        let routes: Arc<[FleetRoute]> = routes.into();
                        tokio::spawn(accept(listener, routes, serving_alarm.clone()));
                    }
                    let _ = stopped.await;
                });
                // Dropping the runtime here drops every connection task.
            })
            .map_err(MockError::Listen)?;
        Ok(Fleet {
            addrs,
            stop: Some(stop),
            alarm,
        })
    }

    /// The base URL of tenant `i`.
    pub(crate) fn uri(&self, i: usize) -> String {
        format!("http://{}", self.addrs[i])
    }
}

impl Drop for Fleet {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.alarm.stop();
    }
}

async fn accept(listener: tokio::net::TcpListener, routes: Arc<[FleetRoute]>, alarm: Alarm) {
    while let Ok((stream, _)) = listener.accept().await {
        let _ = stream.set_nodelay(true);
        let routes = Arc::clone(&routes);
        let alarm = alarm.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let routes = Arc::clone(&routes);
                let alarm = alarm.clone();
                async move { Ok::<_, Infallible>(answer(&routes, &alarm, request).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// One request: the delay counts from here, the moment its head was read.
async fn answer(
    routes: &[FleetRoute],
    alarm: &Alarm,
    request: Request<Incoming>,
) -> Response<Full<Bytes>> {
    let arrived = Instant::now();
    let path = request.uri().path();
    let route = (request.method() == hyper::Method::GET)
        .then(|| routes.iter().find(|r| r.path == path))
        .flatten();
    let Some(route) = route else {
        let mut response = Response::new(Full::new(Bytes::new()));
        *response.status_mut() = StatusCode::NOT_FOUND;
        return response;
    };
    let (_, delay) = route.state.next();
    route
        .state
        .recorder
        .record(request.method().as_str(), path, delay, Some(200));
    if !delay.is_zero() {
        alarm.at(arrived + delay).await;
    }
    let mut response = Response::new(Full::new(route.body.clone()));
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}

/// A thread that wakes futures at their deadlines, within a fraction of a
/// millisecond: the earliest deadline is waited for on a condition
/// variable, which the kernel wakes with microsecond precision.
#[derive(Clone)]
struct Alarm(Arc<(Mutex<Alarms>, Condvar)>);

#[derive(Default)]
struct Alarms {
    due: BinaryHeap<Reverse<(Instant, u64)>>,
    waiting: HashMap<u64, oneshot::Sender<()>>,
    next: u64,
    stopped: bool,
}

impl Alarm {
    fn start() -> Alarm {
        let alarm = Alarm(Arc::default());
        let ringing = alarm.clone();
        // Without the thread every alarm rings at once (`at` sees `stopped`):
        // answers come early rather than never.
        if std::thread::Builder::new()
            .name("mock-kube-alarm".into())
            .spawn(move || ringing.run())
            .is_err()
        {
            alarm.stop();
        }
        alarm
    }

    fn run(&self) {
        let (lock, changed) = &*self.0;
        let mut alarms = lock.lock().unwrap_or_else(|e| e.into_inner());
        while !alarms.stopped {
            let now = Instant::now();
            match alarms.due.peek() {
                Some(Reverse((when, _))) if *when <= now => {
                    if let Some(Reverse((_, id))) = alarms.due.pop()
                        && let Some(waiter) = alarms.waiting.remove(&id)
                    {
                        let _ = waiter.send(());
                    }
                }
                Some(Reverse((when, _))) => {
                    let wait = *when - now;
                    alarms = changed
                        .wait_timeout(alarms, wait)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
                None => alarms = changed.wait(alarms).unwrap_or_else(|e| e.into_inner()),
            }
        }
    }

    /// Resolves at `when` (or at once when the alarm is stopped).
    async fn at(&self, when: Instant) {
        let rung = {
            let (lock, changed) = &*self.0;
            let mut alarms = lock.lock().unwrap_or_else(|e| e.into_inner());
            if alarms.stopped {
                return;
            }
            let (tx, rx) = oneshot::channel();
            let id = alarms.next;
            alarms.next += 1;
            alarms.waiting.insert(id, tx);
            // The thread need only wake when the earliest deadline moved.
            let earliest = alarms
                .due
                .peek()
                .is_none_or(|Reverse((first, _))| when < *first);
            alarms.due.push(Reverse((when, id)));
            if earliest {
                changed.notify_one();
            }
            rx
        };
        let _ = rung.await;
    }

    fn stop(&self) {
        let (lock, changed) = &*self.0;
        let mut alarms = lock.lock().unwrap_or_else(|e| e.into_inner());
        alarms.stopped = true;
        alarms.waiting.clear();
        changed.notify_one();
    }
}
