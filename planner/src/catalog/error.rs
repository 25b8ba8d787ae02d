//! Why a catalog file could not be used ([`CatalogError`]), and the rows
//! skipped while reading one ([`CatalogWarning`]).

/// Why a catalog file could not be used at all.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// The CSV could not be read (I/O error or broken quoting).
    #[error("cannot read catalog {source_name}: {message}")]
    Read {
        /// File path or other name of the input.
        source_name: String,
        /// What went wrong.
        message: String,
    },
    /// The header lacks a required column.
    #[error(
        "catalog {source_name} has no {column:?} column (found: {found}); is it a SkyPilot v6/v8 catalog?"
    )]
    MissingColumn {
        /// File path or other name of the input.
        source_name: String,
        /// The missing column.
        column: &'static str,
        /// The columns the header has.
        found: String,
    },
    /// The file ends in the middle of a row: a download or copy that was
    /// cut short. Planning on the rows before the cut would silently drop
    /// the rest of the catalog, so the file is refused.
    #[error(
        "catalog {source_name} is truncated: line {line} ends mid-row (no final newline, {found} of {expected} fields); re-download it or remove it to use the bundled catalog"
    )]
    Truncated {
        /// File path or other name of the input.
        source_name: String,
        /// The 1-based line that was cut.
        line: u64,
        /// Fields on that line.
        found: usize,
        /// Fields in the header.
        expected: usize,
    },
    /// The file is empty (truncated download?).
    #[error(
        "catalog {source_name} is empty; re-download it or remove it to use the bundled catalog"
    )]
    Empty {
        /// File path or other name of the input.
        source_name: String,
    },
}

/// A row that was skipped while loading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogWarning {
    /// File path or other name of the input.
    pub source_name: String,
    /// 1-based line number in the file.
    pub line: u64,
    /// Why the row was skipped.
    pub message: String,
}

impl std::fmt::Display for CatalogWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: skipped malformed row: {}",
            self.source_name, self.line, self.message
        )
    }
}
