//! `common/accelerators.csv` (every accelerator name and the clouds offering
//! it, derived from the generated catalogs) and `common/metadata.csv` (GPU
//! memory and manufacturer, for memory-based requests like `32GB+`).

use std::collections::BTreeMap;

use super::Table;

/// Columns of `common/accelerators.csv`.
pub const ACCELERATORS_HEADER: &[&str] = &["AcceleratorName", "Clouds"];
/// Columns of `common/metadata.csv`.
pub const METADATA_HEADER: &[&str] = &["GPU", "MemoryGB", "Manufacturer"];

/// Builds `accelerators.csv` from `(cloud repr, vms table)` pairs; clouds are
/// listed in the order given, names sorted.
pub fn accelerators_table(clouds: &[(&str, &Table)]) -> Table {
    let mut by_name: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for (cloud, table) in clouds {
        let Some(col) = table.header.iter().position(|h| *h == "AcceleratorName") else {
            continue;
        };
        for row in &table.rows {
            let name = &row[col];
            if name.is_empty() {
                continue;
            }
            let list = by_name.entry(name.clone()).or_default();
            if !list.contains(cloud) {
                list.push(cloud);
            }
        }
    }
    let mut t = Table::new(ACCELERATORS_HEADER);
    for (name, clouds) in by_name {
        let list: Vec<String> = clouds.iter().map(|c| format!("'{c}'")).collect();
        t.rows.push(vec![name, format!("[{}]", list.join(", "))]);
    }
    t
}

/// GPU memory (GB) and manufacturer of every GPU in the catalogs (TPUs and
/// AWS Neuron devices are not GPUs and are left out).
const METADATA: &[(&str, u32, &str)] = &[
    ("A10", 24, "NVIDIA"),
    ("A100", 40, "NVIDIA"),
    ("A100-80GB", 80, "NVIDIA"),
    ("A100-80GB-SXM", 80, "NVIDIA"),
    ("A10G", 24, "NVIDIA"),
    ("A40", 48, "NVIDIA"),
    ("A4000", 16, "NVIDIA"),
    ("A5000", 24, "NVIDIA"),
    ("A6000", 48, "NVIDIA"),
    ("B200", 180, "NVIDIA"),
    ("GH200", 96, "NVIDIA"),
    ("H100", 80, "NVIDIA"),
    ("H100-MEGA", 80, "NVIDIA"),
    ("H100-NVL", 94, "NVIDIA"),
    ("H100-SXM", 80, "NVIDIA"),
    ("H200", 141, "NVIDIA"),
    ("H200-SXM", 141, "NVIDIA"),
    ("K80", 12, "NVIDIA"),
    ("L4", 24, "NVIDIA"),
    ("L40", 48, "NVIDIA"),
    ("L40S", 48, "NVIDIA"),
    ("M60", 8, "NVIDIA"),
    ("MI300X", 192, "AMD"),
    ("P100", 16, "NVIDIA"),
    ("P4", 8, "NVIDIA"),
    ("P4000", 8, "NVIDIA"),
    ("RTX3090", 24, "NVIDIA"),
    ("RTX4000", 8, "NVIDIA"),
    ("RTX4090", 24, "NVIDIA"),
    ("RTX6000", 24, "NVIDIA"),
    ("RTX6000-Ada", 48, "NVIDIA"),
    ("RTXA4000", 16, "NVIDIA"),
    ("RTXA5000", 24, "NVIDIA"),
    ("RTXA6000", 48, "NVIDIA"),
    ("T4", 16, "NVIDIA"),
    ("V100", 16, "NVIDIA"),
    ("V100-32GB", 32, "NVIDIA"),
];

/// Builds `metadata.csv`.
pub fn metadata_table() -> Table {
    let mut t = Table::new(METADATA_HEADER);
    for (gpu, mem, mfr) in METADATA {
        t.rows
            .push(vec![(*gpu).to_owned(), mem.to_string(), (*mfr).to_owned()]);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog_gen::{generate, test_util::parse};
    use std::collections::{HashMap, HashSet};

    fn memory_expansion(
        rows: &[HashMap<String, String>],
        gb: f64,
        plus: bool,
        mfr: Option<&str>,
    ) -> HashSet<String> {
        rows.iter()
            .filter(|r| {
                let m: f64 = r["MemoryGB"].parse().unwrap();
                (if plus { m >= gb } else { m == gb })
                    && mfr.is_none_or(|f| r["Manufacturer"].eq_ignore_ascii_case(f))
            })
            .map(|r| r["GPU"].clone())
            .collect()
    }

    #[test]
    fn accelerators_cover_all_catalogs_and_metadata_covers_all_gpus() {
        let c = generate().unwrap();
        let (h, acc) = parse(&c.v8["common/accelerators.csv"]);
        assert_eq!(h, ACCELERATORS_HEADER);
        let listed: HashMap<String, String> = acc
            .iter()
            .map(|r| (r["AcceleratorName"].clone(), r["Clouds"].clone()))
            .collect();
        let (mh, meta) = parse(&c.v8["common/metadata.csv"]);
        assert_eq!(mh, METADATA_HEADER);
        let with_memory: HashSet<String> = meta.iter().map(|r| r["GPU"].clone()).collect();
        for (file, text) in &c.v8 {
            if !file.ends_with("vms.csv") {
                continue;
            }
            let (_, rows) = parse(text);
            for r in rows {
                let name = &r["AcceleratorName"];
                if name.is_empty() {
                    continue;
                }
                assert!(
                    listed.contains_key(name),
                    "{name} from {file} missing in accelerators.csv"
                );
                let is_gpu = !name.starts_with("tpu-")
                    && !["Trainium", "Inferentia2"].contains(&name.as_str());
                assert!(
                    !is_gpu || with_memory.contains(name),
                    "{name} has no metadata"
                );
            }
        }
        assert_eq!(listed["T4"], "['AWS', 'Azure', 'GCP']");
        assert_eq!(listed["M60"], "['Azure']");
        assert_eq!(listed["tpu-v3-8"], "['GCP']");
        assert!(listed["V100"].contains("'AWS'") && listed["V100"].contains("'Lambda'"));
        // Canonicalisation stays unambiguous for the names SkyPilot's tests use.
        let contains = |q: &str| {
            listed
                .keys()
                .filter(|k| k.to_lowercase().contains(&q.to_lowercase()))
                .count()
        };
        assert_eq!(contains("v100-32"), 1);
        assert_eq!(contains("V10"), 2);

        let m16 = memory_expansion(&meta, 16.0, false, None);
        assert!(m16.contains("T4"));
        let m32 = memory_expansion(&meta, 32.0, true, None);
        assert!(m32.contains("V100-32GB") && m32.contains("A100") && !m32.contains("T4"));
        let nv32 = memory_expansion(&meta, 32.0, true, Some("nvidia"));
        assert!(nv32.contains("A100") && !nv32.contains("MI300X"));
    }
}
