//! What a cloud *is*, as data: its names, catalog, credentials, the features
//! it lacks and the rules its catalog is queried by. One [`CloudSpec`] per
//! cloud lives in the cloud table (`cloud/table/<cloud>.rs`); a plain
//! catalog cloud is nothing more than its entry there.

use super::{CloudId, Feature, StorageRule};

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
    /// The class attribute `_REPR` where it differs from how objects print
    /// (`None`: the same as `repr`), for messages that format the class.
    pub class_repr: Option<&'static str>,
    /// Whether it has a `vms.csv` under `<catalog root>/<name>/` (Kubernetes
    /// builds a virtual catalog from its nodes instead).
    pub has_catalog: bool,
    /// The catalog SkyPilot builds on the user's machine instead of
    /// downloading it, if it does (then it is read from there, never bundled).
    pub local_catalog: Option<LocalCatalog>,
    /// The name its catalog module lists it under in `sky gpus list`
    /// (`list_accelerators_impl`'s first argument: `AWS`, `scp`, `nebius`);
    /// `None`: not listed from a catalog (Kubernetes, SSH Node Pools and
    /// Slurm list their nodes).
    pub listing_label: Option<&'static str>,
    /// SkyPilot's error when a request names a zone, for a catalog cloud
    /// without zones (its `validate_region_zone`); `None`: zones are
    /// checked against the catalog, or by the cloud's own rules.
    pub no_zones: Option<&'static str>,
    /// How `sky check` checks its storage (`_check_storage_credentials`).
    pub storage: StorageRule,
    /// Whether and how often SkyPilot downloads its `vms.csv` from the hosted
    /// catalog (`read_catalog(..., pull_frequency_hours=_PULL_FREQUENCY_HOURS)`
    /// in `sky/catalog/<cloud>_catalog.py`).
    pub catalog_pull: CatalogPull,
    /// How `sky check` finds out whether it can be used.
    pub detection: Detection,
    /// `_CLOUD_UNSUPPORTED_FEATURES` (or the static part of
    /// `_unsupported_features_for_resources`): feature → SkyPilot's reason.
    pub unsupported: &'static [(Feature, &'static str)],
    /// How its catalog answers requests (`None`: a planner of its own,
    /// see [`crate::feasibility`]).
    pub catalog_rules: Option<CatalogRules>,
}

/// How SkyPilot keeps a cloud's `vms.csv` in `~/.sky/catalogs/v8/` up to
/// date (`sky/catalog/common.py::read_catalog` and its `_need_update`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatalogPull {
    /// SkyPilot never downloads it: the catalog is built locally (vSphere,
    /// Slurm, SSH) or virtual (Kubernetes).
    NotHosted,
    /// Downloaded when missing and never refreshed (`read_catalog` without
    /// `pull_frequency_hours`).
    IfMissing,
    /// Downloaded when missing, and again when the file is older than this
    /// many hours and not edited by hand (`_PULL_FREQUENCY_HOURS`).
    EveryHours(u32),
}

impl CatalogPull {
    /// The pull period in hours, when there is one.
    pub fn hours(self) -> Option<u32> {
        match self {
            CatalogPull::EveryHours(h) => Some(h),
            CatalogPull::NotHosted | CatalogPull::IfMissing => None,
        }
    }

    /// Whether SkyPilot's hosted catalog has the file at all.
    pub fn is_hosted(self) -> bool {
        self != CatalogPull::NotHosted
    }
}

/// A catalog SkyPilot builds on the user's machine instead of downloading
/// it (vSphere's, from the vCenter inventory).
#[derive(Debug)]
pub struct LocalCatalog {
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
    /// Several environment variables that are only a credential together
    /// (Verda's `VERDA_CLIENT_ID` and `VERDA_CLIENT_SECRET`). Set counts,
    /// even when empty, as Python's `'NAME' in os.environ` does.
    EnvAll(&'static [&'static str]),
    /// A file below the home directory that is a credential only when its
    /// content passes `check`; when it exists but fails, `sky check` says
    /// `invalid` (SkyPilot's message for that case) instead of the hint.
    HomeFileChecked {
        /// The file, relative to the home directory.
        path: &'static str,
        /// What its content must satisfy.
        check: FileCheck,
        /// The one-line reason shown when the file exists but fails `check`.
        invalid: &'static str,
    },
    /// Several environment variables that only together are a credential
    /// (Mithril's `MITHRIL_API_KEY` + `MITHRIL_PROJECT`): present when every
    /// one is set and non-empty.
    AllEnv(&'static [&'static str]),
    /// `file` below the folder the variable `dir_var` names, or below the
    /// home-relative `default_dir` when that variable is unset or empty
    /// (`$XDG_CONFIG_HOME/doctl/config.yaml`, else
    /// `~/.config/doctl/config.yaml`).
    FileInEnvDir {
        /// The variable naming the folder (`XDG_CONFIG_HOME`).
        dir_var: &'static str,
        /// The folder below home used without it (`.config`).
        default_dir: &'static str,
        /// The file below the folder (`doctl/config.yaml`).
        file: &'static str,
    },
    /// A file below the home directory whose content, with surrounding
    /// whitespace stripped, starts with `prefix` (Fluidstack's
    /// `~/.fluidstack/api_key` must read `api_key…`).
    HomeFileStartingWith {
        /// The file, relative to home.
        path: &'static str,
        /// What its content must start with.
        prefix: &'static str,
    },
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

/// A check of a credential file's content, as a cloud's
/// `_check_compute_credentials` makes it before any network call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileCheck {
    /// Not empty once surrounding whitespace is stripped (Shadeform reads
    /// `~/.shadeform/api_key` and strips it).
    NotBlank,
    /// An INI file, read as Python's `configparser` reads it, with a
    /// non-blank `key` in `section` (Seeweb's `parser['DEFAULT']['api_key']`).
    IniKey {
        /// Section name (`DEFAULT`), compared exactly.
        section: &'static str,
        /// Option name, compared case-insensitively as `configparser` does.
        key: &'static str,
    },
    /// A JSON object in which every key is present with a truthy value
    /// (Verda's `client_id` and `client_secret` in `~/.verda/config.json`).
    JsonKeys(&'static [&'static str]),
}

impl FileCheck {
    /// Whether a credential file with this content passes the check. Pure:
    /// the adapter reads the file and never shows what it read.
    pub fn accepts(&self, content: &[u8]) -> bool {
        let Ok(text) = std::str::from_utf8(content) else {
            // Python reads these files as UTF-8 text and fails otherwise.
            return false;
        };
        match *self {
            FileCheck::NotBlank => !text.trim().is_empty(),
            FileCheck::IniKey { section, key } => {
                ini_value(text, section, key).is_some_and(|v| !v.trim().is_empty())
            }
            FileCheck::JsonKeys(keys) => match serde_json::from_str::<serde_json::Value>(text) {
                Ok(serde_json::Value::Object(map)) => {
                    keys.iter().all(|k| map.get(*k).is_some_and(json_truthy))
                }
                _ => false,
            },
        }
    }
}

/// Python's truthiness of a JSON value (`not config.get(key)`).
fn json_truthy(v: &serde_json::Value) -> bool {
    use serde_json::Value;
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// `configparser.ConfigParser().read(...)[section][key]` for the files
/// SkyPilot reads this way: `None` where Python raises (no section header
/// before the first option, a line that is neither, a duplicate section or
/// option, a `%` that `BasicInterpolation` rejects) or the key is absent.
/// Full-line `#`/`;` comments, `=`/`:` delimiters, case-insensitive option
/// names and indented continuation lines are honoured.
fn ini_value(text: &str, section: &str, key: &str) -> Option<String> {
    let key = key.to_lowercase();
    let mut current: Option<String> = None;
    let mut sections: Vec<String> = Vec::new();
    let mut options: Vec<(String, String)> = Vec::new();
    let mut found: Option<String> = None;
    // Where the last option's value lives, and its indentation.
    let mut continuing: Option<(bool, usize)> = None;
    for line in text.lines() {
        let stripped = line.trim();
        if stripped.is_empty() || stripped.starts_with('#') || stripped.starts_with(';') {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        if let Some((is_key, level)) = continuing
            && indent > level
        {
            if is_key && let Some(v) = found.as_mut() {
                v.push('\n');
                v.push_str(stripped);
            }
            continue;
        }
        if let Some(rest) = stripped.strip_prefix('[')
            && let Some(end) = rest.rfind(']')
            && end > 0
        {
            let name = rest[..end].to_string();
            if sections.contains(&name) {
                return None;
            }
            sections.push(name.clone());
            current = Some(name);
            continuing = None;
            continue;
        }
        let sect = current.as_ref()?;
        let delim = stripped.find(['=', ':'])?;
        let option = stripped[..delim].trim_end().to_lowercase();
        if option.is_empty() || options.iter().any(|(s, o)| s == sect && *o == option) {
            return None;
        }
        options.push((sect.clone(), option.clone()));
        let value = stripped[delim + 1..].trim().to_string();
        let is_key = sect == section && option == key;
        if is_key {
            found = Some(value);
        }
        continuing = Some((is_key, indent));
    }
    let value = found?;
    // BasicInterpolation: `%%` is a literal `%`; anything else after a `%`
    // is a reference or an error, neither of which is a plain key.
    let mut chars = value.chars();
    let mut out = String::with_capacity(value.len());
    while let Some(c) = chars.next() {
        if c == '%' && chars.next() != Some('%') {
            return None;
        }
        out.push(c);
    }
    Some(out)
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
    /// The default vCPUs apply whenever the request names no vCPUs, even
    /// when it names memory (`oci_catalog.get_default_instance_type`; AWS
    /// and the others default them only when neither is named).
    pub default_cpus_with_memory: bool,
    /// `get_default_instance_type` keeps only types whose
    /// `check_disk_tier` accepts the request's tier, and that refuses ultra
    /// for every type (`oci_catalog`, `nebius_catalog`): an ultra request
    /// has no default instance type, while accelerator and explicit types
    /// are not filtered.
    pub default_rejects_ultra_disk: bool,
    /// The default instance type is chosen over every region and zone, even
    /// when the request names one (`yotta_catalog.get_default_instance_type`
    /// drops `region` and `zone` before `get_instance_type_for_cpus_mem_impl`).
    pub default_ignores_location: bool,
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
        default_cpus_with_memory: false,
        default_rejects_ultra_disk: false,
        default_ignores_location: false,
    };
}

/// A set of instance types, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    fn credential_file_checks_read_content_as_skypilot_does() {
        let ini = FileCheck::IniKey {
            section: "DEFAULT",
            key: "api_key",
        };
        let json = FileCheck::JsonKeys(&["client_id", "client_secret"]);
        let cases: &[(FileCheck, &str, bool)] = &[
            (FileCheck::NotBlank, "sk-123\n", true),
            (FileCheck::NotBlank, " \n\t", false),
            (FileCheck::NotBlank, "", false),
            (ini, "[DEFAULT]\napi_key = tok\n", true),
            (ini, "# Seeweb\n[DEFAULT]\nAPI_KEY: tok\n", true),
            (ini, "[DEFAULT]\napi_key =\n", false),
            (ini, "[DEFAULT]\napi_key =   \n", false),
            // No section header: configparser raises MissingSectionHeaderError.
            (ini, "api_key = tok\n", false),
            (ini, "[other]\napi_key = tok\n", false),
            (ini, "[DEFAULT]\napi_key = a\napi_key = b\n", false),
            (ini, "[DEFAULT]\nnot an option\napi_key = tok\n", false),
            (ini, "[DEFAULT]\napi_key = 50%%off\n", true),
            (ini, "[DEFAULT]\napi_key = 50%off\n", false),
            (ini, "[DEFAULT]\napi_key =\n  continued\n", true),
            (json, r#"{"client_id": "id", "client_secret": "s"}"#, true),
            (json, r#"{"client_id": "id", "client_secret": ""}"#, false),
            (json, r#"{"client_id": "id"}"#, false),
            (json, r#"{"client_id": 0, "client_secret": "s"}"#, false),
            (json, r#"["client_id", "client_secret"]"#, false),
            (json, "{not json", false),
        ];
        for (check, content, ok) in cases {
            assert_eq!(
                check.accepts(content.as_bytes()),
                *ok,
                "{check:?} {content:?}"
            );
        }
        assert!(!FileCheck::NotBlank.accepts(&[0xff, 0xfe]));
    }

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
