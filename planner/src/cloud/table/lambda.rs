//! Lambda as data (`sky/clouds/lambda_cloud.py`, `sky/catalog/lambda_catalog.py`).

use super::prelude::*;

/// Lambda's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Lambda,
    name: "lambda",
    aliases: &[],
    repr: "Lambda",
    class_repr: None,
    catalog_pull: CatalogPull::EveryHours(7),
    has_catalog: true,
    local_catalog: None,
    // `lambda_catalog.list_accelerators`: `list_accelerators_impl('Lambda', ...)`.
    listing_label: Some("Lambda"),
    // `lambda_catalog.validate_region_zone`.
    no_zones: Some("Lambda Cloud does not support zones."),
    storage: StorageRule::Unsupported,
    detection: Detection::Files {
        credentials: &[Credential::HomeFile(".lambda_cloud/lambda_keys")],
        hint: "Lambda credentials not found. Put your API key in ~/.lambda_cloud/lambda_keys as: api_key = <key>",
    },
    unsupported: &[
        (Stop, "Lambda cloud does not support stopping VMs."),
        (
            CloneDiskFromCluster,
            "Migrating disk is currently not supported on Lambda.",
        ),
        (SpotInstance, "Spot instances are not supported in Lambda."),
        (ImageId, "Specifying image ID is not supported in Lambda."),
        (
            CustomDiskTier,
            "Custom disk tiers are not supported in Lambda.",
        ),
        (
            CustomNetworkTier,
            "Custom network tier is currently not supported in Lambda.",
        ),
        (
            HostControllers,
            "Host controllers are not supported in Lambda.",
        ),
        (
            HighAvailabilityControllers,
            "High availability controllers are not supported on Lambda.",
        ),
        (
            CustomMultiNetwork,
            "Customized multiple network interfaces are not supported in Lambda.",
        ),
        (LocalDisk, "Local disk is not supported on Lambda"),
    ],
    catalog_rules: Some(CatalogRules {
        default_cpus: Some("30+"),
        default_memory: Some("4x"),
        ..CatalogRules::PLAIN
    }),
};
