//! The small tables beside the `vms.csv` files: AWS zone mappings
//! (`aws/az_mappings-<hash>.csv`), `common/accelerators.csv` and
//! `common/metadata.csv`.

use std::io::Read;

use rustc_hash::FxHashMap;

use super::small_table::SmallTable;
use super::{CatalogError, Text};

/// AWS zone-ID → zone-name mapping (`aws/az_mappings-<hash>.csv`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AzMapping {
    names: FxHashMap<Box<str>, Text>,
}

impl AzMapping {
    /// Parses `AvailabilityZone,AvailabilityZoneName` rows.
    pub fn from_reader<R: Read>(reader: R, source_name: &str) -> Result<AzMapping, CatalogError> {
        let table = SmallTable::parse(&read_all(reader, source_name)?, source_name)?;
        let id_col = table.column("AvailabilityZone");
        let name_col = table.column("AvailabilityZoneName");
        let (Some(id_col), Some(name_col)) = (id_col, name_col) else {
            return Err(CatalogError::MissingColumn {
                source_name: source_name.into(),
                column: "AvailabilityZoneName",
                found: table.header_line(),
            });
        };
        let names = table
            .records([id_col, name_col])
            .map(|[id, name]| (id.into(), Text::from(name)))
            .collect();
        Ok(AzMapping { names })
    }

    /// Number of zones mapped.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the mapping is empty.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The zone name of zone ID `id`, if mapped.
    #[inline]
    pub(super) fn zone_name(&self, id: &str) -> Option<&Text> {
        self.names.get(id)
    }
}

/// `common/accelerators.csv`: canonical accelerator names and the clouds offering them.
#[derive(Debug, Clone, Default)]
pub struct AcceleratorTable {
    /// (name, clouds string as written, e.g. `['AWS', 'GCP']`).
    pub entries: Vec<(String, String)>,
}

impl AcceleratorTable {
    /// Parses `AcceleratorName,Clouds`.
    pub fn from_reader<R: Read>(reader: R, source_name: &str) -> Result<Self, CatalogError> {
        let table = SmallTable::parse(&read_all(reader, source_name)?, source_name)?;
        let name = table
            .column("AcceleratorName")
            .ok_or_else(|| CatalogError::MissingColumn {
                source_name: source_name.into(),
                column: "AcceleratorName",
                found: table.header_line(),
            })?;
        let entries = match table.column("Clouds") {
            Some(clouds) => table
                .records([name, clouds])
                .map(|[n, c]| (n.to_string(), c.to_string()))
                .collect(),
            None => table
                .records([name])
                .map(|[n]| (n.to_string(), String::new()))
                .collect(),
        };
        Ok(AcceleratorTable { entries })
    }
}

/// One row of `common/metadata.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuMetadata {
    /// GPU name.
    pub gpu: String,
    /// Memory in GB.
    pub memory_gb: f64,
    /// Manufacturer (`NVIDIA`, `AMD`, ...).
    pub manufacturer: String,
}

/// Parses `common/metadata.csv` (`GPU,MemoryGB,Manufacturer`).
pub fn parse_gpu_metadata<R: Read>(
    reader: R,
    source_name: &str,
) -> Result<Vec<GpuMetadata>, CatalogError> {
    let table = SmallTable::parse(&read_all(reader, source_name)?, source_name)?;
    let pos = |n: &'static str| {
        table.column(n).ok_or_else(|| CatalogError::MissingColumn {
            source_name: source_name.into(),
            column: n,
            found: table.header_line(),
        })
    };
    let (g, m, f) = (pos("GPU")?, pos("MemoryGB")?, pos("Manufacturer")?);
    Ok(table
        .records([g, m, f])
        .filter_map(|[gpu, memory, manufacturer]| {
            Some(GpuMetadata {
                gpu: gpu.to_string(),
                memory_gb: memory.trim().parse::<f64>().ok()?,
                manufacturer: manufacturer.to_string(),
            })
        })
        .collect())
}

/// The whole of a small table's input.
fn read_all<R: Read>(mut reader: R, source_name: &str) -> Result<Vec<u8>, CatalogError> {
    let mut data = Vec::new();
    reader
        .read_to_end(&mut data)
        .map_err(|e| CatalogError::Read {
            source_name: source_name.to_string(),
            message: e.to_string(),
        })?;
    Ok(data)
}
