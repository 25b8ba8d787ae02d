//! Nebius as data (`sky/clouds/nebius.py`, `sky/catalog/nebius_catalog.py`).

use super::prelude::*;

/// Nebius's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Nebius,
    name: "nebius",
    aliases: &[],
    repr: "Nebius",
    class_repr: None,
    catalog_pull: CatalogPull::EveryHours(7),
    has_catalog: true,
    local_catalog: None,
    // `nebius_catalog.list_accelerators`: `list_accelerators_impl('nebius', ...)`.
    listing_label: Some("nebius"),
    // `nebius_catalog.validate_region_zone`.
    no_zones: Some("Nebius does not support zones."),
    // `_check_storage_credentials`: the `nebius` profile in `~/.aws`.
    storage: StorageRule::Own,
    // `Nebius._check_compute_credentials` reads a token or credentials
    // file and a tenant id, then lists the tenant's projects; the
    // adapter (`optimizer::clouds::nebius`) does both and fetches the
    // tenant's prices.
    detection: Detection::Adapter,
    // `Nebius._unsupported_features_for_resources` for a plain request
    // (no request here asks for a network tier, so the InfiniBand
    // exception for H100:8 and friends never applies).
    unsupported: &[
        (
            CloneDiskFromCluster,
            "Migrating disk is currently not supported on Nebius.",
        ),
        (
            CustomNetworkTier,
            "Custom network tier is currently only supported for H100:8, H200:8, B200:8 and B300:8 on Nebius.",
        ),
        (
            HighAvailabilityControllers,
            "High availability controllers are not supported on Nebius.",
        ),
        (
            CustomMultiNetwork,
            "Customized multiple network interfaces are not supported on Nebius.",
        ),
        (LocalDisk, "Local disk is not supported on Nebius"),
    ],
    // `nebius_catalog.get_default_instance_type` has no default vCPUs or
    // memory (the cheapest type of all that fit), filtered by
    // `Nebius.check_disk_tier`; `_make` keeps the request's memory.
    // The tenant's own prices replace the list prices per
    // (instance type, region): `planner::catalog::nebius`.
    catalog_rules: Some(CatalogRules {
        candidates_keep_memory: true,
        default_rejects_ultra_disk: true,
        ..CatalogRules::PLAIN
    }),
};
