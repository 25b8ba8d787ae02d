//! The row stream of an image: each run of rows encoded against the row
//! above it ([`encode_run`]) and decoded back ([`decode_run`]).

use rustc_hash::FxHashSet;

use super::ImageError;
use super::strings::{Strings, Tables};
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
}

impl Locations {
    pub(super) fn add(&mut self, pair: (u32, u32)) {
        if self.seen.insert(pair) {
            self.pairs.push(pair);
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
    prev_numbers: [Option<f64>; NUMBER_FIELDS],
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
            prev_numbers: [None; NUMBER_FIELDS],
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
        let prev_ids = self.prev_ids;
        if ids[2] != prev_ids[2] || ids[3] != prev_ids[3] {
            locations.add((ids[2], ids[3]));
        }
        let nums = numbers(row).map(Num::get);
        let nvme = flag_byte(row.nvme_supported);
        let datacenter = flag_byte(row.datacenter);
        let mut mask = 0u16;
        for (i, (id, prev)) in ids.iter().zip(&prev_ids).enumerate() {
            if id != prev {
                mask |= 1 << i;
            }
        }
        for (i, (number, prev)) in nums.iter().zip(&self.prev_numbers).enumerate() {
            // Compare bits: -0.0 and 0.0 must both survive.
            if number.map(f64::to_bits) != prev.map(f64::to_bits) {
                mask |= 1 << (STRING_FIELDS + i);
            }
        }
        if nvme != self.prev_nvme {
            mask |= NVME_BIT;
        }
        if datacenter != self.prev_datacenter {
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
        *self = RunEncoder {
            prev_cells: addrs,
            prev_ids: ids,
            prev_numbers: nums,
            prev_nvme: nvme,
            prev_datacenter: datacenter,
        };
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

/// Decodes one run of `count` rows (its first row written in full) onto
/// `rows`; every row must have the run's instance type and accelerator
/// (string ids `it` and `name`).
pub(super) fn decode_run(
    bytes: &[u8],
    count: usize,
    (it, name): (u32, u32),
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
            None if mask & ALL_STRINGS == ALL_STRINGS
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
                    gpu_info: None,
                }
            }
            None => return Err(ImageError::Decode("first row is incomplete".into())),
        };
        if mask >> (STRING_FIELDS + NUMBER_FIELDS + 2) != 0 {
            return Err(ImageError::Decode(format!("row {index}: unknown fields")));
        }
        if mask & 1 != 0 {
            if reader.leb128()? != it {
                return Err(ImageError::Mismatch("run instance type"));
            }
            row.instance_type = strings.get(it)?;
        }
        if mask & 1 << 1 != 0 {
            if reader.leb128()? != name {
                return Err(ImageError::Mismatch("run accelerator"));
            }
            row.accelerator_name = strings.get(name)?;
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
        if mask & 1 << GPU_INFO != 0 {
            row.gpu_info = strings.gpu_info(reader.leb128()?)?;
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
