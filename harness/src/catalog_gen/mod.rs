//! Deterministic generator for the SkyPilot-compatible fixture catalogs.
//!
//! The generator writes realistic, full-size catalogs in SkyPilot's v8 layout
//! (`<cloud>/vms.csv`, `common/accelerators.csv`, `common/metadata.csv`,
//! `aws/az_mappings-<hash8>.csv`) plus a small tree in the older v6 layout.
//! Everything is derived from hand-written tables of public list prices and
//! instance shapes in the per-cloud modules, perturbed by a [`ChaCha8Rng`]
//! with a fixed seed per cloud, so the same code always produces byte-identical
//! files. The committed fixtures are checked with [`check`] in CI.
//!
//! Entry points: [`generate`] (in memory), [`write`] (to disk) and [`check`]
//! (compare the disk with a fresh generation).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub mod aws;
pub mod azure;
pub mod common;
pub mod cudo;
pub mod gcp;
pub mod lambda;
pub mod paperspace;
pub mod runpod;
pub mod v6;

/// Base seed of every random stream; each cloud XORs in its own tag.
pub const SEED: u64 = 0x5359_5049_4c4f_5438; // "SYPILOT8"

/// AWS `UserId` returned by the mocked STS `GetCallerIdentity`.
pub const MOCK_AWS_USER_ID: &str = "AIDAEXAMPLEUSERID";

/// Errors from generating, writing or checking catalogs.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    /// Serialising a table to CSV failed.
    #[error("failed to serialise {file} as CSV: {source}")]
    Csv {
        /// Relative path of the file being built.
        file: String,
        /// Underlying csv error.
        #[source]
        source: csv::Error,
    },
    /// The CSV writer produced bytes that are not UTF-8 (cannot happen with our inputs).
    #[error("CSV output for {file} is not UTF-8")]
    Utf8 {
        /// Relative path of the file being built.
        file: String,
    },
    /// Reading or writing a file failed.
    #[error("I/O error on {}: {source}", path.display())]
    Io {
        /// The path that failed.
        path: PathBuf,
        /// Underlying I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// One CSV table: a fixed header and string cells (empty string = missing value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// Column names, in file order.
    pub header: &'static [&'static str],
    /// Data rows; each has `header.len()` cells.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Creates an empty table with the given header.
    pub fn new(header: &'static [&'static str]) -> Self {
        Self {
            header,
            rows: Vec::new(),
        }
    }

    /// Serialises the table as CSV (minimal quoting, `\n` line ends), like pandas `to_csv`.
    pub fn to_csv(&self, file: &str) -> Result<String, GenError> {
        let csv_err = |source| GenError::Csv {
            file: file.to_owned(),
            source,
        };
        let mut w = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::with_capacity(self.rows.len() * 96 + 256));
        w.write_record(self.header).map_err(csv_err)?;
        for row in &self.rows {
            debug_assert_eq!(row.len(), self.header.len(), "{file}: ragged row");
            w.write_record(row).map_err(csv_err)?;
        }
        let bytes = w.into_inner().map_err(|e| GenError::Csv {
            file: file.to_owned(),
            source: e.into_error().into(),
        })?;
        String::from_utf8(bytes).map_err(|_| GenError::Utf8 {
            file: file.to_owned(),
        })
    }
}

/// All generated files of one run: relative path (with `/`) → file contents.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Catalogs {
    /// Files of the v8 tree, relative to the v8 output directory.
    pub v8: BTreeMap<String, String>,
    /// Files of the small v6 tree, relative to the v6 output directory.
    pub v6: BTreeMap<String, String>,
}

/// Generates every catalog file in memory.
pub fn generate() -> Result<Catalogs, GenError> {
    let mut v8 = BTreeMap::new();
    let aws = aws::generate();
    let gcp = gcp::generate();
    let azure = azure::generate();
    let lambda = lambda::generate();
    let runpod = runpod::generate();
    let paperspace = paperspace::generate();
    let cudo = cudo::generate();

    let accelerators = common::accelerators_table(&[
        ("AWS", &aws.vms),
        ("Azure", &azure),
        ("GCP", &gcp),
        ("Lambda", &lambda),
        ("RunPod", &runpod),
        ("Paperspace", &paperspace),
        ("Cudo", &cudo),
    ]);
    let metadata = common::metadata_table();

    let mapping_name = format!(
        "aws/az_mappings-{}.csv",
        aws_identity_hash8(MOCK_AWS_USER_ID)
    );
    for (name, table) in [
        ("aws/vms.csv".to_owned(), &aws.vms),
        (mapping_name, &aws.az_mappings),
        ("gcp/vms.csv".to_owned(), &gcp),
        ("azure/vms.csv".to_owned(), &azure),
        ("lambda/vms.csv".to_owned(), &lambda),
        ("runpod/vms.csv".to_owned(), &runpod),
        ("paperspace/vms.csv".to_owned(), &paperspace),
        ("cudo/vms.csv".to_owned(), &cudo),
        ("common/accelerators.csv".to_owned(), &accelerators),
        ("common/metadata.csv".to_owned(), &metadata),
    ] {
        let text = table.to_csv(&name)?;
        v8.insert(name, text);
    }

    let mut v6 = BTreeMap::new();
    for (name, table) in v6::generate() {
        let text = table.to_csv(name)?;
        v6.insert(name.to_owned(), text);
    }
    Ok(Catalogs { v8, v6 })
}

/// First 8 hex digits of the md5 of an AWS user id (SkyPilot's az-mapping file suffix).
pub fn aws_identity_hash8(user_id: &str) -> String {
    use md5::{Digest, Md5};
    let digest = Md5::digest(user_id.as_bytes());
    let mut hex = String::with_capacity(32);
    for b in digest.iter() {
        let _ = write!(hex, "{b:02x}");
    }
    hex.truncate(8);
    hex
}

/// Writes the catalogs under `v8_dir` and `v6_dir`, creating directories as needed.
pub fn write(catalogs: &Catalogs, v8_dir: &Path, v6_dir: &Path) -> Result<(), GenError> {
    for (dir, files) in [(v8_dir, &catalogs.v8), (v6_dir, &catalogs.v6)] {
        for (rel, text) in files {
            let path = dir.join(rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|source| GenError::Io {
                    path: parent.to_path_buf(),
                    source,
                })?;
            }
            std::fs::write(&path, text).map_err(|source| GenError::Io { path, source })?;
        }
    }
    Ok(())
}

/// A file whose on-disk state differs from a fresh generation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    /// The generated file does not exist on disk.
    Missing(PathBuf),
    /// The file exists but its bytes differ.
    Differs(PathBuf),
    /// A `.csv` file on disk that the generator does not produce (stale output).
    Unexpected(PathBuf),
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mismatch::Missing(p) => write!(f, "missing: {}", p.display()),
            Mismatch::Differs(p) => write!(f, "differs: {}", p.display()),
            Mismatch::Unexpected(p) => write!(f, "not generated (stale?): {}", p.display()),
        }
    }
}

/// Compares the files on disk with `catalogs`; returns every mismatch (empty = up to date).
pub fn check(catalogs: &Catalogs, v8_dir: &Path, v6_dir: &Path) -> Result<Vec<Mismatch>, GenError> {
    let mut out = Vec::new();
    for (dir, files) in [(v8_dir, &catalogs.v8), (v6_dir, &catalogs.v6)] {
        for (rel, text) in files {
            let path = dir.join(rel);
            match std::fs::read(&path) {
                Ok(bytes) if bytes == text.as_bytes() => {}
                Ok(_) => out.push(Mismatch::Differs(path)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    out.push(Mismatch::Missing(path))
                }
                Err(source) => return Err(GenError::Io { path, source }),
            }
        }
        let mut on_disk = Vec::new();
        list_csv_files(dir, dir, &mut on_disk)?;
        for rel in on_disk {
            if !files.contains_key(&rel) {
                out.push(Mismatch::Unexpected(dir.join(rel)));
            }
        }
    }
    Ok(out)
}

fn list_csv_files(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<(), GenError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(GenError::Io {
                path: dir.to_path_buf(),
                source,
            });
        }
    };
    for entry in entries {
        let entry = entry.map_err(|source| GenError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = entry.path();
        if path.is_dir() {
            list_csv_files(root, &path, out)?;
        } else if path.extension().is_some_and(|e| e == "csv")
            && let Ok(rel) = path.strip_prefix(root)
        {
            let rel: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.push(rel.join("/"));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Shared helpers for the per-cloud modules.
// ---------------------------------------------------------------------------

/// Deterministic random source: a ChaCha8 stream read only through `next_u64`,
/// so the values do not depend on `rand`'s distribution algorithms.
pub(crate) struct Dice(ChaCha8Rng);

impl Dice {
    /// A stream for one cloud; `tag` keeps clouds independent of each other.
    pub(crate) fn new(tag: u64) -> Self {
        Self(ChaCha8Rng::seed_from_u64(SEED ^ tag))
    }

    /// Uniform in `[0, 1)`.
    pub(crate) fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[lo, hi)`.
    pub(crate) fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// True with probability `p`.
    pub(crate) fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Uniform index in `0..n` (`n > 0`).
    pub(crate) fn index(&mut self, n: usize) -> usize {
        ((self.unit() * n as f64) as usize).min(n.saturating_sub(1))
    }

    /// Fisher–Yates shuffle.
    pub(crate) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.index(i + 1);
            items.swap(i, j);
        }
    }
}

/// Rounds half away from zero to `digits` decimals.
pub(crate) fn round_to(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

/// Formats a float the way Python's `repr` (and so pandas `to_csv`) does for
/// the magnitudes used in catalogs: integral values keep one decimal (`8.0`),
/// others use the shortest round-trip representation (`0.384`).
pub(crate) fn py_float(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e16 {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}

/// `py_float` of an optional value; `None` becomes an empty cell.
pub(crate) fn opt_float(x: Option<f64>) -> String {
    x.map(py_float).unwrap_or_default()
}

/// GpuInfo dict as written by the AWS/Lambda/Cudo fetchers (Python repr of the dict).
pub(crate) fn gpu_info_dict(
    name: &str,
    manufacturer: &str,
    count: &str,
    mib: u64,
    total_mib: u64,
) -> String {
    format!(
        "{{'Gpus': [{{'Name': '{name}', 'Manufacturer': '{manufacturer}', 'Count': {count}, \
         'MemoryInfo': {{'SizeInMiB': {mib}}}}}], 'TotalGpuMemoryInMiB': {total_mib}}}"
    )
}

#[cfg(test)]
pub(crate) mod test_util {
    //! Helpers shared by the per-cloud unit tests.
    use super::Table;
    use std::collections::HashMap;

    /// Parses CSV text with the `csv` crate into header + rows keyed by column name.
    pub(crate) fn parse(text: &str) -> (Vec<String>, Vec<HashMap<String, String>>) {
        let mut r = csv::ReaderBuilder::new().from_reader(text.as_bytes());
        let header: Vec<String> = r.headers().unwrap().iter().map(str::to_owned).collect();
        let rows = r
            .records()
            .map(|rec| {
                let rec = rec.unwrap();
                header
                    .iter()
                    .cloned()
                    .zip(rec.iter().map(str::to_owned))
                    .collect()
            })
            .collect();
        (header, rows)
    }

    /// Round-trips a table through CSV text and parses it back.
    pub(crate) fn rows_of(table: &Table) -> Vec<HashMap<String, String>> {
        let text = table.to_csv("test").unwrap();
        let (header, rows) = parse(&text);
        assert_eq!(header, table.header);
        rows
    }

    /// Parses an optional float cell.
    pub(crate) fn num(row: &HashMap<String, String>, col: &str) -> Option<f64> {
        let v = row.get(col)?;
        if v.is_empty() {
            None
        } else {
            Some(v.parse().unwrap())
        }
    }

    /// Cheapest instance type (by `Price`) among rows passing `keep`.
    pub(crate) fn cheapest(
        rows: &[HashMap<String, String>],
        keep: impl Fn(&HashMap<String, String>) -> bool,
    ) -> Option<&str> {
        rows.iter()
            .filter(|r| keep(r))
            .filter_map(|r| num(r, "Price").map(|p| (p, r["InstanceType"].as_str())))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, t)| t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash8_of_mock_user_matches_python_md5() {
        // python3 -c "import hashlib;print(hashlib.md5(b'AIDAEXAMPLEUSERID').hexdigest()[:8])"
        assert_eq!(aws_identity_hash8(MOCK_AWS_USER_ID), "fbffe8df");
    }

    #[test]
    fn py_float_matches_python_repr() {
        assert_eq!(py_float(8.0), "8.0");
        assert_eq!(py_float(0.384), "0.384");
        assert_eq!(py_float(86.4), "86.4");
        assert_eq!(py_float(15.25), "15.25");
        assert_eq!(py_float(round_to(0.1 + 0.2, 5)), "0.3");
    }

    #[test]
    fn generation_is_deterministic() {
        let a = generate().unwrap();
        let b = generate().unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn every_file_parses_and_sizes_are_in_range() {
        let c = generate().unwrap();
        let expect: &[(&str, usize, usize)] = &[
            ("aws/vms.csv", 2_000_000, 3_500_000),
            ("aws/az_mappings-fbffe8df.csv", 1_000, 10_000),
            ("gcp/vms.csv", 300_000, 2_500_000),
            ("azure/vms.csv", 150_000, 2_000_000),
            ("lambda/vms.csv", 10_000, 300_000),
            ("runpod/vms.csv", 100_000, 3_000_000),
            ("paperspace/vms.csv", 1_000, 50_000),
            ("cudo/vms.csv", 5_000, 300_000),
            ("common/accelerators.csv", 300, 10_000),
            ("common/metadata.csv", 300, 10_000),
        ];
        assert_eq!(
            c.v8.len(),
            expect.len(),
            "{:?}",
            c.v8.keys().collect::<Vec<_>>()
        );
        for (name, lo, hi) in expect {
            let text =
                c.v8.get(*name)
                    .unwrap_or_else(|| panic!("{name} not generated"));
            assert!(
                (*lo..=*hi).contains(&text.len()),
                "{name}: {} bytes not in {lo}..={hi}",
                text.len()
            );
            let (header, rows) = test_util::parse(text);
            assert!(!rows.is_empty(), "{name} has no rows");
            assert!(rows.iter().all(|r| r.len() == header.len()));
        }
        for (name, text) in &c.v6 {
            let (_, rows) = test_util::parse(text);
            assert!(!rows.is_empty(), "v6 {name} has no rows");
            assert!(text.len() < 100_000, "v6 {name} should be small");
        }
    }

    #[test]
    fn check_reports_missing_differing_and_stale_files() {
        let c = generate().unwrap();
        let tmp = std::env::temp_dir().join(format!("catalog-gen-check-{}", std::process::id()));
        let (v8, v6) = (tmp.join("v8"), tmp.join("v6"));
        let _ = std::fs::remove_dir_all(&tmp);
        assert!(
            check(&c, &v8, &v6)
                .unwrap()
                .iter()
                .all(|m| matches!(m, Mismatch::Missing(_)))
        );
        write(&c, &v8, &v6).unwrap();
        assert!(check(&c, &v8, &v6).unwrap().is_empty());
        std::fs::write(v8.join("lambda/vms.csv"), "x").unwrap();
        std::fs::write(v8.join("lambda/old.csv"), "x").unwrap();
        let m = check(&c, &v8, &v6).unwrap();
        assert_eq!(
            m,
            vec![
                Mismatch::Differs(v8.join("lambda/vms.csv")),
                Mismatch::Unexpected(v8.join("lambda/old.csv"))
            ]
        );
        let _ = std::fs::remove_dir_all(&tmp);
    }
}
