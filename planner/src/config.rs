//! SkyPilot's config document (`~/.sky/config.yaml`), parsed from text: the
//! keys the planner reads (`allowed_clouds`, Kubernetes contexts and pricing,
//! reservations). Finding and reading the file is the `optimizer` crate's job.

use crate::catalog::kubernetes::KubePricing;
use crate::cloud::{CloudId, UnknownCloud};

/// Why a config document or a list of cloud names is unusable.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The document is malformed.
    #[error("invalid SkyPilot config {source_name}: {message}")]
    SkyConfig {
        /// Where the document came from (its path).
        source_name: String,
        /// What is wrong.
        message: String,
    },
    /// An unknown cloud name (in `SKY_ENABLED_CLOUDS` or `allowed_clouds`).
    #[error("{origin}: {unknown}")]
    UnknownCloud {
        /// Where the name came from.
        origin: String,
        /// The name and suggestions.
        unknown: UnknownCloud,
    },
}

/// The parts of `~/.sky/config.yaml` the optimizer uses.
#[derive(Debug, Clone, Default)]
pub struct SkyConfig {
    /// `allowed_clouds`.
    pub allowed_clouds: Option<Vec<CloudId>>,
    /// `kubernetes.allowed_contexts` (`["all"]` for every context).
    pub kubernetes_allowed_contexts: Option<Vec<String>>,
    /// The whole document (for pricing and per-context settings).
    pub raw: serde_yaml_ng::Value,
}

impl SkyConfig {
    /// Clouds with `specific_reservations` or `prioritize_reservations` configured.
    pub fn reservation_clouds(&self) -> Vec<CloudId> {
        [CloudId::Aws, CloudId::Gcp]
            .into_iter()
            .filter(|c| {
                self.raw.get(c.name()).is_some_and(|section| {
                    section
                        .get("specific_reservations")
                        .is_some_and(|v| !v.is_null())
                        || section
                            .get("prioritize_reservations")
                            .and_then(|v| v.as_bool())
                            .unwrap_or(false)
                })
            })
            .collect()
    }

    /// `<cloud>.specific_reservations` (empty when unset).
    pub fn specific_reservations(&self, cloud: CloudId) -> Vec<String> {
        self.raw
            .get(cloud.name())
            .and_then(|section| section.get("specific_reservations"))
            .and_then(|v| v.as_sequence())
            .map(|items| {
                items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Clouds whose adapter must look reservations up: `prioritize_reservations: true`
    /// or a non-empty `specific_reservations` (SkyPilot's GCP lookup returns
    /// nothing, without calling gcloud, otherwise).
    pub fn reservation_lookup_clouds(&self) -> Vec<CloudId> {
        self.reservation_clouds()
            .into_iter()
            .filter(|&c| {
                !self.specific_reservations(c).is_empty()
                    || self
                        .raw
                        .get(c.name())
                        .and_then(|s| s.get("prioritize_reservations"))
                        .and_then(|v| v.as_bool())
                        .unwrap_or(false)
            })
            .collect()
    }

    /// `gcp.project_id`: the project SkyPilot launches into.
    pub fn gcp_project_id(&self) -> Option<String> {
        self.raw
            .get("gcp")
            .and_then(|g| g.get("project_id"))
            .and_then(|v| v.as_str())
            .map(str::to_string)
            .filter(|p| !p.trim().is_empty())
    }

    /// `ssh.allowed_node_pools`: the pools SSH may use (`None` = all).
    pub fn ssh_allowed_node_pools(&self) -> Option<Vec<String>> {
        let list = self
            .raw
            .get("ssh")?
            .get("allowed_node_pools")?
            .as_sequence()?;
        Some(
            list.iter()
                .filter_map(|v| match v {
                    serde_yaml_ng::Value::String(s) => Some(s.clone()),
                    serde_yaml_ng::Value::Number(n) => Some(n.to_string()),
                    _ => None,
                })
                .collect(),
        )
    }

    /// Kubernetes pricing (global `kubernetes.pricing`).
    pub fn kube_pricing(&self) -> KubePricing {
        KubePricing::from_config(&self.raw, None).unwrap_or_default()
    }
}

/// Parses a SkyPilot config document; `source_name` (its path) names it in errors.
pub fn parse_sky_config(text: &str, source_name: &str) -> Result<SkyConfig, ConfigError> {
    let err = |message: String| ConfigError::SkyConfig {
        source_name: source_name.to_string(),
        message,
    };
    let raw: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(text).map_err(|e| err(e.to_string()))?;
    let raw = if raw.is_null() {
        serde_yaml_ng::Value::Mapping(Default::default())
    } else {
        raw
    };
    if !raw.is_mapping() {
        return Err(err("expected a mapping at the top level".into()));
    }
    let mut cfg = SkyConfig {
        raw: raw.clone(),
        ..Default::default()
    };
    if let Some(list) = raw.get("allowed_clouds") {
        let items = list
            .as_sequence()
            .ok_or_else(|| err("allowed_clouds must be a list of cloud names".into()))?;
        let mut clouds = Vec::new();
        for item in items {
            let name = item
                .as_str()
                .ok_or_else(|| err("allowed_clouds must be a list of cloud names".into()))?;
            clouds.push(
                name.parse::<CloudId>()
                    .map_err(|unknown| ConfigError::UnknownCloud {
                        origin: format!("{source_name} allowed_clouds"),
                        unknown,
                    })?,
            );
        }
        cfg.allowed_clouds = Some(clouds);
    }
    if let Some(ctxs) = raw
        .get("kubernetes")
        .and_then(|k| k.get("allowed_contexts"))
    {
        cfg.kubernetes_allowed_contexts = Some(match ctxs {
            serde_yaml_ng::Value::String(s) => vec![s.clone()],
            serde_yaml_ng::Value::Sequence(items) => items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_string))
                .collect(),
            _ => {
                return Err(err(
                    "kubernetes.allowed_contexts must be a list of context names or \"all\"".into(),
                ));
            }
        });
    }
    Ok(cfg)
}

/// Parses `SKY_ENABLED_CLOUDS=aws,gcp,...` (order kept: it is the enumeration order).
pub fn parse_enabled_clouds(text: &str) -> Result<Vec<CloudId>, ConfigError> {
    let mut out = Vec::new();
    for name in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let id = name
            .parse::<CloudId>()
            .map_err(|unknown| ConfigError::UnknownCloud {
                origin: "SKY_ENABLED_CLOUDS".into(),
                unknown,
            })?;
        if !out.contains(&id) {
            out.push(id);
        }
    }
    Ok(out)
}
