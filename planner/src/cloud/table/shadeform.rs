//! Shadeform as data (`sky/clouds/shadeform.py`, `sky/catalog/shadeform_catalog.py`).

use super::prelude::*;

/// Shadeform's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Shadeform,
    name: "shadeform",
    aliases: &[],
    // `Shadeform` sets no `_REPR`, but its `__repr__` returns `Shadeform`:
    // tables, INFRA and hints print that; the class attribute (Cloud's
    // `<Cloud>`) is in [`CLASS_REPRS`].
    repr: "Shadeform",
    // `Shadeform` does not set `_REPR` and inherits `Cloud`'s `<Cloud>`,
    // which SkyPilot uses where it formats the class rather than an object
    // (`Cloud.check_features_are_supported`'s "not supported by" text).
    class_repr: Some("<Cloud>"),
    catalog_pull: CatalogPull::IfMissing,
    has_catalog: true,
    local_catalog: None,
    // `shadeform_catalog.list_accelerators`: `list_accelerators_impl('Shadeform', ...)`.
    listing_label: Some("Shadeform"),
    no_zones: None,
    storage: StorageRule::Unsupported,
    // `Shadeform.check_credentials`: `~/.shadeform/api_key` exists and is
    // not empty once stripped.
    detection: Detection::Files {
        credentials: &[Credential::HomeFileChecked {
            path: ".shadeform/api_key",
            check: FileCheck::NotBlank,
            invalid: "Shadeform API key is empty in ~/.shadeform/api_key",
        }],
        hint: "Shadeform API key not found. Please save your API key to ~/.shadeform/api_key",
    },
    // `Shadeform._unsupported_features_for_resources` for a plain request.
    unsupported: &[
        (Stop, "Stopping instances not supported on Shadeform."),
        (MultiNode, "Multi-node clusters not supported on Shadeform."),
        (SpotInstance, "Spot instances not supported on Shadeform."),
        (
            CustomDiskTier,
            "Custom disk tiers not supported on Shadeform.",
        ),
        (
            CustomNetworkTier,
            "Custom network tiers not supported on Shadeform.",
        ),
        (
            StorageMounting,
            "Object storage mounting not supported on Shadeform.",
        ),
        (
            HostControllers,
            "Host controllers not supported on Shadeform.",
        ),
        (
            HighAvailabilityControllers,
            "High availability controllers not supported.",
        ),
        (
            CloneDiskFromCluster,
            "Disk cloning not supported on Shadeform.",
        ),
        (ImageId, "Custom image IDs not supported on Shadeform."),
        (DockerImage, "Docker images not supported on Shadeform yet."),
        (
            CustomMultiNetwork,
            "Custom multiple network interfaces not supported.",
        ),
        (LocalDisk, "Local disk is not supported on Shadeform."),
    ],
    // Shadeform's accelerator search ignores cpus, memory and location;
    // explicit types are taken as they are (`feasibility::shadeform`).
    catalog_rules: None,
};
