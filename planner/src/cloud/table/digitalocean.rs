//! DO as data (`sky/clouds/do.py`, `sky/catalog/do_catalog.py`).

use super::prelude::*;

/// DO's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Do,
    name: "do",
    aliases: &["digitalocean"],
    repr: "DO",
    class_repr: None,
    catalog_pull: CatalogPull::IfMissing,
    has_catalog: true,
    local_catalog: None,
    // `do_catalog.list_accelerators`: `list_accelerators_impl('DO', ...)`.
    listing_label: Some("DO"),
    // `do_catalog.validate_region_zone`.
    no_zones: Some("DO does not support zones."),
    storage: StorageRule::Unsupported,
    // `DO._check_compute_credentials` lists droplets with the token of
    // the first doctl config found (`do_utils.get_credentials_path`:
    // the macOS path, then `$XDG_CONFIG_HOME` or `~/.config/`); offline,
    // the config file is the credential. The hint follows
    // `_init_client`'s "No credentials found, please run `doctl auth init`".
    detection: Detection::Files {
        credentials: &[
            Credential::HomeFile("Library/Application Support/doctl/config.yaml"),
            Credential::FileInEnvDir {
                dir_var: "XDG_CONFIG_HOME",
                default_dir: ".config",
                file: "doctl/config.yaml",
            },
        ],
        hint: "DO credentials not found. Run: doctl auth init (writes ~/.config/doctl/config.yaml)",
    },
    // `DO._unsupported_features_for_resources` for a plain request.
    unsupported: &[
        (
            CloneDiskFromCluster,
            "Migrating disk is not supported in DO.",
        ),
        (SpotInstance, "Spot instances are not supported in DO."),
        (CustomDiskTier, "Custom disk tiers is not supported in DO."),
        (
            CustomNetworkTier,
            "Custom network tier is currently not supported in DO.",
        ),
        (
            HighAvailabilityControllers,
            "High availability controllers are not supported in DO.",
        ),
        (
            CustomMultiNetwork,
            "Customized multiple network interfaces are not supported in DO.",
        ),
        (LocalDisk, "Local disk is not supported on DO"),
    ],
    // `do_catalog.get_default_instance_type` has no default vCPUs or
    // memory: the cheapest type of all. `DO._get_feasible_launchable_resources`'
    // `_make` copies the request's memory onto its candidates.
    catalog_rules: Some(CatalogRules {
        candidates_keep_memory: true,
        ..CatalogRules::PLAIN
    }),
};
