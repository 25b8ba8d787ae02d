//! A task's `service:` (or top-level `pool:`) section, validated as
//! SkyPilot 0.14.1 validates it while loading a task — even under
//! `sky launch`, which then ignores the section
//! (`sky/serve/service_spec.py::SkyServiceSpec.from_yaml_config` and
//! `__init__`, called from `sky/task.py::Task.from_yaml_config` after the
//! resources).
//!
//! The schema (`schemas.get_service_schema`) is checked first, by
//! [`crate::schema::json_schema`]; then the rules between fields, in
//! SkyPilot's order, each with its `ValueError` text.

use serde_yaml_ng::{Mapping, Value};

use crate::pytext::py_str_repr;
use crate::resources::RequestError;
use crate::schema::json_schema::{self, SERVICE};
use crate::schema::value::py_value_repr;

/// `sky/serve/load_balancing_policies.py::LB_POLICIES`, in its order.
pub const LB_POLICIES: &[&str] = &["round_robin", "least_load", "instance_aware_least_load"];

/// The policy that takes a per-accelerator `target_qps_per_replica`.
const INSTANCE_AWARE: &str = "instance_aware_least_load";

/// What a valid `service:`/`pool:` section says, as far as `sky launch`
/// cares (it provisions no service; the section only has to be valid).
#[derive(Debug, Clone, PartialEq)]
pub struct ServiceSpec {
    /// `readiness_probe` path (default `/`).
    pub readiness_path: String,
    /// Minimum replicas (or pool workers).
    pub min_replicas: u64,
    /// Maximum replicas, when autoscaling.
    pub max_replicas: Option<u64>,
    /// A cluster pool rather than a service.
    pub pool: bool,
}

/// The value of a key, `None` when absent or null (Python's `.get()` on a
/// loaded YAML mapping: SkyPilot tests `is not None`).
fn get<'a>(m: &'a Mapping, key: &str) -> Option<&'a Value> {
    m.get(key).filter(|v| !v.is_null())
}

fn as_f64(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

/// Python truthiness of a loaded value (`if pool_config:`).
fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Mapping(m)) => !m.is_empty(),
        Some(Value::Sequence(s)) => !s.is_empty(),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(Value::Tagged(_)) => true,
    }
}

/// `SkyServiceSpec.from_yaml_config(config)` for a task's `service:`
/// section (its `$VAR`s already filled in).
pub fn from_yaml_config(config: &Value) -> Result<ServiceSpec, RequestError> {
    json_schema::validate(config, &SERVICE, "Invalid service YAML: ", true)?;
    let empty = Mapping::new();
    let config = match config {
        Value::Mapping(m) => m,
        _ => &empty,
    };
    if config.contains_key("replicas") && config.contains_key("replica_policy") {
        return Err(RequestError::value(
            "Cannot specify both `replicas` and `replica_policy` in the service YAML. Please use one of them.",
        ));
    }

    let (readiness_path, post_data, headers) = match get(config, "readiness_probe") {
        Some(Value::Mapping(probe)) => (
            get(probe, "path")
                .and_then(Value::as_str)
                .unwrap_or("/")
                .to_string(),
            get(probe, "post_data"),
            get(probe, "headers"),
        ),
        Some(Value::String(path)) => (path.clone(), None, None),
        _ => ("/".to_string(), None, None),
    };
    if let Some(Value::String(text)) = post_data
        && serde_json::from_str::<serde_json::Value>(text).is_err()
    {
        return Err(RequestError::value(
            "Invalid JSON string for `post_data` in the `readiness_probe` section of your service YAML.",
        ));
    }
    let ports = get(config, "ports");
    if let Some(p) = ports
        && !(1.0..=65535.0).contains(&as_f64(p))
    {
        return Err(RequestError::value("Port must be between 1 and 65535."));
    }

    let pool_config = get(config, "pool");
    let policy = get(config, "replica_policy").and_then(Value::as_mapping);
    if policy.is_some() && truthy(pool_config) {
        return Err(RequestError::value(
            "Cannot specify `replica_policy` for cluster pool. Only `workers: <num>` or `min_workers: <num> max_workers: <num>` is supported for pool now.",
        ));
    }
    let replicas = get(config, "replicas");
    let mut workers = get(config, "workers");
    if replicas.is_some() && workers.is_some() {
        return Err(RequestError::value(
            "Cannot specify both `replicas` and `workers`. Please use one of them.",
        ));
    }
    if replicas.is_some() && truthy(pool_config) {
        return Err(RequestError::value(
            "Cannot specify `replicas` for pool. Please use `workers` instead.",
        ));
    }
    let simplified = replicas.or(workers);

    let (mut queue_length_threshold, mut pool_min, mut pool_max) = (None, None, None);
    let (mut pool_upscale, mut pool_downscale) = (None, None);
    if let Some(Value::Mapping(pool)) = pool_config {
        queue_length_threshold = get(pool, "queue_length_threshold");
        pool_min = get(pool, "min_workers");
        pool_max = get(pool, "max_workers");
        pool_upscale = get(pool, "upscale_delay_seconds");
        pool_downscale = get(pool, "downscale_delay_seconds");
        if pool.contains_key("workers") {
            workers = get(pool, "workers");
        }
        if pool_min.is_none() && pool_max.is_none() && workers.is_none() {
            return Err(RequestError::value(
                "One of workers, or both min_workers and max_workers must be set for pool autoscaling.",
            ));
        }
        if queue_length_threshold.is_some() && pool_max.is_none() {
            return Err(max_workers_needed("queue_length_threshold"));
        }
        if pool_min.is_some() && pool_max.is_none() {
            return Err(max_workers_needed("min_workers"));
        }
        if let (Some(lo), Some(hi)) = (pool_min, pool_max)
            && as_f64(lo) > as_f64(hi)
        {
            return Err(RequestError::value(format!(
                "min_workers ({}) must be <= max_workers ({}) for pool autoscaling.",
                py_value_repr(lo),
                py_value_repr(hi)
            )));
        }
    }

    // The fields `__init__` checks, as `SkyServiceSpec(**service_config)`
    // receives them.
    let one = Value::from(1);
    let mut fields = Fields::default();
    match policy {
        Some(policy) if simplified.is_none() => {
            fields.min_replicas = get(policy, "min_replicas").unwrap_or(&one).clone();
            fields.max_replicas = get(policy, "max_replicas").cloned();
            fields.target_qps = get(policy, "target_qps_per_replica").cloned();
            for (name, key) in [
                ("num_overprovision", "num_overprovision"),
                (
                    "base_ondemand_fallback_replicas",
                    "base_ondemand_fallback_replicas",
                ),
                ("dynamic_ondemand_fallback", "dynamic_ondemand_fallback"),
                ("spot_placer", "spot_placer"),
                ("upscale_delay_seconds", "upscale_delay_seconds"),
                ("downscale_delay_seconds", "downscale_delay_seconds"),
            ] {
                fields.set(name, get(policy, key).is_some());
            }
        }
        _ => {
            let mut min = simplified.or(workers).unwrap_or(&one).clone();
            if pool_config.is_some()
                && pool_max.is_some()
                && let Some(lo) = pool_min
            {
                min = lo.clone();
            }
            if queue_length_threshold.is_none() && pool_config.is_some() && pool_max.is_some() {
                // SkyPilot fills in its default threshold (logged only).
                queue_length_threshold = Some(&one);
            }
            fields.min_replicas = min;
            fields.max_replicas = pool_max.cloned();
            fields.set("upscale_delay_seconds", pool_upscale.is_some());
            fields.set("downscale_delay_seconds", pool_downscale.is_some());
        }
    }
    let lb_policy = get(config, "load_balancing_policy").and_then(Value::as_str);
    if matches!(fields.target_qps, Some(Value::Mapping(_))) && lb_policy != Some(INSTANCE_AWARE) {
        return Err(RequestError::value(
            "When using dict type target_qps_per_replica, load_balancing_policy must be \"instance_aware_least_load\".",
        ));
    }
    if lb_policy == Some(INSTANCE_AWARE) && !matches!(fields.target_qps, Some(Value::Mapping(_))) {
        return Err(RequestError::value(
            "When using \"instance_aware_least_load\" policy, target_qps_per_replica must be a dict mapping GPU types to QPS values.",
        ));
    }
    fields.set("target_qps_per_replica", fields.target_qps.is_some());
    fields.set("load_balancing_policy", lb_policy.is_some());
    fields.set("ports", ports.is_some());
    fields.set("post_data", post_data.is_some());
    fields.set("tls_credential", get(config, "tls").is_some());
    fields.set("readiness_headers", headers.is_some());

    // `SkyServiceSpec.__init__`.
    let pool = truthy(pool_config);
    if pool {
        let mut unsupported = vec![
            "num_overprovision",
            "target_qps_per_replica",
            "base_ondemand_fallback_replicas",
            "dynamic_ondemand_fallback",
            "spot_placer",
            "load_balancing_policy",
            "ports",
            "post_data",
            "tls_credential",
            "readiness_headers",
        ];
        if fields.max_replicas.is_none() {
            unsupported.extend(["upscale_delay_seconds", "downscale_delay_seconds"]);
        }
        if let Some(field) = unsupported.into_iter().find(|f| fields.given.contains(f)) {
            return Err(RequestError::value(format!(
                "{field} is not supported for pool."
            )));
        }
        if let Some(q) = queue_length_threshold
            && as_f64(q) <= 0.0
        {
            return Err(RequestError::value(format!(
                "queue_length_threshold must be > 0. Got: {}",
                py_value_repr(q)
            )));
        }
    }
    let min = &fields.min_replicas;
    if let Some(max) = &fields.max_replicas
        && as_f64(max) < as_f64(min)
    {
        return Err(RequestError::value(format!(
            "max_replicas must be greater than or equal to min_replicas. Found: min_replicas={}, max_replicas={}",
            py_value_repr(min),
            py_value_repr(max)
        )));
    }
    if fields.target_qps.is_some() {
        if fields.max_replicas.is_none() {
            return Err(RequestError::value(
                "max_replicas must be set where target_qps_per_replica is set.",
            ));
        }
    } else if let Some(max) = &fields.max_replicas
        && !pool
        && as_f64(max) != as_f64(min)
    {
        return Err(RequestError::value(
            "Detected different min_replicas and max_replicas while target_qps_per_replica is not set. To enable autoscaling, please set target_qps_per_replica.",
        ));
    }
    if !readiness_path.starts_with('/') {
        return Err(RequestError::value(format!(
            "readiness_path must start with a slash (/). Got: {readiness_path}"
        )));
    }
    if let Some(lb) = lb_policy
        && !LB_POLICIES.contains(&lb)
    {
        // The schema's enum ignores case; this check does not.
        let available: Vec<String> = LB_POLICIES.iter().map(|p| py_str_repr(p)).collect();
        return Err(RequestError::value(format!(
            "Unknown load balancing policy: {lb}. Available policies: [{}]",
            available.join(", ")
        )));
    }
    Ok(ServiceSpec {
        readiness_path,
        min_replicas: fields.min_replicas.as_u64().unwrap_or(0),
        max_replicas: fields.max_replicas.as_ref().and_then(Value::as_u64),
        pool,
    })
}

/// A task's top-level `pool:` section: SkyPilot wraps it as
/// `{'pool': <section>}` (a non-mapping as `{'pool': {}}`) and reads it as
/// a service section.
pub fn pool_from_yaml_config(pool: &Value) -> Result<ServiceSpec, RequestError> {
    let section = match pool {
        Value::Mapping(_) => pool.clone(),
        _ => Value::Mapping(Mapping::new()),
    };
    let mut wrapped = Mapping::new();
    wrapped.insert(Value::from("pool"), section);
    from_yaml_config(&Value::Mapping(wrapped))
}

fn max_workers_needed(what: &str) -> RequestError {
    RequestError::value(format!(
        "max_workers must be set when {what} is specified for pool autoscaling."
    ))
}

/// The `SkyServiceSpec(...)` arguments `__init__` checks: the replica
/// counts, and which optional fields were given (not `None`).
#[derive(Default)]
struct Fields {
    min_replicas: Value,
    max_replicas: Option<Value>,
    target_qps: Option<Value>,
    given: Vec<&'static str>,
}

impl Fields {
    fn set(&mut self, name: &'static str, given: bool) {
        if given && !self.given.contains(&name) {
            self.given.push(name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn service(yaml: &str) -> Result<ServiceSpec, String> {
        let v: Value = serde_yaml_ng::from_str(yaml).expect("test yaml");
        from_yaml_config(&v).map_err(|e| format!("{}: {}", e.kind.python_name(), e.message))
    }

    /// Diagnosis section 14, probes 36–45, and the corpus's valid sections.
    #[test]
    fn rules_between_fields_are_skypilots() {
        for (yaml, want) in [
            (
                "replicas: 2\nreplica_policy:\n  min_replicas: 1",
                "ValueError: Cannot specify both `replicas` and `replica_policy` in the service YAML. Please use one of them.",
            ),
            (
                "replica_policy:\n  min_replicas: 3\n  max_replicas: 2\n  target_qps_per_replica: 1",
                "ValueError: max_replicas must be greater than or equal to min_replicas. Found: min_replicas=3, max_replicas=2",
            ),
            (
                "replica_policy:\n  min_replicas: 1\n  target_qps_per_replica: 1",
                "ValueError: max_replicas must be set where target_qps_per_replica is set.",
            ),
            (
                "replica_policy:\n  min_replicas: 0\n  max_replicas: 2",
                "ValueError: Detected different min_replicas and max_replicas while target_qps_per_replica is not set. To enable autoscaling, please set target_qps_per_replica.",
            ),
            (
                "readiness_probe: health",
                "ValueError: readiness_path must start with a slash (/). Got: health",
            ),
            (
                "readiness_probe:\n  path: /\n  post_data: '{bad'",
                "ValueError: Invalid JSON string for `post_data` in the `readiness_probe` section of your service YAML.",
            ),
            (
                "ports: 70000",
                "ValueError: Port must be between 1 and 65535.",
            ),
            (
                "replica_policy:\n  min_replicas: 1\n  max_replicas: 2\n  target_qps_per_replica: {A100: 1}",
                "ValueError: When using dict type target_qps_per_replica, load_balancing_policy must be \"instance_aware_least_load\".",
            ),
            (
                "replica_policy:\n  min_replicas: 1\n  max_replicas: 2\n  target_qps_per_replica: 1\nload_balancing_policy: instance_aware_least_load",
                "ValueError: When using \"instance_aware_least_load\" policy, target_qps_per_replica must be a dict mapping GPU types to QPS values.",
            ),
            (
                "load_balancing_policy: ROUND_ROBIN",
                "ValueError: Unknown load balancing policy: ROUND_ROBIN. Available policies: ['round_robin', 'least_load', 'instance_aware_least_load']",
            ),
            (
                "pool: {workers: 1}\nports: 8080",
                "ValueError: ports is not supported for pool.",
            ),
            (
                "pool: {min_workers: 1}",
                "ValueError: max_workers must be set when min_workers is specified for pool autoscaling.",
            ),
            (
                "pool: {min_workers: 3, max_workers: 2}",
                "ValueError: min_workers (3) must be <= max_workers (2) for pool autoscaling.",
            ),
            (
                "replica: 2",
                "sky.exceptions.InvalidSkyPilotConfigError: Invalid service YAML: Instead of 'replica', did you mean 'replicas'?",
            ),
        ] {
            assert_eq!(service(yaml), Err(want.to_string()), "{yaml}");
        }
        for ok in [
            "readiness_probe: /health\nreplicas: 2",
            "readiness_probe:\n  path: /v1/chat/completions\n  post_data: {model: $MODEL_NAME}\n  initial_delay_seconds: 1800\nreplica_policy:\n  min_replicas: 1\n  max_replicas: 3\n  target_qps_per_replica: 0.5\n  upscale_delay_seconds: 300\n  downscale_delay_seconds: 1200\n  base_ondemand_fallback_replicas: 1",
            "readiness_probe: /\nreplicas: 2\nload_balancing_policy: round_robin\ntls: {keyfile: k.pem, certfile: c.pem}",
            "replica_policy:\n  min_replicas: 0\n  max_replicas: 2\n  target_qps_per_replica: {A100: 1}\nload_balancing_policy: instance_aware_least_load",
        ] {
            assert!(service(ok).is_ok(), "{ok}: {:?}", service(ok));
        }
        let pool: Value = serde_yaml_ng::from_str("{workers: 2}").unwrap();
        let spec = pool_from_yaml_config(&pool).unwrap();
        assert!(spec.pool);
        assert_eq!(spec.min_replicas, 2);
        let err = pool_from_yaml_config(&Value::Mapping(Mapping::new())).unwrap_err();
        assert_eq!(
            err.message,
            "One of workers, or both min_workers and max_workers must be set for pool autoscaling."
        );
    }
}
