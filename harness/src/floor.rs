//! The latency floor: how long a launch must wait for the mocks even if the
//! launcher itself took no time at all. Two models, one per use:
//!
//! * [`observed`] (the harness's reports, both engines): the heaviest
//!   chain of mocked requests that ran one after another — of all the
//!   sequences of recorded requests where each one arrived after the one
//!   before it was answered, the one whose delays add up to the most (each
//!   delay capped at the client's per-attempt timeout and at the launch's
//!   end). Requests that overlapped cannot both be in it, so it needs no
//!   model of the launcher: `sky`'s concurrent fan-out gives its slowest
//!   chain (STS, then the zone names; the GCP token, then the reservations),
//!   its serial fan-out the sum, and SkyPilot's structure (a thread pool of
//!   `os.cpu_count()` threads over the AWS regions, GCP reservations only
//!   after every cloud's check) gives its rounds and phases. Time the
//!   launcher spends between those waits — start-up, imports, parsing,
//!   retry backoff, starting a request late — is overhead.
//!   [`Observed::critical`] names that chain.
//! * [`floor`] (the launch benchmarks): `sky`'s structure as lanes, from
//!   the recorded delays alone (no arrival times), described below. For
//!   `sky` the two agree within the time its requests take to start.
//!
//! Both are computed per launch from what the mocks *recorded* during that
//! launch (every request's assigned delay), not from the scenario's models,
//! so an endpoint the launcher never calls contributes nothing, retries
//! count once per attempt, and random models use the delay actually drawn.
//!
//! The lane model mirrors the optimizer's fan-out:
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
//! Client-side retry backoff is *not* part of either floor: it is time the
//! launcher chooses to spend, so it shows up as overhead.

use std::collections::BTreeMap;
use std::time::Duration;

use mocks::Recording;
use serde::Serialize;

use crate::requests::EndpointHits;
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
    if endpoint.starts_with("ec2") {
        return ("aws".into(), "ec2".into(), None, d.cloud);
    }
    if endpoint.starts_with("gcp/") {
        return ("gcp".into(), "gcp".into(), None, d.cloud);
    }
    (endpoint.to_string(), endpoint.to_string(), None, d.cloud)
}

/// The cloud an endpoint's requests are made for (`sts` and `ec2.*`: AWS).
pub fn cloud_of(endpoint: &str) -> &str {
    if endpoint == "sts" || endpoint.starts_with("ec2") {
        "aws"
    } else if endpoint.starts_with("kube/") {
        "kubernetes"
    } else if endpoint.starts_with("gcp/") {
        "gcp"
    } else if endpoint == "catalog" {
        "catalogs"
    } else {
        endpoint
    }
}

/// The observed floor of one launch (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Observed {
    /// The delays of the heaviest chain of one-after-another requests, ms.
    pub total_ms: f64,
    /// That chain in time order (`sts → ec2.describe_regions →
    /// ec2.describe_availability_zones ×10 → gcp/reservations`); empty when
    /// nothing waited.
    pub critical: String,
    /// Per cloud ([`cloud_of`]): the time at least one of its requests was outstanding, ms.
    pub clouds: BTreeMap<String, f64>,
}

/// One mocked wait: `[start, end)` in ms after the launch started.
#[derive(Debug, Clone, PartialEq)]
pub struct Wait {
    /// The endpoint.
    pub endpoint: String,
    /// When the request arrived.
    pub start: f64,
    /// When its answer was due (capped).
    pub end: f64,
}

/// Every recorded request as a [`Wait`]: delay capped at the client's
/// per-attempt timeout (STS, Kubernetes), the interval clipped to `[0, wall_ms]`.
pub fn waits(hits: &[EndpointHits], wall_ms: f64, d: &Deadlines) -> Vec<Wait> {
    let mut out = Vec::new();
    for h in hits {
        let (_, _, attempt_cap, _) = lane_of(&h.endpoint, d);
        let cap = attempt_cap.map_or(f64::INFINITY, |c| c.as_secs_f64() * 1000.0);
        for (at, delay) in h.at_ms.iter().zip(&h.delays_ms) {
            let start = at.max(0.0);
            let end = (at + delay.min(cap)).min(wall_ms);
            if end > start {
                out.push(Wait {
                    endpoint: h.endpoint.clone(),
                    start,
                    end,
                });
            }
        }
    }
    out.sort_by(|a, b| a.start.total_cmp(&b.start).then(a.end.total_cmp(&b.end)));
    out
}

/// The measure of the union of `intervals` (sorted by start).
pub fn union_ms<'a>(intervals: impl Iterator<Item = (f64, f64)> + 'a) -> f64 {
    let mut total = 0.0;
    let mut current: Option<(f64, f64)> = None;
    for (s, e) in intervals {
        match &mut current {
            Some((_, ce)) if s <= *ce => *ce = ce.max(e),
            _ => {
                if let Some((cs, ce)) = current {
                    total += ce - cs;
                }
                current = Some((s, e));
            }
        }
    }
    if let Some((cs, ce)) = current {
        total += ce - cs;
    }
    total
}

/// The heaviest chain of waits: the sequence of waits, each starting
/// after the one before it answered, whose delays add up to the most
/// (weighted interval scheduling: waits sorted by end; the best chain
/// ending with a wait is its delay plus the best chain that ended before
/// it started). Waits that overlap cannot both be in it, so the launcher's
/// concurrency is read from the recording, not assumed. Returns the chain
/// in time order.
fn heaviest_chain(waits: &[Wait]) -> Vec<&Wait> {
    const EPS: f64 = 1e-6;
    let mut by_end: Vec<&Wait> = waits.iter().collect();
    by_end.sort_by(|a, b| a.end.total_cmp(&b.end).then(a.start.total_cmp(&b.start)));
    // best[i]: (weight of the heaviest chain ending with by_end[i], its previous wait).
    let mut best: Vec<(f64, Option<usize>)> = Vec::with_capacity(by_end.len());
    for (i, w) in by_end.iter().enumerate() {
        let prev = (0..i)
            .filter(|&j| by_end[j].end <= w.start + EPS)
            .max_by(|&a, &b| {
                best[a]
                    .0
                    .total_cmp(&best[b].0)
                    .then(by_end[a].end.total_cmp(&by_end[b].end))
            });
        let weight = (w.end - w.start) + prev.map_or(0.0, |j| best[j].0);
        best.push((weight, prev));
    }
    let mut chain = Vec::new();
    let mut at = (0..by_end.len()).max_by(|&a, &b| {
        best[a]
            .0
            .total_cmp(&best[b].0)
            .then(by_end[a].end.total_cmp(&by_end[b].end))
    });
    while let Some(i) = at {
        chain.push(by_end[i]);
        at = best[i].1;
    }
    chain.reverse();
    chain
}

/// `a → b ×3 → c` from a chain of endpoints (repeats collapsed).
fn chain_text(chain: &[&Wait]) -> String {
    let mut parts: Vec<(String, usize)> = Vec::new();
    for w in chain {
        match parts.last_mut() {
            Some((e, n)) if *e == w.endpoint => *n += 1,
            _ => parts.push((w.endpoint.clone(), 1)),
        }
    }
    parts
        .iter()
        .map(|(e, n)| {
            if *n > 1 {
                format!("{e} ×{n}")
            } else {
                e.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" → ")
}

/// The observed floor of one launch that took `wall_ms`, from the requests
/// the mocks recorded during it (see the module docs).
pub fn observed(hits: &[EndpointHits], wall_ms: f64, d: &Deadlines) -> Observed {
    let waits = waits(hits, wall_ms, d);
    let mut clouds: BTreeMap<String, f64> = BTreeMap::new();
    let mut names: Vec<&str> = waits.iter().map(|w| cloud_of(&w.endpoint)).collect();
    names.sort_unstable();
    names.dedup();
    for cloud in names {
        let total = union_ms(
            waits
                .iter()
                .filter(|w| cloud_of(&w.endpoint) == cloud)
                .map(|w| (w.start, w.end)),
        );
        clouds.insert(cloud.to_string(), total);
    }
    let chain = heaviest_chain(&waits);
    Observed {
        // fold from +0.0: an empty f64 `sum()` is -0.0.
        total_ms: chain.iter().fold(0.0, |acc, w| acc + (w.end - w.start)),
        critical: chain_text(&chain),
        clouds,
    }
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

    fn hit(endpoint: &str, at_delay: &[(f64, f64)]) -> EndpointHits {
        EndpointHits {
            endpoint: endpoint.into(),
            at_ms: at_delay.iter().map(|(a, _)| *a).collect(),
            delays_ms: at_delay.iter().map(|(_, d)| *d).collect(),
            statuses: at_delay.iter().map(|_| Some(200)).collect(),
        }
    }

    #[test]
    fn observed_is_the_heaviest_chain_of_waits() {
        let d = Deadlines::for_cloud_timeout(Duration::from_secs(5));
        // Concurrent: STS and the node list start together; the floor is the slower.
        let c = observed(
            &[
                hit("sts", &[(2.0, 1000.0)]),
                hit("kube/a/nodes", &[(3.0, 50.0)]),
            ],
            1010.0,
            &d,
        );
        assert_eq!(c.total_ms, 1000.0);
        assert_eq!(c.critical, "sts");
        assert_eq!(c.clouds["kubernetes"], 50.0);
        // Serial: one after the other, with 5 ms of the launcher's own work between.
        let s = observed(
            &[
                hit("sts", &[(2.0, 1000.0)]),
                hit("kube/a/nodes", &[(1007.0, 50.0)]),
            ],
            1060.0,
            &d,
        );
        assert_eq!(s.total_ms, 1050.0);
        assert_eq!(s.critical, "sts → kube/a/nodes");
        // Started 3 ms apart by a busy launcher, still side by side: the slower one.
        let skew = observed(
            &[
                hit("kube/a/nodes", &[(0.0, 80.0)]),
                hit("sts", &[(3.0, 120.0)]),
            ],
            130.0,
            &d,
        );
        assert_eq!(skew.total_ms, 120.0);
        assert_eq!(skew.critical, "sts");
        // A thread pool of two over four regions: two rounds, then a later phase.
        // The GCP token, then the list: the list waited for the token, not for STS.
        let g = observed(
            &[
                hit("sts", &[(1.0, 1000.0)]),
                hit("gcp/token", &[(1.0, 100.0)]),
                hit("gcp/reservations", &[(102.0, 1700.0)]),
            ],
            1810.0,
            &d,
        );
        assert_eq!(g.critical, "gcp/token → gcp/reservations");
        assert_eq!(
            g.total_ms, 1800.0,
            "the 1 ms between token and list is the launcher's"
        );
        let p = observed(
            &[
                hit("sts", &[(0.0, 100.0)]),
                hit(
                    "ec2.describe_availability_zones",
                    &[(100.0, 80.0), (100.0, 80.0), (180.0, 80.0), (180.0, 80.0)],
                ),
                hit("gcp/reservations", &[(300.0, 500.0)]),
            ],
            900.0,
            &d,
        );
        assert_eq!(p.total_ms, 100.0 + 160.0 + 500.0);
        assert_eq!(
            p.critical,
            "sts → ec2.describe_availability_zones ×2 → gcp/reservations"
        );
        assert_eq!(p.clouds["aws"], 260.0);
    }

    #[test]
    fn observed_waits_end_with_the_launch_and_the_attempt() {
        let d = Deadlines::for_cloud_timeout(Duration::from_secs(5));
        // A hung node list counts up to the attempt timeout, a hung GCP call up to the launch's end.
        let o = observed(
            &[
                hit("kube/a/nodes", &[(0.0, 3_600_000.0)]),
                hit("gcp/reservations", &[(0.0, 3_600_000.0)]),
            ],
            700.0,
            &d,
        );
        assert_eq!(o.total_ms, 700.0);
        assert!(o.clouds["kubernetes"] <= 700.0);
        assert!(observed(&[], 10.0, &d).critical.is_empty());
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
