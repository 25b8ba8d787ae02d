//! SCP as data (`sky/clouds/scp.py`, `sky/catalog/scp_catalog.py`).

use super::prelude::*;

/// SCP's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Scp,
    name: "scp",
    aliases: &[],
    repr: "SCP",
    class_repr: None,
    catalog_pull: CatalogPull::IfMissing,
    has_catalog: true,
    local_catalog: None,
    // `scp_catalog.list_accelerators`: `list_accelerators_impl('scp', ...)`.
    listing_label: Some("scp"),
    // `scp_catalog.validate_region_zone`.
    no_zones: Some("SCP Cloud does not support zones."),
    storage: StorageRule::Unsupported,
    // `SCP._check_compute_credentials` builds `scp_utils.SCPClient`,
    // which needs `access_key`, `secret_key` and `project_id` lines in
    // `~/.scp/scp_credential`, then lists instances over the network
    // (not done offline).
    detection: Detection::Files {
        credentials: &[Credential::HomeFileKeys {
            path: ".scp/scp_credential",
            syntax: KeySyntax::Assignments,
            keys: &["access_key", "secret_key", "project_id"],
        }],
        hint: "SCP credentials not found. Generate an API key (https://cloud.samsungsds.com/openapiguide) and add these lines to ~/.scp/scp_credential: access_key = <API access key>, secret_key = <API secret key>, project_id = <project id>",
    },
    // `SCP._unsupported_features_for_resources` for a plain request.
    unsupported: &[
        (
            CloneDiskFromCluster,
            "Migrating disk is currently not supported on SCP.",
        ),
        (
            ImageId,
            "Specifying image ID is currently not supported on SCP.",
        ),
        (
            DockerImage,
            "Docker image is currently not supported on SCP. You can try running docker command inside the `run` section in task.yaml.",
        ),
        (SpotInstance, "Spot instances are not supported in SCP."),
        (
            CustomDiskTier,
            "Custom disk tiers are not supported in SCP.",
        ),
        (
            CustomNetworkTier,
            "Custom network tier is currently not supported in SCP.",
        ),
        (
            HighAvailabilityControllers,
            "High availability controllers are not supported on SCP.",
        ),
        (
            CustomMultiNetwork,
            "Customized multiple network interfaces are not supported on SCP.",
        ),
        (LocalDisk, "Local disk is not supported on SCP"),
    ],
    // `scp_catalog.get_default_instance_type`: exactly 8 vCPUs (`'8'`,
    // not `8+`) with memory at least twice that. Disk-size limits and
    // region order: `feasibility::scp`.
    catalog_rules: Some(CatalogRules {
        default_cpus: Some("8"),
        default_memory: Some("2x"),
        ..CatalogRules::PLAIN
    }),
};
