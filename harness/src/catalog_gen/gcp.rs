//! GCP `vms.csv`: VM rows (vCPU + RAM price of the machine type, per zone),
//! accelerator rows (GPU price × count, powers of two up to the zone maximum),
//! TPU rows (count 1) and the extra `n1-highmem-8` host row in `us-central2-b`.
//!
//! Per-vCPU / per-GiB rates and per-GPU/TPU prices are GCP's public
//! `us-central1` list prices; other regions use a multiplier. Prices are
//! rounded to 5 decimals as `fetch_gcp.py` does.

use super::{Dice, Table, py_float, round_to};

/// Column order written by SkyPilot's `fetch_gcp.py`.
pub const HEADER: &[&str] = &[
    "InstanceType",
    "vCPUs",
    "MemoryGiB",
    "AcceleratorName",
    "AcceleratorCount",
    "GpuInfo",
    "Region",
    "AvailabilityZone",
    "Price",
    "SpotPrice",
];

/// (region, zone suffixes, price multiplier, spot ratio).
const REGIONS: &[(&str, &[&str], f64, f64)] = &[
    ("us-central1", &["a", "b", "c", "f"], 1.0, 0.3),
    ("us-east1", &["b", "c", "d"], 1.0, 0.28),
    ("us-east4", &["a", "b", "c"], 1.126, 0.31),
    ("us-east5", &["a", "b", "c"], 1.0, 0.3),
    ("us-south1", &["a", "b", "c"], 1.18, 0.33),
    ("us-west1", &["a", "b", "c"], 1.0, 0.29),
    ("us-west2", &["a", "b", "c"], 1.2, 0.34),
    ("us-west3", &["a", "b", "c"], 1.2, 0.35),
    ("us-west4", &["a", "b", "c"], 1.126, 0.32),
    ("northamerica-northeast1", &["a", "b", "c"], 1.1, 0.3),
    ("southamerica-east1", &["a", "b", "c"], 1.587, 0.4),
    ("europe-west1", &["b", "c", "d"], 1.1, 0.3),
    ("europe-west2", &["a", "b", "c"], 1.287, 0.36),
    ("europe-west3", &["a", "b", "c"], 1.287, 0.37),
    ("europe-west4", &["a", "b", "c"], 1.1, 0.31),
    ("asia-east1", &["a", "b", "c"], 1.157, 0.33),
    ("asia-northeast1", &["a", "b", "c"], 1.286, 0.34),
    ("asia-south1", &["a", "b", "c"], 1.2, 0.38),
    ("asia-southeast1", &["a", "b", "c"], 1.233, 0.35),
    ("australia-southeast1", &["a", "b", "c"], 1.42, 0.4),
];

/// Machine series: (prefix, $/vCPU-hour, $/GiB-hour, regions it is offered in (empty = all)).
struct Series {
    vcpu_rate: f64,
    gib_rate: f64,
    regions: &'static [&'static str],
    types: Vec<(String, f64, f64)>,
}

const N4_REGIONS: &[&str] = &[
    "us-central1",
    "us-east1",
    "us-east4",
    "us-east5",
    "us-south1",
    "us-west1",
    "us-west4",
    "europe-west1",
    "europe-west2",
    "europe-west3",
    "europe-west4",
    "asia-east1",
    "asia-northeast1",
    "asia-southeast1",
];

fn ladder(prefix: &str, sizes: &[u32], gib_per_vcpu_x100: u32) -> Vec<(String, f64, f64)> {
    sizes
        .iter()
        .map(|&n| {
            (
                format!("{prefix}{n}"),
                f64::from(n),
                // Exact decimal memory sizes (0.9 × 96 = 86.4, not 86.39999…).
                f64::from(n * gib_per_vcpu_x100) / 100.0,
            )
        })
        .collect()
}

fn series() -> Vec<Series> {
    let n1_sizes: &[u32] = &[2, 4, 8, 16, 32, 64, 96];
    let n2_sizes: &[u32] = &[2, 4, 8, 16, 32, 48, 64, 80, 96, 128];
    let n4_sizes: &[u32] = &[2, 4, 8, 16, 32, 48, 64, 80];
    let e2_sizes: &[u32] = &[2, 4, 8, 16, 32];
    let mut n1 = ladder("n1-standard-", &[1], 375);
    n1.extend(ladder("n1-standard-", n1_sizes, 375));
    n1.extend(ladder("n1-highmem-", n1_sizes, 650));
    n1.extend(ladder("n1-highcpu-", n1_sizes, 90));
    let mut n2 = ladder("n2-standard-", n2_sizes, 400);
    n2.extend(ladder("n2-highmem-", &n2_sizes[..9], 800));
    n2.extend(ladder("n2-highcpu-", &n2_sizes[..9], 100));
    let mut n4 = ladder("n4-standard-", n4_sizes, 400);
    n4.extend(ladder("n4-highmem-", n4_sizes, 800));
    n4.extend(ladder("n4-highcpu-", n4_sizes, 200));
    let mut e2 = ladder("e2-standard-", e2_sizes, 400);
    e2.extend(ladder("e2-highmem-", &e2_sizes[..4], 800));
    e2.extend(ladder("e2-highcpu-", e2_sizes, 100));
    vec![
        Series {
            vcpu_rate: 0.031611,
            gib_rate: 0.004237,
            regions: &[],
            types: n1,
        },
        Series {
            vcpu_rate: 0.031611,
            gib_rate: 0.004237,
            regions: &[],
            types: n2,
        },
        Series {
            vcpu_rate: 0.0307,
            gib_rate: 0.004157,
            regions: N4_REGIONS,
            types: n4,
        },
        Series {
            vcpu_rate: 0.021811,
            gib_rate: 0.002923,
            regions: &[],
            types: e2,
        },
    ]
}

/// Accelerator-optimised machine types, placed in the zones of their GPU:
/// (GPU name, machine types with vCPUs and GiB, $/vCPU, $/GiB).
/// (GPU name, machine types as (name, vCPUs, GiB), $/vCPU-hour, $/GiB-hour).
type HostSeries = (&'static str, Vec<(&'static str, f64, f64)>, f64, f64);
/// (GPU name, GPU GiB, $/GPU-hour, spot ratio, zones as (zone, max count)).
type GpuOffer = (&'static str, u64, f64, f64, Vec<(&'static str, u32)>);
/// (TPU version, sizes, $ per size unit, spot ratio, zones).
type TpuOffer = (&'static str, Vec<u32>, f64, f64, Vec<&'static str>);

fn gpu_hosts() -> Vec<HostSeries> {
    vec![
        (
            "A100",
            vec![
                ("a2-highgpu-1g", 12.0, 85.0),
                ("a2-highgpu-2g", 24.0, 170.0),
                ("a2-highgpu-4g", 48.0, 340.0),
                ("a2-highgpu-8g", 96.0, 680.0),
                ("a2-megagpu-16g", 96.0, 1360.0),
            ],
            0.031611,
            0.004237,
        ),
        (
            "A100-80GB",
            vec![
                ("a2-ultragpu-1g", 12.0, 170.0),
                ("a2-ultragpu-2g", 24.0, 340.0),
                ("a2-ultragpu-4g", 48.0, 680.0),
                ("a2-ultragpu-8g", 96.0, 1360.0),
            ],
            0.031611,
            0.004237,
        ),
        (
            "H100",
            vec![
                ("a3-highgpu-1g", 26.0, 234.0),
                ("a3-highgpu-2g", 52.0, 468.0),
                ("a3-highgpu-4g", 104.0, 936.0),
                ("a3-highgpu-8g", 208.0, 1872.0),
            ],
            0.029563,
            0.002962,
        ),
        (
            "H100-MEGA",
            vec![("a3-megagpu-8g", 208.0, 1872.0)],
            0.029563,
            0.002962,
        ),
        (
            "H200",
            vec![("a3-ultragpu-8g", 224.0, 2952.0)],
            0.029563,
            0.002962,
        ),
        // A4: the B200 GPU SKU includes the whole VM, so the VM row costs 0.
        ("B200", vec![("a4-highgpu-8g", 224.0, 3968.0)], 0.0, 0.0),
        (
            "L4",
            vec![
                ("g2-standard-4", 4.0, 16.0),
                ("g2-standard-8", 8.0, 32.0),
                ("g2-standard-12", 12.0, 48.0),
                ("g2-standard-16", 16.0, 64.0),
                ("g2-standard-24", 24.0, 96.0),
                ("g2-standard-32", 32.0, 128.0),
                ("g2-standard-48", 48.0, 192.0),
                ("g2-standard-96", 96.0, 384.0),
            ],
            0.024988,
            0.002927,
        ),
    ]
}

/// GPUs: (name, GPU memory GiB, on-demand $/GPU, spot ratio, zones as (zone, max count)).
fn gpus() -> Vec<GpuOffer> {
    vec![
        (
            "K80",
            12,
            0.45,
            0.1,
            vec![
                ("us-central1-a", 8),
                ("us-central1-c", 8),
                ("us-east1-c", 8),
                ("us-east1-d", 8),
                ("us-west1-b", 8),
                ("europe-west1-b", 8),
                ("europe-west1-d", 8),
                ("asia-east1-a", 8),
                ("asia-east1-b", 8),
            ],
        ),
        (
            "P4",
            8,
            0.6,
            0.12,
            vec![
                ("us-central1-a", 4),
                ("us-central1-c", 4),
                ("us-east4-a", 4),
                ("us-east4-b", 4),
                ("us-east4-c", 4),
                ("us-west2-b", 4),
                ("us-west2-c", 4),
                ("europe-west4-b", 4),
                ("europe-west4-c", 4),
                ("northamerica-northeast1-a", 4),
                ("northamerica-northeast1-b", 4),
                ("australia-southeast1-a", 4),
            ],
        ),
        (
            "T4",
            16,
            0.35,
            0.2,
            vec![
                ("us-central1-a", 4),
                ("us-central1-b", 4),
                ("us-central1-c", 4),
                ("us-central1-f", 4),
                ("us-east1-c", 4),
                ("us-east1-d", 4),
                ("us-east4-a", 4),
                ("us-east4-b", 4),
                ("us-east4-c", 4),
                ("us-west1-a", 4),
                ("us-west1-b", 4),
                ("us-west2-b", 4),
                ("us-west2-c", 4),
                ("us-west3-b", 4),
                ("us-west4-a", 4),
                ("us-west4-b", 4),
                ("northamerica-northeast1-c", 4),
                ("southamerica-east1-a", 4),
                ("southamerica-east1-c", 4),
                ("europe-west1-b", 4),
                ("europe-west1-c", 4),
                ("europe-west1-d", 4),
                ("europe-west2-a", 4),
                ("europe-west2-b", 4),
                ("europe-west3-b", 4),
                ("europe-west4-a", 4),
                ("europe-west4-b", 4),
                ("europe-west4-c", 4),
                ("asia-east1-a", 4),
                ("asia-east1-c", 4),
                ("asia-northeast1-a", 4),
                ("asia-northeast1-c", 4),
                ("asia-south1-a", 4),
                ("asia-south1-b", 4),
                ("asia-southeast1-a", 4),
                ("asia-southeast1-b", 4),
                ("asia-southeast1-c", 4),
                ("australia-southeast1-a", 4),
            ],
        ),
        (
            "P100",
            16,
            1.46,
            0.29,
            vec![
                ("us-central1-c", 4),
                ("us-central1-f", 4),
                ("us-east1-b", 4),
                ("us-east1-c", 4),
                ("us-west1-a", 4),
                ("us-west1-b", 4),
                ("europe-west1-b", 4),
                ("europe-west1-d", 4),
                ("europe-west4-a", 4),
                ("asia-east1-a", 4),
                ("asia-east1-c", 4),
                ("australia-southeast1-c", 4),
            ],
        ),
        (
            "V100",
            16,
            2.48,
            0.3,
            vec![
                ("us-central1-a", 8),
                ("us-central1-b", 8),
                ("us-central1-c", 8),
                ("us-central1-f", 8),
                ("us-east1-c", 8),
                ("us-west1-a", 8),
                ("us-west1-b", 8),
                ("europe-west4-a", 8),
                ("europe-west4-b", 8),
                ("europe-west4-c", 8),
                ("asia-east1-c", 8),
            ],
        ),
        (
            "L4",
            24,
            0.560_71,
            0.4,
            vec![
                ("us-central1-a", 8),
                ("us-central1-b", 8),
                ("us-central1-c", 8),
                ("us-east1-b", 8),
                ("us-east1-c", 8),
                ("us-east1-d", 8),
                ("us-east4-a", 8),
                ("us-east4-c", 8),
                ("us-west1-a", 8),
                ("us-west1-b", 8),
                ("us-west1-c", 8),
                ("us-west4-a", 8),
                ("us-west4-c", 8),
                ("europe-west1-b", 8),
                ("europe-west1-c", 8),
                ("europe-west2-a", 8),
                ("europe-west3-b", 8),
                ("europe-west4-a", 8),
                ("europe-west4-b", 8),
                ("europe-west4-c", 8),
                ("asia-east1-a", 8),
                ("asia-east1-c", 8),
                ("asia-northeast1-a", 8),
                ("asia-south1-a", 8),
                ("asia-southeast1-a", 8),
                ("asia-southeast1-b", 8),
            ],
        ),
        (
            "A100",
            40,
            2.933_908,
            0.3,
            vec![
                ("us-central1-a", 16),
                ("us-central1-b", 16),
                ("us-central1-c", 16),
                ("us-central1-f", 16),
                ("us-east1-b", 8),
                ("us-west1-b", 8),
                ("us-west3-b", 8),
                ("us-west4-b", 8),
                ("europe-west4-a", 16),
                ("europe-west4-b", 8),
                ("asia-northeast1-a", 16),
                ("asia-northeast1-c", 8),
                ("asia-southeast1-b", 8),
                ("asia-southeast1-c", 8),
            ],
        ),
        (
            "A100-80GB",
            80,
            3.92807,
            0.3,
            vec![
                ("us-central1-a", 8),
                ("us-central1-c", 8),
                ("us-east4-c", 8),
                ("us-east5-b", 8),
                ("europe-west4-a", 8),
                ("asia-southeast1-c", 8),
            ],
        ),
        (
            "H100",
            80,
            9.79655,
            0.3,
            vec![
                ("us-central1-a", 8),
                ("us-central1-c", 8),
                ("us-east4-a", 8),
                ("us-east4-b", 8),
                ("us-east5-a", 8),
                ("us-west1-a", 8),
                ("europe-west4-b", 8),
                ("europe-west4-c", 8),
                ("asia-southeast1-b", 8),
            ],
        ),
        (
            "H100-MEGA",
            80,
            10.37,
            0.3,
            vec![
                ("us-central1-a", 8),
                ("us-central1-c", 8),
                ("us-east4-a", 8),
                ("europe-west4-b", 8),
                ("asia-northeast1-b", 8),
            ],
        ),
        (
            "H200",
            141,
            10.6,
            0.32,
            vec![
                ("us-central1-b", 8),
                ("us-east5-a", 8),
                ("europe-west1-b", 8),
                ("asia-south1-b", 8),
            ],
        ),
        (
            "B200",
            180,
            13.6,
            0.33,
            vec![
                ("us-central1-b", 8),
                ("us-east4-b", 8),
                ("us-south1-b", 8),
                ("europe-west4-b", 8),
            ],
        ),
    ]
}

/// TPUs: (version, sizes, $ per size unit, spot ratio, zones).
/// The price of `tpu-<v>-<n>` is `n × unit`.
fn tpus() -> Vec<TpuOffer> {
    vec![
        (
            "v2",
            vec![8],
            0.5625,
            0.3,
            vec![
                "us-central1-b",
                "us-central1-c",
                "us-central1-f",
                "europe-west4-a",
                "asia-east1-c",
            ],
        ),
        (
            "v2",
            vec![32, 128, 256, 512],
            0.5625,
            0.3,
            vec!["us-central1-a", "europe-west4-a"],
        ),
        // tpu-v3-8 is deliberately absent from us-west1 (SkyPilot's dry-run test relies on it).
        (
            "v3",
            vec![8],
            1.0,
            0.3,
            vec![
                "us-central1-a",
                "us-central1-b",
                "us-central1-f",
                "europe-west4-a",
            ],
        ),
        (
            "v3",
            vec![32, 64, 128, 256, 512, 1024, 2048],
            1.0,
            0.3,
            vec!["europe-west4-a", "us-east1-d"],
        ),
        (
            "v4",
            vec![8, 16, 32, 64, 128, 256, 512, 1024],
            1.61,
            0.45,
            vec!["us-central2-b"],
        ),
        (
            "v5litepod",
            vec![1, 4, 8, 16, 32, 64, 128, 256],
            1.2,
            0.5,
            vec![
                "us-central1-a",
                "us-west1-c",
                "us-west4-a",
                "us-east1-c",
                "us-east5-a",
                "us-south1-a",
                "europe-west4-b",
            ],
        ),
        (
            "v5p",
            vec![8, 16, 32, 64, 128, 256, 512],
            2.1,
            0.42,
            vec!["us-east5-a", "europe-west4-b"],
        ),
        (
            "v6e",
            vec![1, 4, 8, 16, 32, 64, 128, 256],
            2.7,
            0.4,
            vec![
                "us-east1-d",
                "us-east5-b",
                "us-central1-b",
                "europe-west4-a",
                "asia-northeast1-b",
            ],
        ),
    ]
}

fn region_of(zone: &str) -> &str {
    zone.rsplit_once('-').map_or(zone, |(r, _)| r)
}

fn region_params(region: &str) -> (f64, f64) {
    if region == "us-central2" {
        return (1.0, 0.3);
    }
    REGIONS
        .iter()
        .find(|(r, ..)| *r == region)
        .map(|(_, _, m, s)| (*m, *s))
        .unwrap_or((1.0, 0.3))
}

fn money(x: f64) -> String {
    py_float(round_to(x, 5))
}

/// Generates `gcp/vms.csv`.
pub fn generate() -> Table {
    let mut dice = Dice::new(0x6C);
    let mut vm_rows: Vec<Vec<String>> = Vec::new();
    let vm_row =
        |name: &str, vcpus: f64, mem: f64, region: &str, zone: &str, price: f64, spot: f64| {
            vec![
                name.to_owned(),
                py_float(vcpus),
                py_float(mem),
                String::new(),
                String::new(),
                String::new(),
                region.to_owned(),
                zone.to_owned(),
                money(price),
                money(spot),
            ]
        };

    // General-purpose series.
    for s in series() {
        for (region, zones, mult, spot_ratio) in REGIONS {
            if !s.regions.is_empty() && !s.regions.contains(region) {
                continue;
            }
            // A region-specific spot discount for this series.
            let spot_mult = spot_ratio * dice.range(0.9, 1.1);
            for z in *zones {
                let zone = format!("{region}-{z}");
                // Newer series skip an occasional zone (never the first one).
                if z != &zones[0] && !s.regions.is_empty() && dice.chance(0.15) {
                    continue;
                }
                for (name, vcpus, mem) in &s.types {
                    let base = s.vcpu_rate * vcpus + s.gib_rate * mem;
                    vm_rows.push(vm_row(
                        name,
                        *vcpus,
                        *mem,
                        region,
                        &zone,
                        base * mult,
                        base * mult * spot_mult,
                    ));
                }
            }
        }
    }

    // Accelerator-optimised machine types live in the zones of their GPU.
    let gpu_table = gpus();
    for (gpu, types, vcpu_rate, gib_rate) in gpu_hosts() {
        let Some((_, _, _, _, zones)) = gpu_table.iter().find(|g| g.0 == gpu) else {
            continue;
        };
        for (zone, max) in zones {
            let region = region_of(zone);
            let (mult, spot_ratio) = region_params(region);
            for (name, vcpus, mem) in &types {
                if *name == "a2-megagpu-16g" && *max < 16 {
                    continue;
                }
                let base = vcpu_rate * vcpus + gib_rate * mem;
                vm_rows.push(vm_row(
                    name,
                    *vcpus,
                    *mem,
                    region,
                    zone,
                    base * mult,
                    base * mult * spot_ratio,
                ));
            }
        }
    }
    vm_rows.sort_by(|a, b| (&a[0], &a[6], &a[7]).cmp(&(&b[0], &b[6], &b[7])));

    // GPU accelerator rows.
    let mut gpu_rows: Vec<Vec<String>> = Vec::new();
    for (name, mem_gib, price, spot_ratio, zones) in &gpu_table {
        let gpu_info = format!(
            "{{'Gpus': [{{'MemoryInfo': {{'SizeInMiB': {}}}}}]}}",
            mem_gib * 1024
        );
        for (zone, max) in zones {
            let region = region_of(zone);
            let (mult, _) = region_params(region);
            let spot_missing = dice.chance(0.05);
            let mut count = 1;
            while count <= *max {
                let only_eight = matches!(*name, "H100-MEGA" | "H200" | "B200");
                if !only_eight || count == 8 {
                    let total = price * f64::from(count) * mult;
                    gpu_rows.push(vec![
                        String::new(),
                        String::new(),
                        String::new(),
                        (*name).to_owned(),
                        py_float(f64::from(count)),
                        gpu_info.clone(),
                        region.to_owned(),
                        (*zone).to_owned(),
                        money(total),
                        if spot_missing {
                            String::new()
                        } else {
                            money(total * spot_ratio)
                        },
                    ]);
                }
                count *= 2;
            }
        }
    }
    gpu_rows.sort_by(|a, b| {
        let ka = (&a[3], a[4].parse::<f64>().unwrap_or(0.0), &a[6], &a[7]);
        let kb = (&b[3], b[4].parse::<f64>().unwrap_or(0.0), &b[6], &b[7]);
        ka.partial_cmp(&kb).unwrap_or(std::cmp::Ordering::Equal)
    });

    // TPU rows, sorted by (version, size, region, zone) like fetch_gcp.py.
    let mut tpu_rows: Vec<(String, u32, Vec<String>)> = Vec::new();
    for (ver, sizes, unit, spot_ratio, zones) in tpus() {
        for size in sizes {
            let name = format!("tpu-{ver}-{size}");
            for zone in &zones {
                let region = region_of(zone);
                let price = unit * f64::from(size);
                tpu_rows.push((
                    ver.to_owned(),
                    size,
                    vec![
                        String::new(),
                        String::new(),
                        String::new(),
                        name.clone(),
                        py_float(1.0),
                        name.clone(),
                        region.to_owned(),
                        (*zone).to_owned(),
                        money(price),
                        money(price * spot_ratio),
                    ],
                ));
            }
        }
    }
    tpu_rows.sort_by(|a, b| (&a.0, a.1, &a.2[6], &a.2[7]).cmp(&(&b.0, b.1, &b.2[6], &b.2[7])));

    let mut t = Table::new(HEADER);
    t.rows = vm_rows;
    t.rows.extend(gpu_rows);
    t.rows.extend(tpu_rows.into_iter().map(|(_, _, r)| r));
    // The TPU v4 host row that fetch_gcp.py appends verbatim.
    t.rows.push(
        [
            "n1-highmem-8",
            "8.0",
            "52.0",
            "",
            "",
            "",
            "us-central2",
            "us-central2-b",
            "0.473212",
            "0.099624",
        ]
        .map(str::to_owned)
        .to_vec(),
    );
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog_gen::test_util::{cheapest, num, rows_of};
    use std::collections::{HashMap, HashSet};

    type Row = HashMap<String, String>;

    fn default_family(r: &Row) -> bool {
        const P: &[&str] = &[
            "n2-standard-",
            "n2-highmem-",
            "n2-highcpu-",
            "n4-standard-",
            "n4-highcpu-",
            "n4-highmem-",
        ];
        P.iter().any(|p| r["InstanceType"].starts_with(p))
    }

    fn n1_host(r: &Row) -> bool {
        ["n1-standard-", "n1-highmem-", "n1-highcpu-"]
            .iter()
            .any(|p| r["InstanceType"].starts_with(p))
    }

    fn cm(r: &Row) -> (f64, f64) {
        (num(r, "vCPUs").unwrap(), num(r, "MemoryGiB").unwrap())
    }

    #[test]
    fn default_and_host_choices() {
        let t = generate();
        assert_eq!(t.header, HEADER);
        let rows = rows_of(&t);
        let vms: Vec<Row> = rows
            .iter()
            .filter(|r| !r["InstanceType"].is_empty())
            .cloned()
            .collect();
        let pick = |fam: &dyn Fn(&Row) -> bool, f: &dyn Fn(f64, f64) -> bool| {
            cheapest(&vms, |r| {
                fam(r) && {
                    let (c, m) = cm(r);
                    f(c, m)
                }
            })
        };
        assert_eq!(
            pick(&default_family, &|c, m| c == 8.0 && m >= 32.0),
            Some("n4-standard-8")
        );
        assert_eq!(
            pick(&default_family, &|_, m| m == 32.0),
            Some("n4-highmem-4")
        );
        assert_eq!(
            pick(&default_family, &|_, m| m >= 64.0),
            Some("n4-highmem-8")
        );
        assert_eq!(
            pick(&default_family, &|c, m| c >= 4.0 && m >= 4.0),
            Some("n2-highcpu-4")
        );
        // T4:1 host: cpus 4+ and memory 16+ by default.
        assert_eq!(
            pick(&n1_host, &|c, m| c >= 4.0 && m >= 16.0),
            Some("n1-highmem-4")
        );
        assert_eq!(
            pick(&n1_host, &|c, m| c >= 16.0 && m >= 32.0),
            Some("n1-standard-16")
        );
        assert_eq!(pick(&n1_host, &|_, m| m >= 200.0), Some("n1-highmem-32"));
        // V100:1 host needs 8+ vCPUs and 32+ GiB.
        assert_eq!(
            pick(&n1_host, &|c, m| c >= 8.0 && m >= 32.0),
            Some("n1-highmem-8")
        );
    }

    #[test]
    fn required_rows_exist() {
        let rows = rows_of(&generate());
        let types: HashSet<&str> = rows.iter().map(|r| r["InstanceType"].as_str()).collect();
        for t in [
            "n1-standard-2",
            "n1-standard-8",
            "n1-standard-16",
            "n1-standard-96",
            "n2-standard-8",
            "a2-highgpu-1g",
            "a2-megagpu-16g",
            "a2-ultragpu-8g",
            "a3-highgpu-8g",
            "a3-megagpu-8g",
            "a3-ultragpu-8g",
            "a4-highgpu-8g",
            "g2-standard-4",
            "e2-standard-2",
        ] {
            assert!(types.contains(t), "{t}");
        }
        let n1_96 = rows
            .iter()
            .find(|r| r["InstanceType"] == "n1-highcpu-96")
            .unwrap();
        assert_eq!(n1_96["MemoryGiB"], "86.4");
        assert!(
            rows.iter()
                .filter(|r| r["InstanceType"] == "a4-highgpu-8g")
                .all(|r| r["Price"] == "0.0")
        );

        let accs: HashSet<&str> = rows.iter().map(|r| r["AcceleratorName"].as_str()).collect();
        for a in [
            "K80",
            "P4",
            "T4",
            "P100",
            "V100",
            "L4",
            "A100",
            "A100-80GB",
            "H100",
            "H100-MEGA",
            "H200",
            "B200",
        ] {
            assert!(accs.contains(a), "{a}");
        }
        for r in rows.iter().filter(|r| !r["AcceleratorName"].is_empty()) {
            assert!(r["InstanceType"].is_empty() && r["vCPUs"].is_empty());
            let n = num(r, "AcceleratorCount").unwrap();
            assert!((n as u32).is_power_of_two());
            if ["H100-MEGA", "H200", "B200"].contains(&r["AcceleratorName"].as_str()) {
                assert_eq!(n, 8.0);
            }
            if r["AcceleratorName"].starts_with("tpu-") {
                assert_eq!(n, 1.0);
            }
            // 5-decimal rounding.
            let p = &r["Price"];
            assert!(p.split('.').nth(1).is_none_or(|d| d.len() <= 5), "{p}");
        }
        for tpu in ["tpu-v2-8", "tpu-v3-8", "tpu-v4-8", "tpu-v5litepod-8"] {
            assert!(accs.contains(tpu), "{tpu}");
        }
        assert!(
            !rows
                .iter()
                .any(|r| r["AcceleratorName"] == "tpu-v3-8" && r["Region"] == "us-west1")
        );
        assert!(rows.iter().any(
            |r| r["InstanceType"] == "n1-highmem-8" && r["AvailabilityZone"] == "us-central2-b"
        ));
        let uc1: HashSet<&str> = rows
            .iter()
            .filter(|r| r["Region"] == "us-central1")
            .map(|r| r["AvailabilityZone"].as_str())
            .collect();
        assert_eq!(
            uc1,
            HashSet::from([
                "us-central1-a",
                "us-central1-b",
                "us-central1-c",
                "us-central1-f"
            ])
        );
        // A100:16 only where a2-megagpu-16g is.
        for r in rows
            .iter()
            .filter(|r| r["AcceleratorName"] == "A100" && r["AcceleratorCount"] == "16.0")
        {
            assert!(rows.iter().any(|v| v["InstanceType"] == "a2-megagpu-16g"
                && v["AvailabilityZone"] == r["AvailabilityZone"]));
        }
    }
}
