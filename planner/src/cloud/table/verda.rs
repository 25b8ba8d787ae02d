//! Verda as data (`sky/clouds/verda.py`, `sky/catalog/verda_catalog.py`).

use super::prelude::*;

/// Verda's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Verda,
    name: "verda",
    aliases: &[],
    repr: "Verda",
    class_repr: None,
    catalog_pull: CatalogPull::EveryHours(7),
    has_catalog: true,
    local_catalog: None,
    // `verda_catalog.list_accelerators`: `list_accelerators_impl('Verda', ...)`.
    listing_label: Some("Verda"),
    // `Verda.validate_region_zone`.
    no_zones: Some("Verda does not support zones."),
    storage: StorageRule::Unsupported,
    // `Verda.check_credentials` → `sky/adaptors/verda.py::
    // get_verda_configuration`: the `VERDA_*` pair, the older
    // `DATACRUNCH_*` pair, or `~/.verda/config.json` with a non-empty
    // `client_id` and `client_secret`.
    detection: Detection::Files {
        credentials: &[
            Credential::EnvAll(&["VERDA_CLIENT_ID", "VERDA_CLIENT_SECRET"]),
            Credential::EnvAll(&["DATACRUNCH_CLIENT_ID", "DATACRUNCH_CLIENT_SECRET"]),
            Credential::HomeFileChecked {
                path: ".verda/config.json",
                check: FileCheck::JsonKeys(&["client_id", "client_secret"]),
                invalid: "Verda Cloud Client ID or Client Secret is missing or empty in ~/.verda/config.json",
            },
        ],
        hint: "Verda Cloud configuration not found. Please save your config.json (client_id, client_secret) as ~/.verda/config.json",
    },
    // `Verda._unsupported_features_for_resources` for a plain request.
    unsupported: &[
        (Stop, "Stopping not supported on Verda."),
        (
            MultiNode,
            "Multi-node not supported yet, as the interconnection among nodes are non-trivial on Verda.",
        ),
        (
            CloneDiskFromCluster,
            "Migrating disk is not supported on Verda.",
        ),
        (DockerImage, "Docker images are not supported on Verda."),
        (
            CustomDiskTier,
            "Customizing disk tier is not supported yet on Verda.",
        ),
        (
            CustomNetworkTier,
            "Custom network tier is not supported yet on Verda.",
        ),
        (OpenPorts, "Opening ports is not supported on Verda."),
        (
            StorageMounting,
            "Mounting object stores is not supported on Verda. To read data from object stores on Verda, use `mode: COPY` to copy the data to local disk.",
        ),
        (
            HostControllers,
            "Host controllers are not supported yet on Verda.",
        ),
        (
            HighAvailabilityControllers,
            "High availability controllers are not supported on Verda.",
        ),
        (Autostop, "Auto-stop is not supported on Verda."),
        (Autodown, "Auto-down is not supported on Verda."),
        (
            CustomMultiNetwork,
            "Customized multiple network interfaces are not supported on Verda.",
        ),
        (LocalDisk, "Local disk is not supported on Verda"),
    ],
    // `Verda._get_feasible_launchable_resources`: no default vCPUs; the
    // accelerator search is not given the memory, and candidates keep it.
    catalog_rules: Some(CatalogRules {
        accelerator_ignores_memory: true,
        candidates_keep_memory: true,
        ..CatalogRules::PLAIN
    }),
};
