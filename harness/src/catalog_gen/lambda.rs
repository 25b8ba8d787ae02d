//! Lambda Cloud `vms.csv`. Like `fetch_lambda_cloud.py`, every instance type is
//! listed in every region (Lambda's API reports per-type regional capacity
//! only at launch time); no spot prices, no zones. Prices are Lambda's public
//! on-demand prices.

use super::{Table, gpu_info_dict, py_float};

/// Column order written by SkyPilot's `fetch_lambda_cloud.py`.
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

/// Lambda regions (the fetcher's `REGIONS` list; `us-east-1` overlaps AWS on purpose).
pub const REGIONS: &[&str] = &[
    "europe-central-1",
    "asia-south-1",
    "me-west-1",
    "europe-south-1",
    "asia-northeast-1",
    "asia-northeast-2",
    "australia-east-1",
    "us-east-1",
    "us-east-2",
    "us-east-3",
    "us-west-2",
    "us-west-1",
    "us-south-1",
    "us-south-2",
    "us-south-3",
    "us-west-3",
    "us-midwest-1",
];

/// (instance type, GPU, count, vCPUs, GiB, $/hour).
type LambdaType = (&'static str, Option<&'static str>, u32, f64, f64, f64);

const TYPES: &[LambdaType] = &[
    ("gpu_8x_b200_sxm6", Some("B200"), 8, 208.0, 2900.0, 39.92),
    ("gpu_8x_h100_sxm5", Some("H100"), 8, 208.0, 1800.0, 23.92),
    ("gpu_4x_h100_sxm5", Some("H100"), 4, 104.0, 900.0, 12.36),
    ("gpu_2x_h100_sxm5", Some("H100"), 2, 52.0, 450.0, 6.38),
    ("gpu_1x_h100_sxm5", Some("H100"), 1, 26.0, 225.0, 3.29),
    ("gpu_1x_h100_pcie", Some("H100"), 1, 26.0, 200.0, 2.49),
    ("gpu_1x_gh200", Some("GH200"), 1, 64.0, 432.0, 1.49),
    (
        "gpu_8x_a100_80gb_sxm4",
        Some("A100-80GB"),
        8,
        240.0,
        1800.0,
        14.32,
    ),
    ("gpu_8x_a100", Some("A100"), 8, 124.0, 1800.0, 10.32),
    ("gpu_4x_a100", Some("A100"), 4, 120.0, 800.0, 5.16),
    ("gpu_2x_a100", Some("A100"), 2, 60.0, 400.0, 2.58),
    ("gpu_1x_a100_sxm4", Some("A100"), 1, 30.0, 200.0, 1.29),
    ("gpu_1x_a100", Some("A100"), 1, 30.0, 200.0, 1.29),
    ("gpu_8x_v100", Some("V100"), 8, 92.0, 448.0, 4.4),
    ("gpu_1x_v100_sxm2", Some("V100"), 1, 6.0, 46.0, 0.55),
    ("gpu_4x_a6000", Some("A6000"), 4, 56.0, 400.0, 3.2),
    ("gpu_2x_a6000", Some("A6000"), 2, 28.0, 200.0, 1.6),
    ("gpu_1x_a6000", Some("A6000"), 1, 14.0, 100.0, 0.8),
    ("gpu_1x_a10", Some("A10"), 1, 30.0, 200.0, 0.75),
    ("gpu_1x_rtx6000", Some("RTX6000"), 1, 14.0, 46.0, 0.5),
    ("cpu_4x_general", None, 0, 4.0, 16.0, 0.08),
];

fn gpu_memory_mib(gpu: &str) -> u64 {
    match gpu {
        "A100" => 40960,
        "A100-80GB" | "H100" => 81920,
        "A6000" => 49152,
        "A10" | "RTX6000" => 24576,
        "V100" => 16384,
        "GH200" => 98304,
        "B200" => 184320,
        _ => 0,
    }
}

/// Generates `lambda/vms.csv`.
pub fn generate() -> Table {
    let mut t = Table::new(HEADER);
    for (name, gpu, count, vcpus, mem, price) in TYPES {
        let (an, ac, gi) = match gpu {
            Some(g) => {
                let mib = gpu_memory_mib(g);
                // The fetcher writes the float count and per-GPU memory as the total.
                let info = gpu_info_dict(g, "NVIDIA", &py_float(f64::from(*count)), mib, mib);
                ((*g).to_owned(), py_float(f64::from(*count)), info)
            }
            None => (String::new(), String::new(), String::new()),
        };
        for region in REGIONS {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog_gen::test_util::{cheapest, num, rows_of};

    #[test]
    fn default_choices() {
        let rows = rows_of(&generate());
        let pick = |f: &dyn Fn(f64, f64) -> bool| {
            cheapest(&rows, |r| {
                f(num(r, "vCPUs").unwrap(), num(r, "MemoryGiB").unwrap())
            })
        };
        assert_eq!(pick(&|_, m| m >= 64.0), Some("gpu_1x_a10"));
        assert_eq!(pick(&|c, m| c >= 4.0 && m >= 4.0), Some("cpu_4x_general"));
        assert!(
            rows.iter()
                .any(|r| r["InstanceType"] == "gpu_8x_h100_sxm5" && r["Region"] == "us-east-1")
        );
        assert!(rows.iter().all(|r| r["SpotPrice"].is_empty()));
    }
}
