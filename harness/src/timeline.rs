//! Where one launch's time went, as rows of bars on a time axis from the
//! launch's start: what the launcher was doing (its trace's spans) and when
//! it was waiting on a mocked request (the mocks' recordings). One
//! [`LaunchTimeline`] per mode, from one traced launch; both engines are read
//! into the same rows, so a reader compares like with like:
//!
//! | row | `sky` (Chrome trace of `sky`, or of the in-process launch) | SkyPilot (its `SKYPILOT_TIMELINE_FILE_PATH` timeline + the driver's phases) |
//! |---|---|---|
//! | start-up | process start to `configure` (`parse_args`, `start_runtime`, `options`) | `python start-up`, `import sky`, `task from flags`, `validate` |
//! | one per cloud | `cloud_check <cloud>` | `harness: check <Cloud>` (its `get_feasible_launchable_resources`), and the `gcloud` subprocesses for GCP |
//! | catalogs | `gather_catalogs` | `harness: catalog <file>` (pandas reads) |
//! | plan & print | `build_world`, `plan`, `render`, `output` | `Optimizer.optimize` outside the clouds' checks |
//!
//! Each cloud's row also carries its mocked waits ([`crate::floor::cloud_of`]).
//! Times are ms after the launch started: for a process, spawn (SkyPilot's
//! timeline is in Unix µs and the harness records the spawn time; `sky`'s
//! trace starts at `main`, so it is placed to end when the process exited);
//! in process, the call into `optimizer::launch::run`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::engine::Mode;
use crate::error::{HarnessError, Result};
use crate::floor::{Deadlines, cloud_of, union_ms, waits};
use crate::requests::EndpointHits;
use crate::skypilot::DriverResult;

/// `B` events not yet closed, per `(pid, tid)`: start, name, cloud.
type OpenStacks = BTreeMap<(String, String), Vec<(f64, String, Option<String>)>>;

/// One closed span of a Chrome-format trace, µs on the trace's clock.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceSpan {
    /// Event name.
    pub name: String,
    /// `args.cloud`, when the span has one (`cloud_check`).
    pub cloud: Option<String>,
    /// Start.
    pub start_us: f64,
    /// End.
    pub end_us: f64,
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn key(e: &Value, field: &str) -> String {
    match &e[field] {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Every closed span of a Chrome trace (the JSON array form tracing-chrome
/// writes, or the `{"traceEvents": [...]}` object SkyPilot writes): `B`/`E`
/// pairs per thread, `b`/`e` pairs per id and name, and `X` events.
pub fn parse_trace(text: &str) -> Result<Vec<TraceSpan>> {
    let doc: Value = serde_json::from_str(text).map_err(|e| HarnessError::Render {
        what: "trace".into(),
        detail: format!("not JSON: {e}"),
    })?;
    let events = match &doc {
        Value::Array(a) => a.as_slice(),
        Value::Object(o) => o
            .get("traceEvents")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice),
        _ => &[],
    };
    let mut stacks: OpenStacks = BTreeMap::new();
    let mut open: BTreeMap<(String, String), (f64, Option<String>)> = BTreeMap::new();
    let mut out = Vec::new();
    for e in events {
        let (Some(ph), Some(ts)) = (e["ph"].as_str(), number(&e["ts"])) else {
            continue;
        };
        let name = e["name"].as_str().unwrap_or_default().to_string();
        let cloud = e["args"]["cloud"].as_str().map(str::to_string);
        match ph {
            "B" => stacks
                .entry((key(e, "pid"), key(e, "tid")))
                .or_default()
                .push((ts, name, cloud)),
            "E" => {
                if let Some((start, name, cloud)) = stacks
                    .get_mut(&(key(e, "pid"), key(e, "tid")))
                    .and_then(Vec::pop)
                {
                    out.push(TraceSpan {
                        name,
                        cloud,
                        start_us: start,
                        end_us: ts,
                    });
                }
            }
            "b" => {
                open.insert((key(e, "id"), name), (ts, cloud));
            }
            "e" => {
                if let Some((start, opened_cloud)) = open.remove(&(key(e, "id"), name.clone())) {
                    out.push(TraceSpan {
                        name,
                        cloud: opened_cloud.or(cloud),
                        start_us: start,
                        end_us: ts,
                    });
                }
            }
            "X" => {
                if let Some(dur) = number(&e["dur"]) {
                    out.push(TraceSpan {
                        name,
                        cloud,
                        start_us: ts,
                        end_us: ts + dur,
                    });
                }
            }
            _ => {}
        }
    }
    out.sort_by(|a, b| a.start_us.total_cmp(&b.start_us));
    Ok(out)
}

/// Reads and parses a trace file.
pub fn read_trace(path: &Path) -> Result<Vec<TraceSpan>> {
    let text = std::fs::read_to_string(path).map_err(|e| HarnessError::io(path, e))?;
    parse_trace(&text)
}

/// What a bar shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BarKind {
    /// The launcher at work (a span of its trace).
    Work,
    /// A mocked request outstanding.
    Wait,
}

/// One bar: `[start_ms, end_ms]` after the launch started.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bar {
    /// Start.
    pub start_ms: f64,
    /// End.
    pub end_ms: f64,
    /// Work or wait.
    pub kind: BarKind,
    /// What it is (span or endpoint name).
    pub what: String,
}

/// One row of a launch's timeline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// `start-up`, a cloud's name, `catalogs`, `plan & print`, ...
    pub label: String,
    /// Its bars, in time order.
    pub bars: Vec<Bar>,
}

impl Row {
    /// Time covered by its work bars, ms.
    pub fn busy_ms(&self) -> f64 {
        self.union(BarKind::Work)
    }

    /// Time covered by its mocked waits, ms.
    pub fn waiting_ms(&self) -> f64 {
        self.union(BarKind::Wait)
    }

    fn union(&self, kind: BarKind) -> f64 {
        let mut v: Vec<(f64, f64)> = self
            .bars
            .iter()
            .filter(|b| b.kind == kind)
            .map(|b| (b.start_ms, b.end_ms))
            .collect();
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        union_ms(v.into_iter())
    }
}

/// One traced launch as rows of bars.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LaunchTimeline {
    /// The mode.
    pub mode: Mode,
    /// Spawn (or call) to exit, ms.
    pub wall_ms: f64,
    /// Its observed floor, ms.
    pub floor_ms: f64,
    /// The rows, in display order.
    pub rows: Vec<Row>,
}

/// Rows that are not clouds.
const PHASES: &[&str] = &["process", "start-up", "catalogs", "plan & print", "exit"];

impl LaunchTimeline {
    /// Folds the rows of clouds not in `networked` (clouds the scenario
    /// mocks no endpoint for: their checks read credential files only) into
    /// one row, `other clouds (azure, cudo, ...)`, placed after the last
    /// cloud row: a reader sees the clouds that wait on the network.
    pub fn fold_quiet_clouds(&mut self, networked: &[&str]) {
        let quiet =
            |r: &Row| !PHASES.contains(&r.label.as_str()) && !networked.contains(&r.label.as_str());
        let names: Vec<String> = self
            .rows
            .iter()
            .filter(|r| quiet(r))
            .map(|r| r.label.clone())
            .collect();
        if names.len() < 2 {
            return;
        }
        let mut bars: Vec<Bar> = self
            .rows
            .iter()
            .filter(|r| quiet(r))
            .flat_map(|r| r.bars.iter().cloned())
            .collect();
        bars.sort_by(|a, b| a.start_ms.total_cmp(&b.start_ms));
        let at = self
            .rows
            .iter()
            .rposition(|r| !PHASES.contains(&r.label.as_str()))
            .map_or(self.rows.len(), |i| i + 1);
        let folded = Row {
            label: format!("other clouds ({})", names.join(", ")),
            bars,
        };
        self.rows.insert(at, folded);
        self.rows
            .retain(|r| !quiet(r) || r.label.starts_with("other clouds ("));
    }
}

/// Appends `bar` to the row labelled `label` (created at the end).
fn push(rows: &mut Vec<Row>, label: &str, bar: Bar) {
    match rows.iter_mut().find(|r| r.label == label) {
        Some(r) => r.bars.push(bar),
        None => rows.push(Row {
            label: label.to_string(),
            bars: vec![bar],
        }),
    }
}

fn work(start_ms: f64, end_ms: f64, what: &str) -> Bar {
    Bar {
        start_ms,
        end_ms,
        kind: BarKind::Work,
        what: what.to_string(),
    }
}

/// Adds the mocked waits of `hits` to their clouds' rows and sorts every row's bars.
fn add_waits(rows: &mut Vec<Row>, hits: &[EndpointHits], wall_ms: f64, d: &Deadlines) {
    for w in waits(hits, wall_ms, d) {
        push(
            rows,
            cloud_of(&w.endpoint),
            Bar {
                start_ms: w.start,
                end_ms: w.end,
                kind: BarKind::Wait,
                what: w.endpoint.clone(),
            },
        );
    }
    for r in rows.iter_mut() {
        r.bars.sort_by(|a, b| a.start_ms.total_cmp(&b.start_ms));
    }
}

/// `sky`'s launch from its trace's spans. `origin_us` is the trace time of
/// the launch's start; spans outside `[origin, origin + wall]` are left out.
pub fn from_sky_trace(
    mode: Mode,
    spans: &[TraceSpan],
    origin_us: f64,
    wall_ms: f64,
    floor_ms: f64,
    hits: &[EndpointHits],
    d: &Deadlines,
) -> LaunchTimeline {
    let ms = |us: f64| (us - origin_us) / 1000.0;
    let inside: Vec<&TraceSpan> = spans
        .iter()
        .filter(|s| ms(s.start_us) >= -0.5 && ms(s.end_us) <= wall_ms + 0.5)
        .collect();
    let mut rows = Vec::new();
    push(&mut rows, "process", work(0.0, wall_ms, "spawn → exit"));
    if let Some(configure) = inside.iter().find(|s| s.name == "configure") {
        push(
            &mut rows,
            "start-up",
            work(
                0.0,
                ms(configure.start_us).max(0.0),
                "process start, parse_args, start_runtime",
            ),
        );
    }
    // `cloud_check` (sky's trace) or `cloud_check <cloud>` (the harness's in-process trace labels spans).
    let mut clouds: Vec<&TraceSpan> = inside
        .iter()
        .copied()
        .filter(|s| s.name == "cloud_check" || s.name.starts_with("cloud_check "))
        .collect();
    clouds.sort_by(|a, b| a.start_us.total_cmp(&b.start_us));
    for s in clouds {
        let cloud = s
            .cloud
            .clone()
            .or_else(|| s.name.strip_prefix("cloud_check ").map(str::to_string))
            .unwrap_or_else(|| "cloud".into());
        push(
            &mut rows,
            &cloud,
            work(ms(s.start_us), ms(s.end_us), "cloud_check"),
        );
    }
    for s in inside.iter().filter(|s| s.name == "gather_catalogs") {
        push(
            &mut rows,
            "catalogs",
            work(ms(s.start_us), ms(s.end_us), "gather_catalogs"),
        );
    }
    for s in inside.iter().filter(|s| {
        matches!(
            s.name.as_str(),
            "build_world" | "plan" | "render" | "output"
        )
    }) {
        push(
            &mut rows,
            "plan & print",
            work(ms(s.start_us), ms(s.end_us), &s.name),
        );
    }
    if let Some(shutdown) = inside.iter().find(|s| s.name == "shutdown") {
        push(
            &mut rows,
            "exit",
            work(ms(shutdown.start_us), wall_ms, "shutdown, process exit"),
        );
    }
    add_waits(&mut rows, hits, wall_ms, d);
    LaunchTimeline {
        mode,
        wall_ms,
        floor_ms,
        rows,
    }
}

/// `span` minus every interval of `cut`: what is left, in order.
pub fn subtract(span: (f64, f64), cut: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut cut: Vec<(f64, f64)> = cut.iter().copied().filter(|(a, b)| b > a).collect();
    cut.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut out = Vec::new();
    let mut at = span.0;
    for (a, b) in cut {
        if b <= at {
            continue;
        }
        if a >= span.1 {
            break;
        }
        if a > at {
            out.push((at, a.min(span.1)));
        }
        at = at.max(b);
    }
    if at < span.1 {
        out.push((at, span.1));
    }
    out
}

/// The cloud name of SkyPilot's `repr(cloud)` (`AWS` → `aws`, `RunPod` → `runpod`).
fn skypilot_cloud(repr: &str) -> String {
    repr.to_ascii_lowercase()
}

/// SkyPilot's launch from its timeline events (Unix µs) and the driver's phases.
pub fn from_skypilot(
    mode: Mode,
    spans: &[TraceSpan],
    driver: &DriverResult,
    wall_ms: f64,
    floor_ms: f64,
    hits: &[EndpointHits],
    d: &Deadlines,
) -> LaunchTimeline {
    let ms = |us: f64| (us - driver.spawn_us) / 1000.0;
    let mut rows = Vec::new();
    push(&mut rows, "process", work(0.0, wall_ms, "spawn → exit"));
    for p in &driver.phases {
        if p.name != "optimize" {
            push(
                &mut rows,
                "start-up",
                work(ms(p.start_us), ms(p.end_us), &p.name),
            );
        }
    }
    let mut checks: Vec<&TraceSpan> = spans
        .iter()
        .filter(|s| s.name.starts_with("harness: check "))
        .collect();
    checks.sort_by(|a, b| a.start_us.total_cmp(&b.start_us));
    for s in &checks {
        let cloud = skypilot_cloud(s.name.trim_start_matches("harness: check "));
        push(
            &mut rows,
            &cloud,
            work(
                ms(s.start_us),
                ms(s.end_us),
                "get_feasible_launchable_resources",
            ),
        );
    }
    for s in spans
        .iter()
        .filter(|s| s.name.starts_with("harness: subprocess gcloud"))
    {
        push(
            &mut rows,
            "gcp",
            work(
                ms(s.start_us),
                ms(s.end_us),
                "gcloud compute reservations list",
            ),
        );
    }
    for s in spans
        .iter()
        .filter(|s| s.name.starts_with("harness: catalog "))
    {
        push(
            &mut rows,
            "catalogs",
            work(
                ms(s.start_us),
                ms(s.end_us),
                s.name.trim_start_matches("harness: "),
            ),
        );
    }
    // The optimizer's own work: `Optimizer.optimize` outside the clouds'
    // checks, the reservations and the catalog reads it contains.
    let inner: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.label != "process" && r.label != "start-up")
        .flat_map(|r| r.bars.iter().map(|b| (b.start_ms, b.end_ms)))
        .collect();
    for s in spans
        .iter()
        .filter(|s| s.name.ends_with("Optimizer.optimize"))
    {
        for (a, b) in subtract((ms(s.start_us), ms(s.end_us)), &inner) {
            push(
                &mut rows,
                "plan & print",
                work(a, b, "Optimizer.optimize, outside the checks"),
            );
        }
    }
    if let Some(end) = driver.end_us.map(ms).filter(|e| *e < wall_ms) {
        push(
            &mut rows,
            "exit",
            work(
                end,
                wall_ms,
                "interpreter exit (atexit: the timeline is written)",
            ),
        );
    }
    add_waits(&mut rows, hits, wall_ms, d);
    LaunchTimeline {
        mode,
        wall_ms,
        floor_ms,
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skypilot::Phase;
    use std::time::Duration;

    const SKY_TRACE: &str = r#"[
      {"name":"thread_name","ph":"M","pid":1,"tid":0},
      {"name":"configure","ph":"b","id":1,"pid":1,"tid":0,"ts":2000.0},
      {"name":"configure","ph":"e","id":1,"pid":1,"tid":0,"ts":2100.0},
      {"name":"cloud_check","ph":"b","id":3,"pid":1,"tid":0,"ts":2200.0,"args":{"cloud":"aws"}},
      {"name":"cloud_check","ph":"e","id":3,"pid":1,"tid":0,"ts":1002200.0,"args":{"cloud":"aws","outcome":"ok"}},
      {"name":"gather_catalogs","ph":"b","id":2,"pid":1,"tid":0,"ts":2150.0},
      {"name":"gather_catalogs","ph":"e","id":2,"pid":1,"tid":0,"ts":30000.0},
      {"name":"plan","ph":"b","id":4,"pid":1,"tid":0,"ts":1002300.0},
      {"name":"plan","ph":"e","id":4,"pid":1,"tid":0,"ts":1003000.0}
    ]"#;

    #[test]
    fn quiet_clouds_fold_into_one_row() {
        let row = |label: &str, s: f64| Row {
            label: label.into(),
            bars: vec![work(s, s + 1.0, "x")],
        };
        let mut t = LaunchTimeline {
            mode: Mode::Warm,
            wall_ms: 10.0,
            floor_ms: 0.0,
            rows: vec![
                row("process", 0.0),
                row("aws", 1.0),
                row("azure", 2.0),
                row("cudo", 3.0),
                row("catalogs", 4.0),
            ],
        };
        t.fold_quiet_clouds(&["aws", "gcp"]);
        let labels: Vec<&str> = t.rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            ["process", "aws", "other clouds (azure, cudo)", "catalogs"]
        );
        assert_eq!(t.rows[2].bars.len(), 2);
    }

    #[test]
    fn subtracting_intervals() {
        assert_eq!(
            subtract((0.0, 10.0), &[(2.0, 3.0), (5.0, 12.0)]),
            [(0.0, 2.0), (3.0, 5.0)]
        );
        assert_eq!(subtract((0.0, 10.0), &[]), [(0.0, 10.0)]);
        assert!(subtract((0.0, 10.0), &[(-1.0, 11.0)]).is_empty());
    }

    #[test]
    fn skys_trace_becomes_rows() {
        let spans = parse_trace(SKY_TRACE).unwrap();
        assert_eq!(spans.len(), 4);
        assert_eq!(
            spans
                .iter()
                .find(|s| s.name == "cloud_check")
                .unwrap()
                .cloud
                .as_deref(),
            Some("aws")
        );
        let hits = [EndpointHits {
            endpoint: "sts".into(),
            at_ms: vec![3.0],
            delays_ms: vec![998.0],
            statuses: vec![Some(200)],
        }];
        let d = Deadlines::for_cloud_timeout(Duration::from_secs(5));
        let t = from_sky_trace(Mode::Concurrent, &spans, 0.0, 1004.0, 998.0, &hits, &d);
        let labels: Vec<&str> = t.rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            ["process", "start-up", "aws", "catalogs", "plan & print"]
        );
        let aws = &t.rows[2];
        assert_eq!(aws.busy_ms(), 1000.0);
        assert_eq!(aws.waiting_ms(), 998.0);
        assert_eq!(t.rows[1].busy_ms(), 2.0);
    }

    #[test]
    fn skypilots_timeline_becomes_the_same_rows() {
        let text = r#"{"traceEvents": [
          {"name":"harness: check AWS","ph":"B","pid":"9","tid":"11","ts":" 1000500000.000"},
          {"name":"harness: check GCP","ph":"B","pid":"9","tid":"12","ts":" 1000500010.000"},
          {"name":"harness: catalog gcp/vms.csv","ph":"B","pid":"9","tid":"12","ts":" 1000500020.000"},
          {"name":"harness: catalog gcp/vms.csv","ph":"E","pid":"9","tid":"12","ts":" 1000560020.000"},
          {"name":"harness: check GCP","ph":"E","pid":"9","tid":"12","ts":" 1000600010.000"},
          {"name":"harness: check AWS","ph":"E","pid":"9","tid":"11","ts":" 1001500000.000"},
          {"name":"harness: subprocess gcloud compute reservations list","ph":"B","pid":"9","tid":"11","ts":" 1001600000.000"},
          {"name":"harness: subprocess gcloud compute reservations list","ph":"E","pid":"9","tid":"11","ts":" 1003300000.000"}
        ], "displayTimeUnit": "ms"}"#;
        let spans = parse_trace(text).unwrap();
        assert_eq!(spans.len(), 4);
        let driver = DriverResult {
            exit_code: 0,
            error: None,
            phases: vec![Phase {
                name: "import sky".into(),
                start_us: 1_000_100_000.0,
                end_us: 1_000_500_000.0,
            }],
            network_attempts: vec![],
            cpu_count: Some(2),
            end_us: None,
            spawn_us: 1_000_000_000.0,
        };
        let d = Deadlines::for_cloud_timeout(Duration::from_secs(5));
        let t = from_skypilot(Mode::SkyPilot, &spans, &driver, 3400.0, 0.0, &[], &d);
        let labels: Vec<&str> = t.rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels, ["process", "start-up", "aws", "gcp", "catalogs"]);
        assert_eq!(t.rows[1].busy_ms(), 400.0);
        let gcp = &t.rows[3];
        assert_eq!(gcp.bars.len(), 2, "its check and the gcloud subprocess");
        assert_eq!(gcp.busy_ms(), 100.0 + 1700.0);
    }
}
