//! `nebius_catalog._fetch_user_catalog`: the tenant's projects, one per
//! region (`_get_region_projects`), each region's platforms
//! (`fetch_nebius.fetch_platforms_for_project`) and two estimates per
//! preset (`fetch_nebius.estimate_platforms`), judged by SkyPilot's rules
//! (`planner::catalog::nebius`). The same walk runs on the live API
//! ([`LiveApi`]) and on offline answers ([`OfflineApi`], `SKY_NEBIUS_API_DIR`).

use std::collections::BTreeMap;
use std::path::Path;

use futures::StreamExt as _;
use futures::future::BoxFuture;
use serde::Deserialize;

use super::auth::Secret;
use super::grpc::{self, CallError, Channel};
use super::proto::{self, Platform, Preset, Project};
use super::settings::Settings;
use planner::catalog::nebius::{
    CostKind, PresetSpec, PriceError, TotalCost, check_coverage, price_preset,
};
use planner::check::NebiusPreset;

/// Estimates in flight at once (SkyPilot gathers a region's all at once;
/// a bound keeps a very large tenant from opening hundreds of streams).
const ESTIMATES_IN_FLIGHT: usize = 32;

/// Why the walk stopped.
#[derive(Debug)]
pub(crate) enum WalkError {
    /// The project listing refused the credentials (`sky check` fails).
    Auth(String),
    /// Anything else: SkyPilot falls back to the static catalog.
    Fallback(String),
}

/// The three calls of the walk.
pub(crate) trait Api: Send + Sync {
    /// `ProjectService.List(parent_id=tenant)`.
    fn list_projects<'a>(
        &'a self,
        tenant: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Project>, CallError>>;
    /// `PlatformService.List(parent_id=project, page_size=999)`.
    fn list_platforms<'a>(
        &'a self,
        project: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Platform>, CallError>>;
    /// `CalculatorService.EstimateBatch` of one preset (`Err`: the request failed).
    fn estimate<'a>(
        &'a self,
        project: &'a str,
        platform: &'a str,
        preset: &'a str,
        preemptible: bool,
    ) -> BoxFuture<'a, Result<Vec<TotalCost>, String>>;
}

/// The tenant's priced presets, or why there are none.
pub(crate) async fn fetch_prices(
    api: &dyn Api,
    tenant: &str,
    settings: &Settings,
) -> Result<Vec<NebiusPreset>, WalkError> {
    let projects = api.list_projects(tenant).await.map_err(|e| {
        if e.is_auth() {
            WalkError::Auth(format!(
                "Nebius refused to list the projects of tenant {tenant}: {e}"
            ))
        } else {
            WalkError::Fallback(format!("listing the projects of tenant {tenant}: {e}"))
        }
    })?;
    // `_get_region_projects`: the first project of each region, unless the
    // config names one.
    let mut regions: Vec<(String, String)> = Vec::new();
    for p in &projects {
        if !regions.iter().any(|(r, _)| *r == p.region) {
            regions.push((p.region.clone(), settings.project_for(&p.region, &p.id)));
        }
    }
    let listings = futures::future::join_all(
        regions
            .iter()
            .map(|(_, project)| api.list_platforms(project)),
    )
    .await;
    let mut total = 0usize;
    let mut jobs: Vec<(String, String, Platform, Preset)> = Vec::new();
    for ((region, project), listing) in regions.iter().zip(listings) {
        let platforms = listing.map_err(|e| {
            WalkError::Fallback(format!("listing the platforms of project {project}: {e}"))
        })?;
        // `if not platforms: continue`: such a region counts no preset.
        for platform in platforms {
            total += platform.presets.len();
            for preset in platform.presets.clone() {
                jobs.push((region.clone(), project.clone(), platform.clone(), preset));
            }
        }
    }
    type Estimates = (
        Result<Vec<TotalCost>, String>,
        Result<Vec<TotalCost>, String>,
    );
    // Boxed up front: a lazily mapped stream of borrowing futures trips the
    // compiler's higher-ranked lifetime check behind the adapter's `BoxFuture`.
    let pending: Vec<BoxFuture<'_, Estimates>> = jobs
        .iter()
        .map(
            |(_, project, platform, preset)| -> BoxFuture<'_, Estimates> {
                Box::pin(async move {
                    futures::join!(
                        api.estimate(project, &platform.name, &preset.name, false),
                        api.estimate(project, &platform.name, &preset.name, true)
                    )
                })
            },
        )
        .collect();
    let answers: Vec<Estimates> = futures::stream::iter(pending)
        .buffered(ESTIMATES_IN_FLIGHT)
        .collect()
        .await;
    let mut priced = Vec::new();
    for ((region, _, platform, preset), (on_demand, spot)) in jobs.iter().zip(answers) {
        let spec = PresetSpec {
            region,
            platform: &platform.name,
            gpu_memory_gb: platform.gpu_memory_gb,
            preset: &preset.name,
            gpus: preset.gpus,
            vcpus: preset.vcpus,
            memory_gib: preset.memory_gib,
        };
        match price_preset(
            &spec,
            on_demand.as_deref().map_err(String::as_str),
            spot.as_deref().map_err(String::as_str),
        ) {
            Ok(p) => priced.push(p),
            Err(PriceError::Skipped(why)) => {
                tracing::debug!(reason = %why, "Nebius preset skipped")
            }
            Err(PriceError::Fatal(why)) => return Err(WalkError::Fallback(why)),
        }
    }
    check_coverage(total, priced.len()).map_err(WalkError::Fallback)?;
    Ok(priced)
}

/// The live API over one gRPC channel with one bearer token.
pub(crate) struct LiveApi {
    /// The channel.
    pub channel: Channel,
    /// The bearer token.
    pub token: Secret,
}

impl LiveApi {
    fn redact(&self, e: CallError) -> CallError {
        match e {
            CallError::Status { code, message } => CallError::Status {
                code,
                message: crate::clouds::http_client::sanitize(&message, &[self.token.expose()]),
            },
            CallError::Transport(why) => CallError::Transport(
                crate::clouds::http_client::sanitize(&why, &[self.token.expose()]),
            ),
            CallError::Timeout => CallError::Timeout,
        }
    }
}

impl Api for LiveApi {
    fn list_projects<'a>(
        &'a self,
        tenant: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Project>, CallError>> {
        Box::pin(async move {
            let body = self
                .channel
                .unary(
                    grpc::PROJECTS,
                    "List",
                    proto::list_projects_request(tenant),
                    Some(self.token.expose()),
                )
                .await
                .map_err(|e| self.redact(e))?;
            proto::list_projects_response(&body).map_err(CallError::Transport)
        })
    }

    fn list_platforms<'a>(
        &'a self,
        project: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Platform>, CallError>> {
        Box::pin(async move {
            let body = self
                .channel
                .unary(
                    grpc::PLATFORMS,
                    "List",
                    proto::list_platforms_request(project),
                    Some(self.token.expose()),
                )
                .await
                .map_err(|e| self.redact(e))?;
            proto::list_platforms_response(&body).map_err(CallError::Transport)
        })
    }

    fn estimate<'a>(
        &'a self,
        project: &'a str,
        platform: &'a str,
        preset: &'a str,
        preemptible: bool,
    ) -> BoxFuture<'a, Result<Vec<TotalCost>, String>> {
        Box::pin(async move {
            let body = self
                .channel
                .unary(
                    grpc::CALCULATOR,
                    "EstimateBatch",
                    proto::estimate_batch_request(project, platform, preset, preemptible),
                    Some(self.token.expose()),
                )
                .await
                .map_err(|e| self.redact(e).to_string())?;
            proto::estimate_batch_response(&body)
        })
    }
}

/// The offline answers file inside `SKY_NEBIUS_API_DIR`.
pub(crate) const API_FILE: &str = "api.json";

/// `<dir>/api.json`: what the three calls answer.
///
/// ```json
/// {
///   "projects": [{"id": "project-e00abc", "region": "eu-north1"}],
///   "platforms": {"project-e00abc": [{"name": "gpu-h100-sxm", "gpu_memory_gigabytes": 80,
///       "presets": [{"name": "1gpu-16vcpu-200gb", "vcpu_count": 16, "memory_gibibytes": 200, "gpu_count": 1}]}]},
///   "estimates": {"project-e00abc/gpu-h100-sxm/1gpu-16vcpu-200gb": {"on_demand": "2.10", "spot": "0.90"}}
/// }
/// ```
///
/// An estimate is the hourly general cost's decimal text, or
/// `{"error": "<status: message>"}` (the request failed, as a preset
/// without a SKU does); a missing key fails like `INVALID_ARGUMENT`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OfflineApi {
    #[serde(default)]
    projects: Vec<OfflineProject>,
    #[serde(default)]
    platforms: BTreeMap<String, Vec<OfflinePlatform>>,
    #[serde(default)]
    estimates: BTreeMap<String, OfflineEstimates>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OfflineProject {
    id: String,
    region: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OfflinePlatform {
    name: String,
    #[serde(default)]
    gpu_memory_gigabytes: u32,
    #[serde(default)]
    presets: Vec<OfflinePreset>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OfflinePreset {
    name: String,
    vcpu_count: u32,
    memory_gibibytes: u32,
    #[serde(default)]
    gpu_count: u32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OfflineEstimates {
    on_demand: Option<OfflineEstimate>,
    spot: Option<OfflineEstimate>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OfflineEstimate {
    Cost(String),
    Error { error: String },
}

impl OfflineApi {
    /// Reads `<dir>/api.json`; `Err` names the file.
    pub(crate) fn read(dir: &Path) -> Result<OfflineApi, String> {
        let path = dir.join(API_FILE);
        let text = std::fs::read(&path).map_err(|e| {
            format!(
                "cannot read the offline Nebius answers {} (SKY_NEBIUS_API_DIR): {e}",
                path.display()
            )
        })?;
        serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

impl Api for OfflineApi {
    fn list_projects<'a>(
        &'a self,
        _tenant: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Project>, CallError>> {
        let projects = self
            .projects
            .iter()
            .map(|p| Project {
                id: p.id.clone(),
                region: p.region.clone(),
            })
            .collect();
        Box::pin(async move { Ok(projects) })
    }

    fn list_platforms<'a>(
        &'a self,
        project: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Platform>, CallError>> {
        let platforms = self
            .platforms
            .get(project)
            .map(|list| {
                list.iter()
                    .map(|p| Platform {
                        name: p.name.clone(),
                        gpu_memory_gb: p.gpu_memory_gigabytes,
                        presets: p
                            .presets
                            .iter()
                            .map(|s| Preset {
                                name: s.name.clone(),
                                vcpus: s.vcpu_count,
                                memory_gib: s.memory_gibibytes,
                                gpus: s.gpu_count,
                            })
                            .collect(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Box::pin(async move { Ok(platforms) })
    }

    fn estimate<'a>(
        &'a self,
        project: &'a str,
        platform: &'a str,
        preset: &'a str,
        preemptible: bool,
    ) -> BoxFuture<'a, Result<Vec<TotalCost>, String>> {
        let entry = self
            .estimates
            .get(&format!("{project}/{platform}/{preset}"));
        let answer = entry.and_then(|e| {
            if preemptible {
                e.spot.as_ref()
            } else {
                e.on_demand.as_ref()
            }
        });
        let result = match answer {
            Some(OfflineEstimate::Cost(cost)) => Ok(vec![TotalCost {
                unit: "hour".into(),
                cost: CostKind::General(Some(cost.clone())),
            }]),
            Some(OfflineEstimate::Error { error }) => Err(error.clone()),
            None => Err("INVALID_ARGUMENT: unresolved sku".into()),
        };
        Box::pin(async move { result })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn settings(config: &str) -> Settings {
        let home = tempfile::tempdir().unwrap();
        let ctx = crate::clouds::CheckContext {
            env: Default::default(),
            home: home.path().to_path_buf(),
            state_dir: home.path().join(".sky"),
            refresh: false,
            cloud_timeout: Duration::from_secs(5),
            kubernetes_allowed_contexts: None,
            reservation_clouds: Vec::new(),
            gcp_project_id: None,
            sky_config: planner::config::parse_sky_config(config, "c").unwrap(),
        };
        Settings::read(&ctx)
    }

    fn api(json: &str) -> OfflineApi {
        serde_json::from_str(json).unwrap()
    }

    const TENANT: &str = r#"{
      "projects": [{"id": "project-e00a", "region": "eu-north1"}, {"id": "project-e00b", "region": "eu-north1"},
                   {"id": "project-u00c", "region": "us-central1"}],
      "platforms": {
        "project-e00a": [{"name": "cpu-d3", "presets": [{"name": "4vcpu-16gb", "vcpu_count": 4, "memory_gibibytes": 16}]},
                         {"name": "gpu-h100-sxm", "gpu_memory_gigabytes": 80,
                          "presets": [{"name": "1gpu-16vcpu-200gb", "vcpu_count": 16, "memory_gibibytes": 200, "gpu_count": 1}]}],
        "project-cfg": [{"name": "cpu-d3", "presets": [{"name": "4vcpu-16gb", "vcpu_count": 4, "memory_gibibytes": 16}]}]
      },
      "estimates": {
        "project-e00a/cpu-d3/4vcpu-16gb": {"on_demand": "0.08"},
        "project-e00a/gpu-h100-sxm/1gpu-16vcpu-200gb": {"on_demand": "2.10", "spot": {"error": "UNAVAILABLE"}},
        "project-cfg/cpu-d3/4vcpu-16gb": {"on_demand": "0.07", "spot": "0.03"}
      }
    }"#;

    #[tokio::test]
    async fn the_walk_prices_the_first_project_of_each_region() {
        let got = fetch_prices(&api(TENANT), "tenant-x", &settings(""))
            .await
            .unwrap();
        let names: Vec<(String, String, Option<String>)> = got
            .iter()
            .map(|p| {
                (
                    p.region.clone(),
                    format!("{}_{}", p.platform, p.preset),
                    p.spot_price.clone(),
                )
            })
            .collect();
        // us-central1's project lists no platform: it counts nothing.
        assert_eq!(
            names,
            [
                ("eu-north1".into(), "cpu-d3_4vcpu-16gb".into(), None),
                (
                    "eu-north1".into(),
                    "gpu-h100-sxm_1gpu-16vcpu-200gb".into(),
                    None
                ),
            ]
        );
        // A configured project replaces the listed one.
        let got = fetch_prices(
            &api(TENANT),
            "tenant-x",
            &settings(
                "nebius:\n  region_configs:\n    eu-north1:\n      project_id: project-cfg\n",
            ),
        )
        .await
        .unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].price, "0.07");
        assert_eq!(got[0].spot_price.as_deref(), Some("0.03"));
    }

    #[tokio::test]
    async fn a_mostly_unpriced_tenant_falls_back() {
        let mostly_unpriced = r#"{
          "projects": [{"id": "p", "region": "eu-north1"}],
          "platforms": {"p": [{"name": "cpu-d3", "presets": [
             {"name": "a", "vcpu_count": 2, "memory_gibibytes": 8},
             {"name": "b", "vcpu_count": 4, "memory_gibibytes": 16},
             {"name": "c", "vcpu_count": 8, "memory_gibibytes": 32}]}]},
          "estimates": {"p/cpu-d3/a": {"on_demand": "0.05"}, "p/cpu-d3/b": {"on_demand": "0"}}
        }"#;
        let err = fetch_prices(&api(mostly_unpriced), "t", &settings(""))
            .await
            .unwrap_err();
        assert!(
            matches!(&err, WalkError::Fallback(m) if m == "Failed to price 2 out of 3 Nebius presets; refusing to write a mostly-empty personal catalog."),
            "{err:?}"
        );
        let empty = r#"{"projects": []}"#;
        assert!(matches!(
            fetch_prices(&api(empty), "t", &settings("")).await,
            Err(WalkError::Fallback(_))
        ));
    }

    #[test]
    fn unknown_fields_in_the_offline_file_are_refused() {
        assert!(serde_json::from_str::<OfflineApi>(r#"{"project": []}"#).is_err());
    }
}
