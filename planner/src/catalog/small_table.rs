//! The small CSV tables beside the catalogs (`common/accelerators.csv`,
//! `common/metadata.csv`, `aws/az_mappings-*.csv`), read whole as text.
//!
//! Every launch reads them, and they are a few dozen rows: building a
//! `csv::Reader` (its state tables) cost more than reading the rows, so they
//! go through the same `simd-csv` splitter as `vms.csv`, with the `csv`
//! crate's rules kept: a header row, every record as wide as the header,
//! blank lines skipped, a UTF-8 byte-order mark ignored, fields unquoted,
//! and text that is not UTF-8 refused. Tables as plain as the catalogs'
//! own (no escaped quote, no `\r`, no blank line) are read directly, a few
//! instructions a byte (`SmallTable::parse_plain`); anything else goes to
//! `simd-csv`, which decides acceptance and words every error.

use super::CatalogError;

/// A table's header and records, every field as text. The records' fields
/// are kept back to back in one string (a launch reads these tables every
/// time: a `String` per field cost more than reading them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SmallTable {
    /// Header names, in file order.
    pub(crate) headers: Vec<String>,
    /// Every record's fields, back to back.
    text: String,
    /// Where each field of `text` ends (it starts where the one before
    /// ends), record after record, each as wide as the header.
    ends: Vec<u32>,
}

impl SmallTable {
    /// Reads `data`; `source_name` names it in errors.
    pub(crate) fn parse(data: &[u8], source_name: &str) -> Result<SmallTable, CatalogError> {
        if let Some(table) = Self::parse_plain(data) {
            return Ok(table);
        }
        Self::parse_general(data, source_name)
    }

    /// The common case read directly, or `None` for anything else: text
    /// that is UTF-8 throughout, lines ended by `\n` (no `\r`, no blank
    /// line, no byte-order mark), every field either unquoted without a
    /// quote, or quoted whole with neither a quote nor a line end inside,
    /// and every record as wide as the header. On such input the general
    /// reader gives the same table (`tests::plain_tables_read_as_the_general_reader_reads`);
    /// on any other it decides — acceptance and every error are its own.
    /// The general reader cost ~600 instructions a row on these tables, which
    /// every launch reads; this is a few per byte.
    fn parse_plain(data: &[u8]) -> Option<SmallTable> {
        let text = std::str::from_utf8(data).ok()?;
        if text.is_empty()
            || u32::try_from(text.len()).is_err()
            || text.starts_with('\u{feff}')
            || memchr::memchr(b'\r', text.as_bytes()).is_some()
        {
            return None;
        }
        let bytes = text.as_bytes();
        let mut fields = String::with_capacity(text.len());
        let mut ends: Vec<u32> = Vec::with_capacity(text.len() / 8);
        let mut headers: Vec<String> = Vec::new();
        let mut width = 0usize;
        let mut at = 0usize;
        while at < bytes.len() {
            // One line: its fields, each ended by `,`, `\n` or the end.
            let (line_start, line_text) = (ends.len(), fields.len());
            loop {
                let end = if bytes.get(at) == Some(&b'"') {
                    let close = at + 1 + memchr::memchr(b'"', bytes.get(at + 1..)?)?;
                    let inside = text.get(at + 1..close)?;
                    if inside.contains('\n') {
                        return None;
                    }
                    fields.push_str(inside);
                    close + 1
                } else {
                    // Fields are a few bytes: a plain loop beats a search's set-up.
                    let rest = bytes.get(at..)?;
                    let end = at
                        + rest
                            .iter()
                            .position(|&b| matches!(b, b',' | b'\n' | b'"'))
                            .unwrap_or(rest.len());
                    fields.push_str(text.get(at..end)?);
                    end
                };
                ends.push(fields.len() as u32);
                match bytes.get(end) {
                    Some(b',') => at = end + 1,
                    Some(b'\n') => {
                        at = end + 1;
                        break;
                    }
                    None => {
                        at = end;
                        break;
                    }
                    // A quote inside a field, or text after a closing quote.
                    Some(_) => return None,
                }
            }
            let count = ends.len() - line_start;
            // A blank line (one empty field) is skipped by the general reader.
            if count == 1 && fields.len() == line_text {
                return None;
            }
            if headers.is_empty() {
                width = count;
                let mut start = 0;
                headers = ends
                    .iter()
                    .map(|&end| {
                        let name = fields.get(start..end as usize).unwrap_or_default();
                        start = end as usize;
                        name.to_string()
                    })
                    .collect();
                fields.clear();
                ends.clear();
            } else if count != width {
                return None;
            }
        }
        Some(SmallTable {
            headers,
            text: fields,
            ends,
        })
    }

    /// Reads `data` with `simd-csv` (any input: quotes escaped, `\r\n`,
    /// blank lines, a byte-order mark, and every error).
    fn parse_general(data: &[u8], source_name: &str) -> Result<SmallTable, CatalogError> {
        let error = |message: String| CatalogError::Read {
            source_name: source_name.to_string(),
            message,
        };
        let mut csv = simd_csv::ZeroCopyReaderBuilder::new()
            .flexible(true)
            .from_reader(data);
        let headers =
            fields(csv.byte_headers().map_err(|e| error(e.to_string()))?, 1).map_err(error)?;
        let mut text: Vec<u8> = Vec::with_capacity(data.len());
        let mut ends: Vec<u32> = Vec::new();
        // Record numbers as the csv crate counts them: the header is record 1.
        let mut record_number = 1u64;
        loop {
            let record = match csv.read_byte_record() {
                Ok(Some(record)) => record,
                Ok(None) => break,
                Err(e) => return Err(error(e.to_string())),
            };
            record_number += 1;
            let width = record.len();
            if width != headers.len() {
                // A field above that is not text is the first error.
                if std::str::from_utf8(&text).is_err() {
                    return Err(error(first_bad_field(&text, &ends, headers.len())));
                }
                return Err(error(format!(
                    "found record with {width} fields, but the previous record has {} fields (record {record_number})",
                    headers.len()
                )));
            }
            for field in record.unescaped_iter() {
                text.extend_from_slice(&field);
                let end = u32::try_from(text.len())
                    .map_err(|_| error("the table is too large".to_string()))?;
                ends.push(end);
            }
        }
        // One check of all the fields; when it fails, or a field alone is
        // not text although all of them are, the first field that is not
        // is found and named.
        let text = match String::from_utf8(text) {
            Ok(text) if field_bounds_are_characters(&text, &ends) => text,
            Ok(text) => {
                return Err(error(first_bad_field(
                    text.as_bytes(),
                    &ends,
                    headers.len(),
                )));
            }
            Err(e) => {
                return Err(error(first_bad_field(e.as_bytes(), &ends, headers.len())));
            }
        };
        Ok(SmallTable {
            headers,
            text,
            ends,
        })
    }

    /// The position of the column named `name`, if any.
    pub(crate) fn column(&self, name: &str) -> Option<usize> {
        self.headers.iter().position(|h| h == name)
    }

    /// The header as written, for "missing column" errors.
    pub(crate) fn header_line(&self) -> String {
        self.headers.join(",")
    }

    /// The number of records.
    pub(crate) fn len(&self) -> usize {
        self.ends.len().checked_div(self.headers.len()).unwrap_or(0)
    }

    /// Field `column` of record `record` (both from 0, within the table).
    pub(crate) fn field(&self, record: usize, column: usize) -> &str {
        let i = record * self.headers.len() + column;
        let end = self.ends.get(i).map_or(0, |&e| e as usize);
        let start = match i.checked_sub(1) {
            Some(j) => self.ends.get(j).map_or(0, |&e| e as usize),
            None => 0,
        };
        // Every bound is a character boundary (checked when parsed).
        self.text.get(start..end).unwrap_or_default()
    }

    /// Each record's fields in `columns`, in file order.
    pub(crate) fn records<const N: usize>(
        &self,
        columns: [usize; N],
    ) -> impl Iterator<Item = [&str; N]> + '_ {
        (0..self.len()).map(move |r| columns.map(|c| self.field(r, c)))
    }
}

/// Whether every field of `text` (ending at `ends`) starts and ends on a
/// character boundary: each is then text on its own.
fn field_bounds_are_characters(text: &str, ends: &[u32]) -> bool {
    ends.iter().all(|&e| text.is_char_boundary(e as usize))
}

/// The error naming the first field of `text` (ending at `ends`, `width`
/// per record) that is not UTF-8, as the csv crate words it.
fn first_bad_field(text: &[u8], ends: &[u32], width: usize) -> String {
    let mut start = 0usize;
    for (i, &end) in ends.iter().enumerate() {
        let end = end as usize;
        if std::str::from_utf8(text.get(start..end).unwrap_or_default()).is_err() {
            let (record, field) = (i / width.max(1), i % width.max(1));
            return format!(
                "invalid utf-8: invalid UTF-8 in field {field} near record {}",
                record as u64 + 2
            );
        }
        start = end;
    }
    "invalid utf-8".to_string()
}

/// The header's fields (the reader has already unquoted them).
fn fields(record: &simd_csv::ByteRecord, record_number: u64) -> Result<Vec<String>, String> {
    record
        .iter()
        .enumerate()
        .map(|(i, bytes)| {
            String::from_utf8(bytes.to_vec()).map_err(|_| {
                format!("invalid utf-8: invalid UTF-8 in field {i} near record {record_number}")
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the csv crate reads from the same bytes: the rules this module keeps.
    fn csv_crate(data: &[u8]) -> Result<(Vec<String>, Vec<Vec<String>>), ()> {
        let mut csv = csv::Reader::from_reader(data);
        let headers = csv
            .headers()
            .map_err(|_| ())?
            .iter()
            .map(String::from)
            .collect();
        let mut records = Vec::new();
        for record in csv.records() {
            records.push(record.map_err(|_| ())?.iter().map(String::from).collect());
        }
        Ok((headers, records))
    }

    #[test]
    fn reads_what_the_csv_crate_reads() {
        let cases: &[&[u8]] = &[
            b"GPU,MemoryGB,Manufacturer\nH100,80,NVIDIA\nA10G,24,NVIDIA\n",
            b"\xef\xbb\xbfAcceleratorName,Clouds\nA100,\"['AWS', 'GCP']\"\r\nT4,\"['GCP']\"\r\n",
            b"AvailabilityZone,AvailabilityZoneName\n\nuse1-az1,us-east-1a\n\n",
            b"a,b\n\"x \"\"quoted\"\" y\",2",
            b"a,b\n1,2\n3\n",
            b"a,b\n1,2,3\n",
            b"a,b\n\xff,2\n",
            b"a,b\n1,2\n3,\xc3\n",
            b"a,b\n\xff,2\n3\n",
            b"a,b\n\xc3\xa9t\xc3\xa9,\"x,\"\"y\"\"\"\n\"\xc3\",\"\xa9\"\n",
            b"name,\xc3\xa9\n\xc3\xa9t\xc3\xa9,\"x,\"\"y\"\"\"\r\n",
            b"",
            b"a\n",
        ];
        for data in cases {
            let ours = SmallTable::parse(data, "t.csv").map(|t| {
                let records: Vec<Vec<String>> = (0..t.len())
                    .map(|r| {
                        (0..t.headers.len())
                            .map(|c| t.field(r, c).to_string())
                            .collect()
                    })
                    .collect();
                (t.headers, records)
            });
            match (ours, csv_crate(data)) {
                (Ok(ours), Ok(theirs)) => {
                    assert_eq!(ours, theirs, "{}", String::from_utf8_lossy(data))
                }
                (Err(_), Err(())) => {}
                (ours, theirs) => panic!(
                    "{}: ours {ours:?}, the csv crate's {theirs:?}",
                    String::from_utf8_lossy(data)
                ),
            }
        }
    }

    #[test]
    fn plain_tables_read_as_the_general_reader_reads() {
        // The catalogs' own tables take the plain path.
        let fixtures = [
            "common/accelerators.csv",
            "common/metadata.csv",
            "aws/az_mappings-fbffe8df.csv",
        ];
        for name in fixtures {
            #[allow(clippy::disallowed_methods)] // a test reads a fixture
            let data = std::fs::read(format!(
                "{}/../fixtures/catalogs/{name}",
                env!("CARGO_MANIFEST_DIR")
            ))
            .unwrap();
            let plain = SmallTable::parse_plain(&data).expect(name);
            assert_eq!(plain, SmallTable::parse_general(&data, name).unwrap());
        }
        // Every short text over the bytes that matter: where the plain
        // reader answers, it answers as the general one.
        let alphabet: &[&[u8]] = &[
            b"a",
            b"b",
            b",",
            b"\n",
            b"\"",
            b"\r",
            b"\xc3\xa9",
            b"\xc3",
            b"\xff",
            b" ",
        ];
        let (mut state, mut plain_answers) = (0x2545_f491_4f6c_dd1du64, 0);
        for _ in 0..60_000 {
            let mut data = Vec::new();
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let (mut draw, len) = (state, 1 + state % 14);
            for _ in 0..len {
                data.extend_from_slice(alphabet[(draw % alphabet.len() as u64) as usize]);
                draw = (draw / alphabet.len() as u64) ^ state.rotate_left(17);
            }
            if let Some(plain) = SmallTable::parse_plain(&data) {
                plain_answers += 1;
                assert_eq!(
                    Ok(plain),
                    SmallTable::parse_general(&data, "t.csv").map_err(|e| e.to_string()),
                    "{:?}",
                    String::from_utf8_lossy(&data)
                );
            }
        }
        assert!(plain_answers > 1_000, "{plain_answers}");
    }

    #[test]
    fn the_first_field_that_is_not_text_is_named() {
        let cases: &[(&[u8], &str)] = &[
            (b"a,b\n1,2\n3,\xff\n", "field 1 near record 3"),
            (b"a,b\n\xc3,\xa9\n", "field 0 near record 2"),
            (b"a,b\n\xff,2\n3\n", "field 0 near record 2"),
            (b"a,\xff\n1,2\n", "field 1 near record 1"),
        ];
        for (data, expected) in cases {
            let error = SmallTable::parse(data, "t.csv").unwrap_err().to_string();
            assert!(error.contains(expected), "{error}");
            assert!(error.contains("t.csv"), "{error}");
        }
    }
}
