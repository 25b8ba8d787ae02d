//! PrimeIntellect as data (`sky/clouds/primeintellect.py`, `sky/catalog/primeintellect_catalog.py`).

use super::prelude::*;

/// PrimeIntellect's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::PrimeIntellect,
    name: "primeintellect",
    aliases: &[],
    repr: "PrimeIntellect",
    class_repr: None,
    catalog_pull: CatalogPull::IfMissing,
    has_catalog: true,
    local_catalog: None,
    // `primeintellect_catalog.list_accelerators`: `list_accelerators_impl('PrimeIntellect', ...)`.
    listing_label: Some("PrimeIntellect"),
    no_zones: None,
    storage: StorageRule::Unsupported,
    // `PrimeIntellect._check_credentials`: `~/.prime/config.json` is a
    // file ("~/.prime/config.json does not exist." otherwise); the
    // `list_instances` call that follows is not made offline.
    detection: Detection::Files {
        credentials: &[Credential::HomeFile(".prime/config.json")],
        hint: "PrimeIntellect credentials not found: ~/.prime/config.json does not exist. Run: prime login",
    },
    // `PrimeIntellect._unsupported_features_for_resources` for a plain request.
    unsupported: &[
        (Autostop, "Stopping not supported."),
        (Autodown, "Auto down not supported yet."),
        (Stop, "Stopping not supported."),
        (MultiNode, "Multi-node not supported yet."),
        (CustomDiskTier, "Custom disk tier not supported yet."),
        (CustomNetworkTier, "Custom network tier not supported yet."),
        (
            CustomMultiNetwork,
            "Customized multiple network interfaces are not supported",
        ),
        (ImageId, "Custom image not supported yet."),
        (DockerImage, "Custom docker image not supported yet."),
        (LocalDisk, "Local disk is not supported yet."),
    ],
    // `PrimeIntellect._get_feasible_launchable_resources`: no default
    // vCPUs or memory; the default type is looked up without the
    // request's region/zone; the accelerator search is not given the
    // memory; `_make` copies the memory onto the candidates.
    catalog_rules: Some(CatalogRules {
        accelerator_ignores_memory: true,
        candidates_keep_memory: true,
        default_ignores_location: true,
        ..CatalogRules::PLAIN
    }),
};
