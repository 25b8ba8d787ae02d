//! RunPod as data (`sky/clouds/runpod.py`, `sky/catalog/runpod_catalog.py`).

use super::prelude::*;

/// RunPod's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Runpod,
    name: "runpod",
    aliases: &[],
    repr: "RunPod",
    class_repr: None,
    catalog_pull: CatalogPull::EveryHours(7),
    has_catalog: true,
    local_catalog: None,
    // `runpod_catalog.list_accelerators`: `list_accelerators_impl('RunPod', ...)`.
    listing_label: Some("RunPod"),
    no_zones: None,
    storage: StorageRule::Unsupported,
    detection: Detection::Files {
        credentials: &[Credential::HomeFile(".runpod/config.toml")],
        hint: "RunPod credentials not found. Run: runpod config",
    },
    unsupported: &[
        (Stop, "Stopping not supported."),
        (
            MultiNode,
            "Multi-node not supported yet, as the interconnection among nodes are non-trivial on RunPod.",
        ),
        (
            CustomDiskTier,
            "Customizing disk tier is not supported yet on RunPod.",
        ),
        (
            CustomNetworkTier,
            "Custom network tier is not supported yet on RunPod.",
        ),
        (
            StorageMounting,
            "Mounting object stores is not supported on RunPod. To read data from object stores on RunPod, use `mode: COPY` to copy the data to local disk.",
        ),
        (
            HighAvailabilityControllers,
            "High availability controllers are not supported on RunPod.",
        ),
        (
            CustomMultiNetwork,
            "Customized multiple network interfaces are not supported on RunPod.",
        ),
        (LocalDisk, "Local disk is not supported on RunPod"),
    ],
    catalog_rules: Some(CatalogRules {
        accelerator_ignores_memory: true,
        candidates_keep_memory: true,
        ..CatalogRules::PLAIN
    }),
};
