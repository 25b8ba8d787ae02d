//! SSH as data (`sky/clouds/ssh.py`, `sky/catalog/ssh_catalog.py`).

use super::prelude::*;

/// SSH's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Ssh,
    name: "ssh",
    aliases: &[],
    repr: "SSH",
    class_repr: None,
    catalog_pull: CatalogPull::NotHosted,
    // The Kubernetes virtual catalog over the `ssh-<pool>` contexts.
    has_catalog: false,
    local_catalog: None,
    listing_label: None,
    no_zones: None,
    storage: StorageRule::Unsupported,
    // `SSH._check_compute_credentials`: a pool of
    // `~/.sky/ssh_node_pools.yaml` set up as an `ssh-<pool>` kubeconfig
    // context; the adapter lists their nodes (`optimizer::clouds::ssh`).
    detection: Detection::Adapter,
    // `SSH._unsupported_features_for_resources` for a plain request
    // (Kubernetes' reasons: SSH inherits them).
    unsupported: &[
        (Stop, "Stopping clusters is not supported on Kubernetes."),
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
        (Autostop, "Auto-stop is not supported on Kubernetes."),
    ],
    // `Kubernetes.get_default_instance_type` (2 vCPUs, 1× memory) and
    // its feasibility, over SSH's contexts (`feasibility::kubernetes`).
    catalog_rules: None,
};
