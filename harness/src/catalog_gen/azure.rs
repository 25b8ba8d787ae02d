//! Azure `vms.csv`: one row per (VM size, region); Azure has no zone column.
//!
//! Sizes are Azure's published specifications; `eastus` Linux pay-as-you-go
//! list prices scaled per region. Spot prices are 10–40 % of on-demand.
//! `GpuInfo` holds the GPU name (as `fetch_azure.py` writes it).

use super::{Dice, Table, py_float, round_to};

/// Column order written by SkyPilot's `fetch_azure.py`.
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
    "Generation",
];

/// (region, price multiplier).
const REGIONS: &[(&str, f64)] = &[
    ("eastus", 1.0),
    ("eastus2", 1.0),
    ("westus2", 1.0),
    ("westus3", 1.0),
    ("centralus", 1.0938),
    ("northcentralus", 1.0938),
    ("southcentralus", 1.0938),
    ("westcentralus", 1.0938),
    ("westus", 1.1042),
    ("canadacentral", 1.1042),
    ("northeurope", 1.0938),
    ("westeurope", 1.1458),
    ("uksouth", 1.1458),
    ("francecentral", 1.1979),
    ("germanywestcentral", 1.1979),
    ("swedencentral", 1.0521),
    ("japaneast", 1.3021),
    ("koreacentral", 1.2188),
    ("southeastasia", 1.1771),
    ("centralindia", 1.0521),
    ("australiaeast", 1.3021),
    ("brazilsouth", 1.5521),
];

/// A CPU family: name pattern (`{}` = vCPUs), sizes, GiB per vCPU, $ per vCPU-hour, Generation.
struct CpuFamily {
    pattern: &'static str,
    sizes: &'static [u32],
    gib_per_vcpu: f64,
    rate: f64,
    generation: &'static str,
    /// Regions the family is missing from.
    missing: &'static [&'static str],
}

const V12: &str = "V1,V2";

fn cpu_families() -> Vec<CpuFamily> {
    let f = |pattern, sizes, gib_per_vcpu, rate, generation, missing| CpuFamily {
        pattern,
        sizes,
        gib_per_vcpu,
        rate,
        generation,
        missing,
    };
    let d: &'static [u32] = &[2, 4, 8, 16, 32, 48, 64, 96];
    let e: &'static [u32] = &[2, 4, 8, 16, 20, 32, 48, 64, 96];
    let fs: &'static [u32] = &[2, 4, 8, 16, 32, 48, 64, 72];
    let v3: &'static [u32] = &[2, 4, 8, 16, 32, 48, 64];
    let none: &'static [&'static str] = &[];
    vec![
        // SkyPilot's default families: Ds_v5, Es_v5, Fs_v2.
        f("Standard_D{}s_v5", d, 4.0, 0.048, V12, none),
        f("Standard_E{}s_v5", e, 8.0, 0.063, V12, none),
        f("Standard_F{}s_v2", fs, 2.0, 0.04225, V12, none),
        // Other common families.
        f("Standard_D{}_v5", d, 4.0, 0.048, V12, none),
        f("Standard_D{}ds_v5", d, 4.0, 0.0565, V12, none),
        f("Standard_D{}as_v5", d, 4.0, 0.043, V12, &["brazilsouth"]),
        f("Standard_D{}ads_v5", d, 4.0, 0.0515, V12, &["brazilsouth"]),
        f("Standard_E{}_v5", e, 8.0, 0.063, V12, none),
        f("Standard_E{}ds_v5", e, 8.0, 0.072, V12, none),
        f("Standard_E{}as_v5", e, 8.0, 0.0565, V12, &["brazilsouth"]),
        f("Standard_D{}s_v3", v3, 4.0, 0.048, V12, none),
        f("Standard_D{}_v3", v3, 4.0, 0.048, V12, none),
        f("Standard_E{}s_v3", v3, 8.0, 0.063, V12, none),
        f("Standard_D{}s_v4", v3, 4.0, 0.048, V12, none),
        f(
            "Standard_D{}as_v4",
            &[2, 4, 8, 16, 32, 48, 64, 96],
            4.0,
            0.048,
            V12,
            none,
        ),
        f("Standard_F{}s", &[1, 2, 4, 8, 16], 2.0, 0.0497, "V1", none),
        f(
            "Standard_D{}s_v6",
            d,
            4.0,
            0.0504,
            V12,
            &["brazilsouth", "koreacentral", "westcentralus"],
        ),
        f(
            "Standard_E{}s_v6",
            e,
            8.0,
            0.0662,
            V12,
            &["brazilsouth", "koreacentral", "westcentralus"],
        ),
    ]
}

/// GPU sizes: (name, accelerator, count, vCPUs, GiB, eastus price, Generation).
type GpuSize = (&'static str, &'static str, f64, f64, f64, f64, &'static str);

/// GPU series with the regions they are offered in.
fn gpu_series() -> Vec<(Vec<GpuSize>, &'static [&'static str])> {
    vec![
        (
            vec![
                ("Standard_NC4as_T4_v3", "T4", 1.0, 4.0, 28.0, 0.526, V12),
                ("Standard_NC8as_T4_v3", "T4", 1.0, 8.0, 56.0, 0.752, V12),
                ("Standard_NC16as_T4_v3", "T4", 1.0, 16.0, 110.0, 1.204, V12),
                ("Standard_NC64as_T4_v3", "T4", 4.0, 64.0, 440.0, 4.352, V12),
            ],
            &[
                "eastus",
                "eastus2",
                "westus2",
                "southcentralus",
                "northeurope",
                "westeurope",
                "uksouth",
                "japaneast",
                "koreacentral",
                "southeastasia",
                "centralindia",
                "australiaeast",
            ],
        ),
        (
            vec![
                ("Standard_NC6s_v3", "V100", 1.0, 6.0, 112.0, 3.06, V12),
                ("Standard_NC12s_v3", "V100", 2.0, 12.0, 224.0, 6.12, V12),
                ("Standard_NC24s_v3", "V100", 4.0, 24.0, 448.0, 12.24, V12),
                ("Standard_NC24rs_v3", "V100", 4.0, 24.0, 448.0, 13.464, V12),
            ],
            &[
                "eastus",
                "eastus2",
                "westus2",
                "southcentralus",
                "northcentralus",
                "canadacentral",
                "northeurope",
                "westeurope",
                "uksouth",
                "japaneast",
                "koreacentral",
                "centralindia",
                "australiaeast",
            ],
        ),
        (
            vec![
                ("Standard_NC6s_v2", "P100", 1.0, 6.0, 112.0, 2.07, V12),
                ("Standard_NC12s_v2", "P100", 2.0, 12.0, 224.0, 4.14, V12),
                ("Standard_NC24s_v2", "P100", 4.0, 24.0, 448.0, 8.28, V12),
            ],
            &["eastus", "southcentralus", "westus2", "westeurope"],
        ),
        (
            vec![(
                "Standard_ND40rs_v2",
                "V100-32GB",
                8.0,
                40.0,
                672.0,
                22.032,
                "V1",
            )],
            &["eastus", "westus2", "westeurope"],
        ),
        (
            vec![
                (
                    "Standard_NC24ads_A100_v4",
                    "A100-80GB",
                    1.0,
                    24.0,
                    220.0,
                    3.673,
                    "V2",
                ),
                (
                    "Standard_NC48ads_A100_v4",
                    "A100-80GB",
                    2.0,
                    48.0,
                    440.0,
                    7.346,
                    "V2",
                ),
                (
                    "Standard_NC96ads_A100_v4",
                    "A100-80GB",
                    4.0,
                    96.0,
                    880.0,
                    14.692,
                    "V2",
                ),
            ],
            &[
                "eastus",
                "eastus2",
                "southcentralus",
                "westus3",
                "westeurope",
                "swedencentral",
            ],
        ),
        (
            vec![(
                "Standard_ND96asr_v4",
                "A100",
                8.0,
                96.0,
                900.0,
                27.197,
                "V2",
            )],
            &["eastus", "westus2", "southcentralus", "westeurope"],
        ),
        (
            vec![(
                "Standard_ND96amsr_A100_v4",
                "A100-80GB",
                8.0,
                96.0,
                1924.0,
                32.77,
                "V2",
            )],
            &["eastus", "westus2", "southcentralus", "westus3"],
        ),
        (
            vec![
                (
                    "Standard_NC40ads_H100_v5",
                    "H100",
                    1.0,
                    40.0,
                    320.0,
                    6.98,
                    "V2",
                ),
                (
                    "Standard_NC80adis_H100_v5",
                    "H100",
                    2.0,
                    80.0,
                    640.0,
                    13.96,
                    "V2",
                ),
            ],
            &["eastus", "eastus2", "southcentralus", "swedencentral"],
        ),
        (
            vec![(
                "Standard_ND96isr_H100_v5",
                "H100",
                8.0,
                96.0,
                1900.0,
                98.32,
                "V2",
            )],
            &[
                "eastus",
                "eastus2",
                "southcentralus",
                "westus3",
                "swedencentral",
            ],
        ),
        (
            vec![
                ("Standard_NV6", "M60", 1.0, 6.0, 56.0, 1.14, "V1"),
                ("Standard_NV12", "M60", 2.0, 12.0, 112.0, 2.28, "V1"),
                ("Standard_NV24", "M60", 4.0, 24.0, 224.0, 4.56, "V1"),
            ],
            &[
                "eastus",
                "southcentralus",
                "westus2",
                "northeurope",
                "westeurope",
            ],
        ),
        (
            vec![
                ("Standard_NV12s_v3", "M60", 1.0, 12.0, 112.0, 1.14, V12),
                ("Standard_NV24s_v3", "M60", 2.0, 24.0, 224.0, 2.28, V12),
                ("Standard_NV48s_v3", "M60", 4.0, 48.0, 448.0, 4.56, V12),
            ],
            &[
                "eastus",
                "eastus2",
                "westus2",
                "southcentralus",
                "northeurope",
                "westeurope",
                "uksouth",
                "japaneast",
                "australiaeast",
            ],
        ),
        (
            vec![
                // Fractional A10 sizes, as fetch_azure.py rewrites them (vCPUs / 36, 3 decimals).
                (
                    "Standard_NV6ads_A10_v5",
                    "A10",
                    0.167,
                    6.0,
                    55.0,
                    0.454,
                    V12,
                ),
                (
                    "Standard_NV12ads_A10_v5",
                    "A10",
                    0.333,
                    12.0,
                    110.0,
                    0.908,
                    V12,
                ),
                ("Standard_NV18ads_A10_v5", "A10", 0.5, 18.0, 220.0, 1.6, V12),
                ("Standard_NV36ads_A10_v5", "A10", 1.0, 36.0, 440.0, 3.2, V12),
                (
                    "Standard_NV36adms_A10_v5",
                    "A10",
                    1.0,
                    36.0,
                    880.0,
                    4.52,
                    V12,
                ),
                (
                    "Standard_NV72ads_A10_v5",
                    "A10",
                    2.0,
                    72.0,
                    880.0,
                    6.52,
                    V12,
                ),
            ],
            &[
                "eastus",
                "southcentralus",
                "westus2",
                "westus3",
                "northeurope",
                "westeurope",
                "uksouth",
            ],
        ),
    ]
}

/// Generates `azure/vms.csv`.
pub fn generate() -> Table {
    let mut dice = Dice::new(0xA7);
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut push = |dice: &mut Dice,
                    name: String,
                    acc: Option<(&str, f64)>,
                    vcpus: f64,
                    mem: f64,
                    base: f64,
                    generation: &str,
                    region: &str,
                    mult: f64| {
        let price = round_to(base * mult, 4);
        let spot = if dice.chance(0.05) {
            String::new()
        } else {
            py_float(round_to(price * dice.range(0.1, 0.4), 6))
        };
        let (an, ac, gi) = match acc {
            Some((n, c)) => (n.to_owned(), py_float(c), n.to_owned()),
            None => (String::new(), String::new(), String::new()),
        };
        rows.push(vec![
            name,
            an,
            ac,
            py_float(vcpus),
            py_float(mem),
            gi,
            py_float(price),
            spot,
            region.to_owned(),
            generation.to_owned(),
        ]);
    };
    for fam in cpu_families() {
        for (region, mult) in REGIONS {
            if fam.missing.contains(region) {
                continue;
            }
            for &n in fam.sizes {
                let vcpus = f64::from(n);
                let mem = if fam.pattern.starts_with("Standard_E")
                    && n == 96
                    && fam.gib_per_vcpu == 8.0
                {
                    672.0
                } else {
                    vcpus * fam.gib_per_vcpu
                };
                let name = fam.pattern.replace("{}", &n.to_string());
                push(
                    &mut dice,
                    name,
                    None,
                    vcpus,
                    mem,
                    fam.rate * vcpus,
                    fam.generation,
                    region,
                    *mult,
                );
            }
        }
    }
    for (sizes, regions) in gpu_series() {
        for (region, mult) in REGIONS.iter().filter(|(r, _)| regions.contains(r)) {
            for (name, acc, count, vcpus, mem, price, generation) in &sizes {
                push(
                    &mut dice,
                    (*name).to_owned(),
                    Some((acc, *count)),
                    *vcpus,
                    *mem,
                    *price,
                    generation,
                    region,
                    *mult,
                );
            }
        }
    }
    rows.sort_by(|a, b| (&a[0], &a[8]).cmp(&(&b[0], &b[8])));
    let mut t = Table::new(HEADER);
    t.rows = rows;
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog_gen::test_util::{cheapest, num, rows_of};
    use std::collections::HashMap;

    type Row = HashMap<String, String>;

    /// SkyPilot's `azure_catalog._get_instance_family`, for names without `-`.
    fn family(t: &str) -> String {
        let s = t.trim_start_matches("Standard_");
        let letters: String = s.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
        let rest = &s[letters.len()..];
        let tail: String = rest.chars().skip_while(|c| c.is_ascii_digit()).collect();
        format!("{letters}{tail}")
    }

    #[test]
    fn family_parser_matches_skypilot_examples() {
        assert_eq!(family("Standard_D8s_v5"), "Ds_v5");
        assert_eq!(family("Standard_E104is_v5"), "Eis_v5");
        assert_eq!(family("Standard_F4s_v2"), "Fs_v2");
        assert_eq!(family("Standard_D8ds_v5"), "Dds_v5");
    }

    #[test]
    fn default_and_gpu_choices() {
        let t = generate();
        assert_eq!(t.header, HEADER);
        let rows = rows_of(&t);
        let cm = |r: &Row| (num(r, "vCPUs").unwrap(), num(r, "MemoryGiB").unwrap());
        let default = |f: &dyn Fn(f64, f64) -> bool| {
            cheapest(&rows, |r| {
                ["Ds_v5", "Es_v5", "Fs_v2"].contains(&family(&r["InstanceType"]).as_str()) && {
                    let (c, m) = cm(r);
                    f(c, m)
                }
            })
        };
        assert_eq!(
            default(&|c, m| c == 8.0 && m >= 32.0),
            Some("Standard_D8s_v5")
        );
        assert_eq!(default(&|_, m| m == 32.0), Some("Standard_E4s_v5"));
        assert_eq!(default(&|_, m| m >= 64.0), Some("Standard_E8s_v5"));
        assert_eq!(
            default(&|c, m| c >= 4.0 && m >= 4.0),
            Some("Standard_F4s_v2")
        );

        let t4 = |f: &dyn Fn(f64, f64) -> bool| {
            cheapest(&rows, |r| {
                r["AcceleratorName"] == "T4" && r["AcceleratorCount"] == "1.0" && {
                    let (c, m) = cm(r);
                    f(c, m)
                }
            })
        };
        assert_eq!(t4(&|_, _| true), Some("Standard_NC4as_T4_v3"));
        assert_eq!(
            t4(&|c, m| c >= 16.0 && m >= 32.0),
            Some("Standard_NC16as_T4_v3")
        );
        assert_eq!(t4(&|_, m| m >= 200.0), None);

        let e8 = rows
            .iter()
            .find(|r| r["InstanceType"] == "Standard_E8s_v5")
            .unwrap();
        assert_eq!(cm(e8), (8.0, 64.0));
        for t in [
            "Standard_NC24s_v3",
            "Standard_NC12s_v3",
            "Standard_NV6",
            "Standard_ND96asr_v4",
        ] {
            assert!(rows.iter().any(|r| r["InstanceType"] == t), "{t}");
        }
        assert!(rows.iter().any(|r| r["AcceleratorName"] == "M60"));
    }
}
