//! A `vms.csv` parsed as its bytes arrive, straight into its image
//! ([`CsvImageParse`]): the reader that stores a changed catalog never holds
//! the whole file, nor all its rows beside the image (the ×10 AWS catalog
//! is 24 MB of text and ~30 MB of rows for a 4 MB image).
//!
//! The bytes are cut into pieces only at a line end that is certainly
//! between records (no quote open before it, every quote so far at a field
//! boundary, as [`CsvParse`] cuts a body into parts); each piece is parsed
//! here with one [`RowParser`] carried on, or handed out ([`CsvPiece`]) to
//! be parsed elsewhere with its own and written back in order; either way
//! each piece's rows hold its own string ids (`RawRow`s over
//! `PieceStrings`), which the image writer maps once per piece, and the
//! rows, warnings (lines counted across pieces), integer columns and
//! image are those of the file parsed whole. A file with a quote the reader
//! may read otherwise is cut no further from that quote on: the rest is one
//! piece. A file smaller than a piece is parsed the same way at its end;
//! one without a single whole record is parsed by [`CsvParse`] as it is.
//! (The planner starts no thread: the caller does.)

use super::csv_parse::{Header, LineCounter, check_not_truncated, parse_records};
use super::image::ImageWriter;
use super::row_parser::{PieceStrings, RawRow, RowColumns, RowParser};
use super::{CatalogError, CatalogWarning, CsvParse};
use crate::cloud::CloudId;

mod slices;
pub use slices::{CsvSlices, SlicePiece};

/// Bytes gathered before a piece is parsed: large enough that a piece's
/// set-up (a reader, its buffer) is noise, small enough to stay in cache.
pub const PIECE_BYTES: usize = 128 << 10;

/// A `vms.csv` being parsed into its image, fed in pieces of any size
/// ([`CsvImageParse::push`]); [`CsvImageParse::finish`] gives the image
/// [`CloudCatalog::to_image`](super::CloudCatalog::to_image) gives of the
/// catalog [`CsvParse`] parses from the same bytes, or the same error.
pub struct CsvImageParse {
    cloud: CloudId,
    source_name: String,
    /// The bytes not parsed yet; they start at a record (or the file's start).
    carry: Vec<u8>,
    /// `carry[..scanned]` has been followed for quotes.
    scanned: usize,
    /// Whether `carry[..scanned]` ends inside a quoted field.
    in_quotes: bool,
    /// The end of the last whole record in `carry[..scanned]` (0: none).
    cut: usize,
    /// A quote that is not at a field boundary was met: no further cuts.
    whole: bool,
    /// Bytes of the file before `carry`, and the line ends in them.
    offset: u64,
    lines_before: u64,
    body: Option<Body>,
    /// Whether pieces are handed out ([`CsvImageParse::hand_out_pieces`]).
    hand_out: bool,
    /// Pieces cut and not yet taken, and how many were cut.
    pieces: Vec<CsvPiece>,
    cut_pieces: u64,
    /// The length of the last push (the next buffer is sized for a piece
    /// and what such pushes may carry past it).
    last_push: usize,
}

/// Whole records of a file cut by a [`CsvImageParse`] that hands its pieces
/// out: parsed on any thread ([`CsvPiece::parse`]), then written back in the
/// order they were cut ([`CsvImageParse::write`]).
pub struct CsvPiece {
    seq: u64,
    bytes: Vec<u8>,
    /// Where the piece starts in the file, and the line ends before it.
    offset: u64,
    lines_before: u64,
    columns: RowColumns,
    cloud: CloudId,
    source_name: String,
}

/// The rows of a [`CsvPiece`], to write into the image.
pub struct ParsedPiece {
    seq: u64,
    /// Its rows, their strings ids into `strings` (the piece's own).
    rows: Vec<RawRow>,
    strings: PieceStrings,
    warnings: Vec<CatalogWarning>,
    /// (start in the file, fields) of the piece's last record.
    last: Option<(u64, usize)>,
    integers: u8,
}

impl CsvPiece {
    /// Its place among the pieces of its file (from 0, in file order).
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Parses the piece (with a row parser of its own).
    pub fn parse(self) -> Result<ParsedPiece, CatalogError> {
        // About a row a line.
        let rows = memchr::memchr_iter(b'\n', &self.bytes).count();
        parse_piece(
            PieceAt {
                seq: self.seq,
                bytes: &self.bytes,
                rows,
                offset: self.offset,
                lines: Lines::Before(self.lines_before),
            },
            self.columns,
            self.cloud,
            &self.source_name,
            None,
        )
    }
}

/// A piece of a file: its place among the pieces, its bytes, about how
/// many rows they hold, where it starts in the file and how its lines are
/// counted.
struct PieceAt<'b> {
    seq: u64,
    bytes: &'b [u8],
    rows: usize,
    offset: u64,
    lines: Lines<'b>,
}

/// How the line of a record in a piece is known (for its warning).
enum Lines<'b> {
    /// The line ends before the piece.
    Before(u64),
    /// Counted in the whole file, which is at hand (the piece is at its
    /// `offset`): only once a record is skipped.
    InFile(&'b [u8]),
}

/// The rows of the piece `at` of a file, parsed with a row parser of its
/// own, into the buffers of `spare` (a piece already written) if given.
fn parse_piece(
    at: PieceAt<'_>,
    columns: RowColumns,
    cloud: CloudId,
    source_name: &str,
    spare: Option<ParsedPiece>,
) -> Result<ParsedPiece, CatalogError> {
    let (mut rows, mut strings, mut warnings) = match spare {
        Some(spare) => (spare.rows, spare.strings, spare.warnings),
        None => Default::default(),
    };
    rows.clear();
    strings.clear();
    warnings.clear();
    // Sized once, not regrown (and copied) as it fills.
    rows.reserve(at.rows);
    let mut parser = RowParser::<PieceStrings>::with_store(columns, strings);
    let mut counter = LineCounter::default();
    let line_of = |start: u64| match at.lines {
        Lines::Before(before) => before + counter.line_at(at.bytes, start),
        Lines::InFile(file) => counter.line_at(file, at.offset + start),
    };
    let last = piece_rows(
        cloud,
        at.bytes,
        &mut parser,
        source_name,
        line_of,
        &mut rows,
        &mut warnings,
    )?;
    let integers = parser.integer_bits();
    Ok(ParsedPiece {
        seq: at.seq,
        rows,
        strings: parser.into_store(),
        warnings,
        last: last.map(|(start, fields)| (at.offset + start, fields)),
        integers,
    })
}

/// Parses the whole records of `piece` onto `rows` and `warnings` (a
/// record at `at` in the piece is on the file's line `line_of(at)`), as
/// [`CsvParse::finish`] keeps them: where its last record starts in it,
/// and its fields.
fn piece_rows(
    cloud: CloudId,
    piece: &[u8],
    parser: &mut RowParser<PieceStrings>,
    source_name: &str,
    line_of: impl FnMut(u64) -> u64,
    rows: &mut Vec<RawRow>,
    warnings: &mut Vec<CatalogWarning>,
) -> Result<Option<(u64, usize)>, CatalogError> {
    let last = parse_records(piece, parser, source_name, line_of, rows, warnings)?;
    if cloud == CloudId::Shadeform {
        // `shadeform_catalog._get_df`, as `CsvParse::finish` keeps them.
        rows.retain(|r| r.cells[0] != 0 && r.cells[1] != 0);
    }
    Ok(last)
}

/// The state of a parse past its header.
struct Body {
    header: Header,
    /// Carried from piece to piece (its number columns' integer bits); its
    /// strings are each piece's own.
    parser: RowParser<PieceStrings>,
    writer: ImageWriter,
    warnings: Vec<CatalogWarning>,
    /// The rows of the piece being parsed (reused).
    rows: Vec<RawRow>,
    /// Integer bits of the pieces written (see [`super::Columns`]).
    integers: u8,
    /// The next handed-out piece to write.
    next_write: u64,
    /// (start in the file, fields) of the last record so far.
    last: Option<(u64, usize)>,
}

impl CsvImageParse {
    /// A parse of `cloud`'s `vms.csv`, named `source_name` in errors and
    /// warnings.
    pub fn new(cloud: CloudId, source_name: &str) -> CsvImageParse {
        CsvImageParse {
            cloud,
            source_name: source_name.to_string(),
            carry: Vec::new(),
            scanned: 0,
            in_quotes: false,
            cut: 0,
            whole: false,
            offset: 0,
            lines_before: 0,
            body: None,
            hand_out: false,
            pieces: Vec::new(),
            cut_pieces: 0,
            last_push: 0,
        }
    }

    /// Hands the pieces out instead of parsing them: the caller takes them
    /// ([`CsvImageParse::take_pieces`]) after each push, parses them where
    /// it likes and writes them back in order ([`CsvImageParse::write`])
    /// before [`CsvImageParse::finish`].
    pub fn hand_out_pieces(mut self) -> CsvImageParse {
        self.hand_out = true;
        self
    }

    /// The pieces cut since the last call, in order.
    pub fn take_pieces(&mut self) -> Vec<CsvPiece> {
        std::mem::take(&mut self.pieces)
    }

    /// Writes a parsed piece into the image: the pieces in the order they
    /// were cut (anything else is an error).
    pub fn write(&mut self, piece: ParsedPiece) -> Result<(), CatalogError> {
        let order = || CatalogError::Read {
            source_name: self.source_name.clone(),
            message: "catalog pieces written out of order".into(),
        };
        let Some(body) = self.body.as_mut() else {
            return Err(order());
        };
        if piece.seq != body.next_write {
            return Err(order());
        }
        body.next_write += 1;
        body.writer.push_piece(&piece.rows, &piece.strings);
        body.warnings.extend(piece.warnings);
        body.integers &= piece.integers;
        if piece.last.is_some() {
            body.last = piece.last;
        }
        Ok(())
    }

    /// Adds the file's next bytes; parses the whole records gathered once
    /// they are a piece. An error is the file's (and final).
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), CatalogError> {
        self.last_push = bytes.len();
        self.carry.extend_from_slice(bytes);
        self.scan();
        if self.cut >= PIECE_BYTES {
            self.parse_cut()?;
        }
        Ok(())
    }

    /// The image of the whole file, its skipped rows included (as
    /// [`CloudCatalog::from_image`](super::CloudCatalog::from_image) reads
    /// them back).
    pub fn finish(mut self) -> Result<Vec<u8>, CatalogError> {
        // A file smaller than a piece: its whole records parse as one (the
        // rest as the last), as a longer file's do; one without any is
        // parsed whole below. (Handed-out pieces are all written by now.)
        if self.body.is_none() && !self.hand_out && self.cut > 0 {
            self.parse_cut()?;
        }
        if self
            .body
            .as_ref()
            .is_some_and(|b| b.next_write != self.cut_pieces)
        {
            return Err(CatalogError::Read {
                source_name: self.source_name.clone(),
                message: "catalog pieces were not all written".into(),
            });
        }
        let Some(mut body) = self.body.take() else {
            // No piece parsed yet: the file as a whole, as always.
            let parse = CsvParse::new(self.cloud, &self.carry, &self.source_name, 1)?;
            let part = parse.parse_part(0)?;
            let (catalog, warnings) = parse.finish(vec![part])?;
            return Ok(catalog.to_image(&warnings));
        };
        let rest = std::mem::take(&mut self.carry);
        let last = self.parse_piece(&mut body, &rest)?;
        match last {
            Some((at, found)) => {
                check_not_truncated(&rest, at, found, body.header.fields, &self.source_name)
                    .map_err(|e| self.relined(e))?
            }
            // The last record is in an earlier piece, which ends at a line
            // end: the file is whole unless bytes without a record follow.
            None if rest.is_empty() => {}
            None => {
                if let Some((_, found)) = body.last {
                    check_not_truncated(&rest, 0, found, body.header.fields, &self.source_name)
                        .map_err(|e| self.relined(e))?;
                }
            }
        }
        let columns = body
            .header
            .columns(body.parser.integer_bits() & body.integers);
        Ok(body.writer.finish(
            self.cloud,
            body.header.schema,
            body.header.has_zones,
            &columns,
            &body.warnings,
        ))
    }

    /// A truncation error of the last piece `rest`, its line counted from
    /// the file's start.
    fn relined(&self, e: CatalogError) -> CatalogError {
        match e {
            CatalogError::Truncated {
                source_name,
                line,
                found,
                expected,
            } => CatalogError::Truncated {
                source_name,
                line: line + self.lines_before,
                found,
                expected,
            },
            other => other,
        }
    }

    /// Follows `carry[scanned..]` for quotes, moving `cut` to the end of the
    /// last whole record: a line end outside quotes, while every quote
    /// stands at a field boundary (see `quotes_at_field_boundaries`). Only
    /// the quotes are visited one by one; between them the last line end
    /// is found from the back (a line at a time cost a call per line).
    fn scan(&mut self) {
        if self.whole {
            return;
        }
        let buf = &self.carry;
        let mut i = self.scanned;
        loop {
            if self.in_quotes {
                // Inside a quoted field only its closing quote matters.
                let Some(k) = memchr::memchr(b'"', &buf[i..]) else {
                    i = buf.len();
                    break;
                };
                let j = i + k;
                match buf.get(j + 1) {
                    // The next byte tells: wait for it.
                    None => {
                        i = j;
                        break;
                    }
                    Some(b'"') => i = j + 2,
                    Some(b',' | b'\n' | b'\r') => {
                        self.in_quotes = false;
                        i = j + 1;
                    }
                    Some(_) => {
                        self.whole = true;
                        return;
                    }
                }
            } else {
                // Outside quotes up to the next quote: its last line end
                // ends a record.
                let end = memchr::memchr(b'"', &buf[i..]).map_or(buf.len(), |k| i + k);
                if let Some(k) = memchr::memrchr(b'\n', &buf[i..end]) {
                    self.cut = i + k + 1;
                }
                if end == buf.len() {
                    i = end;
                    break;
                }
                // `carry` starts at a record: its first byte is at an edge.
                let at_edge = end == 0 || matches!(buf[end - 1], b',' | b'\n' | b'\r');
                if !at_edge {
                    self.whole = true;
                    return;
                }
                self.in_quotes = true;
                i = end + 1;
            }
        }
        self.scanned = i;
    }

    /// Parses `carry[..cut]` (the header first, if not read yet) and keeps
    /// the rest.
    fn parse_cut(&mut self) -> Result<(), CatalogError> {
        let cut = self.cut;
        let mut carry = std::mem::take(&mut self.carry);
        let (mut body, body_start) = match self.body.take() {
            Some(body) => (body, 0),
            None => {
                let (header, body_start) =
                    Header::read(self.cloud, &carry[..cut], &self.source_name)?;
                let body = Body {
                    parser: RowParser::new(header.columns),
                    header,
                    writer: ImageWriter::new(0),
                    warnings: Vec::new(),
                    rows: Vec::new(),
                    integers: u8::MAX,
                    next_write: 0,
                    last: None,
                };
                self.advance(&carry[..body_start]);
                (body, body_start)
            }
        };
        if self.hand_out {
            // The piece keeps the gathered bytes (no copy of them); the few
            // after its end start the next, in a buffer of the same size.
            let mut next = Vec::with_capacity(PIECE_BYTES + 2 * self.last_push);
            next.extend_from_slice(&carry[cut..]);
            carry.truncate(cut);
            carry.drain(..body_start);
            let (offset, lines_before) = (self.offset, self.lines_before);
            self.advance(&carry);
            self.pieces.push(CsvPiece {
                seq: self.cut_pieces,
                bytes: carry,
                offset,
                lines_before,
                columns: body.header.columns,
                cloud: self.cloud,
                source_name: self.source_name.clone(),
            });
            self.cut_pieces += 1;
            self.carry = next;
        } else {
            let piece = &carry[body_start..cut];
            self.parse_piece(&mut body, piece)?;
            self.advance(piece);
            carry.drain(..cut);
            self.carry = carry;
        }
        // Past a stray quote (`whole`) nothing more is scanned or cut.
        self.scanned = self.scanned.saturating_sub(cut);
        self.cut = 0;
        self.body = Some(body);
        Ok(())
    }

    /// Counts `bytes` (the next of the file) and their line ends as parsed.
    fn advance(&mut self, bytes: &[u8]) {
        self.offset += bytes.len() as u64;
        self.lines_before += memchr::memchr_iter(b'\n', bytes).count() as u64;
    }

    /// Parses the whole records of `piece` (at `self.offset` in the file)
    /// into the image: where its last record starts in it, and its fields.
    fn parse_piece(
        &self,
        body: &mut Body,
        piece: &[u8],
    ) -> Result<Option<(u64, usize)>, CatalogError> {
        body.rows.clear();
        body.parser.forget_strings().clear();
        let mut lines = LineCounter::default();
        let lines_before = self.lines_before;
        let last = piece_rows(
            self.cloud,
            piece,
            &mut body.parser,
            &self.source_name,
            |at| lines_before + lines.line_at(piece, at),
            &mut body.rows,
            &mut body.warnings,
        )?;
        body.writer.push_piece(&body.rows, body.parser.store());
        body.rows.clear();
        if let Some((at, fields)) = last {
            body.last = Some((self.offset + at, fields));
        }
        Ok(last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::CloudCatalog;

    /// An image as its length and a digest (a failed comparison prints
    /// that, not megabytes).
    fn digest(image: Vec<u8>) -> (usize, u64) {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        image.hash(&mut h);
        (image.len(), h.finish())
    }

    /// The image (or error) of `data` parsed whole, then into its image.
    fn whole(cloud: CloudId, data: &[u8]) -> Result<(usize, u64), String> {
        CloudCatalog::from_bytes(cloud, data, "t.csv")
            .map(|(catalog, warnings)| digest(catalog.to_image(&warnings)))
            .map_err(|e| e.to_string())
    }

    /// The same, fed to a [`CsvImageParse`] `piece` bytes at a time.
    fn streamed(cloud: CloudId, data: &[u8], piece: usize) -> Result<(usize, u64), String> {
        streamed_image(cloud, data, piece).map(digest)
    }

    /// The same with the pieces handed out: each parsed apart, the later
    /// ones first, then written in order.
    fn handed_out(cloud: CloudId, data: &[u8], piece: usize) -> Result<(usize, u64), String> {
        let mut parse = CsvImageParse::new(cloud, "t.csv").hand_out_pieces();
        let mut pieces = Vec::new();
        for chunk in data.chunks(piece.max(1)) {
            parse.push(chunk).map_err(|e| e.to_string())?;
            pieces.extend(parse.take_pieces());
        }
        let mut parsed: Vec<ParsedPiece> = pieces
            .into_iter()
            .rev()
            .map(CsvPiece::parse)
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        parsed.reverse();
        if parsed.len() > 1 {
            // Out of order is refused.
            let mut other = CsvImageParse::new(cloud, "t.csv").hand_out_pieces();
            for chunk in data.chunks(piece.max(1)) {
                other.push(chunk).map_err(|e| e.to_string())?;
            }
            let mut late = other.take_pieces().into_iter().skip(1);
            let second = late.next().map(CsvPiece::parse);
            assert!(other.write(second.unwrap().unwrap()).is_err());
        }
        for p in parsed {
            parse.write(p).map_err(|e| e.to_string())?;
        }
        parse.finish().map(digest).map_err(|e| e.to_string())
    }

    /// The same, whole in memory and cut into borrowed pieces: parsed the
    /// later ones first, then written in order.
    fn sliced(cloud: CloudId, data: &[u8]) -> Result<(usize, u64), String> {
        let mut parse = CsvSlices::new(cloud, data, "t.csv").map_err(|e| e.to_string())?;
        let pieces = parse.take_pieces();
        assert_eq!(pieces.len() as u64, parse.pieces());
        assert!(parse.take_pieces().is_empty());
        let mut parsed: Vec<ParsedPiece> = pieces
            .iter()
            .rev()
            .map(SlicePiece::parse)
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        parsed.reverse();
        if parsed.len() > 1 {
            // Out of order is refused.
            let mut other = CsvSlices::new(cloud, data, "t.csv").unwrap();
            let second = other.take_pieces()[1].parse().unwrap();
            assert!(other.write(second).is_err());
        }
        for p in parsed {
            assert!(!parse.all_written());
            parse.write(p).map_err(|e| e.to_string())?;
        }
        let image = parse.finish().map(digest).map_err(|e| e.to_string());
        // Each piece parsed into the buffers the one before gave back.
        let mut again = CsvSlices::new(cloud, data, "t.csv").unwrap();
        let mut spare = None;
        for piece in again.take_pieces() {
            let parsed = piece.parse_reusing(spare.take());
            match parsed.and_then(|p| again.write(p)) {
                Ok(p) => spare = Some(p),
                Err(e) => {
                    assert_eq!(Err(e.to_string()), image);
                    return image;
                }
            }
        }
        assert_eq!(again.finish().map(digest).map_err(|e| e.to_string()), image);
        image
    }

    fn streamed_image(cloud: CloudId, data: &[u8], piece: usize) -> Result<Vec<u8>, String> {
        let mut parse = CsvImageParse::new(cloud, "t.csv");
        for chunk in data.chunks(piece.max(1)) {
            parse.push(chunk).map_err(|e| e.to_string())?;
        }
        parse.finish().map_err(|e| e.to_string())
    }

    /// `csv`'s rows repeated past several pieces, with a bad row, a
    /// multi-line quoted field and a blank line thrown in.
    fn grown(csv: &[u8]) -> Vec<u8> {
        super::super::csv_parse::grown_past(csv, 3 * PIECE_BYTES, b"bad,\"multi\nline\",x,y\n\n")
    }

    #[test]
    #[allow(clippy::disallowed_methods)] // reads the fixture catalogs
    fn a_catalog_streamed_into_its_image_is_the_catalog_parsed_whole() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/catalogs");
        let mut compared = 0;
        let mut sliced_pieces = 0;
        for cloud in CloudId::ALL {
            let Ok(csv) = std::fs::read(dir.join(cloud.name()).join("vms.csv")) else {
                continue;
            };
            let big = grown(&csv);
            for data in [&csv[..], &big[..]] {
                let want = whole(cloud, data);
                assert_eq!(sliced(cloud, data), want, "{cloud:?}, {} bytes", data.len());
                sliced_pieces +=
                    usize::from(CsvSlices::new(cloud, data, "t").is_ok_and(|s| s.pieces() > 2));
                for piece in [1 << 20, 65_536, 4_093] {
                    assert_eq!(
                        streamed(cloud, data, piece),
                        want,
                        "{cloud:?}, {} bytes in pieces of {piece}",
                        data.len()
                    );
                    assert_eq!(
                        handed_out(cloud, data, piece),
                        want,
                        "{cloud:?}, {} bytes in pieces of {piece}, handed out",
                        data.len()
                    );
                    compared += 1;
                }
            }
            assert_eq!(streamed(cloud, &csv, 7), whole(cloud, &csv), "{cloud:?}");
        }
        assert!(compared > 60, "only {compared} comparisons");
        assert!(sliced_pieces > 15, "only {sliced_pieces} files were sliced");
    }

    #[test]
    fn warnings_and_truncation_name_the_files_lines() {
        let header = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone,Arch\n";
        let mut data = header.as_bytes().to_vec();
        let mut n = 0;
        while data.len() < 3 * PIECE_BYTES {
            n += 1;
            data.extend_from_slice(
                format!("m{n}.large,,,2,8,,0.096,0.03,us-east-1,use1-az1,x86_64\n").as_bytes(),
            );
            if n % 500 == 0 {
                data.extend_from_slice(b"bad.row,,,two,8,,0.1,,us-east-1,use1-az1,x86_64\n");
                data.extend_from_slice(b"q,\"{'a':\n 1}\",1,2,8,,-1,,r,z,x\n\r\n");
            }
        }
        let image = streamed_image(CloudId::Aws, &data, 10_000).unwrap();
        assert_eq!(Ok(digest(image.clone())), whole(CloudId::Aws, &data));
        let (_, warnings) = CloudCatalog::from_image(CloudId::Aws, &image, "t.csv").unwrap();
        assert!(warnings.len() > 20, "{}", warnings.len());
        // Every cut of the last row but at its end: the same error (the
        // file's line) as the file parsed whole, or the same image.
        let full = data.clone();
        let last_row = full[..full.len() - 1]
            .iter()
            .rposition(|&b| b == b'\n')
            .unwrap()
            + 1;
        let mut refused = 0;
        for cut in last_row + 1..full.len() {
            let data = &full[..cut];
            let want = whole(CloudId::Aws, data);
            refused += usize::from(want.is_err());
            assert_eq!(sliced(CloudId::Aws, data), want, "cut at {cut}, sliced");
            assert_eq!(streamed(CloudId::Aws, data, 65_536), want, "cut at {cut}");
            if cut % 4 == 0 {
                assert_eq!(handed_out(CloudId::Aws, data, 65_536), want, "cut at {cut}");
            }
        }
        assert!(refused > 5, "{refused}");
        let open_quote = [&full[..], b"x,\"{'a': 1"].concat();
        let want = whole(CloudId::Aws, &open_quote);
        assert!(
            want.as_ref().is_err_and(|e| e.contains("t.csv")),
            "{want:?}"
        );
        assert_eq!(streamed(CloudId::Aws, &open_quote, 65_536), want);
        assert_eq!(sliced(CloudId::Aws, &open_quote), want);
        assert_eq!(sliced(CloudId::Aws, &data), whole(CloudId::Aws, &data));
    }

    #[test]
    fn stray_quotes_empty_files_and_missing_columns_are_as_parsed_whole() {
        let mut stray = b"InstanceType,Price,Region\n".to_vec();
        while stray.len() < 3 * PIECE_BYTES {
            stray.extend_from_slice(b"a12\"x,1,r\nb,\"2\",\"r\n2\"\nc\",1,r\n");
        }
        let mut late_stray = b"InstanceType,Price,Region\n".to_vec();
        while late_stray.len() < 2 * PIECE_BYTES {
            late_stray.extend_from_slice(b"b,\"2\",\"r\n2\"\n");
        }
        late_stray.extend_from_slice(b"a\"b,1,\"r\nx,1,r\n");
        let mut missing = b"InstanceType,Price\n".to_vec();
        while missing.len() < 2 * PIECE_BYTES {
            missing.extend_from_slice(b"a,1\n");
        }
        let cases: [&[u8]; 7] = [
            &stray,
            &late_stray,
            &missing,
            b"",
            b"\n\n",
            b"InstanceType,Price,Region",
            b"InstanceType,Price,Region\na,1",
        ];
        for data in cases {
            let want = whole(CloudId::Lambda, data);
            assert_eq!(sliced(CloudId::Lambda, data), want);
            for piece in [1, 3, 65_536] {
                assert_eq!(handed_out(CloudId::Lambda, data, piece), want);
                assert_eq!(
                    streamed(CloudId::Lambda, data, piece),
                    want,
                    "{:?} in pieces of {piece}",
                    String::from_utf8_lossy(&data[..data.len().min(60)])
                );
            }
        }
    }
}
