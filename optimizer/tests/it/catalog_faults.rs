//! The catalog download path against every way a catalog host can
//! misbehave (issue 26), through the binary: each fault costs at most the
//! deadline, leaves no file in SkyPilot's folder that is not a valid
//! catalog of its cloud and no temporary file, and is said in one warning
//! line; the run plans on the example catalogs and exits 5. Under
//! `just stress` (`SKY_STRESS=1`) the bounds are the issue's, on the
//! release binary: deadline + 0.5 s and peak RSS under 64 MB.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use mocks::{CatalogServer, Fault, Misbehave};

fn stress() -> bool {
    std::env::var_os("SKY_STRESS").is_some_and(|v| !v.is_empty())
}

/// A served folder whose every file is `body` (the clouds' `vms.csv` and
/// the `common/` tables), or the files of `from` under the names of `to`.
fn served(files: &[(&str, Vec<u8>)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (rel, body) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, body).unwrap();
    }
    dir
}

const FILES: [&str; 4] = [
    "aws/vms.csv",
    "gcp/vms.csv",
    "common/accelerators.csv",
    "common/metadata.csv",
];

fn fixture(rel: &str) -> Vec<u8> {
    std::fs::read(mocks::fixtures_dir().join("catalogs").join(rel)).unwrap()
}

/// Every file replaced by `body`.
fn all(body: &[u8]) -> tempfile::TempDir {
    let files: Vec<(&str, Vec<u8>)> = FILES.iter().map(|f| (*f, body.to_vec())).collect();
    served(&files)
}

/// The case's server: a [`Fault`], a [`Misbehave`], cut bodies, or a folder
/// of wrong files.
enum Host {
    Fault(Fault),
    Misbehave(Misbehave),
    Truncated,
    Files(tempfile::TempDir),
}

/// Runs `sky launch` on a fresh machine against `url` (no mirror), with
/// `deadline` per cloud; under stress through GNU `time` for the peak RSS.
fn launch(machine: &Path, url: &str, deadline: &str) -> (Output, Duration, u64) {
    launch_with(machine, url, "", deadline)
}

/// [`launch`] with `mirror` as the catalog mirror (`""`: none).
fn launch_with(machine: &Path, url: &str, mirror: &str, deadline: &str) -> (Output, Duration, u64) {
    launch_env(machine, url, mirror, deadline, &[])
}

/// [`launch_with`] with `env` added (AWS credentials and endpoints).
fn launch_env(
    machine: &Path,
    url: &str,
    mirror: &str,
    deadline: &str,
    env: &[(&str, String)],
) -> (Output, Duration, u64) {
    let sky = PathBuf::from(env!("CARGO_BIN_EXE_sky"));
    let mut cmd = if stress() {
        let mut c = Command::new("/usr/bin/time");
        c.args(["-f", "SKY-RSS %M"]).arg(&sky);
        c
    } else {
        Command::new(&sky)
    };
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", machine.join("home"))
        .env("SKY_STATE_DIR", machine.join("state"))
        .env("SKY_RUNTIME_DIR", machine.join("runtime"))
        .env("SKY_CATALOG_URL", url)
        .env("SKY_CATALOG_MIRROR_URL", mirror)
        .env("SKY_ENABLED_CLOUDS", "aws,gcp")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("NO_COLOR", "1")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .args([
            "launch",
            "--dryrun",
            "-y",
            "-c",
            "t",
            "--gpus",
            "V100",
            "--cloud-timeout",
            deadline,
        ]);
    let started = Instant::now();
    let mut out = cmd.output().expect("run sky");
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let (rest, rss_kb) = match stderr.rfind("SKY-RSS ") {
        Some(at) => (
            stderr[..at].to_string(),
            stderr[at + 8..]
                .trim()
                .parse::<u64>()
                .unwrap_or(u64::MAX / 2048),
        ),
        None => (stderr, 0),
    };
    out.stderr = rest.into_bytes();
    (out, took, rss_kb * 1024)
}

/// Every file under `dir`, recursively.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn every_misbehaving_catalog_host_costs_the_deadline_writes_nothing_and_says_one_line() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let cases: Vec<(&str, Host)> = vec![
        ("hang", Host::Fault(Fault::Hang)),
        ("drip-feed", Host::Fault(Fault::Trickle)),
        ("endless", Host::Fault(Fault::EndlessBody)),
        ("huge", Host::Fault(Fault::HugeBody)),
        ("truncated", Host::Truncated),
        ("garbage", Host::Fault(Fault::Garbage)),
        ("malformed", Host::Fault(Fault::MalformedBody)),
        ("reset", Host::Fault(Fault::ConnectionReset)),
        ("503", Host::Fault(Fault::Status(503))),
        ("captive portal", Host::Misbehave(Misbehave::CaptivePortal)),
        ("gzip bomb", Host::Misbehave(Misbehave::GzipBomb)),
        ("redirect loop", Host::Misbehave(Misbehave::RedirectLoop)),
        (
            "304 to an unconditional request",
            Host::Misbehave(Misbehave::NotModified),
        ),
        (
            "wrong-schema CSV",
            Host::Files(all(b"name,price,colour\nx,1.0,red\ny,2.0,blue\n")),
        ),
        (
            "another cloud's catalog",
            Host::Files(served(&[
                ("aws/vms.csv", fixture("gcp/vms.csv")),
                ("gcp/vms.csv", fixture("aws/vms.csv")),
                // The `common/` tables as served: only the clouds' swapped.
                (
                    "common/accelerators.csv",
                    fixture("common/accelerators.csv"),
                ),
                ("common/metadata.csv", fixture("common/metadata.csv")),
            ])),
        ),
    ];
    // Under stress, the deadline; in CI a short one.
    let (deadline, seconds) = if stress() {
        ("5", Duration::from_secs(5))
    } else {
        ("1", Duration::from_secs(1))
    };
    for (name, host) in cases {
        let swapped = matches!(host, Host::Files(_))
            .then_some(())
            .filter(|()| name.starts_with("another"));
        let server = rt
            .block_on(async {
                let b = CatalogServer::builder();
                match &host {
                    Host::Fault(f) => b.fault(*f),
                    Host::Misbehave(m) => b.misbehave(*m),
                    Host::Truncated => b.truncate(true),
                    Host::Files(dir) => b.root(dir.path()),
                }
                .start()
                .await
            })
            .unwrap();
        let machine = tempfile::tempdir().unwrap();
        let (out, took, rss) = launch(machine.path(), &server.hosted_url(), deadline);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        eprintln!("{name}: {took:?}, peak RSS {} MB", rss >> 20);
        assert_eq!(out.status.code(), Some(5), "{name}: {stdout}\n{stderr}");
        assert!(
            stdout.contains("AWS, GCP prices above are examples"),
            "{name}: {stdout}"
        );
        let warnings: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("sky: warning:"))
            .collect();
        assert_eq!(warnings.len(), 1, "{name}: {stderr}");
        assert!(
            warnings[0].contains("cannot download the catalogs of AWS, GCP"),
            "{name}: {stderr}"
        );
        // Nothing in SkyPilot's folder but the lock files (and the valid
        // `common/` tables of the swapped case): no catalog, no md5
        // record, no temporary file.
        let folder = machine.path().join("runtime/.sky/catalogs/v8");
        let left: Vec<PathBuf> = walk(&folder)
            .into_iter()
            .filter(|p| p.extension().is_none_or(|e| e != "lock"))
            .filter(|p| swapped.is_none() || !p.to_string_lossy().contains("common/"))
            .collect();
        assert!(left.is_empty(), "{name}: {left:?}");
        // The global deadline is --cloud-timeout + 1 s.
        let bound = seconds + Duration::from_secs(1) + Duration::from_millis(500);
        if stress() {
            assert!(took < bound, "{name}: {took:?} past {bound:?}");
            assert!(rss < 64 << 20, "{name}: peak RSS {} MB", rss >> 20);
        } else {
            // Leave room for a loaded CI machine.
            assert!(took < bound * 3, "{name}: {took:?}");
        }
    }
}

/// The failed downloads remembered on `machine` (one record per file and host).
fn remembered(machine: &Path) -> usize {
    walk(&machine.join("state/catalog-failures"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .count()
}

/// A catalog host that accepts and never answers leaves the mirror half
/// of the same deadline: the launch plans on the mirror's catalogs (exit
/// 0, no example prices), each file asked once of each host, and the
/// primary's failures are remembered so the next downloads go straight to
/// the mirror.
#[test]
fn a_silent_primary_leaves_the_mirror_the_rest_of_the_deadline() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (primary, mirror) = rt.block_on(async {
        let primary = CatalogServer::builder()
            .fault(Fault::Hang)
            .start()
            .await
            .unwrap();
        let mirror = CatalogServer::builder().start().await.unwrap();
        (primary, mirror)
    });
    let machine = tempfile::tempdir().unwrap();
    let (out, took, _) = launch_with(
        machine.path(),
        &primary.hosted_url(),
        &mirror.hosted_url(),
        "2",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("silent primary, good mirror: {took:?}");
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(!stdout.contains("are examples"), "{stdout}");
    assert!(
        !stderr.contains("sky: warning: cannot download"),
        "{stderr}"
    );
    assert_eq!(primary.files().count(), FILES.len(), "primary asked");
    assert_eq!(mirror.files().count(), FILES.len(), "mirror asked");
    assert_eq!(remembered(machine.path()), FILES.len());
    let folder = machine.path().join("runtime/.sky/catalogs/v8");
    for file in FILES {
        assert_eq!(
            std::fs::read(folder.join(file)).unwrap(),
            fixture(file),
            "{file}"
        );
    }
}

/// A silent primary and a silent mirror: the first launch pays the
/// deadline once for both (one warning line, example prices, exit 5) and
/// remembers both hosts' failures; the next launch asks neither.
#[test]
fn a_silent_primary_and_mirror_cost_one_launch_not_every_launch() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (primary, mirror) = rt.block_on(async {
        let start = || async {
            CatalogServer::builder()
                .fault(Fault::Hang)
                .start()
                .await
                .unwrap()
        };
        (start().await, start().await)
    });
    let machine = tempfile::tempdir().unwrap();
    let mut asked = (0, 0);
    for run in ["first", "second"] {
        let (out, took, _) = launch_with(
            machine.path(),
            &primary.hosted_url(),
            &mirror.hosted_url(),
            "2",
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        eprintln!("silent primary and mirror, {run} launch: {took:?}");
        assert_eq!(out.status.code(), Some(5), "{run}: {stdout}\n{stderr}");
        assert!(
            stdout.contains("AWS, GCP prices above are examples"),
            "{run}: {stdout}"
        );
        let warnings = stderr
            .lines()
            .filter(|l| l.starts_with("sky: warning:"))
            .count();
        assert_eq!(warnings, 1, "{run}: {stderr}");
        let now = (primary.files().count(), mirror.files().count());
        if run == "first" {
            assert_eq!(
                now,
                (FILES.len(), FILES.len()),
                "{run}: each host asked once per file"
            );
        } else {
            assert_eq!(now, asked, "{run}: a host in back-off was asked");
        }
        asked = now;
        assert_eq!(remembered(machine.path()), 2 * FILES.len(), "{run}");
    }
}

/// Every host a launch asks sends a body without end at once — the
/// catalog host and its mirror for every file, and EC2 (the AWS zone
/// names; STS answers, so the AWS credentials are found and EC2 asked) —
/// then every catalog host sends a body of tiny rows just under the size
/// cap: each launch ends by the deadline with one warning line, nothing
/// written, and under `SKY_STRESS=1` a peak RSS under 64 MB.
#[test]
fn every_host_sending_without_end_at_once_stays_under_64_mb() {
    every_host_at_once(&["endless", "tiny rows"]);
}

/// Every catalog host sends real rows (the AWS fixture's, repeated) just
/// under the 16 MB cap, for every file at once: the `vms.csv` are read
/// back and parsed one at a time (AWS's kept as its image, then decoded
/// for the request's rows; GCP's refused), the `common/` tables refused at
/// their 256 kB cap. The bound is the (≤ 64 MB under
/// `SKY_STRESS=1`; 435 MB before bodies were kept as images and the
/// `common/` tables had their own cap). Run under `just stress` only: a
/// debug build parses 32 MB of rows for tens of seconds on a busy machine,
/// past any bound this test could hold it to.
#[test]
fn near_cap_real_catalogs_from_every_host_stay_under_64_mb() {
    if !stress() {
        eprintln!(
            "skipped: near-cap real catalogs run under SKY_STRESS=1 (just stress), in release"
        );
        return;
    }
    every_host_at_once(&["real rows"]);
}

/// The cases of the two tests above, by name.
fn every_host_at_once(which: &[&str]) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (primary, mirror, sts, ec2) = rt.block_on(async {
        let endless = || async {
            CatalogServer::builder()
                .fault(Fault::EndlessBody)
                .start()
                .await
                .unwrap()
        };
        let sts = mocks::StsMock::start().await.unwrap();
        let ec2 = mocks::Ec2Mock::builder()
            .fault(Fault::EndlessBody)
            .start()
            .await
            .unwrap();
        (endless().await, endless().await, sts, ec2)
    });
    let mut env = sts.aws_env();
    env.push(("AWS_ENDPOINT_URL_EC2", ec2.uri()));
    let (deadline, seconds) = if stress() {
        ("5", Duration::from_secs(5))
    } else {
        ("2", Duration::from_secs(2))
    };
    let bound = seconds + Duration::from_secs(1) + Duration::from_millis(500);
    // Just under the 16 MB cap: tiny rows (refused before any parse) and
    // the real AWS rows over and over (parsed, then refused as the
    // duplicate rows of no region of GCP's for `gcp/vms.csv`; accepted
    // for `aws/vms.csv`).
    let cap = 16 << 20;
    let tiny = {
        let mut b = b"InstanceType,Price\n".to_vec();
        while b.len() + 4 < cap {
            b.extend_from_slice(b"a,1\n");
        }
        b
    };
    let aws = fixture("aws/vms.csv");
    let header_end = aws.iter().position(|&b| b == b'\n').unwrap() + 1;
    let big = {
        let mut b = aws.clone();
        while b.len() + (aws.len() - header_end) < cap {
            b.extend_from_slice(&aws[header_end..]);
        }
        b
    };
    let (tiny_rows, big_rows) = (all(&tiny), all(&big));
    let (tiny_host, big_host) = rt.block_on(async {
        let serve = |root: &Path| CatalogServer::builder().root(root).start();
        (
            serve(tiny_rows.path()).await.unwrap(),
            serve(big_rows.path()).await.unwrap(),
        )
    });
    let cases: Vec<(&str, String, String)> = vec![
        ("endless", primary.hosted_url(), mirror.hosted_url()),
        ("tiny rows", tiny_host.hosted_url(), String::new()),
        ("real rows", big_host.hosted_url(), String::new()),
    ];
    let mut peaks = Vec::new();
    for (name, url, mirror_url) in cases.iter().filter(|(n, ..)| which.contains(n)) {
        let machine = tempfile::tempdir().unwrap();
        let (out, took, rss) = launch_env(machine.path(), url, mirror_url, deadline, &env);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        eprintln!("every host {name}: {took:?}, peak RSS {} MB", rss >> 20);
        peaks.push((name, rss));
        let warnings: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("sky: warning:") && l.contains("cannot download"))
            .collect();
        assert_eq!(warnings.len(), 1, "{name}: {stderr}");
        assert!(out.status.code().is_some(), "{name}: {stderr}");
        assert!(
            stdout.contains("prices above are examples"),
            "{name}: {stdout}"
        );
        if *name == "endless" {
            assert!(
                ec2.describe_regions().count() + ec2.describe_availability_zones().count() > 0,
                "EC2 was not asked"
            );
        }
        if stress() {
            assert!(took < bound, "{name}: {took:?} past {bound:?}");
            assert!(rss < 64 << 20, "{name}: peak RSS {} MB", rss >> 20);
        } else {
            assert!(took < bound * 3, "{name}: {took:?}");
        }
    }
    assert_eq!(
        peaks.len(),
        which.len(),
        "a case named in {which:?} does not exist"
    );
}
