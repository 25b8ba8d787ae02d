//! A `vms.csv` body split into records in bulk, with `simd-csv`'s exact
//! semantics ([`Splitter`]).
//!
//! `simd-csv`'s reader costs ~700 instructions a catalog record (a copy of
//! the text into its buffer, its per-record bookkeeping, one searcher step
//! per separator): a fifth of parsing a changed catalog. Almost every
//! record of a real catalog is *plain* — unquoted fields and fields quoted
//! whole without a quote inside, ended by `\n` (or `\r\n` after an
//! unquoted field) — and a plain record is split here, a word at a time,
//! into the same fields the reader gives. The first record that is not
//! plain (a quote inside a field or after a closing one, a doubled quote,
//! a quoted field before `\r`, a last record without a line end) hands the
//! rest of the text to `simd-csv` itself, so that only its reader decides
//! what such text means. `tests::the_splitter_is_simd_csv` holds the two
//! equal on tens of thousands of random texts.
//!
//! Like the reader, records start after any `\n` and `\r` bytes at a
//! record boundary (blank lines), a UTF-8 byte-order mark at the very
//! start is skipped, and a record's start (for warnings and the truncation
//! check) is where the previous one ended.

use std::borrow::Cow;

/// One record: its bytes (the line end trimmed as `simd-csv` trims it) and
/// where its separators are in them. [`Record::get`] and
/// [`Record::unescape`] are `simd_csv::ZeroCopyByteRecord`'s.
pub(in crate::catalog) struct Record<'a> {
    line: &'a [u8],
    seps: &'a [u32],
    /// Bit `i` (of the first 64 fields): field `i` is byte for byte the
    /// previous record's field `i`.
    repeating: u64,
}

/// The bits of the first 64 of `len` fields that repeat: the first `lead`
/// and the last `trail`.
#[inline(always)]
fn repeating(len: usize, lead: usize, trail: usize) -> u64 {
    let below = |n: usize| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    below(lead) | (below(len) & !below(len - trail.min(len)))
}

impl<'a> Record<'a> {
    /// How many fields it has (at least one).
    #[inline(always)]
    pub(in crate::catalog) fn len(&self) -> usize {
        self.seps.len() + 1
    }

    /// Bit `i` (of the first 64 fields): field `i` is byte for byte the
    /// previous record's field `i` (as far as the splitter saw: a clear bit
    /// may be said of an equal one).
    #[inline(always)]
    pub(in crate::catalog) fn repeating(&self) -> u64 {
        self.repeating
    }

    /// Whether field `i` repeats the previous record's ([`Record::repeating`]).
    #[cfg(test)]
    fn repeats(&self, i: usize) -> bool {
        i < 64 && self.repeating & (1 << i) != 0
    }

    /// The record, no field said to repeat (every field read anew).
    #[cfg(test)]
    pub(in crate::catalog) fn without_repeats(&self) -> Record<'a> {
        Record {
            repeating: 0,
            ..*self
        }
    }

    /// Field `i` as written (quotes and all).
    #[inline(always)]
    pub(in crate::catalog) fn get(&self, i: usize) -> Option<&'a [u8]> {
        let start = match i.checked_sub(1) {
            None => 0,
            Some(j) => *self.seps.get(j)? as usize + 1,
        };
        let end = match self.seps.get(i) {
            Some(&end) => end as usize,
            None if i == self.seps.len() => self.line.len(),
            None => return None,
        };
        self.line.get(start..end)
    }

    /// Field `i` without its surrounding quotes, doubled quotes made one
    /// (`simd_csv::ZeroCopyByteRecord::unescape`).
    pub(in crate::catalog) fn unescape(&self, i: usize) -> Option<Cow<'a, [u8]>> {
        let cell = self.get(i)?;
        Some(match cell {
            [b'"', inner @ .., b'"'] => unescape(inner),
            _ => Cow::Borrowed(cell),
        })
    }
}

/// `simd-csv`'s unescaping of a quoted field's inside: each quote keeps
/// itself and drops the quote right after it; after a quote that is not
/// doubled, the rest is kept as it is.
fn unescape(cell: &[u8]) -> Cow<'_, [u8]> {
    let Some(first) = memchr::memchr(b'"', cell) else {
        return Cow::Borrowed(cell);
    };
    let mut out = Vec::with_capacity(cell.len());
    let mut pos = 0;
    let mut next = Some(first);
    while let Some(offset) = next {
        let limit = pos + offset + 1;
        out.extend_from_slice(&cell[pos..limit]);
        if cell.get(limit) == Some(&b'"') {
            pos = limit + 1;
            next = memchr::memchr(b'"', &cell[pos..]);
        } else {
            pos = limit;
            break;
        }
    }
    out.extend_from_slice(&cell[pos..]);
    Cow::Owned(out)
}

/// The reader the text is handed to once a record is not plain.
type Rest<'a> = simd_csv::ZeroCopyReader<&'a [u8]>;

/// The records of a text, one after the other ([`Splitter::next`]).
pub(in crate::catalog) struct Splitter<'a> {
    data: &'a [u8],
    /// Where the next record's boundary is (the previous record's end).
    at: usize,
    /// The separators of the record last given.
    seps: Vec<u32>,
    /// The previous record's line (`data[start..end]`) and separators, when
    /// it was split here: its leading and trailing fields are compared
    /// with the next record's.
    prev: Option<(usize, usize)>,
    prev_seps: Vec<u32>,
    /// Past the first record that is not plain: `simd-csv`'s reader, and
    /// the record it gave (copied).
    rest: Option<Rest<'a>>,
    copied: Vec<u8>,
}

const ONES: u64 = 0x0101_0101_0101_0101;

/// An eight-byte chunk as a word.
#[inline(always)]
fn word(chunk: &[u8]) -> u64 {
    u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]))
}

/// How many bytes `a` and `b` start with alike, compared a word at a time
/// (`==` on slices calls `memcmp`, dear for a few words).
#[inline(always)]
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut d = 0;
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        let diff = word(x) ^ word(y);
        if diff != 0 {
            return d + (diff.trailing_zeros() / 8) as usize;
        }
        d += 8;
    }
    d + a[d..]
        .iter()
        .zip(&b[d..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// How many bytes `a` and `b` end with alike, a word at a time.
#[inline(always)]
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut s = 0;
    for (x, y) in a.rchunks_exact(8).zip(b.rchunks_exact(8)) {
        let diff = word(x) ^ word(y);
        if diff != 0 {
            return s + (diff.leading_zeros() / 8) as usize;
        }
        s += 8;
    }
    let (a, b) = (&a[..n - s], &b[..n - s]);
    s + a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

const HIGH: u64 = 0x8080_8080_8080_8080;

/// High bit of each byte of `w` whose low seven bits are below `-`
/// (0x2d): among them the comma, the line end and the quote, which end an
/// unquoted field's bytes; the bytes of catalog cells (letters, digits,
/// `.`, `-`, `_`) are not. (`b | 0x80` less 0x2d keeps its high bit
/// exactly when `b & 0x7f` ≥ 0x2d, and borrows from no other byte.)
#[inline(always)]
fn low_mask(w: u64) -> u64 {
    !((w | HIGH) - ONES * 0x2d) & HIGH
}

/// High bit of each byte of `w` that is zero, and of no other byte (no
/// borrow runs from one byte into the next: each byte's low seven bits
/// are added to 0x7f alone).
#[inline(always)]
fn zero_bytes(w: u64) -> u64 {
    !(((w & !HIGH) + (ONES * 0x7f)) | w | !HIGH)
}

/// What a plain record's scan found.
enum Scan {
    /// The record ends at this line end (the `\n`'s index).
    Line(usize),
    /// Not plain: `simd-csv` decides.
    Other,
}

impl<'a> Splitter<'a> {
    pub(in crate::catalog) fn new(data: &'a [u8]) -> Splitter<'a> {
        Splitter {
            data,
            at: 0,
            seps: Vec::with_capacity(32),
            prev: None,
            prev_seps: Vec::with_capacity(32),
            rest: None,
            copied: Vec::new(),
        }
    }

    /// The next record and where it starts (the previous one's end), or
    /// `None` at the end of the text.
    pub(in crate::catalog) fn next(
        &mut self,
    ) -> Result<Option<(u64, Record<'_>)>, simd_csv::Error> {
        if self.rest.is_none() {
            let start = self.at;
            let mut pos = start;
            if pos == 0 && self.data.starts_with(b"\xef\xbb\xbf") {
                pos = 3;
            }
            while pos < self.data.len() && matches!(self.data[pos], b'\n' | b'\r') {
                pos += 1;
            }
            if pos == self.data.len() {
                self.at = pos;
                return Ok(None);
            }
            // The previous record's separators, to compare with.
            std::mem::swap(&mut self.seps, &mut self.prev_seps);
            self.seps.clear();
            let (lead, from) = self.same_lead(pos);
            match self.scan(pos, from) {
                Scan::Line(nl) => {
                    self.at = nl + 1;
                    let end = if nl > pos && self.data[nl - 1] == b'\r' {
                        nl - 1
                    } else {
                        nl
                    };
                    let trail = self.same_trail(pos, end);
                    self.prev = Some((pos, end));
                    return Ok(Some((
                        start as u64,
                        Record {
                            line: &self.data[pos..end],
                            seps: &self.seps,
                            repeating: repeating(self.seps.len() + 1, lead, trail),
                        },
                    )));
                }
                Scan::Other => self.hand_over(start)?,
            }
        }
        self.next_handed_over()
    }

    /// How many leading fields of the record at `pos` are the previous
    /// record's, byte for byte (their separators pushed onto `seps`), and
    /// where the first other field starts. The line is compared a word at
    /// a time up to the first byte that differs: the fields that end
    /// before it, separator included, are the same and split the same (the
    /// quotes before them are the same); the next may start with a quote,
    /// which [`Splitter::scan`] looks at first.
    #[inline(always)]
    fn same_lead(&mut self, pos: usize) -> (usize, usize) {
        let Some((p, p_end)) = self.prev else {
            return (0, pos);
        };
        let d = common_prefix(&self.data[p..p_end], &self.data[pos..]);
        // Separators are in order: a binary search, not a walk of them.
        let lead = self.prev_seps.partition_point(|&sep| (sep as usize) < d);
        if lead == 0 {
            return (0, pos);
        }
        self.seps.extend_from_slice(&self.prev_seps[..lead]);
        (lead, pos + self.prev_seps[lead - 1] as usize + 1)
    }

    /// How many trailing fields of the record just split (`data[pos..end]`,
    /// its separators in `seps`) are the previous record's, byte for byte:
    /// with as many fields, each a field whose separator before it stands
    /// as far from the end in both, within their common end.
    #[inline(always)]
    fn same_trail(&self, pos: usize, end: usize) -> usize {
        let Some((p, p_end)) = self.prev else {
            return 0;
        };
        if self.prev_seps.len() != self.seps.len() {
            return 0;
        }
        let (prev, cur) = (&self.data[p..p_end], &self.data[pos..end]);
        let s = common_suffix(prev, cur);
        let mut trail = 0;
        for (&a, &b) in self.seps.iter().rev().zip(self.prev_seps.iter().rev()) {
            let from_end = cur.len() - a as usize;
            if from_end > s || prev.len() - b as usize != from_end {
                break;
            }
            trail += 1;
        }
        trail
    }

    /// Splits the record whose first byte is at `pos` (not a line end)
    /// from the field that starts at `from`, its separators onto `seps`
    /// (relative to `pos`).
    #[inline(always)]
    fn scan(&mut self, pos: usize, from: usize) -> Scan {
        let data = self.data;
        let seps = &mut self.seps;
        let mut i = from;
        'fields: loop {
            // `i` starts a field.
            if data.get(i) == Some(&b'"') {
                // Quoted whole, no quote inside: `"…"` then `,` or `\n`.
                let Some(k) = memchr::memchr(b'"', &data[i + 1..]) else {
                    return Scan::Other;
                };
                let close = i + 1 + k;
                match data.get(close + 1) {
                    Some(b',') => {
                        seps.push((close + 1 - pos) as u32);
                        i = close + 2;
                        continue;
                    }
                    Some(b'\n') => return Scan::Line(close + 1),
                    _ => return Scan::Other,
                }
            }
            // Unquoted: every byte below `-` is looked at, a word at a
            // time; fields run on within a word. A comma is told by its
            // bit alone; any other low byte is read.
            let mut w_at = i;
            loop {
                let w = match data.get(w_at..w_at + 8) {
                    Some(chunk) => word(chunk),
                    None => {
                        // The text's last bytes, zeros after them (looked at
                        // like any low byte, then found past the end).
                        let mut last = [0u8; 8];
                        let rest = data.get(w_at..).unwrap_or_default();
                        last[..rest.len()].copy_from_slice(rest);
                        u64::from_le_bytes(last)
                    }
                };
                let mut m = low_mask(w);
                let commas = zero_bytes(w ^ (ONES * u64::from(b',')));
                while m != 0 {
                    let bit = m & m.wrapping_neg();
                    let k = w_at + (m.trailing_zeros() / 8) as usize;
                    m ^= bit;
                    if commas & bit != 0 {
                        seps.push((k - pos) as u32);
                        // The next field starts after it.
                        i = k + 1;
                        continue;
                    }
                    match data.get(k) {
                        Some(b'\n') => return Scan::Line(k),
                        // A quote opening the field: quoted.
                        Some(b'"') if k == i => continue 'fields,
                        // A quote inside an unquoted field.
                        Some(b'"') => return Scan::Other,
                        Some(_) => {}
                        // The text ends inside the record.
                        None => return Scan::Other,
                    }
                }
                w_at += 8;
            }
        }
    }

    /// Hands the text from the record boundary `start` on to `simd-csv`:
    /// a reader of the whole text, past the records before `start`. (Its
    /// reading of an unclosed quote at the end of the text depends on what
    /// it read before: a reader started at `start` could differ.)
    #[cold]
    fn hand_over(&mut self, start: usize) -> Result<(), simd_csv::Error> {
        let mut reader = simd_csv::ZeroCopyReaderBuilder::new()
            .flexible(true)
            .has_headers(false)
            .from_reader(self.data);
        while start > 0 && (reader.position() as usize) < start {
            if reader.read_byte_record()?.is_none() {
                break;
            }
        }
        self.rest = Some(reader);
        self.prev = None;
        Ok(())
    }

    /// The next record of `simd-csv`'s reader, copied.
    #[cold]
    fn next_handed_over(&mut self) -> Result<Option<(u64, Record<'_>)>, simd_csv::Error> {
        let Some(reader) = self.rest.as_mut() else {
            return Ok(None);
        };
        let start = reader.position();
        let Some(record) = reader.read_byte_record()? else {
            return Ok(None);
        };
        self.copied.clear();
        self.copied.extend_from_slice(record.as_slice());
        self.seps.clear();
        let mut end = 0usize;
        for (i, field) in record.iter().enumerate() {
            if i > 0 {
                self.seps.push(end as u32);
                end += 1;
            }
            end += field.len();
        }
        Ok(Some((
            start,
            Record {
                line: &self.copied,
                seps: &self.seps,
                repeating: 0,
            },
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every record of `data` as `simd-csv` reads it: (start, fields as
    /// written, fields unescaped).
    type Split = Vec<(u64, Vec<Vec<u8>>, Vec<Vec<u8>>)>;

    fn simd(data: &[u8]) -> Split {
        let mut csv = simd_csv::ZeroCopyReaderBuilder::new()
            .flexible(true)
            .has_headers(false)
            .from_reader(data);
        let mut out = Vec::new();
        loop {
            let start = csv.position();
            let Some(record) = csv.read_byte_record().unwrap() else {
                break;
            };
            let raw = record.iter().map(<[u8]>::to_vec).collect();
            let unescaped = (0..record.len())
                .map(|i| record.unescape(i).unwrap().into_owned())
                .collect();
            out.push((start, raw, unescaped));
        }
        out
    }

    fn ours(data: &[u8], repeated: &mut usize) -> (Split, bool) {
        let mut split = Splitter::new(data);
        let mut out = Vec::new();
        while let Some((start, record)) = split.next().unwrap() {
            let raw = (0..record.len())
                .map(|i| record.get(i).unwrap().to_vec())
                .collect();
            let unescaped = (0..record.len())
                .map(|i| record.unescape(i).unwrap().into_owned())
                .collect();
            assert!(record.get(record.len()).is_none());
            // What is said to repeat does.
            let raw: Vec<Vec<u8>> = raw;
            if let Some((_, before, _)) = out.last() {
                let before: &Vec<Vec<u8>> = before;
                for (i, field) in raw.iter().enumerate() {
                    if record.repeats(i) {
                        assert_eq!(Some(field), before.get(i), "field {i}");
                        *repeated += 1;
                    }
                }
            } else {
                assert!((0..record.len()).all(|i| !record.repeats(i)));
            }
            out.push((start, raw, unescaped));
        }
        (out, split.rest.is_some())
    }

    #[test]
    fn the_splitter_is_simd_csv() {
        let alphabet: [&[u8]; 13] = [
            b"\xc3\xa9-x.1_",
            b"a",
            b"bc",
            b",",
            b",",
            b"\"",
            b"\n",
            b"\n",
            b"\r",
            b" ",
            b"\xef\xbb\xbf",
            b"\"{'x': 1, 'y': 2}\"",
            b"0123456789",
        ];
        let (mut state, mut plain, mut handed, mut repeated) = (0x2545_f491_4f6c_dd1du64, 0, 0, 0);
        for n in 0..80_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let (mut draw, len) = (state, 1 + (state % 40) as usize);
            let mut pick = || {
                let token = alphabet[(draw % alphabet.len() as u64) as usize];
                draw = (draw / alphabet.len() as u64) ^ state.rotate_left(17);
                token
            };
            let mut data = Vec::new();
            if n % 3 == 0 {
                // Lines that each change one token of the line before (as
                // catalog rows repeat their neighbours' fields).
                let mut tokens: Vec<&[u8]> = (0..len % 9 + 1).map(|_| pick()).collect();
                for line in 0..len % 7 + 2 {
                    let at = (line * 5 + len) % tokens.len();
                    tokens[at] = pick();
                    for token in &tokens {
                        data.extend_from_slice(token);
                        data.push(b',');
                    }
                    data.push(b'\n');
                }
            } else {
                for _ in 0..len {
                    data.extend_from_slice(pick());
                }
            }
            // Half end with a line end, as files do.
            if n % 2 == 0 {
                data.push(b'\n');
            }
            let (got, was_handed) = ours(&data, &mut repeated);
            assert_eq!(got, simd(&data), "{:?}", String::from_utf8_lossy(&data));
            if was_handed {
                handed += 1;
            } else {
                plain += 1;
            }
        }
        assert!(
            plain > 5_000 && handed > 5_000,
            "{plain} plain, {handed} handed over"
        );
        assert!(repeated > 10_000, "{repeated} fields repeated");
    }

    #[test]
    fn repeating_fields_past_the_64th_are_not_said_to_repeat() {
        assert_eq!(repeating(5, 1, 2), 0b11001);
        assert_eq!(repeating(5, 4, 5), 0b11111);
        assert_eq!(repeating(70, 3, 2), 0b111);
        assert_eq!(repeating(64, 0, 1), 1 << 63);
        assert_eq!(repeating(66, 0, 3), 1 << 63);
        assert_eq!(repeating(1, 0, 0), 0);
    }

    #[test]
    #[allow(clippy::disallowed_methods)] // reads the fixture catalogs
    fn the_fixture_catalogs_split_as_simd_csv_splits_them() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/catalogs");
        let (mut compared, mut repeated) = (0, 0);
        for entry in std::fs::read_dir(&dir).unwrap() {
            let Ok(csv) = std::fs::read(entry.unwrap().path().join("vms.csv")) else {
                continue;
            };
            assert_eq!(ours(&csv, &mut repeated).0, simd(&csv));
            compared += 1;
        }
        assert!(compared > 15, "{compared}");
        assert!(repeated > 100_000, "{repeated} fields repeated");
    }
}
