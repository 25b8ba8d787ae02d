//! Cloud identities: the closed set of clouds the planner knows, the orders
//! SkyPilot enumerates them in, what each is as data ([`CloudSpec`], one
//! entry per cloud in the cloud table, `table/<cloud>.rs`), their names as
//! users write them, and "did you mean" for the rest; how storage is
//! checked, and the storage-only providers `sky check` lists.

mod feature;
mod spec;
mod storage;
mod table;

use std::fmt;
use std::str::FromStr;

pub use feature::Feature;
pub use spec::{
    CatalogPull, CatalogRules, CloudSpec, Credential, Detection, FileCheck, InstanceFamily,
    KeySyntax, LocalCatalog,
};
pub use storage::{Provider, StorageOnly, StorageRule};

/// Every cloud this optimizer knows about.
///
/// The declaration order is the default enumeration order (see
/// `ARCHITECTURE.md`, "Determinism"): SkyPilot keeps the enabled set in a
/// Python set whose order is arbitrary but fixed, we pin it to this order
/// unless the user lists the clouds explicitly.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum CloudId {
    /// Amazon Web Services.
    Aws,
    /// Google Cloud Platform.
    Gcp,
    /// Microsoft Azure.
    Azure,
    /// Lambda Cloud.
    Lambda,
    /// RunPod.
    Runpod,
    /// Paperspace.
    Paperspace,
    /// Cudo Compute.
    Cudo,
    /// Kubernetes (a virtual catalog: one region per kubeconfig context).
    Kubernetes,
    /// DigitalOcean.
    Do,
    /// Fluidstack.
    Fluidstack,
    /// Hyperbolic.
    Hyperbolic,
    /// IBM Cloud VPC.
    Ibm,
    /// Mithril (formerly Foundry).
    Mithril,
    /// Nebius AI Cloud.
    Nebius,
    /// Oracle Cloud Infrastructure.
    Oci,
    /// Prime Intellect.
    PrimeIntellect,
    /// Samsung Cloud Platform.
    Scp,
    /// Seeweb.
    Seeweb,
    /// Shadeform (a marketplace across GPU clouds).
    Shadeform,
    /// Slurm clusters (`~/.slurm/config`), partitions as zones.
    Slurm,
    /// SSH node pools (`~/.sky/ssh_node_pools.yaml`), run as Kubernetes contexts.
    Ssh,
    /// Vast.ai.
    Vast,
    /// Verda (formerly DataCrunch).
    Verda,
    /// VMware vSphere, from a catalog built on the user's machine.
    Vsphere,
    /// Yotta.
    Yotta,
}

impl CloudId {
    /// All clouds, in default enumeration order.
    ///
    /// The first eight keep the order `sky` always had; the rest follow in
    /// SkyPilot's registry order (`sky/clouds/__init__.py`).
    pub const ALL: [CloudId; 25] = [
        CloudId::Aws,
        CloudId::Gcp,
        CloudId::Azure,
        CloudId::Lambda,
        CloudId::Runpod,
        CloudId::Paperspace,
        CloudId::Cudo,
        CloudId::Kubernetes,
        CloudId::Do,
        CloudId::Fluidstack,
        CloudId::Hyperbolic,
        CloudId::Ibm,
        CloudId::Mithril,
        CloudId::Nebius,
        CloudId::Oci,
        CloudId::PrimeIntellect,
        CloudId::Scp,
        CloudId::Seeweb,
        CloudId::Shadeform,
        CloudId::Slurm,
        CloudId::Ssh,
        CloudId::Vast,
        CloudId::Verda,
        CloudId::Vsphere,
        CloudId::Yotta,
    ];

    /// `registry.CLOUD_REGISTRY`'s order in 0.14.1: registration happens as
    /// each cloud module is imported. `sky/clouds/__init__.py` imports them
    /// by module name, but the import of `sky.clouds.aws` (the first)
    /// already imports GCP and Verda through the provisioners, so those two
    /// come first (what SkyPilot prints; conformance case
    /// `check-allowed-cloudflare`). `sky check` checks, and its `-o json`
    /// lists, the clouds in this order (`check.get_all_clouds`).
    pub const REGISTRY_ORDER: [CloudId; 25] = [
        CloudId::Gcp,
        CloudId::Verda,
        CloudId::Aws,
        CloudId::Azure,
        CloudId::Cudo,
        CloudId::Do,
        CloudId::Fluidstack,
        CloudId::Hyperbolic,
        CloudId::Ibm,
        CloudId::Kubernetes,
        CloudId::Lambda,
        CloudId::Mithril,
        CloudId::Nebius,
        CloudId::Oci,
        CloudId::Paperspace,
        CloudId::PrimeIntellect,
        CloudId::Runpod,
        CloudId::Scp,
        CloudId::Seeweb,
        CloudId::Shadeform,
        CloudId::Slurm,
        CloudId::Ssh,
        CloudId::Vast,
        CloudId::Vsphere,
        CloudId::Yotta,
    ];

    /// `sky/skylet/constants.py::ALL_CLOUDS`: the order SkyPilot's
    /// `list_accelerators` merges the clouds in (`sky gpus list`'s catalogs
    /// and `-o json`).
    pub const SKYPILOT_ALL_CLOUDS: [CloudId; 25] = [
        CloudId::Aws,
        CloudId::Azure,
        CloudId::Gcp,
        CloudId::Ibm,
        CloudId::Lambda,
        CloudId::Scp,
        CloudId::Oci,
        CloudId::Kubernetes,
        CloudId::Runpod,
        CloudId::Vast,
        CloudId::Vsphere,
        CloudId::Cudo,
        CloudId::Fluidstack,
        CloudId::Paperspace,
        CloudId::PrimeIntellect,
        CloudId::Do,
        CloudId::Nebius,
        CloudId::Ssh,
        CloudId::Slurm,
        CloudId::Hyperbolic,
        CloudId::Seeweb,
        CloudId::Shadeform,
        CloudId::Yotta,
        CloudId::Mithril,
        CloudId::Verda,
    ];

    /// What this cloud is: names, catalog, credentials, unsupported features.
    pub fn spec(self) -> &'static CloudSpec {
        &table::CLOUDS[self as usize]
    }

    /// Lower-case name, as used in `--infra`, catalog folders and `SKY_ENABLED_CLOUDS`.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// Display form used by SkyPilot in tables and messages (the class `_REPR`).
    pub fn repr(self) -> &'static str {
        self.spec().repr
    }

    /// The class attribute `_REPR`, where SkyPilot formats the class rather
    /// than an object (`check_features_are_supported`): the same as
    /// [`CloudId::repr`] except for Shadeform (`<Cloud>`).
    pub fn class_repr(self) -> &'static str {
        self.spec().class_repr.unwrap_or(self.repr())
    }

    /// Whether this cloud has a CSV catalog (`<dir>/<name>/vms.csv`).
    pub fn has_csv_catalog(self) -> bool {
        self.spec().has_catalog
    }

    /// The catalog SkyPilot builds for this cloud on the user's machine, if
    /// it does (then it is read from there and never bundled).
    pub fn local_catalog(self) -> Option<&'static LocalCatalog> {
        self.spec().local_catalog.as_ref()
    }
}

impl fmt::Display for CloudId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.repr())
    }
}

/// An unknown cloud name, with the closest known names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Unknown cloud {name:?}.{}", did_you_mean_suffix(.suggestions))]
pub struct UnknownCloud {
    /// The name as the user wrote it.
    pub name: String,
    /// Close matches among the known cloud names.
    pub suggestions: Vec<String>,
}

fn did_you_mean_suffix(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        format!(
            " Known clouds: {}.",
            CloudId::ALL.map(|c| c.name()).join(", ")
        )
    } else {
        format!(" Did you mean: {}?", suggestions.join(", "))
    }
}

impl FromStr for CloudId {
    type Err = UnknownCloud;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        let known = |c: &CloudId| {
            let spec = c.spec();
            spec.name == lower || spec.aliases.contains(&lower.as_str())
        };
        if let Some(id) = CloudId::ALL.into_iter().find(known) {
            return Ok(id);
        }
        let suggestions =
            crate::pytext::close_matches(&lower, CloudId::ALL.iter().map(|c| c.name()), 3, 0.6);
        Err(UnknownCloud {
            name: s.to_string(),
            suggestions,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_order_names_every_cloud_once() {
        let mut sorted = CloudId::REGISTRY_ORDER.to_vec();
        sorted.sort();
        assert_eq!(sorted, CloudId::ALL.to_vec());
    }

    #[test]
    fn skypilots_all_clouds_names_every_cloud_once() {
        let mut sorted = CloudId::SKYPILOT_ALL_CLOUDS.to_vec();
        sorted.sort();
        assert_eq!(sorted, CloudId::ALL.to_vec());
    }

    #[test]
    fn every_catalog_cloud_but_the_realtime_ones_is_listed_under_a_label() {
        for id in CloudId::ALL {
            let spec = id.spec();
            let realtime = matches!(id, CloudId::Kubernetes | CloudId::Ssh | CloudId::Slurm);
            assert_eq!(spec.listing_label.is_some(), !realtime, "{id:?}");
            assert_eq!(spec.has_catalog, !realtime, "{id:?}");
        }
    }

    #[test]
    fn the_table_is_in_declaration_order() {
        for (i, id) in CloudId::ALL.into_iter().enumerate() {
            assert_eq!(id as usize, i);
            assert_eq!(id.spec().id, id, "table entry {i}");
        }
    }

    #[test]
    fn names_aliases_and_suggestions() {
        assert_eq!("K8s".parse::<CloudId>(), Ok(CloudId::Kubernetes));
        assert_eq!(" AWS ".parse::<CloudId>(), Ok(CloudId::Aws));
        let err = "lamda".parse::<CloudId>().unwrap_err();
        assert_eq!(err.suggestions, vec!["lambda".to_string()]);
    }
}
