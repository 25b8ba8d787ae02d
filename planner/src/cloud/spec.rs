//! What a cloud *is*, as data: its names, catalog, credentials, the features
//! it lacks and the rules its catalog is queried by. One [`CloudSpec`] per
//! cloud lives in [`super::table`]; a plain catalog cloud is nothing more
//! than its entry there.

use super::{CloudId, Feature};

/// Everything the planner and the adapters need to know about one cloud
/// that is a fact, not a procedure.
#[derive(Debug)]
pub struct CloudSpec {
    /// The cloud.
    pub id: CloudId,
    /// Lower-case name: `--infra`, catalog folders, `SKY_ENABLED_CLOUDS`
    /// (SkyPilot's registry name).
    pub name: &'static str,
    /// Other names SkyPilot's registry accepts (`k8s`).
    pub aliases: &'static [&'static str],
    /// SkyPilot's `_REPR`: how tables and messages name it.
    pub repr: &'static str,
    /// Whether it has a `vms.csv` under `<catalog root>/<name>/` (Kubernetes
    /// builds a virtual catalog from its nodes instead).
    pub has_catalog: bool,
    /// How `sky check` finds out whether it can be used.
    pub detection: Detection,
    /// `_CLOUD_UNSUPPORTED_FEATURES` (or the static part of
    /// `_unsupported_features_for_resources`): feature → SkyPilot's reason.
    pub unsupported: &'static [(Feature, &'static str)],
    /// How its catalog answers requests (`None`: a planner of its own,
    /// see [`crate::feasibility`]).
    pub catalog_rules: Option<CatalogRules>,
}

/// A catalog SkyPilot builds on the user's machine instead of downloading
/// it (vSphere's, from the vCenter inventory).
#[derive(Debug)]
pub struct LocalCatalog {
    /// The cloud.
    pub cloud: CloudId,
    /// What builds the file, as advice to a user who lacks it.
    pub built_by: &'static str,
    /// The header SkyPilot reads instead when the file is absent (so the
    /// cloud has an empty catalog rather than none).
    pub header: &'static str,
}

/// How a cloud's credentials are detected.
#[derive(Debug)]
pub enum Detection {
    /// Present when any of these exists; otherwise `hint` says how to set
    /// them up. There is nothing to ask over the network.
    Files {
        /// Where to look, in order.
        credentials: &'static [Credential],
        /// The one-line setup hint `sky check` shows when none exists.
        hint: &'static str,
    },
    /// The cloud's adapter detects (and checks) credentials itself: AWS,
    /// GCP and Kubernetes talk to their APIs.
    Adapter,
}

/// One place a credential can be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Credential {
    /// A file below the home directory (`.lambda_cloud/lambda_keys`).
    HomeFile(&'static str),
    /// An environment variable naming a credential file.
    FileFromEnv(&'static str),
    /// An environment variable holding the credential itself.
    Env(&'static str),
    /// A file below the home directory that must define `keys`: SkyPilot
    /// reads it and refuses the cloud when a key is missing (IBM's
    /// `_check_credentials`, `scp_utils.SCPClient`, vSphere's
    /// `_check_compute_credentials`). A file lacking keys is reported with
    /// the keys it lacks, never with any value it holds.
    HomeFileKeys {
        /// Path below the home directory (`.ibm/credentials.yaml`).
        path: &'static str,
        /// How the file writes its keys.
        syntax: KeySyntax,
        /// The keys it must define. In YAML, `list[].key` asks every item
        /// of the list `list` for `key`.
        keys: &'static [&'static str],
    },
}

/// How a credential file writes its keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySyntax {
    /// A YAML mapping, as `yaml.safe_load` reads it.
    Yaml,
    /// `key = value` lines: SCP's client keeps the (stripped) lines that
    /// contain ` = ` and splits them there.
    Assignments,
}

/// The parameters of SkyPilot's generic catalog queries for one cloud
/// (`_get_feasible_launchable_resources` and `get_default_instance_type` in
/// `sky/clouds/<cloud>.py`, which differ per cloud only in these values).
#[derive(Debug, Clone, Copy)]
pub struct CatalogRules {
    /// vCPUs of the default instance type when a request names neither
    /// cpus nor memory (`_DEFAULT_NUM_VCPUS`, as `8+`).
    pub default_cpus: Option<&'static str>,
    /// Memory of the default instance type, usually a multiple of the vCPUs
    /// (`_DEFAULT_MEMORY_CPU_RATIO` as `4x`).
    pub default_memory: Option<&'static str>,
    /// Instance families the default instance type is chosen from.
    pub default_family: InstanceFamily,
    /// The accelerator search ignores the request's memory (RunPod passes
    /// `memory=None` to `get_instance_type_for_accelerator`).
    pub accelerator_ignores_memory: bool,
    /// Accelerator candidates keep the request's memory (RunPod's
    /// `_make` copies `memory`), so it shows in messages.
    pub candidates_keep_memory: bool,
    /// An explicit instance type is feasible only where it is offered in
    /// the requested region/zone (AWS checks `regions_with_offering`).
    pub instance_type_needs_offering: bool,
    /// No instance type supports `disk_tier: ultra` (Azure's disk-tier
    /// filter rejects every type).
    pub rejects_ultra_disk: bool,
}

impl CatalogRules {
    /// Rules with no default instance type and no quirks.
    pub const PLAIN: CatalogRules = CatalogRules {
        default_cpus: None,
        default_memory: None,
        default_family: InstanceFamily::Any,
        accelerator_ignores_memory: false,
        candidates_keep_memory: false,
        instance_type_needs_offering: false,
        rejects_ultra_disk: false,
    };
}

/// A set of instance types, by name.
#[derive(Debug, Clone, Copy)]
pub enum InstanceFamily {
    /// Every instance type.
    Any,
    /// Types whose name starts with one of these (`m6i.`).
    Prefixes(&'static [&'static str]),
    /// Azure families as SkyPilot derives them from the name
    /// (`Standard_D8s_v5` → `Ds_v5`).
    Azure(&'static [&'static str]),
}

impl InstanceFamily {
    /// Whether `instance_type` belongs to the family.
    pub fn contains(&self, instance_type: &str) -> bool {
        match self {
            InstanceFamily::Any => true,
            InstanceFamily::Prefixes(prefixes) => {
                prefixes.iter().any(|p| instance_type.starts_with(p))
            }
            InstanceFamily::Azure(families) => {
                azure_family(instance_type).is_some_and(|f| families.iter().any(|want| *want == f))
            }
        }
    }
}

/// `sky/catalog/azure_catalog.py::_get_instance_family`: `Standard_D8s_v5` →
/// `Ds_v5`, `Standard_E4-2s_v5` → `E_s_v5`, `_Promo` sizes as their family.
fn azure_family(instance_type: &str) -> Option<String> {
    if instance_type.starts_with("Basic_A") {
        return Some("basic_a".into());
    }
    let rest = instance_type.strip_prefix("Standard_")?;
    let rest = match rest.find("_Promo") {
        // SkyPilot drops as many characters as `_Promo` has, from the end.
        Some(_) => &rest[..rest.len().saturating_sub("_Promo".len())],
        None => rest,
    };
    let letters_end = rest.find(|c: char| !c.is_ascii_alphabetic())?;
    let (letters, tail) = rest.split_at(letters_end);
    let digits_end = tail
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(tail.len());
    if letters.is_empty() || digits_end == 0 {
        return None;
    }
    let tail = &tail[digits_end..];
    if rest.contains('-') {
        // `([A-Za-z]+)([0-9]+)(-)([0-9]+)(.*)` → group 1 + '_' + group 5.
        let after_dash = tail.strip_prefix('-')?;
        let n = after_dash
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(after_dash.len());
        if n == 0 {
            return None;
        }
        Some(format!("{letters}_{}", &after_dash[n..]))
    } else {
        Some(format!("{letters}{tail}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn azure_families_are_read_from_the_size_name() {
        let f = InstanceFamily::Azure(&["Ds_v5", "Fs_v2"]);
        assert!(f.contains("Standard_D8s_v5"));
        assert!(f.contains("Standard_F16s_v2"));
        assert!(!f.contains("Standard_E8s_v5"));
        assert!(!f.contains("D8s_v5"));
        assert_eq!(
            azure_family("Standard_D8s_v5_Promo").as_deref(),
            Some("Ds_v5")
        );
        assert_eq!(azure_family("Standard_E4-2s_v5").as_deref(), Some("E_s_v5"));
        assert_eq!(azure_family("Basic_A1").as_deref(), Some("basic_a"));
    }
}
