//! `--timings`: how long each cloud's check took, what its cache did, and
//! which check was the critical path.

use std::time::Duration;

use crate::check::{CacheUse, FanOut, Outcome};
use crate::launch::Prepared;
use crate::text::ansi;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// After a launch: the catalog load, one line per cloud, the critical path.
pub fn launch(prepared: &Prepared) -> Vec<String> {
    let fanout = &prepared.fanout;
    let mut out = vec![
        String::new(),
        format!(
            "{}Timings{} (catalog load {:.1} ms, overlapping the checks):",
            ansi::BRIGHT,
            ansi::RESET,
            ms(prepared.catalog_load)
        ),
    ];
    for r in &fanout.reports {
        let cache = match r.cache() {
            CacheUse::None => "-".to_string(),
            CacheUse::Hit { age } => format!("hit ({}s old)", age.as_secs()),
            CacheUse::Miss => "miss".to_string(),
        };
        let outcome = match &r.outcome {
            Outcome::Ready(_) => "ok".to_string(),
            Outcome::NoCredentials(_) => "no credentials".to_string(),
            Outcome::Failed(e) => format!("failed: {e}"),
        };
        out.push(format!(
            "  {:<11} {:>9.1} ms  cache {:<14} {outcome}",
            r.cloud.repr(),
            ms(r.elapsed),
            cache
        ));
    }
    if let Some(c) = fanout.critical_path() {
        out.push(format!(
            "  critical path: {} ({:.1} ms); fan-out wall time {:.1} ms",
            c.cloud.repr(),
            ms(c.started + c.elapsed),
            ms(fanout.wall)
        ));
    }
    out
}

/// After `sky check`: one line per cloud, then one per storage check.
pub fn check(fanout: &FanOut) -> Vec<String> {
    let mut out = vec![String::new()];
    out.extend(
        fanout
            .reports
            .iter()
            .map(|r| format!("  {:<11} {:>9.1} ms", r.cloud.repr(), ms(r.elapsed))),
    );
    out.extend(fanout.storage.iter().map(|r| {
        format!(
            "  {:<11} {:>9.1} ms  (storage)",
            r.provider.repr(),
            ms(r.elapsed)
        )
    }));
    out
}
