//! Resource requests as SkyPilot parses them (`sky/resources.py::Resources`,
//! `sky/utils/infra_utils.py::InfraInfo`, `sky/utils/resources_utils.py`).
//!
//! Fields keep SkyPilot's textual forms (`cpus = "4+"`, `memory = "32.0"`)
//! because those strings appear verbatim in messages and drive the catalog
//! filters.
//!
//! This module holds [`Resources`] and its `repr`; the fields are parsed in
//! `hardware.rs` (accelerators, CPUs, memory, disk tier), `fields.rs`
//! (network tier, local disk, ports, images, labels, priority) and
//! `infra.rs` (`infra` strings); `error.rs` holds [`RequestError`], what
//! every parser of a request returns; `image_tags.rs` the `skypilot:` image
//! tags of each cloud's `images.csv`.

mod error;
mod fields;
mod hardware;
mod image_tags;
mod infra;

pub use error::{ErrorKind, RequestError};
pub use fields::{
    ImageSpec, NetworkTier, PRIORITY_RANGE, Priority, check_priority, label_error,
    normalize_local_disk, parse_ports,
};
pub(crate) use hardware::check_acc_count;
pub use hardware::{
    AccCount, Accelerator, DiskTier, cpus_from_number, parse_accelerator, parse_cpus, parse_memory,
    parse_py_float,
};
pub use image_tags::{IMAGE_TAG_CLOUDS, ImageTags, invalid_tag};
pub use infra::{Infra, infra_display, parse_infra};

use crate::cloud::CloudId;
use crate::pytext::{py_float_str, py_str_repr};

/// Default disk size in GB (SkyPilot's `DEFAULT_DISK_SIZE_GB`).
pub const DEFAULT_DISK_SIZE_GB: u64 = 256;

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
