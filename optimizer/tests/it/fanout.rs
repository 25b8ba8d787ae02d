//! Whole launches against the mocks: the fan-out, the caches seen from a
//! launch, partial tables on failures, and secrets staying out of every output.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use mocks::{Fault, GpuLabel, KubeMock, Latency, NodePool, StsMock, write_kubeconfig};
use optimizer::launch::{LaunchOptions, Request, run};
use planner::check::{CacheUse, Outcome};
use planner::cloud::CloudId;
use planner::render::launch::text as launch_text;
use planner::task::Overrides;

const CANARY_SECRET: &str = "canarySECRETdoNotLeak0123456789abcdefABCD";

fn options(home: &Path, env: Vec<(&str, String)>, clouds: &[CloudId]) -> LaunchOptions {
    let mut map: BTreeMap<String, String> =
        env.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    map.insert("HOME".into(), home.display().to_string());
    // The example catalogs: these launches test the fan-out, not downloads.
    map.insert("SKY_BUNDLED_CATALOGS".into(), "1".into());
    let mut opts = LaunchOptions::from_env(map, home.to_path_buf()).unwrap();
    opts.declared_clouds = Some(clouds.to_vec());
    opts.cloud_timeout = Duration::from_millis(1500);
    opts.fanout.global_deadline = Duration::from_secs(3);
    opts.aws.detect_ec2 = false;
    opts
}

fn sts_env(sts: &StsMock) -> Vec<(&'static str, String)> {
    let mut env = sts.aws_env();
    env.retain(|(k, _)| *k != "AWS_SECRET_ACCESS_KEY");
    env.push(("AWS_SECRET_ACCESS_KEY", CANARY_SECRET.to_string()));
    env
}

fn gpu_request(gpus: &str) -> Request {
    Request {
        entrypoint: Vec::new(),
        overrides: Overrides {
            gpus: Some(gpus.into()),
            ..Default::default()
        },
    }
}

#[tokio::test]
async fn second_launch_uses_the_identity_cache_and_the_account_mapping() {
    let sts = StsMock::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let opts = options(home.path(), sts_env(&sts), &[CloudId::Aws, CloudId::Gcp]);

    let first = run(&opts, &gpu_request("V100")).await.unwrap();
    assert_eq!(sts.get_caller_identity().count(), 1);
    assert_eq!(first.prepared.fanout.reports[0].cache(), CacheUse::Miss);
    // The identity selects the account's zone mapping (md5 of the mocked UserId).
    assert_eq!(first.prepared.az_mapping.as_deref(), Some("fbffe8df"));

    let second = run(&opts, &gpu_request("V100")).await.unwrap();
    assert_eq!(
        sts.get_caller_identity().count(),
        1,
        "the second launch must not call STS"
    );
    assert!(matches!(
        second.prepared.fanout.reports[0].cache(),
        CacheUse::Hit { .. }
    ));
    assert_eq!(launch_text(&first), launch_text(&second));

    let mut refresh = opts.clone();
    refresh.refresh = true;
    run(&refresh, &gpu_request("V100")).await.unwrap();
    assert_eq!(
        sts.get_caller_identity().count(),
        2,
        "--refresh bypasses the cache"
    );
}

#[tokio::test]
async fn a_hung_sts_gives_a_partial_table_within_the_deadline() {
    let sts = StsMock::builder().fault(Fault::Hang).start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut opts = options(
        home.path(),
        sts_env(&sts),
        &[CloudId::Aws, CloudId::Gcp, CloudId::Lambda],
    );
    opts.cloud_timeout = Duration::from_millis(400);
    opts.aws.service.request_timeout = Duration::from_secs(30);
    opts.aws.operation_timeout = Duration::from_secs(30);

    let started = Instant::now();
    let result = run(&opts, &gpu_request("V100")).await.unwrap();
    let elapsed = started.elapsed();

    assert!(elapsed < Duration::from_secs(2), "took {elapsed:?}");
    let aws = &result.prepared.fanout.reports[0];
    assert!(
        matches!(
            aws.outcome,
            Outcome::Failed(planner::check::CloudError::Timeout(_))
        ),
        "{aws:?}"
    );
    assert_eq!(result.prepared.excluded.len(), 1);
    assert_eq!(result.prepared.excluded[0].cloud, CloudId::Aws);
    let text = launch_text(&result);
    assert!(text.contains("Considered resources"), "{text}");
    assert!(
        text.contains("GCP (") && text.contains("Lambda ("),
        "{text}"
    );
    assert!(!text.contains("AWS ("), "AWS must be left out:\n{text}");
}

#[tokio::test]
async fn expired_credentials_leave_aws_out_with_the_reason() {
    let sts = StsMock::builder()
        .fault(Fault::ExpiredToken)
        .start()
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let opts = options(home.path(), sts_env(&sts), &[CloudId::Aws, CloudId::Gcp]);
    let result = run(&opts, &gpu_request("T4")).await.unwrap();
    assert_eq!(result.prepared.excluded.len(), 1);
    let reason = &result.prepared.excluded[0].reason;
    assert!(reason.contains("credentials rejected"), "{reason}");
    assert!(!reason.contains(CANARY_SECRET));
    assert!(launch_text(&result).contains("GCP ("));
}

fn arrivals(recorder: &mocks::Recorder) -> Vec<Instant> {
    recorder
        .recording()
        .requests
        .iter()
        .map(|r| recorder.origin() + r.at)
        .collect()
}

// Latency is the point: with 300 ms per upstream, concurrent checks send both
// requests before either answers; serial checks send the second only after
// the first answered. Judged on request arrival times at the mocks, so a
// loaded machine (slow CPU work) cannot make it flaky.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clouds_are_checked_concurrently_and_serial_mode_adds_them_up() {
    let sts = StsMock::builder()
        .latency(Latency::fixed_ms(300))
        .start()
        .await
        .unwrap();
    let kube = KubeMock::builder()
        .latency(Latency::fixed_ms(300))
        .node_pools(vec![NodePool {
            cpu: "96".into(),
            memory: "1024Gi".into(),
            ..NodePool::gpu(1, "H100", 8, GpuLabel::Gfd)
        }])
        .start()
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let kubeconfig = write_kubeconfig(home.path(), &[("mock-ctx", &kube.uri())]).unwrap();
    let mut env = sts_env(&sts);
    env.push(("KUBECONFIG", kubeconfig.display().to_string()));
    let mut opts = options(home.path(), env, &[CloudId::Aws, CloudId::Kubernetes]);
    opts.refresh = true;
    opts.cloud_timeout = Duration::from_secs(5);
    opts.fanout.global_deadline = Duration::from_secs(6);

    let concurrent = run(&opts, &gpu_request("H100:8")).await.unwrap();
    assert!(
        launch_text(&concurrent).contains("Kubernetes (mock-ctx)"),
        "{}",
        launch_text(&concurrent)
    );
    assert!(
        concurrent.prepared.excluded.is_empty(),
        "{:?}",
        concurrent.prepared.excluded
    );
    let (sts_at, kube_at) = (arrivals(sts.get_caller_identity()), arrivals(kube.nodes()));
    assert_eq!((sts_at.len(), kube_at.len()), (1, 1));
    let gap = if kube_at[0] > sts_at[0] {
        kube_at[0] - sts_at[0]
    } else {
        sts_at[0] - kube_at[0]
    };
    assert!(
        gap < Duration::from_millis(300),
        "concurrent: requests {gap:?} apart"
    );

    opts.fanout.serial = true;
    run(&opts, &gpu_request("H100:8")).await.unwrap();
    let (sts_at, kube_at) = (arrivals(sts.get_caller_identity()), arrivals(kube.nodes()));
    assert_eq!((sts_at.len(), kube_at.len()), (2, 2));
    assert!(
        kube_at[1] >= sts_at[1] + Duration::from_millis(300),
        "serial: Kubernetes was asked {:?} after STS, before STS answered",
        kube_at[1] - sts_at[1]
    );
}

#[test]
fn the_secret_never_reaches_output_trace_or_state() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let sts = runtime.block_on(StsMock::start()).unwrap();
    let home = tempfile::tempdir().unwrap();
    let trace = home.path().join("trace.json");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sky"));
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("NO_COLOR", "1")
        .env("SKY_LOG", "debug")
        .env("SKY_BUNDLED_CATALOGS", "1")
        .env("SKY_ENABLED_CLOUDS", "aws,gcp");
    for (k, v) in sts_env(&sts) {
        cmd.env(k, v);
    }
    let out = cmd
        .args([
            "launch",
            "--dryrun",
            "-y",
            "-c",
            "t",
            "--gpus",
            "V100",
            "--timings",
            "--trace",
        ])
        .arg(&trace)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("AWS ("), "{stdout}");
    assert_eq!(sts.get_caller_identity().count(), 1);

    let trace_text = std::fs::read_to_string(&trace).unwrap();
    let events: serde_json::Value =
        serde_json::from_str(&trace_text).expect("trace is complete JSON");
    let names: Vec<String> = events
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e.get("name").and_then(|n| n.as_str()).map(str::to_string))
        .collect();
    assert!(names.iter().any(|n| n == "cloud_check"), "{names:?}");

    let mut everything = format!("{stdout}{stderr}{trace_text}");
    for entry in walk(home.path()) {
        everything.push_str(&entry.display().to_string());
        if let Ok(bytes) = std::fs::read(&entry) {
            everything.push_str(&String::from_utf8_lossy(&bytes));
        }
    }
    assert!(!everything.contains(CANARY_SECRET), "the secret leaked");
    assert!(
        !everything.contains(&CANARY_SECRET[..16]),
        "part of the secret leaked"
    );
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// Upstream #4373: a `sky check` during an STS outage (5xx or a hang) must not
/// record AWS as disabled; the next launch checks AWS again. Rejected
/// credentials, by contrast, are a verdict and persist.
#[tokio::test]
async fn a_transient_sts_failure_during_check_is_not_a_verdict() {
    use optimizer::launch::{ENABLED_CLOUDS_FILE, check};
    let cases = [
        (Fault::Status(503), true),
        (Fault::Hang, true),
        (Fault::ExpiredToken, false),
    ];
    for (fault, kept) in cases {
        let label = format!("{fault:?}");
        let sts = StsMock::builder().fault(fault).start().await.unwrap();
        let home = tempfile::tempdir().unwrap();
        let mut opts = options(home.path(), sts_env(&sts), &[]);
        opts.declared_clouds = None;
        opts.cloud_timeout = Duration::from_millis(400);
        opts.aws.service.request_timeout = Duration::from_secs(30);
        opts.aws.operation_timeout = Duration::from_secs(30);
        let report = check(&opts).await.unwrap();
        assert!(!report.enabled().contains(&CloudId::Aws), "{label}");
        let persisted: Vec<String> = serde_json::from_str(
            &std::fs::read_to_string(opts.state_dir.join(ENABLED_CLOUDS_FILE)).unwrap(),
        )
        .unwrap();
        assert_eq!(
            persisted.contains(&"aws".to_string()),
            kept,
            "{label}: {persisted:?}"
        );
        let before = sts.get_caller_identity().count();
        // Only AWS could be enabled here, so the launch itself finds no
        // cloud either way; what matters is whether it asked STS again.
        let launch = run(&opts, &gpu_request("V100")).await;
        assert!(launch.is_err(), "{label}");
        assert_eq!(sts.get_caller_identity().count() > before, kept, "{label}");
    }
}

/// `sky launch` writes the node cache once the table is printed
/// (`clouds::kubernetes::WriteBehind`), yet before the process exits: the
/// next process finds every context's listing and asks no API server. The
/// entry names neither a server nor a token.
#[test]
fn a_launch_writes_the_node_cache_before_it_exits() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let kube = runtime
        .block_on(
            KubeMock::builder()
                .node_pools(vec![NodePool {
                    cpu: "192".into(),
                    memory: "1024Gi".into(),
                    ..NodePool::gpu(2, "H100", 8, GpuLabel::Skypilot)
                }])
                .start(),
        )
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let contexts: Vec<(String, String)> =
        (0..16).map(|i| (format!("ctx-{i}"), kube.uri())).collect();
    let pairs: Vec<(&str, &str)> = contexts
        .iter()
        .map(|(n, u)| (n.as_str(), u.as_str()))
        .collect();
    let kubeconfig = write_kubeconfig(home.path(), &pairs).unwrap();
    std::fs::write(
        home.path().join("config.yaml"),
        "kubernetes:\n  allowed_contexts: all\n",
    )
    .unwrap();
    let launch = |refresh: bool| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sky"));
        cmd.env_clear()
            .env("HOME", home.path())
            .env("NO_COLOR", "1")
            .env("KUBECONFIG", &kubeconfig)
            .env("SKYPILOT_GLOBAL_CONFIG", home.path().join("config.yaml"))
            .env("SKY_BUNDLED_CATALOGS", "1")
            .env("SKY_ENABLED_CLOUDS", "kubernetes")
            .args(["launch", "--dryrun", "-y", "-c", "t", "--gpus", "H100:8"]);
        if refresh {
            cmd.arg("--refresh");
        }
        let out = cmd.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
        stdout
    };

    let listed = launch(true);
    assert_eq!(kube.nodes().count(), 16, "--refresh lists every context");
    let cached = launch(false);
    assert_eq!(
        kube.nodes().count(),
        16,
        "the first process wrote every listing before it exited"
    );
    assert_eq!(listed, cached);
    assert!(listed.contains("Kubernetes (ctx-15)"), "{listed}");
    let entries: Vec<_> = walk(&home.path().join(".sky"))
        .into_iter()
        .filter(|p| p.components().any(|c| c.as_os_str() == "kube-nodes"))
        .collect();
    assert!(!entries.is_empty(), "no node cache entry");
    for entry in entries {
        let text = String::from_utf8_lossy(&std::fs::read(&entry).unwrap()).into_owned();
        assert!(!text.contains("127.0.0.1"), "{}: {text}", entry.display());
    }
}
