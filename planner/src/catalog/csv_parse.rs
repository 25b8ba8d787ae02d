//! Reading a `vms.csv`: the header (columns by name, so the v8 and the
//! older v6 layout both load), the body cut into parts that parse on
//! several threads, each record made a row ([`super::row_parser`]), and a
//! file cut mid-row refused. A malformed row is skipped with a
//! [`CatalogWarning`] naming the file and line; a file without the required
//! columns is a [`CatalogError`]. This is the one reader of `vms.csv`: the
//! launch's catalogs and `sky gpus list` both read it.

/// The record splitter; its [`split::Record`] is what the row parser reads
/// (a module of its own, so the row parser needs nothing else from here).
pub(super) mod split;

use split::Splitter;

use super::row_parser::{CellStore, RowColumns, RowParser, Texts};
use super::{CatalogError, CatalogWarning, CloudCatalog, Columns, Schema, VmRow};
use crate::cloud::CloudId;

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
    header: Header,
    parts: Vec<std::ops::Range<usize>>,
}

/// What a `vms.csv`'s header says.
pub(super) struct Header {
    /// Where each column a row reads sits.
    pub(super) columns: RowColumns,
    /// How many fields it has.
    pub(super) fields: usize,
    pub(super) has_zones: bool,
    pub(super) schema: Schema,
    /// Its names, trimmed.
    pub(super) names: Vec<String>,
}

impl Header {
    /// Reads the header at the start of `data`: it and where the body
    /// starts.
    pub(super) fn read(
        cloud: CloudId,
        data: &[u8],
        source_name: &str,
    ) -> Result<(Header, usize), CatalogError> {
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
            gpu_info: col("GpuInfo"),
        };
        let schema = if cloud == CloudId::Aws && col("Arch").is_none() {
            Schema::V6
        } else {
            Schema::V8
        };
        let header = Header {
            columns,
            fields: headers.len(),
            has_zones: columns.zone.is_some(),
            schema,
            names: headers
                .iter()
                .map(|h| String::from_utf8_lossy(h.trim_ascii()).into_owned())
                .collect(),
        };
        Ok((header, body_start))
    }

    /// The header's [`Columns`], with these integer bits.
    pub(super) fn columns(&self, integers: u8) -> Columns {
        Columns::new(self.names.iter().map(String::as_str), integers)
    }
}

/// The rows of one part of a [`CsvParse`].
pub struct CsvPart {
    rows: Vec<VmRow>,
    warnings: Vec<CatalogWarning>,
    /// (start, fields) of the part's last record.
    last: Option<(u64, usize)>,
    /// Integer bits of the part's number columns (see [`Columns`]).
    integers: u8,
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
        let (header, body_start) = Header::read(cloud, data, source_name)?;
        Ok(CsvParse {
            cloud,
            data,
            source_name,
            header,
            parts: body_parts(data, body_start, max_parts, MIN_PART_BYTES),
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
        // One row per line is the norm; sizing up front avoids regrowing a
        // multi-megabyte vector.
        let mut rows = Vec::with_capacity(memchr::memchr_iter(b'\n', part).count());
        let mut warnings = Vec::new();
        let mut parser = RowParser::<Texts>::new(self.header.columns);
        // Warnings name their line; counted on from the previous warning so
        // that a file of bad rows costs one pass, not one per row.
        let mut lines = LineCounter::default();
        let last = parse_records(
            part,
            &mut parser,
            self.source_name,
            |at| lines.line_at(self.data, offset + at),
            &mut rows,
            &mut warnings,
        )?
        .map(|(at, fields)| (offset + at, fields));
        Ok(CsvPart {
            rows,
            warnings,
            last,
            integers: parser.integer_bits(),
        })
    }

    /// Joins the parsed parts, in part order, into the catalog.
    pub fn finish(
        self,
        parts: Vec<CsvPart>,
    ) -> Result<(CloudCatalog, Vec<CatalogWarning>), CatalogError> {
        let mut rows: Vec<VmRow> = Vec::new();
        let mut warnings = Vec::new();
        let mut last = None;
        let mut integers = u8::MAX;
        for part in parts {
            integers &= part.integers;
            if rows.is_empty() {
                // The first part's rows are kept, not copied: most files
                // are one part.
                rows = part.rows;
            } else {
                rows.extend(part.rows);
            }
            warnings.extend(part.warnings);
            last = part.last.or(last);
        }
        if let Some((start, found)) = last {
            check_not_truncated(
                self.data,
                start,
                found,
                self.header.fields,
                self.source_name,
            )?;
        }
        if self.cloud == CloudId::Shadeform {
            // `shadeform_catalog._get_df` keeps only rows with an instance
            // type and an accelerator name: every Shadeform query sees that.
            rows.retain(|r| r.instance_type.is_some() && r.accelerator_name.is_some());
        }
        Ok((
            CloudCatalog::from_rows(self.cloud, rows, self.header.has_zones, self.header.schema)
                .with_columns(self.header.columns(integers)),
            warnings,
        ))
    }
}

/// Parses the whole records of `piece` onto `rows` (a record that is no
/// row onto `warnings`, its line from `line_of` its offset in `piece`):
/// where the last record starts in `piece`, and its fields.
pub(super) fn parse_records<S: CellStore>(
    piece: &[u8],
    parser: &mut RowParser<S>,
    source_name: &str,
    mut line_of: impl FnMut(u64) -> u64,
    rows: &mut Vec<S::Row>,
    warnings: &mut Vec<CatalogWarning>,
) -> Result<Option<(u64, usize)>, CatalogError> {
    let mut split = Splitter::new(piece);
    let mut last = None;
    loop {
        let (start, record) = match split.next() {
            Ok(Some(next)) => next,
            Ok(None) => break,
            Err(e) => {
                return Err(CatalogError::Read {
                    source_name: source_name.to_string(),
                    message: e.to_string(),
                });
            }
        };
        last = Some((start, record.len()));
        match parser.parse(&record) {
            Ok(row) => rows.push(row),
            Err(message) => warnings.push(CatalogWarning {
                source_name: source_name.to_string(),
                line: line_of(start),
                message,
            }),
        }
    }
    Ok(last)
}

/// Files below this are parsed as one part: a thread costs more than it saves.
const MIN_PART_BYTES: usize = 512 << 10;

/// The body `data[body_start..]` in at most `max_parts` parts of at least
/// `min_part_bytes` each (see [`CsvParse::new`]).
pub(super) fn body_parts(
    data: &[u8],
    body_start: usize,
    max_parts: usize,
    min_part_bytes: usize,
) -> Vec<std::ops::Range<usize>> {
    let whole = std::iter::once(body_start..data.len()).collect();
    let body = &data[body_start..];
    let parts = max_parts.min(body.len() / min_part_bytes.max(1)).max(1);
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
pub(super) fn check_not_truncated(
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
pub(super) fn line_at(data: &[u8], offset: u64) -> u64 {
    LineCounter::default().line_at(data, offset)
}

/// Line numbers of increasing offsets in one file, each counted on from
/// the one before.
#[derive(Default)]
pub(super) struct LineCounter {
    /// Offset up to which line ends have been counted.
    counted_to: usize,
    /// Line ends in `data[..counted_to]`.
    line_ends: u64,
}

impl LineCounter {
    /// The 1-based line of the record at `offset` (blank lines before it
    /// skipped, as the CSV reader skips them).
    pub(super) fn line_at(&mut self, data: &[u8], offset: u64) -> u64 {
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

/// `csv`'s rows repeated after it until it is at least `at_least` bytes,
/// `tail` after each repeat: the fixture catalogs grown past the sizes at
/// which a parse splits its input (tests of the part and piece parsers).
#[cfg(test)]
pub(super) fn grown_past(csv: &[u8], at_least: usize, tail: &[u8]) -> Vec<u8> {
    let header_end = csv
        .iter()
        .position(|&b| b == b'\n')
        .map_or(csv.len(), |i| i + 1);
    let mut big = csv.to_vec();
    if !big.ends_with(b"\n") {
        big.push(b'\n');
    }
    while big.len() < at_least {
        big.extend_from_slice(&csv[header_end..]);
        if !big.ends_with(b"\n") {
            big.push(b'\n');
        }
        big.extend_from_slice(tail);
    }
    big
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
            let big = grown_past(&csv, 3 * MIN_PART_BYTES, b"bad,\"multi\nline\",x,y\n");
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
}
