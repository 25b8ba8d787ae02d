//! Catalogs downloaded into SkyPilot's folder, against the catalog mock:
//! which files are fetched and when, the md5 records SkyPilot reads, 304s,
//! hand-edited files, failures (5xx, 429 with the mirror, truncated bodies,
//! hangs), two processes at once, the explicit folder that is never written,
//! and the AWS zone names fetched from the EC2 mock.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use md5::{Digest, Md5};
use mocks::{CatalogServer, Ec2Mock, Fault, Latency, StsMock};
use optimizer::launch::{LaunchOptions, Request, refresh_catalogs, run};
use optimizer::state::Clock;
use planner::cloud::CloudId;
use planner::launch::{CatalogKind, Exit, LaunchResult, Refreshed};
use planner::render::launch::text as launch_text;
use planner::task::Overrides;

/// A machine with an empty SkyPilot folder (`SKY_RUNTIME_DIR`).
struct Machine {
    dir: tempfile::TempDir,
}

fn md5_hex(bytes: &[u8]) -> String {
    Md5::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Machine {
    fn new() -> Machine {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        Machine { dir }
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// SkyPilot's folder on this machine.
    fn folder(&self) -> PathBuf {
        self.dir.path().join("runtime/.sky/catalogs/v8")
    }

    fn env(&self, url: &str, mirror: &str) -> BTreeMap<String, String> {
        [
            ("HOME", self.home().display().to_string()),
            (
                "SKY_STATE_DIR",
                self.dir.path().join("state").display().to_string(),
            ),
            (
                "SKY_RUNTIME_DIR",
                self.dir.path().join("runtime").display().to_string(),
            ),
            ("SKY_CATALOG_URL", url.to_string()),
            ("SKY_CATALOG_MIRROR_URL", mirror.to_string()),
            ("AWS_EC2_METADATA_DISABLED", "true".to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    fn options(&self, server: &CatalogServer, clouds: &[CloudId]) -> LaunchOptions {
        self.options_with(self.env(&server.hosted_url(), ""), clouds)
    }

    fn options_with(&self, env: BTreeMap<String, String>, clouds: &[CloudId]) -> LaunchOptions {
        let mut opts = LaunchOptions::from_env(env, self.home()).unwrap();
        opts.declared_clouds = Some(clouds.to_vec());
        opts.set_cloud_timeout(Duration::from_secs(3));
        opts.aws.detect_ec2 = false;
        opts
    }

    fn read(&self, file: &str) -> Vec<u8> {
        std::fs::read(self.folder().join(file)).unwrap()
    }

    fn md5_record(&self, file: &str) -> String {
        std::fs::read_to_string(self.folder().join(format!(".meta/{file}.md5"))).unwrap()
    }

    fn mtime(&self, file: &str) -> SystemTime {
        std::fs::metadata(self.folder().join(file))
            .unwrap()
            .modified()
            .unwrap()
    }
}

fn request() -> Request {
    Request {
        entrypoint: Vec::new(),
        overrides: Overrides {
            gpus: Some("V100".into()),
            ..Default::default()
        },
    }
}

fn launch(opts: &LaunchOptions) -> LaunchResult {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(run(opts, &request())).unwrap()
}

fn kind_of(result: &LaunchResult, file: &str) -> CatalogKind {
    result
        .prepared
        .catalogs
        .iter()
        .find(|c| c.file == file)
        .unwrap_or_else(|| panic!("{file} not in {:?}", result.prepared.catalogs))
        .kind
}

/// A served copy of the fixture catalogs that a test may change.
fn served_root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = mocks::fixtures_dir().join("catalogs");
    for rel in [
        "aws/vms.csv",
        "gcp/vms.csv",
        "lambda/vms.csv",
        "common/accelerators.csv",
        "common/metadata.csv",
    ] {
        let to = dir.path().join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(src.join(rel), to).unwrap();
    }
    dir
}

fn paths(server: &CatalogServer) -> Vec<(String, Option<u16>)> {
    let mut p: Vec<_> = server
        .files()
        .recording()
        .requests
        .into_iter()
        .map(|r| (r.path, r.status))
        .collect();
    p.sort();
    p
}

async fn server(root: &Path, latency_ms: u64) -> CatalogServer {
    CatalogServer::builder()
        .root(root)
        .latency(Latency::fixed_ms(latency_ms))
        .start()
        .await
        .unwrap()
}

#[test]
fn a_cold_launch_downloads_what_it_needs_concurrently_and_a_warm_one_nothing() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let root = served_root();
    let delay = Duration::from_millis(1500);
    let catalogs = rt.block_on(server(root.path(), delay.as_millis() as u64));
    let m = Machine::new();
    let opts = m.options(&catalogs, &[CloudId::Aws, CloudId::Gcp]);

    let started = Instant::now();
    let result = launch(&opts);
    let took = started.elapsed();
    assert_eq!(result.exit(), Exit::Ok, "{:?}", result.prepared.warnings);
    // Four files, each answered after `delay`. Concurrent: every request
    // reaches the server before the first answer leaves it (whatever the
    // machine's load does to parsing afterwards), and the launch takes less
    // than the four delays serial downloads would need at the very least.
    let arrivals: Vec<Duration> = catalogs
        .files()
        .recording()
        .requests
        .iter()
        .map(|r| r.at)
        .collect();
    let (first, last) = (
        arrivals.iter().min().copied().unwrap_or_default(),
        arrivals.iter().max().copied().unwrap_or_default(),
    );
    assert!(last < first + delay, "requests arrived at {arrivals:?}");
    assert!(took >= delay, "cold launch took {took:?}");
    assert!(took < 4 * delay, "cold launch took {took:?}");
    assert_eq!(
        paths(&catalogs),
        vec![
            ("/catalogs/v8/aws/vms.csv".to_string(), Some(200)),
            (
                "/catalogs/v8/common/accelerators.csv".to_string(),
                Some(200)
            ),
            ("/catalogs/v8/common/metadata.csv".to_string(), Some(200)),
            ("/catalogs/v8/gcp/vms.csv".to_string(), Some(200)),
        ],
        "only the declared clouds' catalogs (Lambda is served but not needed)"
    );
    for file in [
        "aws/vms.csv",
        "gcp/vms.csv",
        "common/accelerators.csv",
        "common/metadata.csv",
    ] {
        assert_eq!(kind_of(&result, file), CatalogKind::Downloaded);
        let bytes = m.read(file);
        assert_eq!(bytes, std::fs::read(root.path().join(file)).unwrap());
        // SkyPilot's `is_catalog_modified` compares this record with the
        // file's md5: hex digest, no newline.
        assert_eq!(m.md5_record(file), md5_hex(&bytes), "{file}");
    }
    assert!(
        result.prepared.warnings.is_empty(),
        "{:?}",
        result.prepared.warnings
    );

    let again = launch(&opts);
    assert_eq!(
        catalogs.files().count(),
        4,
        "the warm launch sent a request"
    );
    assert_eq!(kind_of(&again, "aws/vms.csv"), CatalogKind::Cached);
    assert_eq!(launch_text(&again), launch_text(&result));
}

#[test]
fn past_its_pull_period_a_file_is_revalidated_and_replaced_only_when_changed() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let root = served_root();
    let catalogs = rt.block_on(server(root.path(), 0));
    let m = Machine::new();
    launch(&m.options(&catalogs, &[CloudId::Lambda]));
    let before = m.read("lambda/vms.csv");

    // Eight hours later (the pull period is seven): a conditional request.
    let mut later = m.options(&catalogs, &[CloudId::Lambda]);
    later.catalogs.clock = Clock::ahead_by(Duration::from_secs(8 * 3600));
    catalogs.files().clear();
    let result = launch(&later);
    assert_eq!(kind_of(&result, "lambda/vms.csv"), CatalogKind::NotModified);
    assert_eq!(
        paths(&catalogs),
        vec![("/catalogs/v8/lambda/vms.csv".to_string(), Some(304))],
        "the common tables are never refreshed (no pull period)"
    );
    assert!(m.mtime("lambda/vms.csv") > SystemTime::now() + Duration::from_secs(7 * 3600));
    assert_eq!(m.read("lambda/vms.csv"), before);

    // Upstream changes: a day later the new copy replaces the old one.
    let changed = String::from_utf8(before.clone())
        .unwrap()
        .replace("0.5", "0.6");
    std::fs::write(root.path().join("lambda/vms.csv"), &changed).unwrap();
    later.catalogs.clock = Clock::ahead_by(Duration::from_secs(24 * 3600));
    let result = launch(&later);
    assert_eq!(kind_of(&result, "lambda/vms.csv"), CatalogKind::Downloaded);
    assert_eq!(m.read("lambda/vms.csv"), changed.as_bytes());
    assert_eq!(m.md5_record("lambda/vms.csv"), md5_hex(changed.as_bytes()));
}

#[test]
fn a_file_edited_by_hand_is_never_overwritten() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let root = served_root();
    let catalogs = rt.block_on(server(root.path(), 0));
    let m = Machine::new();
    let opts = m.options(&catalogs, &[CloudId::Lambda, CloudId::Gcp]);
    launch(&opts);
    // Lambda edited after the download (md5 no longer matches); GCP put in
    // place without a record, as a user copying a catalog would.
    let mut edited = m.read("lambda/vms.csv");
    edited.extend_from_slice(b"\n");
    std::fs::write(m.folder().join("lambda/vms.csv"), &edited).unwrap();
    std::fs::remove_file(m.folder().join(".meta/gcp/vms.csv.md5")).unwrap();
    catalogs.files().clear();

    let mut later = opts.clone();
    later.catalogs.clock = Clock::ahead_by(Duration::from_secs(30 * 24 * 3600));
    let result = launch(&later);
    assert_eq!(catalogs.files().count(), 0, "{:?}", paths(&catalogs));
    assert_eq!(kind_of(&result, "lambda/vms.csv"), CatalogKind::Edited);
    assert_eq!(kind_of(&result, "gcp/vms.csv"), CatalogKind::Edited);
    assert_eq!(m.read("lambda/vms.csv"), edited);

    // Even an explicit refresh keeps them.
    let refreshed = rt
        .block_on(refresh_catalogs(
            &later,
            &[CloudId::Lambda, CloudId::Gcp],
            Duration::from_secs(5),
        ))
        .unwrap();
    let lambda = refreshed
        .files
        .iter()
        .find(|(f, _)| f == "lambda/vms.csv")
        .unwrap();
    assert_eq!(lambda.1, Refreshed::Edited);
    assert_eq!(m.read("lambda/vms.csv"), edited);
}

#[test]
fn a_failed_refresh_keeps_the_stale_file_with_one_warning_and_waits_a_period() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let root = served_root();
    let good = rt.block_on(server(root.path(), 0));
    let m = Machine::new();
    launch(&m.options(&good, &[CloudId::Lambda]));
    let failing = rt
        .block_on(
            CatalogServer::builder()
                .root(root.path())
                .fault(Fault::Status(503))
                .start(),
        )
        .unwrap();
    let mut later = m.options(&failing, &[CloudId::Lambda]);
    later.catalogs.clock = Clock::ahead_by(Duration::from_secs(8 * 3600));
    let result = launch(&later);
    assert_eq!(result.exit(), Exit::Ok);
    assert_eq!(kind_of(&result, "lambda/vms.csv"), CatalogKind::Stale);
    let lines: Vec<&String> = result
        .prepared
        .warnings
        .iter()
        .filter(|w| w.contains("Lambda"))
        .collect();
    assert_eq!(lines.len(), 1, "{:?}", result.prepared.warnings);
    assert!(
        lines[0].contains("HTTP 503") && lines[0].contains("using the copy from"),
        "{}",
        lines[0]
    );
    // Like SkyPilot's `os.utime`: the next launches do not retry at once.
    let sent = failing.files().count();
    launch(&later);
    assert_eq!(failing.files().count(), sent);
}

#[test]
fn a_rate_limited_primary_falls_back_to_the_mirror() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let root = served_root();
    let limited = rt
        .block_on(
            CatalogServer::builder()
                .root(root.path())
                .fault(Fault::Status(429))
                .start(),
        )
        .unwrap();
    let mirror = rt.block_on(server(root.path(), 0));
    let m = Machine::new();
    let opts = m.options_with(
        m.env(&limited.hosted_url(), &mirror.hosted_url()),
        &[CloudId::Gcp],
    );
    let result = launch(&opts);
    assert_eq!(kind_of(&result, "gcp/vms.csv"), CatalogKind::Downloaded);
    assert!(limited.files().count() >= 1);
    assert!(
        paths(&mirror).contains(&("/catalogs/v8/gcp/vms.csv".to_string(), Some(200))),
        "{:?}",
        paths(&mirror)
    );
    assert!(
        result.prepared.warnings.is_empty(),
        "{:?}",
        result.prepared.warnings
    );

    // Not found is not worth the mirror: the file does not exist.
    let missing = rt.block_on(server(&root.path().join("nothing"), 0));
    let m = Machine::new();
    let opts = m.options_with(
        m.env(&missing.hosted_url(), &mirror.hosted_url()),
        &[CloudId::Lambda],
    );
    mirror.files().clear();
    let result = launch(&opts);
    assert_eq!(kind_of(&result, "lambda/vms.csv"), CatalogKind::Bundled);
    assert_eq!(mirror.files().count(), 0);
}

#[test]
fn a_truncated_body_is_never_written_and_the_bundled_copy_says_so() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let root = served_root();
    let cut = rt
        .block_on(
            CatalogServer::builder()
                .root(root.path())
                .truncate(true)
                .start(),
        )
        .unwrap();
    let m = Machine::new();
    let result = launch(&m.options(&cut, &[CloudId::Aws]));
    assert!(cut.files().count() >= 1);
    assert!(!m.folder().join("aws/vms.csv").exists());
    assert!(!m.folder().join(".meta/aws/vms.csv.md5").exists());
    assert_eq!(kind_of(&result, "aws/vms.csv"), CatalogKind::Bundled);
    // One line: the failure, the example copies and what to do.
    let warnings = &result.prepared.warnings;
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with("cannot download the catalogs of AWS and common/: "),
        "{warnings:?}"
    );
    let examples: Vec<&String> = warnings
        .iter()
        .filter(|w| w.contains("prices are examples, not real"))
        .collect();
    assert_eq!(examples.len(), 1, "{warnings:?}");
    assert!(examples[0].contains("AWS"), "{}", examples[0]);
}

#[test]
fn a_hanging_server_costs_the_deadline_not_the_launch() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let root = served_root();
    let hung = rt
        .block_on(
            CatalogServer::builder()
                .root(root.path())
                .fault(Fault::Hang)
                .start(),
        )
        .unwrap();
    let m = Machine::new();
    let mut opts = m.options(&hung, &[CloudId::Gcp]);
    opts.set_cloud_timeout(Duration::from_millis(600));
    let started = Instant::now();
    let result = launch(&opts);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(3), "took {took:?}");
    // Planned, on example prices (the bundled copy stood in).
    assert_eq!(result.exit(), Exit::ExamplePrices);
    assert_eq!(kind_of(&result, "gcp/vms.csv"), CatalogKind::Bundled);
    assert!(
        result
            .prepared
            .warnings
            .iter()
            .any(|w| w.contains("no answer")),
        "{:?}",
        result.prepared.warnings
    );
}

#[test]
fn two_processes_refreshing_at_once_download_each_file_once() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let root = served_root();
    let catalogs = rt.block_on(server(root.path(), 500));
    let m = Machine::new();
    let spawn = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_sky"))
            .env_clear()
            .envs(m.env(&catalogs.hosted_url(), ""))
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("NO_COLOR", "1")
            .env("SKY_ENABLED_CLOUDS", "aws,lambda")
            .args(["launch", "--dryrun", "-y", "-c", "t", "--gpus", "V100"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    for out in [&a, &b] {
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(a.stdout, b.stdout);
    let mut per_file: BTreeMap<String, usize> = BTreeMap::new();
    for (path, _) in paths(&catalogs) {
        *per_file.entry(path).or_default() += 1;
    }
    assert_eq!(per_file.len(), 4, "{per_file:?}");
    assert!(per_file.values().all(|n| *n == 1), "{per_file:?}");
}

#[test]
fn an_explicit_folder_is_read_as_it_is_and_never_written() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let root = served_root();
    let catalogs = rt.block_on(server(root.path(), 0));
    let m = Machine::new();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("gcp")).unwrap();
    std::fs::copy(
        root.path().join("gcp/vms.csv"),
        dir.path().join("gcp/vms.csv"),
    )
    .unwrap();
    let mut opts = m.options(&catalogs, &[CloudId::Gcp, CloudId::Lambda]);
    opts.catalog_dir = Some(dir.path().to_path_buf());
    let result = launch(&opts);
    assert_eq!(catalogs.files().count(), 0);
    assert_eq!(kind_of(&result, "gcp/vms.csv"), CatalogKind::Dir);
    assert_eq!(kind_of(&result, "lambda/vms.csv"), CatalogKind::Bundled);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        vec!["gcp"],
        "nothing written into the explicit folder"
    );
    assert!(
        result
            .prepared
            .warnings
            .iter()
            .any(|w| w.contains("for Lambda") && w.contains("examples, not real")),
        "{:?}",
        result.prepared.warnings
    );
    let refused = rt.block_on(refresh_catalogs(
        &opts,
        &[CloudId::Gcp],
        Duration::from_secs(1),
    ));
    assert!(refused.is_err());
}

#[test]
fn a_needed_catalog_with_no_copy_anywhere_leaves_the_cloud_out() {
    // A hosted cloud `sky` has no bundled copy of (none: nothing to test).
    let fixtures = mocks::fixtures_dir().join("catalogs");
    let Some(cloud) = CloudId::ALL.into_iter().find(|c| {
        c.has_csv_catalog()
            && c.spec().catalog_pull.is_hosted()
            && !fixtures.join(c.name()).join("vms.csv").exists()
    }) else {
        eprintln!("every hosted cloud has a bundled catalog");
        return;
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    let root = served_root();
    let catalogs = rt.block_on(server(root.path(), 0));
    let m = Machine::new();
    let result = launch(&m.options(&catalogs, &[CloudId::Lambda, cloud]));
    assert_eq!(result.exit(), Exit::Partial);
    let excluded = &result.prepared.excluded;
    assert_eq!(excluded.len(), 1, "{excluded:?}");
    assert_eq!(excluded[0].cloud, cloud);
    assert!(
        excluded[0].reason.contains("no catalog"),
        "{}",
        excluded[0].reason
    );
    assert!(!result.prepared.world.enabled.contains(&cloud));
}

#[test]
fn aws_zone_names_are_fetched_once_per_identity_into_skypilots_folder() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let root = served_root();
    let catalogs = rt.block_on(server(root.path(), 0));
    let sts = rt.block_on(StsMock::start()).unwrap();
    let ec2 = rt
        .block_on(
            Ec2Mock::builder()
                .auth_failure_regions(vec!["af-south-1".into()])
                .start(),
        )
        .unwrap();
    let m = Machine::new();
    let mut env = m.env(&catalogs.hosted_url(), "");
    env.extend(sts.aws_env().into_iter().map(|(k, v)| (k.to_string(), v)));
    env.insert("AWS_ENDPOINT_URL_EC2".into(), ec2.uri());
    let opts = m.options_with(env, &[CloudId::Aws]);
    let result = launch(&opts);
    assert_eq!(ec2.describe_regions().count(), 1);
    assert!(ec2.describe_availability_zones().count() >= 10);
    let file = "aws/az_mappings-fbffe8df.csv";
    let text = String::from_utf8(m.read(file)).unwrap();
    assert!(
        text.starts_with("AvailabilityZoneName,AvailabilityZone\n"),
        "{text}"
    );
    assert!(text.contains("us-east-1a,use1-az2\n"), "{text}");
    assert_eq!(m.md5_record(file), md5_hex(text.as_bytes()));
    assert_eq!(result.prepared.az_mapping.as_deref(), Some("fbffe8df"));
    assert!(
        launch_text(&result).contains("us-east-1"),
        "{}",
        launch_text(&result)
    );
    let warned: Vec<&String> = result
        .prepared
        .warnings
        .iter()
        .filter(|w| w.contains("af-south-1"))
        .collect();
    assert_eq!(warned.len(), 1, "{:?}", result.prepared.warnings);

    // The mapping is cached per identity: the next launch asks nothing.
    launch(&opts);
    assert_eq!(ec2.describe_regions().count(), 1);

    // Never into an explicit folder.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("aws")).unwrap();
    std::fs::copy(
        root.path().join("aws/vms.csv"),
        dir.path().join("aws/vms.csv"),
    )
    .unwrap();
    let mut explicit = opts.clone();
    explicit.catalog_dir = Some(dir.path().to_path_buf());
    launch(&explicit);
    assert_eq!(ec2.describe_regions().count(), 1);
    assert!(!dir.path().join(file).exists());
}

#[test]
fn a_failing_ec2_keeps_zone_ids_with_one_warning_and_aws_usable() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let root = served_root();
    let catalogs = rt.block_on(server(root.path(), 0));
    let sts = rt.block_on(StsMock::start()).unwrap();
    let ec2 = rt
        .block_on(Ec2Mock::builder().fault(Fault::Forbidden).start())
        .unwrap();
    let m = Machine::new();
    let mut env = m.env(&catalogs.hosted_url(), "");
    env.extend(sts.aws_env().into_iter().map(|(k, v)| (k.to_string(), v)));
    env.insert("AWS_ENDPOINT_URL_EC2".into(), ec2.uri());
    let result = launch(&m.options_with(env, &[CloudId::Aws]));
    assert_eq!(result.exit(), Exit::Ok);
    assert!(result.prepared.world.enabled.contains(&CloudId::Aws));
    let warned: Vec<&String> = result
        .prepared
        .warnings
        .iter()
        .filter(|w| w.contains("zone names"))
        .collect();
    assert_eq!(warned.len(), 1, "{:?}", result.prepared.warnings);
    assert!(warned[0].contains("UnauthorizedOperation"), "{}", warned[0]);
    assert!(!m.folder().join("aws/az_mappings-fbffe8df.csv").exists());
}

#[test]
fn sky_catalog_refresh_downloads_now_then_revalidates() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let root = served_root();
    let catalogs = rt.block_on(server(root.path(), 0));
    let m = Machine::new();
    launch(&m.options(&catalogs, &[CloudId::Lambda]));
    // Upstream changes within the pull period: launches keep the copy,
    // `sky catalog refresh` fetches the new one at once.
    let before = m.read("lambda/vms.csv");
    let changed = String::from_utf8(before).unwrap().replace("0.5", "0.7");
    std::fs::write(root.path().join("lambda/vms.csv"), &changed).unwrap();
    catalogs.files().clear();
    let refresh_from = |url: &str, args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sky"))
            .env_clear()
            .envs(m.env(url, ""))
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("NO_COLOR", "1")
            .args(["catalog", "refresh"])
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let refresh = |args: &[&str]| refresh_from(&catalogs.hosted_url(), args);
    let (code, stdout, stderr) = refresh(&["lambda"]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("lambda/vms.csv: downloaded"),
        "{stdout}{stderr}"
    );
    assert_eq!(m.read("lambda/vms.csv"), changed.as_bytes());
    assert_eq!(m.md5_record("lambda/vms.csv"), md5_hex(changed.as_bytes()));
    // Nothing changed since: every file answers 304 to its validators.
    catalogs.files().clear();
    let (code, stdout, _) = refresh(&["lambda"]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("lambda/vms.csv: not modified"), "{stdout}");
    let statuses: Vec<Option<u16>> = paths(&catalogs).into_iter().map(|(_, s)| s).collect();
    assert!(
        !statuses.is_empty() && statuses.iter().all(|s| *s == Some(304)),
        "{statuses:?}"
    );
    // A failing server: one line per file, exit 3, the copy kept.
    let failing = rt
        .block_on(
            CatalogServer::builder()
                .root(root.path())
                .fault(Fault::Status(503))
                .start(),
        )
        .unwrap();
    let (code, stdout, _) = refresh_from(&failing.hosted_url(), &["lambda"]);
    assert_eq!(code, Some(3), "{stdout}");
    assert!(stdout.contains("lambda/vms.csv: failed"), "{stdout}");
    assert_eq!(m.read("lambda/vms.csv"), changed.as_bytes());
    // An unknown cloud name is a usage error naming it.
    let (code, _, stderr) = refresh(&["lamda"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("lamda") && stderr.contains("lambda"),
        "{stderr}"
    );
}

#[test]
fn json_says_which_catalog_each_cloud_used_and_how_old_it_is() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let root = served_root();
    let catalogs = rt.block_on(server(root.path(), 0));
    let m = Machine::new();
    let sky = |url: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sky"))
            .env_clear()
            .envs(m.env(url, ""))
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("NO_COLOR", "1")
            .env("SKY_ENABLED_CLOUDS", "gcp,lambda")
            .args(["launch", "--dryrun", "-y", "-o", "json", "--gpus", "V100"])
            .output()
            .unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
        (
            out.status.code(),
            json,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let entry = |json: &serde_json::Value, file: &str| -> serde_json::Value {
        json["catalogs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["file"] == file)
            .unwrap_or_else(|| panic!("{file} not in {}", json["catalogs"]))
            .clone()
    };

    // Nothing downloaded and no network (a closed port): the bundled copies,
    // with one line saying their prices are examples, `example_prices`
    // naming their clouds and exit 5.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/catalogs", l.local_addr().unwrap())
    };
    let (code, json, stderr) = sky(&closed);
    assert_eq!(code, Some(5), "{stderr}");
    assert_eq!(json["example_prices"], serde_json::json!(["gcp", "lambda"]));
    let gcp = entry(&json, "gcp/vms.csv");
    assert_eq!(gcp["source"], "bundled");
    assert_eq!(gcp["cloud"], "gcp");
    assert!(gcp["age_s"].is_null() && gcp["path"].is_null(), "{gcp}");
    assert_eq!(gcp["pull_hours"], 7);
    let examples: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("prices are examples, not real"))
        .collect();
    assert_eq!(examples.len(), 1, "{stderr}");
    assert!(
        examples[0].starts_with("sky: warning: ") && examples[0].contains("GCP, Lambda"),
        "{stderr}"
    );

    // Downloaded: the file, its age, its pull period.
    let (code, json, stderr) = sky(&catalogs.hosted_url());
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    let lambda = entry(&json, "lambda/vms.csv");
    assert_eq!(lambda["source"], "downloaded");
    assert_eq!(
        lambda["path"].as_str().map(PathBuf::from),
        Some(m.folder().join("lambda/vms.csv"))
    );
    assert!(lambda["age_s"].as_f64().unwrap() < 60.0, "{lambda}");
    let metadata = entry(&json, "common/metadata.csv");
    assert_eq!(metadata["source"], "downloaded");
    assert!(metadata["cloud"].is_null() && metadata["pull_hours"].is_null());

    // Then current: read from the folder with no request.
    catalogs.files().clear();
    let (_, json, _) = sky(&catalogs.hosted_url());
    assert_eq!(entry(&json, "lambda/vms.csv")["source"], "cached");
    assert_eq!(catalogs.files().count(), 0);
}

#[test]
fn a_body_over_the_size_cap_is_refused_and_never_written() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let root = served_root();
    let catalogs = rt.block_on(server(root.path(), 0));
    let m = Machine::new();
    let mut opts = m.options(&catalogs, &[CloudId::Lambda]);
    let size = std::fs::metadata(root.path().join("lambda/vms.csv"))
        .unwrap()
        .len() as usize;
    opts.catalogs.download.max_bytes = size - 1;
    let result = launch(&opts);
    assert_eq!(kind_of(&result, "lambda/vms.csv"), CatalogKind::Bundled);
    assert!(!m.folder().join("lambda/vms.csv").exists());
    let lines: Vec<&String> = result
        .prepared
        .warnings
        .iter()
        .filter(|w| w.contains("Lambda catalog"))
        .collect();
    assert_eq!(lines.len(), 1, "{:?}", result.prepared.warnings);
    assert!(lines[0].contains("larger than"), "{}", lines[0]);
    // At the cap exactly, it is accepted (retried now: the failure holds
    // the host back otherwise).
    opts.catalogs.download.max_bytes = size;
    opts.catalogs.retry_downloads = true;
    assert_eq!(
        kind_of(&launch(&opts), "lambda/vms.csv"),
        CatalogKind::Downloaded
    );
}
