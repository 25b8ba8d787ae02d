//! The `-o json` / `--plan-out` document: the plan, every considered row,
//! and how the world was gathered (schema [`PLAN_SCHEMA`], documented in the
//! README).

use super::optimizer;
use crate::check::Outcome;
use crate::launch::LaunchResult;
use crate::text::strip_ansi;

/// Version tag of the JSON document printed by `sky launch -o json`.
pub const PLAN_SCHEMA: &str = "sky-plan/v1";

/// The plan document of `result` for `cluster`.
pub fn plan(result: &LaunchResult, cluster: &str) -> serde_json::Value {
    let prepared = &result.prepared;
    let optimized = &result.optimized;
    let clouds: Vec<serde_json::Value> = prepared
        .fanout
        .reports
        .iter()
        .map(|r| {
            let (outcome, reason) = match &r.outcome {
                Outcome::Ready(_) => ("ok", None),
                Outcome::NoCredentials(h) => ("no-credentials", Some(h.clone())),
                Outcome::Failed(e) => ("failed", Some(e.to_string())),
            };
            serde_json::json!({
                "cloud": r.cloud.name(),
                "outcome": outcome,
                "reason": reason,
                "cache": r.cache(),
                "elapsed_ms": r.elapsed.as_secs_f64() * 1000.0,
            })
        })
        .collect();
    let (plan, error) = match &optimized.result {
        Ok(p) => (
            serde_json::to_value(p).unwrap_or(serde_json::Value::Null),
            None,
        ),
        Err(e) => (
            serde_json::Value::Null,
            Some(
                serde_json::json!({"kind": e.kind.python_name(), "message": strip_ansi(&e.message)}),
            ),
        ),
    };
    let mut doc = serde_json::json!({
        "schema": PLAN_SCHEMA,
        "cluster": cluster,
        "enabled_clouds": prepared.world.enabled.iter().map(|c| c.name()).collect::<Vec<_>>(),
        "excluded": prepared.excluded.iter().map(|e| serde_json::json!({"cloud": e.cloud.name(), "reason": e.reason})).collect::<Vec<_>>(),
        "catalog": prepared.catalog_source.to_string(),
        "catalogs": prepared.catalogs.iter().map(|c| serde_json::json!({
            "file": c.file,
            "cloud": c.cloud.map(|id| id.name()),
            "source": c.kind.name(),
            "path": c.path.as_ref().map(|p| p.display().to_string()),
            "age_s": c.age.map(|a| a.as_secs_f64()),
            "pull_hours": c.pull_hours,
        })).collect::<Vec<_>>(),
        "example_prices": prepared.example_prices.iter().map(|c| c.name()).collect::<Vec<_>>(),
        "aws_az_mapping": prepared.az_mapping,
        "checks": clouds,
        "log": optimizer::log(optimized).iter().map(|l| strip_ansi(l)).collect::<Vec<_>>(),
        "plan": plan,
        "error": error,
    });
    // `--explain` only: without it the document is unchanged.
    if let Some(explanation) = &result.explanation {
        doc["explain"] = super::explain::json(explanation);
    }
    doc
}
