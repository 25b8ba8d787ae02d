//! The pre-indexed form of a parsed `vms.csv` (an *image*): what a launch
//! loads instead of re-parsing a catalog that has not changed.
//!
//! Parsing the 27k-row AWS catalog costs tens of milliseconds, most of it in
//! per-field work (splitting, number parsing, interning). An image stores the
//! same rows column by column with every string interned once, so loading it
//! is a few array walks. The caller decides where images live and when one is
//! stale (see `config::load_catalog_indexed`); this module only converts, and
//! treats any image it cannot fully validate as an error, never as data.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::selection::RowSelection;
use super::{CatalogWarning, CloudCatalog, Num, Schema, Text, VmRow};
use crate::cloud::CloudId;

/// Bumped whenever the layout or the meaning of a parsed row changes, so
/// images written by another version are rejected instead of misread.
const FORMAT: u32 = 6;
const MAGIC: [u8; 8] = *b"SKYCATIX";

/// Why an image was rejected (the caller falls back to the CSV).
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    /// The bytes are not a complete image of this format.
    #[error("not a catalog image (or a truncated one): {0}")]
    Decode(String),
    /// A well-formed image that does not describe what was asked for.
    #[error("catalog image does not match: {0}")]
    Mismatch(&'static str),
}

/// Everything but the rows; the rows follow it in the same buffer.
#[derive(Serialize, Deserialize)]
struct Head<'a> {
    magic: [u8; 8],
    format: u32,
    cloud: &'a str,
    v6: bool,
    has_zones: bool,
    /// Every distinct string of the rows, once.
    #[serde(borrow)]
    strings: Vec<&'a str>,
    /// Rows skipped when the CSV was parsed: (line, message).
    #[serde(borrow)]
    warnings: Vec<(u64, &'a str)>,
    /// The row stream's runs in file order: maximal sequences of rows with
    /// one accelerator name and one instance type, as (accelerator string
    /// id, instance type string id, rows, bytes). Each run's stream starts
    /// afresh, so a selection decodes only its runs.
    runs: Vec<(u32, u32, u32, u32)>,
    /// Every distinct (region, zone) string-id pair, in order of first
    /// appearance: what region and zone validation reads, whatever rows a
    /// selection decodes.
    locations: Vec<(u32, u32)>,
}

#[derive(Default)]
struct StringTable<'a> {
    strings: Vec<&'a str>,
    ids: FxHashMap<&'a str, u32>,
}

impl<'a> StringTable<'a> {
    fn id(&mut self, s: Option<&'a Text>) -> u32 {
        let Some(s) = s else { return 0 };
        let s: &'a str = s;
        *self.ids.entry(s).or_insert_with(|| {
            self.strings.push(s);
            self.strings.len() as u32
        })
    }
}

/// The row stream: each row is a little-endian `u16` mask of the fields that
/// differ from the row before it in its run (bit order: [`STRING_FIELDS`] string ids, then
/// the seven numbers, then the NVMe flag, then the datacenter flag), followed
/// by just those values — string ids as LEB128, numbers as `f64` LE
/// (`NaN` = empty), each flag as a byte (0 empty, 1 false, 2 true). Catalogs repeat most fields from row to
/// row (one row per zone of an instance type), so a row is a dozen bytes and
/// decoding one is mostly a clone of the previous.
const STRING_FIELDS: usize = 5;
const NUMBER_FIELDS: usize = 7;
const NVME_BIT: u16 = 1 << (STRING_FIELDS + NUMBER_FIELDS);
const DATACENTER_BIT: u16 = NVME_BIT << 1;

fn string_ids<'a>(row: &'a VmRow, table: &mut StringTable<'a>) -> [u32; STRING_FIELDS] {
    [
        table.id(row.instance_type.as_ref()),
        table.id(row.accelerator_name.as_ref()),
        table.id(Some(&row.region)),
        table.id(row.zone.as_ref()),
        table.id(row.local_disk_type.as_ref()),
    ]
}

fn numbers(row: &VmRow) -> [Num; NUMBER_FIELDS] {
    [
        row.accelerator_count,
        row.vcpus,
        row.memory_gib,
        row.price,
        row.spot_price,
        row.local_disk_size,
        row.local_disk_count,
    ]
}

fn flag_byte(v: Option<bool>) -> u8 {
    match v {
        None => 0,
        Some(false) => 1,
        Some(true) => 2,
    }
}

/// Encodes one run of rows; the first row is written in full.
fn encode_run<'a>(rows: &'a [VmRow], table: &mut StringTable<'a>, out: &mut Vec<u8>) {
    // The first row differs from an imaginary all-empty row in every field.
    let mut prev_ids = [u32::MAX; STRING_FIELDS];
    let mut prev_numbers = [None; NUMBER_FIELDS];
    let mut prev_nvme = u8::MAX;
    let mut prev_datacenter = u8::MAX;
    for row in rows {
        let ids = string_ids(row, table);
        let nums = numbers(row).map(Num::get);
        let nvme = flag_byte(row.nvme_supported);
        let datacenter = flag_byte(row.datacenter);
        let mut mask = 0u16;
        for (i, (id, prev)) in ids.iter().zip(&prev_ids).enumerate() {
            if id != prev {
                mask |= 1 << i;
            }
        }
        for (i, (number, prev)) in nums.iter().zip(&prev_numbers).enumerate() {
            // Compare bits: -0.0 and 0.0 must both survive.
            if number.map(f64::to_bits) != prev.map(f64::to_bits) {
                mask |= 1 << (STRING_FIELDS + i);
            }
        }
        if nvme != prev_nvme {
            mask |= NVME_BIT;
        }
        if datacenter != prev_datacenter {
            mask |= DATACENTER_BIT;
        }
        out.extend_from_slice(&mask.to_le_bytes());
        for (i, &id) in ids.iter().enumerate() {
            if mask & (1 << i) != 0 {
                let mut v = id;
                loop {
                    let byte = (v & 0x7f) as u8;
                    v >>= 7;
                    if v == 0 {
                        out.push(byte);
                        break;
                    }
                    out.push(byte | 0x80);
                }
            }
        }
        for (i, number) in nums.iter().enumerate() {
            if mask & (1 << (STRING_FIELDS + i)) != 0 {
                out.extend_from_slice(&number.unwrap_or(f64::NAN).to_le_bytes());
            }
        }
        if mask & NVME_BIT != 0 {
            out.push(nvme);
        }
        if mask & DATACENTER_BIT != 0 {
            out.push(datacenter);
        }
        (prev_ids, prev_numbers, prev_nvme, prev_datacenter) = (ids, nums, nvme, datacenter);
    }
}

/// Reads the row stream back; any inconsistency is an error, never a row.
struct RowReader<'b> {
    bytes: &'b [u8],
}

impl RowReader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], ImageError> {
        let (head, rest) = self
            .bytes
            .split_first_chunk::<N>()
            .ok_or_else(|| ImageError::Decode("rows end early".into()))?;
        self.bytes = rest;
        Ok(*head)
    }

    fn leb128(&mut self) -> Result<u32, ImageError> {
        let mut value = 0u32;
        for shift in (0..35).step_by(7) {
            let [byte] = self.take::<1>()?;
            value |= u32::from(byte & 0x7f)
                .checked_shl(shift)
                .ok_or_else(|| ImageError::Decode("string id overflows".into()))?;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(ImageError::Decode("string id overflows".into()))
    }
}

/// The head's strings, made into [`Text`]s on first use: a selection that
/// decodes a few runs allocates only the strings those runs name.
struct Strings<'h> {
    raw: &'h [&'h str],
    made: Vec<Option<Text>>,
}

impl<'h> Strings<'h> {
    fn new(raw: &'h [&'h str]) -> Strings<'h> {
        Strings {
            raw,
            made: vec![None; raw.len()],
        }
    }

    /// String `id` (`0` = empty cell).
    fn get(&mut self, id: u32) -> Result<Option<Text>, ImageError> {
        let Some(i) = (id as usize).checked_sub(1) else {
            return Ok(None);
        };
        let raw = self
            .raw
            .get(i)
            .ok_or(ImageError::Mismatch("string index"))?;
        Ok(Some(
            self.made[i].get_or_insert_with(|| Text::from(*raw)).clone(),
        ))
    }
}

/// Decodes one run of `count` rows (its first row written in full) onto `rows`.
fn decode_run(
    bytes: &[u8],
    count: usize,
    strings: &mut Strings<'_>,
    rows: &mut Vec<VmRow>,
) -> Result<(), ImageError> {
    let start = rows.len();
    let mut reader = RowReader { bytes };
    let empty: Text = Text::from("");
    for index in 0..count {
        let mask = u16::from_le_bytes(reader.take::<2>()?);
        let prev = if rows.len() > start {
            rows.last()
        } else {
            None
        };
        let mut row = match prev {
            Some(prev) => prev.clone(),
            None if mask & 0b1_1111 == 0b1_1111
                && mask & NVME_BIT != 0
                && mask & DATACENTER_BIT != 0 =>
            {
                VmRow {
                    instance_type: None,
                    accelerator_name: None,
                    region: empty.clone(),
                    zone: None,
                    local_disk_type: None,
                    nvme_supported: None,
                    accelerator_count: Num::EMPTY,
                    vcpus: Num::EMPTY,
                    memory_gib: Num::EMPTY,
                    price: Num::EMPTY,
                    spot_price: Num::EMPTY,
                    local_disk_size: Num::EMPTY,
                    local_disk_count: Num::EMPTY,
                    datacenter: None,
                }
            }
            None => return Err(ImageError::Decode("first row is incomplete".into())),
        };
        if mask >> (STRING_FIELDS + NUMBER_FIELDS + 2) != 0 {
            return Err(ImageError::Decode(format!("row {index}: unknown fields")));
        }
        if mask & 1 != 0 {
            row.instance_type = strings.get(reader.leb128()?)?;
        }
        if mask & 1 << 1 != 0 {
            row.accelerator_name = strings.get(reader.leb128()?)?;
        }
        if mask & 1 << 2 != 0 {
            row.region = strings
                .get(reader.leb128()?)?
                .ok_or(ImageError::Mismatch("empty region"))?;
        }
        if mask & 1 << 3 != 0 {
            row.zone = strings.get(reader.leb128()?)?;
        }
        if mask & 1 << 4 != 0 {
            row.local_disk_type = strings.get(reader.leb128()?)?;
        }
        let fields = [
            &mut row.accelerator_count,
            &mut row.vcpus,
            &mut row.memory_gib,
            &mut row.price,
            &mut row.spot_price,
            &mut row.local_disk_size,
            &mut row.local_disk_count,
        ];
        for (i, field) in fields.into_iter().enumerate() {
            if mask & 1 << (STRING_FIELDS + i) != 0 {
                *field = Num(f64::from_le_bytes(reader.take::<8>()?));
            }
        }
        if mask & NVME_BIT != 0 {
            row.nvme_supported = match reader.take::<1>()? {
                [0] => None,
                [1] => Some(false),
                [2] => Some(true),
                _ => return Err(ImageError::Mismatch("NVMe flag")),
            };
        }
        if mask & DATACENTER_BIT != 0 {
            row.datacenter = match reader.take::<1>()? {
                [0] => None,
                [1] => Some(false),
                [2] => Some(true),
                _ => return Err(ImageError::Mismatch("datacenter flag")),
            };
        }
        rows.push(row);
    }
    if !reader.bytes.is_empty() {
        return Err(ImageError::Decode("a run has trailing bytes".into()));
    }
    Ok(())
}

/// Splits rows into runs of one accelerator name and one instance type:
/// (name, type, first row, rows).
type Run<'a> = (Option<&'a Text>, Option<&'a Text>, usize, usize);

fn runs_of(rows: &[VmRow]) -> Vec<Run<'_>> {
    let same = |a: Option<&Text>, b: Option<&Text>| a.map(|t| &**t) == b.map(|t| &**t);
    let mut runs: Vec<Run<'_>> = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let name = row.accelerator_name.as_ref();
        let it = row.instance_type.as_ref();
        match runs.last_mut() {
            Some((n, t, _, len)) if same(*n, name) && same(*t, it) => *len += 1,
            _ => runs.push((name, it, i, 1)),
        }
    }
    runs
}

impl CloudCatalog {
    /// Encodes the catalog, with the warnings its CSV produced, as an image.
    pub fn to_image(&self, warnings: &[CatalogWarning]) -> Vec<u8> {
        let mut table = StringTable::default();
        let mut stream = Vec::with_capacity(self.rows.len() * 12);
        let mut runs = Vec::new();
        for (name, it, first, len) in runs_of(&self.rows) {
            let before = stream.len();
            let (name_id, it_id) = (table.id(name), table.id(it));
            encode_run(&self.rows[first..first + len], &mut table, &mut stream);
            runs.push((name_id, it_id, len as u32, (stream.len() - before) as u32));
        }
        let mut locations: Vec<(u32, u32)> = Vec::new();
        let mut seen: rustc_hash::FxHashSet<(u32, u32)> = Default::default();
        for (region, zone) in self.locations() {
            let pair = (table.id(Some(region)), table.id(zone));
            if seen.insert(pair) {
                locations.push(pair);
            }
        }
        let head = Head {
            magic: MAGIC,
            format: FORMAT,
            cloud: self.cloud.name(),
            v6: self.schema == Schema::V6,
            has_zones: self.has_zones,
            strings: table.strings,
            warnings: warnings
                .iter()
                .map(|w| (w.line, w.message.as_str()))
                .collect(),
            runs,
            locations,
        };
        let mut out = postcard::to_allocvec(&head).expect("encoding to a Vec cannot fail");
        out.extend_from_slice(&stream);
        out
    }

    /// Decodes an image written by [`CloudCatalog::to_image`] for `cloud`.
    /// `source_name` names the original CSV in the returned warnings.
    pub fn from_image(
        cloud: CloudId,
        bytes: &[u8],
        source_name: &str,
    ) -> Result<(CloudCatalog, Vec<CatalogWarning>), ImageError> {
        Self::from_image_selected(cloud, bytes, source_name, &RowSelection::All)
    }

    /// [`CloudCatalog::from_image`], decoding only the rows `selection`
    /// asks for. A narrower selection gives a catalog that is not
    /// [complete](CloudCatalog::is_complete): its regions and zones are still
    /// all of the file's.
    pub fn from_image_selected(
        cloud: CloudId,
        bytes: &[u8],
        source_name: &str,
        selection: &RowSelection,
    ) -> Result<(CloudCatalog, Vec<CatalogWarning>), ImageError> {
        let (head, stream): (Head<'_>, &[u8]) =
            postcard::take_from_bytes(bytes).map_err(|e| ImageError::Decode(e.to_string()))?;
        if head.magic != MAGIC || head.format != FORMAT {
            return Err(ImageError::Mismatch("format version"));
        }
        if head.cloud != cloud.name() {
            return Err(ImageError::Mismatch("cloud"));
        }
        let stream_len: u64 = head.runs.iter().map(|&(_, _, _, len)| u64::from(len)).sum();
        if stream_len != stream.len() as u64 {
            return Err(ImageError::Decode(
                "run lengths do not cover the rows".into(),
            ));
        }
        let text = |id: u32| -> Result<Option<&str>, ImageError> {
            match id {
                0 => Ok(None),
                id => head
                    .strings
                    .get(id as usize - 1)
                    .map(|s| Some(*s))
                    .ok_or(ImageError::Mismatch("string index")),
            }
        };
        // Which runs to decode: those selected by accelerator or by family,
        // then every run of an instance type one of those holds.
        let matcher = selection.matcher();
        let mut wanted = vec![matcher.is_all(); head.runs.len()];
        if !matcher.is_all() {
            let mut types: rustc_hash::FxHashSet<u32> = Default::default();
            for (i, &(name, it, _, _)) in head.runs.iter().enumerate() {
                if matcher.wants_accelerator(text(name)?) || matcher.wants_instance_type(text(it)?)
                {
                    wanted[i] = true;
                    if it != 0 {
                        types.insert(it);
                    }
                }
            }
            for (i, &(_, it, _, _)) in head.runs.iter().enumerate() {
                wanted[i] |= it != 0 && types.contains(&it);
            }
        }
        let mut strings = Strings::new(&head.strings);
        let mut rows: Vec<VmRow> = Vec::new();
        // The count is trusted only as far as the bytes could hold that many
        // rows (two mask bytes each).
        let total: u64 = head
            .runs
            .iter()
            .zip(&wanted)
            .filter(|(_, w)| **w)
            .map(|(&(_, _, n, _), _)| u64::from(n))
            .sum();
        rows.reserve((total as usize).min(stream.len() / 2));
        let mut offset = 0usize;
        for (&(name, it, count, len), wanted) in head.runs.iter().zip(wanted) {
            let run = &stream[offset..offset + len as usize];
            offset += len as usize;
            if !wanted {
                continue;
            }
            let first = rows.len();
            decode_run(run, count as usize, &mut strings, &mut rows)?;
            let (name, it) = (text(name)?, text(it)?);
            if rows[first..]
                .iter()
                .any(|r| r.accelerator_name.as_deref() != name || r.instance_type.as_deref() != it)
            {
                return Err(ImageError::Mismatch("run accelerator or instance type"));
            }
        }
        let schema = if head.v6 { Schema::V6 } else { Schema::V8 };
        let warnings = head
            .warnings
            .iter()
            .map(|&(line, message)| CatalogWarning {
                source_name: source_name.to_string(),
                line,
                message: message.to_string(),
            })
            .collect();
        let mut catalog = CloudCatalog::from_rows(cloud, rows, head.has_zones, schema);
        if !matcher.is_all() {
            let mut locations = Vec::with_capacity(head.locations.len());
            for &(region, zone) in &head.locations {
                let region = strings
                    .get(region)?
                    .ok_or(ImageError::Mismatch("empty region"))?;
                locations.push((region, strings.get(zone)?));
            }
            catalog.set_partial(locations);
        }
        Ok((catalog, warnings))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::disallowed_methods)] // reads a fixture
    fn every_fixture_catalog_round_trips() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/catalogs");
        for cloud in CloudId::ALL {
            let Ok(csv) = std::fs::read(dir.join(cloud.name()).join("vms.csv")) else {
                continue;
            };
            let (parsed, warnings) = CloudCatalog::from_bytes(cloud, &csv, "csv").unwrap();
            let image = parsed.to_image(&warnings);
            let (loaded, loaded_warnings) = CloudCatalog::from_image(cloud, &image, "csv").unwrap();
            assert_eq!(loaded.rows, parsed.rows, "{cloud:?}");
            assert_eq!(loaded.schema, parsed.schema);
            assert_eq!(loaded.has_zones, parsed.has_zones);
            assert_eq!(loaded_warnings, warnings);
            let mut a: Vec<_> = loaded.instance_types().collect();
            let mut b: Vec<_> = parsed.instance_types().collect();
            a.sort();
            b.sort();
            assert_eq!(a, b);
        }
    }

    #[test]
    #[allow(clippy::disallowed_methods)] // reads a fixture
    fn a_selection_decodes_exactly_the_matching_rows_in_file_order() {
        use crate::cloud::InstanceFamily;
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/catalogs");
        let selections = [
            RowSelection::accelerator("H100"),
            RowSelection::accelerator("a100"),
            {
                let mut s = RowSelection::accelerator("T4");
                s.widen(RowSelection::accelerator("L4"));
                s
            },
            RowSelection::accelerator("A100-80GB"),
            RowSelection::accelerator("no-such-gpu"),
            RowSelection::nothing(),
            RowSelection::family(InstanceFamily::Prefixes(&["m6i.", "n2-standard-", "a3-"])),
            {
                let mut s = RowSelection::accelerator("H100");
                s.widen(RowSelection::family(InstanceFamily::Prefixes(&["n1-"])));
                s
            },
            RowSelection::family(InstanceFamily::Azure(&["Ds_v5"])),
        ];
        let mut narrowed = 0;
        for cloud in CloudId::ALL {
            let Ok(csv) = std::fs::read(dir.join(cloud.name()).join("vms.csv")) else {
                continue;
            };
            let (parsed, warnings) = CloudCatalog::from_bytes(cloud, &csv, "csv").unwrap();
            let image = parsed.to_image(&warnings);
            let mut pairs: Vec<(&str, Option<&str>)> = Vec::new();
            for (r, z) in parsed.locations() {
                if !pairs.contains(&(&**r, z.map(|z| &**z))) {
                    pairs.push((r, z.map(|z| &**z)));
                }
            }
            for selection in &selections {
                let (loaded, loaded_warnings) =
                    CloudCatalog::from_image_selected(cloud, &image, "csv", selection).unwrap();
                assert_eq!(loaded_warnings, warnings);
                assert!(!loaded.is_complete());
                narrowed += 1;
                // The rows selected directly, then every row of their types.
                let matcher = selection.matcher();
                let direct = |r: &VmRow| {
                    matcher.wants_accelerator(r.accelerator_name.as_deref())
                        || matcher.wants_instance_type(r.instance_type.as_deref())
                };
                let types: Vec<&str> = parsed
                    .rows
                    .iter()
                    .filter(|r| direct(r))
                    .filter_map(|r| r.instance_type.as_deref())
                    .collect();
                let expected: Vec<&VmRow> = parsed
                    .rows
                    .iter()
                    .filter(|r| {
                        direct(r)
                            || r.instance_type
                                .as_deref()
                                .is_some_and(|t| types.contains(&t))
                    })
                    .collect();
                assert_eq!(
                    loaded.rows.iter().collect::<Vec<_>>(),
                    expected,
                    "{cloud:?} {selection:?}"
                );
                let got: Vec<(&str, Option<&str>)> = loaded
                    .locations()
                    .map(|(r, z)| (&**r, z.map(|z| &**z)))
                    .collect();
                assert_eq!(got, pairs, "{cloud:?}: every location, each once");
                assert_eq!(loaded.all_regions_lower(), parsed.all_regions_lower());
            }
        }
        assert!(narrowed > 20, "only {narrowed} selections were narrowed");
    }

    #[test]
    fn region_and_zone_validation_reads_the_whole_file_through_a_selection() {
        let csv = "InstanceType,AcceleratorName,AcceleratorCount,Price,Region,AvailabilityZone\n\
                   cpu,,,1,Us-West-2,usw2-a\n\
                   gpu,H100,8,9,us-east-1,use1-a\n\
                   gpu,H100,8,9,us-east-1,use1-b\n";
        let (parsed, _) = CloudCatalog::from_bytes(CloudId::Aws, csv.as_bytes(), "x").unwrap();
        let image = parsed.to_image(&[]);
        let selection = RowSelection::accelerator("H100");
        let (loaded, _) =
            CloudCatalog::from_image_selected(CloudId::Aws, &image, "x", &selection).unwrap();
        assert!(!loaded.is_complete());
        assert_eq!(loaded.rows.len(), 2);
        for (region, zone) in [
            (Some("us-west-2"), None),
            (Some("us-west-2"), Some("usw2-a")),
            (None, Some("usw2-a")),
            (Some("us-east-1"), Some("usw2-a")),
            (Some("eu-west-1"), None),
            (None, Some("nowhere")),
        ] {
            assert_eq!(
                loaded.validate_region_zone(region, zone),
                parsed.validate_region_zone(region, zone),
                "{region:?} {zone:?}"
            );
        }
        assert_eq!(
            loaded.validate_region_zone(Some("us-west-2"), None),
            Ok((Some("Us-West-2".to_string()), None))
        );
    }

    #[test]
    fn warnings_survive_and_take_the_current_name() {
        let csv = "InstanceType,Price,Region,vCPUs\na,1,r,2\nb,1,r,two\n";
        let (parsed, warnings) =
            CloudCatalog::from_bytes(CloudId::Lambda, csv.as_bytes(), "old").unwrap();
        assert_eq!(warnings.len(), 1);
        let image = parsed.to_image(&warnings);
        let (_, w) = CloudCatalog::from_image(CloudId::Lambda, &image, "new/vms.csv").unwrap();
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].line, 3);
        assert!(w[0].to_string().starts_with("new/vms.csv:3:"), "{}", w[0]);
    }

    #[test]
    fn truncated_foreign_or_other_cloud_images_are_rejected() {
        let csv = "InstanceType,Price,Region\na,1,r\n";
        let (parsed, _) = CloudCatalog::from_bytes(CloudId::Lambda, csv.as_bytes(), "x").unwrap();
        let image = parsed.to_image(&[]);
        for cut in [0, 1, image.len() / 2, image.len() - 1] {
            assert!(
                CloudCatalog::from_image(CloudId::Lambda, &image[..cut], "x").is_err(),
                "accepted an image cut at {cut}"
            );
        }
        assert!(matches!(
            CloudCatalog::from_image(CloudId::Runpod, &image, "x"),
            Err(ImageError::Mismatch("cloud"))
        ));
        assert!(CloudCatalog::from_image(CloudId::Lambda, csv.as_bytes(), "x").is_err());
        let mut wrong_format = image.clone();
        wrong_format[8] ^= 0x7f;
        assert!(CloudCatalog::from_image(CloudId::Lambda, &wrong_format, "x").is_err());
    }
}
