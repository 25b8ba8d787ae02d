//! The clouds, as data: one [`CloudSpec`] per cloud, in [`CloudId::ALL`]
//! order. Reasons are SkyPilot 0.14.1's text (`_CLOUD_UNSUPPORTED_FEATURES`
//! in `sky/clouds/<cloud>.py`, `_REPR` substituted); catalog rules come from
//! `sky/catalog/<cloud>_catalog.py`.

use super::spec::{CatalogRules, CloudSpec, Credential, Detection, InstanceFamily};
use super::{CloudId, Feature};

use Feature::*;

/// Every cloud's spec, indexed by `CloudId as usize`.
pub(super) static CLOUDS: [CloudSpec; CloudId::ALL.len()] = [
    CloudSpec {
        id: CloudId::Aws,
        name: "aws",
        aliases: &[],
        repr: "AWS",
        has_catalog: true,
        detection: Detection::Adapter,
        // `AWS._unsupported_features_for_resources` (stopping spot
        // instances is added per request).
        unsupported: &[
            (
                HighAvailabilityControllers,
                "High availability controllers are not supported on AWS.",
            ),
            (
                CustomMultiNetwork,
                "Customized multiple network interfaces are not supported on AWS.",
            ),
        ],
        catalog_rules: Some(CatalogRules {
            default_cpus: Some("8+"),
            default_memory: Some("4x"),
            // `aws_catalog._DEFAULT_INSTANCE_FAMILY`, each as `<family>.`.
            default_family: InstanceFamily::Prefixes(&[
                "m6i.", "m6id.", "m7i.", "r6i.", "r6id.", "r7i.", "c6i.", "c6id.", "c7i.",
            ]),
            instance_type_needs_offering: true,
            ..CatalogRules::PLAIN
        }),
    },
    CloudSpec {
        id: CloudId::Gcp,
        name: "gcp",
        aliases: &[],
        repr: "GCP",
        has_catalog: true,
        detection: Detection::Adapter,
        // `GCP._unsupported_features_for_resources` (TPU and MIG cases are
        // per request).
        unsupported: &[
            (
                HighAvailabilityControllers,
                "High availability controllers are not supported on GCP.",
            ),
            (LocalDisk, "Local disk is not supported on GCP"),
        ],
        // GCP's host-VM and TPU rules are its own (`feasibility::gcp`).
        catalog_rules: None,
    },
    CloudSpec {
        id: CloudId::Azure,
        name: "azure",
        aliases: &[],
        repr: "Azure",
        has_catalog: true,
        detection: Detection::Files {
            credentials: &[Credential::HomeFile(".azure/azureProfile.json")],
            hint: "Azure credentials are not set. Run: az login",
        },
        unsupported: &[
            (
                CloneDiskFromCluster,
                "Migrating disk is currently not supported on Azure.",
            ),
            (
                HighAvailabilityControllers,
                "High availability controllers are not supported on Azure.",
            ),
            (
                CustomNetworkTier,
                "Custom network tier is not supported on Azure.",
            ),
            (
                CustomMultiNetwork,
                "Customized multiple network interfaces are not supported on Azure.",
            ),
            (LocalDisk, "Local disk is not supported on Azure"),
        ],
        catalog_rules: Some(CatalogRules {
            default_cpus: Some("8+"),
            default_memory: Some("4x"),
            default_family: InstanceFamily::Azure(&["Ds_v5", "Es_v5", "Fs_v2"]),
            rejects_ultra_disk: true,
            ..CatalogRules::PLAIN
        }),
    },
    CloudSpec {
        id: CloudId::Lambda,
        name: "lambda",
        aliases: &[],
        repr: "Lambda",
        has_catalog: true,
        detection: Detection::Files {
            credentials: &[Credential::HomeFile(".lambda_cloud/lambda_keys")],
            hint: "Lambda credentials not found. Put your API key in ~/.lambda_cloud/lambda_keys as: api_key = <key>",
        },
        unsupported: &[
            (Stop, "Lambda cloud does not support stopping VMs."),
            (
                CloneDiskFromCluster,
                "Migrating disk is currently not supported on Lambda.",
            ),
            (SpotInstance, "Spot instances are not supported in Lambda."),
            (ImageId, "Specifying image ID is not supported in Lambda."),
            (
                CustomDiskTier,
                "Custom disk tiers are not supported in Lambda.",
            ),
            (
                CustomNetworkTier,
                "Custom network tier is currently not supported in Lambda.",
            ),
            (
                HostControllers,
                "Host controllers are not supported in Lambda.",
            ),
            (
                HighAvailabilityControllers,
                "High availability controllers are not supported on Lambda.",
            ),
            (
                CustomMultiNetwork,
                "Customized multiple network interfaces are not supported in Lambda.",
            ),
            (LocalDisk, "Local disk is not supported on Lambda"),
        ],
        catalog_rules: Some(CatalogRules {
            default_cpus: Some("30+"),
            default_memory: Some("4x"),
            ..CatalogRules::PLAIN
        }),
    },
    CloudSpec {
        id: CloudId::Runpod,
        name: "runpod",
        aliases: &[],
        repr: "RunPod",
        has_catalog: true,
        detection: Detection::Files {
            credentials: &[Credential::HomeFile(".runpod/config.toml")],
            hint: "RunPod credentials not found. Run: runpod config",
        },
        unsupported: &[
            (Stop, "Stopping not supported."),
            (
                MultiNode,
                "Multi-node not supported yet, as the interconnection among nodes are non-trivial on RunPod.",
            ),
            (
                CustomDiskTier,
                "Customizing disk tier is not supported yet on RunPod.",
            ),
            (
                CustomNetworkTier,
                "Custom network tier is not supported yet on RunPod.",
            ),
            (
                StorageMounting,
                "Mounting object stores is not supported on RunPod. To read data from object stores on RunPod, use `mode: COPY` to copy the data to local disk.",
            ),
            (
                HighAvailabilityControllers,
                "High availability controllers are not supported on RunPod.",
            ),
            (
                CustomMultiNetwork,
                "Customized multiple network interfaces are not supported on RunPod.",
            ),
            (LocalDisk, "Local disk is not supported on RunPod"),
        ],
        catalog_rules: Some(CatalogRules {
            accelerator_ignores_memory: true,
            candidates_keep_memory: true,
            ..CatalogRules::PLAIN
        }),
    },
    CloudSpec {
        id: CloudId::Paperspace,
        name: "paperspace",
        aliases: &[],
        repr: "Paperspace",
        has_catalog: true,
        detection: Detection::Files {
            credentials: &[Credential::HomeFile(".paperspace/config.json")],
            hint: "Paperspace credentials not found. Put your API key in ~/.paperspace/config.json",
        },
        unsupported: &[
            (
                CloneDiskFromCluster,
                "Migrating disk is not supported in Paperspace.",
            ),
            (
                SpotInstance,
                "Spot instances are not supported in Paperspace.",
            ),
            (
                ImageId,
                "Specifying image ID is not supported for Paperspace.",
            ),
            (
                CustomDiskTier,
                "Custom disk tiers is not supported in Paperspace.",
            ),
            (
                CustomNetworkTier,
                "Custom network tier is currently not supported in Paperspace.",
            ),
            (
                HighAvailabilityControllers,
                "High availability controllers are not supported in Paperspace.",
            ),
            (
                CustomMultiNetwork,
                "Customized multiple network interfaces are not supported in Paperspace.",
            ),
            (LocalDisk, "Local disk is not supported on Paperspace"),
        ],
        catalog_rules: Some(CatalogRules::PLAIN),
    },
    CloudSpec {
        id: CloudId::Cudo,
        name: "cudo",
        aliases: &[],
        repr: "Cudo",
        has_catalog: true,
        detection: Detection::Files {
            credentials: &[Credential::HomeFile(".config/cudo/cudo.yml")],
            hint: "Cudo credentials not found. Run: cudoctl init",
        },
        unsupported: &[
            (Stop, "Stopping not supported."),
            (
                SpotInstance,
                "Spot is not supported, as Cudo API does not implement spot.",
            ),
            (
                CustomDiskTier,
                "Custom disk tier is currently not supported on Cudo Compute",
            ),
            (
                CustomNetworkTier,
                "Custom network tier is currently not supported on Cudo Compute",
            ),
            (ImageId, "Image ID is currently not supported on Cudo. "),
            (
                DockerImage,
                "Docker image is currently not supported on Cudo. You can try running docker command inside the `run` section in task.yaml.",
            ),
            (
                HostControllers,
                "Cudo Compute cannot host a controller as it does not autostopping, which will leave the controller to run indefinitely.",
            ),
            (
                HighAvailabilityControllers,
                "High availability controllers are not supported on Cudo.",
            ),
            (
                CustomMultiNetwork,
                "Customized multiple network interfaces are not supported on Cudo.",
            ),
            (LocalDisk, "Local disk is not supported on Cudo"),
        ],
        catalog_rules: Some(CatalogRules {
            default_cpus: Some("8+"),
            default_memory: Some("2x"),
            ..CatalogRules::PLAIN
        }),
    },
    CloudSpec {
        id: CloudId::Kubernetes,
        name: "kubernetes",
        aliases: &["k8s"],
        repr: "Kubernetes",
        has_catalog: false,
        detection: Detection::Adapter,
        // `Kubernetes._CLOUD_UNSUPPORTED_FEATURES`; a context with a spot
        // label or high-performance networking lifts spot/network tier.
        unsupported: &[
            (Stop, "Kubernetes does not support stopping VMs."),
            (
                SpotInstance,
                "Spot instances are not supported in Kubernetes.",
            ),
            (
                CustomDiskTier,
                "Custom disk tiers are not supported in Kubernetes.",
            ),
            (
                CustomMultiNetwork,
                "Customized multiple network interfaces are not supported in Kubernetes.",
            ),
            (
                CustomNetworkTier,
                "Custom network tier is not supported in this Kubernetes cluster.",
            ),
            (LocalDisk, "Local disk is not supported on Kubernetes"),
        ],
        catalog_rules: None,
    },
    CloudSpec {
        id: CloudId::Do,
        name: "do",
        aliases: &["digitalocean"],
        repr: "DO",
        has_catalog: true,
        // TODO(issue-10): credential detection as `DO._check_compute_credentials` does it.
        detection: Detection::Files {
            credentials: &[],
            hint: "",
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
        // TODO(issue-10): the rules of `sky/catalog/do_catalog.py` and `DO._get_feasible_launchable_resources`.
        catalog_rules: Some(CatalogRules::PLAIN),
    },
    CloudSpec {
        id: CloudId::Fluidstack,
        name: "fluidstack",
        aliases: &[],
        repr: "Fluidstack",
        has_catalog: true,
        // TODO(issue-10): credential detection as `Fluidstack._check_compute_credentials` does it.
        detection: Detection::Files {
            credentials: &[],
            hint: "",
        },
        // `Fluidstack._unsupported_features_for_resources` for a plain request.
        unsupported: &[
            (
                Stop,
                "Stopping clusters in FluidStack is not supported in SkyPilot",
            ),
            (
                CloneDiskFromCluster,
                "Migrating disk is not supported in Fluidstack.",
            ),
            (
                SpotInstance,
                "Spot instances are not supported in Fluidstack.",
            ),
            (
                ImageId,
                "Specifying image ID is not supported for Fluidstack.",
            ),
            (
                CustomDiskTier,
                "Custom disk tiers is not supported in Fluidstack.",
            ),
            (
                CustomNetworkTier,
                "Custom network tier is currently not supported in Fluidstack.",
            ),
            (
                HostControllers,
                "Host controllers are not supported in Fluidstack.",
            ),
            (
                HighAvailabilityControllers,
                "High availability controllers are not supported in Fluidstack.",
            ),
            (
                CustomMultiNetwork,
                "Customized multiple network interfaces are not supported in Fluidstack.",
            ),
            (LocalDisk, "Local disk is not supported on Fluidstack"),
        ],
        // TODO(issue-10): the rules of `sky/catalog/fluidstack_catalog.py` and `Fluidstack._get_feasible_launchable_resources`.
        catalog_rules: Some(CatalogRules::PLAIN),
    },
    CloudSpec {
        id: CloudId::Hyperbolic,
        name: "hyperbolic",
        aliases: &[],
        repr: "Hyperbolic",
        has_catalog: true,
        // TODO(issue-10): credential detection as `Hyperbolic._check_compute_credentials` does it.
        detection: Detection::Files {
            credentials: &[],
            hint: "",
        },
        // `Hyperbolic._unsupported_features_for_resources` for a plain request.
        unsupported: &[
            (Stop, "Stopping not supported."),
            (MultiNode, "Multi-node not supported."),
            (CustomDiskTier, "Custom disk tiers not supported."),
            (StorageMounting, "Storage mounting not supported."),
            (
                HighAvailabilityControllers,
                "High availability controllers not supported.",
            ),
            (SpotInstance, "Spot instances not supported."),
            (CloneDiskFromCluster, "Disk cloning not supported."),
            (DockerImage, "Docker images not supported."),
            (OpenPorts, "Opening ports not supported."),
            (ImageId, "Custom image IDs not supported."),
            (CustomNetworkTier, "Custom network tiers not supported."),
            (HostControllers, "Host controllers not supported."),
            (AutoTerminate, "Auto-termination not supported."),
            (Autostop, "Auto-stop not supported."),
            (Autodown, "Auto-down not supported."),
            (
                CustomMultiNetwork,
                "Customized multiple network interfaces not supported.",
            ),
            (LocalDisk, "Local disk is not supported on Hyperbolic"),
        ],
        // TODO(issue-10): the rules of `sky/catalog/hyperbolic_catalog.py` and `Hyperbolic._get_feasible_launchable_resources`.
        catalog_rules: Some(CatalogRules::PLAIN),
    },
    CloudSpec {
        id: CloudId::Ibm,
        name: "ibm",
        aliases: &[],
        repr: "IBM",
        has_catalog: true,
        // TODO(issue-10): credential detection as `IBM._check_compute_credentials` does it.
        detection: Detection::Files {
            credentials: &[],
            hint: "",
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
        // TODO(issue-10): the rules of `sky/catalog/ibm_catalog.py` and `IBM._get_feasible_launchable_resources`.
        catalog_rules: Some(CatalogRules::PLAIN),
    },
    CloudSpec {
        id: CloudId::Mithril,
        name: "mithril",
        aliases: &[],
        repr: "Mithril",
        has_catalog: true,
        // TODO(issue-10): credential detection as `Mithril._check_compute_credentials` does it.
        detection: Detection::Files {
            credentials: &[],
            hint: "",
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
        // TODO(issue-10): the rules of `sky/catalog/mithril_catalog.py` and `Mithril._get_feasible_launchable_resources`.
        catalog_rules: Some(CatalogRules::PLAIN),
    },
    CloudSpec {
        id: CloudId::Nebius,
        name: "nebius",
        aliases: &[],
        repr: "Nebius",
        has_catalog: true,
        // TODO(issue-10): credential detection as `Nebius._check_compute_credentials` does it.
        detection: Detection::Files {
            credentials: &[],
            hint: "",
        },
        // `Nebius._unsupported_features_for_resources` for a plain request.
        unsupported: &[
            (
                CloneDiskFromCluster,
                "Migrating disk is currently not supported on Nebius.",
            ),
            (
                CustomNetworkTier,
                "Custom network tier is currently only supported for H100:8, H200:8, B200:8 and B300:8 on Nebius.",
            ),
            (
                HighAvailabilityControllers,
                "High availability controllers are not supported on Nebius.",
            ),
            (
                CustomMultiNetwork,
                "Customized multiple network interfaces are not supported on Nebius.",
            ),
            (LocalDisk, "Local disk is not supported on Nebius"),
        ],
        // TODO(issue-10): the rules of `sky/catalog/nebius_catalog.py` and `Nebius._get_feasible_launchable_resources`.
        catalog_rules: Some(CatalogRules::PLAIN),
    },
    CloudSpec {
        id: CloudId::Oci,
        name: "oci",
        aliases: &[],
        repr: "OCI",
        has_catalog: true,
        // TODO(issue-10): credential detection as `OCI._check_compute_credentials` does it.
        detection: Detection::Files {
            credentials: &[],
            hint: "",
        },
        // `OCI._unsupported_features_for_resources` for a plain request.
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
        // TODO(issue-10): the rules of `sky/catalog/oci_catalog.py` and `OCI._get_feasible_launchable_resources`.
        catalog_rules: Some(CatalogRules::PLAIN),
    },
    CloudSpec {
        id: CloudId::PrimeIntellect,
        name: "primeintellect",
        aliases: &[],
        repr: "PrimeIntellect",
        has_catalog: true,
        // TODO(issue-10): credential detection as `PrimeIntellect._check_compute_credentials` does it.
        detection: Detection::Files {
            credentials: &[],
            hint: "",
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
        // TODO(issue-10): the rules of `sky/catalog/primeintellect_catalog.py` and `PrimeIntellect._get_feasible_launchable_resources`.
        catalog_rules: Some(CatalogRules::PLAIN),
    },
    CloudSpec {
        id: CloudId::Scp,
        name: "scp",
        aliases: &[],
        repr: "SCP",
        has_catalog: true,
        // TODO(issue-10): credential detection as `SCP._check_compute_credentials` does it.
        detection: Detection::Files {
            credentials: &[],
            hint: "",
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
        // TODO(issue-10): the rules of `sky/catalog/scp_catalog.py` and `SCP._get_feasible_launchable_resources`.
        catalog_rules: Some(CatalogRules::PLAIN),
    },
    CloudSpec {
        id: CloudId::Seeweb,
        name: "seeweb",
        aliases: &[],
        repr: "Seeweb",
        has_catalog: true,
        // TODO(issue-10): credential detection as `Seeweb._check_compute_credentials` does it.
        detection: Detection::Files {
            credentials: &[],
            hint: "",
        },
        // `Seeweb._unsupported_features_for_resources` for a plain request.
        unsupported: &[
            (
                MultiNode,
                "Multi-node not supported. Seeweb does not support multi-node clusters.",
            ),
            (
                CustomDiskTier,
                "Custom disk tiers not supported. Seeweb does not support custom disk tiers.",
            ),
            (
                StorageMounting,
                "Storage mounting not supported. Seeweb does not support storage mounting.",
            ),
            (
                HighAvailabilityControllers,
                "High availability controllers not supported. Seeweb does not support high availability controllers.",
            ),
            (
                SpotInstance,
                "Spot instances not supported. Seeweb does not support spot instances.",
            ),
            (
                CloneDiskFromCluster,
                "Disk cloning not supported. Seeweb does not support disk cloning.",
            ),
            (
                ImageId,
                "Custom image IDs not supported. Seeweb does not support custom image IDs.",
            ),
            (
                CustomNetworkTier,
                "Custom network tiers not supported. Seeweb does not support custom network tiers.",
            ),
            (
                HostControllers,
                "Host controllers not supported. Seeweb does not support host controllers.",
            ),
            (
                CustomMultiNetwork,
                "Custom multi-network not supported. Seeweb does not support custom multi-network.",
            ),
            (LocalDisk, "Local disk is not supported on Seeweb"),
        ],
        // TODO(issue-10): the rules of `sky/catalog/seeweb_catalog.py` and `Seeweb._get_feasible_launchable_resources`.
        catalog_rules: Some(CatalogRules::PLAIN),
    },
    CloudSpec {
        id: CloudId::Shadeform,
        name: "shadeform",
        aliases: &[],
        repr: "<Cloud>",
        has_catalog: true,
        // TODO(issue-10): credential detection as `Shadeform._check_compute_credentials` does it.
        detection: Detection::Files {
            credentials: &[],
            hint: "",
        },
        // `Shadeform._unsupported_features_for_resources` for a plain request.
        unsupported: &[
            (Stop, "Stopping instances not supported on Shadeform."),
            (MultiNode, "Multi-node clusters not supported on Shadeform."),
            (SpotInstance, "Spot instances not supported on Shadeform."),
            (
                CustomDiskTier,
                "Custom disk tiers not supported on Shadeform.",
            ),
            (
                CustomNetworkTier,
                "Custom network tiers not supported on Shadeform.",
            ),
            (
                StorageMounting,
                "Object storage mounting not supported on Shadeform.",
            ),
            (
                HostControllers,
                "Host controllers not supported on Shadeform.",
            ),
            (
                HighAvailabilityControllers,
                "High availability controllers not supported.",
            ),
            (
                CloneDiskFromCluster,
                "Disk cloning not supported on Shadeform.",
            ),
            (ImageId, "Custom image IDs not supported on Shadeform."),
            (DockerImage, "Docker images not supported on Shadeform yet."),
            (
                CustomMultiNetwork,
                "Custom multiple network interfaces not supported.",
            ),
            (LocalDisk, "Local disk is not supported on Shadeform."),
        ],
        // TODO(issue-10): the rules of `sky/catalog/shadeform_catalog.py` and `Shadeform._get_feasible_launchable_resources`.
        catalog_rules: Some(CatalogRules::PLAIN),
    },
    CloudSpec {
        id: CloudId::Slurm,
        name: "slurm",
        aliases: &[],
        repr: "Slurm",
        // A virtual catalog from the clusters' nodes (`planner::catalog::slurm`).
        has_catalog: false,
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
    },
    CloudSpec {
        id: CloudId::Ssh,
        name: "ssh",
        aliases: &[],
        repr: "SSH",
        // The Kubernetes virtual catalog over the `ssh-<pool>` contexts.
        has_catalog: false,
        // `SSH._check_compute_credentials`: a pool of
        // `~/.sky/ssh_node_pools.yaml` set up as an `ssh-<pool>` kubeconfig
        // context; the adapter lists their nodes (`optimizer::clouds::ssh`).
        detection: Detection::Adapter,
        // `SSH._unsupported_features_for_resources` for a plain request
        // (Kubernetes' reasons: SSH inherits them).
        unsupported: &[
            (Stop, "Stopping clusters is not supported on Kubernetes."),
            (
                SpotInstance,
                "Spot instances are not supported in Kubernetes.",
            ),
            (
                CustomDiskTier,
                "Custom disk tiers are not supported in Kubernetes.",
            ),
            (
                CustomMultiNetwork,
                "Customized multiple network interfaces are not supported in Kubernetes.",
            ),
            (
                CustomNetworkTier,
                "Custom network tier is not supported in this Kubernetes cluster.",
            ),
            (LocalDisk, "Local disk is not supported on Kubernetes"),
            (Autostop, "Auto-stop is not supported on Kubernetes."),
        ],
        // `Kubernetes.get_default_instance_type` (2 vCPUs, 1× memory) and
        // its feasibility, over SSH's contexts (`feasibility::kubernetes`).
        catalog_rules: None,
    },
    CloudSpec {
        id: CloudId::Vast,
        name: "vast",
        aliases: &[],
        repr: "Vast",
        has_catalog: true,
        // TODO(issue-10): credential detection as `Vast._check_compute_credentials` does it.
        detection: Detection::Files {
            credentials: &[],
            hint: "",
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
        // TODO(issue-10): the rules of `sky/catalog/vast_catalog.py` and `Vast._get_feasible_launchable_resources`.
        catalog_rules: Some(CatalogRules::PLAIN),
    },
    CloudSpec {
        id: CloudId::Verda,
        name: "verda",
        aliases: &[],
        repr: "Verda",
        has_catalog: true,
        // TODO(issue-10): credential detection as `Verda._check_compute_credentials` does it.
        detection: Detection::Files {
            credentials: &[],
            hint: "",
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
        // TODO(issue-10): the rules of `sky/catalog/verda_catalog.py` and `Verda._get_feasible_launchable_resources`.
        catalog_rules: Some(CatalogRules::PLAIN),
    },
    CloudSpec {
        id: CloudId::Vsphere,
        name: "vsphere",
        aliases: &[],
        repr: "vSphere",
        has_catalog: true,
        // TODO(issue-10): credential detection as `Vsphere._check_compute_credentials` does it.
        detection: Detection::Files {
            credentials: &[],
            hint: "",
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
        // TODO(issue-10): the rules of `sky/catalog/vsphere_catalog.py` and `Vsphere._get_feasible_launchable_resources`.
        catalog_rules: Some(CatalogRules::PLAIN),
    },
    CloudSpec {
        id: CloudId::Yotta,
        name: "yotta",
        aliases: &[],
        repr: "Yotta",
        has_catalog: true,
        // TODO(issue-10): credential detection as `Yotta._check_compute_credentials` does it.
        detection: Detection::Files {
            credentials: &[],
            hint: "",
        },
        // `Yotta._unsupported_features_for_resources` for a plain request.
        unsupported: &[
            (Stop, "Stopping not supported."),
            (
                MultiNode,
                "Multi-node not supported yet, as the interconnection among nodes are non-trivial on Yotta.",
            ),
            (
                CloneDiskFromCluster,
                "Disk cloning not supported yet on Yotta.",
            ),
            (SpotInstance, "Spot instances not supported yet on Yotta."),
            (
                CustomDiskTier,
                "Customizing disk tier is not supported yet on Yotta.",
            ),
            (
                CustomNetworkTier,
                "Custom network tier is not supported yet on Yotta.",
            ),
            (
                StorageMounting,
                "Mounting object stores is not supported on Yotta. To read data from object stores on Yotta, use `mode: COPY` to copy the data to local disk.",
            ),
            (
                HostControllers,
                "Host controllers not supported yet on Yotta.",
            ),
            (
                HighAvailabilityControllers,
                "High availability controllers are not supported yet on Yotta.",
            ),
            (
                AutoTerminate,
                "Auto-termination not supported yet on Yotta.",
            ),
            (Autostop, "Auto-stop not supported yet on Yotta."),
            (Autodown, "Auto-down not supported yet on Yotta."),
            (
                CustomMultiNetwork,
                "Customized multiple network interfaces are not supported yet on Yotta.",
            ),
            (
                LocalDisk,
                "Specifying local disks are not supported on Yotta.",
            ),
        ],
        // TODO(issue-10): the rules of `sky/catalog/yotta_catalog.py` and `Yotta._get_feasible_launchable_resources`.
        catalog_rules: Some(CatalogRules::PLAIN),
    },
];
