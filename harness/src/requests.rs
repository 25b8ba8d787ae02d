//! What the mocks recorded during one launch, per endpoint: when each
//! request arrived (relative to the launch's start), the delay it was given
//! and how it was answered. The floor, the timelines and the reports read it.

use std::time::Duration;

use mocks::Recording;
use serde::Serialize;

use crate::timing::ms;

/// Requests one endpoint received during one launch.
#[derive(Debug, Clone, Serialize)]
pub struct EndpointHits {
    /// Endpoint name (`sts`, `kube/mock-0/nodes`, ...).
    pub endpoint: String,
    /// Arrival of each request, ms after the launch started (spawn, or the
    /// call into the optimizer), in arrival order.
    pub at_ms: Vec<f64>,
    /// Delays the mock assigned, ms, in arrival order.
    pub delays_ms: Vec<f64>,
    /// Statuses answered (`null`: never answered).
    pub statuses: Vec<Option<u16>>,
}

/// What the mocks recorded, with arrival times made relative to `start`
/// (the launch's start, measured on the mocks' clock).
pub fn hits(recordings: &[Recording], start: Duration) -> Vec<EndpointHits> {
    recordings
        .iter()
        .filter(|r| r.count() > 0)
        .map(|r| EndpointHits {
            endpoint: r.endpoint.clone(),
            at_ms: r.requests.iter().map(|q| ms(q.at) - ms(start)).collect(),
            delays_ms: r.requests.iter().map(|q| ms(q.delay)).collect(),
            statuses: r.requests.iter().map(|q| q.status).collect(),
        })
        .collect()
}
