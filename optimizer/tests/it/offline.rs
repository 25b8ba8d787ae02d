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
use planner::launch::{CatalogKind, Exit, LaunchResult, Refreshed};
use planner::render::json;
use planner::render::launch::{LaunchView, Stream, launch as render_launch};
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
            .files
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

#[test]
fn example_prices_standing_in_are_said_on_stdout_in_json_and_by_the_exit_code() {
    let rt = runtime();
    let hung = hung_server(&rt);
    let m = Machine::new();
    let result = launch(
        &rt,
        &m.options(&hung.hosted_url(), &[CloudId::Aws, CloudId::Gcp]),
    );
    assert_eq!(result.prepared.example_prices, [CloudId::Aws, CloudId::Gcp]);
    assert_eq!(result.exit(), Exit::ExamplePrices);
    assert_eq!(result.exit().code(), 5);
    // One warning line on stderr, whatever failed.
    assert_eq!(
        result.prepared.warnings.len(),
        1,
        "{:?}",
        result.prepared.warnings
    );
    let view = LaunchView {
        cluster: "t",
        json: false,
        yes: true,
        dryrun: true,
        timings: false,
        full_logging: None,
    };
    let stdout: Vec<String> = render_launch(&result, &view)
        .into_iter()
        .filter(|l| l.stream == Stream::Stdout)
        .map(|l| l.text)
        .collect();
    let note = stdout
        .iter()
        .position(|l| l.contains("AWS, GCP prices above are examples"))
        .unwrap_or_else(|| panic!("{stdout:#?}"));
    // Under the table, before "Dryrun finished.".
    assert!(stdout[note - 1].starts_with("---"), "{stdout:#?}");
    assert_eq!(stdout[note + 1], "Dryrun finished.");
    let doc = json::plan(&result, "t");
    assert_eq!(doc["example_prices"], serde_json::json!(["aws", "gcp"]));

    // The bundled mode the user chooses: no note, exit 0, an empty list.
    let home = tempfile::tempdir().unwrap();
    let env = [
        ("HOME", home.path().display().to_string()),
        ("SKY_BUNDLED_CATALOGS", "1".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let mut opts = LaunchOptions::from_env(env, home.path().to_path_buf()).unwrap();
    opts.declared_clouds = Some(vec![CloudId::Aws, CloudId::Gcp]);
    let bundled = launch(&rt, &opts);
    assert!(bundled.prepared.example_prices.is_empty());
    assert_eq!(bundled.exit(), Exit::Ok);
    assert!(
        bundled.prepared.warnings.is_empty(),
        "{:?}",
        bundled.prepared.warnings
    );
    assert_eq!(
        json::plan(&bundled, "t")["example_prices"],
        serde_json::json!([])
    );
    let text = render_launch(&bundled, &view);
    assert!(!text.iter().any(|l| l.text.contains("examples")));
}

#[test]
fn sky_catalog_refresh_without_names_refreshes_what_a_launch_uses_and_says_so() {
    let rt = runtime();
    let good = rt
        .block_on(
            CatalogServer::builder()
                .root(mocks::fixtures_dir().join("catalogs"))
                .start(),
        )
        .unwrap();
    let m = Machine::new();
    let refresh = |declared: Option<&str>| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sky"));
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", m.dir.path().join("home"))
            .env("SKY_STATE_DIR", m.state())
            .env("SKY_RUNTIME_DIR", m.dir.path().join("runtime"))
            .env("SKY_CATALOG_URL", good.hosted_url())
            .env("SKY_CATALOG_MIRROR_URL", "")
            .env("AWS_EC2_METADATA_DISABLED", "true")
            .args(["catalog", "refresh"]);
        if let Some(clouds) = declared {
            cmd.env("SKY_ENABLED_CLOUDS", clouds);
        }
        let out = cmd.output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    // A fresh machine, no credentials, nothing declared: only common/, and why.
    let (code, stdout) = refresh(None);
    assert_eq!(code, Some(0), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].contains("Refreshing only common/")
            && lines[0].contains("no cloud with a hosted catalog has credentials here"),
        "{stdout}"
    );
    assert_eq!(lines.len(), 3, "{stdout}");
    // Declared clouds: theirs too.
    let (code, stdout) = refresh(Some("lambda,gcp"));
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.starts_with(
            "Refreshing the catalogs of Lambda, GCP (what a launch uses: declared in SKY_ENABLED_CLOUDS) and common/ in "
        ),
        "{stdout}"
    );
    assert!(stdout.contains("lambda/vms.csv: downloaded"), "{stdout}");
    assert!(stdout.contains("gcp/vms.csv: downloaded"), "{stdout}");
}
