//! A task's `resources:` section → a [`ResourceSet`]
//! (`sky/resources.py::Resources.from_yaml_config`): `any_of`/`ordered`,
//! accelerator lists and mappings, memory-based GPU specs expanded through
//! the catalog's GPU metadata, and each entry's fields.

use serde_yaml_ng::{Mapping, Value};

use super::types::ResourceSet;
use crate::catalog::GpuMetadata;
use crate::pytext::py_str_repr;
use crate::resources::{
    self, Accelerator, DiskTier, ImageSpec, NetworkTier, PRIORITY_RANGE, Priority, RequestError,
    Resources, check_acc_count, normalize_local_disk, parse_accelerator, parse_infra,
};
use crate::schema::resources::{schema_error, type_error};
use crate::schema::value::value_text;

/// Expands memory-based GPU specs (`32GB+`, `nvidia:16GB`, `32GB:2`) through `common/metadata.csv`.
/// Returns `(accelerator string, user_specified)` pairs.
fn expand_accelerator_str(
    spec: &str,
    metadata: &[GpuMetadata],
) -> Result<Vec<(String, bool)>, RequestError> {
    // By suffix, not by byte offset: `s[..len - 2]` would cut a multi-byte
    // character (`😀`, a full-width digit) in two.
    let is_mem = |s: &str| {
        let s = s.strip_suffix('+').unwrap_or(s).to_ascii_lowercase();
        ["gb", "mb", "tb"].iter().any(|unit| {
            s.strip_suffix(unit)
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
    };
    let split: Vec<&str> = spec.split(':').collect();
    let (manufacturer, memory, count) = match split.as_slice() {
        [m, mem, c] if is_mem(mem) => (Some(*m), *mem, *c),
        [mem, c] if is_mem(mem) => (None, *mem, *c),
        [m, mem] if is_mem(mem) => (Some(*m), *mem, "1"),
        [mem] if is_mem(mem) => (None, *mem, "1"),
        _ => return Ok(vec![(spec.to_string(), true)]),
    };
    let count: u32 = count.trim().parse().map_err(|_| {
        RequestError::value(format!(
            "Invalid accelerator count in {}.",
            py_str_repr(spec)
        ))
    })?;
    let parsed = resources::parse_memory(memory).map_err(|_| {
        RequestError::value(format!(
            "\"accelerators\" field should be a number (e.g. \"16\") or \"<number><unit>\" where unit is one of KB/MB/GB/TB/PB (e.g. \"16GB\") or \"<number>+\" for \"at least\". Got: {}",
            py_str_repr(memory)
        ))
    })?;
    let plus = parsed.ends_with('+');
    let gb: f64 = parsed.trim_end_matches('+').parse().unwrap_or(0.0);
    let gb = gb.trunc();
    Ok(metadata
        .iter()
        .filter(|m| {
            if plus {
                m.memory_gb >= gb
            } else {
                m.memory_gb == gb
            }
        })
        .filter(|m| manufacturer.is_none_or(|man| m.manufacturer.eq_ignore_ascii_case(man)))
        .map(|m| (format!("{}:{count}", m.gpu), false))
        .collect())
}

/// Parses a `resources:` mapping (with `any_of`/`ordered` and multi-accelerator forms).
pub fn resource_set_from_mapping(
    map: &Mapping,
    metadata: &[GpuMetadata],
) -> Result<ResourceSet, RequestError> {
    // Aliases applied (`gpus` → `accelerators`), schema checked.
    let base = crate::schema::check_resources(map)?;
    expand(base, metadata, true)
}

/// One `resources:` mapping (aliases applied) → its entries. With
/// `alternatives`, its `any_of`/`ordered` items are merged over the base and
/// each merged mapping is expanded again — so an accelerator mapping of the
/// base yields one entry per accelerator inside every alternative, as
/// `Resources.from_yaml_config._override_resources` recurses into
/// `from_yaml_config`. The merged mappings hold no `any_of`/`ordered`
/// (the schema refuses them in an item), so this recurses once at most.
fn expand(
    mut base: Mapping,
    metadata: &[GpuMetadata],
    alternatives: bool,
) -> Result<ResourceSet, RequestError> {
    let (any_of, ordered) = if alternatives {
        (base.remove("any_of"), base.remove("ordered"))
    } else {
        (None, None)
    };
    if any_of.is_some() && ordered.is_some() {
        return Err(RequestError::value(
            "Cannot specify both \"any_of\" and \"ordered\" in resources.",
        ));
    }
    // SkyPilot tests `if any_of_configs:`: an empty list is no alternative.
    let non_empty =
        |v: Option<Value>| v.filter(|v| !matches!(v, Value::Sequence(s) if s.is_empty()));
    let (any_of, ordered) = (non_empty(any_of), non_empty(ordered));
    let accelerators = base.get("accelerators").cloned();
    let mut accel_list: Option<(Vec<(String, bool)>, bool)> = None; // (entries, is_list)
    if let Some(acc) = accelerators.filter(|v| !v.is_null()) {
        let mut entries: Vec<(String, bool)> = Vec::new();
        let mut push_all = |spec: &str| -> Result<(), RequestError> {
            for (a, user) in expand_accelerator_str(spec, metadata)? {
                match entries.iter_mut().find(|(x, _)| *x == a) {
                    Some((_, u)) => *u = *u || user,
                    None => entries.push((a, user)),
                }
            }
            Ok(())
        };
        let is_list = matches!(acc, Value::Sequence(_));
        match &acc {
            Value::String(s) => push_all(s)?,
            Value::Mapping(m) => {
                for (k, v) in m {
                    let k = value_text(k).unwrap_or_default();
                    match value_text(v) {
                        Some(c) => push_all(&format!("{k}:{c}"))?,
                        None => push_all(&k)?,
                    }
                }
            }
            Value::Sequence(items) => {
                for item in items {
                    push_all(&value_text(item).unwrap_or_default())?;
                }
            }
            other => push_all(&value_text(other).unwrap_or_default())?,
        }
        if entries.len() > 1 && ordered.is_some() {
            return Err(RequestError::value(
                "Cannot specify multiple \"accelerators\" with \"ordered\" in resources.",
            ));
        }
        if entries.len() > 1 && any_of.is_some() && is_list {
            return Err(RequestError::value(
                "Cannot specify multiple \"accelerators\" with preferred order (i.e., list of accelerators) with \"any_of\" in resources.",
            ));
        }
        accel_list = Some((entries, is_list));
    }
    let alternatives =
        |v: Option<Value>, what: &str| -> Result<Option<Vec<Resources>>, RequestError> {
            let Some(v) = v else { return Ok(None) };
            let Value::Sequence(items) = v else {
                return Err(RequestError::value(format!(
                    "\"{what}\" must be a list of resource mappings."
                )));
            };
            let mut out = Vec::new();
            for item in items {
                out.extend(expand(merge_alternative(&base, item), metadata, false)?.into_all());
            }
            Ok(Some(out))
        };
    if let Some(list) = alternatives(any_of, "any_of")? {
        return Ok(ResourceSet::AnyOf(list));
    }
    if let Some(list) = alternatives(ordered, "ordered")? {
        return Ok(ResourceSet::Ordered(list));
    }
    if let Some((entries, is_list)) = accel_list {
        let mut out = Vec::new();
        for (acc, user) in entries {
            let mut m = base.clone();
            m.insert(Value::from("accelerators"), Value::from(acc));
            let mut r = single_from_mapping(&m)?;
            r.no_missing_accel_warnings = !user;
            out.push(r);
        }
        if out.is_empty() {
            // A memory spec that matched no GPU: nothing to try.
            return Ok(ResourceSet::AnyOf(Vec::new()));
        }
        return Ok(if is_list {
            ResourceSet::Ordered(out)
        } else {
            ResourceSet::AnyOf(out)
        });
    }
    Ok(ResourceSet::AnyOf(vec![single_from_mapping(&base)?]))
}

/// One `any_of`/`ordered` item over the base mapping
/// (`Resources.from_yaml_config._override_resources`): the item's fields
/// replace the base's (its `gpus` as `accelerators`), except `labels`,
/// which update the base's labels.
fn merge_alternative(base: &Mapping, item: Value) -> Mapping {
    let mut merged = base.clone();
    let Value::Mapping(m) = item else {
        return merged;
    };
    for (k, v) in m {
        match value_text(&k).as_deref() {
            Some("gpus") => {
                merged.insert(Value::from("accelerators"), v);
            }
            Some("labels") => {
                let labels = match (merged.get("labels"), v) {
                    (Some(Value::Mapping(old)), Value::Mapping(new)) => {
                        let mut labels = old.clone();
                        labels.extend(new);
                        Value::Mapping(labels)
                    }
                    (Some(old), Value::Null) => old.clone(),
                    (_, new) => new,
                };
                merged.insert(k, labels);
            }
            _ => {
                merged.insert(k, v);
            }
        }
    }
    merged
}

fn single_from_mapping(map: &Mapping) -> Result<Resources, RequestError> {
    let mut r = Resources::default();
    let get = |k: &str| map.get(k).filter(|v| !v.is_null());
    let text = |k: &str| get(k).and_then(value_text);
    let infra = text("infra");
    let (cloud, region, zone) = (text("cloud"), text("region"), text("zone"));
    if let Some(i) = &infra {
        if cloud.is_some() || region.is_some() || zone.is_some() {
            return Err(RequestError::value(format!(
                "Cannot specify both `infra` and `cloud`, `region`, or `zone` parameters. Got: infra={i}, cloud={}, region={}, zone={}",
                cloud.as_deref().unwrap_or("None"),
                region.as_deref().unwrap_or("None"),
                zone.as_deref().unwrap_or("None")
            )));
        }
        let parsed = parse_infra(i)?;
        r.cloud = parsed.cloud;
        r.region = parsed.region;
        r.zone = parsed.zone;
    } else {
        if let Some(c) = &cloud {
            r.cloud = Some(
                c.parse()
                    .map_err(|e: crate::cloud::UnknownCloud| RequestError::value(e.to_string()))?,
            );
        }
        r.region = region;
        r.zone = zone;
    }
    r.instance_type = text("instance_type");
    if let Some(v) = get("cpus") {
        r.cpus = Some(match v {
            Value::Number(n) => {
                resources::cpus_from_number(n.as_f64().unwrap_or(0.0), n.is_i64() || n.is_u64())?
            }
            other => resources::parse_cpus(&value_text(other).unwrap_or_default())?,
        });
    }
    if let Some(v) = get("memory") {
        r.memory = Some(resources::parse_memory(&value_text(v).unwrap_or_default())?);
    }
    if let Some(v) = get("accelerators") {
        r.accelerator = Some(match v {
            Value::Mapping(m) if m.len() == 1 => {
                let null = Value::Null;
                let (k, c) = m
                    .iter()
                    .next()
                    .map(|(k, c)| (value_text(k).unwrap_or_default(), c))
                    .unwrap_or((String::new(), &null));
                match c {
                    Value::Number(n) => {
                        let count = n.as_f64().unwrap_or(0.0);
                        check_acc_count(&k, count, &value_text(c).unwrap_or_default())?;
                        Accelerator {
                            name: k,
                            count: resources::AccCount(count),
                        }
                    }
                    Value::Null => Accelerator {
                        name: k,
                        count: resources::AccCount(1.0),
                    },
                    other => parse_accelerator(&format!(
                        "{k}:{}",
                        value_text(other).unwrap_or_default()
                    ))?,
                }
            }
            other => parse_accelerator(&value_text(other).unwrap_or_default())?,
        });
    }
    if let Some(Value::Mapping(args)) = get("accelerator_args") {
        let mut shown = Vec::new();
        for (k, v) in args {
            let key = value_text(k).unwrap_or_default();
            if key == "tpu_vm"
                && let Value::Bool(b) = v
            {
                r.tpu_vm = *b;
            }
            let repr = match v {
                Value::String(s) => py_str_repr(s),
                other => value_text(other).unwrap_or_else(|| "None".into()),
            };
            shown.push((key, repr));
        }
        r.accelerator_args = Some(shown);
    }
    if let Some(v) = get("use_spot") {
        r.use_spot = matches!(v, Value::Bool(true));
        r.use_spot_specified = true;
    }
    if let Some(v) = get("disk_size") {
        let size = v.as_i64().filter(|s| *s > 0).ok_or_else(|| {
            RequestError::value(format!(
                "\"disk_size\" must be a positive integer (in GB). Got: {}.",
                value_text(v).unwrap_or_default()
            ))
        })?;
        r.disk_size = size as u64;
    }
    if let Some(v) = text("disk_tier") {
        r.disk_tier = Some(DiskTier::parse(&v)?);
    }
    if let Some(v) = get("image_id") {
        r.image = match v {
            Value::Mapping(m) => ImageSpec::from_pairs(
                r.region.as_deref(),
                m.iter()
                    .map(|(k, v)| (value_text(k), value_text(v).unwrap_or_default()))
                    .collect(),
            )?,
            other => Some(ImageSpec::single(
                r.region.as_deref(),
                &value_text(other).unwrap_or_default(),
            )),
        };
    }
    if let Some(v) = text("network_tier") {
        r.network_tier = Some(NetworkTier::parse(&v)?);
    }
    if let Some(v) = text("local_disk") {
        r.local_disk = Some(normalize_local_disk(&v)?);
    }
    if let Some(v) = get("max_hourly_cost") {
        let c = match v {
            Value::Number(n) => n.as_f64().unwrap_or(0.0),
            other => {
                return Err(type_error(other, "number", "max_hourly_cost"));
            }
        };
        if c <= 0.0 {
            return Err(RequestError::value(format!(
                "max_hourly_cost must be a positive number, got {}",
                value_text(v).unwrap_or_default()
            )));
        }
        r.max_hourly_cost = Some(c);
    }
    if let Some(v) = get("ports") {
        let given: Vec<String> = match v {
            Value::Sequence(items) => items.iter().filter_map(value_text).collect(),
            other => vec![value_text(other).unwrap_or_default()],
        };
        r.ports = resources::parse_ports(&given)?;
    }
    if let Some(v) = get("labels") {
        let Value::Mapping(m) = v else {
            return Err(type_error(v, "object", "labels"));
        };
        let mut labels = Vec::new();
        for (k, val) in m {
            let key = value_text(k).unwrap_or_default();
            match val {
                Value::String(s) => labels.push((key, s.clone())),
                other => {
                    return Err(type_error(other, "string", &format!("labels.{key}")));
                }
            }
        }
        r.labels = (!labels.is_empty()).then_some(labels);
    }
    if let Some(v) = get("priority") {
        let p = match v {
            Value::Number(n) if n.as_i64().is_some() => n.as_i64().unwrap_or_default(),
            other => {
                return Err(type_error(other, "integer", "priority"));
            }
        };
        if !PRIORITY_RANGE.contains(&p) {
            let bound = if p < *PRIORITY_RANGE.start() {
                format!("less than the minimum of {}", PRIORITY_RANGE.start())
            } else {
                format!("greater than the maximum of {}", PRIORITY_RANGE.end())
            };
            return Err(schema_error(format!("{p} is {bound}"), "priority"));
        }
        r.priority = Some(Priority::Value(p));
    }
    if let Some(v) = text("priority_class")
        && r.priority.is_none()
    {
        let v = v.trim();
        r.priority = (!v.is_empty()).then(|| Priority::Class(v.to_string()));
    }
    if let Some(v) = get("job_recovery") {
        let strategy = match v {
            Value::Mapping(m) => m.get("strategy").and_then(value_text),
            other => value_text(other),
        };
        // `strategy: none` turns recovery off; a missing strategy still
        // counts as "job_recovery specified" (the default strategy).
        r.job_recovery = match strategy {
            Some(s) if s == "none" => None,
            Some(s) => Some(s.to_uppercase()),
            None => Some(String::new()),
        };
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(yaml: &str) -> Result<ResourceSet, RequestError> {
        let map: Mapping = serde_yaml_ng::from_str(yaml).expect("test yaml");
        resource_set_from_mapping(&map, &[])
    }

    /// `(accelerator, use_spot)` of each entry, in order.
    fn entries(set: &ResourceSet) -> Vec<(String, bool)> {
        set.all()
            .iter()
            .map(|r| {
                let acc = r
                    .accelerator
                    .as_ref()
                    .map(|a| format!("{}:{}", a.name, a.count.0))
                    .unwrap_or_default();
                (acc, r.use_spot)
            })
            .collect()
    }

    #[test]
    fn an_accelerator_mapping_expands_inside_every_alternative() {
        // llm/deepseek-r1: three accelerators × two spot settings.
        let got = set("accelerators: {H200: 8, H100: 8}\n\
             any_of: [{use_spot: true}, {use_spot: false}]")
        .unwrap();
        assert!(matches!(got, ResourceSet::AnyOf(_)));
        assert_eq!(
            entries(&got),
            [
                ("H200:8".into(), true),
                ("H100:8".into(), true),
                ("H200:8".into(), false),
                ("H100:8".into(), false),
            ]
        );
        // `{ A100-80GB:8 }` is a one-key mapping whose key holds the count.
        let got = set("accelerators: { A100-80GB:8 }\nany_of: [{use_spot: true}]").unwrap();
        assert_eq!(entries(&got), [("A100-80GB:8".into(), true)]);
        // A YAML set with `any_of`, and an item's own accelerator replacing the base's.
        let got = set("accelerators: {'A100:1', 'T4:1'}\n\
             ordered: [{cloud: aws}, {cloud: gcp, accelerators: V100}]")
        .unwrap_err();
        assert_eq!(
            got.message,
            "Cannot specify multiple \"accelerators\" with \"ordered\" in resources."
        );
        let got = set("accelerators: A100\nordered: [{cloud: aws}, {accelerators: V100}]").unwrap();
        assert!(matches!(got, ResourceSet::Ordered(_)));
        assert_eq!(
            entries(&got),
            [("A100:1".into(), false), ("V100:1".into(), false)]
        );
    }

    #[test]
    fn an_alternatives_labels_update_the_bases() {
        let got =
            set("labels: {a: '1', b: '2'}\nany_of: [{labels: {b: '3'}}, {cloud: aws}]").unwrap();
        let labels: Vec<_> = got.all().iter().map(|r| r.labels.clone()).collect();
        let pairs = |v: &[(&str, &str)]| {
            Some(
                v.iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect::<Vec<_>>(),
            )
        };
        assert_eq!(
            labels,
            [
                pairs(&[("a", "1"), ("b", "3")]),
                pairs(&[("a", "1"), ("b", "2")])
            ]
        );
    }
}
