//! Exec-plugin credentials (`users[].user.exec`) kept across launches until
//! they expire, as client-go keeps them (issue 29): the fixture plugin
//! `fixtures/kube/exec-plugin.sh` sleeps 500 ms and counts its runs in a
//! file; the tests count runs by that file, never by time.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use optimizer::clouds::kubernetes::{
    EXEC_CREDENTIALS_KIND, ExecCredentials, KubernetesCloud, KubernetesOptions,
};
use optimizer::clouds::{CheckContext, Cloud};
use planner::check::{CheckOutcome, CloudFacts};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn plugin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/kube/exec-plugin.sh")
}

fn nodes() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/kube-nodes/h100-cluster.json"),
    )
    .expect("fixture")
}

/// A kubeconfig whose one context authenticates through the fixture plugin,
/// counting into `counter`, its token valid for `ttl_s` seconds.
fn kubeconfig(dir: &Path, server: &str, counter: &Path, ttl_s: u64) -> PathBuf {
    let yaml = format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: eks\n\
         clusters:\n- name: eks\n  cluster:\n    server: \"{server}\"\n\
         contexts:\n- name: eks\n  context:\n    cluster: eks\n    user: eks-user\n\
         users:\n- name: eks-user\n  user:\n    exec:\n      \
         apiVersion: client.authentication.k8s.io/v1beta1\n      \
         command: {plugin}\n      args: [\"{counter}\", \"{ttl_s}\"]\n      \
         interactiveMode: Never\n",
        plugin = plugin().display(),
        counter = counter.display(),
    );
    let path = dir.join("kubeconfig");
    std::fs::write(&path, yaml).expect("write kubeconfig");
    path
}

fn ctx(home: &Path, kubeconfig: &Path) -> CheckContext {
    CheckContext {
        env: BTreeMap::from([("KUBECONFIG".to_string(), kubeconfig.display().to_string())]),
        home: home.to_path_buf(),
        state_dir: home.join(".sky"),
        refresh: true,
        cloud_timeout: Duration::from_secs(30),
        kubernetes_allowed_contexts: None,
        reservation_clouds: Vec::new(),
        gcp_project_id: None,
        sky_config: Default::default(),
    }
}

/// One launch's Kubernetes adapter: its own cache object over the state
/// folder, as a new process would have.
fn launch_cloud(c: &CheckContext) -> KubernetesCloud {
    let mut options = KubernetesOptions::default();
    options.service.max_attempts = 1;
    options.exec_credentials = Some(Arc::new(ExecCredentials::new(&c.state_dir, &c.env)));
    KubernetesCloud::new(options)
}

fn runs(counter: &Path) -> usize {
    std::fs::read_to_string(counter).map_or(0, |s| s.lines().count())
}

fn listed(outcome: &CheckOutcome) -> usize {
    match &outcome.facts {
        CloudFacts::Kubernetes(contexts) => contexts
            .iter()
            .filter_map(|c| c.nodes.as_ref().ok())
            .map(Vec::len)
            .sum(),
        other => panic!("not Kubernetes facts: {other:?}"),
    }
}

async fn server(status: u16) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/v1/nodes"))
        .and(header("authorization", "Bearer exec-token"))
        .respond_with(ResponseTemplate::new(status).set_body_string(nodes()))
        .mount(&server)
        .await;
    server
}

#[tokio::test]
async fn the_second_launch_does_not_run_the_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let counter = dir.path().join("runs");
    let api = server(200).await;
    let kc = kubeconfig(dir.path(), &api.uri(), &counter, 3600);
    let c = ctx(dir.path(), &kc);

    let first = launch_cloud(&c).check(&c).await.expect("first launch");
    assert!(listed(&first) > 0, "the plugin's token was accepted");
    assert_eq!(runs(&counter), 1, "the first launch runs the plugin once");
    // What a launch reports carries no token.
    assert!(!format!("{first:?}").contains("exec-token"));

    let second = launch_cloud(&c).check(&c).await.expect("second launch");
    assert_eq!(listed(&second), listed(&first));
    assert_eq!(
        runs(&counter),
        1,
        "the second launch used the cached credential"
    );

    // The entry is private and holds no plugin command, argument or path in its name.
    let entries: Vec<_> = std::fs::read_dir(c.state_dir.join(EXEC_CREDENTIALS_KIND))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .collect();
    assert_eq!(entries.len(), 1);
    let name = entries[0].file_name().to_string_lossy().into_owned();
    assert!(!name.contains("exec") && !name.contains("runs"), "{name}");
    let mode = entries[0].metadata().unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    for folder in [c.state_dir.join(EXEC_CREDENTIALS_KIND), c.state_dir.clone()] {
        let mode = std::fs::metadata(&folder).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{}", folder.display());
    }
}

#[tokio::test]
async fn a_credential_near_its_expiry_is_never_reused() {
    let dir = tempfile::tempdir().unwrap();
    let counter = dir.path().join("runs");
    let api = server(200).await;
    // Expires within the margin: each launch runs the plugin.
    let kc = kubeconfig(dir.path(), &api.uri(), &counter, 5);
    let c = ctx(dir.path(), &kc);
    launch_cloud(&c).check(&c).await.expect("first launch");
    launch_cloud(&c).check(&c).await.expect("second launch");
    assert_eq!(runs(&counter), 2);
}

#[tokio::test]
async fn a_401_drops_the_cached_credential() {
    let dir = tempfile::tempdir().unwrap();
    let counter = dir.path().join("runs");
    let api = server(401).await;
    let kc = kubeconfig(dir.path(), &api.uri(), &counter, 3600);
    let c = ctx(dir.path(), &kc);
    let first = launch_cloud(&c).check(&c).await.expect("first launch");
    assert_eq!(listed(&first), 0, "rejected");
    assert_eq!(runs(&counter), 1);
    // The rejected token was dropped: the next launch asks the plugin again.
    launch_cloud(&c).check(&c).await.expect("second launch");
    assert_eq!(runs(&counter), 2);
}

#[tokio::test]
async fn without_the_cache_every_launch_runs_the_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let counter = dir.path().join("runs");
    let api = server(200).await;
    let kc = kubeconfig(dir.path(), &api.uri(), &counter, 3600);
    let c = ctx(dir.path(), &kc);
    let mut options = KubernetesOptions::default();
    options.service.max_attempts = 1;
    let cloud = KubernetesCloud::new(options);
    cloud.check(&c).await.expect("first launch");
    let first = runs(&counter);
    // kube runs the plugin when it builds the client and again to
    // authenticate requests: more than once per launch.
    assert!(first >= 1, "the plugin ran");
    cloud.check(&c).await.expect("second launch");
    assert_eq!(runs(&counter), 2 * first, "every launch runs it again");
}
