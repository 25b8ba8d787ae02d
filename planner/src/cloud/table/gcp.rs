//! GCP as data (`sky/clouds/gcp.py`, `sky/catalog/gcp_catalog.py`).

use super::prelude::*;

/// GCP's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Gcp,
    name: "gcp",
    aliases: &[],
    repr: "GCP",
    class_repr: None,
    catalog_pull: CatalogPull::EveryHours(7),
    has_catalog: true,
    local_catalog: None,
    // `gcp_catalog.list_accelerators`: `list_accelerators_impl('GCP', ...)`.
    listing_label: Some("GCP"),
    no_zones: None,
    // `_check_storage_credentials`: the Cloud Storage API and storage permissions.
    storage: StorageRule::Own,
    detection: Detection::Adapter,
    // `GCP._unsupported_features_for_resources` (TPU and MIG cases are
    // per request).
    unsupported: &[
        (
            HighAvailabilityControllers,
            "High availability controllers are not supported on GCP.",
        ),
        (LocalDisk, "Local disk is not supported on GCP"),
    ],
    // GCP's host-VM and TPU rules are its own (`feasibility::gcp`).
    catalog_rules: None,
};
