//! IBM as data (`sky/clouds/ibm.py`, `sky/catalog/ibm_catalog.py`).

use super::prelude::*;

/// IBM's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Ibm,
    name: "ibm",
    aliases: &[],
    repr: "IBM",
    class_repr: None,
    catalog_pull: CatalogPull::IfMissing,
    has_catalog: true,
    local_catalog: None,
    // `ibm_catalog.list_accelerators`: `list_accelerators_impl('IBM', ...)`.
    listing_label: Some("IBM"),
    no_zones: None,
    // `_check_storage_credentials`: `return cls._check_credentials()`.
    storage: StorageRule::SameAsCompute,
    // `IBM._check_credentials`: `~/.ibm/credentials.yaml` must hold
    // `iam_api_key` and `resource_group_id` (the client it then builds
    // makes no request; the COS keys are only logged about).
    detection: Detection::Files {
        credentials: &[Credential::HomeFileKeys {
            path: ".ibm/credentials.yaml",
            syntax: KeySyntax::Yaml,
            keys: &["iam_api_key", "resource_group_id"],
        }],
        hint: "IBM credentials not found. Store your API key and resource group id in ~/.ibm/credentials.yaml as: iam_api_key: <IAM_API_KEY> and resource_group_id: <RESOURCE_GROUP_ID>",
    },
    // `IBM._unsupported_features_for_resources` for a plain request.
    unsupported: &[
        (
            CloneDiskFromCluster,
            "Migrating disk is currently not supported on IBM.",
        ),
        (
            DockerImage,
            "Docker image is currently not supported on IBM. You can try running docker command inside the `run` section in task.yaml.",
        ),
        (
            CustomDiskTier,
            "Custom disk tier is currently not supported on IBM.",
        ),
        (
            OpenPorts,
            "Opening ports is currently not supported on IBM.",
        ),
        (
            HighAvailabilityControllers,
            "High availability controllers are not supported on IBM.",
        ),
        (
            CustomMultiNetwork,
            "Customized multiple network interfaces are not supported on IBM.",
        ),
        (LocalDisk, "Local disk is not supported on IBM"),
    ],
    // `ibm_catalog.get_default_instance_type`: `bx2-*` with 8+ vCPUs and
    // 32+ GB (the 32+ applies whenever memory is not asked for, even
    // with cpus). Spot and accelerator quirks: `feasibility::ibm`.
    catalog_rules: Some(CatalogRules {
        default_cpus: Some("8+"),
        default_memory: Some("32+"),
        default_family: InstanceFamily::Prefixes(&["bx2-"]),
        ..CatalogRules::PLAIN
    }),
};
