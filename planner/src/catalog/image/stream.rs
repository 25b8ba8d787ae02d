//! The row stream of an image: each run of rows encoded against the row
//! above it ([`encode_run`]) and decoded back ([`decode_run`]).

use rustc_hash::FxHashSet;

use super::strings::{Strings, Tables};
use super::{ImageError, ImageWriter, OpenRun};
use crate::catalog::row::Fields;
use crate::catalog::row_parser::{PieceStrings, RawRow};
use crate::catalog::{Num, Text, VmRow};

/// The row stream: each row is a little-endian `u16` mask of the fields that
/// differ from the row before it in its run (bit order: the
/// [`STRING_FIELDS`] string ids of [`string_cells`], then the seven numbers,
/// then the NVMe flag, then the datacenter flag), followed by just those
/// values — string ids as LEB128, numbers as `f64` LE (`NaN` = empty), each
/// flag as a byte (0 empty, 1 false, 2 true). Catalogs repeat most fields
/// from row to row (one row per zone of an instance type), so a row is a
/// dozen bytes and decoding one is mostly a clone of the previous.
const STRING_FIELDS: usize = 6;
/// The `GpuInfo` field: its ids number the cells after the row stream.
const GPU_INFO: usize = 5;
const ALL_STRINGS: u16 = (1 << STRING_FIELDS) - 1;
const NUMBER_FIELDS: usize = 7;
const NVME_BIT: u16 = 1 << (STRING_FIELDS + NUMBER_FIELDS);
const DATACENTER_BIT: u16 = NVME_BIT << 1;

/// A row's string cells in stream order: instance type, accelerator,
/// region, zone, disk type, `GpuInfo`.
fn string_cells(row: &VmRow) -> [Option<&Text>; STRING_FIELDS] {
    [
        row.instance_type.as_ref(),
        row.accelerator_name.as_ref(),
        Some(&row.region),
        row.zone.as_ref(),
        row.local_disk_type.as_ref(),
        row.gpu_info.as_ref(),
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

/// Every distinct (region, zone) id pair, in order of first appearance.
#[derive(Default)]
pub(super) struct Locations {
    pub(super) pairs: Vec<(u32, u32)>,
    seen: FxHashSet<(u32, u32)>,
    /// By zone id: the region of the last pair added with that zone (0:
    /// none yet). A catalog's zone is in one region, so most rows' pair is
    /// known by one comparison, without hashing (zones change nearly every
    /// row). (A file without zones has zone 0 in every region: its pairs
    /// are met once a run of rows, and hashed.)
    region_of_zone: Vec<u32>,
}

impl Locations {
    /// Adds `pair` (region id, zone id; 0 for none) unless it was added
    /// before.
    #[inline(always)]
    pub(super) fn add(&mut self, pair: (u32, u32)) {
        let (region, zone) = pair;
        if region == 0 || self.region_of_zone.get(zone as usize) != Some(&region) {
            self.add_unknown(pair);
        }
    }

    /// A pair not known by its zone: maybe new.
    #[inline(never)]
    fn add_unknown(&mut self, pair: (u32, u32)) {
        let (region, zone) = pair;
        if self.seen.insert(pair) {
            self.pairs.push(pair);
        }
        if region != 0 {
            let i = zone as usize;
            if i >= self.region_of_zone.len() {
                self.region_of_zone.resize(i + 1, 0);
            }
            self.region_of_zone[i] = region;
        }
    }
}

/// Encodes the rows of one run, one at a time; the first row is written in
/// full. Each row's (region, zone) ids not seen before go onto `locations`.
pub(super) struct RunEncoder {
    /// The addresses of the previous row's strings ([`Text::addr`], 0 for
    /// none), valid only while that row is alive: see
    /// [`RunEncoder::forget_cells`].
    prev_cells: [usize; STRING_FIELDS],
    prev_ids: [u32; STRING_FIELDS],
    /// The previous row's numbers' bits (an empty cell's: `NaN`'s).
    prev_numbers: [u64; NUMBER_FIELDS],
    prev_nvme: u8,
    prev_datacenter: u8,
}

impl RunEncoder {
    /// A run's encoder: its first row differs from an imaginary all-empty
    /// row in every field.
    pub(super) fn new() -> RunEncoder {
        RunEncoder {
            prev_cells: [0; STRING_FIELDS],
            prev_ids: [u32::MAX; STRING_FIELDS],
            prev_numbers: [f64::NAN.to_bits(); NUMBER_FIELDS],
            prev_nvme: u8::MAX,
            prev_datacenter: u8::MAX,
        }
    }

    /// Forgets the previous row's string addresses: called when that row
    /// may be dropped (its addresses may then be reused by other strings).
    pub(super) fn forget_cells(&mut self) {
        self.prev_cells = [0; STRING_FIELDS];
    }

    /// Writes `row` onto `out`.
    pub(super) fn row(
        &mut self,
        row: &VmRow,
        tables: &mut Tables,
        locations: &mut Locations,
        out: &mut Vec<u8>,
    ) {
        let cells = string_cells(row);
        let addrs = cells.map(|c| c.map_or(0, Text::addr));
        let mut ids = [0u32; STRING_FIELDS];
        for (i, cell) in cells.iter().enumerate() {
            ids[i] = match cell {
                // Strings are shared by the rows that hold them: the cell
                // above, by address, is most cells' id without a lookup.
                Some(_) if addrs[i] == self.prev_cells[i] => self.prev_ids[i],
                _ if i == GPU_INFO => tables.gpu_info.id(*cell),
                _ => tables.strings.id(*cell),
            };
        }
        self.encode(
            addrs,
            ids,
            numbers(row).map(Num::get),
            flag_byte(row.nvme_supported),
            flag_byte(row.datacenter),
            locations,
            out,
        );
    }

    /// Writes a row whose string ids (`ids`, the image's) are known.
    #[inline]
    fn raw_row(
        &mut self,
        ids: [u32; STRING_FIELDS],
        row: &RawRow,
        locations: &mut Locations,
        out: &mut Vec<u8>,
    ) {
        self.encode(
            [0; STRING_FIELDS],
            ids,
            row.numbers.map(Num::get),
            row.nvme,
            row.datacenter,
            locations,
            out,
        );
    }

    /// Writes a row of these string ids, numbers and flags; `addrs` are
    /// its strings' addresses (0: unknown). The row is put together in a
    /// buffer on the stack and added to `out` at once (a push a value
    /// checked `out`'s room each time).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn encode(
        &mut self,
        addrs: [usize; STRING_FIELDS],
        ids: [u32; STRING_FIELDS],
        nums: [Option<f64>; NUMBER_FIELDS],
        nvme: u8,
        datacenter: u8,
        locations: &mut Locations,
        out: &mut Vec<u8>,
    ) {
        let prev_ids = self.prev_ids;
        if ids[2] != prev_ids[2] || ids[3] != prev_ids[3] {
            locations.add((ids[2], ids[3]));
        }
        // The mask, then at most six 5-byte ids, seven numbers, two flags.
        let mut buf = [0u8; 2 + STRING_FIELDS * 5 + NUMBER_FIELDS * 8 + 2];
        let mut len = 2;
        let mut mask = 0u16;
        for (i, (&id, &prev)) in ids.iter().zip(&prev_ids).enumerate() {
            if id != prev {
                mask |= 1 << i;
                let mut v = id;
                while v >= 0x80 {
                    buf[len] = (v & 0x7f) as u8 | 0x80;
                    v >>= 7;
                    len += 1;
                }
                buf[len] = v as u8;
                len += 1;
            }
        }
        // Compare bits: -0.0 and 0.0 must both survive; empty is NaN's.
        let bits = nums.map(|n| n.unwrap_or(f64::NAN).to_bits());
        for (i, (&number, &prev)) in bits.iter().zip(&self.prev_numbers).enumerate() {
            if number != prev {
                mask |= 1 << (STRING_FIELDS + i);
                buf[len..len + 8].copy_from_slice(&number.to_le_bytes());
                len += 8;
            }
        }
        if nvme != self.prev_nvme {
            mask |= NVME_BIT;
            buf[len] = nvme;
            len += 1;
        }
        if datacenter != self.prev_datacenter {
            mask |= DATACENTER_BIT;
            buf[len] = datacenter;
            len += 1;
        }
        buf[..2].copy_from_slice(&mask.to_le_bytes());
        // The whole buffer, then cut to the row: a copy of a known size is
        // a few moves, not a call to `memcpy`.
        let at = out.len();
        out.extend_from_slice(&buf);
        out.truncate(at + len);
        self.prev_cells = addrs;
        self.prev_ids = ids;
        self.prev_numbers = bits;
        self.prev_nvme = nvme;
        self.prev_datacenter = datacenter;
    }
}

/// Not yet given an image id (a piece's string ids are mapped when first met).
const UNMAPPED: u32 = u32::MAX;

impl ImageWriter {
    /// Writes `rows` (which follow the rows written before), parsed with
    /// their strings in `strings`: each of the piece's strings is given
    /// its image id once, when first met, so that ids are given in the
    /// order [`ImageWriter::push_rows`] gives them and the image is the
    /// same byte for byte.
    pub(in crate::catalog) fn push_piece(&mut self, rows: &[RawRow], strings: &PieceStrings) {
        let mut map = vec![UNMAPPED; strings.strings.len() + 1];
        let mut gpu_map = vec![UNMAPPED; strings.gpu_info.len() + 1];
        map[0] = 0;
        gpu_map[0] = 0;
        for row in rows {
            let mut ids = [0u32; STRING_FIELDS];
            // The accelerator first, then the instance type (a run's ids,
            // in the order a run opening gives them), then the others.
            for i in [1, 0, 2, 3, 4] {
                let local = row.cells[i] as usize;
                if map[local] == UNMAPPED {
                    map[local] = self
                        .tables
                        .strings
                        .id_str(strings.strings.get(row.cells[i]));
                }
                ids[i] = map[local];
            }
            let local = row.cells[GPU_INFO] as usize;
            if gpu_map[local] == UNMAPPED {
                gpu_map[local] = self
                    .tables
                    .gpu_info
                    .id_str(strings.gpu_info.get(row.cells[GPU_INFO]));
            }
            ids[GPU_INFO] = gpu_map[local];
            let (name_id, it_id) = (ids[1], ids[0]);
            match &mut self.run {
                Some(run) if run.ids == (name_id, it_id) => {}
                open => {
                    if let Some(done) = open.take() {
                        self.runs.extend([
                            done.ids.0,
                            done.ids.1,
                            done.rows,
                            (self.stream.len() - done.start) as u32,
                        ]);
                    }
                    *open = Some(OpenRun {
                        name: self.tables.strings.text(name_id),
                        it: self.tables.strings.text(it_id),
                        ids: (name_id, it_id),
                        start: self.stream.len(),
                        rows: 0,
                        encoder: RunEncoder::new(),
                    });
                }
            }
            if let Some(run) = &mut self.run {
                run.encoder
                    .raw_row(ids, row, &mut self.locations, &mut self.stream);
                run.rows += 1;
            }
        }
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

    /// A LEB128 string id: most are below 128, one byte (read inline); the
    /// longer ones go through [`RowReader::leb128_long`].
    #[inline]
    fn leb128(&mut self) -> Result<u32, ImageError> {
        match self.bytes.split_first() {
            Some((&byte, rest)) if byte & 0x80 == 0 => {
                self.bytes = rest;
                Ok(u32::from(byte))
            }
            _ => self.leb128_long(),
        }
    }

    #[inline(never)]
    fn leb128_long(&mut self) -> Result<u32, ImageError> {
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

/// Decodes one run of `count` rows (its first row written in full) onto
/// `rows`; every row must have the run's instance type and accelerator
/// (string ids `it` and `name`). Each row is built field by field from the
/// row above and the fields that differ (no string is cloned only to be
/// replaced).
pub(super) fn decode_run(
    bytes: &[u8],
    count: usize,
    (it, name): (u32, u32),
    strings: &mut Strings<'_>,
    rows: &mut Vec<VmRow>,
) -> Result<(), ImageError> {
    let start = rows.len();
    let mut reader = RowReader { bytes };
    for index in 0..count {
        let mask = u16::from_le_bytes(reader.take::<2>()?);
        if mask >> (STRING_FIELDS + NUMBER_FIELDS + 2) != 0 {
            return Err(ImageError::Decode(format!("row {index}: unknown fields")));
        }
        let prev = if rows.len() > start {
            rows.last()
        } else {
            None
        };
        if prev.is_none()
            && (mask & ALL_STRINGS != ALL_STRINGS
                || mask & NVME_BIT == 0
                || mask & DATACENTER_BIT == 0)
        {
            return Err(ImageError::Decode("first row is incomplete".into()));
        }
        let changed = |bit: u16| mask & bit != 0;
        // A string field: decoded when it changed, else the row above's
        // (there is one: a first row changes every field).
        macro_rules! field {
            ($bit:expr, $name:ident, $decode:expr) => {
                match prev {
                    Some(prev) if !changed($bit) => prev.$name.clone(),
                    _ => $decode,
                }
            };
        }
        let instance_type = field!(1, instance_type, {
            if reader.leb128()? != it {
                return Err(ImageError::Mismatch("run instance type"));
            }
            strings.get(it)?
        });
        let accelerator_name = field!(1 << 1, accelerator_name, {
            if reader.leb128()? != name {
                return Err(ImageError::Mismatch("run accelerator"));
            }
            strings.get(name)?
        });
        let region = field!(
            1 << 2,
            region,
            strings
                .get(reader.leb128()?)?
                .ok_or(ImageError::Mismatch("empty region"))?
        );
        let zone = field!(1 << 3, zone, strings.get(reader.leb128()?)?);
        let local_disk_type = field!(1 << 4, local_disk_type, strings.get(reader.leb128()?)?);
        let gpu_info = field!(1 << GPU_INFO, gpu_info, strings.gpu_info(reader.leb128()?)?);
        let mut numbers = prev.map_or([Num::EMPTY; NUMBER_FIELDS], numbers);
        for (i, number) in numbers.iter_mut().enumerate() {
            if changed(1 << (STRING_FIELDS + i)) {
                *number = Num(f64::from_le_bytes(reader.take::<8>()?));
            }
        }
        let flag = |reader: &mut RowReader<'_>, what| match reader.take::<1>()? {
            [0] => Ok(None),
            [1] => Ok(Some(false)),
            [2] => Ok(Some(true)),
            _ => Err(ImageError::Mismatch(what)),
        };
        let nvme_supported = match prev {
            Some(prev) if !changed(NVME_BIT) => prev.nvme_supported,
            _ => flag(&mut reader, "NVMe flag")?,
        };
        let datacenter = match prev {
            Some(prev) if !changed(DATACENTER_BIT) => prev.datacenter,
            _ => flag(&mut reader, "datacenter flag")?,
        };
        rows.push(VmRow::from_fields(Fields {
            instance_type,
            accelerator_name,
            region,
            zone,
            local_disk_type,
            gpu_info,
            numbers,
            nvme_supported,
            datacenter,
        }));
    }
    if !reader.bytes.is_empty() {
        return Err(ImageError::Decode("a run has trailing bytes".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Locations;

    /// Pairs in order of first appearance, each once: a zone met again in
    /// its region, a zone in two regions, the empty region (0) and zone.
    #[test]
    fn locations_are_each_distinct_pair_once_in_order() {
        let mut locations = Locations::default();
        let added = [
            (1, 5),
            (1, 6),
            (1, 5),
            (2, 5),
            (1, 5),
            (2, 5),
            (0, 5),
            (0, 5),
            (3, 0),
            (3, 0),
            (4, 0),
            (1, 6),
            (2, 9),
            (1, 9),
            (0, 7),
            (0, 7),
        ];
        for pair in added {
            locations.add(pair);
        }
        assert_eq!(
            locations.pairs,
            [
                (1, 5),
                (1, 6),
                (2, 5),
                (0, 5),
                (3, 0),
                (4, 0),
                (2, 9),
                (1, 9),
                (0, 7)
            ]
        );
    }
}
