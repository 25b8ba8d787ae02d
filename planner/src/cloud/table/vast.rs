//! Vast as data (`sky/clouds/vast.py`, `sky/catalog/vast_catalog.py`).

use super::prelude::*;

/// Vast's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Vast,
    name: "vast",
    aliases: &[],
    repr: "Vast",
    class_repr: None,
    catalog_pull: CatalogPull::IfMissing,
    has_catalog: true,
    local_catalog: None,
    // `vast_catalog.list_accelerators`: `list_accelerators_impl('Vast', ...)`.
    listing_label: Some("Vast"),
    // `vast_catalog.validate_region_zone`.
    no_zones: Some("Vast does not support zones."),
    storage: StorageRule::Unsupported,
    // `Vast._check_compute_credentials`: `~/.config/vastai/vast_api_key`
    // exists (it first needs the `vastai_sdk` Python module, which has no
    // counterpart here).
    detection: Detection::Files {
        credentials: &[Credential::HomeFile(".config/vastai/vast_api_key")],
        hint: "Vast credentials not found. Run: pip install vastai; mkdir -p ~/.config/vastai; echo [key] > ~/.config/vastai/vast_api_key",
    },
    // `Vast._unsupported_features_for_resources` for a plain request.
    unsupported: &[
        (
            MultiNode,
            "Multi-node not supported yet, as the interconnection among nodes are non-trivial on Vast.",
        ),
        (
            CustomDiskTier,
            "Customizing disk tier is not supported yet on Vast.",
        ),
        (
            CustomNetworkTier,
            "Custom network tier is currently not supported in Vast.",
        ),
        (
            StorageMounting,
            "Mounting object stores is not supported on Vast.",
        ),
        (
            HighAvailabilityControllers,
            "High availability controllers are not supported on Vast.",
        ),
        (
            CustomMultiNetwork,
            "Customized multiple network interfaces are not supported on Vast.",
        ),
        (LocalDisk, "Local disk is not supported on Vast"),
    ],
    // `Vast._get_feasible_launchable_resources`: no default vCPUs, the
    // accelerator search filters by memory and candidates keep it
    // (`_make` resets only cpus); `vast.datacenter_only` narrows the
    // catalog first (`feasibility::vast`).
    catalog_rules: Some(CatalogRules {
        candidates_keep_memory: true,
        ..CatalogRules::PLAIN
    }),
};
