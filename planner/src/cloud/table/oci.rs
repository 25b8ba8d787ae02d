//! OCI as data (`sky/clouds/oci.py`, `sky/catalog/oci_catalog.py`).

use super::prelude::*;

/// OCI's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Oci,
    name: "oci",
    aliases: &[],
    repr: "OCI",
    class_repr: None,
    catalog_pull: CatalogPull::IfMissing,
    has_catalog: true,
    local_catalog: None,
    // `oci_catalog.list_accelerators`: `list_accelerators_impl('OCI', ...)`.
    listing_label: Some("OCI"),
    no_zones: None,
    // `_check_storage_credentials`: the S3-compatible profile, else its compute check.
    storage: StorageRule::Own,
    // `OCI._check_credentials` needs `~/.oci/config` (or `$OCI_CONFIG`)
    // and then calls the identity API; the adapter
    // (`optimizer::clouds::oci`) reads the profile and lists the
    // tenancy's subscribed regions.
    detection: Detection::Adapter,
    // `OCI._unsupported_features_for_resources` for a plain request
    // (stopping spot instances is added per request).
    unsupported: &[
        (
            CloneDiskFromCluster,
            "Migrating disk is currently not supported on OCI.",
        ),
        (
            DockerImage,
            "Docker image is currently not supported on OCI. You can try running docker command inside the `run` section in task.yaml.",
        ),
        (
            HighAvailabilityControllers,
            "High availability controllers are not supported on OCI.",
        ),
        (
            CustomMultiNetwork,
            "Customized multiple network interfaces are not supported on OCI.",
        ),
        (LocalDisk, "Local disk is not supported on OCI"),
    ],
    // `oci_utils.OCIConfig`: `DEFAULT_NUM_VCPUS` 8, `DEFAULT_MEMORY_CPU_RATIO`
    // 4, `DEFAULT_INSTANCE_FAMILY` `VM.Standard.E` and `VM.Standard3`;
    // `oci_catalog.get_default_instance_type` defaults the vCPUs even
    // when memory is given and drops every type for disk_tier ultra.
    // Regions the tenancy does not subscribe to are dropped from the
    // catalog: `planner::catalog::oci`.
    catalog_rules: Some(CatalogRules {
        default_cpus: Some("8+"),
        default_memory: Some("4x"),
        default_family: InstanceFamily::Prefixes(&["VM.Standard.E", "VM.Standard3"]),
        default_cpus_with_memory: true,
        default_rejects_ultra_disk: true,
        ..CatalogRules::PLAIN
    }),
};
