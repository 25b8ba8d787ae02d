use std::time::{Duration, Instant};

use mocks::{Latency, StsMock};

use crate::http::sts_call;

fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

#[tokio::test]
async fn fixed_latency_is_delivered_within_5ms_and_never_early() {
    // Arrange
    let set = ms(30);
    let sts = StsMock::builder()
        .latency(Latency::Fixed(set))
        .start()
        .await
        .unwrap();
    // Act
    let mut took = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        let r = sts_call(&sts.uri()).await.unwrap();
        took.push(t.elapsed());
        assert_eq!(r.status, 200);
    }
    // Assert
    took.sort();
    let median = took[took.len() / 2];
    assert!(took[0] >= set, "early answer: {:?}", took[0]);
    assert!(
        median <= set + ms(5),
        "median {median:?} exceeds {set:?} + 5 ms"
    );
    let recorded = sts.get_caller_identity().recording();
    assert!(recorded.requests.iter().all(|r| r.delay == set));
}

#[tokio::test]
async fn zero_latency_answers_fast() {
    let sts = StsMock::start().await.unwrap();
    let t = Instant::now();
    for _ in 0..5 {
        sts_call(&sts.uri()).await.unwrap();
    }
    assert!(
        t.elapsed() < ms(500),
        "5 zero-latency calls took {:?}",
        t.elapsed()
    );
}

/// Delays the server assigned to `n` sequential requests.
async fn served_delays(latency: Latency, seed: u64, n: usize) -> Vec<Duration> {
    let mut opts = StsMock::builder().latency(latency);
    opts.get_caller_identity.seed = Some(seed);
    let sts = opts.start().await.unwrap();
    for _ in 0..n {
        sts_call(&sts.uri()).await.unwrap();
    }
    let rec = sts.get_caller_identity().recording();
    rec.requests.iter().map(|r| r.delay).collect()
}

fn check_repeatable(latency: Latency) {
    let a: Vec<_> = latency.sampler(11).take(50).collect();
    let b: Vec<_> = latency.sampler(11).take(50).collect();
    let c: Vec<_> = latency.sampler(12).take(50).collect();
    assert_eq!(a, b, "{latency:?}: same seed, different sequence");
    assert_ne!(a, c, "{latency:?}: different seeds, same sequence");
    let distinct: std::collections::BTreeSet<_> = a.iter().collect();
    assert!(
        distinct.len() > 10,
        "{latency:?}: sequence barely varies: {a:?}"
    );
}

#[test]
fn random_sequences_repeat_for_the_same_seed() {
    check_repeatable(Latency::Uniform {
        min: ms(1),
        max: ms(9),
    });
    check_repeatable(Latency::LogNormal {
        median: ms(5),
        sigma: 0.4,
    });
}

#[test]
fn samples_stay_in_range_and_around_the_median() {
    let uniform = Latency::Uniform {
        min: ms(2),
        max: ms(4),
    };
    assert!(
        uniform
            .sampler(1)
            .take(1000)
            .all(|d| d >= ms(2) && d <= ms(4))
    );

    let mut lognormal: Vec<_> = Latency::LogNormal {
        median: ms(50),
        sigma: 0.3,
    }
    .sampler(3)
    .take(2001)
    .collect();
    lognormal.sort();
    let median = lognormal[1000];
    assert!(median > ms(45) && median < ms(55), "median {median:?}");
}

#[tokio::test]
async fn the_server_serves_the_seeded_sequence() {
    // Small delays: the point is which delays, not waiting.
    for latency in [
        Latency::Uniform {
            min: Duration::ZERO,
            max: ms(3),
        },
        Latency::LogNormal {
            median: ms(1),
            sigma: 0.5,
        },
    ] {
        let expected: Vec<_> = latency.sampler(99).take(8).collect();
        assert_eq!(served_delays(latency, 99, 8).await, expected);
        assert_eq!(served_delays(latency, 99, 8).await, expected);
        assert_ne!(served_delays(latency, 100, 8).await, expected);
    }
}

#[test]
fn invalid_models_are_errors_not_panics() {
    let bad = [
        Latency::Uniform {
            min: ms(5),
            max: ms(1),
        },
        Latency::LogNormal {
            median: ms(5),
            sigma: f64::NAN,
        },
        Latency::LogNormal {
            median: ms(5),
            sigma: -1.0,
        },
        Latency::Fixed(Duration::from_secs(100_000)),
    ];
    for l in bad {
        assert!(l.validate("x").is_err(), "{l:?} accepted");
        // Sampling a bad model still must not panic.
        let _ = l.sampler(0).take(3).count();
    }
    assert!(Latency::fixed_ms(5).validate("x").is_ok());
}

#[tokio::test]
async fn a_server_refuses_an_invalid_latency() {
    let r = StsMock::builder()
        .latency(Latency::Uniform {
            min: ms(5),
            max: ms(1),
        })
        .start()
        .await;
    assert!(matches!(r, Err(mocks::MockError::InvalidLatency { .. })));
}
