//! CLI flags over a parsed DAG: `sky launch`'s resource flags applied to
//! every resource of every task (`Resources.copy(**overrides)`), `--env`,
//! `--secret` and `--workdir` to every task, as
//! `sky/client/cli/command.py::_make_task_or_dag_from_entrypoint_with_overrides`
//! does; what the CLI says meanwhile is a [`ClientNotice`].

use serde_yaml_ng::{Mapping, Value};

use super::notices::{ClientNotice, OverrideParams, ParamValue};
use super::resource_set::resource_set_from_mapping;
use super::types::{Dag, ResourceSet, TaskSpec, Workdir};
use crate::catalog::GpuMetadata;
use crate::cloud::CloudId;
use crate::resources::{
    self, DiskTier, ImageSpec, NetworkTier, Priority, RequestError, check_priority,
    normalize_local_disk, parse_accelerator, parse_infra,
};
use crate::schema::config::TASK_CONFIG_KEYS;

/// CLI flags that override every resource of every task (`Resources.copy(**overrides)`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overrides {
    /// `--infra` (or `--cloud/--region/--zone` combined).
    pub infra: Option<String>,
    /// `--cloud`.
    pub cloud: Option<String>,
    /// `--region`.
    pub region: Option<String>,
    /// `--zone`.
    pub zone: Option<String>,
    /// `--gpus`.
    pub gpus: Option<String>,
    /// `--cpus`.
    pub cpus: Option<String>,
    /// `--memory`.
    pub memory: Option<String>,
    /// `--instance-type`.
    pub instance_type: Option<String>,
    /// `--use-spot` / `--no-use-spot`.
    pub use_spot: Option<bool>,
    /// `--disk-size`.
    pub disk_size: Option<u64>,
    /// `--disk-tier`.
    pub disk_tier: Option<String>,
    /// `--image-id`.
    pub image_id: Option<String>,
    /// `--ports`.
    pub ports: Vec<String>,
    /// `--num-nodes`.
    pub num_nodes: Option<u32>,
    /// `--name` of the task (not the cluster).
    pub name: Option<String>,
    /// `--network-tier`.
    pub network_tier: Option<String>,
    /// `--local-disk`.
    pub local_disk: Option<String>,
    /// `--priority`: an integer, a priority class name, or `none`.
    pub priority: Option<String>,
    /// `--env`, `--env-file` (merged as SkyPilot merges them: `--env` wins),
    /// values resolved by the edge from the local environment where only a
    /// name was given.
    pub envs: Vec<(String, String)>,
    /// Names given by `--secret` / `--secret-file` (their values stay in the edge).
    pub secret_names: Vec<String>,
    /// `--workdir`.
    pub workdir: Option<String>,
    /// `--git-url`.
    pub git_url: Option<String>,
    /// `--git-ref`.
    pub git_ref: Option<String>,
    /// `--config` as a document (the dot-list or the file), also carried on
    /// each resource as SkyPilot's `_cluster_config_overrides`.
    pub config: Option<Mapping>,
    /// Flags that matter only when provisioning.
    pub provision: ProvisionFlags,
}

/// The `sky launch` flags that only matter when a cluster is provisioned
/// (`sky/client/cli/command.py::launch`): accepted and validated as
/// SkyPilot does, reported in the `-o json` plan, never acted on.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct ProvisionFlags {
    /// `-d/--detach-run`.
    pub detach_run: bool,
    /// The backend (`cloudvmray`, or `docker` from the hidden `--docker`).
    pub backend: Option<String>,
    /// `-i/--idle-minutes-to-autostop`.
    pub idle_minutes_to_autostop: Option<i64>,
    /// `--wait-for`.
    pub wait_for: Option<String>,
    /// `--down`.
    pub down: bool,
    /// `-r/--retry-until-up`.
    pub retry_until_up: bool,
    /// `--no-setup`.
    pub no_setup: bool,
    /// `--clone-disk-from`.
    pub clone_disk_from: Option<String>,
    /// `--fast`.
    pub fast: bool,
    /// `--resize`.
    pub resize: bool,
    /// `--async`.
    pub async_call: bool,
}

/// Applies CLI overrides to every resource of every task (SkyPilot's
/// `Resources.copy(**overrides)`) as `sky launch` does, and returns what
/// its CLI prints meanwhile: a multi-task YAML keeps its resources (the flags
/// are ignored with a warning), only `--env`, `--secret` and `--workdir`
/// reach its tasks.
pub fn apply_cli_overrides(
    dag: &mut Dag,
    o: &Overrides,
    metadata: &[GpuMetadata],
) -> Result<Vec<ClientNotice>, RequestError> {
    if o.infra.is_some() && (o.cloud.is_some() || o.region.is_some() || o.zone.is_some()) {
        return Err(RequestError::value(
            "Cannot specify both --infra and --cloud, --region, or --zone.",
        ));
    }
    if o.ports.len() > 1 && o.ports.iter().any(|p| p.eq_ignore_ascii_case("none")) {
        return Err(RequestError::value(
            "Cannot specify both \"none\" and other ports.",
        ));
    }
    let mut notices = Vec::new();
    for task in &mut dag.tasks {
        for (k, v) in &o.envs {
            match task.spec.envs.iter_mut().find(|(name, _)| name == k) {
                Some((_, slot)) => *slot = v.clone(),
                None => task.spec.envs.push((k.clone(), v.clone())),
            }
        }
        for name in &o.secret_names {
            if !task.spec.secret_names.contains(name) {
                task.spec.secret_names.push(name.clone());
            }
        }
        update_workdir(&mut task.spec, o);
    }
    if dag.tasks.len() > 1 {
        if let Some(params) = override_params(o)? {
            notices.push(ClientNotice::OverridesIgnored(params));
        }
        return Ok(notices);
    }
    apply_overrides(dag, o, metadata)?;
    if let Some(kind) = dag.tasks.first().and_then(|t| t.spec.service) {
        notices.push(ClientNotice::ServiceIgnored(kind));
    }
    Ok(notices)
}

/// Applies CLI overrides to every resource of every task (SkyPilot's
/// `Resources.copy(**overrides)`), whatever the number of tasks (the
/// optimizer benchmarks and the harness call it directly).
pub fn apply_overrides(
    dag: &mut Dag,
    o: &Overrides,
    metadata: &[GpuMetadata],
) -> Result<(), RequestError> {
    if o.infra.is_some() && (o.cloud.is_some() || o.region.is_some() || o.zone.is_some()) {
        return Err(RequestError::value(
            "Cannot specify both --infra and --cloud, --region, or --zone.",
        ));
    }
    let infra = match &o.infra {
        Some(i) => Some(parse_infra(i)?),
        None => None,
    };
    let is_none = |s: &Option<String>| s.as_deref().is_some_and(|v| v.eq_ignore_ascii_case("none"));
    let legacy_cloud = match o.cloud.as_deref() {
        Some(c) if !c.eq_ignore_ascii_case("none") => Some(
            c.parse::<crate::cloud::CloudId>()
                .map_err(|e| RequestError::value(e.to_string()))?,
        ),
        _ => None,
    };
    let cpus = match &o.cpus {
        Some(c) if !is_none(&o.cpus) => Some(resources::parse_cpus(c)?),
        _ => None,
    };
    let memory = match &o.memory {
        Some(m) if !is_none(&o.memory) => Some(resources::parse_memory(m)?),
        _ => None,
    };
    let disk_tier = match &o.disk_tier {
        Some(t) if !is_none(&o.disk_tier) => Some(DiskTier::parse(t)?),
        _ => None,
    };
    if let Some(size) = o.disk_size
        && size == 0
    {
        return Err(RequestError::value(
            "\"disk_size\" must be a positive integer (in GB). Got: 0.",
        ));
    }
    let network_tier = match &o.network_tier {
        Some(t) if !is_none(&o.network_tier) => Some(NetworkTier::parse(t)?),
        _ => None,
    };
    let local_disk = match &o.local_disk {
        Some(d) if !is_none(&o.local_disk) => Some(normalize_local_disk(d)?),
        _ => None,
    };
    let ports = if o.ports.is_empty() || o.ports.iter().any(|p| p.eq_ignore_ascii_case("none")) {
        None
    } else {
        resources::parse_ports(&o.ports)?
    };
    // `--priority`: an integer is a priority, anything else a class; both
    // are cleared first, and `none` (or nothing) leaves them cleared.
    let priority = match o.priority.as_deref().map(str::trim) {
        None => None,
        Some(p) if p.is_empty() || p.eq_ignore_ascii_case("none") => Some(None),
        Some(p) => Some(Some(match p.parse::<i64>() {
            Ok(n) => Priority::Value(check_priority(n)?),
            Err(_) => Priority::Class(p.to_string()),
        })),
    };
    let config = o
        .config
        .as_ref()
        .map(|c| crate::config::task_overrideable(c, TASK_CONFIG_KEYS));
    // --gpus goes through the config path so memory-based specs expand like in SkyPilot's server.
    let gpu_set = match &o.gpus {
        Some(g) if !is_none(&o.gpus) => {
            // The client builds a Resources first, which parses NAME[:COUNT] strictly.
            parse_accelerator(g)?;
            let mut m = Mapping::new();
            m.insert(Value::from("accelerators"), Value::from(g.clone()));
            Some(resource_set_from_mapping(&m, metadata)?)
        }
        _ => None,
    };
    for task in &mut dag.tasks {
        if let Some(n) = o.num_nodes {
            task.num_nodes = n;
        }
        if let Some(name) = &o.name {
            task.name = Some(name.clone());
        }
        if let Some(set) = &gpu_set {
            // Each existing resource is crossed with the requested accelerators.
            let mut expanded = Vec::new();
            for base in task.resources.all() {
                for g in set.all() {
                    let mut r = base.clone();
                    r.accelerator = g.accelerator.clone();
                    r.no_missing_accel_warnings = g.no_missing_accel_warnings;
                    expanded.push(r);
                }
            }
            task.resources = match set {
                ResourceSet::Ordered(_) => ResourceSet::Ordered(expanded),
                ResourceSet::AnyOf(_) => ResourceSet::AnyOf(expanded),
            };
        }
        for r in task.resources.all_mut() {
            if let Some(i) = &infra {
                r.cloud = i.cloud;
                r.region = i.region.clone();
                r.zone = i.zone.clone();
            }
            if o.cloud.is_some() {
                r.cloud = legacy_cloud;
            }
            if o.region.is_some() {
                r.region = o.region.clone().filter(|_| !is_none(&o.region));
            }
            if o.zone.is_some() {
                r.zone = o.zone.clone().filter(|_| !is_none(&o.zone));
            }
            if o.instance_type.is_some() {
                r.instance_type = o
                    .instance_type
                    .clone()
                    .filter(|_| !is_none(&o.instance_type));
            }
            if o.cpus.is_some() {
                r.cpus = cpus.clone();
            }
            if o.memory.is_some() {
                r.memory = memory.clone();
            }
            if let Some(s) = o.use_spot {
                r.use_spot = s;
                r.use_spot_specified = true;
            }
            if let Some(d) = o.disk_size {
                r.disk_size = d;
            }
            if o.disk_tier.is_some() {
                r.disk_tier = disk_tier;
            }
            if let Some(image) = &o.image_id {
                r.image =
                    (!is_none(&o.image_id)).then(|| ImageSpec::single(r.region.as_deref(), image));
            }
            if o.network_tier.is_some() {
                r.network_tier = network_tier;
            }
            if o.local_disk.is_some() {
                r.local_disk = local_disk.clone();
            }
            if !o.ports.is_empty() {
                r.ports = ports.clone();
            }
            if let Some(p) = &priority {
                r.priority = p.clone();
            }
            if let Some(cfg) = &config {
                r.config_overrides =
                    crate::config::overlay_task_config(r.config_overrides.as_ref(), cfg);
            }
        }
    }
    Ok(())
}

/// `Task.update_workdir`: `--workdir` replaces a local workdir, `--git-url`
/// and `--git-ref` make or update a git one.
fn update_workdir(spec: &mut TaskSpec, o: &Overrides) {
    match &mut spec.workdir {
        None | Some(Workdir::Local { .. }) => {
            if let Some(path) = &o.workdir {
                spec.workdir = Some(Workdir::Local { path: path.clone() });
            } else if let Some(url) = &o.git_url {
                spec.workdir = Some(Workdir::Git {
                    url: url.clone(),
                    reference: o.git_ref.clone(),
                });
            }
        }
        Some(Workdir::Git { url, reference }) => {
            if let Some(u) = &o.git_url {
                *url = u.clone();
            }
            if let Some(r) = &o.git_ref {
                *reference = Some(r.clone());
            }
        }
    }
}

/// The `override_params` of these flags, or `None` when no resource flag
/// was given; an unknown cloud or a malformed `--infra` is an error.
fn override_params(o: &Overrides) -> Result<Option<OverrideParams>, RequestError> {
    let is_none = |s: &str| s.eq_ignore_ascii_case("none");
    // A string flag's value: `none` is Python's None.
    let text = |v: &str| {
        if is_none(v) {
            ParamValue::None
        } else {
            ParamValue::Str(v.to_string())
        }
    };
    let mut items: Vec<(&'static str, ParamValue)> = Vec::new();
    // `--infra` becomes cloud/region/zone, `*` for the parts it leaves open.
    let (cloud, region, zone) = match &o.infra {
        Some(i) => {
            let parsed = parse_infra(i)?;
            (
                Some(
                    parsed
                        .cloud
                        .map_or("*".to_string(), |c| c.name().to_string()),
                ),
                Some(parsed.region.unwrap_or_else(|| "*".into())),
                Some(parsed.zone.unwrap_or_else(|| "*".into())),
            )
        }
        None => (o.cloud.clone(), o.region.clone(), o.zone.clone()),
    };
    if let Some(c) = cloud {
        let value = if is_none(&c) || c == "*" {
            ParamValue::None
        } else {
            ParamValue::Cloud(
                c.parse::<CloudId>()
                    .map_err(|e| RequestError::value(e.to_string()))?,
            )
        };
        items.push(("cloud", value));
    }
    for (key, v) in [("region", region), ("zone", zone)] {
        if let Some(v) = v {
            let value = if v == "*" { ParamValue::None } else { text(&v) };
            items.push((key, value));
        }
    }
    for (key, v) in [
        ("accelerators", &o.gpus),
        ("cpus", &o.cpus),
        ("memory", &o.memory),
        ("instance_type", &o.instance_type),
    ] {
        if let Some(v) = v {
            items.push((key, text(v)));
        }
    }
    if let Some(s) = o.use_spot {
        items.push(("use_spot", ParamValue::Bool(s)));
    }
    if let Some(v) = &o.image_id {
        items.push(("image_id", text(v)));
    }
    if let Some(d) = o.disk_size {
        items.push(("disk_size", ParamValue::Int(d.into())));
    }
    for (key, v) in [
        ("disk_tier", &o.disk_tier),
        ("network_tier", &o.network_tier),
        ("local_disk", &o.local_disk),
    ] {
        if let Some(v) = v {
            items.push((key, text(v)));
        }
    }
    if !o.ports.is_empty() {
        let value = if o.ports.iter().any(|p| is_none(p)) {
            ParamValue::None
        } else {
            ParamValue::Tuple(o.ports.clone())
        };
        items.push(("ports", value));
    }
    if let Some(p) = &o.priority {
        let p = p.trim();
        let (value, class) = if is_none(p) || p.is_empty() {
            (ParamValue::None, ParamValue::None)
        } else if let Ok(n) = p.parse::<i64>() {
            (ParamValue::Int(n.into()), ParamValue::None)
        } else {
            (ParamValue::None, ParamValue::Str(p.to_string()))
        };
        items.push(("priority", value));
        items.push(("priority_class", class));
    }
    if let Some(cfg) = o.config.as_ref().filter(|c| !c.is_empty()) {
        items.push((
            "_cluster_config_overrides",
            ParamValue::Yaml(Value::Mapping(cfg.clone())),
        ));
    }
    Ok((!items.is_empty()).then_some(OverrideParams(items)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::overrides::override_params as shown;
    use crate::task::parse_task_yaml;

    fn ignored(o: &Overrides) -> Vec<String> {
        let mut dag = parse_task_yaml("run: a\n---\nrun: b\n", "t.yaml", &[]).unwrap();
        apply_cli_overrides(&mut dag, o, &[])
            .unwrap()
            .iter()
            .map(|n| match n {
                ClientNotice::OverridesIgnored(p) => shown(p),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn a_chain_ignores_the_resource_flags_as_skypilot_s_override_params() {
        let s = |v: &str| Some(v.to_string());
        let aws = Overrides {
            cloud: s("aws"),
            region: s("us-east-1"),
            gpus: s("V100:1"),
            cpus: s("4"),
            memory: s("none"),
            use_spot: Some(true),
            disk_size: Some(100),
            disk_tier: s("high"),
            ports: vec!["8080".into()],
            priority: s("5"),
            ..Overrides::default()
        };
        let gcp = Overrides {
            infra: s("gcp/*/us-central1-a"),
            instance_type: s("n1-standard-8"),
            image_id: s("none"),
            ports: vec!["80".into(), "443".into()],
            network_tier: s("best"),
            local_disk: s("nvme"),
            priority: s("low"),
            config: serde_yaml_ng::from_str("{kubernetes: {pod_config: {a: 1}}}").unwrap(),
            ..Overrides::default()
        };
        let k8s = Overrides {
            infra: s("kubernetes"),
            priority: s("none"),
            ..Overrides::default()
        };
        // What SkyPilot 0.14.1 (and this tool before notices were data) prints.
        for (o, want) in [
            (
                aws,
                "{'cloud': AWS, 'region': 'us-east-1', 'accelerators': 'V100:1', 'cpus': '4', 'memory': None, 'use_spot': True, 'disk_size': 100, 'disk_tier': 'high', 'ports': ('8080',), 'priority': 5, 'priority_class': None}",
            ),
            (
                gcp,
                "{'cloud': GCP, 'region': None, 'zone': 'us-central1-a', 'instance_type': 'n1-standard-8', 'image_id': None, 'network_tier': 'best', 'local_disk': 'nvme', 'ports': ('80', '443'), 'priority': None, 'priority_class': 'low', '_cluster_config_overrides': {'kubernetes': {'pod_config': {'a': 1}}}}",
            ),
            (
                k8s,
                "{'cloud': Kubernetes, 'region': None, 'zone': None, 'priority': None, 'priority_class': None}",
            ),
        ] {
            assert_eq!(ignored(&o), vec![want.to_string()]);
        }
        // No resource flag: nothing to say; `--env` still reaches every task.
        let envs = Overrides {
            envs: vec![("A".into(), "1".into())],
            ..Overrides::default()
        };
        assert!(ignored(&envs).is_empty());
    }
}
