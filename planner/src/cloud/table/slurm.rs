//! Slurm as data (`sky/clouds/slurm.py`, `sky/catalog/slurm_catalog.py`).

use super::prelude::*;

/// Slurm's entry of the cloud table.
pub(super) const SPEC: CloudSpec = CloudSpec {
    id: CloudId::Slurm,
    name: "slurm",
    aliases: &[],
    repr: "Slurm",
    class_repr: None,
    catalog_pull: CatalogPull::NotHosted,
    // A virtual catalog from the clusters' nodes (`planner::catalog::slurm`).
    has_catalog: false,
    local_catalog: None,
    listing_label: None,
    no_zones: None,
    storage: StorageRule::Unsupported,
    // `Slurm._check_compute_credentials`: `~/.slurm/config` must exist,
    // parse and name a cluster; the adapter then asks each login node
    // for its nodes and partitions (`optimizer::clouds::slurm`).
    detection: Detection::Adapter,
    // `Slurm._unsupported_features_for_resources` for a plain request
    // (Docker images need Pyxis and storage mounts FUSE on some cluster;
    // the optimizer never asks for either, so they are not probed).
    unsupported: &[
        (
            Autostop,
            "Autostop is supported only for container clusters on Slurm clusters with Pyxis installed.",
        ),
        (
            Stop,
            "Stopping is supported only for container clusters on Slurm clusters with Pyxis installed.",
        ),
        (SpotInstance, "Spot instances are not supported in Slurm."),
        (
            CustomMultiNetwork,
            "Customized multiple network interfaces are not supported in Slurm.",
        ),
        (OpenPorts, "Opening ports is not supported in Slurm."),
        (
            HostControllers,
            "Running controllers is not well tested with Slurm.",
        ),
        (LocalDisk, "Local disk is not supported on Slurm"),
        (
            DockerImage,
            "Docker image is not supported on this Slurm cluster because the Pyxis plugin is not installed. Please ask your cluster administrator to install Pyxis (https://github.com/NVIDIA/pyxis).",
        ),
        (
            StorageMounting,
            "Storage mounting is not supported on this Slurm cluster because FUSE is not enabled (/dev/fuse not found). Please ask your cluster administrator to enable FUSE.",
        ),
    ],
    // `slurm_catalog.get_default_instance_type` (2 vCPUs, 1× memory, 0
    // when no cluster tracks memory) and `Slurm._get_feasible_launchable_resources`
    // are Slurm's own (`feasibility::slurm`).
    catalog_rules: None,
};
