//! The small CSV tables beside the catalogs (`common/accelerators.csv`,
//! `common/metadata.csv`, `aws/az_mappings-*.csv`), read whole as text.
//!
//! Every launch reads them, and they are a few dozen rows: building a
//! `csv::Reader` (its state tables) cost more than reading the rows, so they
//! go through the same `simd-csv` splitter as `vms.csv`, with the `csv`
//! crate's rules kept: a header row, every record as wide as the header,
//! blank lines skipped, a UTF-8 byte-order mark ignored, fields unquoted,
//! and text that is not UTF-8 refused.

use super::CatalogError;

/// A table's header and records, every field as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SmallTable {
    /// Header names, in file order.
    pub(crate) headers: Vec<String>,
    /// The records below the header, each as wide as the header.
    pub(crate) records: Vec<Vec<String>>,
}

impl SmallTable {
    /// Reads `data`; `source_name` names it in errors.
    pub(crate) fn parse(data: &[u8], source_name: &str) -> Result<SmallTable, CatalogError> {
        let error = |message: String| CatalogError::Read {
            source_name: source_name.to_string(),
            message,
        };
        let mut csv = simd_csv::ZeroCopyReaderBuilder::new()
            .flexible(true)
            .from_reader(data);
        let headers =
            fields(csv.byte_headers().map_err(|e| error(e.to_string()))?, 1).map_err(error)?;
        let mut records = Vec::new();
        // Record numbers as the csv crate counts them: the header is record 1.
        let mut record_number = 1u64;
        loop {
            let record = match csv.read_byte_record() {
                Ok(Some(record)) => record,
                Ok(None) => break,
                Err(e) => return Err(error(e.to_string())),
            };
            record_number += 1;
            let record = unquoted(&record);
            if record.len() != headers.len() {
                return Err(error(format!(
                    "found record with {} fields, but the previous record has {} fields (record {record_number})",
                    record.len(),
                    headers.len()
                )));
            }
            records.push(text_fields(record, record_number).map_err(error)?);
        }
        Ok(SmallTable { headers, records })
    }

    /// The position of the column named `name`, if any.
    pub(crate) fn column(&self, name: &str) -> Option<usize> {
        self.headers.iter().position(|h| h == name)
    }

    /// The header as written, for "missing column" errors.
    pub(crate) fn header_line(&self) -> String {
        self.headers.join(",")
    }
}

/// A record's fields with their quoting removed.
fn unquoted(record: &simd_csv::ZeroCopyByteRecord<'_>) -> Vec<Vec<u8>> {
    record.unescaped_iter().map(|f| f.into_owned()).collect()
}

/// The header's fields (the reader has already unquoted them).
fn fields(record: &simd_csv::ByteRecord, record_number: u64) -> Result<Vec<String>, String> {
    text_fields(record.iter().map(<[u8]>::to_vec).collect(), record_number)
}

fn text_fields(raw: Vec<Vec<u8>>, record_number: u64) -> Result<Vec<String>, String> {
    raw.into_iter()
        .enumerate()
        .map(|(i, bytes)| {
            String::from_utf8(bytes).map_err(|_| {
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
            b"",
            b"a\n",
        ];
        for data in cases {
            let ours = SmallTable::parse(data, "t.csv").map(|t| (t.headers, t.records));
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
}
