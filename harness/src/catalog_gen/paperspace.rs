//! Paperspace `vms.csv` with the columns `paperspace_catalog.py` reads
//! (SkyPilot ships no Paperspace fetcher; the hosted file uses the common
//! `InstanceType, AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, Price,
//! Region, GpuInfo, SpotPrice` layout). Machine names are Paperspace's
//! (`C5`, `A4000x2`, `H100x8`, ...); prices are its public hourly list prices.

use super::{Table, gpu_info_dict, py_float};

/// Column order of the hosted Paperspace catalog.
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

const NY2: &str = "East Coast (NY2)";
const CA1: &str = "West Coast (CA1)";
const AMS1: &str = "Europe (AMS1)";

/// (machine, GPU, count, vCPUs, GiB, $/hour, GPU MiB, regions).
type Machine = (
    &'static str,
    Option<&'static str>,
    u32,
    f64,
    f64,
    f64,
    u64,
    &'static [&'static str],
);

const ALL: &[&str] = &[NY2, CA1, AMS1];
const NY_CA: &[&str] = &[NY2, CA1];
const NY: &[&str] = &[NY2];

const MACHINES: &[Machine] = &[
    ("C5", None, 0, 4.0, 8.0, 0.08, 0, ALL),
    ("C6", None, 0, 8.0, 16.0, 0.16, 0, ALL),
    ("C7", None, 0, 12.0, 30.0, 0.3, 0, ALL),
    ("C8", None, 0, 16.0, 60.0, 0.6, 0, NY_CA),
    ("C9", None, 0, 24.0, 120.0, 1.2, 0, NY_CA),
    ("P4000", Some("P4000"), 1, 8.0, 30.0, 0.51, 8192, ALL),
    ("P4000x2", Some("P4000"), 2, 16.0, 60.0, 1.02, 8192, NY_CA),
    ("RTX4000", Some("RTX4000"), 1, 8.0, 30.0, 0.56, 8192, ALL),
    ("A4000", Some("A4000"), 1, 8.0, 45.0, 0.76, 16384, ALL),
    ("A4000x2", Some("A4000"), 2, 16.0, 90.0, 1.52, 16384, ALL),
    ("A4000x4", Some("A4000"), 4, 32.0, 180.0, 3.04, 16384, NY_CA),
    ("A5000", Some("A5000"), 1, 8.0, 45.0, 1.38, 24576, ALL),
    ("A6000", Some("A6000"), 1, 8.0, 45.0, 1.89, 49152, ALL),
    ("V100", Some("V100"), 1, 8.0, 30.0, 2.3, 16384, NY_CA),
    (
        "V100-32G",
        Some("V100-32GB"),
        1,
        8.0,
        30.0,
        2.3,
        32768,
        NY_CA,
    ),
    (
        "V100-32Gx2",
        Some("V100-32GB"),
        2,
        16.0,
        60.0,
        4.6,
        32768,
        NY,
    ),
    (
        "V100-32Gx4",
        Some("V100-32GB"),
        4,
        32.0,
        120.0,
        9.2,
        32768,
        NY,
    ),
    ("A100", Some("A100"), 1, 12.0, 90.0, 3.09, 40960, NY_CA),
    (
        "A100-80G",
        Some("A100-80GB"),
        1,
        12.0,
        90.0,
        3.18,
        81920,
        ALL,
    ),
    (
        "A100-80Gx8",
        Some("A100-80GB"),
        8,
        96.0,
        640.0,
        25.44,
        81920,
        NY,
    ),
    ("H100", Some("H100"), 1, 16.0, 268.0, 5.95, 81920, NY_CA),
    ("H100x8", Some("H100"), 8, 128.0, 1638.0, 47.6, 81920, NY),
];

/// Generates `paperspace/vms.csv`.
pub fn generate() -> Table {
    let mut t = Table::new(HEADER);
    for (name, gpu, count, vcpus, mem, price, mib, regions) in MACHINES {
        let (an, ac, gi) = match gpu {
            Some(g) => (
                (*g).to_owned(),
                py_float(f64::from(*count)),
                gpu_info_dict(
                    g,
                    "NVIDIA",
                    &count.to_string(),
                    *mib,
                    mib * u64::from(*count),
                ),
            ),
            None => (String::new(), String::new(), String::new()),
        };
        for region in *regions {
            t.rows.push(vec![
                (*name).to_owned(),
                an.clone(),
                ac.clone(),
                py_float(*vcpus),
                py_float(*mem),
                py_float(*price),
                (*region).to_owned(),
                gi.clone(),
                String::new(),
            ]);
        }
    }
    t
}
