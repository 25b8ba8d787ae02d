//! Kubernetes as data (`sky/clouds/kubernetes.py`, `sky/catalog/kubernetes_catalog.py`).

use super::prelude::*;

/// Kubernetes's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Kubernetes,
    name: "kubernetes",
    aliases: &["k8s"],
    repr: "Kubernetes",
    class_repr: None,
    catalog_pull: CatalogPull::NotHosted,
    has_catalog: false,
    local_catalog: None,
    listing_label: None,
    no_zones: None,
    storage: StorageRule::Unsupported,
    detection: Detection::Adapter,
    // `Kubernetes._CLOUD_UNSUPPORTED_FEATURES`; a context with a spot
    // label or high-performance networking lifts spot/network tier.
    unsupported: &[
        (Stop, "Kubernetes does not support stopping VMs."),
        (
            SpotInstance,
            "Spot instances are not supported in Kubernetes.",
        ),
        (
            CustomDiskTier,
            "Custom disk tiers are not supported in Kubernetes.",
        ),
        (
            CustomMultiNetwork,
            "Customized multiple network interfaces are not supported in Kubernetes.",
        ),
        (
            CustomNetworkTier,
            "Custom network tier is not supported in this Kubernetes cluster.",
        ),
        (LocalDisk, "Local disk is not supported on Kubernetes"),
    ],
    catalog_rules: None,
};
