//! Hyperbolic as data (`sky/clouds/hyperbolic.py`, `sky/catalog/hyperbolic_catalog.py`).

use super::prelude::*;

/// Hyperbolic's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Hyperbolic,
    name: "hyperbolic",
    aliases: &[],
    repr: "Hyperbolic",
    class_repr: None,
    catalog_pull: CatalogPull::IfMissing,
    has_catalog: true,
    local_catalog: None,
    // `hyperbolic_catalog.list_accelerators`: `list_accelerators_impl('Hyperbolic', ...)`.
    listing_label: Some("Hyperbolic"),
    // `Hyperbolic.validate_region_zone`.
    no_zones: Some("Hyperbolic does not support zones."),
    storage: StorageRule::Unsupported,
    // `Hyperbolic._check_credentials`: `~/.hyperbolic/api_key` exists
    // ("API key not found at <path>" otherwise).
    detection: Detection::Files {
        credentials: &[Credential::HomeFile(".hyperbolic/api_key")],
        hint: "Hyperbolic credentials not found. Put your API key in ~/.hyperbolic/api_key",
    },
    // `Hyperbolic._unsupported_features_for_resources` for a plain request.
    unsupported: &[
        (Stop, "Stopping not supported."),
        (MultiNode, "Multi-node not supported."),
        (CustomDiskTier, "Custom disk tiers not supported."),
        (StorageMounting, "Storage mounting not supported."),
        (
            HighAvailabilityControllers,
            "High availability controllers not supported.",
        ),
        (SpotInstance, "Spot instances not supported."),
        (CloneDiskFromCluster, "Disk cloning not supported."),
        (DockerImage, "Docker images not supported."),
        (OpenPorts, "Opening ports not supported."),
        (ImageId, "Custom image IDs not supported."),
        (CustomNetworkTier, "Custom network tiers not supported."),
        (HostControllers, "Host controllers not supported."),
        (AutoTerminate, "Auto-termination not supported."),
        (Autostop, "Auto-stop not supported."),
        (Autodown, "Auto-down not supported."),
        (
            CustomMultiNetwork,
            "Customized multiple network interfaces not supported.",
        ),
        (LocalDisk, "Local disk is not supported on Hyperbolic"),
    ],
    // `hyperbolic_catalog.get_default_instance_type` has no defaults:
    // the cheapest type of all. An instance type missing from the
    // catalog never reaches `_get_feasible_launchable_resources`'
    // `Invalid instance type` (`Resources` validation rejects it first).
    catalog_rules: Some(CatalogRules::PLAIN),
};
