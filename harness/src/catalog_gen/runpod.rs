//! RunPod `vms.csv` in the layout of `fetch_runpod.py`: secure-cloud GPU pods
//! `<n>x_<GPU>_SECURE` for counts 1..max in every data centre (the fetcher
//! does not query per-DC GPU stock), plus CPU pods `cpu<gen><class>-<vcpus>-<GiB>`
//! in a subset of data centres. `Region` is a country code and
//! `AvailabilityZone` the data-centre id. Prices are RunPod's public
//! secure-cloud prices per GPU, rounded to cents like the fetcher.

use super::{Dice, Table, py_float, round_to};

/// Column order written by SkyPilot's `fetch_runpod.py`.
pub const HEADER: &[&str] = &[
    "InstanceType",
    "AcceleratorName",
    "AcceleratorCount",
    "vCPUs",
    "MemoryGiB",
    "Region",
    "SpotPrice",
    "Price",
    "AvailabilityZone",
    "GpuInfo",
];

/// Country → data centres.
pub(crate) const REGION_ZONES: &[(&str, &[&str])] = &[
    ("CA", &["CA-MTL-1", "CA-MTL-2", "CA-MTL-3"]),
    ("CZ", &["EU-CZ-1"]),
    ("IS", &["EUR-IS-1", "EUR-IS-2", "EUR-IS-3"]),
    ("NL", &["EU-NL-1"]),
    ("NO", &["EUR-NO-1"]),
    ("RO", &["EU-RO-1"]),
    ("SE", &["EU-SE-1"]),
    (
        "US",
        &[
            "US-CA-2", "US-GA-1", "US-GA-2", "US-IL-1", "US-KS-2", "US-TX-3", "US-TX-4", "US-WA-1",
        ],
    ),
];

/// (SkyPilot name, RunPod display name, manufacturer, VRAM GB, vCPUs/GPU, RAM GiB/GPU, max count, $/GPU, spot $/GPU).
type Gpu = (
    &'static str,
    &'static str,
    &'static str,
    u32,
    f64,
    f64,
    u32,
    f64,
    Option<f64>,
);

pub(crate) const GPUS: &[Gpu] = &[
    (
        "A100-80GB",
        "A100 PCIe",
        "Nvidia",
        80,
        8.0,
        117.0,
        8,
        1.64,
        Some(0.82),
    ),
    (
        "A100-80GB-SXM",
        "A100 SXM",
        "Nvidia",
        80,
        16.0,
        117.0,
        8,
        1.74,
        Some(1.05),
    ),
    ("A40", "A40", "Nvidia", 48, 9.0, 48.0, 8, 0.44, Some(0.24)),
    ("B200", "B200", "Nvidia", 180, 28.0, 180.0, 8, 5.99, None),
    (
        "H100",
        "H100 PCIe",
        "Nvidia",
        80,
        16.0,
        176.0,
        8,
        2.39,
        Some(1.35),
    ),
    (
        "H100-NVL",
        "H100 NVL",
        "Nvidia",
        94,
        16.0,
        94.0,
        8,
        2.79,
        Some(1.4),
    ),
    (
        "H100-SXM",
        "H100 SXM",
        "Nvidia",
        80,
        20.0,
        125.0,
        8,
        2.69,
        Some(1.75),
    ),
    (
        "H200-SXM", "H200 SXM", "Nvidia", 141, 12.0, 188.0, 8, 3.59, None,
    ),
    ("L4", "L4", "Nvidia", 24, 8.0, 45.0, 8, 0.43, Some(0.22)),
    ("L40", "L40", "Nvidia", 48, 9.0, 125.0, 8, 0.99, Some(0.5)),
    (
        "L40S",
        "L40S",
        "Nvidia",
        48,
        12.0,
        62.0,
        8,
        0.86,
        Some(0.43),
    ),
    ("MI300X", "MI300X", "AMD", 192, 24.0, 283.0, 8, 2.49, None),
    (
        "RTX3090",
        "RTX 3090",
        "Nvidia",
        24,
        4.0,
        25.0,
        8,
        0.43,
        Some(0.22),
    ),
    (
        "RTX4090",
        "RTX 4090",
        "Nvidia",
        24,
        5.0,
        29.0,
        8,
        0.69,
        Some(0.35),
    ),
    (
        "RTX6000-Ada",
        "RTX 6000 Ada",
        "Nvidia",
        48,
        10.0,
        62.0,
        8,
        0.77,
        Some(0.4),
    ),
    (
        "RTXA4000",
        "RTX A4000",
        "Nvidia",
        16,
        6.0,
        35.0,
        8,
        0.25,
        Some(0.13),
    ),
    (
        "RTXA5000",
        "RTX A5000",
        "Nvidia",
        24,
        3.0,
        25.0,
        8,
        0.27,
        Some(0.14),
    ),
    (
        "RTXA6000",
        "RTX A6000",
        "Nvidia",
        48,
        8.0,
        50.0,
        8,
        0.49,
        Some(0.25),
    ),
];

/// CPU pods: (id, GiB per vCPU, $ per vCPU-hour, max vCPUs).
const CPUS: &[(&str, u32, f64, u32)] = &[
    ("cpu3c", 2, 0.03, 32),
    ("cpu3g", 4, 0.04, 32),
    ("cpu3m", 8, 0.05, 32),
    ("cpu5c", 2, 0.035, 64),
    ("cpu5g", 4, 0.045, 64),
    ("cpu5m", 8, 0.06, 64),
];

/// Generates `runpod/vms.csv`.
pub fn generate() -> Table {
    let mut dice = Dice::new(0x7D);
    let mut rows = Vec::new();
    for (name, display, mfr, vram, vcpus, mem, max, price, spot) in GPUS {
        for n in 1..=*max {
            let count = f64::from(n);
            // fetch_runpod.py stores the GPU's GB figure in `SizeInMiB` (sic).
            let info = format!(
                "{{'Gpus': [{{'Name': '{display}', 'Manufacturer': '{mfr}', 'Count': {n}, \
                 'MemoryInfo': {{'SizeInMiB': {vram}}}}}], 'TotalGpuMemoryInMiB': {}}}",
                vram * n
            );
            for (region, zones) in REGION_ZONES {
                for zone in *zones {
                    rows.push(vec![
                        format!("{n}x_{name}_SECURE"),
                        (*name).to_owned(),
                        py_float(count),
                        py_float(vcpus * count),
                        py_float(mem * count),
                        (*region).to_owned(),
                        spot.map(|s| py_float(round_to(s * count, 2)))
                            .unwrap_or_default(),
                        py_float(round_to(price * count, 2)),
                        (*zone).to_owned(),
                        info.clone(),
                    ]);
                }
            }
        }
    }
    for (id, gib, rate, max_vcpus) in CPUS {
        let mut v = 2;
        while v <= *max_vcpus {
            let mem = v * gib;
            for (region, zones) in REGION_ZONES {
                for zone in *zones {
                    if !dice.chance(0.4) {
                        continue;
                    }
                    rows.push(vec![
                        format!("{id}-{v}-{mem}"),
                        String::new(),
                        String::new(),
                        py_float(f64::from(v)),
                        py_float(f64::from(mem)),
                        (*region).to_owned(),
                        String::new(),
                        py_float(round_to(rate * f64::from(v), 3)),
                        (*zone).to_owned(),
                        String::new(),
                    ]);
                }
            }
            v *= 2;
        }
    }
    // fetch_runpod.py sorts by (AcceleratorName, InstanceType, AvailabilityZone), NaN names last.
    rows.sort_by(|a, b| {
        (a[1].is_empty(), &a[1], &a[0], &a[8]).cmp(&(b[1].is_empty(), &b[1], &b[0], &b[8]))
    });
    let mut t = Table::new(HEADER);
    t.rows = rows;
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog_gen::test_util::rows_of;

    #[test]
    fn names_regions_and_zones() {
        let rows = rows_of(&generate());
        let r = rows
            .iter()
            .find(|r| r["InstanceType"] == "1x_A100-80GB_SECURE")
            .unwrap();
        assert_eq!(r["AcceleratorName"], "A100-80GB");
        assert!(REGION_ZONES.iter().any(|(c, _)| *c == r["Region"]));
        assert!(
            rows.iter()
                .any(|r| r["AvailabilityZone"] == "US-CA-2" && r["Region"] == "US")
        );
        assert!(rows.iter().any(|r| r["InstanceType"].starts_with("cpu3c-")));
        assert!(rows.iter().any(|r| !r["SpotPrice"].is_empty()));
    }
}
