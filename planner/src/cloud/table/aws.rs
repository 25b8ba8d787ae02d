//! AWS as data (`sky/clouds/aws.py`, `sky/catalog/aws_catalog.py`).

use super::prelude::*;

/// AWS's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Aws,
    name: "aws",
    aliases: &[],
    repr: "AWS",
    class_repr: None,
    catalog_pull: CatalogPull::EveryHours(7),
    has_catalog: true,
    local_catalog: None,
    // `aws_catalog.list_accelerators`: `list_accelerators_impl('AWS', ...)`.
    listing_label: Some("AWS"),
    no_zones: None,
    // `_check_storage_credentials`: S3 `list_buckets`.
    storage: StorageRule::Own,
    detection: Detection::Adapter,
    // `AWS._unsupported_features_for_resources` (stopping spot
    // instances is added per request).
    unsupported: &[
        (
            HighAvailabilityControllers,
            "High availability controllers are not supported on AWS.",
        ),
        (
            CustomMultiNetwork,
            "Customized multiple network interfaces are not supported on AWS.",
        ),
    ],
    catalog_rules: Some(CatalogRules {
        default_cpus: Some("8+"),
        default_memory: Some("4x"),
        // `aws_catalog._DEFAULT_INSTANCE_FAMILY`, each as `<family>.`.
        default_family: InstanceFamily::Prefixes(&[
            "m6i.", "m6id.", "m7i.", "r6i.", "r6id.", "r7i.", "c6i.", "c6id.", "c7i.",
        ]),
        instance_type_needs_offering: true,
        ..CatalogRules::PLAIN
    }),
};
