//! Mithril as data (`sky/clouds/mithril.py`, `sky/catalog/mithril_catalog.py`).

use super::prelude::*;

/// Mithril's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Mithril,
    name: "mithril",
    aliases: &[],
    repr: "Mithril",
    class_repr: None,
    catalog_pull: CatalogPull::EveryHours(7),
    has_catalog: true,
    local_catalog: None,
    // `mithril_catalog.list_accelerators`: `list_accelerators_impl('Mithril', ...)`.
    listing_label: Some("Mithril"),
    // `Mithril.validate_region_zone`.
    no_zones: Some("Mithril does not support zones."),
    storage: StorageRule::Unsupported,
    // `Mithril._check_credentials`: `MITHRIL_API_KEY` and
    // `MITHRIL_PROJECT` both set, else the config file at
    // `mithril_utils.get_credentials_path()` (`$XDG_CONFIG_HOME/mithril/`
    // or `~/.config/mithril/`).
    detection: Detection::Files {
        credentials: &[
            Credential::AllEnv(&["MITHRIL_API_KEY", "MITHRIL_PROJECT"]),
            Credential::FileInEnvDir {
                dir_var: "XDG_CONFIG_HOME",
                default_dir: ".config",
                file: "mithril/config.yaml",
            },
        ],
        hint: "Mithril credentials not found at ~/.config/mithril/config.yaml. Set MITHRIL_API_KEY and MITHRIL_PROJECT, or write that file",
    },
    // `Mithril._unsupported_features_for_resources` for a plain request.
    unsupported: &[
        (
            CustomNetworkTier,
            "Custom network tier is not supported yet on Mithril.",
        ),
        (
            CustomDiskTier,
            "Custom disk tier is not supported yet on Mithril.",
        ),
        (
            HighAvailabilityControllers,
            "High availability controllers are not supported yet on Mithril.",
        ),
        (
            CloneDiskFromCluster,
            "Disk cloning is not supported yet on Mithril.",
        ),
        (OpenPorts, "Opening ports is not supported yet on Mithril."),
        (
            ImageId,
            "Custom image IDs are not supported yet on Mithril.",
        ),
        (
            HostControllers,
            "Host controllers are not supported yet on Mithril.",
        ),
        (
            CustomMultiNetwork,
            "Customized multiple network interfaces are not supported yet on Mithril.",
        ),
        (LocalDisk, "Local disk is not supported yet on Mithril."),
    ],
    // `mithril_catalog.get_default_instance_type` has no defaults: the
    // cheapest type of all. Spot is supported (the catalog has spot prices).
    catalog_rules: Some(CatalogRules::PLAIN),
};
