//! `sky gpus list` against Kubernetes API mocks: nodes and pods listed
//! (pods with SkyPilot's field selector, once per context), free GPUs from
//! the pods, a 403 on pods, a failing pods endpoint, the node cache.

use std::path::Path;
use std::process::Command;

use mocks::{Fault, GpuLabel, KubeMock, NodePool};

/// Runs `sky gpus list ARGS` with the kubeconfig at `kubeconfig`, Kubernetes
/// declared enabled and the bundled catalogs; returns (exit, stdout, stderr).
fn sky_gpus(home: &Path, kubeconfig: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sky"))
        .args(["gpus", "list"])
        .args(args)
        .env_clear()
        .env("HOME", home)
        .env("KUBECONFIG", kubeconfig)
        .env("SKY_ENABLED_CLOUDS", "kubernetes")
        .env("SKY_BUNDLED_CATALOGS", "1")
        .env("NO_COLOR", "1")
        .output()
        .expect("run sky");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn cluster() -> mocks::KubeOptions {
    KubeMock::builder()
        .node_pools(vec![
            NodePool::cpu(1),
            NodePool::gpu(2, "H100", 8, GpuLabel::Skypilot),
        ])
        .pod_count(5)
}

/// The pod-list requests' query strings.
async fn pod_queries(kube: &KubeMock) -> Vec<String> {
    kube.server()
        .expect("a mock started alone is a wiremock server")
        .received_requests()
        .await
        .unwrap_or_default()
        .into_iter()
        .filter(|r| r.url.path() == "/api/v1/pods")
        .map(|r| r.url.query().unwrap_or_default().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn free_gpus_come_from_the_pods() {
    // Arrange: a CPU node and 2 × 8 H100 nodes; 5 pods round-robin over
    // the three, each asking 500m CPU, 1Gi and, on a GPU node, one GPU:
    // node 1 holds 2 GPUs, node 2 one, so 13 of 16 are free.
    let kube = cluster().start().await.expect("mock");
    let home = tempfile::tempdir().unwrap();
    let kubeconfig =
        mocks::write_kubeconfig(home.path(), &[("mock-ctx", &kube.uri())]).expect("kubeconfig");

    // Act
    let (code, stdout, stderr) = tokio::task::spawn_blocking({
        let home = home.path().to_path_buf();
        move || sky_gpus(&home, &kubeconfig, &["--infra", "k8s"])
    })
    .await
    .unwrap();

    // Assert
    assert_eq!(code, 0, "stderr: {stderr}");
    insta::assert_snapshot!(
        "gpus_realtime_mock_cluster",
        format!("{stdout}--- stderr\n{stderr}")
    );
    kube.nodes().assert_count(1);
    let queries = pod_queries(&kube).await;
    assert_eq!(queries.len(), 1, "one pod listing: {queries:?}");
    assert!(
        queries[0].contains("fieldSelector=status.phase%21%3DFailed")
            && queries[0].contains("limit=500"),
        "{}",
        queries[0]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forbidden_pods_leave_free_gpus_unknown() {
    let mut options = cluster();
    options.pods.fault = Fault::Forbidden;
    let kube = options.start().await.expect("mock");
    let home = tempfile::tempdir().unwrap();
    let kubeconfig =
        mocks::write_kubeconfig(home.path(), &[("mock-ctx", &kube.uri())]).expect("kubeconfig");

    let (code, stdout, stderr) = tokio::task::spawn_blocking({
        let home = home.path().to_path_buf();
        move || sky_gpus(&home, &kubeconfig, &["--infra", "k8s"])
    })
    .await
    .unwrap();

    assert_eq!(code, 0, "stderr: {stderr}");
    insta::assert_snapshot!(
        "gpus_realtime_pods_forbidden",
        format!("{stdout}--- stderr\n{stderr}")
    );
    // 403 is a verdict: asked once, never retried.
    assert_eq!(pod_queries(&kube).await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failing_pods_leave_the_context_out_with_a_warning() {
    let mut options = cluster();
    options.pods.fault = Fault::Status(503);
    let kube = options.start().await.expect("mock");
    let home = tempfile::tempdir().unwrap();
    let kubeconfig =
        mocks::write_kubeconfig(home.path(), &[("mock-ctx", &kube.uri())]).expect("kubeconfig");

    let (code, stdout, stderr) = tokio::task::spawn_blocking({
        let home = home.path().to_path_buf();
        move || {
            sky_gpus(
                &home,
                &kubeconfig,
                &["--infra", "k8s", "--cloud-timeout", "20"],
            )
        }
    })
    .await
    .unwrap();

    assert_eq!(code, 0, "stderr: {stderr}");
    assert!(
        stderr.contains(
            "Kubernetes context mock-ctx left out: Kubernetes API error when trying to get pod info"
        ),
        "{stderr}"
    );
    assert!(
        stdout.starts_with("No GPUs found in any Kubernetes clusters."),
        "{stdout}"
    );
    // SkyPilot's three attempts.
    assert_eq!(pod_queries(&kube).await.len(), 3);
    assert!(!stderr.contains("fake-token") && !stdout.contains("fake-token"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_come_from_the_node_cache_pods_never_do() {
    let kube = cluster().start().await.expect("mock");
    let home = tempfile::tempdir().unwrap();
    let kubeconfig =
        mocks::write_kubeconfig(home.path(), &[("mock-ctx", &kube.uri())]).expect("kubeconfig");
    let run = || {
        let home = home.path().to_path_buf();
        let kubeconfig = kubeconfig.clone();
        tokio::task::spawn_blocking(move || sky_gpus(&home, &kubeconfig, &["--infra", "k8s"]))
    };

    let first = run().await.unwrap();
    let second = run().await.unwrap();

    assert_eq!(first, second);
    kube.nodes().assert_count(1);
    assert_eq!(pod_queries(&kube).await.len(), 2);
}
