//! Yotta as data (`sky/clouds/yotta.py`, `sky/catalog/yotta_catalog.py`).

use super::prelude::*;

/// Yotta's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Yotta,
    name: "yotta",
    aliases: &[],
    repr: "Yotta",
    class_repr: None,
    catalog_pull: CatalogPull::IfMissing,
    has_catalog: true,
    local_catalog: None,
    // `yotta_catalog.list_accelerators`: `list_accelerators_impl('Yotta', ...)`.
    listing_label: Some("Yotta"),
    // `yotta_catalog.validate_region_zone`.
    no_zones: Some("Yotta does not support zones."),
    storage: StorageRule::Unsupported,
    // `Yotta._check_compute_credentials`: `~/.yotta/credentials` exists
    // (the API-key check that follows is online).
    detection: Detection::Files {
        credentials: &[Credential::HomeFile(".yotta/credentials")],
        hint: "Failed to access Yotta Cloud with credentials. Get an API key at https://console.yottalabs.ai and save it to ~/.yotta/credentials",
    },
    // `Yotta._unsupported_features_for_resources` for a plain request.
    unsupported: &[
        (Stop, "Stopping not supported."),
        (
            MultiNode,
            "Multi-node not supported yet, as the interconnection among nodes are non-trivial on Yotta.",
        ),
        (
            CloneDiskFromCluster,
            "Disk cloning not supported yet on Yotta.",
        ),
        (SpotInstance, "Spot instances not supported yet on Yotta."),
        (
            CustomDiskTier,
            "Customizing disk tier is not supported yet on Yotta.",
        ),
        (
            CustomNetworkTier,
            "Custom network tier is not supported yet on Yotta.",
        ),
        (
            StorageMounting,
            "Mounting object stores is not supported on Yotta. To read data from object stores on Yotta, use `mode: COPY` to copy the data to local disk.",
        ),
        (
            HostControllers,
            "Host controllers not supported yet on Yotta.",
        ),
        (
            HighAvailabilityControllers,
            "High availability controllers are not supported yet on Yotta.",
        ),
        (
            AutoTerminate,
            "Auto-termination not supported yet on Yotta.",
        ),
        (Autostop, "Auto-stop not supported yet on Yotta."),
        (Autodown, "Auto-down not supported yet on Yotta."),
        (
            CustomMultiNetwork,
            "Customized multiple network interfaces are not supported yet on Yotta.",
        ),
        (
            LocalDisk,
            "Specifying local disks are not supported on Yotta.",
        ),
    ],
    // `Yotta._get_feasible_launchable_resources`: no default vCPUs and the
    // default ignores the requested location; the accelerator search is
    // not given the memory, and candidates keep it.
    catalog_rules: Some(CatalogRules {
        accelerator_ignores_memory: true,
        candidates_keep_memory: true,
        default_ignores_location: true,
        ..CatalogRules::PLAIN
    }),
};
