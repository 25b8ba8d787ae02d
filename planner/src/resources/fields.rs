//! The resource fields SkyPilot normalises before it plans: network tier,
//! local disk, ports, images (one id, per-region ids, a Docker image),
//! labels and priority (`sky/resources.py::Resources.__init__` and its
//! `_set_*` helpers, `sky/utils/resources_utils.py`).
//!
//! Each parser returns SkyPilot's stored form and SkyPilot's error text for
//! bad input, so messages and `repr(Resources)` read as upstream's.

use super::error::RequestError;
use crate::cloud::CloudId;
use crate::pytext::py_str_repr;

/// `resources_utils.NetworkTier`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NetworkTier {
    /// `standard` (the default).
    Standard,
    /// `best`: the fastest interconnect the instance offers; requires the
    /// cloud's `CUSTOM_NETWORK_TIER` feature.
    Best,
}

impl NetworkTier {
    /// The tier names, in SkyPilot's enum order (`supported_tiers()`).
    pub const NAMES: [&'static str; 2] = ["standard", "best"];

    /// `Resources.__init__`: a tier name, case-insensitive.
    pub fn parse(text: &str) -> Result<NetworkTier, RequestError> {
        match text.to_lowercase().as_str() {
            "standard" => Ok(NetworkTier::Standard),
            "best" => Ok(NetworkTier::Best),
            other => Err(RequestError::value(format!(
                "Invalid network_tier {}. Network tier must be one of {}.",
                py_str_repr(other),
                NetworkTier::NAMES.join(", ")
            ))),
        }
    }

    /// The lower-case value (`repr(Resources)` shows `network_tier=best`).
    pub fn as_str(self) -> &'static str {
        match self {
            NetworkTier::Standard => "standard",
            NetworkTier::Best => "best",
        }
    }
}

/// `resources_utils.DEFAULT_LOCAL_DISK_SIZE`: the size a mode alone means.
const DEFAULT_LOCAL_DISK_SIZE: &str = "100+";

/// `resources_utils.normalize_local_disk`: `nvme` → `nvme:100+`, `1000+` →
/// `nvme:1000+`, `ssd:500` as given; lower-cased and trimmed first.
pub fn normalize_local_disk(text: &str) -> Result<String, RequestError> {
    let local_disk = text.trim().to_lowercase();
    let bad_size = || {
        RequestError::value(format!(
            "Invalid local_disk: {}. Expected \"mode:size[+]\", \"mode\", or \"size[+]\". Mode must be \"nvme\" or \"ssd\", size must be positive (GB), optionally with \"+\".",
            py_str_repr(&local_disk)
        ))
    };
    let check_size = |size: &str| -> Result<(), RequestError> {
        match super::hardware::parse_py_float(size.trim_end_matches('+')) {
            Some(v) if v > 0.0 => Ok(()),
            _ => Err(bad_size()),
        }
    };
    let parts: Vec<&str> = local_disk.split(':').collect();
    let (mode, size) = match parts.as_slice() {
        [part] if *part == "nvme" || *part == "ssd" => (*part, DEFAULT_LOCAL_DISK_SIZE),
        [part] => {
            check_size(part)?;
            ("nvme", *part)
        }
        [mode, size] => {
            if *mode != "nvme" && *mode != "ssd" {
                return Err(RequestError::value(format!(
                    "Invalid local_disk mode: {}. Must be \"nvme\" or \"ssd\".",
                    py_str_repr(mode)
                )));
            }
            check_size(size)?;
            (*mode, *size)
        }
        _ => {
            return Err(RequestError::value(format!(
                "Invalid local_disk format: {}. Expected \"mode:size[+]\", \"mode\", or \"size[+]\". Examples: \"nvme:1000+\", \"ssd:500\", \"nvme\", \"1000+\".",
                py_str_repr(&local_disk)
            )));
        }
    };
    Ok(format!("{mode}:{size}"))
}

/// `image_id` as `Resources.__init__` stores it: one id for the resource's
/// region (or any), ids per region, and/or a Docker image (`docker:<image>`,
/// or a dict's reserved `docker` key).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ImageSpec {
    /// `_image_id`: region (`None` = any region) → id, in the order given.
    pub ids: Vec<(Option<String>, String)>,
    /// `_docker_image`, from a dict's `docker` key (without `docker:`).
    pub docker: Option<String>,
}

impl ImageSpec {
    /// A single id (`image_id: <id>`), keyed by the resource's region.
    pub fn single(region: Option<&str>, id: &str) -> ImageSpec {
        ImageSpec {
            ids: vec![(region.map(str::to_string), id.trim().to_string())],
            docker: None,
        }
    }

    /// The dict form: region → id, with an optional `docker` key. `null`
    /// as a key (YAML `~`) means any region.
    pub fn from_pairs(
        region: Option<&str>,
        pairs: Vec<(Option<String>, String)>,
    ) -> Result<Option<ImageSpec>, RequestError> {
        let mut docker = None;
        let mut ids = Vec::new();
        for (k, v) in pairs {
            if k.as_deref() == Some("docker") {
                let v = v.trim();
                docker = Some(v.strip_prefix("docker:").unwrap_or(v).to_string());
            } else {
                ids.push((k.map(|k| k.trim().to_string()), v.trim().to_string()));
            }
        }
        // `{None: id}` is rekeyed by the resource's region, like a plain id.
        if let Some(pos) = ids.iter().position(|(k, _)| k.is_none()) {
            let id = ids.swap_remove(pos).1;
            ids = vec![(region.map(str::to_string), id)];
        }
        if docker.is_some() {
            let prefixed: Vec<String> = ids
                .iter()
                .filter(|(_, v)| v.starts_with("docker:"))
                .map(|(k, v)| format!("{v} (region: {})", k.as_deref().unwrap_or("None")))
                .collect();
            if !prefixed.is_empty() {
                return Err(RequestError::value(format!(
                    "image_id has both a 'docker' key and docker:-prefixed region values: {}. Please use only one mechanism to specify the Docker image.",
                    prefixed.join(", ")
                )));
            }
        }
        if ids.is_empty() && docker.is_none() {
            return Ok(None);
        }
        Ok(Some(ImageSpec { ids, docker }))
    }

    /// `Resources.extract_docker_image`: the Docker image this resource runs.
    pub fn docker_image(&self, region: Option<&str>) -> Option<String> {
        if let Some(d) = &self.docker {
            return Some(d.clone());
        }
        match self.ids.as_slice() {
            [(key, id)] if key.is_none() || key.as_deref() == region => {
                id.strip_prefix("docker:").map(str::to_string)
            }
            _ => None,
        }
    }

    /// `Resources.get_cloud_image_id`: the VM image ids (no `docker:` ones).
    pub fn cloud_ids(&self) -> Vec<(Option<String>, String)> {
        self.ids
            .iter()
            .filter(|(_, v)| !v.starts_with("docker:"))
            .cloned()
            .collect()
    }

    /// The `image_id=` part of `repr(Resources)`: the id itself when keyed
    /// by no region, else the dict's Python repr; `| docker:<image>` after.
    pub fn repr(&self) -> String {
        let mut parts = Vec::new();
        if !self.ids.is_empty() {
            match self.ids.as_slice() {
                [(None, id)] => parts.push(id.clone()),
                ids => {
                    let items: Vec<String> = ids
                        .iter()
                        .map(|(k, v)| {
                            format!(
                                "{}: {}",
                                k.as_deref().map_or("None".to_string(), py_str_repr),
                                py_str_repr(v)
                            )
                        })
                        .collect();
                    parts.push(format!("{{{}}}", items.join(", ")));
                }
            }
        }
        if let Some(d) = &self.docker {
            parts.push(format!("docker:{d}"));
        }
        parts.join(" | ")
    }
}

/// `Cloud.is_label_valid` of `cloud`: `None` when valid, else SkyPilot's
/// reason. Only AWS (tags), GCP (labels) and Kubernetes/SSH (pod labels)
/// check them; every other cloud ignores labels (`sky/clouds/cloud.py`).
pub fn label_error(cloud: CloudId, key: &str, value: &str) -> Option<String> {
    match cloud {
        CloudId::Aws => aws_label_error(key, value),
        CloudId::Gcp => gcp_label_error(key, value),
        CloudId::Kubernetes | CloudId::Ssh => kubernetes_label_error(key, value),
        _ => None,
    }
}

/// `AWS.is_label_valid`: `^(?!aws:)[\S]{1,127}$` and `^[\S]{0,255}$`.
fn aws_label_error(key: &str, value: &str) -> Option<String> {
    let no_space = |s: &str| !s.chars().any(char::is_whitespace);
    let key_ok =
        !key.starts_with("aws:") && (1..=127).contains(&key.chars().count()) && no_space(key);
    let value_ok = value.chars().count() <= 255 && no_space(value);
    // SkyPilot assigns the value's message last, so it wins when both fail.
    if !value_ok {
        return Some(format!(
            "Invalid tag value {value} for AWS. Value must be 256 characters or fewer in length."
        ));
    }
    (!key_ok).then(|| {
        format!(
            "Invalid tag key {key} for AWS. Key must start with any character except 'aws:' and must be 128 characters or fewer in length."
        )
    })
}

/// `GCP.is_label_valid`: `^[a-z]([a-z0-9_-]{0,62})?$` and `^[a-z0-9_-]{0,63}$`.
fn gcp_label_error(key: &str, value: &str) -> Option<String> {
    let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-';
    let key_ok = key.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && key.chars().count() <= 63
        && key.chars().all(allowed);
    let value_ok = value.chars().count() <= 63 && value.chars().all(allowed);
    let condition = "can include lowercase alphanumeric characters, dashes, and underscores, with a total length of 63 characters or less.";
    if !value_ok {
        return Some(format!(
            "Invalid label value {value} for GCP. Value {condition}"
        ));
    }
    (!key_ok).then(|| {
        format!("Invalid label key {key} for GCP. Key must start with a lowercase letter and {condition}")
    })
}

/// `[a-z0-9]([-a-z0-9_.]{0,61}[a-z0-9])?` and friends: `first`/`last` from
/// `edge`, the middle from `middle`, at most `max` characters.
fn dns_like(
    s: &str,
    max: usize,
    edge: impl Fn(char) -> bool,
    middle: impl Fn(char) -> bool,
) -> bool {
    let chars: Vec<char> = s.chars().collect();
    match chars.as_slice() {
        [] => false,
        [c] => edge(*c),
        [first, inner @ .., last] => {
            chars.len() <= max && edge(*first) && edge(*last) && inner.iter().all(|c| middle(*c))
        }
    }
}

/// `Kubernetes.is_label_valid`: an optional DNS-style prefix ending in `/`
/// (the regex's look-ahead requires its characters to be `[a-z0-9-.]`),
/// then a name of at most 63 characters; values of at most 63.
fn kubernetes_label_error(key: &str, value: &str) -> Option<String> {
    let lower_alnum = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    let name_ok = |s: &str| {
        dns_like(s, 63, lower_alnum, |c| {
            lower_alnum(c) || matches!(c, '-' | '_' | '.')
        })
    };
    let domain_ok = |s: &str| {
        dns_like(s, 253, lower_alnum, |c| {
            lower_alnum(c) || matches!(c, '-' | '.')
        })
    };
    let key_ok = match key.split_once('/') {
        Some((domain, name)) => domain_ok(domain) && name_ok(name),
        None => name_ok(key),
    };
    let alnum = |c: char| c.is_ascii_alphanumeric();
    let value_ok = value.is_empty()
        || dns_like(value, 63, alnum, |c| {
            alnum(c) || matches!(c, '-' | '_' | '.')
        });
    let condition = "Value must consist of alphanumeric characters or '-', '_', '.', and must be no more than 63 characters in length.";
    if !value_ok {
        return Some(format!(
            "Invalid label value {value} for Kubernetes. {condition}"
        ));
    }
    (!key_ok).then(|| format!("Invalid label key {key} for Kubernetes. {condition}"))
}

/// `--priority` / `resources.priority`: an integer from -1000 to 1000, or
/// (CLI) a priority class name.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// A numeric priority.
    Value(i64),
    /// A priority class (e.g. for Kueue).
    Class(String),
}

/// `constants.MIN_PRIORITY` / `MAX_PRIORITY`.
pub const PRIORITY_RANGE: std::ops::RangeInclusive<i64> = -1000..=1000;

/// `Resources._set_priority`.
pub fn check_priority(p: i64) -> Result<i64, RequestError> {
    if PRIORITY_RANGE.contains(&p) {
        Ok(p)
    } else {
        Err(RequestError::value(format!(
            "Priority must be between {} and {}. Found: {p}",
            PRIORITY_RANGE.start(),
            PRIORITY_RANGE.end()
        )))
    }
}

/// SkyPilot's `_PORT_HINT_MSG`.
fn port_error(port: &str) -> RequestError {
    RequestError::value(format!(
        "Invalid port {port}. Please use a port number between 1 and 65535."
    ))
}

/// One port number, 1..=65535 (`resources_utils.check_port_str`).
fn parse_port(text: &str, whole: &str) -> Result<u32, RequestError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(port_error(whole));
    }
    match text.parse::<u32>() {
        Ok(p) if (1..=65535).contains(&p) => Ok(p),
        _ => Err(port_error(whole)),
    }
}

/// `ports` as SkyPilot normalises them (`Resources._set_ports`:
/// comma-separated entries split, each a port or a `from-to` range checked
/// by `check_port_str`/`check_port_range_str`, then `simplify_ports` merges
/// them into sorted ranges: `['1-2', '3', '7']` → `['1-3', '7']`).
/// `None` when nothing was given.
pub fn parse_ports(given: &[String]) -> Result<Option<Vec<String>>, RequestError> {
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for entry in given {
        for token in entry.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            if token.bytes().all(|b| b.is_ascii_digit()) {
                let p = parse_port(token, token)?;
                ranges.push((p, p));
                continue;
            }
            let range_error = || {
                RequestError::value(format!(
                    "Invalid port range {token}. Please use the format \"from-to\", in which from <= to. e.g. \"1-3\"."
                ))
            };
            let parts: Vec<&str> = token.split('-').collect();
            let [from, to] = parts.as_slice() else {
                return Err(range_error());
            };
            let (from, to) = (parse_port(from, from)?, parse_port(to, to)?);
            if from > to {
                return Err(range_error());
            }
            ranges.push((from, to));
        }
    }
    if ranges.is_empty() {
        return Ok(None);
    }
    ranges.sort_unstable();
    let mut merged: Vec<(u32, u32)> = Vec::new();
    for (from, to) in ranges {
        match merged.last_mut() {
            Some(last) if from <= last.1 + 1 => last.1 = last.1.max(to),
            _ => merged.push((from, to)),
        }
    }
    Ok(Some(
        merged
            .into_iter()
            .map(|(a, b)| {
                if a == b {
                    a.to_string()
                } else {
                    format!("{a}-{b}")
                }
            })
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_are_checked_and_simplified() {
        let ports = |v: &[&str]| parse_ports(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            ports(&["1-2", "3", "7", "8000,8001"]).unwrap(),
            Some(vec!["1-3".into(), "7".into(), "8000-8001".into()])
        );
        assert_eq!(ports(&[]).unwrap(), None);
        for (bad, want) in [
            ("abc", "Invalid port range abc."),
            ("99999", "Invalid port 99999."),
            ("0", "Invalid port 0."),
            ("5-3", "Invalid port range 5-3."),
            ("1-2-3", "Invalid port range 1-2-3."),
            (
                "1-99999999999999999999",
                "Invalid port 99999999999999999999.",
            ),
            ("８０", "Invalid port range ８０."),
        ] {
            let err = ports(&[bad]).unwrap_err();
            assert!(err.message.starts_with(want), "{bad}: {}", err.message);
        }
    }

    #[test]
    fn local_disk_forms_normalise_like_skypilot() {
        for (input, want) in [
            ("nvme", "nvme:100+"),
            ("ssd", "ssd:100+"),
            ("1000+", "nvme:1000+"),
            ("500", "nvme:500"),
            (" NVMe:200+ ", "nvme:200+"),
            ("ssd:500", "ssd:500"),
        ] {
            assert_eq!(normalize_local_disk(input).unwrap(), want, "{input}");
        }
        for bad in ["hdd:100", "nvme:0", "nvme:x", "a:b:c", "-5"] {
            assert!(normalize_local_disk(bad).is_err(), "{bad}");
        }
        assert_eq!(
            normalize_local_disk("hdd:100").unwrap_err().message,
            "Invalid local_disk mode: 'hdd'. Must be \"nvme\" or \"ssd\"."
        );
    }

    #[test]
    fn image_specs_split_docker_and_cloud_ids() {
        let docker = ImageSpec::single(None, "docker:ubuntu:22.04");
        assert_eq!(docker.docker_image(None).as_deref(), Some("ubuntu:22.04"));
        assert!(docker.cloud_ids().is_empty());
        let dict = ImageSpec::from_pairs(
            None,
            vec![
                (Some("us-east-1".into()), "ami-1".into()),
                (Some("us-west-2".into()), "ami-2".into()),
            ],
        )
        .unwrap()
        .unwrap();
        assert_eq!(dict.repr(), "{'us-east-1': 'ami-1', 'us-west-2': 'ami-2'}");
        assert_eq!(dict.docker_image(None), None);
        let both = ImageSpec::from_pairs(None, vec![(Some("docker".into()), "docker:img".into())])
            .unwrap()
            .unwrap();
        assert_eq!(both.repr(), "docker:img");
    }

    #[test]
    fn labels_follow_each_clouds_rules() {
        assert!(label_error(CloudId::Aws, "team", "ml").is_none());
        assert!(label_error(CloudId::Aws, "aws:x", "v").is_some());
        assert!(label_error(CloudId::Aws, "Bad Key!", "v").is_some());
        assert!(label_error(CloudId::Gcp, "Team", "ml").is_some());
        assert!(label_error(CloudId::Gcp, "team", "ML").is_some());
        assert!(label_error(CloudId::Kubernetes, "example.com/team", "ML.v1").is_none());
        assert!(label_error(CloudId::Kubernetes, "Example.com/team", "v").is_some());
        assert!(label_error(CloudId::Kubernetes, "team", "-v").is_some());
        assert!(label_error(CloudId::Lambda, "Bad Key!", "v").is_none());
    }
}
