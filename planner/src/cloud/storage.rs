//! Storage as `sky check` knows it: which clouds check a storage
//! capability and how ([`StorageRule`]), and the storage-only providers
//! SkyPilot 0.14.1 lists beside the clouds (`sky/check.py::STORAGE_ONLY_CLOUDS`:
//! Cloudflare R2, CoreWeave, VAST Data, Hugging Face), which have no
//! catalog and are never planned on.

use std::fmt;

use super::CloudId;

/// How a cloud's storage capability is checked (`Cloud._check_storage_credentials`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StorageRule {
    /// No `_check_storage_credentials`: SkyPilot's base class raises
    /// `NotSupportedError`, and the capability is not shown.
    Unsupported,
    /// The storage check is the compute check (`return cls._check_credentials()`).
    SameAsCompute,
    /// A check of its own (S3 `ListBuckets`, IAM storage permissions, a
    /// profile file, ...), run by `sky check` only.
    Own,
}

impl CloudId {
    /// How this cloud's storage capability is checked, from
    /// `sky/clouds/<cloud>.py::_check_storage_credentials` in 0.14.1 (its
    /// entry of the cloud table).
    pub fn storage_rule(self) -> StorageRule {
        self.spec().storage
    }
}

/// A storage-only provider (`sky/check.py::STORAGE_ONLY_CLOUDS`), checked
/// through its adaptor's `check_storage_credentials`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum StorageOnly {
    /// Cloudflare R2 (`sky/adaptors/cloudflare.py`).
    Cloudflare,
    /// CoreWeave AI Object Storage (`sky/adaptors/coreweave.py`).
    CoreWeave,
    /// VAST Data's S3-compatible storage (`sky/adaptors/vastdata.py`).
    VastData,
    /// Hugging Face buckets (`sky/adaptors/huggingface.py`).
    HuggingFace,
}

impl StorageOnly {
    /// Every provider, in `STORAGE_ONLY_CLOUDS` order.
    pub const ALL: [StorageOnly; 4] = [
        StorageOnly::Cloudflare,
        StorageOnly::CoreWeave,
        StorageOnly::VastData,
        StorageOnly::HuggingFace,
    ];

    /// The lower-case name (`constants.STORAGE_ONLY_CLOUDS`): what
    /// `allowed_clouds`, `workspaces.<name>.<provider>` and the command
    /// line use.
    pub fn name(self) -> &'static str {
        match self {
            StorageOnly::Cloudflare => "cloudflare",
            StorageOnly::CoreWeave => "coreweave",
            StorageOnly::VastData => "vastdata",
            StorageOnly::HuggingFace => "huggingface",
        }
    }

    /// The name `sky check` prints: the adaptor's `NAME`.
    pub fn repr(self) -> &'static str {
        match self {
            StorageOnly::Cloudflare => "Cloudflare",
            StorageOnly::CoreWeave => "CoreWeave",
            StorageOnly::VastData => "VastData",
            StorageOnly::HuggingFace => "HuggingFace",
        }
    }

    /// Whether the compute capability is answered too: Cloudflare's
    /// `check_credentials` returns its storage check for compute "for
    /// backward compatibility"; the others raise `NotSupportedError`.
    pub fn answers_compute(self) -> bool {
        self == StorageOnly::Cloudflare
    }

    /// The provider a command-line or config name selects, as
    /// `check.get_cloud_tuple` matches it: a case-insensitive prefix
    /// (`cloudflare`, `CoreWeave`, `vastdata-s3` all match).
    pub fn from_name(name: &str) -> Option<StorageOnly> {
        let lower = name.trim().to_ascii_lowercase();
        StorageOnly::ALL
            .into_iter()
            .find(|p| lower.starts_with(p.name()))
    }
}

impl fmt::Display for StorageOnly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.repr())
    }
}

/// Anything `sky check` reports on: a cloud, or a storage-only provider
/// (SkyPilot's `cloud_tuple`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(untagged)]
pub enum Provider {
    /// A cloud of the registry.
    Cloud(CloudId),
    /// A storage-only provider.
    StorageOnly(StorageOnly),
}

impl Provider {
    /// The name `sky check` prints (`repr(cloud)` or the adaptor's `NAME`).
    pub fn repr(self) -> &'static str {
        match self {
            Provider::Cloud(c) => c.repr(),
            Provider::StorageOnly(s) => s.repr(),
        }
    }

    /// The lower-case name (config keys, the command line).
    pub fn name(self) -> &'static str {
        match self {
            Provider::Cloud(c) => c.name(),
            Provider::StorageOnly(s) => s.name(),
        }
    }

    /// The name of everything `sky check` knows, lower-cased and sorted, as
    /// `check.get_cloud_tuple` lists them when a name is unknown
    /// (`sorted(c.lower() for c in get_all_clouds())`).
    pub fn all_names_sorted() -> Vec<String> {
        let mut names: Vec<String> = CloudId::ALL
            .iter()
            .map(|c| c.repr().to_ascii_lowercase())
            .chain(
                StorageOnly::ALL
                    .iter()
                    .map(|s| s.repr().to_ascii_lowercase()),
            )
            .collect();
        names.sort();
        names
    }
}

impl From<CloudId> for Provider {
    fn from(c: CloudId) -> Self {
        Provider::Cloud(c)
    }
}

impl From<StorageOnly> for Provider {
    fn from(s: StorageOnly) -> Self {
        Provider::StorageOnly(s)
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.repr())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_by_prefix_as_get_cloud_tuple_does() {
        assert_eq!(
            StorageOnly::from_name("Cloudflare"),
            Some(StorageOnly::Cloudflare)
        );
        assert_eq!(
            StorageOnly::from_name("coreweave-caios"),
            Some(StorageOnly::CoreWeave)
        );
        assert_eq!(
            StorageOnly::from_name(" VASTDATA "),
            Some(StorageOnly::VastData)
        );
        assert_eq!(
            StorageOnly::from_name("huggingface"),
            Some(StorageOnly::HuggingFace)
        );
        // `r2` is not a name 0.14.1 accepts.
        assert_eq!(StorageOnly::from_name("r2"), None);
        assert_eq!(StorageOnly::from_name("vast"), None);
    }

    #[test]
    fn only_some_clouds_check_storage() {
        assert_eq!(CloudId::Aws.storage_rule(), StorageRule::Own);
        assert_eq!(CloudId::Azure.storage_rule(), StorageRule::SameAsCompute);
        assert_eq!(CloudId::Lambda.storage_rule(), StorageRule::Unsupported);
        assert_eq!(CloudId::Kubernetes.storage_rule(), StorageRule::Unsupported);
        let names = Provider::all_names_sorted();
        assert_eq!(names.len(), 29);
        assert!(names.windows(2).all(|w| w[0] <= w[1]));
        assert!(names.contains(&"huggingface".to_string()));
        assert!(names.contains(&"vsphere".to_string()));
    }
}
