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
        let mut names = FxHashMap::with_capacity_and_hasher(table.len(), Default::default());
        names.extend(
            table
                .records([id_col, name_col])
                .map(|[id, name]| (id.into(), Text::from(name))),
        );
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

/// `common/accelerators.csv`: canonical accelerator names and the clouds
/// offering them. Kept as read (one string, [`SmallTable`]): every launch
/// reads it, and a `String` per field cost more than the reading.
#[derive(Debug, Clone, Default)]
pub struct AcceleratorTable {
    /// The table; `None` for the empty one.
    table: Option<SmallTable>,
    /// The name column and the clouds column, if the file has one.
    name: usize,
    clouds: Option<usize>,
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
        let clouds = table.column("Clouds");
        Ok(AcceleratorTable {
            table: Some(table),
            name,
            clouds,
        })
    }

    /// Each row's (name, clouds string as written, e.g. `['AWS', 'GCP']`;
    /// empty without a `Clouds` column), in file order.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &str)> {
        self.table.iter().flat_map(move |table| {
            (0..table.len()).map(move |r| {
                let clouds = self.clouds.map_or("", |c| table.field(r, c));
                (table.field(r, self.name), clouds)
            })
        })
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
    // Sized once: collecting a filtered iterator grows the vector.
    let mut rows = Vec::with_capacity(table.len());
    rows.extend(
        table
            .records([g, m, f])
            .filter_map(|[gpu, memory, manufacturer]| {
                Some(GpuMetadata {
                    gpu: gpu.to_string(),
                    memory_gb: memory.trim().parse::<f64>().ok()?,
                    manufacturer: manufacturer.to_string(),
                })
            }),
    );
    Ok(rows)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zone_mapping_maps_as_a_map_built_in_file_order() {
        let csv = "AvailabilityZone,AvailabilityZoneName\n\
                   use1-az2,us-east-1b\nuse1-az1,us-east-1a\nusw2-az1,us-west-2a\nuse1-az2,us-east-1c\n";
        let mapping = AzMapping::from_reader(csv.as_bytes(), "m.csv").unwrap();
        // The last of equal IDs wins, as in a map filled in file order.
        let expected: FxHashMap<&str, &str> = [
            ("use1-az2", "us-east-1c"),
            ("use1-az1", "us-east-1a"),
            ("usw2-az1", "us-west-2a"),
        ]
        .into_iter()
        .collect();
        assert_eq!(mapping.len(), expected.len());
        for (id, name) in &expected {
            assert_eq!(mapping.zone_name(id).map(|t| &**t), Some(*name), "{id}");
        }
        for id in ["", "use1-az3", "a", "zzz", "use1-az2 "] {
            assert!(mapping.zone_name(id).is_none(), "{id}");
        }
        // A name looked up twice is one string.
        let (a, b) = (mapping.zone_name("use1-az1"), mapping.zone_name("use1-az1"));
        assert!(Text::ptr_eq(a.unwrap(), b.unwrap()));
        let fresh = AzMapping::from_reader(csv.as_bytes(), "other.csv").unwrap();
        assert_eq!(mapping, fresh, "equal whatever was looked up");
        let other = csv.replace("us-west-2a", "us-west-2b");
        assert_ne!(
            mapping,
            AzMapping::from_reader(other.as_bytes(), "m.csv").unwrap()
        );
        assert!(AzMapping::default().is_empty());
        assert!(AzMapping::default().zone_name("use1-az1").is_none());
    }

    #[test]
    fn the_accelerator_table_lists_its_rows_in_file_order() {
        let csv = "AcceleratorName,Clouds\nA100,\"['AWS', 'GCP']\"\nH100,\"['AWS']\"\n";
        let table = AcceleratorTable::from_reader(csv.as_bytes(), "a.csv").unwrap();
        let entries: Vec<_> = table.entries().collect();
        assert_eq!(entries, [("A100", "['AWS', 'GCP']"), ("H100", "['AWS']")]);
        let names_only =
            AcceleratorTable::from_reader(&b"AcceleratorName\nT4\n"[..], "a.csv").unwrap();
        assert_eq!(names_only.entries().collect::<Vec<_>>(), [("T4", "")]);
        assert_eq!(AcceleratorTable::default().entries().count(), 0);
    }
}
