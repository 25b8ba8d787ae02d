use std::io::ErrorKind;
use std::time::{Duration, Instant};

use mocks::{Fault, GcpMock, KubeMock, StsMock};

use crate::http::{get, send, send_within, sts_call, xml_well_formed};

/// Asserts that an STS mock with `fault` answers `status` with `<Code>code</Code>`.
async fn check_sts(fault: Fault, status: u16, code: &str) {
    let sts = StsMock::builder().fault(fault).start().await.unwrap();
    let r = sts_call(&sts.uri()).await.unwrap();
    assert_eq!(r.status, status, "{fault:?}");
    assert!(
        r.head.to_lowercase().contains("content-type: text/xml"),
        "{fault:?}: {}",
        r.head
    );
    let body = r.text();
    assert!(xml_well_formed(&body), "{fault:?}: {body}");
    assert!(body.contains("<ErrorResponse"), "{fault:?}: {body}");
    assert!(
        body.contains(&format!("<Code>{code}</Code>")),
        "{fault:?}: {body}"
    );
}

#[tokio::test]
async fn sts_error_faults_answer_status_and_error_xml() {
    check_sts(Fault::Status(500), 500, "InternalFailure").await;
    check_sts(Fault::Status(503), 503, "ServiceUnavailable").await;
    check_sts(Fault::Unauthorized, 401, "InvalidClientTokenId").await;
    check_sts(Fault::Forbidden, 403, "AccessDenied").await;
    check_sts(Fault::ExpiredToken, 403, "ExpiredToken").await;
}

#[tokio::test]
async fn kube_and_gcp_errors_have_their_own_shapes() {
    // Kubernetes: a Status object.
    let kube = KubeMock::builder()
        .fault(Fault::Unauthorized)
        .start()
        .await
        .unwrap();
    let r = get(&kube.uri(), "/api/v1/nodes").await.unwrap();
    assert_eq!(r.status, 401);
    let v = r.json();
    assert_eq!(
        (v["kind"].as_str(), v["reason"].as_str()),
        (Some("Status"), Some("Unauthorized"))
    );
    assert_eq!(v["code"], 401);

    let kube = KubeMock::builder()
        .fault(Fault::ExpiredToken)
        .start()
        .await
        .unwrap();
    assert_eq!(get(&kube.uri(), "/version").await.unwrap().status, 401);

    // GCP API and OAuth.
    let gcp = GcpMock::builder()
        .fault(Fault::Status(500))
        .start()
        .await
        .unwrap();
    let r = get(&gcp.uri(), "/compute/v1/projects/p/aggregated/reservations")
        .await
        .unwrap();
    assert_eq!(r.status, 500);
    assert_eq!(r.json()["error"]["code"], 500);

    let gcp = GcpMock::builder()
        .fault(Fault::ExpiredToken)
        .start()
        .await
        .unwrap();
    let r = send(&gcp.uri(), "POST", "/token", "grant_type=refresh_token")
        .await
        .unwrap();
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"], "invalid_grant");
    let r = get(&gcp.uri(), "/compute/v1/projects/p/aggregated/reservations")
        .await
        .unwrap();
    assert_eq!(r.status, 401);
    assert_eq!(r.json()["error"]["status"], "UNAUTHENTICATED");
}

#[tokio::test]
async fn hang_outlasts_a_client_timeout() {
    let sts = StsMock::builder().fault(Fault::Hang).start().await.unwrap();
    let t = Instant::now();
    let r = send_within(
        Duration::from_millis(300),
        &sts.uri(),
        "POST",
        "/",
        "Action=GetCallerIdentity&Version=2011-06-15",
    )
    .await;
    assert!(r.is_err(), "hanging endpoint answered: {r:?}");
    assert!(t.elapsed() >= Duration::from_millis(300));
    let rec = sts.get_caller_identity().recording();
    assert_eq!(rec.count(), 1);
    assert_eq!(rec.requests[0].status, None);
    assert_eq!(rec.requests[0].delay, mocks::HANG_DELAY);
}

#[tokio::test]
async fn connection_reset_gives_a_connection_error() {
    let sts = StsMock::builder()
        .fault(Fault::ConnectionReset)
        .start()
        .await
        .unwrap();
    for _ in 0..3 {
        let err = sts_call(&sts.uri())
            .await
            .expect_err("reset endpoint answered");
        assert_eq!(err.kind(), ErrorKind::ConnectionReset, "{err}");
    }
    let rec = sts.get_caller_identity().recording();
    assert_eq!(rec.count(), 3);
    assert!(
        rec.requests
            .iter()
            .all(|r| r.status.is_none() && r.path == "/")
    );
}

#[tokio::test]
async fn a_reset_endpoint_leaves_its_siblings_working() {
    let mut opts = KubeMock::builder().pod_count(3);
    opts.nodes.fault = Fault::ConnectionReset;
    opts.pods.latency = mocks::Latency::fixed_ms(20);
    let kube = opts.start().await.unwrap();

    let version = get(&kube.uri(), "/version").await.unwrap();
    assert_eq!(version.status, 200);
    assert_eq!(version.json()["major"], "1");
    let t = Instant::now();
    let pods = get(&kube.uri(), "/api/v1/pods?limit=500").await.unwrap();
    assert!(
        t.elapsed() >= Duration::from_millis(20),
        "latency lost through the gate"
    );
    assert_eq!(pods.json()["items"].as_array().map(Vec::len), Some(3));
    let err = get(&kube.uri(), "/api/v1/nodes?limit=500")
        .await
        .expect_err("nodes answered");
    assert_eq!(err.kind(), ErrorKind::ConnectionReset);

    kube.version().assert_count(1);
    kube.pods().assert_count(1);
    kube.nodes().assert_count(1);
}

#[tokio::test]
async fn malformed_bodies_do_not_parse() {
    let sts = StsMock::builder()
        .fault(Fault::MalformedBody)
        .start()
        .await
        .unwrap();
    let r = sts_call(&sts.uri()).await.unwrap();
    assert_eq!(r.status, 200);
    assert!(!xml_well_formed(&r.text()), "{}", r.text());
    // The healthy body passes the same check.
    let healthy = StsMock::start().await.unwrap();
    assert!(xml_well_formed(
        &sts_call(&healthy.uri()).await.unwrap().text()
    ));

    let kube = KubeMock::builder()
        .fault(Fault::MalformedBody)
        .start()
        .await
        .unwrap();
    for path in ["/version", "/api/v1/nodes", "/api/v1/pods"] {
        let r = get(&kube.uri(), path).await.unwrap();
        assert_eq!(r.status, 200);
        assert!(
            serde_json::from_slice::<serde_json::Value>(&r.body).is_err(),
            "{path}"
        );
    }
    let gcp = GcpMock::builder()
        .fault(Fault::MalformedBody)
        .start()
        .await
        .unwrap();
    let r = send(&gcp.uri(), "POST", "/token", "").await.unwrap();
    assert!(serde_json::from_slice::<serde_json::Value>(&r.body).is_err());
}

#[tokio::test]
async fn fail_first_fails_n_times_then_succeeds() {
    let sts = StsMock::builder()
        .fault(Fault::FailFirst { n: 2, status: 503 })
        .start()
        .await
        .unwrap();
    let mut statuses = Vec::new();
    for _ in 0..4 {
        statuses.push(sts_call(&sts.uri()).await.unwrap().status);
    }
    assert_eq!(statuses, [503, 503, 200, 200]);
    let recorded: Vec<_> = sts
        .get_caller_identity()
        .recording()
        .requests
        .iter()
        .map(|r| r.status)
        .collect();
    assert_eq!(recorded, [Some(503), Some(503), Some(200), Some(200)]);
}

#[tokio::test]
async fn non_error_statuses_are_rejected() {
    for fault in [
        Fault::Status(200),
        Fault::Status(999),
        Fault::FailFirst { n: 1, status: 302 },
    ] {
        let r = StsMock::builder().fault(fault).start().await;
        assert!(
            matches!(r, Err(mocks::MockError::InvalidFault { .. })),
            "{fault:?}"
        );
    }
}
