//! SkyPilot's config document (`~/.sky/config.yaml`), parsed from text: the
//! keys the planner reads (`allowed_clouds`, Kubernetes contexts and pricing,
//! reservations), and a request's layers merged in one call ([`merge`]).
//! Finding and reading the files is the `optimizer` crate's job.

use serde_yaml_ng::{Mapping, Value};

mod layers;

pub use layers::{CliConfig, ConfigFile, ConfigLayers, MergeError, MergedConfig, merge};

use crate::catalog::kubernetes::KubePricing;
use crate::check::Capability;
use crate::cloud::{CloudId, StorageOnly, UnknownCloud};

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

/// `constants.SKYPILOT_DEFAULT_WORKSPACE`.
pub const DEFAULT_WORKSPACE: &str = "default";

/// The parts of `~/.sky/config.yaml` the optimizer uses.
#[derive(Debug, Clone, Default)]
pub struct SkyConfig {
    /// `allowed_clouds` (the names that are known clouds, in order).
    pub allowed_clouds: Option<Vec<CloudId>>,
    /// The storage-only providers `allowed_clouds` names (`cloudflare`,
    /// ...; meaningful only when `allowed_clouds` is set: without it every
    /// provider is allowed). Launches never use them; `sky check` lists them.
    pub allowed_storage_only: Vec<StorageOnly>,
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

    /// `skypilot_config.get_active_workspace`: `active_workspace`, else `default`.
    pub fn active_workspace(&self) -> String {
        self.raw
            .get("active_workspace")
            .and_then(|v| v.as_str())
            .unwrap_or(DEFAULT_WORKSPACE)
            .to_string()
    }

    /// The workspaces the config defines (`workspaces:` keys), `default` always among them.
    pub fn workspace_names(&self) -> Vec<String> {
        let mut names = vec![DEFAULT_WORKSPACE.to_string()];
        if let Some(m) = self.raw.get("workspaces").and_then(|w| w.as_mapping()) {
            for k in m.keys().filter_map(|k| k.as_str()) {
                if !names.iter().any(|n| n == k) {
                    names.push(k.to_string());
                }
            }
        }
        names
    }

    /// `override_skypilot_config`'s check: the active workspace must be
    /// `default` or defined under `workspaces:`.
    pub fn check_active_workspace(&self) -> Result<(), String> {
        let ws = self.active_workspace();
        if ws == DEFAULT_WORKSPACE || self.workspace_names().contains(&ws) {
            Ok(())
        } else {
            Err(format!(
                "Workspace {ws} does not exist. Use `sky check` to see if it is defined on the API server and try again."
            ))
        }
    }

    /// `workspaces.<workspace>.<cloud>.disabled` (`get_workspace_cloud`).
    pub fn workspace_disables(&self, workspace: &str, cloud: CloudId) -> bool {
        self.workspace_disables_name(workspace, cloud.name())
    }

    /// Whether `provider` may be checked in `workspace` (listed in
    /// `allowed_clouds`, when set, and not
    /// `workspaces.<workspace>.<provider>.disabled`).
    pub fn workspace_allows_storage_only(&self, workspace: &str, provider: StorageOnly) -> bool {
        let listed = self.allowed_clouds.is_none() || self.allowed_storage_only.contains(&provider);
        listed && !self.workspace_disables_name(workspace, provider.name())
    }

    fn workspace_disables_name(&self, workspace: &str, name: &str) -> bool {
        self.raw
            .get("workspaces")
            .and_then(|w| w.get(workspace))
            .and_then(|w| w.get(name))
            .and_then(|c| c.get("disabled"))
            .and_then(|d| d.as_bool())
            .unwrap_or(false)
    }

    /// The capabilities `sky check` checks for `cloud` in `workspace`, when
    /// the config restricts them (`check._get_workspace_cloud_capabilities`:
    /// `workspaces.<workspace>.<cloud>.capabilities`, else
    /// `<cloud>.capabilities`; an empty list restricts nothing). The error
    /// names the key and the values the schema accepts.
    pub fn cloud_capabilities(
        &self,
        workspace: &str,
        cloud: CloudId,
    ) -> Result<Option<Vec<Capability>>, String> {
        let in_workspace = self
            .raw
            .get("workspaces")
            .and_then(|w| w.get(workspace))
            .and_then(|w| w.get(cloud.name()))
            .and_then(|c| c.get("capabilities"))
            .map(|v| {
                (
                    format!("workspaces.{workspace}.{}.capabilities", cloud.name()),
                    v,
                )
            });
        let global = self
            .raw
            .get(cloud.name())
            .and_then(|c| c.get("capabilities"))
            .map(|v| (format!("{}.capabilities", cloud.name()), v));
        // `if not cloud_capabilities:` falls through on an empty list too.
        let not_empty = |(_, v): &(String, &Value)| {
            !v.is_null() && v.as_sequence().is_none_or(|s| !s.is_empty())
        };
        let Some((key, value)) = in_workspace
            .filter(not_empty)
            .or_else(|| global.filter(not_empty))
        else {
            return Ok(None);
        };
        let bad = || {
            format!(
                "Invalid config: {key} must be a list of 'compute' and 'storage', got {}",
                serde_yaml_ng::to_string(value)
                    .unwrap_or_default()
                    .trim_end()
            )
        };
        let items = value.as_sequence().ok_or_else(bad)?;
        let mut out = Vec::new();
        for item in items {
            let capability = item.as_str().and_then(Capability::parse).ok_or_else(bad)?;
            out.push(capability);
        }
        Ok(Some(out))
    }

    /// `check._get_workspace_allowed_clouds`: whether `cloud` may be enabled
    /// in `workspace` (in `allowed_clouds`, when set, and not disabled there).
    pub fn workspace_allows(&self, workspace: &str, cloud: CloudId) -> bool {
        self.allowed_clouds
            .as_ref()
            .is_none_or(|a| a.contains(&cloud))
            && !self.workspace_disables(workspace, cloud)
    }

    /// Kubernetes pricing (global `kubernetes.pricing`).
    pub fn kube_pricing(&self) -> KubePricing {
        KubePricing::from_config(&self.raw, None).unwrap_or_default()
    }
}

/// Parses one SkyPilot config document (a file's text) into a mapping;
/// `source_name` (its path) names it in errors. An empty document is an
/// empty mapping.
pub fn parse_config_document(text: &str, source_name: &str) -> Result<Mapping, ConfigError> {
    let err = |message: String| ConfigError::SkyConfig {
        source_name: source_name.to_string(),
        message,
    };
    let raw: Value = serde_yaml_ng::from_str(text).map_err(|e| err(e.to_string()))?;
    match raw {
        Value::Null => Ok(Mapping::new()),
        Value::Mapping(m) => {
            check_top_level_keys(&m, source_name)?;
            Ok(m)
        }
        _ => Err(err("expected a mapping at the top level".into())),
    }
}

/// The config schema's top-level sections (`sky/utils/schemas.py::get_config_schema`).
const CONFIG_SECTIONS: &[&str] = &[
    "active_workspace",
    "admin_policy",
    "allowed_clouds",
    "api_server",
    "aws",
    "azure",
    "daemons",
    "dashboard",
    "data",
    "db",
    "docker",
    "gcp",
    "jobs",
    "kubernetes",
    "logs",
    "metrics",
    "nebius",
    "nvidia_gpus",
    "oci",
    "plugins",
    "provision",
    "rbac",
    "serve",
    "slurm",
    "ssh",
    "vast",
    "workspace",
    "workspace_config",
    "workspaces",
];

/// The schema's `additionalProperties: false` at the top level, with its
/// did-you-mean.
fn check_top_level_keys(m: &Mapping, source_name: &str) -> Result<(), ConfigError> {
    check_sections(m).map_err(|message| ConfigError::SkyConfig {
        source_name: source_name.to_string(),
        message,
    })
}

/// Whether every top-level key of `m` is a config section; the error is the
/// schema's message (with its did-you-mean).
pub fn check_sections(m: &Mapping) -> Result<(), String> {
    for k in m.keys() {
        let key = k
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| format!("{k:?}"));
        if CONFIG_SECTIONS.contains(&key.as_str()) {
            continue;
        }
        let close = crate::pytext::close_matches(&key, CONFIG_SECTIONS.iter().copied(), 1, 0.6);
        let message = match close.first() {
            Some(c) => format!(
                "Instead of {}, did you mean {}?",
                crate::pytext::py_str_repr(&key),
                crate::pytext::py_str_repr(c)
            ),
            None => format!(
                "Additional properties are not allowed ({} was unexpected)",
                crate::pytext::py_str_repr(&key)
            ),
        };
        return Err(message);
    }
    Ok(())
}

/// `config_utils._recursive_update`: `over` merged into `base`, mappings
/// key by key, anything else replaced.
pub fn overlay(base: &mut Mapping, over: &Mapping) {
    for (k, v) in over {
        match (base.get_mut(k), v) {
            (Some(Value::Mapping(b)), Value::Mapping(o)) => overlay(b, o),
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}

/// `skypilot_config._parse_dotlist`: `a.b=value` pairs, each value read as
/// YAML (`true`, `[aws, gcp]`, `3600`), into one document.
pub fn parse_dotlist(items: &[String]) -> Result<Mapping, String> {
    let mut out = Mapping::new();
    for item in items {
        let invalid =
            || format!("Invalid config override: {item}. Please use the format: key=value");
        let (key, value) = item.split_once('=').ok_or_else(invalid)?;
        if key.is_empty() || value.is_empty() {
            return Err(invalid());
        }
        let value: Value = serde_yaml_ng::from_str(value).map_err(|e| e.to_string())?;
        let mut nested = value;
        for part in key.split('.').rev() {
            let mut m = Mapping::new();
            m.insert(Value::from(part), nested);
            nested = Value::Mapping(m);
        }
        if let Value::Mapping(m) = nested {
            overlay(&mut out, &m);
        }
    }
    Ok(out)
}

/// The parts of `cfg` a task may override (`keys`: paths, a one-element path
/// covering everything below it), explicit nulls kept so they can clear an
/// existing override (`Resources.copy` filters `--config` this way).
pub fn task_overrideable(cfg: &Mapping, keys: &[&[&str]]) -> Mapping {
    let mut out = Mapping::new();
    for path in keys {
        let mut cur = Some(&Value::Mapping(cfg.clone()));
        for part in *path {
            cur = cur.and_then(|v| v.get(*part));
        }
        if let Some(v) = cur {
            let mut nested = v.clone();
            for part in path.iter().rev() {
                let mut m = Mapping::new();
                m.insert(Value::from(*part), nested);
                nested = Value::Mapping(m);
            }
            if let Value::Mapping(m) = nested {
                overlay(&mut out, &m);
            }
        }
    }
    out
}

/// `Resources.copy(_cluster_config_overrides=...)`: the new overrides laid
/// over the task's, and a key set to null removed; `None` when nothing is left.
pub fn overlay_task_config(current: Option<&Mapping>, new: &Mapping) -> Option<Mapping> {
    fn drop_nulls(m: &mut Mapping) {
        m.retain(|_, v| !v.is_null());
        for (_, v) in m.iter_mut() {
            if let Value::Mapping(inner) = v {
                drop_nulls(inner);
            }
        }
        m.retain(|_, v| !matches!(v, Value::Mapping(inner) if inner.is_empty()));
    }
    let mut merged = current.cloned().unwrap_or_default();
    overlay(&mut merged, new);
    drop_nulls(&mut merged);
    (!merged.is_empty()).then_some(merged)
}

/// Parses a SkyPilot config document; `source_name` (its path) names it in errors.
pub fn parse_sky_config(text: &str, source_name: &str) -> Result<SkyConfig, ConfigError> {
    let raw = parse_config_document(text, source_name)?;
    SkyConfig::from_document(raw, source_name)
}

impl SkyConfig {
    /// The config of one merged document (user, project and `--config`
    /// layers already laid over each other); `source_name` names it in errors.
    pub fn from_document(raw: Mapping, source_name: &str) -> Result<SkyConfig, ConfigError> {
        build_sky_config(Value::Mapping(raw), source_name)
    }
}

fn build_sky_config(raw: Value, source_name: &str) -> Result<SkyConfig, ConfigError> {
    let err = |message: String| ConfigError::SkyConfig {
        source_name: source_name.to_string(),
        message,
    };
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
            // `check.get_cloud_tuple` tries the storage-only providers first.
            if let Some(provider) = StorageOnly::from_name(name) {
                if !cfg.allowed_storage_only.contains(&provider) {
                    cfg.allowed_storage_only.push(provider);
                }
                continue;
            }
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

#[cfg(test)]
mod storage_tests {
    use super::*;

    #[test]
    fn storage_only_providers_in_allowed_clouds_and_workspaces() {
        let parse = |text: &str| parse_sky_config(text, "cfg.yaml").unwrap();
        // No `allowed_clouds`: every provider is allowed.
        let open = parse("");
        assert!(open.workspace_allows_storage_only("default", StorageOnly::HuggingFace));
        let cfg = parse(
            "allowed_clouds: [aws, Cloudflare, vastdata]\n\
             workspaces:\n  team:\n    vastdata:\n      disabled: true\n",
        );
        assert_eq!(cfg.allowed_clouds, Some(vec![CloudId::Aws]));
        assert!(cfg.ignored_clouds.is_empty(), "{:?}", cfg.ignored_clouds);
        assert_eq!(
            cfg.allowed_storage_only,
            vec![StorageOnly::Cloudflare, StorageOnly::VastData]
        );
        assert!(cfg.workspace_allows_storage_only("default", StorageOnly::Cloudflare));
        assert!(cfg.workspace_allows_storage_only("default", StorageOnly::VastData));
        assert!(!cfg.workspace_allows_storage_only("team", StorageOnly::VastData));
        assert!(!cfg.workspace_allows_storage_only("default", StorageOnly::CoreWeave));
    }

    #[test]
    fn capabilities_come_from_the_workspace_then_the_cloud_section() {
        let cfg = parse_sky_config(
            "aws:\n  capabilities: [Compute]\n\
             gcp:\n  capabilities: []\n\
             workspaces:\n  team:\n    aws:\n      capabilities: [storage, compute]\n\
             \x20 bad:\n    gcp:\n      capabilities: [gpu]\n",
            "cfg.yaml",
        )
        .unwrap();
        use Capability::*;
        assert_eq!(
            cfg.cloud_capabilities("default", CloudId::Aws),
            Ok(Some(vec![Compute]))
        );
        assert_eq!(
            cfg.cloud_capabilities("team", CloudId::Aws),
            Ok(Some(vec![Storage, Compute]))
        );
        // An empty list restricts nothing, as `if not cloud_capabilities`.
        assert_eq!(cfg.cloud_capabilities("default", CloudId::Gcp), Ok(None));
        assert_eq!(cfg.cloud_capabilities("default", CloudId::Azure), Ok(None));
        let err = cfg.cloud_capabilities("bad", CloudId::Gcp).unwrap_err();
        assert!(
            err.contains("workspaces.bad.gcp.capabilities") && err.contains("gpu"),
            "{err}"
        );
    }
}
