//! The node cache's remembered kubeconfigs through the check: an unchanged
//! kubeconfig is not read on a warm launch; a changed file, `KUBECONFIG`,
//! context or credential is; no secret reaches the cache file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use planner::check::{CacheUse, CheckOutcome, CloudFacts};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use super::{KubernetesCloud, KubernetesOptions, LazyStateNodeCache, NODE_CACHE_KIND, NodeCache};
use crate::clouds::{CheckContext, Cloud};

/// An API server answering the node list of the `kind-skypilot` fixture.
async fn server() -> MockServer {
    let body = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/kube-nodes/kind-skypilot.json"),
    )
    .expect("fixture");
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/v1/nodes"))
        .respond_with(ResponseTemplate::new(200).set_body_string(body))
        .mount(&server)
        .await;
    server
}

/// A kubeconfig with a context per `(name, server)`, each with its own
/// token user (`<token>-<name>`), the first one current; modified an hour
/// ago unless `fresh`.
fn write_kubeconfig(file: &Path, contexts: &[(&str, &str)], token: &str, fresh: bool) {
    let mut yaml = String::from("apiVersion: v1\nkind: Config\n");
    yaml.push_str(&format!("current-context: {}\n", contexts[0].0));
    yaml.push_str("clusters:\n");
    for (name, server) in contexts {
        yaml.push_str(&format!(
            "- name: {name}\n  cluster:\n    server: \"{server}\"\n"
        ));
    }
    yaml.push_str("contexts:\n");
    for (name, _) in contexts {
        yaml.push_str(&format!(
            "- name: {name}\n  context:\n    cluster: {name}\n    user: u-{name}\n"
        ));
    }
    yaml.push_str("users:\n");
    for (name, _) in contexts {
        yaml.push_str(&format!(
            "- name: u-{name}\n  user:\n    token: {token}-{name}\n"
        ));
    }
    std::fs::write(file, yaml).expect("write kubeconfig");
    if !fresh {
        set_mtime(file, SystemTime::now() - Duration::from_secs(3600));
    }
}

fn set_mtime(file: &Path, mtime: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(file)
        .and_then(|f| f.set_modified(mtime))
        .expect("set mtime");
}

fn ctx(home: &Path, kubeconfig: &Path) -> CheckContext {
    CheckContext {
        env: BTreeMap::from([("KUBECONFIG".to_string(), kubeconfig.display().to_string())]),
        home: home.to_path_buf(),
        state_dir: home.join(".sky"),
        refresh: false,
        cloud_timeout: Duration::from_secs(30),
        kubernetes_allowed_contexts: Some(vec!["all".to_string()]),
        reservation_clouds: Vec::new(),
        gcp_project_id: None,
        sky_config: Default::default(),
    }
}

/// The adapter of one `sky` process: a node cache of its own over the state folder.
fn process(c: &CheckContext) -> (KubernetesCloud, Arc<LazyStateNodeCache>) {
    let cache = Arc::new(LazyStateNodeCache::new(&c.state_dir));
    let mut options = KubernetesOptions::default();
    options.service.max_attempts = 1;
    options.node_cache = Some(Arc::clone(&cache) as Arc<dyn NodeCache>);
    (KubernetesCloud::new(options), cache)
}

async fn check(c: &CheckContext) -> CheckOutcome {
    process(c).0.check(c).await.expect("check")
}

/// Whether a new process finds the kubeconfig remembered, so that its
/// check reads no kubeconfig file.
fn warm_without_reading(c: &CheckContext) -> Option<CheckOutcome> {
    let (cloud, cache) = process(c);
    cloud.check_remembered(c, cache.as_ref(), &cloud.kubeconfig_identity(c))
}

async fn requests(server: &MockServer) -> usize {
    server
        .received_requests()
        .await
        .map(|r| r.len())
        .unwrap_or_default()
}

struct Setup {
    home: tempfile::TempDir,
    kubeconfig: PathBuf,
    a: MockServer,
    b: MockServer,
}

impl Setup {
    async fn new() -> Setup {
        let home = tempfile::tempdir().expect("tempdir");
        let kubeconfig = home.path().join("kubeconfig");
        let (a, b) = (server().await, server().await);
        write_kubeconfig(
            &kubeconfig,
            &[("a", &a.uri()), ("b", &b.uri())],
            "t1",
            false,
        );
        Setup {
            home,
            kubeconfig,
            a,
            b,
        }
    }

    fn ctx(&self) -> CheckContext {
        ctx(self.home.path(), &self.kubeconfig)
    }

    async fn requests(&self) -> (usize, usize) {
        (requests(&self.a).await, requests(&self.b).await)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unchanged_kubeconfig_is_not_read_on_a_warm_launch() {
    let s = Setup::new().await;
    let c = s.ctx();
    assert!(warm_without_reading(&c).is_none(), "nothing remembered yet");
    let first = check(&c).await;
    assert_eq!(first.cache, CacheUse::Miss);
    assert_eq!(s.requests().await, (1, 1));

    let warm = warm_without_reading(&c).expect("remembered");
    assert_eq!(warm.facts, first.facts);
    assert!(matches!(warm.cache, CacheUse::Hit { .. }));
    // The check takes that path: the same answer, no request.
    assert_eq!(check(&c).await.facts, first.facts);
    assert_eq!(s.requests().await, (1, 1));

    // Only the allowed contexts are asked of the cache: `b` alone, still warm.
    let mut only_b = s.ctx();
    only_b.kubernetes_allowed_contexts = Some(vec!["b".to_string()]);
    let CloudFacts::Kubernetes(listed) = warm_without_reading(&only_b).expect("b").facts else {
        panic!("facts");
    };
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].name, "b");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rewritten_kubeconfig_is_read_again_even_with_its_old_size_and_mtime() {
    let s = Setup::new().await;
    let c = s.ctx();
    check(&c).await;
    assert!(warm_without_reading(&c).is_some());
    let mtime = std::fs::metadata(&s.kubeconfig)
        .and_then(|m| m.modified())
        .expect("mtime");
    // Same size, same mtime, an invalid kubeconfig: the change time tells
    // (a tick later: the kernel's file times are coarse).
    tokio::time::sleep(Duration::from_millis(20)).await;
    let size = std::fs::metadata(&s.kubeconfig).expect("meta").len();
    std::fs::write(&s.kubeconfig, "[".repeat(size as usize)).expect("write");
    set_mtime(&s.kubeconfig, mtime);
    assert!(warm_without_reading(&c).is_none());
    let (cloud, _) = process(&c);
    assert!(cloud.check(&c).await.is_err(), "the invalid file is read");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_kubeconfig_variable_is_another_kubeconfig() {
    let s = Setup::new().await;
    let c = s.ctx();
    check(&c).await;
    let copy = s.home.path().join("copy");
    std::fs::copy(&s.kubeconfig, &copy).expect("copy");
    set_mtime(&copy, SystemTime::now() - Duration::from_secs(3600));
    let other = ctx(s.home.path(), &copy);
    assert!(warm_without_reading(&other).is_none());
    // Read, then served from the listings: the same contexts, targets and credentials.
    assert!(matches!(check(&other).await.cache, CacheUse::Hit { .. }));
    assert_eq!(s.requests().await, (1, 1));
    assert!(warm_without_reading(&other).is_some());
    // Both stay remembered.
    assert!(warm_without_reading(&c).is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_credential_lists_again() {
    let s = Setup::new().await;
    let c = s.ctx();
    check(&c).await;
    write_kubeconfig(
        &s.kubeconfig,
        &[("a", &s.a.uri()), ("b", &s.b.uri())],
        "t2",
        false,
    );
    assert!(warm_without_reading(&c).is_none());
    assert_eq!(check(&c).await.cache, CacheUse::Miss);
    assert_eq!(s.requests().await, (2, 2));
    assert!(warm_without_reading(&c).is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_context_pointed_elsewhere_lists_again() {
    let s = Setup::new().await;
    let c = s.ctx();
    check(&c).await;
    // `a` now points at `b`'s server; `b` is unchanged.
    write_kubeconfig(
        &s.kubeconfig,
        &[("a", &s.b.uri()), ("b", &s.b.uri())],
        "t1",
        false,
    );
    assert!(warm_without_reading(&c).is_none());
    assert_eq!(check(&c).await.cache, CacheUse::Miss);
    assert_eq!(s.requests().await, (1, 2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kubeconfig_written_just_now_is_not_remembered() {
    let s = Setup::new().await;
    write_kubeconfig(
        &s.kubeconfig,
        &[("a", &s.a.uri()), ("b", &s.b.uri())],
        "t1",
        true,
    );
    let c = s.ctx();
    check(&c).await;
    assert!(warm_without_reading(&c).is_none());
    // Still served from the listings, after reading the file.
    assert!(matches!(check(&c).await.cache, CacheUse::Hit { .. }));
    assert_eq!(s.requests().await, (1, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cache_file_holds_no_server_and_no_credential() {
    let s = Setup::new().await;
    let c = s.ctx();
    check(&c).await;
    let mut refresh = s.ctx();
    refresh.refresh = true;
    check(&refresh).await;
    let entry = std::fs::read_to_string(c.state_dir.join(NODE_CACHE_KIND).join("listings.json"))
        .expect("entry");
    assert!(entry.contains("\"kubeconfigs\""), "{entry}");
    for secret in ["t1-a", "t1-b", "token", "127.0.0.1", "kubeconfig"] {
        let hits = entry.matches(secret).count();
        // "kubeconfigs" is the field name; nothing else may name the file.
        let allowed = usize::from(secret == "kubeconfig");
        assert_eq!(hits, allowed, "{secret} in {entry}");
    }
}
