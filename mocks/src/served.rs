//! A running server: the wiremock responder that applies an endpoint's
//! latency, fault and recording, route matching, and the assembly of
//! wiremock plus, when an endpoint needs it, the reset gate in front.

use std::sync::Arc;

use wiremock::{Match, Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::endpoint::{EndpointState, OkFn, PathPred};
use crate::flavor::{ErrorKind, Flavor};
use crate::gate::Gate;
use crate::{Fault, HANG_DELAY, MockError};

/// The wiremock [`Respond`] that applies latency, faults and recording.
struct Responder {
    state: Arc<EndpointState>,
    ok: OkFn,
}

impl Respond for Responder {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let (n, delay) = self.state.next();
        let flavor = self.state.flavor;
        let (status, tpl, delay) = match self.state.fault {
            Fault::None => {
                let (s, t) = (self.ok)(request);
                (Some(s), t, delay)
            }
            Fault::Status(s) => {
                let (s, t) = flavor.error(ErrorKind::Status(s));
                (Some(s), t, delay)
            }
            Fault::Unauthorized => {
                let (s, t) = flavor.error(ErrorKind::Unauthorized);
                (Some(s), t, delay)
            }
            Fault::Forbidden => {
                let (s, t) = flavor.error(ErrorKind::Forbidden);
                (Some(s), t, delay)
            }
            Fault::ExpiredToken => {
                let (s, t) = flavor.error(ErrorKind::Expired);
                (Some(s), t, delay)
            }
            Fault::Hang => {
                let (_, t) = (self.ok)(request);
                (None, t, HANG_DELAY)
            }
            Fault::MalformedBody => (Some(200), flavor.malformed(), delay),
            Fault::FailFirst { n: k, status } if n < k => {
                let (s, t) = flavor.error(ErrorKind::Status(status));
                (Some(s), t, delay)
            }
            Fault::FailFirst { .. } => {
                let (s, t) = (self.ok)(request);
                (Some(s), t, delay)
            }
            // The gate answers these before they reach wiremock; this is only a fallback.
            Fault::ConnectionReset
            | Fault::Trickle
            | Fault::EndlessBody
            | Fault::Garbage
            | Fault::HugeBody => {
                let (s, t) = Flavor::Text.error(ErrorKind::Status(502));
                (Some(s), t, delay)
            }
        };
        self.state
            .recorder
            .record(request.method.as_str(), request.url.path(), delay, status);
        if delay.is_zero() {
            tpl
        } else {
            tpl.set_delay(delay)
        }
    }
}

/// One endpoint of a server: how to match it, how to answer it, its state.
pub(crate) struct Route {
    pub(crate) method: &'static str,
    pub(crate) path: PathPred,
    /// Extra body condition (STS: the `Action=`); the reset gate ignores it.
    pub(crate) body_contains: Option<&'static str>,
    pub(crate) state: Arc<EndpointState>,
    pub(crate) ok: OkFn,
    pub(crate) expect: Option<u64>,
}

struct RouteMatch {
    method: &'static str,
    path: PathPred,
    body_contains: Option<&'static str>,
}

impl Match for RouteMatch {
    fn matches(&self, request: &Request) -> bool {
        request.method.as_str() == self.method
            && (self.path)(request.url.path())
            && self.body_contains.is_none_or(|needle| {
                request
                    .body
                    .windows(needle.len())
                    .any(|w| w == needle.as_bytes())
            })
    }
}

/// A running server: wiremock, plus the reset gate in front when an endpoint
/// needs it; or one tenant of a wiremock server shared by several mocks,
/// whose routes live under a path prefix of their own.
pub(crate) struct Served {
    server: Arc<MockServer>,
    gate: Option<Gate>,
    /// The tenant's path prefix (`/ctx/3`); empty for a server of its own.
    base: String,
}

impl Served {
    /// A wiremock server of its own (and a reset gate when a route needs one).
    pub(crate) async fn start(routes: Vec<Route>) -> Result<Self, MockError> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(MockError::Listen)?;
        let server = Arc::new(MockServer::builder().listener(listener).start().await);
        let mut resets = Vec::new();
        for route in routes {
            if route.state.fault.is_raw() {
                resets.push((route.method, route.path.clone(), route.state.clone()));
            }
            mount(&server, route).await;
        }
        let gate = if resets.is_empty() {
            None
        } else {
            Some(Gate::start(*server.address(), resets)?)
        };
        Ok(Served {
            server,
            gate,
            base: String::new(),
        })
    }

    /// A wiremock server with no routes yet, to be shared through
    /// [`Served::start_on`]. It keeps no copy of the requests it receives
    /// (`received_requests` is `None`): the tenants' [`Recorder`](crate::Recorder)s
    /// log them, and a long-running `harness mocks` would otherwise grow by
    /// a copy of every request (and fault in the pages it takes).
    pub(crate) async fn bare() -> Result<MockServer, MockError> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(MockError::Listen)?;
        Ok(MockServer::builder()
            .listener(listener)
            .disable_request_recording()
            .start()
            .await)
    }

    /// Mounts `routes` on the shared `server` under the path prefix `base`
    /// (`/ctx/3`: `/ctx/3/api/v1/nodes` is this tenant's `/api/v1/nodes`).
    /// One server answers many tenants on one thread: 64 Kubernetes
    /// contexts as 64 wiremock servers were 64 threads and runtimes, and on
    /// two cores their wake-ups cost the mocks more CPU than `sky` used.
    /// Raw faults need a gate of their own: such routes are refused here
    /// (use [`Served::start`]).
    pub(crate) async fn start_on(
        server: Arc<MockServer>,
        base: String,
        routes: Vec<Route>,
    ) -> Result<Self, MockError> {
        if let Some(raw) = routes.iter().find(|r| r.state.fault.is_raw()) {
            return Err(MockError::InvalidOption(format!(
                "{}: a raw fault needs a server of its own",
                raw.state.recorder.endpoint()
            )));
        }
        for mut route in routes {
            let path = route.path;
            let prefix = base.clone();
            route.path = Arc::new(move |p: &str| {
                p.strip_prefix(prefix.as_str())
                    .is_some_and(|rest| path(rest))
            });
            mount(&server, route).await;
        }
        Ok(Served {
            server,
            gate: None,
            base,
        })
    }

    pub(crate) fn uri(&self) -> String {
        match &self.gate {
            Some(gate) => format!("http://{}", gate.addr()),
            None => format!("{}{}", self.server.uri(), self.base),
        }
    }

    pub(crate) fn server(&self) -> &MockServer {
        &self.server
    }
}

/// Mounts one route on `server`.
async fn mount(server: &MockServer, route: Route) {
    let mut mock = Mock::given(RouteMatch {
        method: route.method,
        path: route.path,
        body_contains: route.body_contains,
    })
    .respond_with(Responder {
        state: route.state.clone(),
        ok: route.ok,
    })
    .named(route.state.recorder.endpoint());
    if let Some(n) = route.expect {
        mock = mock.expect(n);
    }
    mock.mount(server).await;
}
