//! The overhead figure is right: a fake "cloud" that does nothing but wait for
//! the mocks must show (near) zero overhead, and the same fake with a known
//! amount of extra work must show that amount. Without the second half a
//! measurement that always printed zero would pass.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use harness::engine::{LaunchOutput, Launcher, Mode, ModeSetup, Sample, measure_mode};
use harness::floor::Deadlines;
use harness::sandbox::Sandbox;
use harness::scenario::Scenario;
use harness::stats::Stats;

const STS_MS: u64 = 120;
const KUBE_MS: u64 = 80;

/// One raw HTTP/1.1 request over std; returns the status.
fn http(uri: &str, request_line: &str, body: &str) -> u16 {
    let rest = uri.trim_start_matches("http://");
    // A kube context on the set's shared server has a path prefix (`/ctx/0`).
    let (addr, base) = rest
        .split_once('/')
        .map_or((rest, ""), |(a, _)| (a, &rest[a.len()..]));
    let (method, path) = request_line.split_once(' ').expect("METHOD /path");
    let mut s = TcpStream::connect(addr).expect("connect to mock");
    write!(
        s,
        "{method} {base}{path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("write request");
    let mut response = String::new();
    s.read_to_string(&mut response).expect("read response");
    response
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

/// A fake optimizer whose clouds just wait for their mocks (STS and one kube
/// context), serially or concurrently like the real fan-out, plus `extra`.
struct Sleeper {
    extra: Duration,
}

impl Launcher for Sleeper {
    fn launch(&mut self, setup: &ModeSetup<'_>) -> harness::Result<LaunchOutput> {
        let sts = setup
            .mocks
            .sts
            .as_ref()
            .map(|m| m.uri())
            .unwrap_or_default();
        let kube = setup.mocks.kube[0].mock.uri();
        let aws = || {
            assert_eq!(
                http(
                    &sts,
                    "POST /",
                    "Action=GetCallerIdentity&Version=2011-06-15"
                ),
                200
            )
        };
        let k8s = || assert_eq!(http(&kube, "GET /api/v1/nodes", ""), 200);
        if setup.mode.serial() {
            aws();
            k8s();
        } else {
            std::thread::scope(|s| {
                s.spawn(aws);
                s.spawn(k8s);
            });
        }
        std::thread::sleep(self.extra);
        Ok(LaunchOutput {
            exit_code: 0,
            stdout: String::new(),
        })
    }

    fn name(&self) -> &'static str {
        "sleeper"
    }
}

fn overhead(mode: Mode, extra_ms: u64) -> (Stats, Vec<Sample>) {
    let toml = format!(
        "description = \"sleeper\"\nclouds = [\"aws\", \"kubernetes\"]\n[mocks]\n\
         sts.get_caller_identity = {{ latency = {{ kind = \"fixed\", ms = {STS_MS} }} }}\n\
         kube = {{ contexts = 1, nodes = {{ latency = {{ kind = \"fixed\", ms = {KUBE_MS} }} }} }}\n"
    );
    let scenario = Scenario::parse(
        "sleeper",
        std::path::Path::new("sleeper/harness.toml"),
        &toml,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let mocks = rt
        .block_on(mocks::MockSet::start(&scenario.file.mocks))
        .unwrap_or_else(|e| panic!("{e}"));
    let sandbox = Sandbox::new(&scenario).unwrap_or_else(|e| panic!("{e}"));
    let env = sandbox
        .mode_env(&scenario, &mocks, mode.name(), mode.serial())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut setup = ModeSetup {
        mode,
        scenario: &scenario,
        env,
        mocks,
    };
    let deadlines = Deadlines::for_cloud_timeout(Duration::from_secs(5));
    let mut sleeper = Sleeper {
        extra: Duration::from_millis(extra_ms),
    };
    let (samples, _) = measure_mode(
        &mut sleeper,
        &mut setup,
        &deadlines,
        1,
        5,
        &mut |_| Ok(()),
        &mut |_| {},
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let measured: Vec<Sample> = samples.into_iter().filter(|s| !s.warmup).collect();
    let stats = Stats::of(&measured.iter().map(|s| s.overhead_ms).collect::<Vec<_>>());
    {
        let _enter = rt.enter();
        drop(setup);
    }
    (stats, measured)
}

#[test]
fn a_cloud_that_only_sleeps_has_near_zero_overhead() {
    let _serial = crate::util::timing_lock();
    for (mode, floor_ms) in [(Mode::Concurrent, STS_MS), (Mode::Serial, STS_MS + KUBE_MS)] {
        let (stats, samples) = overhead(mode, 0);
        for s in &samples {
            assert!(
                (s.floor_ms - floor_ms as f64).abs() < 0.5,
                "{mode:?}: floor {} != {floor_ms}",
                s.floor_ms
            );
            // Mocks never answer early, so a launch can never beat its floor.
            assert!(
                s.overhead_ms > -1.0,
                "{mode:?}: wall {} below floor {}",
                s.wall_ms,
                s.floor_ms
            );
        }
        // The minimum is immune to a busy machine (contention only adds); the
        // median bound leaves room for the parallel test suite on 2 cores.
        assert!(
            stats.min < 8.0 && stats.median < 25.0,
            "{mode:?}: overhead {stats:?} for a pure sleeper (floor {floor_ms} ms)"
        );
    }
}

#[test]
fn known_extra_work_shows_up_as_overhead() {
    let _serial = crate::util::timing_lock();
    let (stats, _) = overhead(Mode::Concurrent, 40);
    assert!(
        (38.0..60.0).contains(&stats.min),
        "40 ms of extra work measured as {stats:?} overhead"
    );
}
