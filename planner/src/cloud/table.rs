//! The clouds, as data: one [`CloudSpec`] per cloud, in [`CloudId::ALL`]
//! order. Reasons are SkyPilot 0.14.1's text (`_CLOUD_UNSUPPORTED_FEATURES`
//! in `sky/clouds/<cloud>.py`, `_REPR` substituted); catalog rules come from
//! `sky/catalog/<cloud>_catalog.py`.

use super::spec::{
    CatalogPull, CatalogRules, CloudSpec, Credential, Detection, FileCheck, InstanceFamily,
    KeySyntax, LocalCatalog,
};
use super::{CloudId, Feature};

use Feature::*;

/// Every cloud's spec, indexed by `CloudId as usize`.
pub(super) static CLOUDS: [CloudSpec; CloudId::ALL.len()] = [
    CloudSpec {
        id: CloudId::Aws,
        name: "aws",
        aliases: &[],
        repr: "AWS",
        catalog_pull: CatalogPull::EveryHours(7),
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
        catalog_pull: CatalogPull::EveryHours(7),
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
        catalog_pull: CatalogPull::EveryHours(7),
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
        catalog_pull: CatalogPull::EveryHours(7),
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
        catalog_pull: CatalogPull::EveryHours(7),
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
        catalog_pull: CatalogPull::IfMissing,
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
        catalog_pull: CatalogPull::EveryHours(7),
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
        catalog_pull: CatalogPull::NotHosted,
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
        catalog_pull: CatalogPull::IfMissing,
        has_catalog: true,
        // `DO._check_compute_credentials` lists droplets with the token of
        // the first doctl config found (`do_utils.get_credentials_path`:
        // the macOS path, then `$XDG_CONFIG_HOME` or `~/.config/`); offline,
        // the config file is the credential. The hint follows
        // `_init_client`'s "No credentials found, please run `doctl auth init`".
        detection: Detection::Files {
            credentials: &[
                Credential::HomeFile("Library/Application Support/doctl/config.yaml"),
                Credential::FileInEnvDir {
                    dir_var: "XDG_CONFIG_HOME",
                    default_dir: ".config",
                    file: "doctl/config.yaml",
                },
            ],
            hint: "DO credentials not found. Run: doctl auth init (writes ~/.config/doctl/config.yaml)",
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
        // `do_catalog.get_default_instance_type` has no default vCPUs or
        // memory: the cheapest type of all. `DO._get_feasible_launchable_resources`'
        // `_make` copies the request's memory onto its candidates.
        catalog_rules: Some(CatalogRules {
            candidates_keep_memory: true,
            ..CatalogRules::PLAIN
        }),
    },
    CloudSpec {
        id: CloudId::Fluidstack,
        name: "fluidstack",
        aliases: &[],
        repr: "Fluidstack",
        catalog_pull: CatalogPull::IfMissing,
        has_catalog: true,
        // `Fluidstack._check_compute_credentials`: `~/.fluidstack/api_key`
        // exists and its content starts with `api_key`.
        detection: Detection::Files {
            credentials: &[Credential::HomeFileStartingWith {
                path: ".fluidstack/api_key",
                prefix: "api_key",
            }],
            hint: "Fluidstack credentials not found. Get an API key at https://dashboard.fluidstack.io and save it to ~/.fluidstack/api_key",
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
        // `fluidstack_catalog._DEFAULT_NUM_VCPUS` (6, "for gpu_1x_a10") and
        // `_DEFAULT_MEMORY_CPU_RATIO` (4); its regions list US first
        // (`get_region_zones_for_instance_type`, see `catalog::query`).
        catalog_rules: Some(CatalogRules {
            default_cpus: Some("6+"),
            default_memory: Some("4x"),
            ..CatalogRules::PLAIN
        }),
    },
    CloudSpec {
        id: CloudId::Hyperbolic,
        name: "hyperbolic",
        aliases: &[],
        repr: "Hyperbolic",
        catalog_pull: CatalogPull::IfMissing,
        has_catalog: true,
        // `Hyperbolic._check_credentials`: `~/.hyperbolic/api_key` exists
        // ("API key not found at <path>" otherwise).
        detection: Detection::Files {
            credentials: &[Credential::HomeFile(".hyperbolic/api_key")],
            hint: "Hyperbolic credentials not found. Put your API key in ~/.hyperbolic/api_key",
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
        // `hyperbolic_catalog.get_default_instance_type` has no defaults:
        // the cheapest type of all. An instance type missing from the
        // catalog never reaches `_get_feasible_launchable_resources`'
        // `Invalid instance type` (`Resources` validation rejects it first).
        catalog_rules: Some(CatalogRules::PLAIN),
    },
    CloudSpec {
        id: CloudId::Ibm,
        name: "ibm",
        aliases: &[],
        repr: "IBM",
        catalog_pull: CatalogPull::IfMissing,
        has_catalog: true,
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
    },
    CloudSpec {
        id: CloudId::Mithril,
        name: "mithril",
        aliases: &[],
        repr: "Mithril",
        catalog_pull: CatalogPull::EveryHours(7),
        has_catalog: true,
        // `Mithril._check_credentials`: `MITHRIL_API_KEY` and
        // `MITHRIL_PROJECT` both set, else the config file at
        // `mithril_utils.get_credentials_path()` (`$XDG_CONFIG_HOME/mithril/`
        // or `~/.config/mithril/`).
        detection: Detection::Files {
            credentials: &[
                Credential::AllEnv(&["MITHRIL_API_KEY", "MITHRIL_PROJECT"]),
                Credential::FileInEnvDir {
                    dir_var: "XDG_CONFIG_HOME",
                    default_dir: ".config",
                    file: "mithril/config.yaml",
                },
            ],
            hint: "Mithril credentials not found at ~/.config/mithril/config.yaml. Set MITHRIL_API_KEY and MITHRIL_PROJECT, or write that file",
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
        // `mithril_catalog.get_default_instance_type` has no defaults: the
        // cheapest type of all. Spot is supported (the catalog has spot prices).
        catalog_rules: Some(CatalogRules::PLAIN),
    },
    CloudSpec {
        id: CloudId::Nebius,
        name: "nebius",
        aliases: &[],
        repr: "Nebius",
        catalog_pull: CatalogPull::EveryHours(7),
        has_catalog: true,
        // `Nebius._check_compute_credentials` reads a token or credentials
        // file and a tenant id, then lists the tenant's projects; the
        // adapter (`optimizer::clouds::nebius`) does both and fetches the
        // tenant's prices.
        detection: Detection::Adapter,
        // `Nebius._unsupported_features_for_resources` for a plain request
        // (no request here asks for a network tier, so the InfiniBand
        // exception for H100:8 and friends never applies).
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
        // `nebius_catalog.get_default_instance_type` has no default vCPUs or
        // memory (the cheapest type of all that fit), filtered by
        // `Nebius.check_disk_tier`; `_make` keeps the request's memory.
        // The tenant's own prices replace the list prices per
        // (instance type, region): `planner::catalog::nebius`.
        catalog_rules: Some(CatalogRules {
            candidates_keep_memory: true,
            default_rejects_ultra_disk: true,
            ..CatalogRules::PLAIN
        }),
    },
    CloudSpec {
        id: CloudId::Oci,
        name: "oci",
        aliases: &[],
        repr: "OCI",
        catalog_pull: CatalogPull::IfMissing,
        has_catalog: true,
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
    },
    CloudSpec {
        id: CloudId::PrimeIntellect,
        name: "primeintellect",
        aliases: &[],
        repr: "PrimeIntellect",
        catalog_pull: CatalogPull::IfMissing,
        has_catalog: true,
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
    },
    CloudSpec {
        id: CloudId::Scp,
        name: "scp",
        aliases: &[],
        repr: "SCP",
        catalog_pull: CatalogPull::IfMissing,
        has_catalog: true,
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
    },
    CloudSpec {
        id: CloudId::Seeweb,
        name: "seeweb",
        aliases: &[],
        repr: "Seeweb",
        catalog_pull: CatalogPull::EveryHours(8),
        has_catalog: true,
        // `Seeweb._check_compute_credentials` → `sky/adaptors/seeweb.py::
        // check_compute_credentials`: `~/.seeweb_cloud/seeweb_keys` read by
        // `configparser`, a non-empty `api_key` under `[DEFAULT]`. The API call
        // that then validates the key (`ecsapi.Api.fetch_servers`) is online.
        detection: Detection::Files {
            credentials: &[Credential::HomeFileChecked {
                path: ".seeweb_cloud/seeweb_keys",
                check: FileCheck::IniKey {
                    section: "DEFAULT",
                    key: "api_key",
                },
                invalid: "Missing or empty api_key in ~/.seeweb_cloud/seeweb_keys. Put it under [DEFAULT] as: api_key = <key>",
            }],
            hint: "Missing Seeweb API key file ~/.seeweb_cloud/seeweb_keys. Put your API key in it under [DEFAULT] as: api_key = <key>",
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
        // Seeweb keeps only the cheapest type and prefers `it-fr2`
        // (`feasibility::seeweb`).
        catalog_rules: None,
    },
    CloudSpec {
        id: CloudId::Shadeform,
        name: "shadeform",
        aliases: &[],
        // `Shadeform` sets no `_REPR`, but its `__repr__` returns `Shadeform`:
        // tables, INFRA and hints print that; the class attribute (Cloud's
        // `<Cloud>`) is in [`CLASS_REPRS`].
        repr: "Shadeform",
        catalog_pull: CatalogPull::IfMissing,
        has_catalog: true,
        // `Shadeform.check_credentials`: `~/.shadeform/api_key` exists and is
        // not empty once stripped.
        detection: Detection::Files {
            credentials: &[Credential::HomeFileChecked {
                path: ".shadeform/api_key",
                check: FileCheck::NotBlank,
                invalid: "Shadeform API key is empty in ~/.shadeform/api_key",
            }],
            hint: "Shadeform API key not found. Please save your API key to ~/.shadeform/api_key",
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
        // Shadeform's accelerator search ignores cpus, memory and location;
        // explicit types are taken as they are (`feasibility::shadeform`).
        catalog_rules: None,
    },
    CloudSpec {
        id: CloudId::Slurm,
        name: "slurm",
        aliases: &[],
        repr: "Slurm",
        catalog_pull: CatalogPull::NotHosted,
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
        catalog_pull: CatalogPull::NotHosted,
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
        catalog_pull: CatalogPull::IfMissing,
        has_catalog: true,
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
    },
    CloudSpec {
        id: CloudId::Verda,
        name: "verda",
        aliases: &[],
        repr: "Verda",
        catalog_pull: CatalogPull::EveryHours(7),
        has_catalog: true,
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
    },
    CloudSpec {
        id: CloudId::Vsphere,
        name: "vsphere",
        aliases: &[],
        repr: "vSphere",
        catalog_pull: CatalogPull::NotHosted,
        has_catalog: true,
        // `Vsphere._check_compute_credentials`: `~/.vsphere/credential.yaml`
        // lists `vcenters`, each with `name`, `username`, `password` and
        // `clusters`; SkyPilot then logs in to each vCenter and builds the
        // catalog (network, not done offline; see `LOCAL_CATALOGS`).
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
    },
    CloudSpec {
        id: CloudId::Yotta,
        name: "yotta",
        aliases: &[],
        repr: "Yotta",
        catalog_pull: CatalogPull::IfMissing,
        has_catalog: true,
        // `Yotta._check_compute_credentials`: `~/.yotta/credentials` exists
        // (the API-key check that follows is online).
        detection: Detection::Files {
            credentials: &[Credential::HomeFile(".yotta/credentials")],
            hint: "Failed to access Yotta Cloud with credentials. Get an API key at https://console.yottalabs.ai and save it to ~/.yotta/credentials",
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
        // `Yotta._get_feasible_launchable_resources`: no default vCPUs and the
        // default ignores the requested location; the accelerator search is
        // not given the memory, and candidates keep it.
        catalog_rules: Some(CatalogRules {
            accelerator_ignores_memory: true,
            candidates_keep_memory: true,
            default_ignores_location: true,
            ..CatalogRules::PLAIN
        }),
    },
];

/// Clouds whose class attribute `_REPR` differs from how their objects
/// print. `Shadeform` does not set `_REPR` and inherits `Cloud`'s
/// `<Cloud>`, which SkyPilot uses where it formats the class rather than an
/// object: `Cloud.check_features_are_supported`'s "not supported by" text.
pub(super) static CLASS_REPRS: &[(CloudId, &str)] = &[(CloudId::Shadeform, "<Cloud>")];
/// Clouds whose `vms.csv` SkyPilot builds on the user's machine rather than
/// downloading it: `sky` reads the file SkyPilot wrote under the catalog
/// folder and never bundles one.
pub(super) static LOCAL_CATALOGS: &[LocalCatalog] = &[LocalCatalog {
    cloud: CloudId::Vsphere,
    // `Vsphere._check_compute_credentials` calls
    // `vsphere_utils.initialize_vsphere_data`, which writes the file from
    // the vCenter inventory (`fetch_vsphere.initialize_vms_csv`).
    // `vsphere_catalog.VSPHERE_CATALOG_HEADER`, what `_get_df` reads then.
    header: "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone",
    built_by: "SkyPilot builds it from your vCenter inventory when it checks vSphere: run `sky check vsphere` with SkyPilot (pip install \"skypilot[vsphere]\"), then launch again",
}];
