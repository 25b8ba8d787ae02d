//! AWS `vms.csv` (one row per instance type × availability-zone ID) and the
//! per-account `az_mappings-<hash8>.csv` (zone ID → zone name).
//!
//! Shapes are the public EC2 specifications; `us-east-1` on-demand prices are
//! public Linux list prices, scaled per region by a multiplier close to AWS's
//! regional price ratios. Spot prices are 30–70 % of on-demand per zone.

use super::{Dice, Table, gpu_info_dict, opt_float, py_float, round_to};

/// Column order written by SkyPilot's `fetch_aws.py` (v8).
pub const HEADER: &[&str] = &[
    "InstanceType",
    "AcceleratorName",
    "AcceleratorCount",
    "vCPUs",
    "MemoryGiB",
    "GpuInfo",
    "Price",
    "SpotPrice",
    "Region",
    "AvailabilityZone",
    "Arch",
    "LocalDiskType",
    "NVMeSupported",
    "LocalDiskSize",
    "LocalDiskCount",
    "MaximumEfaInterfaces",
];

/// Columns of the availability-zone mapping file.
pub const AZ_MAPPING_HEADER: &[&str] = &["AvailabilityZone", "AvailabilityZoneName"];

/// The generated AWS files.
#[derive(Debug, Clone)]
pub struct AwsCatalog {
    /// `aws/vms.csv`.
    pub vms: Table,
    /// `aws/az_mappings-<hash8>.csv`.
    pub az_mappings: Table,
}

/// A region: name, zone-ID prefix, zone-ID numbers, zone letters, price multiplier.
pub(crate) struct Region {
    pub name: &'static str,
    pub id_prefix: &'static str,
    pub az_numbers: &'static [u8],
    pub letters: &'static [char],
    pub mult: f64,
}

const fn r(
    name: &'static str,
    id_prefix: &'static str,
    az_numbers: &'static [u8],
    letters: &'static [char],
    mult: f64,
) -> Region {
    Region {
        name,
        id_prefix,
        az_numbers,
        letters,
        mult,
    }
}

const ABC: &[char] = &['a', 'b', 'c'];
/// The regions in the catalog (a subset of `fetch_aws.ALL_REGIONS`).
pub(crate) const REGIONS: &[Region] = &[
    r(
        "us-east-1",
        "use1",
        &[1, 2, 3, 4, 5, 6],
        &['a', 'b', 'c', 'd', 'e', 'f'],
        1.0,
    ),
    r("us-east-2", "use2", &[1, 2, 3], ABC, 1.0),
    r("us-west-1", "usw1", &[1, 3], &['b', 'c'], 1.1667),
    r(
        "us-west-2",
        "usw2",
        &[1, 2, 3, 4],
        &['a', 'b', 'c', 'd'],
        1.0,
    ),
    r("ca-central-1", "cac1", &[1, 2, 4], &['a', 'b', 'd'], 1.1146),
    r("eu-west-1", "euw1", &[1, 2, 3], ABC, 1.1146),
    r("eu-west-2", "euw2", &[1, 2, 3], ABC, 1.1563),
    r("eu-west-3", "euw3", &[1, 2, 3], ABC, 1.1667),
    r("eu-central-1", "euc1", &[1, 2, 3], ABC, 1.1979),
    r("eu-north-1", "eun1", &[1, 2, 3], ABC, 1.0625),
    r("eu-south-1", "eus1", &[1, 2, 3], ABC, 1.1667),
    r("ap-south-1", "aps1", &[1, 2, 3], ABC, 1.0521),
    r(
        "ap-northeast-1",
        "apne1",
        &[1, 2, 4],
        &['a', 'c', 'd'],
        1.2917,
    ),
    r(
        "ap-northeast-2",
        "apne2",
        &[1, 2, 3, 4],
        &['a', 'b', 'c', 'd'],
        1.2292,
    ),
    r("ap-northeast-3", "apne3", &[1, 2, 3], ABC, 1.2917),
    r("ap-southeast-1", "apse1", &[1, 2, 3], ABC, 1.25),
    r("ap-southeast-2", "apse2", &[1, 2, 3], ABC, 1.25),
    r("sa-east-1", "sae1", &[1, 2, 3], ABC, 1.5938),
    r("me-central-1", "mec1", &[1, 2, 3], ABC, 1.2292),
    r("af-south-1", "afs1", &[1, 2, 3], ABC, 1.3125),
];

/// Where a family is offered.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Avail {
    /// Every region.
    All,
    /// Every region except the listed ones.
    Except(&'static [&'static str]),
    /// Only the listed regions.
    Only(&'static [&'static str]),
}

impl Avail {
    fn allows(self, region: &str) -> bool {
        match self {
            Avail::All => true,
            Avail::Except(list) => !list.contains(&region),
            Avail::Only(list) => list.contains(&region),
        }
    }
}

/// Local disk of one size: (type `ssd`/`hdd`, NVMe, size GB per disk, count).
type Disk = Option<(&'static str, bool, u32, u32)>;

/// One instance type before region/zone expansion.
struct Shape {
    name: String,
    vcpus: f64,
    mem: f64,
    price: f64,
    arch: &'static str,
    disk: Disk,
    efa: Option<u32>,
    acc: Option<Acc>,
}

#[derive(Clone)]
struct Acc {
    name: &'static str,
    count: f64,
    gpu_info: String,
}

/// Standard size ladder: (suffix, vCPUs).
const LADDER_6: &[(&str, u32)] = &[
    ("large", 2),
    ("xlarge", 4),
    ("2xlarge", 8),
    ("4xlarge", 16),
    ("8xlarge", 32),
    ("12xlarge", 48),
    ("16xlarge", 64),
    ("24xlarge", 96),
    ("32xlarge", 128),
    ("metal", 128),
];
const LADDER_5: &[(&str, u32)] = &[
    ("large", 2),
    ("xlarge", 4),
    ("2xlarge", 8),
    ("4xlarge", 16),
    ("8xlarge", 32),
    ("12xlarge", 48),
    ("16xlarge", 64),
    ("24xlarge", 96),
    ("metal", 96),
];
const LADDER_C5: &[(&str, u32)] = &[
    ("large", 2),
    ("xlarge", 4),
    ("2xlarge", 8),
    ("4xlarge", 16),
    ("9xlarge", 36),
    ("12xlarge", 48),
    ("18xlarge", 72),
    ("24xlarge", 96),
    ("metal", 96),
];
const LADDER_7: &[(&str, u32)] = &[
    ("large", 2),
    ("xlarge", 4),
    ("2xlarge", 8),
    ("4xlarge", 16),
    ("8xlarge", 32),
    ("12xlarge", 48),
    ("16xlarge", 64),
    ("24xlarge", 96),
    ("48xlarge", 192),
    ("metal-24xl", 96),
    ("metal-48xl", 192),
];
const LADDER_G: &[(&str, u32)] = &[
    ("medium", 1),
    ("large", 2),
    ("xlarge", 4),
    ("2xlarge", 8),
    ("4xlarge", 16),
    ("8xlarge", 32),
    ("12xlarge", 48),
    ("16xlarge", 64),
    ("metal", 64),
];

const LADDER_FLEX: &[(&str, u32)] = &[
    ("large", 2),
    ("xlarge", 4),
    ("2xlarge", 8),
    ("4xlarge", 16),
    ("8xlarge", 32),
    ("12xlarge", 48),
    ("16xlarge", 64),
];

const LADDER_ZN: &[(&str, u32)] = &[
    ("large", 2),
    ("xlarge", 4),
    ("2xlarge", 8),
    ("3xlarge", 12),
    ("6xlarge", 24),
    ("12xlarge", 48),
    ("metal", 48),
];

/// NVMe layout of i4i, by vCPUs.
fn i4i_disk(vcpus: u32) -> Disk {
    let (size, count) = match vcpus {
        2 => (468, 1),
        4 => (937, 1),
        8 => (1875, 1),
        16 => (3750, 1),
        32 => (3750, 2),
        48 => (3750, 3),
        64 => (3750, 4),
        96 => (3750, 6),
        _ => (3750, 8),
    };
    Some(("ssd", true, size, count))
}

/// NVMe layout of the Graviton `gd` variants, by vCPUs.
fn g_disk(vcpus: u32) -> Disk {
    let (size, count) = match vcpus {
        1 => (59, 1),
        2 => (118, 1),
        4 => (237, 1),
        8 => (474, 1),
        16 => (950, 1),
        32 => (1900, 1),
        48 => (1425, 2),
        _ => (1900, 2),
    };
    Some(("ssd", true, size, count))
}

/// NVMe instance-store layout of the 6th-generation `d` variants, by vCPUs.
fn d6_disk(vcpus: u32) -> Disk {
    let (size, count) = match vcpus {
        2 => (118, 1),
        4 => (237, 1),
        8 => (474, 1),
        16 => (950, 1),
        32 => (1900, 1),
        48 => (1425, 2),
        64 => (1900, 2),
        96 => (1425, 4),
        _ => (1900, 4),
    };
    Some(("ssd", true, size, count))
}

/// NVMe layout of the 5th-generation `d` variants, by vCPUs.
fn d5_disk(vcpus: u32) -> Disk {
    let (size, count) = match vcpus {
        2 => (75, 1),
        4 => (150, 1),
        8 => (300, 1),
        16 => (300, 2),
        32 | 36 => (600, 2),
        48 => (900, 2),
        64 | 72 => (600, 4),
        _ => (900, 4),
    };
    Some(("ssd", true, size, count))
}

/// A general-purpose family: prefix, ladder, GiB per vCPU, $ per vCPU-hour, arch, disk rule, availability.
struct Family {
    prefix: &'static str,
    ladder: &'static [(&'static str, u32)],
    gib_per_vcpu: f64,
    rate: f64,
    arch: &'static str,
    disk: fn(u32) -> Disk,
    efa_from_vcpus: Option<u32>,
    avail: Avail,
    old_az: bool,
}

fn no_disk(_: u32) -> Disk {
    None
}

const NOT_NEW: &[&str] = &["af-south-1", "me-central-1", "ap-northeast-3", "eu-south-1"];
const OLD_ONLY: &[&str] = &[
    "us-east-1",
    "us-east-2",
    "us-west-1",
    "us-west-2",
    "ca-central-1",
    "eu-west-1",
    "eu-west-2",
    "eu-central-1",
    "ap-south-1",
    "ap-northeast-1",
    "ap-northeast-2",
    "ap-southeast-1",
    "ap-southeast-2",
    "sa-east-1",
];

#[rustfmt::skip]
fn families() -> Vec<Family> {
    let f = |prefix, ladder, gib, rate, arch, disk: fn(u32) -> Disk, efa, avail, old_az| Family {
        prefix,
        ladder,
        gib_per_vcpu: gib,
        rate,
        arch,
        disk,
        efa_from_vcpus: efa,
        avail,
        old_az,
    };
    let x86 = "x86_64";
    let arm = "arm64";
    vec![
        // Default families (SkyPilot picks the cheapest of m6i/m6id/m7i/r6i/r6id/r7i/c6i/c6id/c7i).
        f("m6i", LADDER_6, 4.0, 0.048, x86, no_disk, Some(128), Avail::All, false),
        f("m6id", LADDER_6, 4.0, 0.0593125, x86, d6_disk, Some(128), Avail::All, false),
        f("m7i", LADDER_7, 4.0, 0.0504, x86, no_disk, Some(192), Avail::Except(NOT_NEW), false),
        f("c6i", LADDER_6, 2.0, 0.0425, x86, no_disk, Some(128), Avail::All, false),
        f("c6id", LADDER_6, 2.0, 0.0504, x86, d6_disk, Some(128), Avail::All, false),
        f("c7i", LADDER_7, 2.0, 0.044625, x86, no_disk, Some(192), Avail::Except(NOT_NEW), false),
        f("r6i", LADDER_6, 8.0, 0.063, x86, no_disk, Some(128), Avail::All, false),
        f("r6id", LADDER_6, 8.0, 0.0756, x86, d6_disk, Some(128), Avail::All, false),
        f("r7i", LADDER_7, 8.0, 0.06615, x86, no_disk, Some(192), Avail::Except(NOT_NEW), false),
        // Older and alternative families.
        f("m5", LADDER_5, 4.0, 0.048, x86, no_disk, None, Avail::All, true),
        f("m5a", LADDER_5, 4.0, 0.043, x86, no_disk, None, Avail::Except(&["af-south-1"]), false),
        f("m5d", LADDER_5, 4.0, 0.0565, x86, d5_disk, None, Avail::All, true),
        f("c5", LADDER_C5, 2.0, 0.0425, x86, no_disk, None, Avail::All, true),
        f("c5a", LADDER_5, 2.0, 0.0385, x86, no_disk, None, Avail::Except(&["af-south-1"]), false),
        f("c5d", LADDER_C5, 2.0, 0.048, x86, d5_disk, None, Avail::All, true),
        f("r5", LADDER_5, 8.0, 0.063, x86, no_disk, None, Avail::All, true),
        f("r5a", LADDER_5, 8.0, 0.0565, x86, no_disk, None, Avail::Except(&["af-south-1"]), false),
        f("r5d", LADDER_5, 8.0, 0.072, x86, d5_disk, None, Avail::All, true),
        f("m6a", LADDER_6, 4.0, 0.0432, x86, no_disk, Some(128), Avail::Except(NOT_NEW), false),
        f("c6a", LADDER_6, 2.0, 0.0383, x86, no_disk, Some(128), Avail::Except(NOT_NEW), false),
        f("r6a", LADDER_6, 8.0, 0.0567, x86, no_disk, Some(128), Avail::Except(NOT_NEW), false),
        f("m7a", LADDER_7, 4.0, 0.05796, x86, no_disk, Some(192), Avail::Only(OLD_ONLY), false),
        f("c7a", LADDER_7, 2.0, 0.051305, x86, no_disk, Some(192), Avail::Only(OLD_ONLY), false),
        f("r7a", LADDER_7, 8.0, 0.07608, x86, no_disk, Some(192), Avail::Only(OLD_ONLY), false),
        f("m6g", LADDER_G, 4.0, 0.0385, arm, no_disk, None, Avail::All, false),
        f("c6g", LADDER_G, 2.0, 0.034, arm, no_disk, None, Avail::All, false),
        f("r6g", LADDER_G, 8.0, 0.0504, arm, no_disk, None, Avail::All, false),
        f("m7g", LADDER_G, 4.0, 0.0408, arm, no_disk, Some(64), Avail::Except(NOT_NEW), false),
        f("c7g", LADDER_G, 2.0, 0.03625, arm, no_disk, Some(64), Avail::Except(NOT_NEW), false),
        f("r7g", LADDER_G, 8.0, 0.05355, arm, no_disk, Some(64), Avail::Except(NOT_NEW), false),
        f("m6gd", LADDER_G, 4.0, 0.0452, arm, g_disk, None, Avail::Except(NOT_NEW), false),
        f("c6gd", LADDER_G, 2.0, 0.0384, arm, g_disk, None, Avail::Except(NOT_NEW), false),
        f("r6gd", LADDER_G, 8.0, 0.0576, arm, g_disk, None, Avail::Except(NOT_NEW), false),
        f("c6gn", LADDER_G, 2.0, 0.0432, arm, no_disk, Some(64), Avail::Except(NOT_NEW), false),
        f("m8g", LADDER_G, 4.0, 0.04488, arm, no_disk, Some(64), Avail::Only(OLD_ONLY), false),
        f("c8g", LADDER_G, 2.0, 0.03988, arm, no_disk, Some(64), Avail::Only(OLD_ONLY), false),
        f("r8g", LADDER_G, 8.0, 0.05891, arm, no_disk, Some(64), Avail::Only(OLD_ONLY), false),
        f("m5n", LADDER_5, 4.0, 0.0595, x86, no_disk, Some(96), Avail::Except(NOT_NEW), true),
        f("m5dn", LADDER_5, 4.0, 0.068, x86, d5_disk, Some(96), Avail::Except(NOT_NEW), true),
        f("c5n", LADDER_C5, 2.625, 0.054, x86, no_disk, Some(72), Avail::All, true),
        f("r5n", LADDER_5, 8.0, 0.0745, x86, no_disk, Some(96), Avail::Except(NOT_NEW), true),
        f("r5dn", LADDER_5, 8.0, 0.0835, x86, d5_disk, Some(96), Avail::Except(NOT_NEW), true),
        f("r5b", LADDER_5, 8.0, 0.149, x86, no_disk, None, Avail::Only(OLD_ONLY), true),
        f("m5zn", LADDER_ZN, 8.0, 0.0826, x86, no_disk, Some(48), Avail::Only(OLD_ONLY), false),
        f("z1d", LADDER_ZN, 8.0, 0.093, x86, d5_disk, None, Avail::Only(OLD_ONLY), true),
        f("i4i", LADDER_6, 8.0, 0.1716, x86, i4i_disk, Some(128), Avail::Except(&["af-south-1"]), false),
        f("m6in", LADDER_6, 4.0, 0.07, x86, no_disk, Some(128), Avail::Except(NOT_NEW), false),
        f("m6idn", LADDER_6, 4.0, 0.0796, x86, d6_disk, Some(128), Avail::Except(NOT_NEW), false),
        f("c6in", LADDER_6, 2.0, 0.0567, x86, no_disk, Some(128), Avail::Except(NOT_NEW), false),
        f("r6in", LADDER_6, 8.0, 0.0872, x86, no_disk, Some(128), Avail::Except(NOT_NEW), false),
        f("m7i-flex", LADDER_FLEX, 4.0, 0.04788, x86, no_disk, None, Avail::Except(NOT_NEW), false),
        f("c7i-flex", LADDER_FLEX, 2.0, 0.0424, x86, no_disk, None, Avail::Except(NOT_NEW), false),
    ]
}

#[allow(clippy::too_many_arguments)] // a plain record constructor
fn shape(
    name: &str,
    vcpus: f64,
    mem: f64,
    price: f64,
    arch: &'static str,
    disk: Disk,
    efa: Option<u32>,
    acc: Option<Acc>,
) -> Shape {
    Shape {
        name: name.to_owned(),
        vcpus,
        mem,
        price,
        arch,
        disk,
        efa,
        acc,
    }
}

fn nvidia(name: &'static str, gpu_name: &str, count: u32, mib: u64) -> Option<Acc> {
    Some(Acc {
        name,
        count: f64::from(count),
        gpu_info: gpu_info_dict(
            gpu_name,
            "NVIDIA",
            &count.to_string(),
            mib,
            mib * u64::from(count),
        ),
    })
}

fn neuron(name: &'static str, count: u32, mib: u64, cores: u32, version: u32) -> Option<Acc> {
    // fetch_aws.py renames NeuronInfo's `NeuronDevices` key to `Gpus`.
    Some(Acc {
        name,
        count: f64::from(count),
        gpu_info: format!(
            "{{'Gpus': [{{'Count': {count}, 'Name': '{name}', 'CoreInfo': {{'Count': {cores}, \
             'Version': {version}}}, 'MemoryInfo': {{'SizeInMiB': {mib}}}}}], \
             'TotalNeuronDeviceMemoryInMiB': {}}}",
            mib * u64::from(count)
        ),
    })
}

/// Special families with hand-written rows: (shapes, availability, zone share).
fn special_groups() -> Vec<(Vec<Shape>, Avail, f64, bool)> {
    let x86 = "x86_64";
    let nv = |n| Some(("ssd", true, n, 1));
    let mut groups = Vec::new();

    // Burstable t3 / t3a / t4g.
    let t = [
        ("nano", 2.0, 0.5, 0.0052),
        ("micro", 2.0, 1.0, 0.0104),
        ("small", 2.0, 2.0, 0.0208),
        ("medium", 2.0, 4.0, 0.0416),
        ("large", 2.0, 8.0, 0.0832),
        ("xlarge", 4.0, 16.0, 0.1664),
        ("2xlarge", 8.0, 32.0, 0.3328),
    ];
    for (fam, factor, arch) in [("t3", 1.0, x86), ("t3a", 0.9, x86), ("t4g", 0.8, "arm64")] {
        let shapes = t
            .iter()
            .map(|(s, v, m, p)| {
                let name = format!("{fam}.{s}");
                shape(
                    &name,
                    *v,
                    *m,
                    round_to(p * factor, 4),
                    arch,
                    None,
                    None,
                    None,
                )
            })
            .collect();
        groups.push((shapes, Avail::All, 0.95, fam == "t3"));
    }

    // Storage optimised: i3 (NVMe) and d2 (dense HDD; d2.large models the
    // small SSD row that SkyPilot's local-disk unit test uses).
    let i3 = [
        ("large", 2.0, 15.25, 0.156, 475, 1),
        ("xlarge", 4.0, 30.5, 0.312, 950, 1),
        ("2xlarge", 8.0, 61.0, 0.624, 1900, 1),
        ("4xlarge", 16.0, 122.0, 1.248, 1900, 2),
        ("8xlarge", 32.0, 244.0, 2.496, 1900, 4),
        ("16xlarge", 64.0, 488.0, 4.992, 1900, 8),
        ("metal", 72.0, 512.0, 4.992, 1900, 8),
    ];
    let shapes = i3
        .iter()
        .map(|(s, v, m, p, size, n)| {
            shape(
                &format!("i3.{s}"),
                *v,
                *m,
                *p,
                x86,
                Some(("ssd", true, *size, *n)),
                None,
                None,
            )
        })
        .collect();
    groups.push((
        shapes,
        Avail::Except(&["af-south-1", "me-central-1"]),
        0.9,
        true,
    ));
    let d2 = [
        ("large", 2.0, 15.25, 0.14, "ssd", 500, 1),
        ("xlarge", 4.0, 30.5, 0.69, "hdd", 2000, 3),
        ("2xlarge", 8.0, 61.0, 1.38, "hdd", 2000, 6),
        ("4xlarge", 16.0, 122.0, 2.76, "hdd", 2000, 12),
        ("8xlarge", 36.0, 244.0, 5.52, "hdd", 2000, 24),
    ];
    let shapes = d2
        .iter()
        .map(|(s, v, m, p, ty, size, n)| {
            shape(
                &format!("d2.{s}"),
                *v,
                *m,
                *p,
                x86,
                Some((*ty, false, *size, *n)),
                None,
                None,
            )
        })
        .collect();
    groups.push((shapes, Avail::Only(OLD_ONLY), 0.8, true));

    // Previous-generation m4.
    let m4 = [
        ("large", 2.0, 8.0, 0.10),
        ("xlarge", 4.0, 16.0, 0.20),
        ("2xlarge", 8.0, 32.0, 0.40),
        ("4xlarge", 16.0, 64.0, 0.80),
        ("10xlarge", 40.0, 160.0, 2.00),
        ("16xlarge", 64.0, 256.0, 3.20),
    ];
    let shapes = m4
        .iter()
        .map(|(s, v, m, p)| shape(&format!("m4.{s}"), *v, *m, *p, x86, None, None, None))
        .collect();
    groups.push((shapes, Avail::Only(OLD_ONLY), 0.85, true));

    // GPU families.
    const V100_MIB: u64 = 16384;
    let p3 = vec![
        shape(
            "p3.2xlarge",
            8.0,
            61.0,
            3.06,
            x86,
            None,
            None,
            nvidia("V100", "V100", 1, V100_MIB),
        ),
        shape(
            "p3.8xlarge",
            32.0,
            244.0,
            12.24,
            x86,
            None,
            None,
            nvidia("V100", "V100", 4, V100_MIB),
        ),
        shape(
            "p3.16xlarge",
            64.0,
            488.0,
            24.48,
            x86,
            None,
            None,
            nvidia("V100", "V100", 8, V100_MIB),
        ),
    ];
    groups.push((
        p3,
        Avail::Only(&[
            "us-east-1",
            "us-east-2",
            "us-west-2",
            "ca-central-1",
            "eu-west-1",
            "eu-west-2",
            "eu-central-1",
            "ap-northeast-1",
            "ap-northeast-2",
            "ap-southeast-1",
            "ap-southeast-2",
        ]),
        0.6,
        false,
    ));
    let p3dn = vec![shape(
        "p3dn.24xlarge",
        96.0,
        768.0,
        31.212,
        x86,
        Some(("ssd", true, 900, 2)),
        Some(1),
        nvidia("V100-32GB", "V100", 8, 32768),
    )];
    groups.push((
        p3dn,
        Avail::Only(&["us-east-1", "us-west-2", "eu-west-1", "ap-northeast-1"]),
        0.5,
        false,
    ));
    let p4d = vec![shape(
        "p4d.24xlarge",
        96.0,
        1152.0,
        32.7726,
        x86,
        Some(("ssd", true, 1000, 8)),
        Some(4),
        nvidia("A100", "A100", 8, 40960),
    )];
    groups.push((
        p4d,
        Avail::Only(&[
            "us-east-1",
            "us-east-2",
            "us-west-2",
            "eu-west-1",
            "eu-central-1",
            "ap-northeast-1",
            "ap-northeast-2",
            "ap-southeast-1",
        ]),
        0.5,
        false,
    ));
    let p4de = vec![shape(
        "p4de.24xlarge",
        96.0,
        1152.0,
        40.9657,
        x86,
        Some(("ssd", true, 1000, 8)),
        Some(4),
        nvidia("A100-80GB", "A100", 8, 81920),
    )];
    groups.push((p4de, Avail::Only(&["us-east-1", "us-west-2"]), 0.5, false));
    let p5 = vec![
        shape(
            "p5.48xlarge",
            192.0,
            2048.0,
            98.32,
            x86,
            Some(("ssd", true, 3800, 8)),
            Some(32),
            nvidia("H100", "H100", 8, 81920),
        ),
        shape(
            "p5.4xlarge",
            16.0,
            256.0,
            6.88,
            x86,
            Some(("ssd", true, 3800, 1)),
            None,
            nvidia("H100", "H100", 1, 81920),
        ),
    ];
    groups.push((
        p5,
        Avail::Only(&[
            "us-east-1",
            "us-east-2",
            "us-west-2",
            "eu-north-1",
            "ap-northeast-1",
        ]),
        0.5,
        false,
    ));
    let p5e = vec![shape(
        "p5e.48xlarge",
        192.0,
        2048.0,
        108.49,
        x86,
        Some(("ssd", true, 3800, 8)),
        Some(32),
        nvidia("H200", "NVIDIA", 8, 143771),
    )];
    groups.push((
        p5e,
        Avail::Only(&["us-east-2", "us-west-2", "ap-northeast-1"]),
        0.5,
        false,
    ));

    let g4dn = [
        ("xlarge", 4.0, 16.0, 0.526, 1, 125, 1, None),
        ("2xlarge", 8.0, 32.0, 0.752, 1, 225, 1, None),
        ("4xlarge", 16.0, 64.0, 1.204, 1, 225, 1, None),
        ("8xlarge", 32.0, 128.0, 2.176, 1, 900, 1, Some(1)),
        ("12xlarge", 48.0, 192.0, 3.912, 4, 900, 1, Some(1)),
        ("16xlarge", 64.0, 256.0, 4.352, 1, 900, 1, Some(1)),
        ("metal", 96.0, 384.0, 7.824, 8, 900, 2, Some(1)),
    ];
    let shapes = g4dn
        .iter()
        .map(|(s, v, m, p, n, size, dn, efa)| {
            shape(
                &format!("g4dn.{s}"),
                *v,
                *m,
                *p,
                x86,
                Some(("ssd", true, *size, *dn)),
                *efa,
                nvidia("T4", "T4", *n, 16384),
            )
        })
        .collect();
    groups.push((shapes, Avail::Except(&["me-central-1"]), 0.7, false));

    let g_ladder = |fam: &str,
                    acc: &'static str,
                    gpu: &str,
                    mib: u64,
                    rows: &[(&str, f64, f64, f64, u32, u32, u32)]| {
        rows.iter()
            .map(|(s, v, m, p, n, size, dn)| {
                let efa = if *v >= 48.0 && *n > 1 { Some(1) } else { None };
                shape(
                    &format!("{fam}.{s}"),
                    *v,
                    *m,
                    *p,
                    x86,
                    Some(("ssd", true, *size, *dn)),
                    efa,
                    nvidia(acc, gpu, *n, mib),
                )
            })
            .collect::<Vec<_>>()
    };
    let g5 = g_ladder(
        "g5",
        "A10G",
        "A10G",
        24576,
        &[
            ("xlarge", 4.0, 16.0, 1.006, 1, 250, 1),
            ("2xlarge", 8.0, 32.0, 1.212, 1, 450, 1),
            ("4xlarge", 16.0, 64.0, 1.624, 1, 600, 1),
            ("8xlarge", 32.0, 128.0, 2.448, 1, 900, 1),
            ("12xlarge", 48.0, 192.0, 5.672, 4, 3800, 1),
            ("16xlarge", 64.0, 256.0, 4.096, 1, 1900, 1),
            ("24xlarge", 96.0, 384.0, 8.144, 4, 3800, 1),
            ("48xlarge", 192.0, 768.0, 16.288, 8, 3800, 2),
        ],
    );
    groups.push((
        g5,
        Avail::Only(&[
            "us-east-1",
            "us-east-2",
            "us-west-2",
            "ca-central-1",
            "eu-west-1",
            "eu-west-2",
            "eu-central-1",
            "eu-north-1",
            "ap-northeast-1",
            "ap-northeast-2",
            "ap-south-1",
            "ap-southeast-1",
            "ap-southeast-2",
            "sa-east-1",
        ]),
        0.7,
        false,
    ));
    let g6 = g_ladder(
        "g6",
        "L4",
        "L4",
        22888,
        &[
            ("xlarge", 4.0, 16.0, 0.8048, 1, 250, 1),
            ("2xlarge", 8.0, 32.0, 0.9776, 1, 450, 1),
            ("4xlarge", 16.0, 64.0, 1.3232, 1, 600, 1),
            ("8xlarge", 32.0, 128.0, 2.0144, 1, 900, 1),
            ("12xlarge", 48.0, 192.0, 4.6016, 4, 940, 4),
            ("16xlarge", 64.0, 256.0, 3.3968, 1, 940, 2),
            ("24xlarge", 96.0, 384.0, 6.6752, 4, 940, 4),
            ("48xlarge", 192.0, 768.0, 13.3504, 8, 940, 8),
        ],
    );
    groups.push((
        g6,
        Avail::Only(&[
            "us-east-1",
            "us-east-2",
            "us-west-2",
            "ca-central-1",
            "eu-west-2",
            "eu-central-1",
            "eu-south-1",
            "ap-northeast-1",
            "ap-south-1",
            "ap-southeast-2",
            "sa-east-1",
        ]),
        0.7,
        false,
    ));
    let g6e = g_ladder(
        "g6e",
        "L40S",
        "L40S",
        45776,
        &[
            ("xlarge", 4.0, 32.0, 1.861, 1, 250, 1),
            ("2xlarge", 8.0, 64.0, 2.24208, 1, 450, 1),
            ("4xlarge", 16.0, 128.0, 3.00424, 1, 600, 1),
            ("8xlarge", 32.0, 256.0, 4.52856, 1, 900, 1),
            ("12xlarge", 48.0, 384.0, 10.49264, 4, 1900, 2),
            ("16xlarge", 64.0, 512.0, 7.57719, 1, 1900, 1),
            ("24xlarge", 96.0, 768.0, 15.06559, 4, 1900, 2),
            ("48xlarge", 192.0, 1536.0, 30.13118, 8, 1900, 4),
        ],
    );
    groups.push((
        g6e,
        Avail::Only(&[
            "us-east-1",
            "us-east-2",
            "us-west-2",
            "eu-north-1",
            "ap-northeast-1",
            "eu-south-1",
        ]),
        0.6,
        false,
    ));
    let trn1 = vec![
        shape(
            "trn1.2xlarge",
            8.0,
            32.0,
            1.34375,
            x86,
            nv(474),
            None,
            neuron("Trainium", 1, 32768, 2, 2),
        ),
        shape(
            "trn1.32xlarge",
            128.0,
            512.0,
            21.5,
            x86,
            Some(("ssd", true, 1900, 4)),
            Some(8),
            neuron("Trainium", 16, 32768, 2, 2),
        ),
    ];
    groups.push((
        trn1,
        Avail::Only(&["us-east-1", "us-east-2", "us-west-2"]),
        0.6,
        false,
    ));
    let inf2 = vec![
        shape(
            "inf2.xlarge",
            4.0,
            16.0,
            0.7582,
            x86,
            None,
            None,
            neuron("Inferentia2", 1, 32768, 2, 2),
        ),
        shape(
            "inf2.8xlarge",
            32.0,
            128.0,
            1.9679,
            x86,
            None,
            None,
            neuron("Inferentia2", 1, 32768, 2, 2),
        ),
        shape(
            "inf2.24xlarge",
            96.0,
            384.0,
            6.49063,
            x86,
            None,
            None,
            neuron("Inferentia2", 6, 32768, 2, 2),
        ),
        shape(
            "inf2.48xlarge",
            192.0,
            768.0,
            12.98127,
            x86,
            None,
            None,
            neuron("Inferentia2", 12, 32768, 2, 2),
        ),
    ];
    groups.push((
        inf2,
        Avail::Only(&[
            "us-east-1",
            "us-east-2",
            "us-west-2",
            "eu-west-1",
            "eu-west-2",
            "eu-central-1",
            "eu-north-1",
            "ap-northeast-1",
            "ap-south-1",
            "ap-southeast-1",
            "ap-southeast-2",
            "sa-east-1",
        ]),
        0.7,
        false,
    ));
    groups
}

/// Zone ID, e.g. `use1-az4`.
fn zone_id(region: &Region, n: u8) -> String {
    format!("{}-az{n}", region.id_prefix)
}

/// Generates `aws/vms.csv` and the zone mapping for the mocked account.
pub fn generate() -> AwsCatalog {
    let mut dice = Dice::new(0xA5);
    // Family groups: general families expanded from their ladders, then the special groups.
    let mut groups: Vec<(Vec<Shape>, Avail, f64, bool)> = Vec::new();
    for fam in families() {
        let shapes = fam
            .ladder
            .iter()
            .map(|(suffix, v)| {
                let vcpus = f64::from(*v);
                let efa = fam.efa_from_vcpus.filter(|min| v >= min).map(|_| 1);
                shape(
                    &format!("{}.{suffix}", fam.prefix),
                    vcpus,
                    vcpus * fam.gib_per_vcpu,
                    round_to(fam.rate * vcpus, 5),
                    fam.arch,
                    (fam.disk)(*v),
                    efa,
                    None,
                )
            })
            .collect();
        groups.push((shapes, fam.avail, 0.93, fam.old_az));
    }
    groups.extend(special_groups());

    let mut rows: Vec<Vec<String>> = Vec::new();
    for (shapes, avail, zone_share, old_az) in &groups {
        for region in REGIONS.iter().filter(|r| avail.allows(r.name)) {
            // Family-level regional jitter (never below the base-region price).
            let jitter = if region.mult == 1.0 {
                0.0
            } else {
                dice.range(0.0, 0.03)
            };
            let mult = region.mult * (1.0 + jitter);
            // Zones carrying this family in this region (at least one).
            let mut zones: Vec<u8> = region
                .az_numbers
                .iter()
                .copied()
                // use1-az3 is a legacy zone that only carries older families.
                .filter(|n| *old_az || !(region.name == "us-east-1" && *n == 3))
                .filter(|_| dice.chance(*zone_share))
                .collect();
            if zones.is_empty() {
                zones.push(region.az_numbers[dice.index(region.az_numbers.len())]);
            }
            for s in shapes {
                let price = round_to(s.price * mult, 4);
                let is_gpu = s.acc.is_some();
                let mut first = true;
                for &z in &zones {
                    // Individual sizes are occasionally missing from a zone, but
                    // the first zone of the family always carries every size.
                    if !first && !dice.chance(0.95) {
                        continue;
                    }
                    let miss_p = if is_gpu { 0.15 } else { 0.04 };
                    let spot = if !first && dice.chance(miss_p) {
                        None
                    } else {
                        Some(price * dice.range(0.3, 0.7))
                    };
                    first = false;
                    rows.push(row(s, price, spot, region.name, &zone_id(region, z)));
                }
            }
        }
    }
    rows.sort_by(|a, b| (&a[0], &a[8], &a[9]).cmp(&(&b[0], &b[8], &b[9])));
    let vms = Table {
        header: HEADER,
        rows,
    };
    AwsCatalog {
        vms,
        az_mappings: az_mappings(&mut Dice::new(0xA2)),
    }
}

fn row(s: &Shape, price: f64, spot: Option<f64>, region: &str, zone: &str) -> Vec<String> {
    let (acc_name, acc_count, gpu_info) = match &s.acc {
        Some(a) => (a.name.to_owned(), py_float(a.count), a.gpu_info.clone()),
        None => (String::new(), String::new(), String::new()),
    };
    let (disk_type, nvme, disk_size, disk_count) = match s.disk {
        Some((ty, nvme, size, count)) => (
            ty.to_owned(),
            if nvme { "True" } else { "False" }.to_owned(),
            py_float(f64::from(size)),
            py_float(f64::from(count)),
        ),
        None => (
            String::new(),
            "False".to_owned(),
            String::new(),
            String::new(),
        ),
    };
    vec![
        s.name.clone(),
        acc_name,
        acc_count,
        py_float(s.vcpus),
        py_float(s.mem),
        gpu_info,
        py_float(price),
        // The EC2 spot API returns strings with 6 decimals, which pandas writes verbatim.
        spot.map(|p| format!("{p:.6}")).unwrap_or_default(),
        region.to_owned(),
        zone.to_owned(),
        s.arch.to_owned(),
        disk_type,
        nvme,
        disk_size,
        disk_count,
        opt_float(s.efa.map(f64::from)),
    ]
}

/// Zone ID → zone name for the mocked account. Letters are shuffled per region
/// (never the identity order), as AWS does per account.
fn az_mappings(dice: &mut Dice) -> Table {
    let mut t = Table::new(AZ_MAPPING_HEADER);
    for region in REGIONS {
        let mut letters = region.letters.to_vec();
        dice.shuffle(&mut letters);
        if letters == region.letters {
            letters.rotate_left(1);
        }
        for (n, letter) in region.az_numbers.iter().zip(letters) {
            t.rows.push(vec![
                zone_id(region, *n),
                format!("{}{letter}", region.name),
            ]);
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog_gen::test_util::{cheapest, num, rows_of};
    use std::collections::{HashMap, HashSet};

    type Row = HashMap<String, String>;

    fn in_default_families(r: &Row) -> bool {
        const P: &[&str] = &[
            "m6i.", "m6id.", "m7i.", "r6i.", "r6id.", "r7i.", "c6i.", "c6id.", "c7i.",
        ];
        P.iter().any(|p| r["InstanceType"].starts_with(p))
    }

    fn cpu_mem(r: &Row) -> (f64, f64) {
        (num(r, "vCPUs").unwrap(), num(r, "MemoryGiB").unwrap())
    }

    #[test]
    fn header_and_default_choices() {
        let cat = generate();
        assert_eq!(cat.vms.header, HEADER);
        let rows = rows_of(&cat.vms);
        let default = |f: &dyn Fn(f64, f64) -> bool| {
            cheapest(&rows, |r| {
                in_default_families(r) && {
                    let (c, m) = cpu_mem(r);
                    f(c, m)
                }
            })
        };
        // cpus=8 (memory default 4x).
        assert_eq!(
            default(&|c, m| c == 8.0 && m >= 4.0 * c),
            Some("m6i.2xlarge")
        );
        assert_eq!(default(&|_, m| m == 32.0), Some("r6i.xlarge"));
        assert_eq!(default(&|_, m| m >= 64.0), Some("r6i.2xlarge"));
        assert_eq!(default(&|c, m| c >= 4.0 && m >= 4.0), Some("c6i.xlarge"));
    }

    #[test]
    fn accelerator_choices() {
        let rows = rows_of(&generate().vms);
        let acc = |name: &str, count: f64, f: &dyn Fn(f64, f64) -> bool| {
            cheapest(&rows, |r| {
                let (c, m) = cpu_mem(r);
                r["AcceleratorName"] == name && num(r, "AcceleratorCount") == Some(count) && f(c, m)
            })
        };
        assert_eq!(acc("T4", 1.0, &|_, _| true), Some("g4dn.xlarge"));
        assert_eq!(
            acc("T4", 1.0, &|c, m| c >= 16.0 && m >= 32.0),
            Some("g4dn.4xlarge")
        );
        assert_eq!(acc("T4", 1.0, &|_, m| m >= 200.0), Some("g4dn.16xlarge"));
        assert_eq!(acc("V100", 1.0, &|_, _| true), Some("p3.2xlarge"));
        assert_eq!(acc("V100", 8.0, &|_, _| true), Some("p3.16xlarge"));
        assert_eq!(acc("L4", 1.0, &|_, _| true), Some("g6.xlarge"));
    }

    #[test]
    fn required_types_shapes_and_spot() {
        let rows = rows_of(&generate().vms);
        let first = |t: &str| {
            rows.iter()
                .find(|r| r["InstanceType"] == t)
                .unwrap_or_else(|| panic!("{t}"))
        };
        for (t, c, m) in [
            ("p3.2xlarge", 8.0, 61.0),
            ("p3.8xlarge", 32.0, 244.0),
            ("p3.16xlarge", 64.0, 488.0),
            ("m4.2xlarge", 8.0, 32.0),
            ("m5.12xlarge", 48.0, 192.0),
            ("c6i.8xlarge", 32.0, 64.0),
            ("g4dn.2xlarge", 8.0, 32.0),
            ("c6i.large", 2.0, 4.0),
            ("m6i.2xlarge", 8.0, 32.0),
        ] {
            assert_eq!(cpu_mem(first(t)), (c, m), "{t}");
        }
        // GPU families with spot prices somewhere.
        for acc in ["V100", "L4", "A100", "H100", "H200", "T4", "A100-80GB"] {
            assert!(
                rows.iter()
                    .any(|r| r["AcceleratorName"] == acc && num(r, "SpotPrice").is_some()),
                "{acc} has no spot price"
            );
        }
        assert!(
            rows.iter()
                .any(|r| r["InstanceType"] == "g4dn.metal" && num(r, "SpotPrice").is_some())
        );
        // A few empty spot prices exist, and spot is 30–70 % of on-demand.
        assert!(rows.iter().any(|r| num(r, "SpotPrice").is_none()));
        for r in &rows {
            if let (Some(p), Some(s)) = (num(r, "Price"), num(r, "SpotPrice")) {
                assert!(s >= 0.29 * p && s <= 0.71 * p, "{r:?}");
            }
        }
        // No A100:8 in us-west-1; p5 only in a few regions.
        assert!(
            !rows
                .iter()
                .any(|r| r["Region"] == "us-west-1" && r["AcceleratorName"] == "A100")
        );
        let p5_regions: HashSet<_> = rows
            .iter()
            .filter(|r| r["InstanceType"] == "p5.48xlarge")
            .map(|r| &r["Region"])
            .collect();
        assert!(p5_regions.len() <= 6 && p5_regions.contains(&"us-east-1".to_owned()));
        // Region count and on-demand price constant within a region.
        let regions: HashSet<_> = rows.iter().map(|r| r["Region"].clone()).collect();
        assert_eq!(regions.len(), REGIONS.len());
        let mut price: HashMap<(String, String), String> = HashMap::new();
        for r in &rows {
            let k = (r["InstanceType"].clone(), r["Region"].clone());
            let p = price.entry(k).or_insert_with(|| r["Price"].clone());
            assert_eq!(*p, r["Price"]);
        }
    }

    /// SkyPilot's local-disk filter test table, evaluated on the catalog's
    /// us-east-1 rows of the four instance types that test uses.
    #[test]
    fn local_disk_filter_table_holds_on_its_instance_types() {
        let rows = rows_of(&generate().vms);
        let subset: Vec<Row> = rows
            .into_iter()
            .filter(|r| r["Region"] == "us-east-1")
            .filter(|r| {
                ["m5.large", "i3.large", "i3.2xlarge", "d2.large"]
                    .contains(&r["InstanceType"].as_str())
            })
            .collect();
        let pick = |spec: Option<(&str, f64, bool)>| {
            cheapest(&subset, |r| match spec {
                None => true,
                Some((mode, size, plus)) => {
                    if r["LocalDiskType"] != "ssd"
                        || (mode == "nvme" && r["NVMeSupported"] != "True")
                    {
                        return false;
                    }
                    let total =
                        num(r, "LocalDiskSize").unwrap() * num(r, "LocalDiskCount").unwrap();
                    if plus {
                        total >= size
                    } else {
                        (total - size).abs() < 1.0
                    }
                }
            })
        };
        assert_eq!(pick(Some(("nvme", 500.0, true))), Some("i3.2xlarge"));
        assert_eq!(pick(Some(("nvme", 1500.0, true))), Some("i3.2xlarge"));
        assert_eq!(pick(Some(("nvme", 100.0, true))), Some("i3.large"));
        assert_eq!(pick(Some(("ssd", 400.0, true))), Some("d2.large"));
        assert_eq!(pick(Some(("nvme", 475.0, false))), Some("i3.large"));
        assert_eq!(pick(Some(("nvme", 300.0, false))), None);
        assert_eq!(pick(Some(("ssd", 500.0, false))), Some("d2.large"));
        assert_eq!(pick(None), Some("m5.large"));
        assert_eq!(pick(Some(("nvme", 5000.0, true))), None);
    }

    #[test]
    fn az_mapping_covers_every_zone_and_is_not_identity() {
        let cat = generate();
        let rows = rows_of(&cat.vms);
        let map = rows_of(&cat.az_mappings);
        let mapped: HashMap<_, _> = map
            .iter()
            .map(|r| {
                (
                    r["AvailabilityZone"].clone(),
                    r["AvailabilityZoneName"].clone(),
                )
            })
            .collect();
        assert_eq!(mapped.len(), map.len(), "duplicate zone id");
        for r in &rows {
            let name = mapped
                .get(&r["AvailabilityZone"])
                .unwrap_or_else(|| panic!("{:?}", r));
            assert!(name.starts_with(&r["Region"]) && name.len() == r["Region"].len() + 1);
        }
        let names: HashSet<_> = mapped.values().collect();
        assert_eq!(names.len(), mapped.len(), "duplicate zone name");
        assert!(names.contains(&"us-west-2a".to_owned()));
        assert_ne!(mapped["use1-az1"], "us-east-1a");
    }
}
