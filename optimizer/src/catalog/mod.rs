//! SkyPilot-compatible catalogs (`<dir>/<cloud>/vms.csv`), parsed from `impl Read`.
//!
//! Columns are addressed by name, so both the v8 layout (SkyPilot 0.14) and
//! the older v6 layout (no `Arch`/local-disk/EFA columns) load. A malformed row
//! is skipped with a [`CatalogWarning`] naming the file and line; a file
//! without the required columns is a [`CatalogError`].

pub mod bundled;
pub mod gcp;
pub mod kubernetes;
pub mod query;

use std::collections::HashMap;
use std::io::Read;
use std::sync::Arc;

use crate::clouds::CloudId;

/// Why a catalog file could not be used at all.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// The CSV could not be read (I/O error or broken quoting).
    #[error("cannot read catalog {source_name}: {message}")]
    Read {
        /// File path or other name of the input.
        source_name: String,
        /// What went wrong.
        message: String,
    },
    /// The header lacks a required column.
    #[error(
        "catalog {source_name} has no {column:?} column (found: {found}); is it a SkyPilot v6/v8 catalog?"
    )]
    MissingColumn {
        /// File path or other name of the input.
        source_name: String,
        /// The missing column.
        column: &'static str,
        /// The columns the header has.
        found: String,
    },
    /// The file is empty (truncated download?).
    #[error(
        "catalog {source_name} is empty; re-download it or remove it to use the bundled catalog"
    )]
    Empty {
        /// File path or other name of the input.
        source_name: String,
    },
}

/// A row that was skipped while loading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogWarning {
    /// File path or other name of the input.
    pub source_name: String,
    /// 1-based line number in the file.
    pub line: u64,
    /// Why the row was skipped.
    pub message: String,
}

impl std::fmt::Display for CatalogWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: skipped malformed row: {}",
            self.source_name, self.line, self.message
        )
    }
}

/// One row of a `vms.csv` catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct VmRow {
    /// Instance type; empty for GCP accelerator rows.
    pub instance_type: Option<Arc<str>>,
    /// Accelerator name (as written in the catalog).
    pub accelerator_name: Option<Arc<str>>,
    /// Accelerator count.
    pub accelerator_count: Option<f64>,
    /// vCPUs.
    pub vcpus: Option<f64>,
    /// Memory in GiB.
    pub memory_gib: Option<f64>,
    /// On-demand hourly price.
    pub price: Option<f64>,
    /// Spot hourly price.
    pub spot_price: Option<f64>,
    /// Region.
    pub region: Arc<str>,
    /// Availability zone (zone ID for raw AWS catalogs).
    pub zone: Option<Arc<str>>,
    /// Local disk type (`ssd`/`hdd`), AWS only.
    pub local_disk_type: Option<Arc<str>>,
    /// Whether NVMe is supported, AWS only.
    pub nvme_supported: Option<bool>,
    /// Size of one local disk in GB.
    pub local_disk_size: Option<f64>,
    /// Number of local disks.
    pub local_disk_count: Option<f64>,
}

impl VmRow {
    /// The price column selected by `spot`.
    pub fn price_for(&self, spot: bool) -> Option<f64> {
        if spot { self.spot_price } else { self.price }
    }
}

/// Which catalog layout a file used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Schema {
    /// SkyPilot 0.14's layout (AWS has `Arch`, local-disk and EFA columns).
    V8,
    /// The older layout without them.
    V6,
}

/// The rows of one cloud's `vms.csv`, with indexes for the queries in [`query`].
#[derive(Debug, Clone)]
pub struct CloudCatalog {
    /// The cloud.
    pub cloud: CloudId,
    /// All rows in file order.
    pub rows: Vec<VmRow>,
    /// Whether the file has an `AvailabilityZone` column.
    pub has_zones: bool,
    /// Detected layout.
    pub schema: Schema,
    by_instance: HashMap<Arc<str>, Vec<u32>>,
}

impl CloudCatalog {
    /// Parses a `vms.csv`. `source_name` names the input in errors and warnings.
    pub fn from_reader<R: Read>(
        cloud: CloudId,
        reader: R,
        source_name: &str,
    ) -> Result<(CloudCatalog, Vec<CatalogWarning>), CatalogError> {
        let mut csv = csv::ReaderBuilder::new().flexible(true).from_reader(reader);
        let read_err = |e: csv::Error| CatalogError::Read {
            source_name: source_name.to_string(),
            message: e.to_string(),
        };
        let headers = csv.byte_headers().map_err(read_err)?.clone();
        if headers.is_empty() || (headers.len() == 1 && headers[0].is_empty()) {
            return Err(CatalogError::Empty {
                source_name: source_name.to_string(),
            });
        }
        let col = |name: &str| headers.iter().position(|h| h == name.as_bytes());
        let required = |name: &'static str| {
            col(name).ok_or_else(|| CatalogError::MissingColumn {
                source_name: source_name.to_string(),
                column: name,
                found: String::from_utf8_lossy(headers.as_slice()).into_owned(),
            })
        };
        let c_instance = required("InstanceType")?;
        let c_region = required("Region")?;
        let c_price = required("Price")?;
        let c_acc_name = col("AcceleratorName");
        let c_acc_count = col("AcceleratorCount");
        let c_vcpus = col("vCPUs");
        let c_mem = col("MemoryGiB");
        let c_spot = col("SpotPrice");
        let c_zone = col("AvailabilityZone");
        let c_disk_type = col("LocalDiskType");
        let c_nvme = col("NVMeSupported");
        let c_disk_size = col("LocalDiskSize");
        let c_disk_count = col("LocalDiskCount");
        let schema = if cloud == CloudId::Aws && col("Arch").is_none() {
            Schema::V6
        } else {
            Schema::V8
        };

        let mut rows = Vec::with_capacity(4096);
        let mut warnings = Vec::new();
        let mut record = csv::ByteRecord::new();
        let columns = RowColumns {
            instance: c_instance,
            region: c_region,
            price: c_price,
            acc_name: c_acc_name,
            acc_count: c_acc_count,
            vcpus: c_vcpus,
            mem: c_mem,
            spot: c_spot,
            zone: c_zone,
            disk_type: c_disk_type,
            nvme: c_nvme,
            disk_size: c_disk_size,
            disk_count: c_disk_count,
        };
        let mut strings = Interners::default();
        loop {
            match csv.read_byte_record(&mut record) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => {
                    let line = e.position().map_or(0, |p| p.line());
                    if matches!(e.kind(), csv::ErrorKind::Io(_)) {
                        return Err(read_err(e));
                    }
                    warnings.push(CatalogWarning {
                        source_name: source_name.to_string(),
                        line,
                        message: e.to_string(),
                    });
                    continue;
                }
            }
            let line = record.position().map_or(0, |p| p.line());
            match parse_row(&record, &columns, &mut strings) {
                Ok(row) => rows.push(row),
                Err(message) => warnings.push(CatalogWarning {
                    source_name: source_name.to_string(),
                    line,
                    message,
                }),
            }
        }
        Ok((
            CloudCatalog::from_rows(cloud, rows, c_zone.is_some(), schema),
            warnings,
        ))
    }

    /// Builds a catalog from rows (used by loaders, tests and the AZ-mapping join).
    pub fn from_rows(cloud: CloudId, rows: Vec<VmRow>, has_zones: bool, schema: Schema) -> Self {
        let mut by_instance: HashMap<Arc<str>, Vec<u32>> = HashMap::new();
        for (i, row) in rows.iter().enumerate() {
            if let Some(it) = &row.instance_type {
                match by_instance.get_mut(it) {
                    Some(v) => v.push(i as u32),
                    None => {
                        by_instance.insert(it.clone(), vec![i as u32]);
                    }
                }
            }
        }
        CloudCatalog {
            cloud,
            rows,
            has_zones,
            schema,
            by_instance,
        }
    }

    /// Rows of one instance type, in file order.
    pub fn instance_rows<'a>(
        &'a self,
        instance_type: &str,
    ) -> impl Iterator<Item = &'a VmRow> + 'a {
        self.by_instance
            .get(instance_type)
            .map(|v| v.as_slice())
            .unwrap_or(&[])
            .iter()
            .map(move |&i| &self.rows[i as usize])
    }

    /// Whether the instance type exists in this catalog.
    pub fn has_instance_type(&self, instance_type: &str) -> bool {
        self.by_instance.contains_key(instance_type)
    }

    /// All instance type names (unordered).
    pub fn instance_types(&self) -> impl Iterator<Item = &str> {
        self.by_instance.keys().map(|k| &**k)
    }

    /// Replaces AWS zone IDs by the account's zone names (an inner join:
    /// rows whose zone ID is not in the mapping disappear, as in SkyPilot).
    pub fn apply_az_mapping(&mut self, mapping: &AzMapping) {
        let before = self.rows.len();
        self.rows.retain_mut(|row| {
            let Some(name) = row.zone.as_deref().and_then(|id| mapping.names.get(id)) else {
                return false;
            };
            row.zone = Some(name.clone());
            true
        });
        if self.rows.len() != before {
            let rows = std::mem::take(&mut self.rows);
            *self = CloudCatalog::from_rows(self.cloud, rows, self.has_zones, self.schema);
        }
    }
}

struct RowColumns {
    instance: usize,
    region: usize,
    price: usize,
    acc_name: Option<usize>,
    acc_count: Option<usize>,
    vcpus: Option<usize>,
    mem: Option<usize>,
    spot: Option<usize>,
    zone: Option<usize>,
    disk_type: Option<usize>,
    nvme: Option<usize>,
    disk_size: Option<usize>,
    disk_count: Option<usize>,
}

fn field_bytes(record: &csv::ByteRecord, col: Option<usize>) -> Result<Option<&[u8]>, String> {
    let Some(col) = col else { return Ok(None) };
    let Some(bytes) = record.get(col) else {
        return Err(format!(
            "expected at least {} fields, found {}",
            col + 1,
            record.len()
        ));
    };
    let bytes = bytes.trim_ascii();
    Ok(if bytes.is_empty() { None } else { Some(bytes) })
}

fn text(bytes: &[u8], col: usize) -> Result<&str, String> {
    std::str::from_utf8(bytes).map_err(|_| format!("field {} is not UTF-8", col + 1))
}

fn number(record: &csv::ByteRecord, col: Option<usize>, name: &str) -> Result<Option<f64>, String> {
    let Some(bytes) = field_bytes(record, col)? else {
        return Ok(None);
    };
    if bytes.eq_ignore_ascii_case(b"nan") {
        return Ok(None);
    }
    let t = text(bytes, col.unwrap_or(0))?;
    t.parse::<f64>()
        .map(Some)
        .map_err(|_| format!("{name} is not a number: {t:?}"))
}

/// Shares one allocation per distinct string of a column: catalogs repeat
/// instance types, regions and zones thousands of times, and cloning an
/// `Arc<str>` (zone-mapping join, candidates) is a counter bump.
#[derive(Default)]
struct Interner {
    last: Option<Arc<str>>,
    map: HashMap<Box<[u8]>, Arc<str>>,
}

impl Interner {
    fn intern(&mut self, bytes: &[u8], col: usize) -> Result<Arc<str>, String> {
        // Rows come grouped by instance type and region: the previous value usually repeats.
        if let Some(last) = &self.last
            && last.as_bytes() == bytes
        {
            return Ok(last.clone());
        }
        let value = match self.map.get(bytes) {
            Some(v) => v.clone(),
            None => {
                let v: Arc<str> = Arc::from(text(bytes, col)?);
                self.map.insert(bytes.into(), v.clone());
                v
            }
        };
        self.last = Some(value.clone());
        Ok(value)
    }

    fn optional(
        &mut self,
        record: &csv::ByteRecord,
        col: Option<usize>,
    ) -> Result<Option<Arc<str>>, String> {
        match field_bytes(record, col)? {
            None => Ok(None),
            Some(b) => self.intern(b, col.unwrap_or(0)).map(Some),
        }
    }
}

/// One interner per string column.
#[derive(Default)]
struct Interners {
    instance: Interner,
    accelerator: Interner,
    region: Interner,
    zone: Interner,
    disk: Interner,
}

fn parse_row(
    record: &csv::ByteRecord,
    c: &RowColumns,
    strings: &mut Interners,
) -> Result<VmRow, String> {
    let region = strings
        .region
        .optional(record, Some(c.region))?
        .ok_or("Region is empty")?;
    Ok(VmRow {
        instance_type: strings.instance.optional(record, Some(c.instance))?,
        accelerator_name: strings.accelerator.optional(record, c.acc_name)?,
        accelerator_count: number(record, c.acc_count, "AcceleratorCount")?,
        vcpus: number(record, c.vcpus, "vCPUs")?,
        memory_gib: number(record, c.mem, "MemoryGiB")?,
        price: number(record, Some(c.price), "Price")?,
        spot_price: number(record, c.spot, "SpotPrice")?,
        region,
        zone: strings.zone.optional(record, c.zone)?,
        local_disk_type: strings.disk.optional(record, c.disk_type)?,
        nvme_supported: field_bytes(record, c.nvme)?
            .map(|t| t.eq_ignore_ascii_case(b"true") || t == b"1"),
        local_disk_size: number(record, c.disk_size, "LocalDiskSize")?,
        local_disk_count: number(record, c.disk_count, "LocalDiskCount")?,
    })
}

/// AWS zone-ID → zone-name mapping (`aws/az_mappings-<hash>.csv`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AzMapping {
    names: HashMap<Box<str>, Arc<str>>,
}

impl AzMapping {
    /// Parses `AvailabilityZone,AvailabilityZoneName` rows.
    pub fn from_reader<R: Read>(reader: R, source_name: &str) -> Result<AzMapping, CatalogError> {
        let mut csv = csv::Reader::from_reader(reader);
        let mut names = HashMap::new();
        let headers = csv
            .headers()
            .map_err(|e| CatalogError::Read {
                source_name: source_name.into(),
                message: e.to_string(),
            })?
            .clone();
        let id_col = headers.iter().position(|h| h == "AvailabilityZone");
        let name_col = headers.iter().position(|h| h == "AvailabilityZoneName");
        let (Some(id_col), Some(name_col)) = (id_col, name_col) else {
            return Err(CatalogError::MissingColumn {
                source_name: source_name.into(),
                column: "AvailabilityZoneName",
                found: headers.iter().collect::<Vec<_>>().join(","),
            });
        };
        for record in csv.records() {
            let record = record.map_err(|e| CatalogError::Read {
                source_name: source_name.into(),
                message: e.to_string(),
            })?;
            if let (Some(id), Some(name)) = (record.get(id_col), record.get(name_col)) {
                names.insert(id.into(), Arc::from(name));
            }
        }
        Ok(AzMapping { names })
    }

    /// Number of zones mapped.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the mapping is empty.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// `common/accelerators.csv`: canonical accelerator names and the clouds offering them.
#[derive(Debug, Clone, Default)]
pub struct AcceleratorTable {
    /// (name, clouds string as written, e.g. `['AWS', 'GCP']`).
    pub entries: Vec<(String, String)>,
}

impl AcceleratorTable {
    /// Parses `AcceleratorName,Clouds`.
    pub fn from_reader<R: Read>(reader: R, source_name: &str) -> Result<Self, CatalogError> {
        let mut csv = csv::Reader::from_reader(reader);
        let err = |e: csv::Error| CatalogError::Read {
            source_name: source_name.into(),
            message: e.to_string(),
        };
        let headers = csv.headers().map_err(err)?.clone();
        let name = headers
            .iter()
            .position(|h| h == "AcceleratorName")
            .ok_or_else(|| CatalogError::MissingColumn {
                source_name: source_name.into(),
                column: "AcceleratorName",
                found: headers.iter().collect::<Vec<_>>().join(","),
            })?;
        let clouds = headers.iter().position(|h| h == "Clouds");
        let mut entries = Vec::new();
        for record in csv.records() {
            let record = record.map_err(err)?;
            let Some(n) = record.get(name) else { continue };
            let c = clouds.and_then(|c| record.get(c)).unwrap_or("");
            entries.push((n.to_string(), c.to_string()));
        }
        Ok(AcceleratorTable { entries })
    }
}

/// One row of `common/metadata.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuMetadata {
    /// GPU name.
    pub gpu: String,
    /// Memory in GB.
    pub memory_gb: f64,
    /// Manufacturer (`NVIDIA`, `AMD`, ...).
    pub manufacturer: String,
}

/// Parses `common/metadata.csv` (`GPU,MemoryGB,Manufacturer`).
pub fn parse_gpu_metadata<R: Read>(
    reader: R,
    source_name: &str,
) -> Result<Vec<GpuMetadata>, CatalogError> {
    let mut csv = csv::Reader::from_reader(reader);
    let err = |e: csv::Error| CatalogError::Read {
        source_name: source_name.into(),
        message: e.to_string(),
    };
    let headers = csv.headers().map_err(err)?.clone();
    let pos = |n: &'static str| {
        headers
            .iter()
            .position(|h| h == n)
            .ok_or_else(|| CatalogError::MissingColumn {
                source_name: source_name.into(),
                column: n,
                found: headers.iter().collect::<Vec<_>>().join(","),
            })
    };
    let (g, m, f) = (pos("GPU")?, pos("MemoryGB")?, pos("Manufacturer")?);
    let mut out = Vec::new();
    for record in csv.records() {
        let record = record.map_err(err)?;
        let (Some(gpu), Some(mem), Some(man)) = (record.get(g), record.get(m), record.get(f))
        else {
            continue;
        };
        let Ok(memory_gb) = mem.trim().parse::<f64>() else {
            continue;
        };
        out.push(GpuMetadata {
            gpu: gpu.to_string(),
            memory_gb,
            manufacturer: man.to_string(),
        });
    }
    Ok(out)
}

/// Every catalog the optimizer consults.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    clouds: Vec<CloudCatalog>,
    /// `common/accelerators.csv`.
    pub accelerators: AcceleratorTable,
    /// `common/metadata.csv`.
    pub gpu_metadata: Vec<GpuMetadata>,
}

impl Catalog {
    /// An empty catalog (add clouds with [`Catalog::insert`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds or replaces one cloud's catalog.
    pub fn insert(&mut self, catalog: CloudCatalog) {
        self.clouds.retain(|c| c.cloud != catalog.cloud);
        self.clouds.push(catalog);
    }

    /// The catalog of `cloud`, if loaded.
    pub fn cloud(&self, cloud: CloudId) -> Option<&CloudCatalog> {
        self.clouds.iter().find(|c| c.cloud == cloud)
    }

    /// Mutable access to the catalog of `cloud`.
    pub fn cloud_mut(&mut self, cloud: CloudId) -> Option<&mut CloudCatalog> {
        self.clouds.iter_mut().find(|c| c.cloud == cloud)
    }

    /// Loaded cloud catalogs.
    pub fn clouds(&self) -> impl Iterator<Item = &CloudCatalog> {
        self.clouds.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone,Arch\n";

    #[test]
    fn malformed_rows_are_skipped_with_file_and_line() {
        let csv = format!(
            "{HEADER}m6i.large,,,2,8,,0.096,0.03,us-east-1,use1-az1,x86_64\nbad.row,,,two,8,,0.1,,us-east-1,use1-az1,x86_64\np3.2xlarge,V100,1,8,61,,3.06,0.9,us-east-1,use1-az2,x86_64\n,,,,,,,,,,\n"
        );
        let (cat, warnings) =
            CloudCatalog::from_reader(CloudId::Aws, csv.as_bytes(), "aws/vms.csv").unwrap();
        assert_eq!(cat.rows.len(), 2);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert_eq!(warnings[0].line, 3);
        assert!(
            warnings[0]
                .to_string()
                .starts_with("aws/vms.csv:3: skipped malformed row: vCPUs is not a number"),
            "{}",
            warnings[0]
        );
        assert_eq!(warnings[1].line, 5);
        assert_eq!(cat.schema, Schema::V8);
        assert_eq!(
            cat.accelerator_of("p3.2xlarge"),
            Some(("V100".to_string(), 1.0))
        );
    }

    #[test]
    fn missing_column_and_empty_file_are_errors_naming_the_file() {
        let err = CloudCatalog::from_reader(
            CloudId::Aws,
            "InstanceType,Price\nx,1\n".as_bytes(),
            "x/vms.csv",
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("x/vms.csv") && err.to_string().contains("\"Region\""),
            "{err}"
        );
        let err = CloudCatalog::from_reader(CloudId::Aws, "".as_bytes(), "y/vms.csv").unwrap_err();
        assert!(
            matches!(err, CatalogError::Empty { .. }) && err.to_string().contains("y/vms.csv"),
            "{err}"
        );
    }

    #[test]
    fn columns_are_found_by_name_in_any_order() {
        let csv = "Region,Price,InstanceType,vCPUs,MemoryGiB\nus-east-1,0.5,a.b,4,16\n";
        let (cat, w) =
            CloudCatalog::from_reader(CloudId::Lambda, csv.as_bytes(), "lambda/vms.csv").unwrap();
        assert!(w.is_empty());
        assert_eq!(cat.vcpus_mem("a.b"), Some((Some(4.0), Some(16.0))));
        assert!(!cat.has_zones);
    }

    #[test]
    fn v6_layout_loads() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/catalogs-v6/aws/vms.csv");
        let bytes = std::fs::read(&dir).expect("v6 fixture exists");
        let (cat, warnings) = CloudCatalog::from_reader(CloudId::Aws, &bytes[..], "v6").unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(cat.schema, Schema::V6);
        assert!(!cat.rows.is_empty());
    }

    #[test]
    fn az_mapping_is_an_inner_join() {
        let csv = format!(
            "{HEADER}m6i.large,,,2,8,,0.096,0.03,us-east-1,use1-az1,x86_64\nm6i.large,,,2,8,,0.096,0.04,us-east-1,use1-az9,x86_64\n"
        );
        let (cat, _) = CloudCatalog::from_reader(CloudId::Aws, csv.as_bytes(), "aws").unwrap();
        let mapping = AzMapping::from_reader(
            "AvailabilityZone,AvailabilityZoneName\nuse1-az1,us-east-1b\n".as_bytes(),
            "m",
        )
        .unwrap();
        let mut mapped = cat.clone();
        mapped.apply_az_mapping(&mapping);
        assert_eq!(mapped.rows.len(), 1);
        assert_eq!(mapped.rows[0].zone.as_deref(), Some("us-east-1b"));
        assert!(mapped.has_instance_type("m6i.large"));
        assert_eq!(cat.rows.len(), 2);
    }
}
