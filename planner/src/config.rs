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
}

/// A cloud name that is not known or not supported, and where it was
/// written: not an error (the name is skipped), but worth one warning line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoredCloud {
    /// Where the name came from (`SKY_ENABLED_CLOUDS`, `<config> allowed_clouds`).
    pub origin: String,
    /// The name and its close matches.
    pub unknown: UnknownCloud,
}

impl std::fmt::Display for IgnoredCloud {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} Ignoring it.", self.origin, self.unknown)
    }
}

/// The parts of `~/.sky/config.yaml` the optimizer uses.
#[derive(Debug, Clone, Default)]
pub struct SkyConfig {
    /// `allowed_clouds` (the names that are known clouds, in order).
    pub allowed_clouds: Option<Vec<CloudId>>,
    /// Names in `allowed_clouds` that are not clouds `sky` knows. SkyPilot's
    /// config schema rejects them (the whole config is invalid); `sky` skips
    /// each with a warning so one typo does not stop every launch.
    pub ignored_clouds: Vec<IgnoredCloud>,
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

    /// `vast.datacenter_only` (default `false`): Vast offers only
    /// datacenter-hosted machines (`Vast._get_feasible_launchable_resources`
    /// reads it with `skypilot_config.get_nested`; `parse_sky_config` has
    /// checked that it is a boolean).
    pub fn vast_datacenter_only(&self) -> bool {
        self.raw
            .get("vast")
            .and_then(|v| v.get("datacenter_only"))
            .and_then(|v| v.as_bool())
            .unwrap_or(false)
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
            match name.parse::<CloudId>() {
                Ok(id) if !clouds.contains(&id) => clouds.push(id),
                Ok(_) => {}
                Err(unknown) => cfg.ignored_clouds.push(IgnoredCloud {
                    origin: format!("{source_name} allowed_clouds"),
                    unknown,
                }),
            }
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
    // SkyPilot's config schema types `vast.datacenter_only` as a boolean and
    // refuses the whole file otherwise.
    if let Some(v) = raw.get("vast").and_then(|v| v.get("datacenter_only"))
        && !v.is_bool()
    {
        return Err(err("vast.datacenter_only must be true or false".into()));
    }
    Ok(cfg)
}

/// Parses `SKY_ENABLED_CLOUDS=aws,gcp,...` (order kept: it is the enumeration
/// order). Unknown names are returned apart, to be warned about and skipped.
pub fn parse_enabled_clouds(text: &str) -> (Vec<CloudId>, Vec<IgnoredCloud>) {
    let mut out = Vec::new();
    let mut ignored = Vec::new();
    for name in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match name.parse::<CloudId>() {
            Ok(id) if !out.contains(&id) => out.push(id),
            Ok(_) => {}
            Err(unknown) => ignored.push(IgnoredCloud {
                origin: "SKY_ENABLED_CLOUDS".into(),
                unknown,
            }),
        }
    }
    (out, ignored)
}

#[cfg(test)]
mod vast_tests {
    use super::*;

    #[test]
    fn vast_datacenter_only_is_a_boolean_defaulting_to_false() {
        let parse = |text: &str| parse_sky_config(text, "cfg.yaml");
        assert!(!parse("").unwrap().vast_datacenter_only());
        assert!(!parse("vast: {}\n").unwrap().vast_datacenter_only());
        assert!(
            parse("vast:\n  datacenter_only: true\n")
                .unwrap()
                .vast_datacenter_only()
        );
        assert!(
            !parse("vast:\n  datacenter_only: false\n")
                .unwrap()
                .vast_datacenter_only()
        );
        let err = parse("vast:\n  datacenter_only: \"yes\"\n").unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("cfg.yaml") && text.contains("vast.datacenter_only"),
            "{text}"
        );
    }
}
