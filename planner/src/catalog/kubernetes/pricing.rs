//! Prices of virtual instance types from the `kubernetes.pricing` config.
//!
//! SkyPilot 0.14.1's `sky/catalog/kubernetes_catalog.py::get_hourly_cost`:
//! the levels are resolved as in `sky/catalog/common.py::resolve_pricing_config`
//! (merged by `merge_pricing_dicts`) and applied as in
//! `get_hourly_cost_from_pricing`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::instance_type::KubeInstanceType;

/// Prices for virtual instance types (`kubernetes.pricing` in `~/.sky/config.yaml`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct KubePricing {
    /// $ per CPU-hour (CPU-only types).
    pub cpu: f64,
    /// $ per GB-hour of memory (CPU-only types).
    pub memory: f64,
    /// $ per accelerator-hour by accelerator name (matched case-insensitively).
    pub accelerators: BTreeMap<String, f64>,
}

/// One level of pricing config (global or per context); absent keys do not override.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub struct KubePricingLevel {
    /// `cpu` rate, if set at this level.
    #[serde(default)]
    pub cpu: Option<f64>,
    /// `memory` rate, if set at this level.
    #[serde(default)]
    pub memory: Option<f64>,
    /// `accelerators` rates set at this level (merged key by key).
    #[serde(default)]
    pub accelerators: Option<BTreeMap<String, f64>>,
}

/// A `kubernetes.pricing` section that is not a mapping of numbers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {path} in config: {message}")]
pub struct PricingConfigError {
    /// The config path, e.g. `kubernetes.context_configs.kind.pricing`.
    pub path: String,
    /// The deserialisation error.
    pub message: String,
}

impl KubePricing {
    /// Applies one level over this one (SkyPilot's `merge_pricing_dicts`:
    /// scalars replaced, `accelerators` merged key by key).
    pub fn merge(&mut self, level: &KubePricingLevel) {
        if let Some(cpu) = level.cpu {
            self.cpu = cpu;
        }
        if let Some(memory) = level.memory {
            self.memory = memory;
        }
        if let Some(accs) = &level.accelerators {
            self.accelerators
                .extend(accs.iter().map(|(k, v)| (k.clone(), *v)));
        }
    }

    /// Resolves the pricing for `context` from the whole config document:
    /// `kubernetes.pricing` deep-merged with `kubernetes.context_configs.<context>.pricing`.
    pub fn from_config(
        config: &serde_yaml_ng::Value,
        context: Option<&str>,
    ) -> Result<KubePricing, PricingConfigError> {
        let mut pricing = KubePricing::default();
        let k8s = config.get("kubernetes");
        let mut levels = vec![(
            "kubernetes.pricing".to_string(),
            k8s.and_then(|k| k.get("pricing")),
        )];
        if let Some(ctx) = context {
            levels.push((
                format!("kubernetes.context_configs.{ctx}.pricing"),
                k8s.and_then(|k| k.get("context_configs"))
                    .and_then(|c| c.get(ctx))
                    .and_then(|c| c.get("pricing")),
            ));
        }
        for (path, value) in levels {
            let Some(value) = value.filter(|v| !v.is_null()) else {
                continue;
            };
            let level: KubePricingLevel =
                serde_yaml_ng::from_value(value.clone()).map_err(|e| PricingConfigError {
                    path,
                    message: e.to_string(),
                })?;
            pricing.merge(&level);
        }
        Ok(pricing)
    }
}

/// Hourly price of a virtual instance type: accelerator types cost
/// count × the accelerator's rate (case-insensitive; unlisted → 0), CPU-only
/// types cost cpus × `cpu` + memory × `memory`.
pub fn hourly_cost(instance: &KubeInstanceType, pricing: &KubePricing) -> f64 {
    if let Some((name, count)) = instance.gpu() {
        let rate = pricing
            .accelerators
            .iter()
            .find(|(k, _)| k.to_lowercase() == name.to_lowercase())
            .map_or(0.0, |(_, r)| *r);
        return f64::from(count) * rate;
    }
    instance.cpus * pricing.cpu + instance.memory_gib * pricing.memory
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pricing() {
        let yaml = r#"
kubernetes:
  pricing:
    cpu: 0.05
    memory: 0.01
    accelerators: {H100: 2.5, a100: 1.0}
  context_configs:
    prod:
      pricing:
        cpu: 0.1
        accelerators: {h100: 3.0}
"#;
        let config: serde_yaml_ng::Value = serde_yaml_ng::from_str(yaml).expect("yaml");
        let global = KubePricing::from_config(&config, None).expect("global");
        let prod = KubePricing::from_config(&config, Some("prod")).expect("prod");
        let none = KubePricing::from_config(&serde_yaml_ng::Value::Null, Some("x")).expect("none");
        let it = |s: &str| s.parse::<KubeInstanceType>().expect(s);
        let cases: [(&str, &KubePricing, f64); 7] = [
            ("2CPU--2GB", &global, 0.12),
            ("2CPU--2GB", &prod, 0.22),
            ("4CPU--16GB--H100:2", &global, 5.0),
            ("4CPU--16GB--A100:1", &prod, 1.0),
            ("4CPU--16GB--T4:1", &global, 0.0),
            ("2CPU--2GB", &none, 0.0),
            ("4CPU--16GB--H100:1", &none, 0.0),
        ];
        for (name, pricing, want) in cases {
            assert!(
                (hourly_cost(&it(name), pricing) - want).abs() < 1e-9,
                "{name}"
            );
        }
        // The context level overrides `h100`; `H100` from the global level stays listed too.
        assert_eq!(prod.accelerators.len(), 3);
        let bad: serde_yaml_ng::Value =
            serde_yaml_ng::from_str("kubernetes: {pricing: {cpu: cheap}}").expect("yaml");
        assert!(KubePricing::from_config(&bad, None).is_err());
    }
}
