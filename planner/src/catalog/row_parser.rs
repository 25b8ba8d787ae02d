//! A `vms.csv` record made a [`VmRow`] — or, for an image, a [`RawRow`]
//! whose strings are ids into tables of the piece being parsed
//! ([`PieceStrings`]: nothing is allocated or shared per cell, and the image
//! writer maps each piece's ids once) —: fields found by header position,
//! trimmed and unescaped; strings interned; numbers parsed once per distinct
//! cell and bounded; a field that repeats the row above reuses its value.
//! Beside the rows it keeps what pandas would infer of the number columns
//! (integer or float, [`Columns`](super::Columns)).

use std::borrow::Cow;
use std::num::NonZeroU32;

use rustc_hash::FxHashMap;

use super::csv_parse::split::Record;
use super::row::{Fields, Num};
use super::{NUMBER_COLUMNS, Text, VmRow};

/// Where each column a row reads sits in the header.
#[derive(Clone, Copy)]
pub(super) struct RowColumns {
    pub(super) instance: usize,
    pub(super) region: usize,
    pub(super) price: usize,
    pub(super) acc_name: Option<usize>,
    pub(super) acc_count: Option<usize>,
    pub(super) vcpus: Option<usize>,
    pub(super) mem: Option<usize>,
    pub(super) spot: Option<usize>,
    pub(super) zone: Option<usize>,
    pub(super) disk_type: Option<usize>,
    pub(super) nvme: Option<usize>,
    pub(super) disk_size: Option<usize>,
    pub(super) disk_count: Option<usize>,
    pub(super) hosting_type: Option<usize>,
    pub(super) gpu_info: Option<usize>,
}

/// The trimmed, unescaped bytes of a field; `None` when the column is absent
/// from the header or the field is empty.
#[inline(always)]
fn field_bytes<'r>(
    record: &'r Record<'_>,
    col: Option<usize>,
) -> Result<Option<Cow<'r, [u8]>>, String> {
    let Some(col) = col else { return Ok(None) };
    let Some(raw) = record.get(col) else {
        return Err(short_record(record, col));
    };
    let bytes = match raw {
        [b'"', ..] => unescaped(record, col),
        // Most cells have nothing to trim: tell that from their two ends
        // (`trim_ascii` is a call and two loops per cell).
        [first, .., last] if !first.is_ascii_whitespace() && !last.is_ascii_whitespace() => {
            Cow::Borrowed(raw)
        }
        [only] if !only.is_ascii_whitespace() => Cow::Borrowed(raw),
        _ => Cow::Borrowed(raw.trim_ascii()),
    };
    Ok(if bytes.is_empty() { None } else { Some(bytes) })
}

/// Why a record has no field `col`.
#[inline(never)]
fn short_record(record: &Record<'_>, col: usize) -> String {
    format!(
        "expected at least {} fields, found {}",
        col + 1,
        record.len()
    )
}

/// A quoted field, unescaped and trimmed (kept out of [`field_bytes`],
/// which is inlined for every field).
#[inline(never)]
fn unescaped<'r>(record: &'r Record<'_>, col: usize) -> Cow<'r, [u8]> {
    match record.unescape(col) {
        Some(Cow::Owned(v)) => Cow::Owned(v.trim_ascii().to_vec()),
        Some(Cow::Borrowed(b)) => Cow::Borrowed(b.trim_ascii()),
        None => Cow::Borrowed(&[][..]),
    }
}

/// Byte equality of two fields, a word at a time. `==` on slices calls
/// libc's `memcmp`, whose AVX-512 variant does a masked load that profiles
/// at ~40 ns per call on this VM: ~40 % of parsing a large `vms.csv`, where
/// every field is compared with the previous row's; a byte loop costs ~4
/// instructions a byte (a `GpuInfo` cell is ~130).
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 8 {
        return short_key(a) == short_key(b);
    }
    // Whole words, the last one overlapping the one before.
    let mut i = 0;
    while i + 8 < n {
        if word(a, i) != word(b, i) {
            return false;
        }
        i += 8;
    }
    word(a, n - 8) == word(b, n - 8)
}

/// The eight bytes of `s` at `i` (which has them) as a word.
#[inline(always)]
fn word(s: &[u8], i: usize) -> u64 {
    s.get(i..i + 8)
        .and_then(|w| w.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

/// The bytes of a field shorter than eight as a word (with its length,
/// it tells the field apart from every other of that length).
#[inline(always)]
fn short_key(s: &[u8]) -> u64 {
    let four = |i: usize| {
        s.get(i..i + 4)
            .and_then(|w| w.try_into().ok())
            .map_or(0, u32::from_le_bytes)
    };
    match s.len() {
        // The first four and the last four, overlapping.
        n @ 4.. => u64::from(four(0)) | u64::from(four(n - 4)) << 32,
        _ => s
            .iter()
            .enumerate()
            .fold(0, |key, (i, &b)| key | u64::from(b) << (8 * i)),
    }
}

/// A field's bytes as (length, first word, last word): equal for two fields
/// of at most 16 bytes exactly when their bytes are (longer ones have none).
#[inline(always)]
fn number_key(s: &[u8]) -> Option<(usize, u64, u64)> {
    match s.len() {
        n @ 0..8 => Some((n, short_key(s), 0)),
        n @ 8..=16 => Some((n, word(s, 0), word(s, n - 8))),
        _ => None,
    }
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
    /// The previous cell's [`number_key`] and value (none after a cell
    /// longer than a key holds).
    last: Option<((usize, u64, u64), Option<f64>)>,
    /// Whether every cell so far is an integer (pandas' `int64` inference:
    /// an empty cell makes the column float).
    integer: bool,
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
            last: None,
            integer: true,
        }
    }

    /// Counts a cell of a row that is skipped towards the column's
    /// integer-ness (pandas reads every row).
    fn note_skipped(&mut self, record: &Record<'_>) {
        let bytes = field_bytes(record, self.col).ok().flatten();
        self.integer &= is_integer(bytes.as_deref().unwrap_or_default());
    }

    // Inlined into `RowParser::fill` for each of its seven columns: as a
    // call, its prologue, epilogue and the returned `Result` in memory
    // cost ~18 of the ~120 instructions a cell takes.
    #[inline(always)]
    fn parse(&mut self, record: &Record<'_>) -> Result<Option<f64>, String> {
        let bytes = field_bytes(record, self.col)?;
        let bytes: &[u8] = bytes.as_deref().unwrap_or_default();
        let key = number_key(bytes);
        if let (Some((last, value)), Some(key)) = (self.last, key)
            && last == key
        {
            return Ok(value);
        }
        let (integer, plain) = integer_and_plain(bytes);
        self.integer &= integer;
        let value = if bytes.is_empty() {
            None
        } else if let Some(v) = plain.filter(|v| *v <= self.max) {
            Some(v)
        } else {
            return self.parse_other(bytes, key);
        };
        self.last = key.map(|key| (key, value));
        Ok(value)
    }

    /// A cell that is no plain decimal within bounds: `str::parse`, and
    /// why it is refused (kept out of [`NumberColumn::parse`], which is
    /// inlined for every number cell).
    #[inline(never)]
    fn parse_other(
        &mut self,
        bytes: &[u8],
        key: Option<(usize, u64, u64)>,
    ) -> Result<Option<f64>, String> {
        let value = {
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
        self.last = key.map(|key| (key, value));
        Ok(value)
    }
}

/// Whether a cell is an integer as pandas' `read_csv` infers `int64`:
/// an optional sign and digits (an empty cell is missing, which makes the
/// column float).
fn is_integer(bytes: &[u8]) -> bool {
    let digits = match bytes {
        [b'+' | b'-', rest @ ..] => rest,
        _ => bytes,
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return false;
    }
    // At most 18 digits always fit; longer ones are checked against the range.
    digits.len() <= 18 || std::str::from_utf8(bytes).is_ok_and(|t| t.parse::<i64>().is_ok())
}

/// [`is_integer`] and [`plain_decimal`] of a cell, in one pass over the
/// digits of the usual cell (up to 16 bytes of digits and at most one
/// dot); any other cell is asked of both.
#[inline]
fn integer_and_plain(bytes: &[u8]) -> (bool, Option<f64>) {
    const POW10: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    let general = || (is_integer(bytes), plain_decimal(bytes));
    if bytes.is_empty() || bytes.len() > 16 {
        return general();
    }
    let mut mantissa = 0u64;
    let mut dot = None;
    for (i, &b) in bytes.iter().enumerate() {
        let digit = b.wrapping_sub(b'0');
        if digit < 10 {
            // At most 16 digits: no overflow.
            mantissa = mantissa * 10 + u64::from(digit);
        } else if b == b'.' && dot.is_none() {
            dot = Some(i);
        } else {
            return general();
        }
    }
    match dot {
        // Digits only (at most 16): an integer; a plain decimal up to 15.
        None => (true, (bytes.len() <= 15).then_some(mantissa as f64)),
        // `.5` is no plain decimal; the digits are the length less the dot.
        Some(0) => (false, None),
        Some(at) => {
            let frac = bytes.len() - at - 1;
            (
                false,
                (bytes.len() - 1 <= 15).then(|| mantissa as f64 / POW10[frac]),
            )
        }
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

/// Where a [`RowParser`] keeps the strings of its cells: shared [`Text`]s
/// for rows ([`Texts`]), or ids into tables of the piece being parsed for
/// an image ([`PieceStrings`]: no string is shared between threads, and
/// the image writer maps each piece's ids once, not each cell).
pub(super) trait CellStore: Default {
    /// A string cell.
    type Cell: Clone;
    /// What the parser makes of a record.
    type Row;
    /// The bytes `cell` (of the `GpuInfo` table when `gpu`) holds, as made
    /// (a lenient cell's lossy text).
    fn bytes<'s>(&'s self, gpu: bool, cell: &'s Self::Cell) -> &'s [u8];
    /// The cell of `bytes` (field `col`; `lenient`: not UTF-8 is read
    /// lossily instead of refused), made on first sight.
    fn intern(
        &mut self,
        gpu: bool,
        bytes: &[u8],
        col: usize,
        lenient: bool,
    ) -> Result<Self::Cell, String>;
    /// A cell to hold a place until a record's is made (never read).
    fn placeholder() -> Self::Cell;
    /// The empty region's cell (see [`RowParser::fill`]).
    fn empty_region(&mut self) -> Self::Cell;
    /// A record's fields made the row.
    fn row(fields: &Fields<Self::Cell>) -> Self::Row;
}

/// One shared [`Text`] per distinct string: catalogs repeat instance
/// types, regions and zones thousands of times, and cloning a `Text`
/// (zone-mapping join, candidates) is a counter bump.
#[derive(Default)]
pub(super) struct Texts {
    /// The strings, then the `GpuInfo` cells, by their bytes.
    maps: [FxHashMap<Box<[u8]>, Text>; 2],
    empty: Option<Text>,
}

impl CellStore for Texts {
    type Cell = Text;
    type Row = VmRow;

    fn placeholder() -> Text {
        Text::from("")
    }

    #[inline(always)]
    fn bytes<'s>(&'s self, _gpu: bool, cell: &'s Text) -> &'s [u8] {
        cell.as_bytes()
    }

    // Kept out of `Interner::parse`, which is inlined for every cell.
    #[inline(never)]
    fn intern(
        &mut self,
        gpu: bool,
        bytes: &[u8],
        col: usize,
        lenient: bool,
    ) -> Result<Text, String> {
        let map = &mut self.maps[usize::from(gpu)];
        if let Some(v) = map.get(bytes) {
            return Ok(v.clone());
        }
        let v: Text = match text(bytes, col) {
            Err(_) if lenient => Text::from(&*String::from_utf8_lossy(bytes)),
            other => Text::from(other?),
        };
        map.insert(bytes.into(), v.clone());
        Ok(v)
    }

    fn empty_region(&mut self) -> Text {
        self.empty.get_or_insert_with(|| Text::from("")).clone()
    }

    #[inline(always)]
    fn row(f: &Fields<Text>) -> VmRow {
        VmRow::from_fields(f.clone())
    }
}

/// A row parsed for an image ([`PieceStrings`]): its string cells as ids
/// into its piece's tables (0: empty) in the image's order — instance
/// type, accelerator, region, zone, disk type, `GpuInfo` —, its numbers,
/// and its NVMe and datacenter flags as the image writes them (0 empty,
/// 1 false, 2 true). No string is allocated or shared per cell.
#[derive(Clone, Copy)]
pub(super) struct RawRow {
    pub(super) cells: [u32; 6],
    pub(super) numbers: [Num; NUMBER_COLUMNS.len()],
    pub(super) nvme: u8,
    pub(super) datacenter: u8,
}

/// The distinct strings of one piece of a file, numbered from 1 in order
/// of first sight (0: an empty cell), packed back to back.
#[derive(Default)]
pub(super) struct LocalTable {
    text: String,
    /// Where string `i + 1` ends in `text`.
    ends: Vec<u32>,
    /// Strings of at most 16 bytes by their [`number_key`] (no allocation,
    /// no byte comparison), longer ones by their bytes.
    short_ids: FxHashMap<(usize, u64, u64), NonZeroU32>,
    ids: FxHashMap<Box<[u8]>, NonZeroU32>,
}

impl LocalTable {
    /// How many strings there are.
    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    /// String `id` (from 1).
    #[inline]
    pub(super) fn get(&self, id: u32) -> &str {
        let i = id as usize - 1;
        let start = i.checked_sub(1).map_or(0, |j| self.ends[j] as usize);
        &self.text[start..self.ends[i] as usize]
    }

    fn add(&mut self, key: &[u8], text: &str) -> NonZeroU32 {
        self.text.push_str(text);
        // A piece's text is far below 4 GiB (files are capped well below).
        self.ends.push(self.text.len() as u32);
        // The table's length, now at least one.
        let id = NonZeroU32::MIN.saturating_add(self.ends.len() as u32 - 1);
        match number_key(key) {
            Some(short) => self.short_ids.insert(short, id),
            None => self.ids.insert(key.into(), id),
        };
        id
    }

    fn clear(&mut self) {
        self.text.clear();
        self.ends.clear();
        self.short_ids.clear();
        self.ids.clear();
    }
}

/// The strings of a piece parsed for an image: its rows' cells are ids
/// into these tables ([`super::image`] maps them to the image's ids once
/// per piece).
#[derive(Default)]
pub(super) struct PieceStrings {
    /// Every string but `GpuInfo`.
    pub(super) strings: LocalTable,
    /// `GpuInfo` cells.
    pub(super) gpu_info: LocalTable,
}

impl PieceStrings {
    fn table(&self, gpu: bool) -> &LocalTable {
        if gpu { &self.gpu_info } else { &self.strings }
    }

    /// Empties the tables (their ids are of the piece just written).
    pub(super) fn clear(&mut self) {
        self.strings.clear();
        self.gpu_info.clear();
    }
}

/// A piece's string cells are ids from 1: an empty cell (`None`) is the
/// same 32 bits as id 0, which is what [`RawRow`] writes for it.
impl CellStore for PieceStrings {
    type Cell = NonZeroU32;
    type Row = RawRow;

    #[inline(always)]
    fn bytes<'s>(&'s self, gpu: bool, cell: &'s NonZeroU32) -> &'s [u8] {
        self.table(gpu).get(cell.get()).as_bytes()
    }

    fn placeholder() -> NonZeroU32 {
        NonZeroU32::MIN
    }

    #[inline(never)]
    fn intern(
        &mut self,
        gpu: bool,
        bytes: &[u8],
        col: usize,
        lenient: bool,
    ) -> Result<NonZeroU32, String> {
        let table = if gpu {
            &mut self.gpu_info
        } else {
            &mut self.strings
        };
        let known = match number_key(bytes) {
            Some(short) => table.short_ids.get(&short),
            None => table.ids.get(bytes),
        };
        if let Some(&id) = known {
            return Ok(id);
        }
        Ok(match text(bytes, col) {
            Err(_) if lenient => table.add(bytes, &String::from_utf8_lossy(bytes)),
            other => table.add(bytes, other?),
        })
    }

    fn empty_region(&mut self) -> NonZeroU32 {
        match self.strings.short_ids.get(&(0, 0, 0)) {
            Some(&id) => id,
            None => self.strings.add(b"", ""),
        }
    }

    #[inline(always)]
    fn row(f: &Fields<NonZeroU32>) -> RawRow {
        let flag = |v: Option<bool>| match v {
            None => 0,
            Some(false) => 1,
            Some(true) => 2,
        };
        RawRow {
            cells: [
                f.instance_type.map_or(0, NonZeroU32::get),
                f.accelerator_name.map_or(0, NonZeroU32::get),
                f.region.get(),
                f.zone.map_or(0, NonZeroU32::get),
                f.local_disk_type.map_or(0, NonZeroU32::get),
                f.gpu_info.map_or(0, NonZeroU32::get),
            ],
            numbers: f.numbers,
            nvme: flag(f.nvme_supported),
            datacenter: flag(f.datacenter),
        }
    }
}

/// One string column: the previous cell is reused when its bytes repeat
/// (rows come grouped by instance type and region), else the store makes it.
struct Interner<C> {
    col: Option<usize>,
    last: Option<C>,
    /// `last`'s [`number_key`], when it has one: most cells are compared
    /// with the one above without reading the store.
    last_key: Option<(usize, u64, u64)>,
    /// The `GpuInfo` column, a column no launch query reads: a field that
    /// is missing (a short row) is empty and one that is not UTF-8 is read
    /// lossily, so that it never costs the launch a row.
    gpu: bool,
}

impl<C: Clone> Interner<C> {
    fn new(col: Option<usize>) -> Self {
        Interner {
            col,
            last: None,
            last_key: None,
            gpu: false,
        }
    }

    fn gpu_info(col: Option<usize>) -> Self {
        Interner {
            gpu: true,
            ..Interner::new(col)
        }
    }

    #[inline(always)]
    fn parse<S: CellStore<Cell = C>>(
        &mut self,
        record: &Record<'_>,
        store: &mut S,
    ) -> Result<Option<C>, String> {
        let bytes = match field_bytes(record, self.col) {
            Err(_) if self.gpu => None,
            other => other?,
        };
        let Some(bytes) = bytes else {
            return Ok(None);
        };
        let key = number_key(&bytes);
        if let Some(last) = &self.last {
            let same = match (key, self.last_key) {
                (Some(key), Some(last_key)) => key == last_key,
                (Some(_), None) | (None, Some(_)) => false,
                (None, None) => same_bytes(store.bytes(self.gpu, last), &bytes),
            };
            if same {
                return Ok(Some(last.clone()));
            }
        }
        let value = store.intern(self.gpu, &bytes, self.col.unwrap_or(0), self.gpu)?;
        self.last = Some(value.clone());
        // The key of the bytes the store made the cell of: a lenient cell
        // (not UTF-8, made lossily) keeps none, so that it is compared
        // by what it holds, as before.
        self.last_key = if !self.gpu || store.bytes(self.gpu, &value) == &*bytes {
            key
        } else {
            None
        };
        Ok(Some(value))
    }
}

/// Turns records into rows ([`VmRow`]s, or [`RawRow`]s for an image), one
/// parser state per column.
pub(super) struct RowParser<S: CellStore = Texts> {
    store: S,
    nvme: Option<usize>,
    instance: Interner<S::Cell>,
    accelerator: Interner<S::Cell>,
    region: Interner<S::Cell>,
    zone: Interner<S::Cell>,
    disk_type: Interner<S::Cell>,
    gpu_info: Interner<S::Cell>,
    acc_count: NumberColumn,
    vcpus: NumberColumn,
    mem: NumberColumn,
    price: NumberColumn,
    spot: NumberColumn,
    disk_size: NumberColumn,
    disk_count: NumberColumn,
    hosting_type: Option<NumberColumn>,
    /// The fields of the last record parsed (blank before the first), each
    /// record's made over them in place: a field the splitter says repeats
    /// the previous record's ([`Record::repeating`]) is left as it is.
    fields: Fields<S::Cell>,
    /// Whether `fields` are the previous record's, which made a row (not
    /// after a record that was skipped, nor after [`RowParser::forget_strings`]).
    fields_valid: bool,
    /// Each column's bit in [`Record::repeating`].
    bits: ColumnBits,
}

/// Parses a number cell into `cell`, unless it `repeats` the row above's.
#[inline(always)]
fn number_cell(
    column: &mut NumberColumn,
    cell: &mut Num,
    repeats: bool,
    record: &Record<'_>,
) -> Result<(), String> {
    if !repeats {
        *cell = column.parse(record)?.into();
    }
    Ok(())
}

/// The bit of each column a row reads in [`Record::repeating`] (0 for a
/// column the header lacks or past the 64th: such a field is always read).
struct ColumnBits {
    instance: u64,
    region: u64,
    accelerator: u64,
    zone: u64,
    disk_type: u64,
    gpu_info: u64,
    nvme: u64,
    hosting_type: u64,
    /// In [`NUMBER_COLUMNS`] order.
    numbers: [u64; NUMBER_COLUMNS.len()],
}

impl ColumnBits {
    /// The bits of the columns where `c` has them.
    fn new(c: &RowColumns) -> ColumnBits {
        let bit = |col: Option<usize>| col.filter(|&i| i < 64).map_or(0, |i| 1u64 << i);
        ColumnBits {
            instance: bit(Some(c.instance)),
            region: bit(Some(c.region)),
            accelerator: bit(c.acc_name),
            zone: bit(c.zone),
            disk_type: bit(c.disk_type),
            gpu_info: bit(c.gpu_info),
            nvme: bit(c.nvme),
            hosting_type: bit(c.hosting_type),
            numbers: [
                c.acc_count,
                c.vcpus,
                c.mem,
                Some(c.price),
                c.spot,
                c.disk_size,
                c.disk_count,
            ]
            .map(bit),
        }
    }
}

impl<S: CellStore> RowParser<S> {
    pub(super) fn new(c: RowColumns) -> Self {
        RowParser {
            store: S::default(),
            nvme: c.nvme,
            instance: Interner::new(Some(c.instance)),
            accelerator: Interner::new(c.acc_name),
            region: Interner::new(Some(c.region)),
            zone: Interner::new(c.zone),
            disk_type: Interner::new(c.disk_type),
            gpu_info: Interner::gpu_info(c.gpu_info),
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
            fields: Fields::blank(S::placeholder()),
            fields_valid: false,
            bits: ColumnBits::new(&c),
        }
    }

    /// A parser whose strings go into `store` (emptied: a store kept for
    /// its allocations).
    pub(super) fn with_store(c: RowColumns, store: S) -> Self {
        RowParser {
            store,
            ..RowParser::new(c)
        }
    }

    /// The strings the rows parsed so far hold.
    pub(super) fn store(&self) -> &S {
        &self.store
    }

    /// The store, to keep beside the rows.
    pub(super) fn into_store(self) -> S {
        self.store
    }

    /// Forgets the string cells seen (the store is emptied by the caller:
    /// the next rows' cells are made anew). Number columns carry on.
    pub(super) fn forget_strings(&mut self) -> &mut S {
        for column in [
            &mut self.instance,
            &mut self.accelerator,
            &mut self.region,
            &mut self.zone,
            &mut self.disk_type,
            &mut self.gpu_info,
        ] {
            column.last = None;
            column.last_key = None;
        }
        self.fields_valid = false;
        &mut self.store
    }

    /// One record's row, or why it is skipped.
    pub(super) fn parse(&mut self, record: &Record<'_>) -> Result<S::Row, String> {
        let repeating = if self.fields_valid {
            record.repeating()
        } else {
            0
        };
        let made = self.fill(record, repeating);
        self.fields_valid = made.is_ok();
        match made {
            Ok(()) => Ok(S::row(&self.fields)),
            Err(message) => {
                for column in self.number_columns() {
                    column.note_skipped(record);
                }
                Err(message)
            }
        }
    }

    /// The number columns of [`NUMBER_COLUMNS`], in its order.
    fn number_columns(&mut self) -> [&mut NumberColumn; NUMBER_COLUMNS.len()] {
        [
            &mut self.acc_count,
            &mut self.vcpus,
            &mut self.mem,
            &mut self.price,
            &mut self.spot,
            &mut self.disk_size,
            &mut self.disk_count,
        ]
    }

    /// Bit `i`: every cell so far of [`NUMBER_COLUMNS`]`[i]` is an integer.
    pub(super) fn integer_bits(&mut self) -> u8 {
        self.number_columns()
            .iter()
            .enumerate()
            .fold(0, |bits, (i, c)| bits | (u8::from(c.integer) << i))
    }

    /// Makes `self.fields` the fields of `record`, each checked in the
    /// order that names the first bad one in a skipped row's warning (they
    /// are then part made, and no row's).
    ///
    /// A field whose bit is set in `repeating` (the previous record's
    /// fields are these, and it made a row) is byte for byte that record's:
    /// it is left as it is. Parsing it again would give the same value,
    /// the same error (none) and leave each column's state as it is.
    #[inline(always)]
    fn fill(&mut self, record: &Record<'_>, repeating: u64) -> Result<(), String> {
        let f = &mut self.fields;
        let store = &mut self.store;
        let bits = &self.bits;
        let again = |bit: u64| repeating & bit != 0;
        if !again(bits.instance) {
            f.instance_type = self.instance.parse(record, store)?;
        }
        // pandas keeps a row whose Region is empty (NaN): no region query
        // ever matches it and `get_region_zones` drops it, but queries
        // without a region still see it (IBM's upstream catalog has such
        // rows). It is kept as an empty region; a row with neither an
        // instance type nor a region is of use to no query. (Read anew:
        // whether it is empty decides, unless the row has an instance type:
        // then a region that repeats is the previous row's, empty or not.)
        if !(again(bits.region) && f.instance_type.is_some()) {
            f.region = match self.region.parse(record, store)? {
                Some(region) => region,
                None if f.instance_type.is_some() => store.empty_region(),
                None => return Err("Region is empty".into()),
            };
        }
        if !again(bits.accelerator) {
            f.accelerator_name = self.accelerator.parse(record, store)?;
        }
        // Each number column by name (a loop over them costs its counter
        // and an array of references every row).
        let n = &bits.numbers;
        number_cell(&mut self.acc_count, &mut f.numbers[0], again(n[0]), record)?;
        number_cell(&mut self.vcpus, &mut f.numbers[1], again(n[1]), record)?;
        number_cell(&mut self.mem, &mut f.numbers[2], again(n[2]), record)?;
        number_cell(&mut self.price, &mut f.numbers[3], again(n[3]), record)?;
        number_cell(&mut self.spot, &mut f.numbers[4], again(n[4]), record)?;
        if !again(bits.zone) {
            f.zone = self.zone.parse(record, store)?;
        }
        if !again(bits.disk_type) {
            f.local_disk_type = self.disk_type.parse(record, store)?;
        }
        if !again(bits.nvme) {
            f.nvme_supported = field_bytes(record, self.nvme)?
                .map(|t| t.eq_ignore_ascii_case(b"true") || &*t == b"1");
        }
        number_cell(&mut self.disk_size, &mut f.numbers[5], again(n[5]), record)?;
        number_cell(&mut self.disk_count, &mut f.numbers[6], again(n[6]), record)?;
        // Without the column, `datacenter` stays as blank fields have it: `None`.
        if let Some(column) = &mut self.hosting_type
            && !again(bits.hosting_type)
        {
            f.datacenter = Some(column.parse(record)?.is_some_and(|h| h >= 1.0));
        }
        if !again(bits.gpu_info) {
            f.gpu_info = self.gpu_info.parse(record, store)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
