//! Fluidstack as data (`sky/clouds/fluidstack.py`, `sky/catalog/fluidstack_catalog.py`).

use super::prelude::*;

/// Fluidstack's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Fluidstack,
    name: "fluidstack",
    aliases: &[],
    repr: "Fluidstack",
    class_repr: None,
    catalog_pull: CatalogPull::IfMissing,
    has_catalog: true,
    local_catalog: None,
    // `fluidstack_catalog.list_accelerators`: `list_accelerators_impl('Fluidstack', ...)`.
    listing_label: Some("Fluidstack"),
    // `fluidstack_catalog.validate_region_zone`.
    no_zones: Some("FluidStack Cloud does not support zones."),
    storage: StorageRule::Unsupported,
    // `Fluidstack._check_compute_credentials`: `~/.fluidstack/api_key`
    // exists and its content starts with `api_key`.
    detection: Detection::Files {
        credentials: &[Credential::HomeFileStartingWith {
            path: ".fluidstack/api_key",
            prefix: "api_key",
        }],
        hint: "Fluidstack credentials not found. Get an API key at https://dashboard.fluidstack.io and save it to ~/.fluidstack/api_key",
    },
    // `Fluidstack._unsupported_features_for_resources` for a plain request.
    unsupported: &[
        (
            Stop,
            "Stopping clusters in FluidStack is not supported in SkyPilot",
        ),
        (
            CloneDiskFromCluster,
            "Migrating disk is not supported in Fluidstack.",
        ),
        (
            SpotInstance,
            "Spot instances are not supported in Fluidstack.",
        ),
        (
            ImageId,
            "Specifying image ID is not supported for Fluidstack.",
        ),
        (
            CustomDiskTier,
            "Custom disk tiers is not supported in Fluidstack.",
        ),
        (
            CustomNetworkTier,
            "Custom network tier is currently not supported in Fluidstack.",
        ),
        (
            HostControllers,
            "Host controllers are not supported in Fluidstack.",
        ),
        (
            HighAvailabilityControllers,
            "High availability controllers are not supported in Fluidstack.",
        ),
        (
            CustomMultiNetwork,
            "Customized multiple network interfaces are not supported in Fluidstack.",
        ),
        (LocalDisk, "Local disk is not supported on Fluidstack"),
    ],
    // `fluidstack_catalog._DEFAULT_NUM_VCPUS` (6, "for gpu_1x_a10") and
    // `_DEFAULT_MEMORY_CPU_RATIO` (4); its regions list US first
    // (`get_region_zones_for_instance_type`, see `catalog::query`).
    catalog_rules: Some(CatalogRules {
        default_cpus: Some("6+"),
        default_memory: Some("4x"),
        ..CatalogRules::PLAIN
    }),
};
