//! The `slurm:` section of `~/.sky/config.yaml` as SkyPilot 0.14.1 reads it
//! on the optimizer path: `allowed_clusters`
//! (`Slurm.existing_allowed_clusters`), `pricing` per cloud, cluster and
//! partition (`sky/catalog/slurm_catalog.py::_get_pricing`), `cpu_partition`
//! (`lookup_cpu_partition`) and `gpu_partition_map` (`lookup_gpu_partition_map`),
//! each resolved as `skypilot_config.get_effective_region_config` does with
//! `cluster_configs` as the per-region key.

use serde_yaml_ng::Value;

use crate::catalog::kubernetes::{KubePricing, KubePricingLevel, PricingConfigError};

/// The parts of the `slurm:` config section the optimizer reads.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SlurmSettings {
    /// `slurm.allowed_clusters`: `None` = every cluster (as `all`).
    pub allowed_clusters: Option<Vec<String>>,
    /// The whole `slurm:` mapping (null when absent).
    section: Value,
}

/// A `slurm:` setting of the wrong shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {path} in config: {message}")]
pub struct SlurmConfigError {
    /// The config path, e.g. `slurm.cluster_configs.campus.gpu_partition_map`.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl From<PricingConfigError> for SlurmConfigError {
    fn from(e: PricingConfigError) -> Self {
        SlurmConfigError {
            path: e.path,
            message: e.message,
        }
    }
}

fn get<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.get(key).filter(|x| !x.is_null())
}

impl SlurmSettings {
    /// Reads the `slurm:` section of the whole config document. Every
    /// pricing level and partition map is checked here, so a malformed one is
    /// an error naming its path before anything is launched.
    pub fn from_config(config: &Value) -> Result<SlurmSettings, SlurmConfigError> {
        let section = get(config, "slurm").cloned().unwrap_or(Value::Null);
        let allowed_clusters = match get(&section, "allowed_clusters") {
            None => None,
            Some(Value::String(s)) if s == "all" => None,
            Some(Value::Sequence(items)) => Some(
                items
                    .iter()
                    .map(|i| match i {
                        Value::String(s) => Ok(s.clone()),
                        other => Err(SlurmConfigError {
                            path: "slurm.allowed_clusters".into(),
                            message: format!("expected cluster names, found {other:?}"),
                        }),
                    })
                    .collect::<Result<_, _>>()?,
            ),
            Some(other) => {
                return Err(SlurmConfigError {
                    path: "slurm.allowed_clusters".into(),
                    message: format!(
                        "expected \"all\" or a list of cluster names, found {other:?}"
                    ),
                });
            }
        };
        let settings = SlurmSettings {
            allowed_clusters,
            section,
        };
        settings.check()?;
        Ok(settings)
    }

    /// Validates every level that is later read lazily.
    fn check(&self) -> Result<(), SlurmConfigError> {
        level("slurm.pricing", get(&self.section, "pricing"))?;
        gpu_map(
            "slurm.gpu_partition_map",
            get(&self.section, "gpu_partition_map"),
        )?;
        let Some(Value::Mapping(clusters)) = get(&self.section, "cluster_configs") else {
            return Ok(());
        };
        for (name, cfg) in clusters {
            let name = name.as_str().unwrap_or_default();
            let at = |k: &str| format!("slurm.cluster_configs.{name}.{k}");
            level(&at("pricing"), get(cfg, "pricing"))?;
            gpu_map(&at("gpu_partition_map"), get(cfg, "gpu_partition_map"))?;
            if let Some(Value::Mapping(parts)) = get(cfg, "partition_configs") {
                for (p, pcfg) in parts {
                    let p = p.as_str().unwrap_or_default();
                    level(
                        &at(&format!("partition_configs.{p}.pricing")),
                        get(pcfg, "pricing"),
                    )?;
                }
            }
        }
        Ok(())
    }

    fn cluster(&self, cluster: &str) -> Option<&Value> {
        get(&self.section, "cluster_configs").and_then(|c| get(c, cluster))
    }

    /// `_get_pricing(cluster, partition)`: `slurm.pricing`, then the
    /// cluster's, then the partition's, each merged over the previous
    /// (scalars replaced, accelerators key by key).
    pub fn pricing(&self, cluster: Option<&str>, partition: Option<&str>) -> KubePricing {
        let mut pricing = KubePricing::default();
        let mut levels = vec![get(&self.section, "pricing")];
        if let Some(c) = cluster {
            let cfg = self.cluster(c);
            levels.push(cfg.and_then(|c| get(c, "pricing")));
            if let Some(p) = partition {
                levels.push(
                    cfg.and_then(|c| get(c, "partition_configs"))
                        .and_then(|pc| get(pc, p))
                        .and_then(|pc| get(pc, "pricing")),
                );
            }
        }
        for value in levels.into_iter().flatten() {
            // Validated in `from_config`.
            if let Ok(Some(l)) = level("", Some(value)) {
                pricing.merge(&l);
            }
        }
        pricing
    }

    /// `lookup_cpu_partition(cluster)`: the cluster's `cpu_partition`, else
    /// the cloud-level one.
    pub fn cpu_partition(&self, cluster: &str) -> Option<String> {
        self.cluster(cluster)
            .and_then(|c| get(c, "cpu_partition"))
            .or_else(|| get(&self.section, "cpu_partition"))
            .and_then(scalar_text)
    }

    /// `lookup_gpu_partition_map(cluster, accelerator)`: the partitions the
    /// map (cloud level, overridden key by key by the cluster's) gives the
    /// accelerator, matched case-insensitively; `None` when it is not mapped.
    pub fn gpu_partitions(&self, cluster: &str, accelerator: &str) -> Option<Vec<String>> {
        let global = gpu_map("", get(&self.section, "gpu_partition_map")).ok()?;
        let local = gpu_map(
            "",
            self.cluster(cluster)
                .and_then(|c| get(c, "gpu_partition_map")),
        )
        .ok()?;
        // `{**global, **cluster}`: the cluster's keys replace the global ones
        // in place; new keys follow.
        let mut merged: Vec<(String, Vec<String>)> = global.unwrap_or_default();
        for (k, v) in local.unwrap_or_default() {
            match merged.iter_mut().find(|(g, _)| *g == k) {
                Some(slot) => slot.1 = v,
                None => merged.push((k, v)),
            }
        }
        let want = accelerator.to_lowercase();
        merged
            .into_iter()
            .find(|(k, _)| k.to_lowercase() == want)
            .map(|(_, v)| v)
    }
}

fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn level(path: &str, value: Option<&Value>) -> Result<Option<KubePricingLevel>, SlurmConfigError> {
    let Some(value) = value else {
        return Ok(None);
    };
    serde_yaml_ng::from_value(value.clone())
        .map(Some)
        .map_err(|e| SlurmConfigError {
            path: path.to_string(),
            message: e.to_string(),
        })
}

type GpuMap = Vec<(String, Vec<String>)>;

/// A `gpu_partition_map`: accelerator → partition or list of partitions.
fn gpu_map(path: &str, value: Option<&Value>) -> Result<Option<GpuMap>, SlurmConfigError> {
    let Some(value) = value else {
        return Ok(None);
    };
    let err = |message: String| SlurmConfigError {
        path: path.to_string(),
        message,
    };
    let Value::Mapping(m) = value else {
        return Err(err(format!("expected a mapping, found {value:?}")));
    };
    let mut out = Vec::new();
    for (k, v) in m {
        let key = scalar_text(k).ok_or_else(|| err(format!("invalid key {k:?}")))?;
        let parts = match v {
            Value::Sequence(items) => items
                .iter()
                .map(|i| scalar_text(i).ok_or_else(|| err(format!("invalid partition {i:?}"))))
                .collect::<Result<Vec<_>, _>>()?,
            other => vec![
                scalar_text(other).ok_or_else(|| err(format!("invalid partition {other:?}")))?,
            ],
        };
        out.push((key, parts));
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(yaml: &str) -> Result<SlurmSettings, SlurmConfigError> {
        SlurmSettings::from_config(&serde_yaml_ng::from_str(yaml).expect("yaml"))
    }

    #[test]
    fn pricing_levels_merge() {
        let s = settings(
            "slurm:\n  pricing: {cpu: 0.02, memory: 0.004, accelerators: {H100: 2.0}}\n  cluster_configs:\n    campus:\n      pricing: {cpu: 0.01, accelerators: {A100: 1.0}}\n      partition_configs:\n        a100:\n          pricing: {accelerators: {A100: 1.5}}\n",
        )
        .expect("settings");
        // (cluster, partition, cpu price, memory price, accelerator prices)
        type Case = (Option<&'static str>, Option<&'static str>, f64, f64, usize);
        let cases: [Case; 4] = [
            (None, None, 0.02, 0.004, 1),
            (Some("campus"), None, 0.01, 0.004, 2),
            (Some("campus"), Some("a100"), 0.01, 0.004, 2),
            (Some("other"), Some("a100"), 0.02, 0.004, 1),
        ];
        for (c, p, cpu, mem, accs) in cases {
            let got = s.pricing(c, p);
            assert_eq!(
                (got.cpu, got.memory, got.accelerators.len()),
                (cpu, mem, accs),
                "{c:?} {p:?}"
            );
        }
        assert_eq!(
            s.pricing(Some("campus"), Some("a100"))
                .accelerators
                .get("A100"),
            Some(&1.5)
        );
        assert_eq!(
            settings("slurm: {pricing: {cpu: cheap}}").unwrap_err().path,
            "slurm.pricing"
        );
        assert_eq!(
            settings("slurm: {cluster_configs: {c: {partition_configs: {p: {pricing: [1]}}}}}")
                .unwrap_err()
                .path,
            "slurm.cluster_configs.c.partition_configs.p.pricing"
        );
    }

    #[test]
    fn partitions_and_allowed_clusters() {
        let s = settings(
            "slurm:\n  allowed_clusters: [b, a]\n  cpu_partition: cpu\n  gpu_partition_map: {H100: [gpu1, gpu2], a100: big}\n  cluster_configs:\n    a:\n      cpu_partition: batch\n      gpu_partition_map: {a100: a100-only}\n",
        )
        .expect("settings");
        assert_eq!(s.allowed_clusters, Some(vec!["b".into(), "a".into()]));
        assert_eq!(s.cpu_partition("a").as_deref(), Some("batch"));
        assert_eq!(s.cpu_partition("b").as_deref(), Some("cpu"));
        assert_eq!(
            s.gpu_partitions("b", "h100"),
            Some(vec!["gpu1".into(), "gpu2".into()])
        );
        assert_eq!(
            s.gpu_partitions("a", "A100"),
            Some(vec!["a100-only".into()])
        );
        assert_eq!(s.gpu_partitions("b", "A100"), Some(vec!["big".into()]));
        assert_eq!(s.gpu_partitions("b", "T4"), None);
        assert_eq!(
            settings("slurm: {allowed_clusters: all}")
                .expect("all")
                .allowed_clusters,
            None
        );
        assert!(settings("slurm: {allowed_clusters: 3}").is_err());
        assert!(settings("slurm: {gpu_partition_map: [a]}").is_err());
        assert_eq!(settings("").expect("empty"), SlurmSettings::default());
    }
}
