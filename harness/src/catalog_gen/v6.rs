//! A small catalog tree in the older **v6** layout, for loader compatibility tests.
//!
//! What v6 lacks compared with v8 (established from SkyPilot's fetchers and
//! the hosted `catalogs/v6` headers):
//! - AWS `vms.csv` has only `InstanceType, AcceleratorName, AcceleratorCount,
//!   vCPUs, MemoryGiB, GpuInfo, Price, SpotPrice, Region, AvailabilityZone`
//!   (no `Arch`, local-disk or EFA columns).
//! - RunPod `vms.csv` has no `AvailabilityZone` column (region-level rows,
//!   `GpuInfo` = accelerator name) and a different column order.
//! - There is no `common/metadata.csv` (memory-based GPU requests need v7+).
//!
//! GCP and Lambda have the same columns as in v8. Rows are a projection of a
//! few instance types and regions of the v8 tables, so prices agree.

use std::collections::BTreeSet;

use super::{Table, aws, common, gcp, lambda, runpod};

/// v6 AWS columns.
pub const AWS_HEADER: &[&str] = &[
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
];

/// v6 RunPod columns.
pub const RUNPOD_HEADER: &[&str] = &[
    "InstanceType",
    "AcceleratorName",
    "AcceleratorCount",
    "vCPUs",
    "MemoryGiB",
    "GpuInfo",
    "Region",
    "SpotPrice",
    "Price",
];

/// Read access to one row by column name.
struct RowView<'a> {
    header: &'static [&'static str],
    row: &'a [String],
}

impl<'a> RowView<'a> {
    fn get(&self, column: &str) -> &'a str {
        self.header
            .iter()
            .position(|h| *h == column)
            .map_or("", |i| self.row[i].as_str())
    }
}

/// Keeps the columns of `to` (by name) from the rows of `from` that pass `keep`.
fn project(
    from: &Table,
    to: &'static [&'static str],
    keep: impl Fn(&RowView<'_>) -> bool,
) -> Table {
    let idx: Vec<usize> = to
        .iter()
        .map(|c| {
            from.header
                .iter()
                .position(|h| h == c)
                .expect("column exists in v8")
        })
        .collect();
    let mut t = Table::new(to);
    for row in &from.rows {
        if keep(&RowView {
            header: from.header,
            row,
        }) {
            t.rows.push(idx.iter().map(|&i| row[i].clone()).collect());
        }
    }
    t
}

/// Generates the v6 files: (relative path, table).
pub fn generate() -> Vec<(&'static str, Table)> {
    const AWS_TYPES: &[&str] = &[
        "m6i.large",
        "m6i.2xlarge",
        "c6i.xlarge",
        "r6i.xlarge",
        "r6i.2xlarge",
        "p3.2xlarge",
        "p3.8xlarge",
        "g4dn.xlarge",
    ];
    const AWS_REGIONS: &[&str] = &["us-east-1", "us-west-2", "eu-west-1"];
    let aws_v8 = aws::generate().vms;
    let aws = project(&aws_v8, AWS_HEADER, |g| {
        AWS_TYPES.contains(&g.get("InstanceType")) && AWS_REGIONS.contains(&g.get("Region"))
    });

    let gcp_v8 = gcp::generate();
    let gcp = project(&gcp_v8, gcp::HEADER, |g| {
        let region_ok = ["us-central1", "us-west1", "europe-west4"].contains(&g.get("Region"));
        let vm_ok = [
            "n1-standard-8",
            "n1-highmem-8",
            "n2-standard-8",
            "n4-standard-8",
            "a2-highgpu-1g",
        ]
        .contains(&g.get("InstanceType"));
        let acc_ok =
            ["V100", "T4", "A100", "tpu-v2-8", "tpu-v3-8"].contains(&g.get("AcceleratorName"));
        region_ok && (vm_ok || acc_ok)
    });

    let lambda_v8 = lambda::generate();
    let lambda = project(&lambda_v8, lambda::HEADER, |g| {
        ["us-east-1", "us-west-1"].contains(&g.get("Region"))
            && [
                "gpu_1x_a10",
                "gpu_1x_v100_sxm2",
                "gpu_8x_h100_sxm5",
                "cpu_4x_general",
            ]
            .contains(&g.get("InstanceType"))
    });

    // RunPod v6 is region-level: one row per (type, country), GpuInfo = name.
    let runpod_v8 = runpod::generate();
    let mut runpod = Table::new(RUNPOD_HEADER);
    let mut seen = BTreeSet::new();
    let col = |c: &str| {
        runpod::HEADER
            .iter()
            .position(|h| *h == c)
            .expect("runpod column")
    };
    for row in &runpod_v8.rows {
        let name = &row[col("AcceleratorName")];
        let count = &row[col("AcceleratorCount")];
        if !["A100-80GB", "H100", "L4", "RTX4090"].contains(&name.as_str())
            || !["1.0", "8.0"].contains(&count.as_str())
        {
            continue;
        }
        if !seen.insert((row[col("InstanceType")].clone(), row[col("Region")].clone())) {
            continue;
        }
        runpod.rows.push(vec![
            row[col("InstanceType")].clone(),
            name.clone(),
            count.clone(),
            row[col("vCPUs")].clone(),
            row[col("MemoryGiB")].clone(),
            name.clone(),
            row[col("Region")].clone(),
            row[col("SpotPrice")].clone(),
            row[col("Price")].clone(),
        ]);
    }

    let accelerators = common::accelerators_table(&[
        ("AWS", &aws),
        ("GCP", &gcp),
        ("Lambda", &lambda),
        ("RunPod", &runpod),
    ]);
    vec![
        ("aws/vms.csv", aws),
        ("gcp/vms.csv", gcp),
        ("lambda/vms.csv", lambda),
        ("runpod/vms.csv", runpod),
        ("common/accelerators.csv", accelerators),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog_gen::test_util::rows_of;

    #[test]
    fn v6_headers_lack_the_newer_columns() {
        let files = generate();
        let aws = &files.iter().find(|(n, _)| *n == "aws/vms.csv").unwrap().1;
        assert!(!aws.header.contains(&"Arch") && !aws.header.contains(&"LocalDiskType"));
        let rp = &files
            .iter()
            .find(|(n, _)| *n == "runpod/vms.csv")
            .unwrap()
            .1;
        assert!(!rp.header.contains(&"AvailabilityZone"));
        assert!(!files.iter().any(|(n, _)| *n == "common/metadata.csv"));
        for (name, t) in &files {
            assert!(!rows_of(t).is_empty(), "{name}");
        }
        assert!(
            rows_of(aws)
                .iter()
                .any(|r| r["InstanceType"] == "m6i.2xlarge" && r["Region"] == "us-east-1")
        );
    }
}
