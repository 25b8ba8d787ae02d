//! Azure as data (`sky/clouds/azure.py`, `sky/catalog/azure_catalog.py`).

use super::prelude::*;

/// Azure's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Azure,
    name: "azure",
    aliases: &[],
    repr: "Azure",
    class_repr: None,
    catalog_pull: CatalogPull::EveryHours(7),
    has_catalog: true,
    local_catalog: None,
    // `azure_catalog.list_accelerators`: `list_accelerators_impl('Azure', ...)`.
    listing_label: Some("Azure"),
    // `azure_catalog.validate_region_zone`.
    no_zones: Some("Azure does not support zones."),
    // `_check_storage_credentials`: `return cls._check_credentials()`.
    storage: StorageRule::SameAsCompute,
    detection: Detection::Files {
        credentials: &[Credential::HomeFile(".azure/azureProfile.json")],
        hint: "Azure credentials are not set. Run: az login",
    },
    unsupported: &[
        (
            CloneDiskFromCluster,
            "Migrating disk is currently not supported on Azure.",
        ),
        (
            HighAvailabilityControllers,
            "High availability controllers are not supported on Azure.",
        ),
        (
            CustomNetworkTier,
            "Custom network tier is not supported on Azure.",
        ),
        (
            CustomMultiNetwork,
            "Customized multiple network interfaces are not supported on Azure.",
        ),
        (LocalDisk, "Local disk is not supported on Azure"),
    ],
    catalog_rules: Some(CatalogRules {
        default_cpus: Some("8+"),
        default_memory: Some("4x"),
        default_family: InstanceFamily::Azure(&["Ds_v5", "Es_v5", "Fs_v2"]),
        rejects_ultra_disk: true,
        ..CatalogRules::PLAIN
    }),
};
