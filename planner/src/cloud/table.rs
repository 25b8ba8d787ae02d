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
];
