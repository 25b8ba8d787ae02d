//! Cudo as data (`sky/clouds/cudo.py`, `sky/catalog/cudo_catalog.py`).

use super::prelude::*;

/// Cudo's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Cudo,
    name: "cudo",
    aliases: &[],
    repr: "Cudo",
    class_repr: None,
    catalog_pull: CatalogPull::EveryHours(7),
    has_catalog: true,
    local_catalog: None,
    // `cudo_catalog.list_accelerators`: `list_accelerators_impl('Cudo', ...)`.
    listing_label: Some("Cudo"),
    // `cudo_catalog.validate_region_zone`.
    no_zones: Some("Cudo does not support zones."),
    storage: StorageRule::Unsupported,
    detection: Detection::Files {
        credentials: &[Credential::HomeFile(".config/cudo/cudo.yml")],
        hint: "Cudo credentials not found. Run: cudoctl init",
    },
    unsupported: &[
        (Stop, "Stopping not supported."),
        (
            SpotInstance,
            "Spot is not supported, as Cudo API does not implement spot.",
        ),
        (
            CustomDiskTier,
            "Custom disk tier is currently not supported on Cudo Compute",
        ),
        (
            CustomNetworkTier,
            "Custom network tier is currently not supported on Cudo Compute",
        ),
        (ImageId, "Image ID is currently not supported on Cudo. "),
        (
            DockerImage,
            "Docker image is currently not supported on Cudo. You can try running docker command inside the `run` section in task.yaml.",
        ),
        (
            HostControllers,
            "Cudo Compute cannot host a controller as it does not autostopping, which will leave the controller to run indefinitely.",
        ),
        (
            HighAvailabilityControllers,
            "High availability controllers are not supported on Cudo.",
        ),
        (
            CustomMultiNetwork,
            "Customized multiple network interfaces are not supported on Cudo.",
        ),
        (LocalDisk, "Local disk is not supported on Cudo"),
    ],
    catalog_rules: Some(CatalogRules {
        default_cpus: Some("8+"),
        default_memory: Some("2x"),
        ..CatalogRules::PLAIN
    }),
};
