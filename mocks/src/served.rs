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

/// A running server: wiremock, plus the reset gate in front when an endpoint needs it.
pub(crate) struct Served {
    server: MockServer,
    gate: Option<Gate>,
}

impl Served {
    pub(crate) async fn start(routes: Vec<Route>) -> Result<Self, MockError> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(MockError::Listen)?;
        let server = MockServer::builder().listener(listener).start().await;
        let mut resets = Vec::new();
        for route in routes {
            if route.state.fault.is_raw() {
                resets.push((route.method, route.path.clone(), route.state.clone()));
            }
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
            mock.mount(&server).await;
        }
        let gate = if resets.is_empty() {
            None
        } else {
            Some(Gate::start(*server.address(), resets)?)
        };
        Ok(Served { server, gate })
    }

    pub(crate) fn uri(&self) -> String {
        match &self.gate {
            Some(gate) => format!("http://{}", gate.addr()),
            None => self.server.uri(),
        }
    }

    pub(crate) fn server(&self) -> &MockServer {
        &self.server
    }
}
