//! Resource requests as SkyPilot parses them (`sky/resources.py::Resources`,
//! `sky/utils/infra_utils.py::InfraInfo`, `sky/utils/resources_utils.py`).
//!
//! Fields keep SkyPilot's textual forms (`cpus = "4+"`, `memory = "32.0"`)
//! because those strings appear verbatim in messages and drive the catalog
//! filters.

use crate::pytext::py_float_str;
use std::fmt;

use crate::cloud::CloudId;
use crate::pytext::py_str_repr;
pub use crate::resource_fields::{ImageSpec, NetworkTier, Priority};

/// Default disk size in GB (SkyPilot's `DEFAULT_DISK_SIZE_GB`).
pub const DEFAULT_DISK_SIZE_GB: u64 = 256;

/// The kind of error SkyPilot raises; rendered as `<kind>: <message>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum ErrorKind {
    /// Python `ValueError`.
    ValueError,
    /// Python `AssertionError`.
    AssertionError,
    /// Python `AttributeError` (SkyPilot tripping over a NaN from a catalog).
    AttributeError,
    /// `sky.exceptions.ResourcesMismatchError`.
    ResourcesMismatch,
    /// `sky.exceptions.ResourcesUnavailableError`.
    ResourcesUnavailable,
    /// `sky.exceptions.NoCloudAccessError`.
    NoCloudAccess,
    /// `sky.exceptions.InvalidSkyPilotConfigError` (task schema violations).
    InvalidConfig,
    /// The task YAML could not be read (an `OSError` in Python; `sky` names
    /// the file and the cause, without a prefix).
    Unreadable,
    /// `sky.exceptions.NotSupportedError` (`Cloud.check_features_are_supported`
    /// while a `Resources` is validated: a docker image or ports on a cloud
    /// without them).
    NotSupported,
    /// `sky.exceptions.VolumeNotFoundError`.
    VolumeNotFound,
    /// `sky.exceptions.VolumeTopologyConflictError`.
    VolumeTopologyConflict,
    /// A usage error of SkyPilot's CLI (click's `UsageError`), printed as
    /// `Error: <message>`.
    Usage,
}

impl ErrorKind {
    /// The exception name as SkyPilot's CLI prints it.
    pub fn python_name(self) -> &'static str {
        match self {
            ErrorKind::ValueError => "ValueError",
            ErrorKind::AssertionError => "AssertionError",
            ErrorKind::AttributeError => "AttributeError",
            ErrorKind::ResourcesMismatch => "sky.exceptions.ResourcesMismatchError",
            ErrorKind::ResourcesUnavailable => "sky.exceptions.ResourcesUnavailableError",
            ErrorKind::NoCloudAccess => "sky.exceptions.NoCloudAccessError",
            ErrorKind::InvalidConfig => "sky.exceptions.InvalidSkyPilotConfigError",
            ErrorKind::Unreadable => "OSError",
            ErrorKind::NotSupported => "sky.exceptions.NotSupportedError",
            ErrorKind::VolumeNotFound => "sky.exceptions.VolumeNotFoundError",
            ErrorKind::VolumeTopologyConflict => "sky.exceptions.VolumeTopologyConflictError",
            ErrorKind::Usage => "Error",
        }
    }
}

/// A request that SkyPilot would reject, with SkyPilot's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RequestError {
    /// The exception kind.
    pub kind: ErrorKind,
    /// The message (may contain ANSI colour codes, as SkyPilot's do).
    pub message: String,
}

impl RequestError {
    /// A `ValueError`.
    pub fn value(message: impl Into<String>) -> Self {
        RequestError {
            kind: ErrorKind::ValueError,
            message: message.into(),
        }
    }

    /// An error of the given kind.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        RequestError {
            kind,
            message: message.into(),
        }
    }

    /// The task YAML could not be read; `message` names it and the cause.
    pub fn unreadable_entrypoint(message: impl Into<String>) -> Self {
        RequestError::new(ErrorKind::Unreadable, message)
    }
}

/// An accelerator count: Python keeps integral counts as `int`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AccCount(pub f64);

impl AccCount {
    /// Whether the count is integral (displayed without decimals).
    pub fn is_integral(self) -> bool {
        self.0.fract() == 0.0
    }
}

impl fmt::Display for AccCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_integral() && self.0.abs() < 1e16 {
            write!(f, "{}", self.0 as i64)
        } else {
            f.write_str(&py_float_str(self.0))
        }
    }
}

/// One accelerator request, e.g. `V100:4`.
#[derive(Debug, Clone, PartialEq)]
pub struct Accelerator {
    /// Name (canonicalised by validation).
    pub name: String,
    /// Count.
    pub count: AccCount,
}

impl Accelerator {
    /// `NAME:COUNT` as in the GPUS column.
    pub fn short(&self) -> String {
        format!("{}:{}", self.name, self.count)
    }

    /// Python dict repr: `{'V100': 1}`.
    pub fn dict_repr(&self) -> String {
        format!("{{{}: {}}}", py_str_repr(&self.name), self.count)
    }
}

/// Parses an accelerator string `NAME` or `NAME:COUNT` (SkyPilot's `_set_accelerators`).
pub fn parse_accelerator(text: &str) -> Result<Accelerator, RequestError> {
    let parse_error = || {
        RequestError::value(format!(
            "The \"accelerators\" field as a str should be <name> or <name>:<cnt>. Found: {}",
            py_str_repr(text)
        ))
    };
    if !text.contains(':') {
        return Ok(Accelerator {
            name: text.to_string(),
            count: AccCount(1.0),
        });
    }
    let parts: Vec<&str> = text.split(':').collect();
    if parts.len() != 2 {
        return Err(parse_error());
    }
    let count = parse_py_float(parts[1]).ok_or_else(parse_error)?;
    check_acc_count(parts[0], count, &AccCount(count).to_string())?;
    Ok(Accelerator {
        name: parts[0].to_string(),
        count: AccCount(count),
    })
}

pub(crate) fn check_acc_count(name: &str, count: f64, shown: &str) -> Result<(), RequestError> {
    if count.is_nan() || count <= 0.0 {
        return Err(RequestError::value(format!(
            "Accelerator count must be a positive number. Got: {}: {shown}.",
            py_str_repr(name)
        )));
    }
    Ok(())
}

/// Python's `float(text)`: surrounding whitespace allowed, `_` digit separators not handled.
pub fn parse_py_float(text: &str) -> Option<f64> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    t.parse::<f64>().ok()
}

/// Validates a `cpus` value and returns SkyPilot's stored string.
pub fn parse_cpus(text: &str) -> Result<String, RequestError> {
    let num = text.strip_suffix('+').unwrap_or(text);
    let Some(n) = parse_py_float(num) else {
        return Err(RequestError::value(format!(
            "The \"cpus\" field should be either a number or a string \"<number>+\". Found: {}",
            py_str_repr(text)
        )));
    };
    if n <= 0.0 || n.is_nan() {
        return Err(RequestError::value(format!(
            "The \"cpus\" field should be positive. Found: {}",
            py_str_repr(text)
        )));
    }
    Ok(text.to_string())
}

/// Validates a numeric (YAML int/float) `cpus` value: stored as Python `str(v)`.
pub fn cpus_from_number(v: f64, is_int: bool) -> Result<String, RequestError> {
    let s = if is_int {
        format!("{}", v as i64)
    } else {
        py_float_str(v)
    };
    if v <= 0.0 {
        return Err(RequestError::value(format!(
            "The \"cpus\" field should be positive. Found: {s}"
        )));
    }
    Ok(s)
}

const MEMORY_UNITS: [(&str, f64); 10] = [
    ("kb", 1024.0),
    ("ki", 1024.0),
    ("mb", 1048576.0),
    ("mi", 1048576.0),
    ("gb", 1073741824.0),
    ("gi", 1073741824.0),
    ("tb", 1099511627776.0),
    ("ti", 1099511627776.0),
    ("pb", 1125899906842624.0),
    ("pi", 1125899906842624.0),
];

/// Parses a `memory` value as SkyPilot's `parse_memory_resource` (float, `+` and `x` allowed).
pub fn parse_memory(text: &str) -> Result<String, RequestError> {
    let error = || {
        RequestError::value(format!(
            "\"memory\" field should be a number (e.g. \"16\") or \"<number><unit>\" where unit is one of KB/MB/GB/TB/PB (e.g. \"16GB\") or \"<number>+\" for \"at least\". Got: {}",
            py_str_repr(text)
        ))
    };
    let mut rest = text;
    let mut plus = "";
    if let Some(r) = rest.strip_suffix('+') {
        rest = r;
        plus = "+";
    }
    let mut x = "";
    if let Some(r) = rest.strip_suffix('x') {
        rest = r;
        x = "x";
    }
    let stored = if parse_py_float(rest).is_some() {
        format!("{rest}{plus}{x}")
    } else {
        let lower = rest.to_ascii_lowercase();
        let mut found = None;
        for (unit, mult) in MEMORY_UNITS {
            if let Some(num) = lower.strip_suffix(unit)
                && let Some(v) = parse_py_float(num)
            {
                found = Some(format!(
                    "{}{plus}{x}",
                    py_float_str(v * mult / 1073741824.0)
                ));
                break;
            }
        }
        found.ok_or_else(error)?
    };
    let number = stored.trim_end_matches(['+', 'x']);
    let gb = parse_py_float(number).ok_or_else(error)?;
    if gb <= 0.0 {
        return Err(RequestError::value(format!(
            "The \"memory\" field should be positive. Found: {}",
            py_str_repr(&stored)
        )));
    }
    Ok(stored)
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

/// Disk tiers (`--disk-tier`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DiskTier {
    /// `low`.
    Low,
    /// `medium`.
    Medium,
    /// `high`.
    High,
    /// `ultra`.
    Ultra,
    /// `best`.
    Best,
}

impl DiskTier {
    /// Parses a tier name (case-insensitive).
    pub fn parse(text: &str) -> Result<DiskTier, RequestError> {
        Ok(match text.to_ascii_lowercase().as_str() {
            "low" => DiskTier::Low,
            "medium" => DiskTier::Medium,
            "high" => DiskTier::High,
            "ultra" => DiskTier::Ultra,
            "best" => DiskTier::Best,
            _ => {
                return Err(RequestError::value(format!(
                    "Invalid disk_tier {}. Please use one of ['low', 'medium', 'high', 'ultra', 'best'].",
                    py_str_repr(text)
                )));
            }
        })
    }

    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            DiskTier::Low => "low",
            DiskTier::Medium => "medium",
            DiskTier::High => "high",
            DiskTier::Ultra => "ultra",
            DiskTier::Best => "best",
        }
    }
}

/// One requested (or, once filled in, launchable) resource.
#[derive(Debug, Clone, PartialEq)]
pub struct Resources {
    /// Cloud.
    pub cloud: Option<CloudId>,
    /// Region (Kubernetes: the context).
    pub region: Option<String>,
    /// Zone.
    pub zone: Option<String>,
    /// Instance type.
    pub instance_type: Option<String>,
    /// `cpus` as SkyPilot stores it (`"4"`, `"4+"`, `"8.0"`).
    pub cpus: Option<String>,
    /// `memory` as SkyPilot stores it (`"32"`, `"32.0"`, `"32+"`, `"4x"`).
    pub memory: Option<String>,
    /// Requested accelerator.
    pub accelerator: Option<Accelerator>,
    /// TPU VM (GCP `accelerator_args.tpu_vm`, default true).
    pub tpu_vm: bool,
    /// `accelerator_args` as SkyPilot shows them: (key, Python repr of the value).
    pub accelerator_args: Option<Vec<(String, String)>>,
    /// Spot instances.
    pub use_spot: bool,
    /// Whether `use_spot` was given explicitly.
    pub use_spot_specified: bool,
    /// Disk size in GB.
    pub disk_size: u64,
    /// Disk tier.
    pub disk_tier: Option<DiskTier>,
    /// Ports to open.
    pub ports: Option<Vec<String>>,
    /// Image id(s) and Docker image (`image_id`).
    pub image: Option<ImageSpec>,
    /// Local disk, normalised (`nvme:500+`).
    pub local_disk: Option<String>,
    /// Network tier.
    pub network_tier: Option<NetworkTier>,
    /// Labels (tags) for the instances, in the order given.
    pub labels: Option<Vec<(String, String)>>,
    /// Scheduling priority (`priority`, or a priority class from `--priority`).
    pub priority: Option<Priority>,
    /// `job_recovery` strategy (upper-cased), kept to warn that an unmanaged
    /// launch ignores it.
    pub job_recovery: Option<String>,
    /// `_cluster_config_overrides`: the task's `config:` block merged with
    /// `--config`, as SkyPilot carries them on each resource.
    pub config_overrides: Option<serde_yaml_ng::Mapping>,
    /// Price ceiling.
    pub max_hourly_cost: Option<f64>,
    /// Expanded from a memory-based GPU spec: suppress "No resource satisfying".
    pub no_missing_accel_warnings: bool,
}

impl Default for Resources {
    fn default() -> Self {
        Resources {
            cloud: None,
            region: None,
            zone: None,
            instance_type: None,
            cpus: None,
            memory: None,
            accelerator: None,
            tpu_vm: true,
            accelerator_args: None,
            use_spot: false,
            use_spot_specified: false,
            disk_size: DEFAULT_DISK_SIZE_GB,
            disk_tier: None,
            ports: None,
            image: None,
            local_disk: None,
            network_tier: None,
            labels: None,
            priority: None,
            job_recovery: None,
            config_overrides: None,
            max_hourly_cost: None,
            no_missing_accel_warnings: false,
        }
    }
}

impl Resources {
    /// `[Spot]` or empty.
    pub fn spot_str(&self) -> &'static str {
        if self.use_spot { "[Spot]" } else { "" }
    }

    /// SkyPilot's `repr(Resources)`; `memory` is the (possibly inferred) memory text.
    pub fn repr_with(
        &self,
        inferred_memory: Option<&str>,
        accelerator: Option<&Accelerator>,
    ) -> String {
        let mut hw = String::new();
        if let Some(it) = &self.instance_type {
            hw.push_str(it);
        }
        hw.push_str(self.spot_str());
        if let Some(c) = &self.cpus {
            hw.push_str(&format!(", cpus={c}"));
        }
        if let Some(m) = self.memory.as_deref().or(inferred_memory) {
            hw.push_str(&format!(", mem={m}"));
        }
        if let Some(a) = accelerator.or(self.accelerator.as_ref()) {
            hw.push_str(&format!(", {}", a.dict_repr()));
            if let Some(args) = &self.accelerator_args {
                let items: Vec<String> = args
                    .iter()
                    .map(|(k, v)| format!("{}: {v}", py_str_repr(k)))
                    .collect();
                hw.push_str(&format!(", accelerator_args={{{}}}", items.join(", ")));
            }
        }
        if let Some(img) = &self.image {
            hw.push_str(&format!(", image_id={}", img.repr()));
        }
        if let Some(t) = self.disk_tier {
            hw.push_str(&format!(", disk_tier={}", t.as_str()));
        }
        if let Some(t) = self.network_tier {
            hw.push_str(&format!(", network_tier={}", t.as_str()));
        }
        if self.disk_size != DEFAULT_DISK_SIZE_GB {
            hw.push_str(&format!(", disk_size={}", self.disk_size));
        }
        if let Some(l) = &self.local_disk {
            hw.push_str(&format!(", local_disk={l}"));
        }
        if let Some(m) = self.max_hourly_cost {
            hw.push_str(&format!(", max_cost=${}/hr", py_float_str(m)));
        }
        if let Some(p) = &self.ports {
            let items: Vec<String> = p.iter().map(|s| py_str_repr(s)).collect();
            hw.push_str(&format!(", ports=[{}]", items.join(", ")));
        }
        let hw = hw.trim_start_matches([',', ' ']);
        let cloud = self.cloud.map_or("<Cloud>", |c| c.repr());
        format!("{cloud}({hw})")
    }

    /// `repr_with_region_zone`: the repr with `, region=..., zone=...` before the closing paren.
    pub fn repr_with_region_zone_with(
        &self,
        inferred_memory: Option<&str>,
        accelerator: Option<&Accelerator>,
    ) -> String {
        let mut base = self.repr_with(inferred_memory, accelerator);
        let mut extra = String::new();
        if let Some(r) = &self.region {
            extra.push_str(&format!(", region={}", r.strip_prefix("ssh-").unwrap_or(r)));
        }
        if let Some(z) = &self.zone {
            extra.push_str(&format!(", zone={z}"));
        }
        if base.ends_with(')') {
            base.pop();
            base.push_str(&extra);
            base.push(')');
        } else {
            base.push_str(&extra);
        }
        base
    }
}

/// Parsed `infra` (`cloud[/region[/zone]]`, `*` = unset).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Infra {
    /// Cloud.
    pub cloud: Option<CloudId>,
    /// Region or Kubernetes context.
    pub region: Option<String>,
    /// Zone.
    pub zone: Option<String>,
}

/// Parses an `infra` string as SkyPilot's `InfraInfo.from_str`.
pub fn parse_infra(text: &str) -> Result<Infra, RequestError> {
    let trimmed = text.trim().trim_matches('/');
    if trimmed.is_empty() {
        return Ok(Infra::default());
    }
    if trimmed.contains("//") {
        return Err(RequestError::value(format!(
            "Invalid infra format: {text}. Format should not contain empty parts (e.g., double slashes \"//\")."
        )));
    }
    let parts: Vec<&str> = trimmed.split('/').map(str::trim).collect();
    let unset = |s: &str| if s == "*" { None } else { Some(s.to_string()) };
    let cloud_text = parts[0].to_ascii_lowercase();
    let cloud = if cloud_text == "*" {
        None
    } else {
        Some(
            cloud_text
                .parse::<CloudId>()
                .map_err(|e| RequestError::value(e.to_string()))?,
        )
    };
    if cloud == Some(CloudId::Kubernetes) {
        let region = if parts.len() > 1 {
            unset(&parts[1..].join("/"))
        } else {
            None
        };
        return Ok(Infra {
            cloud,
            region,
            zone: None,
        });
    }
    if cloud == Some(CloudId::Ssh) {
        // The rest is the pool, whose context is `ssh-<pool>`; SkyPilot adds
        // the prefix before it looks for `*`, so `ssh/*` names pool `*`.
        let pool = parts[1..].join("/");
        return Ok(Infra {
            cloud,
            region: (!pool.is_empty()).then(|| format!("ssh-{pool}")),
            zone: None,
        });
    }
    if parts.len() > 3 {
        return Err(RequestError::value(format!(
            "Invalid infra format: {text}. Expected format is \"cloud\", \"cloud/region\", or \"cloud/region/zone\"."
        )));
    }
    Ok(Infra {
        cloud,
        region: parts.get(1).and_then(|s| unset(s)),
        zone: parts.get(2).and_then(|s| unset(s)),
    })
}

/// `infra.formatted_str()`: `AWS (us-east-1)`, `-` without a cloud; long names middle-truncated.
pub fn infra_display(cloud: Option<CloudId>, region: Option<&str>, zone: Option<&str>) -> String {
    let Some(cloud) = cloud else {
        return "-".into();
    };
    let loc = match (zone, region) {
        // A Slurm zone is a partition: the cluster is shown instead.
        (Some(z), _) if cloud != CloudId::Slurm => Some(z.to_string()),
        (_, None) => None,
        (_, Some(r)) => Some(r.strip_prefix("ssh-").unwrap_or(r).to_string()),
    };
    match loc {
        None => cloud.repr().to_string(),
        Some(l) => format!("{} ({})", cloud.repr(), truncate_middle(&l, 25)),
    }
}

fn truncate_middle(s: &str, max: usize) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= max {
        return s.to_string();
    }
    let keep = (max - 3) / 2;
    let head: String = chars[..keep].iter().collect();
    let tail: String = chars[chars.len() - keep..].iter().collect();
    format!("{head}...{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_float_strings() {
        for (x, want) in [
            (32.0, "32.0"),
            (0.5, "0.5"),
            (1e-5, "1e-05"),
            (16.0, "16.0"),
            (1.5, "1.5"),
        ] {
            assert_eq!(py_float_str(x), want, "{x}");
        }
    }

    #[test]
    fn memory_forms() {
        for (input, want) in [
            ("32", Ok("32")),
            ("32+", Ok("32+")),
            ("32GB", Ok("32.0")),
            ("16384MB", Ok("16.0")),
            ("1TB", Ok("1024.0")),
            ("4x", Ok("4x")),
            ("abc", Err(())),
            ("0", Err(())),
        ] {
            let got = parse_memory(input).map_err(|_| ());
            assert_eq!(got.as_deref().map_err(|_| ()), want, "{input}");
        }
    }

    #[test]
    fn accelerator_forms() {
        let a = parse_accelerator("V100:0.5").unwrap();
        assert_eq!(a.short(), "V100:0.5");
        assert_eq!(parse_accelerator("V100: 0.5").unwrap().count, AccCount(0.5));
        assert_eq!(
            parse_accelerator("H100:8").unwrap().dict_repr(),
            "{'H100': 8}"
        );
        assert!(parse_accelerator("H100:abc").is_err());
        assert!(parse_accelerator("a:b:c").is_err());
        assert!(parse_accelerator("H100:0").is_err());
    }

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
    fn infra_forms() {
        let i = parse_infra("aws/us-east-1/us-east-1a").unwrap();
        assert_eq!(
            (i.cloud, i.region.as_deref(), i.zone.as_deref()),
            (Some(CloudId::Aws), Some("us-east-1"), Some("us-east-1a"))
        );
        let k = parse_infra("k8s/my/ctx").unwrap();
        assert_eq!(k.region.as_deref(), Some("my/ctx"));
        // SSH: the rest is the pool, as the context `ssh-<pool>`.
        for (text, want) in [
            ("ssh", None),
            ("ssh/lab", Some("ssh-lab")),
            ("SSH/a/b", Some("ssh-a/b")),
            ("ssh/*", Some("ssh-*")),
        ] {
            let s = parse_infra(text).unwrap();
            assert_eq!(
                (s.cloud, s.region.as_deref(), s.zone),
                (Some(CloudId::Ssh), want, None),
                "{text}"
            );
        }
        // Slurm shows the cluster, never the partition; SSH the pool.
        assert_eq!(
            infra_display(Some(CloudId::Slurm), Some("campus"), Some("a100")),
            "Slurm (campus)"
        );
        assert_eq!(infra_display(Some(CloudId::Slurm), None, None), "Slurm");
        assert_eq!(
            infra_display(Some(CloudId::Ssh), Some("ssh-lab"), None),
            "SSH (lab)"
        );
        assert!(parse_infra("aws//x").is_err());
        assert!(parse_infra("aws/a/b/c").is_err());
        assert!(parse_infra("awz").unwrap_err().message.contains("aws"));
        assert_eq!(
            infra_display(
                Some(CloudId::Kubernetes),
                Some("gke-prod-cluster-with-a-long-name"),
                None
            ),
            "Kubernetes (gke-prod-cl...a-long-name)"
        );
    }
}
