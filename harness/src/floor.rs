//! The latency floor: how long a launch must wait for the mocks even if the
//! optimizer itself took no time at all.
//!
//! The floor is computed per launch from what the mocks *recorded* during that
//! launch (every request's assigned delay), not from the scenario's models, so
//! an endpoint the optimizer never calls (GCP reservations today) contributes
//! nothing, retries count once per attempt, and random models use the delay
//! actually drawn. The structure mirrors the optimizer's fan-out:
//!
//! * a **lane** is a chain of requests that run one after another: AWS STS
//!   (attempts in sequence), one lane per Kubernetes context, GCP (token, then
//!   reservations). A lane waits for the sum of its delays; a request that
//!   never answers (hang) counts up to the client's per-attempt timeout, and a
//!   lane is capped at its deadline (Kubernetes contexts: 0.9 × cloud timeout,
//!   others: the cloud timeout);
//! * a **cloud** waits for its slowest lane (Kubernetes lists its contexts
//!   concurrently), capped at the cloud timeout;
//! * a **launch** waits for the sum of the clouds in serial mode and for the
//!   slowest cloud in concurrent mode, capped at the global deadline.
//!
//! Client-side retry backoff is *not* part of the floor: it is time the
//! optimizer chooses to spend, so it shows up as overhead.
//!
//! This is the workspace's only floor model: the harness reports and the
//! launch benchmarks (`benches::launch`) both compute their floors here, so
//! they quote the same floor for the same scenario.

use std::collections::BTreeMap;
use std::time::Duration;

use mocks::Recording;
use serde::Serialize;

use crate::scenario::Scenario;

/// Deadlines the optimizer applies, used to cap waits on hung endpoints.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Deadlines {
    /// One STS attempt (`AwsOptions::service.request_timeout`).
    pub sts_attempt: Duration,
    /// One Kubernetes listing attempt (`KubernetesOptions::service.request_timeout`).
    pub kube_attempt: Duration,
    /// One Kubernetes context, all attempts (0.9 × the cloud timeout).
    pub kube_context: Duration,
    /// One cloud (`--cloud-timeout`).
    pub cloud: Duration,
    /// The whole fan-out (`sky` uses the cloud timeout + 1 s).
    pub global: Duration,
}

impl Deadlines {
    /// The deadlines `sky` uses for a given `--cloud-timeout` with default adapter options.
    pub fn for_cloud_timeout(cloud: Duration) -> Self {
        Deadlines {
            sts_attempt: optimizer::clouds::aws::AwsOptions::default()
                .service
                .request_timeout,
            kube_attempt: optimizer::clouds::kubernetes::KubernetesOptions::default()
                .service
                .request_timeout,
            kube_context: cloud.mul_f64(0.9),
            cloud,
            global: optimizer::clouds::FanOutOptions::global_deadline_for(cloud),
        }
    }

    /// The deadlines of launches of `scenario` (its `request.cloud_timeout_s`),
    /// as both launchers configure them.
    pub fn for_scenario(scenario: &Scenario) -> Self {
        Deadlines::for_cloud_timeout(scenario.file.request.cloud_timeout())
    }
}

/// The floor of one launch and where it comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Floor {
    /// The floor.
    pub total: Duration,
    /// The cloud (and lane) on the critical path, e.g. `aws (sts)`; empty when nothing waited.
    pub critical: String,
    /// Each cloud's wait, by name.
    pub clouds: BTreeMap<String, Duration>,
}

/// Which cloud and lane an endpoint belongs to, and the per-attempt cap of its requests.
fn lane_of(endpoint: &str, d: &Deadlines) -> (String, String, Option<Duration>, Duration) {
    if endpoint == "sts" {
        return ("aws".into(), "sts".into(), Some(d.sts_attempt), d.cloud);
    }
    if let Some(rest) = endpoint.strip_prefix("kube/") {
        let context = rest.rsplit_once('/').map_or(rest, |(c, _)| c);
        return (
            "kubernetes".into(),
            context.to_string(),
            Some(d.kube_attempt),
            d.kube_context,
        );
    }
    if endpoint.starts_with("gcp/") {
        return ("gcp".into(), "gcp".into(), None, d.cloud);
    }
    (endpoint.to_string(), endpoint.to_string(), None, d.cloud)
}

/// The floor of one launch from the mocks' recordings of it.
pub fn floor(recordings: &[Recording], serial: bool, d: &Deadlines) -> Floor {
    // cloud -> lane -> wait
    let mut lanes: BTreeMap<String, BTreeMap<String, Duration>> = BTreeMap::new();
    for rec in recordings.iter().filter(|r| r.count() > 0) {
        let (cloud, lane, attempt_cap, lane_cap) = lane_of(&rec.endpoint, d);
        let wait: Duration = rec
            .requests
            .iter()
            .map(|r| attempt_cap.map_or(r.delay, |cap| r.delay.min(cap)))
            .sum();
        let slot = lanes.entry(cloud).or_default().entry(lane).or_default();
        *slot = (*slot + wait).min(lane_cap);
    }
    let mut clouds = BTreeMap::new();
    let mut critical = (Duration::ZERO, String::new());
    for (cloud, lanes) in &lanes {
        let (lane, wait) = lanes
            .iter()
            .max_by_key(|(_, w)| **w)
            .map(|(l, w)| (l.clone(), (*w).min(d.cloud)))
            .unwrap_or_default();
        if wait > critical.0 || critical.1.is_empty() {
            critical = (wait, format!("{cloud} ({lane})"));
        }
        clouds.insert(cloud.clone(), wait);
    }
    let total = if serial {
        clouds.values().sum::<Duration>()
    } else {
        clouds.values().copied().max().unwrap_or_default()
    }
    .min(d.global);
    if total.is_zero() {
        critical.1.clear();
    } else if serial && clouds.values().filter(|w| !w.is_zero()).count() > 1 {
        critical.1 = format!(
            "sum of {}",
            clouds
                .iter()
                .filter(|(_, w)| !w.is_zero())
                .map(|(c, _)| c.as_str())
                .collect::<Vec<_>>()
                .join(" + ")
        );
    }
    Floor {
        total,
        critical: critical.1,
        clouds,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mocks::RequestRecord;

    fn rec(endpoint: &str, delays_ms: &[u64]) -> Recording {
        Recording {
            endpoint: endpoint.into(),
            requests: delays_ms
                .iter()
                .map(|ms| RequestRecord {
                    at: Duration::ZERO,
                    method: "GET".into(),
                    path: "/".into(),
                    delay: Duration::from_millis(*ms),
                    status: Some(200),
                })
                .collect(),
        }
    }

    fn ms(d: Duration) -> u128 {
        d.as_millis()
    }

    #[test]
    fn serial_sums_clouds_concurrent_takes_the_slowest() {
        let d = Deadlines::for_cloud_timeout(Duration::from_secs(5));
        let recs = [
            rec("sts", &[1000]),
            rec("kube/a/nodes", &[50]),
            rec("kube/b/nodes", &[70]),
            rec("gcp/reservations", &[]),
        ];
        let s = floor(&recs, true, &d);
        assert_eq!(ms(s.total), 1070);
        let c = floor(&recs, false, &d);
        assert_eq!(ms(c.total), 1000);
        assert_eq!(c.critical, "aws (sts)");
        assert!(
            !c.clouds.contains_key("gcp"),
            "unused endpoint is off the path"
        );
    }

    #[test]
    fn retries_add_up_and_hangs_are_capped() {
        let d = Deadlines::for_cloud_timeout(Duration::from_secs(1));
        let recs = [rec("sts", &[200, 200]), rec("kube/x/nodes", &[3_600_000])];
        let c = floor(&recs, false, &d);
        assert_eq!(ms(c.clouds["aws"]), 400);
        assert_eq!(
            ms(c.clouds["kubernetes"]),
            900,
            "capped at 0.9 x cloud timeout"
        );
        assert_eq!(ms(c.total), 900);
    }
}
