//! Slurm adapter: inventories from fake login nodes (`fixtures/slurm/fake-ssh`
//! and throw-away scripts), deadlines, bounded output, failures as data,
//! the inventory cache and credential detection.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use optimizer::clouds::slurm::{InventoryCache, InventoryKey, SlurmCloud, SlurmOptions};
use optimizer::clouds::{CheckContext, Cloud, Credentials};
use planner::catalog::slurm::{SlurmCluster, SlurmInventory};
use planner::check::{CacheUse, CheckOutcome, CloudError, CloudFacts};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

fn fake_ssh() -> String {
    fixtures().join("slurm/fake-ssh").display().to_string()
}

/// The login nodes of the `slurm-gpu-h100` scenario.
fn scenario_hosts() -> PathBuf {
    fixtures().join("scenarios/slurm-gpu-h100/slurm/hosts")
}

const TWO_CLUSTERS: &str = "\
Host gpu-cluster
    HostName login.gpu.example.com
    User alice

Host campus
    HostName slurm.campus.edu
    User bob
    Port 2222
";

struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new(slurm_config: Option<&str>) -> Home {
        let dir = tempfile::tempdir().expect("tempdir");
        if let Some(text) = slurm_config {
            std::fs::create_dir_all(dir.path().join(".slurm")).expect("mkdir");
            std::fs::write(dir.path().join(".slurm/config"), text).expect("write config");
        }
        Home { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn ctx(&self, hosts: &Path, timeout: Duration) -> CheckContext {
        let mut env = BTreeMap::new();
        env.insert(
            "PATH".to_string(),
            std::env::var("PATH").unwrap_or_default(),
        );
        env.insert(
            "SKY_SLURM_FIXTURE_DIR".to_string(),
            hosts.display().to_string(),
        );
        env.insert("USER".to_string(), "tester".to_string());
        CheckContext {
            env,
            home: self.path().to_path_buf(),
            state_dir: self.path().join(".sky"),
            refresh: false,
            cloud_timeout: timeout,
            kubernetes_allowed_contexts: None,
            reservation_clouds: Vec::new(),
            gcp_project_id: None,
            sky_config: Default::default(),
        }
    }

    /// A throw-away `ssh` program with this shell body.
    fn program(&self, name: &str, body: &str) -> String {
        let path = self.path().join(name);
        std::fs::write(&path, format!("#!/usr/bin/env bash\n{body}\n")).expect("write program");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        path.display().to_string()
    }
}

fn options(program: String) -> SlurmOptions {
    let mut options = SlurmOptions {
        ssh_program: program,
        ..SlurmOptions::default()
    };
    options.service.request_timeout = Duration::from_secs(10);
    options
}

fn clusters(outcome: Result<CheckOutcome, CloudError>) -> Vec<SlurmCluster> {
    match outcome
        .expect("the check itself never fails on a login node")
        .facts
    {
        CloudFacts::Slurm(c) => c,
        other => panic!("unexpected facts {other:?}"),
    }
}

fn inventory(c: &SlurmCluster) -> &SlurmInventory {
    c.inventory.as_ref().expect("inventory")
}

#[tokio::test]
async fn every_cluster_answers_through_the_fake_login_node() {
    let home = Home::new(Some(TWO_CLUSTERS));
    let cloud = SlurmCloud::new(options(fake_ssh()), None);
    let ctx = home.ctx(&scenario_hosts(), Duration::from_secs(20));
    assert!(matches!(cloud.credentials(&ctx), Credentials::Present(_)));
    let got = clusters(cloud.check(&ctx).await);
    let names: Vec<&str> = got.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["gpu-cluster", "campus"]);
    let gpu = &got[0];
    assert_eq!(gpu.nodes().expect("nodes").len(), 5);
    assert_eq!(
        gpu.partition_names().expect("partitions"),
        ["gpu", "cpu", "debug"]
    );
    assert!(gpu.memory_scheduling().expect("asked").tracked);
    let campus = &got[1];
    assert_eq!(
        campus.partition_names().expect("partitions"),
        ["batch", "a100"]
    );
    let m = campus.memory_scheduling().expect("asked");
    assert!(!m.tracked);
    assert_eq!(m.parameters.as_deref(), Some("CR_CPU"));
}

/// One login node misbehaving in a given way; the other answers.
struct Misbehaviour {
    name: &'static str,
    /// The `ssh` program's body (`$HOSTS` is the fixture hosts folder).
    body: &'static str,
    /// Deadline of the check.
    timeout: Duration,
    /// What the campus cluster's inventory must say.
    expect: fn(&SlurmCluster),
}

fn starts_with(c: &SlurmCluster, prefix: &str) {
    let e = c.inventory.as_ref().expect_err("no inventory");
    assert!(e.starts_with(prefix), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn misbehaving_login_nodes_are_data_within_the_deadline() {
    let home = Home::new(Some(TWO_CLUSTERS));
    let fake = fake_ssh();
    let cases = [
        Misbehaviour {
            name: "slow but in time",
            body: "case \"$*\" in *slurm.campus.edu*) sleep 0.3;; esac; exec \"$FAKE\" \"$@\"",
            timeout: Duration::from_secs(10),
            expect: |c| assert_eq!(c.partition_names().expect("answered").len(), 2),
        },
        Misbehaviour {
            name: "hangs past the deadline",
            body: "case \"$*\" in *slurm.campus.edu*) sleep 30;; esac; exec \"$FAKE\" \"$@\"",
            timeout: Duration::from_millis(800),
            expect: |c| {
                starts_with(
                    c,
                    "subprocess.TimeoutExpired: the login node did not answer within 0.7 seconds",
                )
            },
        },
        Misbehaviour {
            name: "refuses connections",
            body: "case \"$*\" in *slurm.campus.edu*) echo 'ssh: connect to host slurm.campus.edu port 2222: Connection refused' >&2; exit 255;; esac; exec \"$FAKE\" \"$@\"",
            timeout: Duration::from_secs(10),
            expect: |c| {
                let inv = inventory(c);
                assert_eq!(inv.partitions.returncode, 255);
                assert_eq!(
                    c.partitions().expect_err("failed"),
                    "Failed to get partitions for cluster campus: sky.exceptions.CommandError: Command scontrol show partitions -o failed with return code 255.\nFailed to get Slurm partitions.\n\nssh: connect to host slurm.campus.edu port 2222: Connection refused\n"
                );
                assert_eq!(
                    c.memory_scheduling().expect("asked").failed.as_deref(),
                    Some("ssh: connect to host slurm.campus.edu port 2222: Connection refused\n")
                );
            },
        },
        Misbehaviour {
            name: "answers garbage",
            body: "case \"$*\" in *slurm.campus.edu*) echo 'Welcome!'; echo 'no frames here'; exit 0;; esac; exec \"$FAKE\" \"$@\"",
            timeout: Duration::from_secs(10),
            expect: |c| {
                assert_eq!(
                    c.inventory.as_ref().expect_err("garbage"),
                    "RuntimeError: Unexpected output from concurrent Slurm inventory commands: missing header."
                );
                assert_eq!(
                    c.partitions().expect_err("garbage"),
                    "Failed to get partitions for cluster campus: RuntimeError: Unexpected output from concurrent Slurm inventory commands: missing header."
                );
            },
        },
        Misbehaviour {
            name: "floods its output",
            body: "case \"$*\" in *slurm.campus.edu*) head -c 3000000 /dev/zero | tr '\\0' x; exit 0;; esac; exec \"$FAKE\" \"$@\"",
            timeout: Duration::from_secs(10),
            expect: |c| {
                starts_with(
                    c,
                    "RuntimeError: the login node's answer exceeded 1048576 bytes",
                )
            },
        },
    ];
    for case in cases {
        let program = home.program("ssh-wrapper", &format!("FAKE={fake:?}\n{}", case.body));
        let mut opts = options(program);
        opts.max_output_bytes = 1 << 20;
        let cloud = SlurmCloud::new(opts, None);
        let ctx = home.ctx(&scenario_hosts(), case.timeout);
        let start = Instant::now();
        let got = clusters(cloud.check(&ctx).await);
        let elapsed = start.elapsed();
        assert!(
            elapsed < case.timeout + Duration::from_secs(1),
            "{}: took {elapsed:?}",
            case.name
        );
        assert_eq!(
            got[0]
                .partition_names()
                .expect("gpu-cluster unaffected")
                .len(),
            3,
            "{}",
            case.name
        );
        (case.expect)(&got[1]);
    }
}

#[tokio::test]
async fn connection_problems_read_like_skypilot() {
    let config = "\
Host no-user
    HostName a.example.com
Host bad-port
    HostName b.example.com
    User u
    Port twenty-two
Host missing-key
    HostName c.example.com
    User u
    IdentityFile ~/.ssh/nope
";
    let home = Home::new(Some(config));
    let cloud = SlurmCloud::new(options(fake_ssh()), None);
    let got = clusters(
        cloud
            .check(&home.ctx(&scenario_hosts(), Duration::from_secs(10)))
            .await,
    );
    let errors: Vec<String> = got
        .iter()
        .map(|c| c.inventory.clone().expect_err("cannot connect"))
        .collect();
    assert_eq!(errors[0], "KeyError: 'user'");
    assert_eq!(
        errors[1],
        "ValueError: invalid literal for int() with base 10: 'twenty-two'"
    );
    assert_eq!(
        errors[2],
        format!(
            "FileNotFoundError: SSH private key not found: {}",
            home.path().join(".ssh/nope").display()
        )
    );
    let missing_program = SlurmCloud::new(options("/nonexistent/ssh".into()), None);
    let home = Home::new(Some(TWO_CLUSTERS));
    let got = clusters(
        missing_program
            .check(&home.ctx(&scenario_hosts(), Duration::from_secs(10)))
            .await,
    );
    assert_eq!(
        got[0].inventory.as_ref().expect_err("no program"),
        "FileNotFoundError: [Errno 2] No such file or directory: '/nonexistent/ssh'"
    );
}

/// An in-memory cache that counts what it is asked.
#[derive(Default)]
struct MemCache {
    entries: Mutex<BTreeMap<String, SlurmInventory>>,
}

impl InventoryCache for MemCache {
    fn get(&self, key: &InventoryKey, _max_age: Duration) -> Option<(SlurmInventory, Duration)> {
        let e = self.entries.lock().expect("lock");
        e.get(&key.cluster)
            .map(|i| (i.clone(), Duration::from_secs(7)))
    }
    fn put(&self, key: &InventoryKey, inventory: &SlurmInventory, _ttl: Duration) {
        self.entries
            .lock()
            .expect("lock")
            .insert(key.cluster.clone(), inventory.clone());
    }
}

#[tokio::test]
async fn answers_are_cached_and_failures_are_not() {
    let home = Home::new(Some(TWO_CLUSTERS));
    let calls = home.path().join("calls");
    let program = home.program(
        "counting-ssh",
        &format!(
            "# one line per invocation (the command itself spans many)\necho call >> {calls:?}\ncase \"$*\" in *slurm.campus.edu*) echo refused >&2; exit 255;; esac\nexec {:?} \"$@\"",
            fake_ssh()
        ),
    );
    let cache = Arc::new(MemCache::default());
    let mut opts = options(program);
    opts.cache = Some(cache.clone());
    let cloud = SlurmCloud::new(opts, None);
    let mut ctx = home.ctx(&scenario_hosts(), Duration::from_secs(10));
    let count = || {
        std::fs::read_to_string(&calls)
            .unwrap_or_default()
            .lines()
            .count()
    };

    let first = cloud.check(&ctx).await.expect("check");
    assert_eq!(first.cache, CacheUse::Miss);
    assert_eq!(count(), 2);
    assert_eq!(
        cache
            .entries
            .lock()
            .expect("lock")
            .keys()
            .collect::<Vec<_>>(),
        ["gpu-cluster"],
        "only the answer whose sinfo succeeded is kept"
    );
    cloud.check(&ctx).await.expect("check");
    assert_eq!(count(), 3, "gpu-cluster from the cache, campus asked again");
    ctx.refresh = true;
    cloud.check(&ctx).await.expect("check");
    assert_eq!(count(), 5, "--refresh asks everyone");
}

#[tokio::test]
async fn credentials_are_files_only() {
    let hosts = scenario_hosts();
    let cloud = SlurmCloud::new(options(fake_ssh()), None);
    // (clusters file, slurm.allowed_clusters, credentials or their message)
    type Case = (
        Option<&'static str>,
        Option<Vec<String>>,
        Result<(), &'static str>,
    );
    let cases: [Case; 5] = [
        (
            None,
            None,
            Err(
                "Slurm configuration file ~/.slurm/config does not exist.\n    For more info: https://docs.skypilot.co/en/latest/getting-started/installation.html#slurm-installation",
            ),
        ),
        (
            Some("Host a\n  nokeyvalue\n"),
            None,
            Err(
                "Failed to load SSH configuration from ~/.slurm/config: paramiko.ssh_exception.ConfigParseError: Unparsable line nokeyvalue.",
            ),
        ),
        (
            Some("# nothing\n"),
            None,
            Err(
                "No Slurm clusters found in ~/.slurm/config. Please configure at least one Slurm cluster.",
            ),
        ),
        (
            Some(TWO_CLUSTERS),
            Some(vec!["elsewhere".into()]),
            Err(
                "No Slurm clusters found in ~/.slurm/config. Please configure at least one Slurm cluster.",
            ),
        ),
        (Some(TWO_CLUSTERS), Some(vec!["campus".into()]), Ok(())),
    ];
    for (config, allowed, want) in cases {
        let home = Home::new(config);
        let cloud = SlurmCloud::new(options(fake_ssh()), allowed.clone());
        let got = cloud.credentials(&home.ctx(&hosts, Duration::from_secs(5)));
        match want {
            Ok(()) => assert!(
                matches!(got, Credentials::Present(_)),
                "{config:?}: {got:?}"
            ),
            Err(text) => assert_eq!(got, Credentials::Missing(text.into()), "{config:?}"),
        }
    }
    // Without credentials, the check says why instead of asking anyone.
    let home = Home::new(None);
    assert!(matches!(
        cloud.check(&home.ctx(&hosts, Duration::from_secs(5))).await,
        Err(CloudError::Config(_))
    ));
}
