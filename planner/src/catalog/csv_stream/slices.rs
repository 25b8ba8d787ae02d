//! A `vms.csv` already whole in memory (a bundled catalog: bytes of the
//! binary itself) parsed into its image in pieces that borrow its bytes
//! ([`CsvSlices`]): no piece is copied out of it, and the pieces of several
//! files can be parsed on any threads, in any order, then written back in
//! file order.
//!
//! The body is cut as [`CsvParse`](super::CsvParse) cuts it into parts
//! (a line end with an even number of quotes before it, in a body whose
//! every quote is at a field boundary; else one piece), only into pieces of
//! [`PIECE_BYTES`](super::PIECE_BYTES); each piece is parsed as a handed-out
//! [`CsvPiece`](super::CsvPiece) is, and the image, warnings and errors
//! are those of the file parsed whole.

use std::ops::Range;

use super::super::csv_parse::{Header, body_parts, check_not_truncated};
use super::super::image::ImageWriter;
use super::super::row_parser::RowColumns;
use super::super::{CatalogError, CatalogWarning};
use super::{Lines, PIECE_BYTES, ParsedPiece, PieceAt, parse_piece};
use crate::cloud::CloudId;

/// One `vms.csv` whole in memory, its header read and its body cut into
/// [`SlicePiece`]s ([`CsvSlices::take_pieces`]), which are parsed anywhere
/// and written back in order ([`CsvSlices::write`]) before
/// [`CsvSlices::finish`] gives its image.
pub struct CsvSlices<'a> {
    cloud: CloudId,
    data: &'a [u8],
    source_name: String,
    header: Header,
    pieces: Vec<SlicePiece<'a>>,
    /// How many pieces the body was cut into.
    cut: u64,
    writer: ImageWriter,
    warnings: Vec<CatalogWarning>,
    /// Integer bits of the pieces written (see [`super::super::Columns`]).
    integers: u8,
    /// The next piece to write.
    next_write: u64,
    /// (start in the file, fields) of the last record written.
    last: Option<(u64, usize)>,
}

/// Whole records of a [`CsvSlices`]' file, borrowed from it.
pub struct SlicePiece<'a> {
    seq: u64,
    bytes: &'a [u8],
    /// The whole file, and where the piece starts in it.
    file: &'a [u8],
    offset: u64,
    columns: RowColumns,
    cloud: CloudId,
    source_name: String,
}

impl SlicePiece<'_> {
    /// Its place among the pieces of its file (from 0, in file order).
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// How many bytes of the file it holds.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether it holds no byte (the body of a file with a header only).
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Parses the piece (with a row parser of its own).
    pub fn parse(&self) -> Result<ParsedPiece, CatalogError> {
        self.parse_reusing(None)
    }

    /// [`SlicePiece::parse`] into the buffers of `spare`, a piece already
    /// written ([`CsvSlices::write`] gives it back): a pool of workers
    /// keeps reusing a few instead of allocating (and faulting in) fresh
    /// ones for every piece.
    pub fn parse_reusing(&self, spare: Option<ParsedPiece>) -> Result<ParsedPiece, CatalogError> {
        parse_piece(
            PieceAt {
                seq: self.seq,
                bytes: self.bytes,
                // Rows are rarely below 48 bytes, and room not written to
                // costs no memory; more rows regrow the vector once.
                rows: self.bytes.len() / 48 + 1,
                offset: self.offset,
                lines: Lines::InFile(self.file),
            },
            self.columns,
            self.cloud,
            &self.source_name,
            spare,
        )
    }
}

impl<'a> CsvSlices<'a> {
    /// Reads the header of `data` (an error is the file's, as
    /// [`CsvParse::new`](super::CsvParse::new) gives it) and cuts its body
    /// into pieces of about [`PIECE_BYTES`](super::PIECE_BYTES) (at least
    /// one, empty for a body without a byte).
    pub fn new(
        cloud: CloudId,
        data: &'a [u8],
        source_name: &str,
    ) -> Result<CsvSlices<'a>, CatalogError> {
        let (header, body_start) = Header::read(cloud, data, source_name)?;
        let body = data.len() - body_start;
        let ranges: Vec<Range<usize>> =
            body_parts(data, body_start, body.div_ceil(PIECE_BYTES), PIECE_BYTES);
        let pieces: Vec<SlicePiece<'a>> = ranges
            .into_iter()
            .zip(0u64..)
            .map(|(range, seq)| SlicePiece {
                seq,
                offset: range.start as u64,
                bytes: &data[range],
                file: data,
                columns: header.columns,
                cloud,
                source_name: source_name.to_string(),
            })
            .collect();
        Ok(CsvSlices {
            cloud,
            data,
            source_name: source_name.to_string(),
            header,
            cut: pieces.len() as u64,
            pieces,
            // About a row a line of 80 bytes or more.
            writer: ImageWriter::new(body / 80),
            warnings: Vec::new(),
            integers: u8::MAX,
            next_write: 0,
            last: None,
        })
    }

    /// The pieces, in file order (all of them the first time; none after).
    pub fn take_pieces(&mut self) -> Vec<SlicePiece<'a>> {
        std::mem::take(&mut self.pieces)
    }

    /// How many pieces the body was cut into.
    pub fn pieces(&self) -> u64 {
        self.cut
    }

    /// Writes a parsed piece into the image: the pieces in file order
    /// (anything else is an error). The piece is given back, its buffers
    /// to parse another into ([`SlicePiece::parse_reusing`]).
    pub fn write(&mut self, mut piece: ParsedPiece) -> Result<ParsedPiece, CatalogError> {
        if piece.seq != self.next_write || piece.seq >= self.cut {
            return Err(CatalogError::Read {
                source_name: self.source_name.clone(),
                message: "catalog pieces written out of order".into(),
            });
        }
        self.next_write += 1;
        self.writer.push_piece(&piece.rows, &piece.strings);
        self.warnings.append(&mut piece.warnings);
        self.integers &= piece.integers;
        if piece.last.is_some() {
            self.last = piece.last;
        }
        Ok(piece)
    }

    /// How many pieces have been written (the next to write is this one).
    pub fn written(&self) -> u64 {
        self.next_write
    }

    /// Whether every piece has been written.
    pub fn all_written(&self) -> bool {
        self.next_write == self.cut
    }

    /// The image of the whole file, its skipped rows included: the image
    /// [`CloudCatalog::to_image`](super::super::CloudCatalog::to_image)
    /// gives of the file parsed whole, or its error (a last row cut short).
    pub fn finish(self) -> Result<Vec<u8>, CatalogError> {
        if !self.all_written() {
            return Err(CatalogError::Read {
                source_name: self.source_name,
                message: "catalog pieces were not all written".into(),
            });
        }
        if let Some((start, found)) = self.last {
            check_not_truncated(
                self.data,
                start,
                found,
                self.header.fields,
                &self.source_name,
            )?;
        }
        let columns = self.header.columns(self.integers);
        Ok(self.writer.finish(
            self.cloud,
            self.header.schema,
            self.header.has_zones,
            &columns,
            &self.warnings,
        ))
    }
}
