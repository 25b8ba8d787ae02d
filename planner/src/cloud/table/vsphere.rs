//! vSphere as data (`sky/clouds/vsphere.py`, `sky/catalog/vsphere_catalog.py`).

use super::prelude::*;

/// vSphere's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Vsphere,
    name: "vsphere",
    aliases: &[],
    repr: "vSphere",
    class_repr: None,
    catalog_pull: CatalogPull::NotHosted,
    has_catalog: true,
    // `Vsphere._check_compute_credentials` calls
    // `vsphere_utils.initialize_vsphere_data`, which writes the file from
    // the vCenter inventory (`fetch_vsphere.initialize_vms_csv`).
    local_catalog: Some(LocalCatalog {
        // `vsphere_catalog.VSPHERE_CATALOG_HEADER`, what `_get_df` reads then.
        header: "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone",
        built_by: "SkyPilot builds it from your vCenter inventory when it checks vSphere: run `sky check vsphere` with SkyPilot (pip install \"skypilot[vsphere]\"), then launch again",
    }),
    // `vsphere_catalog.list_accelerators`: `list_accelerators_impl(_CLOUD_VSPHERE, ...)`.
    listing_label: Some("vsphere"),
    no_zones: None,
    storage: StorageRule::Unsupported,
    // `Vsphere._check_compute_credentials`: `~/.vsphere/credential.yaml`
    // lists `vcenters`, each with `name`, `username`, `password` and
    // `clusters`; SkyPilot then logs in to each vCenter and builds the
    // catalog (network, not done offline; see `local_catalog`).
    detection: Detection::Files {
        credentials: &[Credential::HomeFileKeys {
            path: ".vsphere/credential.yaml",
            syntax: KeySyntax::Yaml,
            keys: &[
                "vcenters[].name",
                "vcenters[].username",
                "vcenters[].password",
                "vcenters[].clusters",
            ],
        }],
        hint: "vSphere credentials not found. List your vCenters in ~/.vsphere/credential.yaml (vcenters: each with name, username, password and clusters), see https://docs.skypilot.co/en/latest/getting-started/installation.html#vmware-vsphere",
    },
    // `Vsphere._unsupported_features_for_resources` for a plain request.
    unsupported: &[
        (
            MultiNode,
            "Multi-node is not supported by the vSphere implementation yet.",
        ),
        (
            CloneDiskFromCluster,
            "Migrating disk is currently not supported on vSphere.",
        ),
        (
            ImageId,
            "Specifying image id is currently not supported on vSphere.",
        ),
        (
            DockerImage,
            "Docker image is currently not supported on vSphere. You can try running docker command inside the `run` section in task.yaml.",
        ),
        (SpotInstance, "Spot instances are not supported in vSphere."),
        (
            CustomDiskTier,
            "Custom disk tiers are not supported in vSphere.",
        ),
        (
            CustomNetworkTier,
            "Custom network tier is currently not supported in vSphere.",
        ),
        (
            OpenPorts,
            "Opening ports is currently not supported on vSphere.",
        ),
        (
            HighAvailabilityControllers,
            "High availability controllers are not supported on vSphere.",
        ),
        (
            CustomMultiNetwork,
            "Customized multiple network interfaces are not supported on vSphere.",
        ),
        (LocalDisk, "Local disk is not supported on vSphere"),
    ],
    // `vsphere_catalog.get_default_instance_type`: 2+ vCPUs, memory at
    // least 4x. Zone and price quirks: `feasibility::vsphere`.
    catalog_rules: Some(CatalogRules {
        default_cpus: Some("2+"),
        default_memory: Some("4x"),
        ..CatalogRules::PLAIN
    }),
};
