//! `catalog-download/cold-launch/latency-{0,300}`: one whole in-process launch
//! (`optimizer::launch::run`, `--gpus H100:8`, the seven catalog clouds
//! declared) into an empty SkyPilot folder, so every `vms.csv` and both
//! `common/` tables are downloaded from a catalog mock that answers each file
//! after a fixed delay. The downloads run concurrently beside the fan-out, so
//! the launch takes about one delay (the slowest file) plus parsing, not the
//! sum of nine delays. Each iteration gets a fresh folder (set up outside
//! the timing).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use benches::budget::Budget;
use benches::{CATALOG_CLOUDS, all_catalog_clouds, record_floor, runtime};
use criterion::{BenchmarkId, Criterion, SamplingMode};
use mocks::{CatalogServer, Latency};
use optimizer::launch::{LaunchOptions, Request};
use planner::launch::CatalogKind;
use planner::task::Overrides;

/// The mocked delay of every catalog file: 0 measures the rest of the cold
/// launch (parsing the downloads), 300 adds the network; their difference is
/// what the downloads cost (≈ one delay when they are concurrent, nine when
/// serial).
const LATENCIES_MS: [u64; 2] = [0, 300];

/// One launch into a fresh folder; checks that every catalog was downloaded.
async fn cold_launch(url: &str) -> anyhow::Result<Duration> {
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home)?;
    let env: BTreeMap<String, String> = [
        ("HOME", home.display().to_string()),
        (
            "SKY_STATE_DIR",
            dir.path().join("state").display().to_string(),
        ),
        (
            "SKY_RUNTIME_DIR",
            dir.path().join("runtime").display().to_string(),
        ),
        ("SKY_ENABLED_CLOUDS", all_catalog_clouds()),
        ("SKY_CATALOG_URL", url.to_string()),
        ("SKY_CATALOG_MIRROR_URL", String::new()),
        ("AWS_EC2_METADATA_DISABLED", "true".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let opts = LaunchOptions::from_env(env, home)?;
    let request = Request {
        entrypoint: Vec::new(),
        overrides: Overrides {
            gpus: Some("H100:8".into()),
            ..Default::default()
        },
    };
    let started = Instant::now();
    let result = optimizer::launch::run(&opts, &request).await?;
    let took = started.elapsed();
    let downloaded = result
        .prepared
        .catalogs
        .iter()
        .filter(|c| c.kind == CatalogKind::Downloaded)
        .count();
    anyhow::ensure!(
        downloaded == CATALOG_CLOUDS.len() + 2,
        "expected every catalog downloaded, got {:?}",
        result.prepared.catalogs
    );
    Ok(took)
}

/// The `catalog-download` group.
pub fn benches(c: &mut Criterion) {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(e) => crate::fail(&format!("{e:#}")),
    };
    let mut g = c.benchmark_group("catalog-download");
    g.sampling_mode(SamplingMode::Flat);
    Budget::new(10, 500, 6000).apply(&mut g, "catalog-download/*", false);
    for latency_ms in LATENCIES_MS {
        let mut server: Option<CatalogServer> = None;
        g.bench_function(
            BenchmarkId::new("cold-launch", format!("latency-{latency_ms}")),
            |b| {
                let server = server.get_or_insert_with(|| {
                    // The floor is one delay: every file is on its own lane.
                    let id = format!("catalog-download/cold-launch/latency-{latency_ms}");
                    if let Err(e) = record_floor(&id, Duration::from_millis(latency_ms)) {
                        crate::fail(&format!("{id}: recording the floor: {e:#}"));
                    }
                    rt.block_on(
                        CatalogServer::builder()
                            .latency(Latency::fixed_ms(latency_ms))
                            .start(),
                    )
                    .unwrap_or_else(|e| crate::fail(&format!("catalog mock: {e}")))
                });
                let url = server.hosted_url();
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        total += rt
                            .block_on(cold_launch(&url))
                            .unwrap_or_else(|e| crate::fail(&format!("cold download: {e:#}")));
                    }
                    total
                });
            },
        );
    }
    g.finish();
}
