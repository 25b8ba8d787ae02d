//! SkyPilot-compatible catalogs (`<dir>/<cloud>/vms.csv`), parsed from bytes.
//!
//! One reader for every use: [`CsvParse`] (`csv_parse.rs`: header, parts,
//! truncation; `row_parser.rs`: a record made a [`VmRow`]; `csv_stream.rs`:
//! [`CsvImageParse`], the same fed in pieces straight into an image) gives a cloud's
//! [`CloudCatalog`] (`cloud_catalog.rs`: rows, indexes, the zone-mapping
//! join), which [`image`] stores pre-indexed and loads back, whole or only
//! the row runs a reader wants. The launch's queries are in [`query`], the
//! rows a request can read in [`selection`]; `sky gpus list` reads the same
//! catalogs ([`crate::gpus`]). The small tables beside them (zone mappings,
//! `common/*.csv`) are in `common.rs`; GCP's host and accelerator rules in
//! [`gcp`]; the virtual catalogs of Kubernetes, SSH Node Pools and Slurm in
//! [`kubernetes`], [`ssh`] and [`slurm`].

mod cloud_catalog;
mod common;
mod csv_parse;
mod csv_stream;
mod error;
pub mod gcp;
pub mod image;
pub mod kubernetes;
pub mod nebius;
pub mod oci;
pub mod query;
mod row;
mod row_parser;
pub mod selection;
pub mod slurm;
mod small_table;
pub mod ssh;

pub use cloud_catalog::CloudCatalog;
pub use common::{AcceleratorTable, AzMapping, GpuMetadata, parse_gpu_metadata};
pub use csv_parse::{CsvParse, CsvPart};
pub use csv_stream::{CsvImageParse, CsvPiece, CsvSlices, PIECE_BYTES, ParsedPiece, SlicePiece};
pub use error::{CatalogError, CatalogWarning};
pub(crate) use row::Num;
pub use row::{Columns, NUMBER_COLUMNS, Schema, Text, VmRow};

use crate::cloud::CloudId;

/// Every catalog the optimizer consults.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    clouds: Vec<CloudCatalog>,
    /// `common/accelerators.csv`.
    pub accelerators: AcceleratorTable,
    /// `common/metadata.csv`.
    pub gpu_metadata: Vec<GpuMetadata>,
}

impl Catalog {
    /// An empty catalog (add clouds with [`Catalog::insert`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds or replaces one cloud's catalog.
    pub fn insert(&mut self, catalog: CloudCatalog) {
        self.clouds.retain(|c| c.cloud != catalog.cloud);
        self.clouds.push(catalog);
    }

    /// The catalog of `cloud`, if loaded.
    pub fn cloud(&self, cloud: CloudId) -> Option<&CloudCatalog> {
        self.clouds.iter().find(|c| c.cloud == cloud)
    }

    /// Mutable access to the catalog of `cloud`.
    pub fn cloud_mut(&mut self, cloud: CloudId) -> Option<&mut CloudCatalog> {
        self.clouds.iter_mut().find(|c| c.cloud == cloud)
    }

    /// Loaded cloud catalogs.
    pub fn clouds(&self) -> impl Iterator<Item = &CloudCatalog> {
        self.clouds.iter()
    }
}
