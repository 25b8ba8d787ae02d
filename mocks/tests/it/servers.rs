use std::time::Instant;

use mocks::{
    CatalogServer, GcpMock, GpuLabel, KubeMock, NodePool, Reservation, StsMock, fixtures_dir,
};

use crate::http::{get, send, sts_call};

#[tokio::test]
async fn sts_answers_get_caller_identity() {
    let sts = StsMock::start().await.unwrap();
    let r = sts_call(&sts.uri()).await.unwrap();
    assert_eq!(r.status, 200);
    let body = r.text();
    for part in [
        "<UserId>AIDAEXAMPLEUSERID</UserId>",
        "<Account>123456789012</Account>",
        "<Arn>arn:aws:iam::123456789012:user/mock</Arn>",
        "<GetCallerIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">",
    ] {
        assert!(body.contains(part), "missing {part} in {body}");
    }

    let custom = StsMock::builder()
        .account("111122223333")
        .user_id("AIDA<&>")
        .arn("arn:aws:sts::111122223333:assumed-role/r/s")
        .start()
        .await
        .unwrap();
    let body = sts_call(&custom.uri()).await.unwrap().text();
    assert!(body.contains("<Account>111122223333</Account>"));
    assert!(
        body.contains("<UserId>AIDA&lt;&amp;&gt;</UserId>"),
        "{body}"
    );
    assert!(body.contains("<Arn>arn:aws:sts::111122223333:assumed-role/r/s</Arn>"));
}

#[tokio::test]
async fn sts_only_matches_get_caller_identity_posts() {
    let sts = StsMock::start().await.unwrap();
    let other = send(
        &sts.uri(),
        "POST",
        "/",
        "Action=AssumeRole&Version=2011-06-15",
    )
    .await;
    assert_eq!(other.unwrap().status, 404);
    assert_eq!(get(&sts.uri(), "/").await.unwrap().status, 404);
    sts.get_caller_identity().assert_count(0);
}

#[test]
fn aws_env_points_at_the_mock() {
    let env = mocks::aws_sts_env("http://127.0.0.1:9");
    let get = |k: &str| env.iter().find(|(n, _)| *n == k).map(|(_, v)| v.as_str());
    assert_eq!(get("AWS_ENDPOINT_URL_STS"), Some("http://127.0.0.1:9"));
    assert_eq!(get("AWS_REGION"), Some("us-east-1"));
    assert!(get("AWS_ACCESS_KEY_ID").is_some_and(|v| !v.is_empty()));
    assert!(get("AWS_SECRET_ACCESS_KEY").is_some_and(|v| !v.is_empty()));
}

#[tokio::test]
async fn recording_counts_and_arrival_times() {
    let sts = StsMock::start().await.unwrap();
    let before = sts.get_caller_identity().origin().elapsed();
    let t0 = Instant::now();
    for _ in 0..3 {
        sts_call(&sts.uri()).await.unwrap();
    }
    let window = t0.elapsed();
    let rec = sts.get_caller_identity().recording();
    assert_eq!(rec.endpoint, "sts");
    assert_eq!(rec.count(), 3);
    let at = rec.arrivals();
    assert!(at.windows(2).all(|w| w[0] <= w[1]), "{at:?}");
    assert!(
        at[0] >= before && at[2] <= before + window,
        "{at:?} outside {before:?}+{window:?}"
    );
    assert!(
        rec.requests
            .iter()
            .all(|r| r.method == "POST" && r.status == Some(200))
    );

    assert!(sts.get_caller_identity().check_count(3).is_ok());
    let err = sts.get_caller_identity().check_count(2).unwrap_err();
    assert!(
        err.to_string().contains("received 3 requests, expected 2"),
        "{err}"
    );
    sts.get_caller_identity().clear();
    sts.get_caller_identity().assert_count(0);
}

#[tokio::test]
async fn wiremock_expectations_are_available() {
    let mut opts = StsMock::builder();
    opts.get_caller_identity.expect = Some(1);
    let sts = opts.start().await.unwrap();
    sts_call(&sts.uri()).await.unwrap();
    // Panics (fails the test) unless exactly one request matched.
    sts.server().verify().await;
}

#[tokio::test]
async fn kube_serves_version_nodes_and_pods() {
    let kube = KubeMock::builder()
        .node_pools(vec![
            NodePool::cpu(2),
            NodePool::gpu(1, "H100", 8, GpuLabel::Gfd),
            NodePool::gpu(1, "T4", 4, GpuLabel::Gke),
            NodePool::gpu(1, "A10G", 1, GpuLabel::Karpenter),
            NodePool::gpu(1, "L4", 2, GpuLabel::Skypilot),
            NodePool {
                ready: false,
                ..NodePool::cpu(1)
            },
        ])
        .pod_count(14)
        .start()
        .await
        .unwrap();

    let version = get(&kube.uri(), "/version").await.unwrap().json();
    assert_eq!(version["gitVersion"], "v1.33.1");

    let nodes = get(&kube.uri(), "/api/v1/nodes?").await.unwrap().json();
    assert_eq!(nodes["kind"], "NodeList");
    let items = nodes["items"].as_array().unwrap();
    assert_eq!(items.len(), 7);
    let label = |i: usize, k: &str| {
        items[i]["metadata"]["labels"][k]
            .as_str()
            .map(str::to_owned)
    };
    let gpus = |i: usize| {
        items[i]["status"]["allocatable"]["nvidia.com/gpu"]
            .as_str()
            .map(str::to_owned)
    };
    assert_eq!(gpus(0), None);
    assert_eq!(
        label(2, "nvidia.com/gpu.product").as_deref(),
        Some("NVIDIA-H100-80GB-HBM3")
    );
    assert_eq!(gpus(2).as_deref(), Some("8"));
    assert_eq!(
        label(3, "cloud.google.com/gke-accelerator").as_deref(),
        Some("nvidia-tesla-t4")
    );
    assert_eq!(
        label(3, "cloud.google.com/gke-accelerator-count").as_deref(),
        Some("4")
    );
    assert_eq!(
        label(4, "karpenter.k8s.aws/instance-gpu-name").as_deref(),
        Some("a10g")
    );
    assert_eq!(label(5, "skypilot.co/accelerator").as_deref(), Some("l4"));
    assert_eq!(gpus(5).as_deref(), Some("2"));
    for (i, node) in items.iter().enumerate() {
        let alloc = &node["status"]["allocatable"];
        for key in ["cpu", "memory", "ephemeral-storage"] {
            assert!(alloc[key].is_string(), "node {i} lacks allocatable {key}");
        }
        let ready = &node["status"]["conditions"][0];
        assert_eq!(ready["type"], "Ready");
        assert_eq!(
            ready["status"],
            if i == 6 { "False" } else { "True" },
            "node {i}"
        );
    }

    let pods = get(&kube.uri(), "/api/v1/pods").await.unwrap().json();
    let pods = pods["items"].as_array().unwrap();
    assert_eq!(pods.len(), 14);
    assert_eq!(pods[2]["spec"]["nodeName"], items[2]["metadata"]["name"]);
    assert_eq!(
        pods[2]["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"],
        "1"
    );
    assert!(pods[0]["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"].is_null());
    assert_eq!(pods[7]["spec"]["nodeName"], items[0]["metadata"]["name"]);

    assert_eq!(
        get(&kube.uri(), "/api/v1/namespaces").await.unwrap().status,
        404
    );
    kube.version().assert_count(1);
    kube.nodes().assert_count(1);
    kube.pods().assert_count(1);
}

#[test]
fn gke_label_values_follow_skypilot() {
    let v = |a| GpuLabel::Gke.value_for(a);
    assert_eq!(v("H100"), "nvidia-h100-80gb");
    assert_eq!(v("A100-80GB"), "nvidia-a100-80gb");
    assert_eq!(v("A100"), "nvidia-tesla-a100");
    assert_eq!(v("H200"), "nvidia-h200-141gb");
    assert_eq!(v("tpu-v5-lite-podslice"), "tpu-v5-lite-podslice");
}

#[tokio::test]
async fn kube_serves_a_node_list_file_as_is() {
    let path = fixtures_dir().join("kube/nodes.json");
    let kube = KubeMock::builder()
        .nodes_file(&path)
        .pod_count(2)
        .start()
        .await
        .unwrap();
    let r = get(&kube.uri(), "/api/v1/nodes").await.unwrap();
    assert_eq!(r.body, std::fs::read(&path).unwrap());
    // Generated pods land on the file's nodes.
    let pods = get(&kube.uri(), "/api/v1/pods").await.unwrap().json();
    assert_eq!(pods["items"][1]["spec"]["nodeName"], "gfd-h100-0");

    let missing = KubeMock::builder()
        .nodes_file("/nonexistent/nodes.json")
        .start()
        .await;
    assert!(matches!(missing, Err(mocks::MockError::ReadFile { .. })));
}

#[tokio::test]
async fn kubeconfig_uses_static_tokens() {
    let a = KubeMock::start().await.unwrap();
    let b = KubeMock::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path =
        mocks::write_kubeconfig(dir.path(), &[("ctx-a", &a.uri()), ("ctx-b", &b.uri())]).unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(&format!("server: \"{}\"", a.uri())), "{text}");
    assert!(text.contains(&format!("server: \"{}\"", b.uri())), "{text}");
    assert!(text.contains("current-context: \"ctx-a\""));
    assert!(text.contains("token: \"mock-token-ctx-b\""));
    assert!(!text.contains("exec"));
    assert_eq!(text.matches("- name:").count(), 6, "{text}");

    let err = mocks::write_kubeconfig(&dir.path().join("missing/dir"), &[]).unwrap_err();
    assert!(matches!(err, mocks::MockError::WriteFile { .. }));
}

#[tokio::test]
async fn gcp_serves_token_and_aggregated_reservations() {
    let gcp = GcpMock::builder()
        .reservation_list(vec![
            Reservation {
                name: "r1".into(),
                zone: "us-central1-a".into(),
                machine_type: "a2-highgpu-1g".into(),
                count: 4,
                in_use_count: 1,
                specific_reservation_required: false,
                status: "READY".into(),
            },
            Reservation {
                name: "r2".into(),
                zone: "us-east1-b".into(),
                machine_type: "n2-standard-8".into(),
                count: 2,
                in_use_count: 0,
                specific_reservation_required: true,
                status: "READY".into(),
            },
        ])
        .start()
        .await
        .unwrap();

    let token = send(&gcp.uri(), "POST", "/token", "grant_type=refresh_token")
        .await
        .unwrap();
    assert_eq!(token.status, 200);
    let token = token.json();
    assert_eq!(token["access_token"], "ya29.mock-access-token");
    assert_eq!(token["token_type"], "Bearer");

    let r = get(
        &gcp.uri(),
        "/compute/v1/projects/any-proj/aggregated/reservations?filter=x",
    )
    .await;
    let list = r.unwrap().json();
    assert_eq!(list["kind"], "compute#reservationAggregatedList");
    let r1 = &list["items"]["zones/us-central1-a"]["reservations"][0];
    assert_eq!(r1["specificReservation"]["count"], "4");
    assert_eq!(r1["specificReservation"]["inUseCount"], "1");
    assert_eq!(
        r1["specificReservation"]["instanceProperties"]["machineType"],
        "a2-highgpu-1g"
    );
    assert!(
        r1["zone"]
            .as_str()
            .unwrap()
            .ends_with("/zones/us-central1-a")
    );
    assert!(
        r1["selfLink"]
            .as_str()
            .unwrap()
            .ends_with("/mock-project/zones/us-central1-a/reservations/r1")
    );
    assert_eq!(
        list["items"]["zones/us-east1-b"]["reservations"][0]["specificReservationRequired"],
        true
    );

    assert_eq!(
        get(
            &gcp.uri(),
            "/compute/v1/projects/a/b/aggregated/reservations"
        )
        .await
        .unwrap()
        .status,
        404
    );
    gcp.token().assert_count(1);
    gcp.reservations().assert_count(1);
}

#[tokio::test]
async fn gcp_serves_a_reservations_file_as_is() {
    let path = fixtures_dir().join("gcp/reservations.json");
    let gcp = GcpMock::builder()
        .reservations_file(&path)
        .start()
        .await
        .unwrap();
    let r = get(
        &gcp.uri(),
        "/compute/v1/projects/mock-project/aggregated/reservations",
    )
    .await
    .unwrap();
    assert_eq!(r.body, std::fs::read(&path).unwrap());
}

#[tokio::test]
async fn catalog_server_serves_a_directory_tree() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir_all(root.join("aws")).unwrap();
    std::fs::write(
        root.join("aws/vms.csv"),
        "InstanceType,Price\nm6i.large,0.096\n",
    )
    .unwrap();
    // Outside the served root: must stay unreachable.
    std::fs::write(dir.path().join("secret.txt"), "no").unwrap();
    let catalogs = CatalogServer::builder().root(&root).start().await.unwrap();

    let r = get(&catalogs.uri(), "/catalogs/v8/aws/vms.csv")
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.text(), "InstanceType,Price\nm6i.large,0.096\n");
    assert!(r.head.to_lowercase().contains("content-type: text/csv"));
    assert_eq!(catalogs.url(), format!("{}/catalogs/v8", catalogs.uri()));

    assert_eq!(
        get(&catalogs.uri(), "/catalogs/v8/gcp/vms.csv")
            .await
            .unwrap()
            .status,
        404
    );
    assert_eq!(
        get(&catalogs.uri(), "/catalogs/v8/../../secret.txt")
            .await
            .unwrap()
            .status,
        404
    );
    assert_eq!(
        get(&catalogs.uri(), "/catalogs/v8/%2e%2e/%2e%2e/secret.txt")
            .await
            .unwrap()
            .status,
        404
    );
    assert_eq!(
        get(&catalogs.uri(), "/other/aws/vms.csv")
            .await
            .unwrap()
            .status,
        404
    );

    let statuses: Vec<_> = catalogs
        .files()
        .recording()
        .requests
        .iter()
        .map(|r| r.status)
        .collect();
    assert_eq!(statuses[0], Some(200));
    assert!(
        statuses[1..].iter().all(|s| *s == Some(404)),
        "{statuses:?}"
    );
}

#[tokio::test]
async fn gcp_pages_the_generated_list() {
    let reservation = |name: &str| Reservation {
        name: name.into(),
        zone: "us-central1-a".into(),
        machine_type: "a2-highgpu-1g".into(),
        count: 1,
        in_use_count: 0,
        specific_reservation_required: false,
        status: "READY".into(),
    };
    let gcp = GcpMock::builder()
        .reservation_list(vec![
            reservation("r1"),
            reservation("r2"),
            reservation("r3"),
        ])
        .page_size(2)
        .start()
        .await
        .unwrap();
    let path = "/compute/v1/projects/p/aggregated/reservations";
    let first = get(&gcp.uri(), path).await.unwrap().json();
    assert_eq!(
        first["items"]["zones/us-central1-a"]["reservations"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(first["nextPageToken"], "page-1");
    let second = get(&gcp.uri(), &format!("{path}?pageToken=page-1"))
        .await
        .unwrap()
        .json();
    assert_eq!(
        second["items"]["zones/us-central1-a"]["reservations"][0]["name"],
        "r3"
    );
    assert!(second.get("nextPageToken").is_none());
    let bad = get(&gcp.uri(), &format!("{path}?pageToken=bogus"))
        .await
        .unwrap();
    assert_eq!(bad.status, 400);
    assert_eq!(gcp.compute_endpoint(), format!("{}/compute/v1/", gcp.uri()));
    assert!(gcp.authorized_user_json("rt").contains(&gcp.token_uri()));
}

#[tokio::test]
async fn catalog_server_revalidates_and_can_cut_bodies_short() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("aws")).unwrap();
    let body = "InstanceType,Price\nm6i.large,0.096\n";
    std::fs::write(dir.path().join("aws/vms.csv"), body).unwrap();
    let catalogs = CatalogServer::builder()
        .root(dir.path())
        .start()
        .await
        .unwrap();
    assert_eq!(
        catalogs.hosted_url(),
        format!("{}/catalogs", catalogs.uri())
    );
    let r = get(&catalogs.uri(), "/catalogs/v8/aws/vms.csv")
        .await
        .unwrap();
    let etag = mocks::etag_of(body.as_bytes());
    assert!(
        r.head.to_lowercase().contains(&format!("etag: {etag}")),
        "{}",
        r.head
    );
    assert!(
        r.head.to_lowercase().contains("last-modified: "),
        "{}",
        r.head
    );

    let conditional = |tag: &str| {
        let uri = catalogs.uri();
        let tag = tag.to_string();
        async move {
            let addr = uri.trim_start_matches("http://").to_string();
            let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            let req = format!(
                "GET /catalogs/v8/aws/vms.csv HTTP/1.1\r\nHost: {addr}\r\nIf-None-Match: {tag}\r\nConnection: close\r\n\r\n"
            );
            stream.write_all(req.as_bytes()).await.unwrap();
            let mut out = String::new();
            stream.read_to_string(&mut out).await.unwrap();
            out
        }
    };
    assert!(conditional(&etag).await.starts_with("HTTP/1.1 304"));
    assert!(conditional("\"other\"").await.starts_with("HTTP/1.1 200"));

    let cut = CatalogServer::builder()
        .root(dir.path())
        .truncate(true)
        .start()
        .await
        .unwrap();
    let addr = cut.uri().trim_start_matches("http://").to_string();
    let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    stream
        .write_all(
            format!("GET /catalogs/v8/aws/vms.csv HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes(),
        )
        .await
        .unwrap();
    let mut raw = Vec::new();
    let _ = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        stream.read_to_end(&mut raw),
    )
    .await;
    let text = String::from_utf8_lossy(&raw);
    let (head, got) = text.split_once("\r\n\r\n").unwrap();
    assert!(
        head.to_lowercase()
            .contains(&format!("content-length: {}", body.len())),
        "{head}"
    );
    assert!(got.len() < body.len(), "the body was not cut: {got:?}");
}
