//! Catalog folders for the whole-process rows (`--catalog-dir`): a copy of
//! `fixtures/catalogs`, or AWS alone with its rows multiplied.
//!
//! **The ×N AWS catalog.** Issue 29's question is whether a launch's cost
//! follows the rows its request reads or the catalog's size. The ×N catalog
//! is the fixture `aws/vms.csv` followed by N − 1 renamed copies of every
//! row that `--gpus H100:8` cannot read: copy *k* renames each instance type
//! `<family>.<size>` to `<family>-x<k>.<size>` and each accelerator (in
//! `AcceleratorName` and in `GpuInfo`'s `'Name'`) to its name reversed plus
//! `-x<k>` (`H100` → `001H-x2`), so no copy contains a requested name
//! (the generic path reads the rows of every accelerator whose name
//! contains the requested one). The file is N times as long and the same
//! request reads the same rows, so the launch prints the same table.

use std::path::Path;

use anyhow::Context;

/// A catalog folder a row launches on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Folder {
    /// A copy of `fixtures/catalogs` (every cloud).
    Fixtures,
    /// `aws/` (the fixture catalog ×`times`, its zone mapping) and `common/`.
    AwsOnly {
        /// 1 for the fixture catalog as it is.
        times: u32,
    },
}

impl Folder {
    /// Writes the folder into `dir` (which exists).
    pub fn write(self, dir: &Path) -> anyhow::Result<()> {
        let fixtures = mocks::fixtures_dir().join("catalogs");
        match self {
            Folder::Fixtures => copy_dir(&fixtures, dir),
            Folder::AwsOnly { times } => {
                copy_dir(&fixtures.join("common"), &dir.join("common"))?;
                copy_dir(&fixtures.join("aws"), &dir.join("aws"))?;
                if times > 1 {
                    let csv = dir.join("aws/vms.csv");
                    let original = std::fs::read(&csv)
                        .with_context(|| format!("reading {}", csv.display()))?;
                    let multiplied = multiply(&original, times)
                        .with_context(|| format!("multiplying {}", csv.display()))?;
                    std::fs::write(&csv, multiplied)
                        .with_context(|| format!("writing {}", csv.display()))?;
                }
                Ok(())
            }
        }
    }
}

/// `name` as copy `k` renames an accelerator: reversed, `-x<k>`.
fn renamed_accelerator(name: &str, k: u32) -> String {
    format!("{}-x{k}", name.chars().rev().collect::<String>())
}

/// `family.size` as copy `k` renames an instance type: `family-x<k>.size`.
fn renamed_instance_type(name: &str, k: u32) -> String {
    match name.split_once('.') {
        Some((family, size)) => format!("{family}-x{k}.{size}"),
        None => format!("{name}-x{k}"),
    }
}

/// The AWS `vms.csv` in `csv`, its rows followed by `times − 1` renamed
/// copies (see the module docs).
pub fn multiply(csv: &[u8], times: u32) -> anyhow::Result<Vec<u8>> {
    let mut reader = csv::ReaderBuilder::new().from_reader(csv);
    let headers = reader.headers()?.clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .with_context(|| format!("no {name} column"))
    };
    let (instance, accelerator, gpu_info) = (
        column("InstanceType")?,
        column("AcceleratorName")?,
        column("GpuInfo")?,
    );
    let rows: Vec<csv::StringRecord> = reader.records().collect::<Result<_, _>>()?;
    let mut writer = csv::WriterBuilder::new().from_writer(Vec::with_capacity(
        csv.len() * times as usize + csv.len() / 4,
    ));
    writer.write_record(&headers)?;
    for row in &rows {
        writer.write_record(row)?;
    }
    for k in 2..=times {
        for row in &rows {
            let acc = &row[accelerator];
            let new_acc = if acc.is_empty() {
                String::new()
            } else {
                renamed_accelerator(acc, k)
            };
            let fields = row.iter().enumerate().map(|(i, field)| match i {
                _ if i == instance => renamed_instance_type(field, k),
                _ if i == accelerator => new_acc.clone(),
                _ if i == gpu_info && !acc.is_empty() => {
                    field.replace(&format!("'Name': '{acc}'"), &format!("'Name': '{new_acc}'"))
                }
                _ => field.to_string(),
            });
            writer.write_record(fields)?;
        }
    }
    writer.into_inner().context("flushing the CSV")
}

/// Copies the folder `from` into `to` (created), recursively.
pub fn copy_dir(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target).with_context(|| {
                format!("copying {} to {}", entry.path().display(), target.display())
            })?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "InstanceType,AcceleratorName,AcceleratorCount,GpuInfo,Region\n\
        p5.48xlarge,H100,8.0,\"{'Gpus': [{'Name': 'H100', 'Count': 8}]}\",us-east-1\n\
        m6i.large,,,,us-east-1\n";

    #[test]
    fn copies_are_renamed_out_of_every_request() {
        let out = multiply(SAMPLE.as_bytes(), 3).unwrap_or_else(|e| panic!("{e:#}"));
        let text = String::from_utf8(out).unwrap_or_else(|e| panic!("{e}"));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 + 2 * 3, "{text}");
        assert_eq!(&lines[..3], &SAMPLE.lines().collect::<Vec<_>>()[..]);
        assert_eq!(
            lines[3],
            "p5-x2.48xlarge,001H-x2,8.0,\"{'Gpus': [{'Name': '001H-x2', 'Count': 8}]}\",us-east-1"
        );
        assert_eq!(lines[4], "m6i-x2.large,,,,us-east-1");
        assert!(lines[5].starts_with("p5-x3.48xlarge,001H-x3,"), "{text}");
        // Only the original rows name H100.
        assert_eq!(text.matches("H100").count(), 2, "{text}");
    }

    #[test]
    fn the_fixture_catalog_multiplies_tenfold() {
        let csv = mocks::fixtures_dir().join("catalogs/aws/vms.csv");
        let bytes = std::fs::read(&csv).unwrap_or_else(|e| panic!("{e}"));
        let rows = bytes.iter().filter(|&&b| b == b'\n').count() - 1;
        let out = multiply(&bytes, 10).unwrap_or_else(|e| panic!("{e:#}"));
        let rows10 = out.iter().filter(|&&b| b == b'\n').count() - 1;
        assert_eq!(rows10, rows * 10);
        assert!(out.len() > bytes.len() * 10);
    }
}
