//! SkyPilot-compatible catalogs (`<dir>/<cloud>/vms.csv`), parsed from `impl Read`.
//!
//! Columns are addressed by name, so both the v8 layout (SkyPilot 0.14) and
//! the older v6 layout (no `Arch`/local-disk/EFA columns) load. A malformed row
//! is skipped with a [`CatalogWarning`] naming the file and line; a file
//! without the required columns is a [`CatalogError`].

pub mod gcp;
pub mod image;
pub mod kubernetes;
pub mod nebius;
pub mod oci;
pub mod query;
pub mod selection;
pub mod slurm;
mod small_table;
pub mod ssh;

use std::borrow::Cow;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::io::Read;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use simd_csv::ZeroCopyByteRecord;

use small_table::SmallTable;

use crate::cloud::CloudId;

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
    /// The file ends in the middle of a row: a download or copy that was
    /// cut short. Planning on the rows before the cut would silently drop
    /// the rest of the catalog, so the file is refused.
    #[error(
        "catalog {source_name} is truncated: line {line} ends mid-row (no final newline, {found} of {expected} fields); re-download it or remove it to use the bundled catalog"
    )]
    Truncated {
        /// File path or other name of the input.
        source_name: String,
        /// The 1-based line that was cut.
        line: u64,
        /// Fields on that line.
        found: usize,
        /// Fields in the header.
        expected: usize,
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

/// A catalog string, shared by every row that holds it, in one pointer.
///
/// Rows are most of a launch's memory and every page of it costs a fault;
/// an `Arc<str>` is two words, this is one (and so is `Option<Text>`).
/// Compares, orders and hashes as the string, so it can key maps looked up
/// by `&str`.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Text(Arc<Box<str>>);

impl Text {
    /// Whether both are the same allocation (then they are equal).
    pub fn ptr_eq(a: &Text, b: &Text) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text(Arc::new(Box::from(s)))
    }
}

impl std::ops::Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Text {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self.0, f)
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&**self.0, f)
    }
}

/// An optional number in 8 bytes (`NaN` = empty cell; pandas reads `nan`
/// cells as missing too). Rows are most of a launch's memory, and every page
/// of it costs a fault, so the seven numbers of a row do not use `Option<f64>`.
#[derive(Clone, Copy)]
pub(crate) struct Num(f64);

impl Num {
    pub(crate) const EMPTY: Num = Num(f64::NAN);

    pub(crate) fn get(self) -> Option<f64> {
        if self.0.is_nan() { None } else { Some(self.0) }
    }
}

impl From<Option<f64>> for Num {
    fn from(v: Option<f64>) -> Num {
        v.map_or(Num::EMPTY, Num)
    }
}

impl PartialEq for Num {
    fn eq(&self, other: &Num) -> bool {
        self.get() == other.get()
    }
}

impl std::fmt::Debug for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

/// One row of a `vms.csv` catalog. Number columns are read through methods
/// (`None` for an empty cell).
#[derive(Debug, Clone, PartialEq)]
pub struct VmRow {
    /// Instance type; empty for GCP accelerator rows.
    pub instance_type: Option<Text>,
    /// Accelerator name (as written in the catalog).
    pub accelerator_name: Option<Text>,
    /// Region; empty when the catalog cell is (pandas reads NaN, which
    /// no region matches).
    pub region: Text,
    /// Availability zone (zone ID for raw AWS catalogs).
    pub zone: Option<Text>,
    /// Local disk type (`ssd`/`hdd`), AWS only.
    pub local_disk_type: Option<Text>,
    /// Whether NVMe is supported, AWS only.
    pub nvme_supported: Option<bool>,
    /// Vast's `HostingType >= 1` (0 consumer-hosted, 1 datacenter-hosted):
    /// the one comparison SkyPilot makes with the column
    /// (`vast_catalog._apply_datacenter_filter`). `None` when the file has
    /// no such column; an empty cell is `Some(false)`, as pandas' `NaN >= 1`.
    pub datacenter: Option<bool>,
    accelerator_count: Num,
    vcpus: Num,
    memory_gib: Num,
    price: Num,
    spot_price: Num,
    local_disk_size: Num,
    local_disk_count: Num,
}

impl VmRow {
    /// Accelerator count.
    pub fn accelerator_count(&self) -> Option<f64> {
        self.accelerator_count.get()
    }

    /// vCPUs.
    pub fn vcpus(&self) -> Option<f64> {
        self.vcpus.get()
    }

    /// Memory in GiB.
    pub fn memory_gib(&self) -> Option<f64> {
        self.memory_gib.get()
    }

    /// On-demand hourly price.
    pub fn price(&self) -> Option<f64> {
        self.price.get()
    }

    /// Spot hourly price.
    pub fn spot_price(&self) -> Option<f64> {
        self.spot_price.get()
    }

    /// Size of one local disk in GB.
    pub fn local_disk_size(&self) -> Option<f64> {
        self.local_disk_size.get()
    }

    /// Number of local disks.
    pub fn local_disk_count(&self) -> Option<f64> {
        self.local_disk_count.get()
    }

    /// The price column selected by `spot`.
    pub fn price_for(&self, spot: bool) -> Option<f64> {
        if spot {
            self.spot_price()
        } else {
            self.price()
        }
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
    /// Row indexes per instance type, built on first use: a launch's AWS
    /// catalog is re-indexed after the zone mapping drops rows, and many
    /// requests never ask.
    by_instance: std::sync::OnceLock<FxHashMap<Text, Vec<u32>>>,
    /// Row indexes per accelerator name (see [`CloudCatalog::accelerator_rows`]),
    /// built on first use.
    by_accelerator: std::sync::OnceLock<Vec<(Text, Vec<u32>)>>,
    /// `Some` when `rows` holds only the rows a request selected
    /// ([`selection`]): every (region, zone) pair of the whole file, in order
    /// of first appearance, for region and zone validation.
    partial_locations: Option<Vec<(Text, Option<Text>)>>,
}

impl CloudCatalog {
    /// Parses a `vms.csv` from a reader; see [`CloudCatalog::from_bytes`].
    pub fn from_reader<R: Read>(
        cloud: CloudId,
        mut reader: R,
        source_name: &str,
    ) -> Result<(CloudCatalog, Vec<CatalogWarning>), CatalogError> {
        let mut data = Vec::new();
        reader
            .read_to_end(&mut data)
            .map_err(|e| CatalogError::Read {
                source_name: source_name.to_string(),
                message: e.to_string(),
            })?;
        Self::from_bytes(cloud, &data, source_name)
    }

    /// Parses a `vms.csv` held in memory. `source_name` names the input in
    /// errors and warnings. (One part: see [`CsvParse`] to parse a large
    /// file's parts on several threads.)
    pub fn from_bytes(
        cloud: CloudId,
        data: &[u8],
        source_name: &str,
    ) -> Result<(CloudCatalog, Vec<CatalogWarning>), CatalogError> {
        let parse = CsvParse::new(cloud, data, source_name, 1)?;
        let part = parse.parse_part(0)?;
        parse.finish(vec![part])
    }

    /// Builds a catalog from rows (used by the CSV and image loaders and tests).
    pub fn from_rows(cloud: CloudId, rows: Vec<VmRow>, has_zones: bool, schema: Schema) -> Self {
        CloudCatalog {
            cloud,
            rows,
            has_zones,
            schema,
            by_instance: std::sync::OnceLock::new(),
            by_accelerator: std::sync::OnceLock::new(),
            partial_locations: None,
        }
    }

    /// Marks the rows as a selection of the file's, whose (region, zone)
    /// pairs are `locations` (see [`CloudCatalog::locations`]).
    pub(crate) fn set_partial(&mut self, locations: Vec<(Text, Option<Text>)>) {
        self.partial_locations = Some(locations);
    }

    /// Whether `rows` holds every row of the file. A partial catalog answers
    /// the queries of the rows it was selected for
    /// ([`selection::RowSelection`]) and region/zone validation; it must
    /// not be asked for default instance types or arbitrary instance types.
    pub fn is_complete(&self) -> bool {
        self.partial_locations.is_none()
    }

    /// The (region, zone) of every row of the file: in row order, or for a
    /// partial catalog each distinct pair once, in order of first
    /// appearance (which is all region/zone validation can tell apart).
    pub fn locations(&self) -> impl Iterator<Item = (&Text, Option<&Text>)> {
        let (rows, stored): (&[VmRow], &[(Text, Option<Text>)]) = match &self.partial_locations {
            Some(stored) => (&[], stored),
            None => (&self.rows, &[]),
        };
        rows.iter()
            .map(|r| (&r.region, r.zone.as_ref()))
            .chain(stored.iter().map(|(r, z)| (r, z.as_ref())))
    }

    fn by_instance(&self) -> &FxHashMap<Text, Vec<u32>> {
        self.by_instance.get_or_init(|| {
            let mut by_instance: FxHashMap<Text, Vec<u32>> = FxHashMap::default();
            // Rows come grouped by instance type: collect each run, then file it.
            let mut run: Option<(Text, Vec<u32>)> = None;
            let mut file_run = |run: Option<(Text, Vec<u32>)>| {
                if let Some((key, indexes)) = run {
                    match by_instance.entry(key) {
                        Entry::Vacant(e) => {
                            e.insert(indexes);
                        }
                        Entry::Occupied(mut e) => e.get_mut().extend(indexes),
                    }
                }
            };
            for (i, row) in self.rows.iter().enumerate() {
                let Some(it) = &row.instance_type else {
                    continue;
                };
                match &mut run {
                    Some((key, indexes)) if Text::ptr_eq(key, it) || **key == **it => {
                        indexes.push(i as u32);
                    }
                    _ => file_run(run.replace((it.clone(), vec![i as u32]))),
                }
            }
            file_run(run);
            by_instance
        })
    }

    /// Rows of one instance type, in file order.
    pub fn instance_rows<'a>(
        &'a self,
        instance_type: &str,
    ) -> impl Iterator<Item = &'a VmRow> + 'a {
        self.by_instance()
            .get(instance_type)
            .map(|v| v.as_slice())
            .unwrap_or(&[])
            .iter()
            .map(move |&i| &self.rows[i as usize])
    }

    /// The rows whose accelerator name `accept`s, grouped by name (each
    /// group in file order). A query that prices or lists one accelerator
    /// tests each distinct name once instead of every row: GCP's catalog
    /// has ~23k rows and a few dozen accelerator names.
    pub fn accelerator_rows<'a>(
        &'a self,
        mut accept: impl FnMut(&str) -> bool + 'a,
    ) -> impl Iterator<Item = &'a VmRow> + 'a {
        let groups = self.by_accelerator.get_or_init(|| {
            let mut groups: Vec<(Text, Vec<u32>)> = Vec::new();
            let mut slot_of: FxHashMap<Text, usize> = FxHashMap::default();
            // Rows come in runs of one accelerator: look a name up once per run.
            let mut last: Option<(&Text, usize)> = None;
            for (i, row) in self.rows.iter().enumerate() {
                let Some(name) = &row.accelerator_name else {
                    continue;
                };
                let slot = match last {
                    Some((seen, slot)) if Text::ptr_eq(seen, name) || **seen == **name => slot,
                    _ => *slot_of.entry(name.clone()).or_insert_with(|| {
                        groups.push((name.clone(), Vec::new()));
                        groups.len() - 1
                    }),
                };
                last = Some((name, slot));
                groups[slot].1.push(i as u32);
            }
            groups
        });
        groups
            .iter()
            .filter(move |(name, _)| accept(name))
            .flat_map(move |(_, rows)| rows.iter().map(move |&i| &self.rows[i as usize]))
    }

    /// Whether the instance type exists in this catalog.
    pub fn has_instance_type(&self, instance_type: &str) -> bool {
        self.by_instance().contains_key(instance_type)
    }

    /// All instance type names (unordered).
    pub fn instance_types(&self) -> impl Iterator<Item = &str> {
        self.by_instance().keys().map(|k| &**k)
    }

    /// Replaces AWS zone IDs by the account's zone names (an inner join:
    /// rows whose zone ID is not in the mapping disappear, as in SkyPilot).
    pub fn apply_az_mapping(&mut self, mapping: &AzMapping) {
        let before = self.rows.len();
        // Zones are interned, so each distinct zone is looked up once, keyed
        // by its allocation; the map holds a clone so that address cannot be
        // freed and reused while it is a key.
        type Resolved = (Text, Option<Text>);
        let mut resolved: FxHashMap<*const u8, Resolved> = FxHashMap::default();
        self.rows.retain_mut(|row| {
            let Some(zone) = &row.zone else {
                return false;
            };
            let (_, name) = resolved
                .entry(zone.as_ptr())
                .or_insert_with(|| (zone.clone(), mapping.names.get(&**zone).cloned()));
            row.zone = name.clone();
            row.zone.is_some()
        });
        if let Some(locations) = &mut self.partial_locations {
            locations.retain_mut(|(_, zone)| {
                *zone = zone.as_ref().and_then(|z| mapping.names.get(&**z).cloned());
                zone.is_some()
            });
        }
        if self.rows.len() != before {
            self.rows_changed();
        }
    }

    /// Drops the indexes built over `rows`: call after changing the rows.
    pub(crate) fn rows_changed(&mut self) {
        self.by_instance = std::sync::OnceLock::new();
        self.by_accelerator = std::sync::OnceLock::new();
    }
}

#[derive(Clone, Copy)]
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
    hosting_type: Option<usize>,
}

/// One `vms.csv` being parsed: its header read, its body cut into parts
/// that can be parsed independently (on several threads: the planner
/// starts none), then joined in file order.
///
/// This is the launch's hot path after a catalog changes (the AWS catalog
/// alone is ~27k rows), so records are split by `simd-csv` without copying,
/// and a field whose bytes repeat the row above reuses its parsed value:
/// catalogs list each instance type once per region and zone, so most
/// fields repeat.
pub struct CsvParse<'a> {
    cloud: CloudId,
    data: &'a [u8],
    source_name: &'a str,
    columns: RowColumns,
    header_fields: usize,
    has_zones: bool,
    schema: Schema,
    parts: Vec<std::ops::Range<usize>>,
}

/// The rows of one part of a [`CsvParse`].
pub struct CsvPart {
    rows: Vec<VmRow>,
    warnings: Vec<CatalogWarning>,
    /// (start, fields) of the part's last record.
    last: Option<(u64, usize)>,
}

impl<'a> CsvParse<'a> {
    /// Reads the header of `data` and cuts its body into at most
    /// `max_parts` parts of about equal size, each starting at a record.
    /// The body is cut only where that is certain: at a line end with an
    /// even number of quotes before it, in a file whose every quote stands
    /// at a field boundary (opening, closing or doubled). Otherwise, and
    /// for small files, it is one part.
    pub fn new(
        cloud: CloudId,
        data: &'a [u8],
        source_name: &'a str,
        max_parts: usize,
    ) -> Result<CsvParse<'a>, CatalogError> {
        let read_err = |e: simd_csv::Error| CatalogError::Read {
            source_name: source_name.to_string(),
            message: e.to_string(),
        };
        let mut csv = simd_csv::ZeroCopyReaderBuilder::new()
            .flexible(true)
            .from_reader(data);
        let headers = csv.byte_headers().map_err(read_err)?.clone();
        let body_start = (csv.position() as usize).min(data.len());
        if headers.is_empty() || (headers.len() == 1 && headers.iter().all(<[u8]>::is_empty)) {
            return Err(CatalogError::Empty {
                source_name: source_name.to_string(),
            });
        }
        let col = |name: &str| {
            headers
                .iter()
                .position(|h| h.trim_ascii() == name.as_bytes())
        };
        let required = |name: &'static str| {
            col(name).ok_or_else(|| CatalogError::MissingColumn {
                source_name: source_name.to_string(),
                column: name,
                found: headers
                    .iter()
                    .map(String::from_utf8_lossy)
                    .collect::<Vec<_>>()
                    .join(","),
            })
        };
        let columns = RowColumns {
            instance: required("InstanceType")?,
            region: required("Region")?,
            price: required("Price")?,
            acc_name: col("AcceleratorName"),
            acc_count: col("AcceleratorCount"),
            vcpus: col("vCPUs"),
            mem: col("MemoryGiB"),
            spot: col("SpotPrice"),
            zone: col("AvailabilityZone"),
            disk_type: col("LocalDiskType"),
            nvme: col("NVMeSupported"),
            disk_size: col("LocalDiskSize"),
            disk_count: col("LocalDiskCount"),
            hosting_type: col("HostingType"),
        };
        let has_zones = columns.zone.is_some();
        let schema = if cloud == CloudId::Aws && col("Arch").is_none() {
            Schema::V6
        } else {
            Schema::V8
        };
        Ok(CsvParse {
            cloud,
            data,
            source_name,
            columns,
            header_fields: headers.len(),
            has_zones,
            schema,
            parts: body_parts(data, body_start, max_parts),
        })
    }

    /// How many parts the body was cut into.
    pub fn parts(&self) -> usize {
        self.parts.len()
    }

    /// Parses part `i` (any order, any thread).
    pub fn parse_part(&self, i: usize) -> Result<CsvPart, CatalogError> {
        let range = self.parts.get(i).cloned().unwrap_or(0..0);
        let offset = range.start as u64;
        let part = &self.data[range];
        let mut csv = simd_csv::ZeroCopyReaderBuilder::new()
            .flexible(true)
            .has_headers(false)
            .from_reader(part);
        // One row per line is the norm; sizing up front avoids regrowing a
        // multi-megabyte vector.
        let mut rows = Vec::with_capacity(memchr::memchr_iter(b'\n', part).count());
        let mut warnings = Vec::new();
        let mut parser = RowParser::new(self.columns);
        let mut last = None;
        // Warnings name their line; counted on from the previous warning so
        // that a file of bad rows costs one pass, not one per row.
        let mut lines = LineCounter::default();
        loop {
            let start = offset + csv.position();
            let record = match csv.read_byte_record() {
                Ok(Some(record)) => record,
                Ok(None) => break,
                Err(e) => {
                    return Err(CatalogError::Read {
                        source_name: self.source_name.to_string(),
                        message: e.to_string(),
                    });
                }
            };
            last = Some((start, record.len()));
            match parser.parse(&record) {
                Ok(row) => rows.push(row),
                Err(message) => warnings.push(CatalogWarning {
                    source_name: self.source_name.to_string(),
                    line: lines.line_at(self.data, start),
                    message,
                }),
            }
        }
        Ok(CsvPart {
            rows,
            warnings,
            last,
        })
    }

    /// Joins the parsed parts, in part order, into the catalog.
    pub fn finish(
        self,
        parts: Vec<CsvPart>,
    ) -> Result<(CloudCatalog, Vec<CatalogWarning>), CatalogError> {
        let mut rows = Vec::with_capacity(parts.iter().map(|p| p.rows.len()).sum());
        let mut warnings = Vec::new();
        let mut last = None;
        for part in parts {
            rows.extend(part.rows);
            warnings.extend(part.warnings);
            last = part.last.or(last);
        }
        if let Some((start, found)) = last {
            check_not_truncated(
                self.data,
                start,
                found,
                self.header_fields,
                self.source_name,
            )?;
        }
        if self.cloud == CloudId::Shadeform {
            // `shadeform_catalog._get_df` keeps only rows with an instance
            // type and an accelerator name: every Shadeform query sees that.
            rows.retain(|r| r.instance_type.is_some() && r.accelerator_name.is_some());
        }
        Ok((
            CloudCatalog::from_rows(self.cloud, rows, self.has_zones, self.schema),
            warnings,
        ))
    }
}

/// Files below this are parsed as one part: a thread costs more than it saves.
const MIN_PART_BYTES: usize = 512 << 10;

/// The body `data[body_start..]` in at most `max_parts` parts (see
/// [`CsvParse::new`]).
fn body_parts(data: &[u8], body_start: usize, max_parts: usize) -> Vec<std::ops::Range<usize>> {
    let whole = std::iter::once(body_start..data.len()).collect();
    let body = &data[body_start..];
    let parts = max_parts.min(body.len() / MIN_PART_BYTES).max(1);
    if parts == 1 || !quotes_at_field_boundaries(body) {
        return whole;
    }
    let mut cuts = vec![body_start];
    let mut quotes_before = 0usize;
    let mut counted_to = 0usize;
    for k in 1..parts {
        let aim = body.len() * k / parts;
        // The first line end at or after the aim with an even number of
        // quotes before it starts the next part.
        let mut at = aim.max(counted_to);
        let cut = loop {
            let Some(nl) = memchr::memchr(b'\n', &body[at..]).map(|i| at + i) else {
                break None;
            };
            quotes_before += memchr::memchr_iter(b'"', &body[counted_to..nl]).count();
            counted_to = nl;
            if quotes_before.is_multiple_of(2) {
                break Some(nl + 1);
            }
            at = nl + 1;
        };
        match cut {
            Some(cut) if cut < body.len() && cut > cuts[cuts.len() - 1] - body_start => {
                cuts.push(body_start + cut)
            }
            _ => break,
        }
    }
    cuts.push(data.len());
    cuts.windows(2).map(|w| w[0]..w[1]).collect()
}

/// Whether every quote in `body` opens a field (after a comma or a line
/// start), closes one (before a comma or a line end) or is doubled inside
/// one, following the quote state from the start of the body: then a line
/// end with an even number of quotes before it is between records. A stray
/// quote (inside an unquoted field, or after a closing quote) makes the
/// answer no, and the file is parsed whole.
fn quotes_at_field_boundaries(body: &[u8]) -> bool {
    let field_edge = |b: Option<&u8>| matches!(b, None | Some(b',' | b'\n' | b'\r'));
    let mut in_quotes = false;
    let mut quotes = memchr::memchr_iter(b'"', body);
    while let Some(i) = quotes.next() {
        if !in_quotes {
            if !field_edge(i.checked_sub(1).and_then(|j| body.get(j))) {
                return false;
            }
            in_quotes = true;
        } else if body.get(i + 1) == Some(&b'"') {
            quotes.next();
        } else if field_edge(body.get(i + 1)) {
            in_quotes = false;
        } else {
            return false;
        }
    }
    !in_quotes
}

/// Refuses a file whose last row was cut: it has no final line break and
/// either fewer fields than the header or an open quote. (A last row with
/// every field but no newline is taken as written by hand: it cannot be
/// told from a cut inside its last field.)
fn check_not_truncated(
    data: &[u8],
    start: u64,
    found: usize,
    expected: usize,
    source_name: &str,
) -> Result<(), CatalogError> {
    if data.ends_with(b"\n") || data.ends_with(b"\r") {
        return Ok(());
    }
    let tail = &data[(start as usize).min(data.len())..];
    let open_quote = tail.iter().filter(|&&b| b == b'"').count() % 2 == 1;
    if found < expected || open_quote {
        return Err(CatalogError::Truncated {
            source_name: source_name.to_string(),
            line: line_at(data, start),
            found,
            expected,
        });
    }
    Ok(())
}

/// The 1-based line of the record that starts at byte `offset` (or after the
/// line breaks there). Only computed for warnings.
fn line_at(data: &[u8], offset: u64) -> u64 {
    LineCounter::default().line_at(data, offset)
}

/// Line numbers of increasing offsets in one file, each counted on from
/// the one before.
#[derive(Default)]
struct LineCounter {
    /// Offset up to which line ends have been counted.
    counted_to: usize,
    /// Line ends in `data[..counted_to]`.
    line_ends: u64,
}

impl LineCounter {
    /// The 1-based line of the record at `offset` (blank lines before it
    /// skipped, as the CSV reader skips them).
    fn line_at(&mut self, data: &[u8], offset: u64) -> u64 {
        let mut at = (offset as usize).min(data.len());
        while at < data.len() && matches!(data[at], b'\r' | b'\n') {
            at += 1;
        }
        if at < self.counted_to {
            *self = LineCounter::default();
        }
        self.line_ends += memchr::memchr_iter(b'\n', &data[self.counted_to..at]).count() as u64;
        self.counted_to = at;
        1 + self.line_ends
    }
}

/// The trimmed, unescaped bytes of a field; `None` when the column is absent
/// from the header or the field is empty.
fn field_bytes<'r>(
    record: &'r ZeroCopyByteRecord<'_>,
    col: Option<usize>,
) -> Result<Option<Cow<'r, [u8]>>, String> {
    let Some(col) = col else { return Ok(None) };
    let Some(raw) = record.get(col) else {
        return Err(format!(
            "expected at least {} fields, found {}",
            col + 1,
            record.len()
        ));
    };
    let bytes = if raw.first() == Some(&b'"') {
        match record.unescape(col) {
            Some(Cow::Owned(v)) => Cow::Owned(v.trim_ascii().to_vec()),
            Some(Cow::Borrowed(b)) => Cow::Borrowed(b.trim_ascii()),
            None => Cow::Borrowed(&[][..]),
        }
    } else {
        Cow::Borrowed(raw.trim_ascii())
    };
    Ok(if bytes.is_empty() { None } else { Some(bytes) })
}

/// Byte equality of two short fields as a plain loop. `==` on slices calls
/// libc's `memcmp`, whose AVX-512 variant does a masked load that profiles
/// at ~40 ns per call on this VM: ~40 % of parsing a large `vms.csv`, where
/// every field is compared with the previous row's.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

fn text(bytes: &[u8], col: usize) -> Result<&str, String> {
    std::str::from_utf8(bytes).map_err(|_| format!("field {} is not UTF-8", col + 1))
}

/// A numeric column that remembers the previous row's bytes and value.
///
/// Values must be finite, not negative and at most `max`: a negative price
/// would win every comparison, a NaN one would drop the row from every
/// query without a word, and an absurd size overflows the table's integer
/// cells. Such a row is skipped with a warning naming the file and line.
/// An empty cell is a missing value, as pandas reads it.
struct NumberColumn {
    col: Option<usize>,
    name: &'static str,
    max: f64,
    last_bytes: Vec<u8>,
    last: Option<Option<f64>>,
}

/// Upper bounds of the number columns, far above any real offering (the
/// largest catalog entries are ~900 vCPUs, 32 TiB of memory, a few thousand
/// dollars an hour for a TPU pod) and far below where arithmetic and
/// rendering would break.
mod bounds {
    pub const COUNT: f64 = 1e5;
    pub const VCPUS: f64 = 1e5;
    pub const MEMORY_GIB: f64 = 1e7;
    pub const PRICE: f64 = 1e6;
    pub const DISK_GB: f64 = 1e8;
    pub const DISK_COUNT: f64 = 1e4;
}

impl NumberColumn {
    fn new(col: Option<usize>, name: &'static str, max: f64) -> Self {
        NumberColumn {
            col,
            name,
            max,
            last_bytes: Vec::new(),
            last: None,
        }
    }

    fn parse(&mut self, record: &ZeroCopyByteRecord<'_>) -> Result<Option<f64>, String> {
        let bytes = field_bytes(record, self.col)?;
        let bytes: &[u8] = bytes.as_deref().unwrap_or_default();
        if let Some(value) = self.last
            && same_bytes(&self.last_bytes, bytes)
        {
            return Ok(value);
        }
        let value = if bytes.is_empty() {
            None
        } else if let Some(v) = plain_decimal(bytes).filter(|v| *v <= self.max) {
            Some(v)
        } else {
            let t = text(bytes, self.col.unwrap_or(0))?;
            let v = t
                .parse::<f64>()
                .map_err(|_| format!("{} is not a number: {t:?}", self.name))?;
            if !v.is_finite() {
                return Err(format!("{} is not a finite number: {t:?}", self.name));
            }
            if v < 0.0 {
                return Err(format!("{} is negative: {t}", self.name));
            }
            if v > self.max {
                return Err(format!(
                    "{} is implausibly large: {t} (at most {})",
                    self.name, self.max
                ));
            }
            Some(v)
        };
        self.last_bytes.clear();
        self.last_bytes.extend_from_slice(bytes);
        self.last = Some(value);
        Ok(value)
    }
}

/// `digits[.digits]` with at most 15 significant digits, as the catalogs
/// write almost every number, without `str::parse`'s general machinery:
/// the digits are an exact integer below 2^53 and 10^k (k ≤ 15) is exact,
/// so one correctly rounded division gives the correctly rounded value —
/// the same `f64` `str::parse` gives (Clinger's fast path). `None` for any
/// other form, which then goes through `str::parse`.
fn plain_decimal(bytes: &[u8]) -> Option<f64> {
    const POW10: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    let (int, frac) = match bytes.iter().position(|&b| b == b'.') {
        Some(dot) => (&bytes[..dot], &bytes[dot + 1..]),
        None => (bytes, &[][..]),
    };
    if int.is_empty() || int.len() + frac.len() > 15 {
        return None;
    }
    let mut mantissa = 0u64;
    for &b in int.iter().chain(frac) {
        if !b.is_ascii_digit() {
            return None;
        }
        mantissa = mantissa * 10 + u64::from(b - b'0');
    }
    Some(mantissa as f64 / POW10[frac.len()])
}

/// Shares one allocation per distinct string of a column: catalogs repeat
/// instance types, regions and zones thousands of times, and cloning an
/// `Text` (zone-mapping join, candidates) is a counter bump.
struct Interner {
    col: Option<usize>,
    last: Option<Text>,
    map: FxHashMap<Box<[u8]>, Text>,
}

impl Interner {
    fn new(col: Option<usize>) -> Self {
        Interner {
            col,
            last: None,
            map: FxHashMap::default(),
        }
    }

    fn parse(&mut self, record: &ZeroCopyByteRecord<'_>) -> Result<Option<Text>, String> {
        let Some(bytes) = field_bytes(record, self.col)? else {
            return Ok(None);
        };
        // Rows come grouped by instance type and region: the previous value usually repeats.
        if let Some(last) = &self.last
            && same_bytes(last.as_bytes(), &bytes)
        {
            return Ok(Some(last.clone()));
        }
        let value = match self.map.get(&*bytes) {
            Some(v) => v.clone(),
            None => {
                let v: Text = Text::from(text(&bytes, self.col.unwrap_or(0))?);
                self.map.insert(bytes.as_ref().into(), v.clone());
                v
            }
        };
        self.last = Some(value.clone());
        Ok(Some(value))
    }
}

/// Turns records into [`VmRow`]s, one parser state per column.
struct RowParser {
    nvme: Option<usize>,
    instance: Interner,
    accelerator: Interner,
    region: Interner,
    zone: Interner,
    disk_type: Interner,
    acc_count: NumberColumn,
    vcpus: NumberColumn,
    mem: NumberColumn,
    price: NumberColumn,
    spot: NumberColumn,
    disk_size: NumberColumn,
    disk_count: NumberColumn,
    hosting_type: Option<NumberColumn>,
    empty_region: Text,
}

impl RowParser {
    fn new(c: RowColumns) -> Self {
        RowParser {
            empty_region: Text::from(""),
            nvme: c.nvme,
            instance: Interner::new(Some(c.instance)),
            accelerator: Interner::new(c.acc_name),
            region: Interner::new(Some(c.region)),
            zone: Interner::new(c.zone),
            disk_type: Interner::new(c.disk_type),
            acc_count: NumberColumn::new(c.acc_count, "AcceleratorCount", bounds::COUNT),
            vcpus: NumberColumn::new(c.vcpus, "vCPUs", bounds::VCPUS),
            mem: NumberColumn::new(c.mem, "MemoryGiB", bounds::MEMORY_GIB),
            price: NumberColumn::new(Some(c.price), "Price", bounds::PRICE),
            spot: NumberColumn::new(c.spot, "SpotPrice", bounds::PRICE),
            disk_size: NumberColumn::new(c.disk_size, "LocalDiskSize", bounds::DISK_GB),
            disk_count: NumberColumn::new(c.disk_count, "LocalDiskCount", bounds::DISK_COUNT),
            hosting_type: c
                .hosting_type
                .map(|col| NumberColumn::new(Some(col), "HostingType", bounds::COUNT)),
        }
    }

    fn parse(&mut self, record: &ZeroCopyByteRecord<'_>) -> Result<VmRow, String> {
        let instance_type = self.instance.parse(record)?;
        // pandas keeps a row whose Region is empty (NaN): no region query
        // ever matches it and `get_region_zones` drops it, but queries
        // without a region still see it (IBM's upstream catalog has such
        // rows). It is kept as an empty region; a row with neither an
        // instance type nor a region is of use to no query.
        let region = match self.region.parse(record)? {
            Some(region) => region,
            None if instance_type.is_some() => self.empty_region.clone(),
            None => return Err("Region is empty".into()),
        };
        Ok(VmRow {
            instance_type,
            accelerator_name: self.accelerator.parse(record)?,
            accelerator_count: self.acc_count.parse(record)?.into(),
            vcpus: self.vcpus.parse(record)?.into(),
            memory_gib: self.mem.parse(record)?.into(),
            price: self.price.parse(record)?.into(),
            spot_price: self.spot.parse(record)?.into(),
            region,
            zone: self.zone.parse(record)?,
            local_disk_type: self.disk_type.parse(record)?,
            nvme_supported: field_bytes(record, self.nvme)?
                .map(|t| t.eq_ignore_ascii_case(b"true") || &*t == b"1"),
            local_disk_size: self.disk_size.parse(record)?.into(),
            local_disk_count: self.disk_count.parse(record)?.into(),
            datacenter: match &mut self.hosting_type {
                Some(column) => Some(column.parse(record)?.is_some_and(|h| h >= 1.0)),
                None => None,
            },
        })
    }
}

/// AWS zone-ID → zone-name mapping (`aws/az_mappings-<hash>.csv`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AzMapping {
    names: HashMap<Box<str>, Text>,
}

impl AzMapping {
    /// Parses `AvailabilityZone,AvailabilityZoneName` rows.
    pub fn from_reader<R: Read>(reader: R, source_name: &str) -> Result<AzMapping, CatalogError> {
        let table = SmallTable::parse(&read_all(reader, source_name)?, source_name)?;
        let id_col = table.column("AvailabilityZone");
        let name_col = table.column("AvailabilityZoneName");
        let (Some(id_col), Some(name_col)) = (id_col, name_col) else {
            return Err(CatalogError::MissingColumn {
                source_name: source_name.into(),
                column: "AvailabilityZoneName",
                found: table.header_line(),
            });
        };
        let names = table
            .records
            .iter()
            .map(|r| (r[id_col].as_str().into(), Text::from(r[name_col].as_str())))
            .collect();
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
        let table = SmallTable::parse(&read_all(reader, source_name)?, source_name)?;
        let name = table
            .column("AcceleratorName")
            .ok_or_else(|| CatalogError::MissingColumn {
                source_name: source_name.into(),
                column: "AcceleratorName",
                found: table.header_line(),
            })?;
        let clouds = table.column("Clouds");
        let entries = table
            .records
            .into_iter()
            .map(|mut r| {
                let c = clouds
                    .map(|c| std::mem::take(&mut r[c]))
                    .unwrap_or_default();
                (std::mem::take(&mut r[name]), c)
            })
            .collect();
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
    let table = SmallTable::parse(&read_all(reader, source_name)?, source_name)?;
    let pos = |n: &'static str| {
        table.column(n).ok_or_else(|| CatalogError::MissingColumn {
            source_name: source_name.into(),
            column: n,
            found: table.header_line(),
        })
    };
    let (g, m, f) = (pos("GPU")?, pos("MemoryGB")?, pos("Manufacturer")?);
    Ok(table
        .records
        .iter()
        .filter_map(|r| {
            Some(GpuMetadata {
                gpu: r[g].clone(),
                memory_gb: r[m].trim().parse::<f64>().ok()?,
                manufacturer: r[f].clone(),
            })
        })
        .collect())
}

/// The whole of a small table's input.
fn read_all<R: Read>(mut reader: R, source_name: &str) -> Result<Vec<u8>, CatalogError> {
    let mut data = Vec::new();
    reader
        .read_to_end(&mut data)
        .map_err(|e| CatalogError::Read {
            source_name: source_name.to_string(),
            message: e.to_string(),
        })?;
    Ok(data)
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

    fn parse_in_parts(
        cloud: CloudId,
        data: &[u8],
        n: usize,
    ) -> (usize, Result<(CloudCatalog, Vec<CatalogWarning>), String>) {
        let parse = match CsvParse::new(cloud, data, "t.csv", n) {
            Ok(p) => p,
            Err(e) => return (0, Err(e.to_string())),
        };
        let count = parse.parts();
        let parts: Result<Vec<CsvPart>, _> =
            (0..count).rev().map(|i| parse.parse_part(i)).collect();
        let result = parts
            .map(|mut p| {
                p.reverse();
                p
            })
            .and_then(|p| parse.finish(p))
            .map_err(|e| e.to_string());
        (count, result)
    }

    fn same(
        a: &Result<(CloudCatalog, Vec<CatalogWarning>), String>,
        b: &Result<(CloudCatalog, Vec<CatalogWarning>), String>,
    ) -> bool {
        match (a, b) {
            (Ok((x, xw)), Ok((y, yw))) => x.rows == y.rows && xw == yw,
            (Err(x), Err(y)) => x == y,
            _ => false,
        }
    }

    #[test]
    #[allow(clippy::disallowed_methods)] // reads the fixture catalogs
    fn a_catalog_parsed_in_parts_is_the_catalog_parsed_whole() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/catalogs");
        let mut split = 0;
        for cloud in CloudId::ALL {
            let Ok(csv) = std::fs::read(dir.join(cloud.name()).join("vms.csv")) else {
                continue;
            };
            // Small files grow past the part size by repeating their rows,
            // with a bad row and a multi-line quoted field thrown in.
            let header_end = csv
                .iter()
                .position(|&b| b == b'\n')
                .map_or(csv.len(), |i| i + 1);
            let mut big = csv.clone();
            if !big.ends_with(b"\n") {
                big.push(b'\n');
            }
            while big.len() < 3 * MIN_PART_BYTES {
                big.extend_from_slice(&csv[header_end..]);
                if !big.ends_with(b"\n") {
                    big.push(b'\n');
                }
                big.extend_from_slice(b"bad,\"multi\nline\",x,y\n");
            }
            let whole = CloudCatalog::from_bytes(cloud, &big, "t.csv").map_err(|e| e.to_string());
            for n in 1..=4 {
                let (count, parted) = parse_in_parts(cloud, &big, n);
                assert!(same(&whole, &parted), "{cloud:?} in {count} parts");
                split += usize::from(count > 1);
            }
        }
        assert!(split > 20, "only {split} files were split");
    }

    #[test]
    fn a_quote_inside_an_unquoted_field_keeps_the_file_whole() {
        // A stray quote mid-field, and one that looks like a closing quote
        // (a comma follows) but closes nothing: both shift the parity.
        for stray in [&b"a12\"x,1,r\n"[..], &b"a12\",1,r\n"[..]] {
            let mut data = b"InstanceType,Price,Region\n".to_vec();
            while data.len() < 3 * MIN_PART_BYTES {
                data.extend_from_slice(stray);
                data.extend_from_slice(b"b,\"2\",\"r\n2\"\n");
            }
            let (count, parted) = parse_in_parts(CloudId::Lambda, &data, 4);
            assert_eq!(count, 1, "{}", String::from_utf8_lossy(stray));
            let whole = CloudCatalog::from_bytes(CloudId::Lambda, &data, "t.csv")
                .map_err(|e| e.to_string());
            assert!(same(&whole, &parted));
        }
    }

    #[test]
    fn plain_decimals_parse_to_the_same_f64_as_str_parse() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut cases: Vec<String> = [
            "0",
            "0.0",
            "1.0",
            "0.1",
            "3.06",
            "17.15",
            "98.32",
            "0.0001",
            "123456789012345",
            "12345678901234.5",
            "0.000000000000001",
            "2.675",
            "007.50",
            "1.",
            ".5",
            "1e3",
            "-1",
            "1.2.3",
            "1234567890123456",
            "inf",
            "",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for _ in 0..20_000 {
            let int_digits = 1 + next() % 9;
            let frac_digits = next() % 8;
            let mut text = (0..int_digits)
                .map(|_| char::from(b'0' + (next() % 10) as u8))
                .collect::<String>();
            if frac_digits > 0 {
                text.push('.');
                text.extend((0..frac_digits).map(|_| char::from(b'0' + (next() % 10) as u8)));
            }
            cases.push(text);
        }
        let mut fast = 0;
        for case in &cases {
            if let Some(v) = plain_decimal(case.as_bytes()) {
                fast += 1;
                assert_eq!(
                    v.to_bits(),
                    case.parse::<f64>().unwrap().to_bits(),
                    "{case}"
                );
            }
        }
        assert!(fast > 19_000, "only {fast} took the fast path");
        for refused in [".5", "1e3", "-1", "1.2.3", "1234567890123456", "inf", ""] {
            assert_eq!(plain_decimal(refused.as_bytes()), None, "{refused}");
        }
    }

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
    fn bad_numbers_are_skipped_with_file_and_line() {
        let rows = [
            ("-0.5", "Price is negative: -0.5"),
            ("nan", "Price is not a finite number: \"nan\""),
            ("NaN", "Price is not a finite number: \"NaN\""),
            ("inf", "Price is not a finite number: \"inf\""),
            ("-inf", "Price is not a finite number: \"-inf\""),
            ("1e300", "Price is implausibly large: 1e300"),
        ];
        let mut csv = String::from(HEADER);
        csv.push_str("ok.large,,,2,8,,0.096,0.03,us-east-1,use1-az1,x86_64\n");
        for (price, _) in rows {
            csv.push_str(&format!("bad,,,2,8,,{price},,us-east-1,use1-az1,x86_64\n"));
        }
        csv.push_str("huge,,,2,1e30,,1,,us-east-1,use1-az1,x86_64\n");
        csv.push_str("neg,,-1,2,8,,1,,us-east-1,use1-az1,x86_64\n");
        let (cat, warnings) =
            CloudCatalog::from_reader(CloudId::Aws, csv.as_bytes(), "aws/vms.csv").unwrap();
        assert_eq!(cat.rows.len(), 1, "only the good row survives");
        assert_eq!(warnings.len(), rows.len() + 2, "{warnings:?}");
        for (i, (_, want)) in rows.iter().enumerate() {
            let w = warnings[i].to_string();
            assert!(
                w.starts_with(&format!(
                    "aws/vms.csv:{}: skipped malformed row: {want}",
                    i + 3
                )),
                "{w}"
            );
        }
        assert!(
            warnings[rows.len()]
                .message
                .starts_with("MemoryGiB is implausibly large")
        );
        assert!(
            warnings[rows.len() + 1]
                .message
                .starts_with("AcceleratorCount is negative")
        );
    }

    #[test]
    fn a_catalog_cut_mid_row_is_an_error_naming_the_file() {
        let full = format!(
            "{HEADER}m6i.large,,,2,8,,0.096,0.03,us-east-1,use1-az1,x86_64\np3.2xlarge,V100,1,8,61,,3.06,0.9,us-east-1,use1-az2,x86_64\n"
        );
        assert!(CloudCatalog::from_reader(CloudId::Aws, full.as_bytes(), "aws/vms.csv").is_ok());
        // Every cut inside the last row but its end is refused.
        let last_row = full[..full.len() - 1].rfind('\n').unwrap() + 1;
        for cut in last_row + 1..full.len() - 1 {
            let text = &full[..cut];
            let fields = text[last_row..].split(',').count();
            let result = CloudCatalog::from_reader(CloudId::Aws, text.as_bytes(), "aws/vms.csv");
            if fields < 11 {
                let err = result.unwrap_err();
                assert!(
                    matches!(err, CatalogError::Truncated { line: 3, .. })
                        && err.to_string().contains("aws/vms.csv"),
                    "cut at {cut}: {err}"
                );
            }
        }
        let quoted = format!("{HEADER}m6i.large,,,2,8,\"{{'a': 1");
        let err = CloudCatalog::from_reader(CloudId::Aws, quoted.as_bytes(), "q.csv").unwrap_err();
        assert!(err.to_string().contains("q.csv"), "{err}");
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
    #[allow(clippy::disallowed_methods)] // reads a fixture
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
    #[allow(clippy::disallowed_methods)] // reads fixtures
    fn upstream_snapshots_parse_whole_with_either_line_ending() {
        // (cloud, rows, whether the file uses CRLF): real upstream files,
        // extra columns (`UpstreamCloudId`, `GpuInfo`) and all.
        let cases = [
            (CloudId::Seeweb, 69, true),
            (CloudId::Shadeform, 118, true),
            (CloudId::Vast, 63, true),
            (CloudId::Verda, 45, true),
            (CloudId::Yotta, 8, false),
        ];
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/catalogs");
        for (cloud, rows, crlf) in cases {
            let bytes = std::fs::read(dir.join(cloud.name()).join("vms.csv")).unwrap();
            assert_eq!(bytes.windows(2).any(|w| w == b"\r\n"), crlf, "{cloud:?}");
            let (cat, warnings) = CloudCatalog::from_bytes(cloud, &bytes, "fixture").unwrap();
            assert!(warnings.is_empty(), "{cloud:?}: {warnings:?}");
            assert_eq!(cat.rows.len(), rows, "{cloud:?}");
            // No field keeps a stray carriage return.
            for row in &cat.rows {
                assert!(!row.region.contains('\r'), "{cloud:?}: {:?}", row.region);
                assert!(row.price().is_some() || row.spot_price().is_some());
            }
        }
    }

    #[test]
    fn hosting_type_is_read_as_datacenter_or_not() {
        let csv = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,HostingType\r\n\
            a,RTX4090,1,32,64,0.4,\"Texas, US, NA\",1\r\n\
            b,RTX4090,1,32,64,0.3,\"Germany, DE, EU\",0\r\n\
            c,RTX4090,1,32,64,0.5,\"Utah, US, NA\",\r\n\
            d,RTX4090,1,32,64,0.5,\"Utah, US, NA\",2\r\n\
            e,RTX4090,1,32,64,0.5,\"Utah, US, NA\",yes\r\n";
        let (cat, warnings) = CloudCatalog::from_bytes(CloudId::Vast, csv.as_bytes(), "v").unwrap();
        let flags: Vec<_> = cat.rows.iter().map(|r| r.datacenter).collect();
        assert_eq!(flags, [Some(true), Some(false), Some(false), Some(true)]);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].message.contains("HostingType"), "{warnings:?}");
        assert_eq!(&*cat.rows[0].region, "Texas, US, NA");
        // Without the column nothing is known.
        let csv = "InstanceType,Price,Region\na,1,r\n";
        let (cat, _) = CloudCatalog::from_bytes(CloudId::Vast, csv.as_bytes(), "v").unwrap();
        assert_eq!(cat.rows[0].datacenter, None);
        // The flag survives the pre-indexed image.
        let csv = "InstanceType,Price,Region,HostingType\na,1,r,1\nb,1,r,0\nc,1,r,0\nd,1,r\n";
        let (cat, w) = CloudCatalog::from_bytes(CloudId::Vast, csv.as_bytes(), "v").unwrap();
        let (back, _) = CloudCatalog::from_image(CloudId::Vast, &cat.to_image(&w), "v").unwrap();
        assert_eq!(back.rows, cat.rows);
    }

    #[test]
    fn shadeform_keeps_only_rows_with_an_accelerator() {
        // `shadeform_catalog._get_df`: rows without an instance type or an
        // accelerator name are not part of Shadeform's catalog.
        let csv = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n\
            gpu_A6000,A6000,1,6,48,0.5,r1\n\
            cpu_only,,,8,32,0.1,r1\n\
            ,A6000,1,6,48,0.4,r2\n";
        let (cat, _) = CloudCatalog::from_bytes(CloudId::Shadeform, csv.as_bytes(), "s").unwrap();
        assert_eq!(cat.rows.len(), 1);
        assert!(cat.has_instance_type("gpu_A6000"));
        assert!(!cat.has_instance_type("cpu_only"));
        // Other clouds keep such rows.
        let (cat, _) = CloudCatalog::from_bytes(CloudId::Vast, csv.as_bytes(), "v").unwrap();
        assert_eq!(cat.rows.len(), 3);
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
