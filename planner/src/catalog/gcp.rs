//! GCP specifics: GPUs attached to host VMs, fixed-machine GPUs, TPU VMs
//! (`sky/catalog/gcp_catalog.py`: `_ACC_INSTANCE_TYPE_DICTS`,
//! `check_accelerator_attachable_to_host`, `get_instance_type_for_accelerator`).

/// Machine types per accelerator count.
pub type CountToMachines = &'static [(u32, &'static [&'static str])];

/// GPUs that only come with specific machine types: (gpu, count, machine types).
pub const FIXED_MACHINE_GPUS: &[(&str, CountToMachines)] = &[
    (
        "A100",
        &[
            (1, &["a2-highgpu-1g"]),
            (2, &["a2-highgpu-2g"]),
            (4, &["a2-highgpu-4g"]),
            (8, &["a2-highgpu-8g"]),
            (16, &["a2-megagpu-16g"]),
        ],
    ),
    (
        "A100-80GB",
        &[
            (1, &["a2-ultragpu-1g"]),
            (2, &["a2-ultragpu-2g"]),
            (4, &["a2-ultragpu-4g"]),
            (8, &["a2-ultragpu-8g"]),
        ],
    ),
    (
        "L4",
        &[
            (
                1,
                &[
                    "g2-standard-4",
                    "g2-standard-8",
                    "g2-standard-12",
                    "g2-standard-16",
                    "g2-standard-32",
                ],
            ),
            (2, &["g2-standard-24"]),
            (4, &["g2-standard-48"]),
            (8, &["g2-standard-96"]),
        ],
    ),
    (
        "H100",
        &[
            (1, &["a3-highgpu-1g"]),
            (2, &["a3-highgpu-2g"]),
            (4, &["a3-highgpu-4g"]),
            (8, &["a3-highgpu-8g"]),
        ],
    ),
    ("H100-MEGA", &[(8, &["a3-megagpu-8g"])]),
    ("H200", &[(8, &["a3-ultragpu-8g"])]),
    ("B200", &[(8, &["a4-highgpu-8g"])]),
    (
        "RTXPRO6000",
        &[
            (1, &["g4-standard-48"]),
            (2, &["g4-standard-96"]),
            (4, &["g4-standard-192"]),
            (8, &["g4-standard-384"]),
        ],
    ),
];

/// Machine types of a fixed-machine GPU; `None` when the GPU attaches to N1 hosts.
pub fn fixed_machine_types(gpu: &str) -> Option<CountToMachines> {
    FIXED_MACHINE_GPUS
        .iter()
        .find(|(g, _)| *g == gpu)
        .map(|(_, m)| *m)
}

/// The accelerator a fixed machine type comes with (`a2-highgpu-1g` → `A100:1`).
pub fn accelerator_of_machine(instance_type: &str) -> Option<(&'static str, u32)> {
    for (gpu, counts) in FIXED_MACHINE_GPUS {
        for (count, types) in *counts {
            if types.contains(&instance_type) {
                return Some((gpu, *count));
            }
        }
    }
    None
}

/// Default host vCPUs for an N1-attached GPU and count.
pub fn default_host_cpus(gpu: &str, count: u32) -> Option<u32> {
    let table: &[(u32, u32)] = match gpu {
        "K80" => &[(1, 4), (2, 8), (4, 16), (8, 32), (16, 64)],
        "V100" | "P100" => &[(1, 8), (2, 16), (4, 32), (8, 64)],
        "T4" => &[(1, 4), (2, 8), (4, 48)],
        _ => &[(1, 8), (2, 16), (4, 32), (8, 64), (16, 128)],
    };
    table
        .iter()
        .find(|(c, _)| *c == count)
        .map(|(_, cpus)| *cpus)
}

/// Maximum (vCPUs, memory GB) of an N1 host for a GPU and count.
pub fn max_host_cpu_mem(gpu: &str, count: u32) -> Option<(f64, f64)> {
    let table: &[(u32, (f64, f64))] = match gpu {
        "K80" => &[
            (1, (8.0, 52.0)),
            (2, (16.0, 104.0)),
            (4, (32.0, 208.0)),
            (8, (64.0, 208.0)),
        ],
        "V100" => &[
            (1, (12.0, 78.0)),
            (2, (24.0, 156.0)),
            (4, (48.0, 312.0)),
            (8, (96.0, 624.0)),
        ],
        "T4" => &[(1, (48.0, 312.0)), (2, (48.0, 312.0)), (4, (96.0, 624.0))],
        "P4" => &[(1, (24.0, 156.0)), (2, (48.0, 312.0)), (4, (96.0, 624.0))],
        "P100" => &[(1, (16.0, 104.0)), (2, (32.0, 208.0)), (4, (96.0, 624.0))],
        _ => return None,
    };
    table.iter().find(|(c, _)| *c == count).map(|(_, m)| *m)
}

/// Host VM families for N1-attached GPUs.
pub const HOST_VM_FAMILIES: [&str; 3] = ["n1-standard", "n1-highmem", "n1-highcpu"];

/// Whether rows of `instance_type` can host an attachable GPU in
/// `sky gpus list`'s GCP pricing (`gcp_catalog.list_accelerators` prices a
/// GPU with its cheapest host VM): a fixed machine type of a GPU, or an N1
/// host VM. The listing decodes these runs of GCP's image
/// (`gpus::ListingRuns`).
pub fn is_gpu_host(instance_type: &str) -> bool {
    HOST_VM_FAMILIES
        .iter()
        .any(|f| instance_type.starts_with(f))
        || accelerator_of_machine(instance_type).is_some()
}

/// Default families for CPU-only requests.
pub const DEFAULT_FAMILIES: [&str; 6] = [
    "n2-standard-",
    "n2-highmem-",
    "n2-highcpu-",
    "n4-standard-",
    "n4-highcpu-",
    "n4-highmem-",
];

/// TPU VM host: vCPUs and memory used for cpus/memory checks.
pub fn tpu_vm_host(acc: &str) -> (f64, f64) {
    if acc.contains("v4") {
        (240.0, 400.0)
    } else {
        (96.0, 334.0)
    }
}

/// Valid counts of an N1-attached GPU (SkyPilot asserts the GPU is in its
/// max-CPU/memory table; unknown GPUs get no valid count).
pub fn max_host_counts(gpu: &str) -> Vec<u32> {
    match gpu {
        "K80" | "V100" => vec![1, 2, 4, 8],
        "T4" | "P4" | "P100" => vec![1, 2, 4],
        _ => Vec::new(),
    }
}
