//! Paperspace as data (`sky/clouds/paperspace.py`, `sky/catalog/paperspace_catalog.py`).

use super::prelude::*;

/// Paperspace's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Paperspace,
    name: "paperspace",
    aliases: &[],
    repr: "Paperspace",
    class_repr: None,
    catalog_pull: CatalogPull::IfMissing,
    has_catalog: true,
    local_catalog: None,
    // `paperspace_catalog.list_accelerators`: `list_accelerators_impl('Paperspace', ...)`.
    listing_label: Some("Paperspace"),
    // `paperspace_catalog.validate_region_zone`.
    no_zones: Some("Paperspace does not support zones."),
    storage: StorageRule::Unsupported,
    detection: Detection::Files {
        credentials: &[Credential::HomeFile(".paperspace/config.json")],
        hint: "Paperspace credentials not found. Put your API key in ~/.paperspace/config.json",
    },
    unsupported: &[
        (
            CloneDiskFromCluster,
            "Migrating disk is not supported in Paperspace.",
        ),
        (
            SpotInstance,
            "Spot instances are not supported in Paperspace.",
        ),
        (
            ImageId,
            "Specifying image ID is not supported for Paperspace.",
        ),
        (
            CustomDiskTier,
            "Custom disk tiers is not supported in Paperspace.",
        ),
        (
            CustomNetworkTier,
            "Custom network tier is currently not supported in Paperspace.",
        ),
        (
            HighAvailabilityControllers,
            "High availability controllers are not supported in Paperspace.",
        ),
        (
            CustomMultiNetwork,
            "Customized multiple network interfaces are not supported in Paperspace.",
        ),
        (LocalDisk, "Local disk is not supported on Paperspace"),
    ],
    catalog_rules: Some(CatalogRules::PLAIN),
};
