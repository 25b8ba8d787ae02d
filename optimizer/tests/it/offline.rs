//! A machine that cannot reach the catalog host (issue 26): the first
//! launch pays the download deadline, the next ones pay nothing until the
//! back-off has passed; `--retry-downloads` and `sky catalog refresh` try
//! now; one warning line says which clouds, why and what to do.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use mocks::{CatalogServer, Fault};
use optimizer::launch::{LaunchOptions, Request, refresh_catalogs, run};
use optimizer::state::Clock;
use planner::cloud::CloudId;
use planner::launch::{CatalogKind, LaunchResult, Refreshed};
use planner::task::Overrides;

/// A fresh machine: empty HOME, state and SkyPilot folders.
struct Machine {
    dir: tempfile::TempDir,
}

impl Machine {
    fn new() -> Machine {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        Machine { dir }
    }

    fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    fn options(&self, url: &str, clouds: &[CloudId]) -> LaunchOptions {
        let env: BTreeMap<String, String> = [
            ("HOME", self.dir.path().join("home")),
            ("SKY_STATE_DIR", self.state()),
            ("SKY_RUNTIME_DIR", self.dir.path().join("runtime")),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.display().to_string()))
        .chain([
            ("SKY_CATALOG_URL".to_string(), url.to_string()),
            ("SKY_CATALOG_MIRROR_URL".to_string(), String::new()),
            ("AWS_EC2_METADATA_DISABLED".to_string(), "true".to_string()),
        ])
        .collect();
        let mut opts = LaunchOptions::from_env(env, self.dir.path().join("home")).unwrap();
        opts.declared_clouds = Some(clouds.to_vec());
        opts.set_cloud_timeout(Duration::from_millis(400));
        opts.aws.detect_ec2 = false;
        opts
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn launch(rt: &tokio::runtime::Runtime, opts: &LaunchOptions) -> LaunchResult {
    let request = Request {
        entrypoint: Vec::new(),
        overrides: Overrides {
            gpus: Some("V100".into()),
            ..Default::default()
        },
    };
    rt.block_on(run(opts, &request)).unwrap()
}

fn hung_server(rt: &tokio::runtime::Runtime) -> CatalogServer {
    rt.block_on(
        CatalogServer::builder()
            .root(mocks::fixtures_dir().join("catalogs"))
            .fault(Fault::Hang)
            .start(),
    )
    .unwrap()
}

#[test]
fn an_unreachable_host_is_asked_once_then_held_back_until_its_backoff_or_a_retry() {
    let rt = runtime();
    let hung = hung_server(&rt);
    let m = Machine::new();
    let clouds = [CloudId::Aws, CloudId::Gcp];
    let opts = m.options(&hung.hosted_url(), &clouds);

    let first = launch(&rt, &opts);
    let asked = hung.files().count();
    // The two `vms.csv` and the two `common/` tables.
    assert_eq!(asked, 4, "{:?}", hung.files().recording().requests);
    assert!(
        first
            .prepared
            .catalogs
            .iter()
            .all(|c| c.kind == CatalogKind::Bundled),
        "{:?}",
        first.prepared.catalogs
    );

    // Within the back-off: nothing asked, the same catalogs.
    let second = launch(&rt, &opts);
    assert_eq!(hung.files().count(), asked);
    assert_eq!(second.prepared.catalogs, first.prepared.catalogs);
    let joined = second.prepared.warnings.join("\n");
    assert!(joined.contains("not retried for 5 min"), "{joined}");

    // `--retry-downloads` asks now.
    let mut retry = opts.clone();
    retry.catalogs.retry_downloads = true;
    launch(&rt, &retry);
    assert_eq!(hung.files().count(), 2 * asked);

    // Two failures in a row: 10 minutes. Six minutes later still held...
    let mut later = opts.clone();
    later.catalogs.clock = Clock::ahead_by(Duration::from_secs(6 * 60));
    launch(&rt, &later);
    assert_eq!(hung.files().count(), 2 * asked);
    // ...eleven minutes later, asked again.
    later.catalogs.clock = Clock::ahead_by(Duration::from_secs(11 * 60));
    launch(&rt, &later);
    assert_eq!(hung.files().count(), 3 * asked);
}

#[test]
fn sky_catalog_refresh_ignores_the_backoff_and_a_success_clears_it() {
    let rt = runtime();
    let hung = hung_server(&rt);
    let m = Machine::new();
    let opts = m.options(&hung.hosted_url(), &[CloudId::Lambda]);
    launch(&rt, &opts);
    let asked = hung.files().count();
    assert!(asked >= 1);
    let records = || {
        std::fs::read_dir(m.state().join("catalog-failures"))
            .map(|d| d.count())
            .unwrap_or(0)
    };
    assert_eq!(records(), asked);

    // The same host, now answering: the refresh does not wait out the back-off.
    let good = rt
        .block_on(
            CatalogServer::builder()
                .root(mocks::fixtures_dir().join("catalogs"))
                .start(),
        )
        .unwrap();
    let mut opts = m.options(&good.hosted_url(), &[CloudId::Lambda]);
    opts.set_cloud_timeout(Duration::from_secs(5));
    let refreshed = rt
        .block_on(refresh_catalogs(
            &opts,
            &[CloudId::Lambda],
            Duration::from_secs(5),
        ))
        .unwrap();
    assert!(
        refreshed
            .iter()
            .all(|(_, r)| matches!(r, Refreshed::Downloaded { .. })),
        "{refreshed:?}"
    );
    // Another port is another host: only the records of the hung one remain.
    assert_eq!(records(), asked);
}

#[test]
fn a_record_keeps_no_secret_of_the_url() {
    let rt = runtime();
    let hung = hung_server(&rt);
    let m = Machine::new();
    let url = hung
        .hosted_url()
        .replacen("http://", "http://user:s3cret@", 1)
        + "?token=t0ps3cret";
    let opts = m.options(&url, &[CloudId::Lambda]);
    let result = launch(&rt, &opts);
    let mut seen = result.prepared.warnings.join("\n");
    for entry in std::fs::read_dir(m.state().join("catalog-failures")).unwrap() {
        let path = entry.unwrap().path();
        seen.push_str(&std::fs::read_to_string(path).unwrap());
    }
    assert!(seen.contains("\"host\":\"127.0.0.1:"), "{seen}");
    for secret in ["s3cret", "t0ps3cret", "user:"] {
        assert!(!seen.contains(secret), "{secret} in {seen}");
    }
}
