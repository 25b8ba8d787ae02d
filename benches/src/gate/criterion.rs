//! Reading criterion's own output (`target/criterion/**/new/*.json`) into
//! [`BenchResult`]s: this run's samples only, with the floors and clocks the
//! benchmarks recorded.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::Deserialize;

use super::results::BenchResult;
use super::{GateError, read_json};
use crate::meta::BenchMeta;

#[derive(Deserialize)]
struct SavedSample {
    iters: Vec<f64>,
    times: Vec<f64>,
}

#[derive(Deserialize)]
struct SavedBenchmark {
    full_id: String,
}

#[derive(Deserialize)]
struct SavedInterval {
    lower_bound: f64,
    upper_bound: f64,
}

#[derive(Deserialize)]
struct SavedEstimate {
    point_estimate: f64,
    confidence_interval: SavedInterval,
}

#[derive(Deserialize)]
struct SavedEstimates {
    mean: SavedEstimate,
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            out.push(p.clone());
            walk(&p, out);
        }
    }
}

/// Every directory below `root` (recursively).
pub fn subdirs(root: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    walk(root, &mut v);
    v
}

/// Reads criterion's `new/{benchmark,sample,estimates}.json` under
/// `criterion_dir` written at or after `since` (older ones are stale results
/// of benchmarks this run did not select). `meta` holds the floors and clocks
/// the benchmarks recorded.
pub fn collect_criterion(
    criterion_dir: &Path,
    since: SystemTime,
    meta: &BTreeMap<String, BenchMeta>,
) -> Result<BTreeMap<String, BenchResult>, GateError> {
    let mut out = BTreeMap::new();
    for dir in subdirs(criterion_dir)
        .into_iter()
        .filter(|d| d.file_name().is_some_and(|n| n == "new"))
    {
        let sample_path = dir.join("sample.json");
        let fresh = std::fs::metadata(&sample_path)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t >= since);
        if !fresh || !dir.join("benchmark.json").exists() {
            continue;
        }
        let bench: SavedBenchmark = read_json(&dir.join("benchmark.json"))?;
        let sample: SavedSample = read_json(&sample_path)?;
        let samples_ns: Vec<f64> = sample
            .iters
            .iter()
            .zip(&sample.times)
            .filter(|(i, _)| **i > 0.0)
            .map(|(i, t)| t / i)
            .collect();
        let mut r = BenchResult::from_samples(
            samples_ns,
            meta.get(&bench.full_id).and_then(|m| m.floor_ns),
        );
        if let Some(m) = meta.get(&bench.full_id) {
            r.clock = m.clock.clone();
            r.ratio_to = m.ratio_to.clone();
            r.peak_rss_kib = m.peak_rss_kib;
        }
        if let Ok(est) = read_json::<SavedEstimates>(&dir.join("estimates.json")) {
            r.mean_ns = est.mean.point_estimate;
            r.mean_ci_ns = [
                est.mean.confidence_interval.lower_bound,
                est.mean.confidence_interval.upper_bound,
            ];
        }
        out.insert(bench.full_id, r);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn write(path: &Path, text: &str) {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn reads_this_runs_samples_with_their_meta() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let new = dir.path().join("launch/cold-serial/latency-0/new");
        write(
            &new.join("benchmark.json"),
            r#"{"full_id": "launch/cold-serial/latency-0"}"#,
        );
        write(
            &new.join("sample.json"),
            r#"{"sampling_mode": "Flat", "iters": [1.0, 2.0, 0.0], "times": [10.0, 30.0, 5.0]}"#,
        );
        write(
            &new.join("estimates.json"),
            r#"{"mean": {"point_estimate": 12.5, "confidence_interval": {"lower_bound": 10.0, "upper_bound": 15.0}}}"#,
        );
        let meta = BTreeMap::from([(
            "launch/cold-serial/latency-0".to_string(),
            BenchMeta {
                floor_ns: Some(4.0),
                ..Default::default()
            },
        )]);
        let since = SystemTime::now() - Duration::from_secs(60);
        let got = collect_criterion(dir.path(), since, &meta).unwrap_or_else(|e| panic!("{e}"));
        let r = &got["launch/cold-serial/latency-0"];
        assert_eq!(
            r.samples_ns,
            [10.0, 15.0],
            "per-iteration, zero-iteration samples dropped"
        );
        assert_eq!(
            (r.median_ns, r.mean_ns, r.mean_ci_ns),
            (12.5, 12.5, [10.0, 15.0])
        );
        assert_eq!(r.floor_ns, Some(4.0));
        let later = SystemTime::now() + Duration::from_secs(60);
        assert!(
            collect_criterion(dir.path(), later, &meta)
                .unwrap_or_else(|e| panic!("{e}"))
                .is_empty(),
            "stale results are ignored"
        );
    }
}
