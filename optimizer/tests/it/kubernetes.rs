//! Kubernetes adapter: node listing against wiremock API servers, allowed
//! contexts, credentials, the fixture mode and the NodeList fixtures.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use optimizer::clouds::kubernetes::{
    KubernetesCloud, KubernetesOptions, NodeCache, contexts_from_fixture_dir,
};
use optimizer::clouds::{CheckContext, Cloud, Credentials};
use planner::catalog::kubernetes::{
    KubeContext, KubeInstanceType, KubeNode, fits, parse_node_list, unreachable_timeout_message,
};
use planner::check::{CacheUse, CheckOutcome, CloudError, CloudFacts};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/kube-nodes")
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(fixture_dir().join(name)).expect("fixture")
}

fn ctx(home: &Path, kubeconfig: Option<&Path>, allowed: Option<&[&str]>) -> CheckContext {
    let mut env = BTreeMap::new();
    if let Some(k) = kubeconfig {
        env.insert("KUBECONFIG".to_string(), k.display().to_string());
    }
    CheckContext {
        env,
        home: home.to_path_buf(),
        state_dir: home.join(".sky"),
        refresh: false,
        cloud_timeout: Duration::from_secs(30),
        kubernetes_allowed_contexts: allowed.map(|a| a.iter().map(|s| s.to_string()).collect()),
        reservation_clouds: Vec::new(),
        gcp_project_id: None,
        sky_config: Default::default(),
    }
}

/// Writes a kubeconfig with one token user and a context per `(name, server)`.
fn write_kubeconfig(
    dir: &Path,
    file: &str,
    contexts: &[(&str, &str)],
    current: Option<&str>,
) -> PathBuf {
    let mut yaml = String::from("apiVersion: v1\nkind: Config\n");
    if let Some(c) = current {
        yaml.push_str(&format!("current-context: {c}\n"));
    }
    yaml.push_str("clusters:\n");
    for (name, server) in contexts {
        yaml.push_str(&format!(
            "- name: {name}\n  cluster:\n    server: \"{server}\"\n"
        ));
    }
    yaml.push_str("contexts:\n");
    for (name, _) in contexts {
        yaml.push_str(&format!(
            "- name: {name}\n  context:\n    cluster: {name}\n    user: tester\n"
        ));
    }
    yaml.push_str("users:\n- name: tester\n  user:\n    token: fake-token\n");
    let path = dir.join(file);
    std::fs::write(&path, yaml).expect("write kubeconfig");
    path
}

fn fast_options() -> KubernetesOptions {
    let mut options = KubernetesOptions::default();
    options.service.connect_timeout = Duration::from_millis(400);
    options.service.request_timeout = Duration::from_millis(400);
    options.service.max_attempts = 3;
    options.service.retry_backoff = Duration::from_millis(20);
    options
}

/// [`fast_options`] with one listing request's deadline and the attempts per context.
fn with_attempts(request_timeout: Duration, attempts: u32) -> KubernetesOptions {
    let mut options = fast_options();
    options.service.connect_timeout = request_timeout;
    options.service.request_timeout = request_timeout;
    options.service.max_attempts = attempts;
    options
}

async fn nodes_server(body: &str, delay: Duration) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/v1/nodes"))
        .and(header("authorization", "Bearer fake-token"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_string(body)
                .set_delay(delay),
        )
        .mount(&server)
        .await;
    server
}

fn contexts_of(outcome: Result<CheckOutcome, CloudError>) -> Vec<KubeContext> {
    match outcome.expect("check").facts {
        CloudFacts::Kubernetes(c) => c,
        other => panic!("unexpected facts {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_contexts_are_listed_concurrently() {
    let a = nodes_server(&fixture("h100-cluster.json"), Duration::from_millis(200)).await;
    let b = nodes_server(&fixture("gke-t4.json"), Duration::from_millis(200)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = write_kubeconfig(
        dir.path(),
        "config",
        &[("ctx-a", &a.uri()), ("ctx-b", &b.uri())],
        Some("ctx-a"),
    );
    let cloud = KubernetesCloud::new(fast_options());
    let ctx = ctx(dir.path(), Some(&kc), Some(&["all"]));

    let start = Instant::now();
    let contexts = contexts_of(cloud.check(&ctx).await);
    let elapsed = start.elapsed();
    eprintln!("two contexts (200 ms each) listed in {elapsed:?}");

    assert!(
        elapsed < Duration::from_millis(380),
        "sequential? took {elapsed:?}"
    );
    let names: Vec<&str> = contexts.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["ctx-a", "ctx-b"]);
    let a_nodes = contexts[0].nodes.as_ref().expect("ctx-a nodes");
    assert_eq!(a_nodes.len(), 2);
    assert_eq!(a_nodes[0].accelerator.as_deref(), Some("H100"));
    let b_nodes = contexts[1].nodes.as_ref().expect("ctx-b nodes");
    assert_eq!(b_nodes[0].accelerator.as_deref(), Some("T4"));
}

/// Twenty contexts, two of them refused: every context comes back, in the
/// kubeconfig's order, with its own nodes or its own failure.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_contexts_come_back_in_order() {
    let a = nodes_server(&fixture("h100-cluster.json"), Duration::ZERO).await;
    let b = nodes_server(&fixture("gke-t4.json"), Duration::ZERO).await;
    let refused = "http://127.0.0.1:1".to_string();
    let names: Vec<String> = (0..20).map(|i| format!("ctx-{i:02}")).collect();
    let servers: Vec<String> = (0..20)
        .map(|i| match i {
            7 | 15 => refused.clone(),
            i if i % 2 == 0 => a.uri(),
            _ => b.uri(),
        })
        .collect();
    let pairs: Vec<(&str, &str)> = names
        .iter()
        .zip(&servers)
        .map(|(n, s)| (n.as_str(), s.as_str()))
        .collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = write_kubeconfig(dir.path(), "config", &pairs, Some("ctx-00"));
    let cloud = KubernetesCloud::new(fast_options());
    let ctx = ctx(dir.path(), Some(&kc), Some(&["all"]));

    let contexts = contexts_of(cloud.check(&ctx).await);

    let listed: Vec<&str> = contexts.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(listed, names);
    for (i, context) in contexts.iter().enumerate() {
        match (i, &context.nodes) {
            (7 | 15, Err(message)) => assert!(
                message.contains(&context.name),
                "{i}: the failure names its context: {message}"
            ),
            (7 | 15, Ok(nodes)) => panic!("{i}: a refused context listed {nodes:?}"),
            (_, Err(message)) => panic!("{i}: {message}"),
            (i, Ok(nodes)) => {
                let expected = if i % 2 == 0 { "H100" } else { "T4" };
                assert_eq!(nodes[0].accelerator.as_deref(), Some(expected), "{i}");
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hung_context_is_an_error_within_the_timeout() {
    let ok = nodes_server(&fixture("kind-skypilot.json"), Duration::ZERO).await;
    let hung = nodes_server(&fixture("kind-skypilot.json"), Duration::from_secs(30)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = write_kubeconfig(
        dir.path(),
        "config",
        &[("healthy", &ok.uri()), ("hung", &hung.uri())],
        None,
    );
    let cloud = KubernetesCloud::new(with_attempts(Duration::from_millis(300), 2));
    let ctx = ctx(dir.path(), Some(&kc), Some(&["healthy", "hung"]));

    let start = Instant::now();
    let contexts = contexts_of(cloud.check(&ctx).await);
    let elapsed = start.elapsed();
    eprintln!("hung context reported after {elapsed:?}");

    // 2 attempts × 300 ms + one ~20 ms backoff.
    assert!(elapsed < Duration::from_millis(1200), "took {elapsed:?}");
    assert_eq!(contexts[0].nodes.as_ref().map(Vec::len), Ok(2));
    // The per-attempt deadline (300 ms) names itself; when the context's own
    // deadline ends the retries first, SkyPilot's plain text is given.
    let named = unreachable_timeout_message("hung").replacen(
        "Timed out when",
        "Timed out after 300ms when",
        1,
    );
    let plain = unreachable_timeout_message("hung");
    assert!(
        contexts[1].nodes == Err(named.clone()) || contexts[1].nodes == Err(plain.clone()),
        "{:?} is neither {named:?} nor {plain:?}",
        contexts[1].nodes
    );
    assert_eq!(hung.received_requests().await.map(|r| r.len()), Some(2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cloud_deadline_bounds_every_context() {
    let hung = nodes_server("{}", Duration::from_secs(30)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = write_kubeconfig(dir.path(), "config", &[("hung", &hung.uri())], Some("hung"));
    let cloud = KubernetesCloud::new(with_attempts(Duration::from_secs(10), 3));
    let mut ctx = ctx(dir.path(), Some(&kc), None);
    ctx.cloud_timeout = Duration::from_millis(300);

    let start = Instant::now();
    let contexts = contexts_of(cloud.check(&ctx).await);
    assert!(
        start.elapsed() < Duration::from_millis(800),
        "took {:?}",
        start.elapsed()
    );
    // The deadline in force (0.9 × the cloud timeout) is named (issue 12).
    let want = unreachable_timeout_message("hung").replacen(
        "Timed out when",
        "Timed out after 270ms when",
        1,
    );
    assert_eq!(contexts[0].nodes, Err(want));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unauthorized_fails_fast_without_retries() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/v1/nodes"))
        .respond_with(ResponseTemplate::new(401).set_body_string(r#"{"kind":"Status","code":401}"#))
        .expect(1)
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = write_kubeconfig(
        dir.path(),
        "config",
        &[("prod", &server.uri())],
        Some("prod"),
    );
    let mut slow_backoff = fast_options();
    slow_backoff.service.retry_backoff = Duration::from_secs(2);
    let cloud = KubernetesCloud::new(slow_backoff);

    let start = Instant::now();
    let contexts = contexts_of(cloud.check(&ctx(dir.path(), Some(&kc), None)).await);
    assert!(
        start.elapsed() < Duration::from_millis(1000),
        "retried? {:?}",
        start.elapsed()
    );
    let err = contexts[0].nodes.as_ref().expect_err("401 must fail");
    assert!(
        err.starts_with("Kubernetes API error: (401)\nReason: Unauthorized\n"),
        "{err}"
    );
    server.verify().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_errors_are_retried_then_reported() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/v1/nodes"))
        .respond_with(ResponseTemplate::new(500).set_body_string("boom"))
        .expect(3)
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = write_kubeconfig(
        dir.path(),
        "config",
        &[("flaky", &server.uri())],
        Some("flaky"),
    );
    let contexts = contexts_of(
        KubernetesCloud::new(fast_options())
            .check(&ctx(dir.path(), Some(&kc), None))
            .await,
    );
    let err = contexts[0].nodes.as_ref().expect_err("500 must fail");
    assert!(
        err.starts_with("Kubernetes API error when trying to get node info: (500)\nReason: Internal Server Error\n"),
        "{err}"
    );
    assert!(
        err.ends_with(" Please check if the cluster is healthy and retry. To debug, run: kubectl get nodes --context flaky"),
        "{err}"
    );
    server.verify().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// SkyPilot says "Timed out" for a refused connection; issue 12 asks for the
/// true reason.
async fn refused_connection_reads_as_refused() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr").port()
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = write_kubeconfig(
        dir.path(),
        "config",
        &[("gone", &format!("http://127.0.0.1:{port}"))],
        Some("gone"),
    );
    let contexts = contexts_of(
        KubernetesCloud::new(fast_options())
            .check(&ctx(dir.path(), Some(&kc), None))
            .await,
    );
    let want = unreachable_timeout_message("gone").replacen(
        "Timed out when",
        "Connection refused when",
        1,
    );
    assert_eq!(contexts[0].nodes, Err(want));
}

#[test]
fn fixture_nodes_parse_into_kube_nodes() {
    let h100 = parse_node_list(fixture("h100-cluster.json").as_bytes()).expect("h100");
    let gpu = &h100[0];
    assert_eq!(gpu.name, "gpu-h100-0");
    assert!(gpu.ready);
    assert_eq!(gpu.accelerator.as_deref(), Some("H100"));
    assert_eq!(gpu.gpu_count(), 8);
    assert_eq!(gpu.cpu_capacity, 192.0);
    assert_eq!(gpu.cpu_allocatable, 191.45);
    assert_eq!(gpu.memory_capacity_gib, 2048.0);
    assert_eq!(gpu.memory_allocatable_gib, 1920.0);
    assert_eq!(gpu.ephemeral_storage_gib, Some(7500.0));
    assert_eq!(
        gpu.labels
            .get("node.kubernetes.io/instance-type")
            .map(String::as_str),
        Some("p5.48xlarge")
    );
    assert_eq!(h100[1].accelerator, None);
    assert_eq!(h100[1].gpu_count(), 0);

    let a100 = parse_node_list(fixture("a100-gfd.json").as_bytes()).expect("a100");
    assert_eq!(a100[0].accelerator.as_deref(), Some("A100-80GB"));
    assert_eq!(a100[0].gpu_count(), 8);
    assert!(!a100[1].ready);

    let kind = parse_node_list(fixture("kind-skypilot.json").as_bytes()).expect("kind");
    assert!(kind[0].ready && !kind[1].ready);
    assert_eq!(kind[0].cpu_capacity, 4.0);
    assert!(
        (kind[0].memory_capacity_gib - 15.616).abs() < 1e-3,
        "{}",
        kind[0].memory_capacity_gib
    );
    assert_eq!(kind[1].cpu_allocatable, 7.91);

    let gke = parse_node_list(fixture("gke-t4.json").as_bytes()).expect("gke");
    assert_eq!(gke[0].accelerator.as_deref(), Some("T4"));
    assert_eq!(gke[0].gpu_count(), 1);
    assert_eq!(gke[1].accelerator, None);
}

#[test]
fn fixtures_through_fits() {
    let load = |f: &str| parse_node_list(fixture(f).as_bytes()).expect(f);
    let it = |s: &str| s.parse::<KubeInstanceType>().expect(s);
    let cases: [(&str, &str, bool); 10] = [
        ("h100-cluster.json", "32CPU--128GB--H100:8", true),
        ("h100-cluster.json", "4CPU--16GB--H100:1", true),
        ("h100-cluster.json", "2CPU--2GB", true),
        ("a100-gfd.json", "4CPU--16GB--A100-80GB:1", true),
        ("a100-gfd.json", "4CPU--16GB--A100:8", true),
        ("a100-gfd.json", "4CPU--16GB--H100:1", false),
        ("gke-t4.json", "4CPU--16GB--T4:1", true),
        ("gke-t4.json", "4CPU--16GB--T4:2", false),
        ("kind-skypilot.json", "2CPU--2GB", true),
        ("kind-skypilot.json", "8CPU--8GB", false), // the 8-CPU node is NotReady
    ];
    for (file, name, want) in cases {
        assert_eq!(
            fits(&it(name), &load(file), None).is_ok(),
            want,
            "{file} {name}: {:?}",
            fits(&it(name), &load(file), None)
        );
    }
}

#[test]
fn allowed_contexts_from_the_kubeconfig() {
    let dir = tempfile::tempdir().expect("tempdir");
    let first = write_kubeconfig(
        dir.path(),
        "one",
        &[
            ("kind-a", "http://127.0.0.1:1"),
            ("ssh-pool", "http://127.0.0.1:1"),
        ],
        Some("kind-a"),
    );
    let second = write_kubeconfig(
        dir.path(),
        "two",
        &[("gke-b", "http://127.0.0.1:2")],
        Some("gke-b"),
    );
    let cloud = KubernetesCloud::default();
    let mut c = ctx(dir.path(), None, None);
    c.env.insert(
        "KUBECONFIG".into(),
        format!(
            "{}:{}:{}",
            first.display(),
            dir.path().join("absent").display(),
            second.display()
        ),
    );

    // Unset → the current context of the first file.
    let r = cloud.resolve_contexts(&c).expect("resolve");
    assert_eq!(r.allowed.contexts, ["kind-a"]);
    assert!(r.warnings.is_empty());

    // all → every non-ssh context, kubeconfig order.
    c.kubernetes_allowed_contexts = Some(vec!["all".into()]);
    assert_eq!(
        cloud
            .resolve_contexts(&c)
            .expect("resolve")
            .allowed
            .contexts,
        ["kind-a", "gke-b"]
    );

    // Explicit list: missing names skipped with SkyPilot's warning, ssh- ignored silently.
    c.kubernetes_allowed_contexts = Some(vec!["gke-b".into(), "nope".into(), "ssh-pool".into()]);
    let r = cloud.resolve_contexts(&c).expect("resolve");
    assert_eq!(r.allowed.contexts, ["gke-b"]);
    assert_eq!(
        r.warnings,
        [
            "Kubernetes contexts {'nope'} specified in \"allowed_contexts\" not found in kubeconfig. Ignoring these contexts."
        ]
    );

    // The env switch only applies when the config is unset.
    c.kubernetes_allowed_contexts = None;
    c.env.insert(
        "SKYPILOT_ALLOW_ALL_KUBERNETES_CONTEXTS".into(),
        "true".into(),
    );
    assert_eq!(
        cloud
            .resolve_contexts(&c)
            .expect("resolve")
            .allowed
            .contexts,
        ["kind-a", "gke-b"]
    );
}

#[tokio::test]
async fn credentials_and_missing_contexts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cloud = KubernetesCloud::default();
    let none = ctx(dir.path(), None, None);
    match cloud.credentials(&none) {
        Credentials::Missing(hint) => assert!(hint.contains("~/.kube/config"), "{hint}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        cloud.check(&none).await,
        Err(CloudError::Config(_))
    ));

    std::fs::create_dir_all(dir.path().join(".kube")).expect("mkdir");
    write_kubeconfig(
        &dir.path().join(".kube"),
        "config",
        &[("kind-a", "http://127.0.0.1:1")],
        None,
    );
    assert_eq!(
        cloud.credentials(&none),
        Credentials::Present("~/.kube/config".into())
    );
    // No current context and no allowed_contexts → no usable context.
    assert_eq!(
        cloud.check(&none).await,
        Err(CloudError::Config(
            "No available context found in kubeconfig. Check if you have a valid kubeconfig file"
                .into()
        ))
    );

    std::fs::write(dir.path().join("broken"), "clusters: [[[").expect("write");
    let broken = ctx(dir.path(), Some(&dir.path().join("broken")), None);
    assert!(matches!(
        cloud.check(&broken).await,
        Err(CloudError::Config(_))
    ));
}

#[test]
fn fixture_dir_mode() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::copy(
        fixture_dir().join("gke-t4.json"),
        dir.path().join("gke_prod.json"),
    )
    .expect("copy");
    std::fs::write(dir.path().join("bad.json"), "nope").expect("write");
    std::fs::write(
        dir.path().join("denied.error"),
        "Kubernetes API error: (403)\n",
    )
    .expect("write");
    let names: Vec<String> = ["gke/prod", "missing", "bad", "denied"]
        .map(String::from)
        .to_vec();
    let got = contexts_from_fixture_dir(dir.path(), &names);
    assert_eq!(got[0].nodes.as_ref().map(Vec::len), Ok(2));
    assert_eq!(got[1].nodes, Err(unreachable_timeout_message("missing")));
    assert!(got[2].nodes.as_ref().is_err_and(|e| {
        e.starts_with("Kubernetes API error when trying to get node info: invalid NodeList JSON")
    }));
    assert_eq!(got[3].nodes, Err("Kubernetes API error: (403)".to_string()));
}

#[derive(Default)]
struct MemoryCache(Mutex<BTreeMap<String, Vec<KubeNode>>>);

impl NodeCache for MemoryCache {
    fn get(
        &self,
        contexts: &[(&str, &str)],
        _max_age: Duration,
    ) -> Vec<Option<(Vec<KubeNode>, Duration)>> {
        let map = self.0.lock().expect("lock");
        contexts
            .iter()
            .map(|(context, _)| {
                map.get(*context)
                    .map(|n| (n.clone(), Duration::from_secs(7)))
            })
            .collect()
    }
    fn put(&self, listings: &[(&str, &str, &[KubeNode])], _ttl: Duration) {
        let mut map = self.0.lock().expect("lock");
        for (context, _, nodes) in listings {
            map.insert(context.to_string(), nodes.to_vec());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn node_cache_seam() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/v1/nodes"))
        .respond_with(ResponseTemplate::new(200).set_body_string(fixture("kind-skypilot.json")))
        .expect(2)
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = write_kubeconfig(
        dir.path(),
        "config",
        &[("kind", &server.uri())],
        Some("kind"),
    );
    let cache = Arc::new(MemoryCache::default());
    let cloud = KubernetesCloud::new(KubernetesOptions {
        node_cache: Some(cache),
        ..fast_options()
    });
    let mut c = ctx(dir.path(), Some(&kc), None);

    let first = cloud.check(&c).await.expect("first");
    assert_eq!(first.cache, CacheUse::Miss);
    let second = cloud.check(&c).await.expect("second");
    assert_eq!(
        second.cache,
        CacheUse::Hit {
            age: Duration::from_secs(7)
        }
    );
    assert_eq!(first.facts, second.facts);
    c.refresh = true;
    assert_eq!(
        cloud.check(&c).await.expect("refresh").cache,
        CacheUse::Miss
    );
    server.verify().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paged_node_list_is_followed_to_its_last_page() {
    use wiremock::matchers::query_param;
    let server = MockServer::start().await;
    let page = |names: &[&str], next: &str| {
        let items: Vec<String> = names
            .iter()
            .map(|n| format!(r#"{{"metadata":{{"name":"{n}"}}}}"#))
            .collect();
        format!(
            r#"{{"kind":"NodeList","metadata":{{"continue":"{next}"}},"items":[{}]}}"#,
            items.join(",")
        )
    };
    Mock::given(method("GET"))
        .and(path("/api/v1/nodes"))
        .and(query_param("continue", "p2"))
        .respond_with(ResponseTemplate::new(200).set_body_string(page(&["c"], "")))
        .with_priority(1)
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/v1/nodes"))
        .and(query_param("limit", "500"))
        .respond_with(ResponseTemplate::new(200).set_body_string(page(&["a", "b"], "p2")))
        .with_priority(2)
        .expect(1)
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = write_kubeconfig(
        dir.path(),
        "config",
        &[("kind", &server.uri())],
        Some("kind"),
    );
    let cloud = KubernetesCloud::new(fast_options());
    let listed = contexts_of(cloud.check(&ctx(dir.path(), Some(&kc), None)).await);
    let names: Vec<&str> = listed[0]
        .nodes
        .as_ref()
        .expect("nodes")
        .iter()
        .map(|n| n.name.as_str())
        .collect();
    assert_eq!(names, ["a", "b", "c"]);
    server.verify().await;
}
