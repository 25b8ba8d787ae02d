use std::time::Duration;

use mocks::{Fault, Latency, MockSet, MocksSpec};

use crate::http::{get, send, sts_call};

const SCENARIO: &str = r#"
seed = 42

[sts]
account = "111122223333"
get_caller_identity = { latency = { kind = "fixed", ms = 1 } }

[kube]
contexts = 2
pod_count = 3
node_pools = [{ count = 2, gpu = { accelerator = "H100", count = 8, label = "gfd" } }]
nodes = { latency = { kind = "lognormal", median_ms = 1, sigma = 0.3 } }
overrides.mock-1.nodes = { fault = { kind = "status", status = 500 } }

[gcp]
reservation_list = [{ name = "r1", zone = "us-central1-a", machine_type = "a2-highgpu-1g", count = 4 }]

[catalog]
prefix = "/catalogs/v8"
"#;

#[test]
fn latency_and_fault_shapes_parse() {
    #[derive(serde::Deserialize)]
    struct Doc {
        l: Vec<Latency>,
        f: Vec<Fault>,
    }
    let doc: Doc = toml::from_str(
        r#"
        l = [{ kind = "zero" }, { kind = "fixed", ms = 1000 },
             { kind = "uniform", min_ms = 20, max_ms = 80 },
             { kind = "lognormal", median_ms = 50, sigma = 0.3 }]
        f = [{ kind = "none" }, { kind = "status", status = 503 }, { kind = "unauthorized" },
             { kind = "forbidden" }, { kind = "expired_token" }, { kind = "hang" },
             { kind = "connection_reset" }, { kind = "malformed_body" },
             { kind = "fail_first", n = 2, status = 500 }]
        "#,
    )
    .unwrap();
    let ms = Duration::from_millis;
    assert_eq!(
        doc.l,
        [
            Latency::Zero,
            Latency::Fixed(ms(1000)),
            Latency::Uniform {
                min: ms(20),
                max: ms(80)
            },
            Latency::LogNormal {
                median: ms(50),
                sigma: 0.3
            },
        ]
    );
    assert_eq!(
        doc.f,
        [
            Fault::None,
            Fault::Status(503),
            Fault::Unauthorized,
            Fault::Forbidden,
            Fault::ExpiredToken,
            Fault::Hang,
            Fault::ConnectionReset,
            Fault::MalformedBody,
            Fault::FailFirst { n: 2, status: 500 },
        ]
    );
    // And back: serialising gives the same shape.
    for l in &doc.l {
        let json = serde_json::to_string(l).unwrap();
        assert_eq!(
            &serde_json::from_str::<Latency>(&json).unwrap(),
            l,
            "{json}"
        );
    }
    for f in &doc.f {
        let json = serde_json::to_string(f).unwrap();
        assert_eq!(&serde_json::from_str::<Fault>(&json).unwrap(), f, "{json}");
    }
    assert_eq!(
        serde_json::to_string(&doc.l[1]).unwrap(),
        r#"{"kind":"fixed","ms":1000}"#
    );
}

#[test]
fn bad_scenarios_are_rejected() {
    for bad in [
        r#"sts = { bogus = 1 }"#,
        r#"kube = { nodes = { latency = { kind = "fixed", millis = 3 } } }"#,
        r#"kube = { nodes = { latency = { kind = "uniform", min_ms = 9, max_ms = 1 } } }"#,
        r#"kube = { nodes = { latency = { kind = "lognormal", median_ms = 9, sigma = -1.0 } } }"#,
        r#"sts = { get_caller_identity = { fault = { kind = "status", status = 200 } } }"#,
        r#"sts = { get_caller_identity = { fault = { kind = "explode" } } }"#,
    ] {
        assert!(toml::from_str::<MocksSpec>(bad).is_err(), "accepted: {bad}");
    }
}

#[tokio::test]
async fn unknown_override_contexts_are_rejected() {
    let spec: MocksSpec = toml::from_str("[kube]\ncontexts = 1\noverrides.mock-7 = {}\n").unwrap();
    let err = MockSet::start(&spec).await.err().expect("started");
    assert!(err.to_string().contains("mock-7"), "{err}");
}

#[tokio::test]
async fn a_set_starts_from_a_scenario_and_reports_per_endpoint() {
    let spec: MocksSpec = toml::from_str(SCENARIO).unwrap();
    let set = MockSet::start(&spec).await.unwrap();
    let names: Vec<_> = set.recordings().into_iter().map(|r| r.endpoint).collect();
    assert_eq!(
        names,
        [
            "sts",
            "kube/mock-0/version",
            "kube/mock-0/nodes",
            "kube/mock-0/pods",
            "kube/mock-1/version",
            "kube/mock-1/nodes",
            "kube/mock-1/pods",
            "gcp/token",
            "gcp/reservations",
            "catalog",
        ]
    );

    // Each context has its own address (a path on the set's shared server);
    // the override hits only mock-1.
    assert_ne!(set.kube[0].mock.uri(), set.kube[1].mock.uri());
    let ok = get(&set.kube[0].mock.uri(), "/api/v1/nodes").await.unwrap();
    assert_eq!(ok.status, 200);
    assert_eq!(ok.json()["items"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        get(&set.kube[1].mock.uri(), "/api/v1/nodes")
            .await
            .unwrap()
            .status,
        500
    );

    let body = sts_call(&set.sts.as_ref().unwrap().uri())
        .await
        .unwrap()
        .text();
    assert!(body.contains("<Account>111122223333</Account>"));
    let gcp = set.gcp.as_ref().unwrap();
    assert_eq!(
        send(&gcp.uri(), "POST", "/token", "").await.unwrap().status,
        200
    );

    let counts: Vec<_> = set.recordings().iter().map(|r| r.count()).collect();
    assert_eq!(counts, [1, 0, 1, 0, 0, 1, 0, 1, 0, 0]);
    let at0 = set
        .recorder("kube/mock-0/nodes")
        .unwrap()
        .recording()
        .requests[0]
        .at;
    let at1 = set
        .recorder("kube/mock-1/nodes")
        .unwrap()
        .recording()
        .requests[0]
        .at;
    assert!(
        at0 < at1,
        "one clock for the whole set: {at0:?} then {at1:?}"
    );

    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = std::fs::read_to_string(set.write_kubeconfig(dir.path()).unwrap()).unwrap();
    assert!(kubeconfig.contains("\"mock-1\""));
    assert!(set.env().iter().any(|(k, _)| *k == "AWS_ENDPOINT_URL_STS"));

    set.clear();
    assert!(set.recordings().iter().all(|r| r.count() == 0));
}

#[tokio::test]
async fn set_seeds_make_runs_repeatable() {
    let spec: MocksSpec = toml::from_str(SCENARIO).unwrap();
    let mut runs = Vec::new();
    for seed in [42, 42, 43] {
        let spec = MocksSpec {
            seed,
            ..spec.clone()
        };
        let set = MockSet::start(&spec).await.unwrap();
        let uri = set.kube[0].mock.uri();
        for _ in 0..5 {
            get(&uri, "/api/v1/nodes").await.unwrap();
        }
        let rec = set.recorder("kube/mock-0/nodes").unwrap().recording();
        runs.push(rec.requests.iter().map(|r| r.delay).collect::<Vec<_>>());
    }
    assert_eq!(runs[0], runs[1]);
    assert_ne!(runs[0], runs[2]);
}

#[tokio::test]
async fn an_empty_spec_starts_nothing() {
    let set = MockSet::start(&MocksSpec::default()).await.unwrap();
    assert!(set.recordings().is_empty());
    assert!(set.env().is_empty());
}

/// Contexts without a fault are separate servers answered concurrently
/// (the set's fleet): each on a port of its own, answering what a
/// wiremock-served context answers, byte for byte.
#[tokio::test]
async fn fault_free_contexts_are_servers_of_their_own_with_the_same_answers() {
    let spec: MocksSpec = toml::from_str(
        "[kube]\ncontexts = 3\npod_count = 2\n\
         overrides.mock-2.nodes = { fault = { kind = \"fail_first\", n = 0, status = 500 } }\n",
    )
    .unwrap();
    let set = MockSet::start(&spec).await.unwrap();
    let uris: Vec<String> = set.kube.iter().map(|k| k.mock.uri()).collect();
    // mock-0 and mock-1: a port each, no path; mock-2 on wiremock (a
    // `fail_first` of 0 never fails, yet is a fault).
    assert!(
        uris[..2].iter().all(|u| u.matches('/').count() == 2),
        "{uris:?}"
    );
    assert_ne!(uris[0], uris[1]);
    assert!(set.kube[0].mock.server().is_none());
    assert!(set.kube[2].mock.server().is_some());
    for path in ["/version", "/api/v1/nodes?limit=500", "/api/v1/pods"] {
        let fleet = get(&uris[0], path).await.unwrap();
        let wire = get(&uris[2], path).await.unwrap();
        assert_eq!(
            (fleet.status, &fleet.body),
            (wire.status, &wire.body),
            "{path}"
        );
        assert!(
            fleet
                .head
                .to_ascii_lowercase()
                .contains("content-type: application/json"),
            "{}",
            fleet.head
        );
    }
    assert_eq!(
        get(&uris[1], "/api/v1/namespaces").await.unwrap().status,
        404
    );
    let nodes = set.kube[0].mock.nodes().recording();
    assert_eq!(
        (nodes.count(), nodes.requests[0].path.as_str()),
        (1, "/api/v1/nodes")
    );
    assert_eq!(set.kube[1].mock.nodes().count(), 0);
}

/// Latency is the point here: every context of the fleet delays its answer
/// from the moment the request arrived, never less, whatever the others
/// are doing (16 requests sent at once).
#[tokio::test]
async fn a_fleet_answers_every_context_after_its_latency_never_before() {
    let spec: MocksSpec = toml::from_str(
        "[kube]\ncontexts = 16\nnodes = { latency = { kind = \"fixed\", ms = 40 } }\n",
    )
    .unwrap();
    let set = MockSet::start(&spec).await.unwrap();
    let asks = set.kube.iter().map(|k| {
        let uri = k.mock.uri();
        async move {
            let sent = std::time::Instant::now();
            let r = get(&uri, "/api/v1/nodes").await.unwrap();
            (r.status, sent.elapsed())
        }
    });
    let handles: Vec<_> = asks.map(tokio::spawn).collect();
    let mut answers = Vec::new();
    for h in handles {
        answers.push(h.await.expect("request task"));
    }
    for (status, took) in &answers {
        assert_eq!(*status, 200);
        assert!(*took >= Duration::from_millis(40), "early answer: {took:?}");
    }
    for k in &set.kube {
        let r = k.mock.nodes().recording();
        assert_eq!(r.count(), 1);
        assert_eq!(r.requests[0].delay, Duration::from_millis(40));
    }
}
