//! Seeweb as data (`sky/clouds/seeweb.py`, `sky/catalog/seeweb_catalog.py`).

use super::prelude::*;

/// Seeweb's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Seeweb,
    name: "seeweb",
    aliases: &[],
    repr: "Seeweb",
    class_repr: None,
    catalog_pull: CatalogPull::EveryHours(8),
    has_catalog: true,
    local_catalog: None,
    // `seeweb_catalog.list_accelerators`: `list_accelerators_impl('Seeweb', ...)`.
    listing_label: Some("Seeweb"),
    // `seeweb_catalog.validate_region_zone`.
    no_zones: Some("Seeweb does not support zones."),
    // `_check_storage_credentials`: the adaptor's `check_storage_credentials` returns `check_compute_credentials()`.
    storage: StorageRule::SameAsCompute,
    // `Seeweb._check_compute_credentials` → `sky/adaptors/seeweb.py::
    // check_compute_credentials`: `~/.seeweb_cloud/seeweb_keys` read by
    // `configparser`, a non-empty `api_key` under `[DEFAULT]`. The API call
    // that then validates the key (`ecsapi.Api.fetch_servers`) is online.
    detection: Detection::Files {
        credentials: &[Credential::HomeFileChecked {
            path: ".seeweb_cloud/seeweb_keys",
            check: FileCheck::IniKey {
                section: "DEFAULT",
                key: "api_key",
            },
            invalid: "Missing or empty api_key in ~/.seeweb_cloud/seeweb_keys. Put it under [DEFAULT] as: api_key = <key>",
        }],
        hint: "Missing Seeweb API key file ~/.seeweb_cloud/seeweb_keys. Put your API key in it under [DEFAULT] as: api_key = <key>",
    },
    // `Seeweb._unsupported_features_for_resources` for a plain request.
    unsupported: &[
        (
            MultiNode,
            "Multi-node not supported. Seeweb does not support multi-node clusters.",
        ),
        (
            CustomDiskTier,
            "Custom disk tiers not supported. Seeweb does not support custom disk tiers.",
        ),
        (
            StorageMounting,
            "Storage mounting not supported. Seeweb does not support storage mounting.",
        ),
        (
            HighAvailabilityControllers,
            "High availability controllers not supported. Seeweb does not support high availability controllers.",
        ),
        (
            SpotInstance,
            "Spot instances not supported. Seeweb does not support spot instances.",
        ),
        (
            CloneDiskFromCluster,
            "Disk cloning not supported. Seeweb does not support disk cloning.",
        ),
        (
            ImageId,
            "Custom image IDs not supported. Seeweb does not support custom image IDs.",
        ),
        (
            CustomNetworkTier,
            "Custom network tiers not supported. Seeweb does not support custom network tiers.",
        ),
        (
            HostControllers,
            "Host controllers not supported. Seeweb does not support host controllers.",
        ),
        (
            CustomMultiNetwork,
            "Custom multi-network not supported. Seeweb does not support custom multi-network.",
        ),
        (LocalDisk, "Local disk is not supported on Seeweb"),
    ],
    // Seeweb keeps only the cheapest type and prefers `it-fr2`
    // (`feasibility::seeweb`).
    catalog_rules: None,
};
