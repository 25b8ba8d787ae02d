//! Cudo Compute `vms.csv` in the layout written by `fetch_cudo.py`: one row per
//! (machine type, fixed spec from `cudo_utils.machine_specs`, data centre),
//! instance names `<machine-type>_<gpus>x<vcpus>v<mem>gb`, price = vCPU +
//! memory + GPU hourly rates (public Cudo list rates, rounded here to 4
//! decimals), no spot prices.

use super::{Dice, Table, gpu_info_dict};

/// Column order written by SkyPilot's `fetch_cudo.py`.
pub const HEADER: &[&str] = &[
    "InstanceType",
    "AcceleratorName",
    "AcceleratorCount",
    "vCPUs",
    "MemoryGiB",
    "Price",
    "Region",
    "GpuInfo",
    "SpotPrice",
];

/// `cudo_utils.machine_specs`: (vCPUs, GiB, GPUs).
const SPECS: &[(u32, u32, u32)] = &[
    (2, 4, 1),
    (4, 8, 1),
    (8, 16, 2),
    (16, 32, 2),
    (32, 64, 4),
    (64, 128, 8),
    (96, 192, 8),
    (48, 96, 4),
    (24, 48, 2),
    (12, 24, 1),
    (96, 192, 4),
    (48, 96, 2),
    (24, 48, 1),
];

/// (machine type, SkyPilot GPU name, GPU GiB, $/vCPU, $/GiB, $/GPU, min vCPUs, min GiB, data centres).
type MachineType = (
    &'static str,
    &'static str,
    u64,
    f64,
    f64,
    f64,
    u32,
    u32,
    &'static [&'static str],
);

const MACHINE_TYPES: &[MachineType] = &[
    (
        "epyc-rome-rtx-a5000",
        "RTXA5000",
        24,
        0.0025,
        0.0035,
        0.35,
        2,
        4,
        &["se-smedjebacken-1", "no-luster-1"],
    ),
    (
        "epyc-milan-rtx-a6000",
        "RTXA6000",
        48,
        0.0025,
        0.0035,
        0.45,
        2,
        4,
        &["gb-bournemouth-1", "se-smedjebacken-1"],
    ),
    (
        "epyc-milan-a40",
        "A40",
        48,
        0.003,
        0.004,
        0.39,
        4,
        8,
        &["no-luster-1", "se-stockholm-1", "us-newyork-1"],
    ),
    (
        "epyc-milan-a100-pcie",
        "A100",
        80,
        0.003,
        0.004,
        1.5,
        4,
        8,
        &["gb-bournemouth-1", "us-santaclara-1"],
    ),
    (
        "epyc-genoa-l40s",
        "L40S",
        48,
        0.0032,
        0.0042,
        0.87,
        4,
        8,
        &["se-stockholm-1", "ca-montreal-3"],
    ),
    (
        "sapphire-rapids-h100",
        "H100",
        94,
        0.0035,
        0.0045,
        2.47,
        8,
        16,
        &["gb-bournemouth-1", "us-santaclara-1", "ca-montreal-3"],
    ),
    (
        "intel-broadwell-v100",
        "V100",
        16,
        0.002,
        0.003,
        0.39,
        2,
        4,
        &["gb-london-1"],
    ),
];

/// Generates `cudo/vms.csv`.
pub fn generate() -> Table {
    let mut dice = Dice::new(0xC0);
    let mut t = Table::new(HEADER);
    for (vcpu, mem, gpu) in SPECS {
        for (mt, acc, gib, vr, mr, gr, min_v, min_m, dcs) in MACHINE_TYPES {
            if vcpu < min_v || mem < min_m {
                continue;
            }
            // Per-DC rate variation of up to 5 %, fixed by the seed.
            for dc in *dcs {
                let f = 1.0 + (dice.range(0.0, 0.05) * 1e4).round() / 1e4;
                let price =
                    (f64::from(*vcpu) * vr + f64::from(*mem) * mr + f64::from(*gpu) * gr) * f;
                let mib = gib * 1024;
                t.rows.push(vec![
                    format!("{mt}_{gpu}x{vcpu}v{mem}gb"),
                    (*acc).to_owned(),
                    format!("{gpu}.0"),
                    vcpu.to_string(),
                    mem.to_string(),
                    format!("{}", (price * 1e4).round() / 1e4),
                    (*dc).to_owned(),
                    gpu_info_dict(
                        acc,
                        "NVIDIA",
                        &format!("'{gpu}.0'"),
                        mib,
                        mib * u64::from(*gpu),
                    ),
                    String::new(),
                ]);
            }
        }
    }
    t
}
