//! `sky gpus list`: the accelerator offerings of the cloud catalogs and the
//! GPUs of Kubernetes-like contexts, as plain data.
//!
//! SkyPilot 0.14.1 builds the listing in three places, followed here:
//! `sky/catalog/common.py::list_accelerators_impl` (one cloud's `vms.csv`
//! rows → [`Offer`]s per accelerator name), `sky/catalog/gcp_catalog.py::
//! list_accelerators` (GCP's attachable GPUs priced with their cheapest host
//! VM, TPUs grouped per version), `sky/catalog/__init__.py::list_accelerators`
//! / `list_accelerator_counts` (the clouds merged), and the CLI's
//! `sky/client/cli/command.py::_show_gpus_impl` (per GPU: clouds ordered by
//! their cheapest offer). Pandas semantics that decide the output are kept:
//! sorts are stable with missing values last, `drop_duplicates` keeps the
//! first row, name and region filters are regular expressions
//! (`Series.str.contains`), a column read as integers prints as integers in
//! `-o json`, and device memory comes from `GpuInfo` only when every
//! considered row of the cloud parses as a Python literal (`ast.literal_eval`
//! of the whole column, or none of it).
//!
//! The rooms:
//! - `rows.rs`: a cloud's catalog as the listing reads it ([`CloudGpuRows`],
//!   over the launch's [`CloudCatalog`](crate::catalog::CloudCatalog), parsed
//!   by the one `vms.csv` reader or loaded from its image: [`ListingRuns`]
//!   are the row runs the listing decodes);
//! - `listing.rs`: `list_accelerators_impl`, one catalog's answer; `gcp.rs`:
//!   GCP's own; `merge.rs`: the clouds asked and merged
//!   ([`list_accelerators`], [`list_accelerator_counts`]);
//! - `sections.rs`: the realtime sections as data; `messages.rs`: the
//!   messages the realtime flow raises or prints, built as SkyPilot builds
//!   them;
//! - `order.rs`: the CLI's per-GPU order and `--sort-by`;
//! - `query.rs`: one invocation's arguments ([`Query`]) and their checks;
//! - `report.rs`: what is printed, as data ([`Report`] of [`Section`]s, the
//!   `-o json` listing);
//! - `summary.rs`: a cloud's unfiltered answers, computed once per catalog
//!   and stored ([`CloudSummary`]), which `sky gpus list [--all]` reads
//!   instead of the rows;
//! - `did_you_mean.rs`: close names for a GPU that matched nothing;
//! - [`kubernetes`], [`slurm`], [`show`]: the realtime clouds and the whole
//!   `_output` flow.
//!
//! Nothing here reads files: the catalogs arrive parsed and the node
//! summaries as data.

use std::sync::Arc;

mod did_you_mean;
mod gcp;
mod listing;
mod merge;
mod order;
mod query;
mod report;
mod rows;
mod summary;

pub mod kubernetes;
pub mod messages;
pub mod sections;
pub mod show;
pub mod slurm;

pub use did_you_mean::{accelerator_names, suggestions};
pub use listing::{Filter, Listing};
pub use merge::{list_accelerator_counts, list_accelerators};
pub use order::{SortBy, order, order_for_table};
pub use query::{Query, UsageError, parse_accelerator};
pub use report::{
    COMMON_GPUS, Report, Section, TPUS, context_offers, json_listing, json_listing_with, report,
};
pub use rows::{CloudGpuRows, ListingRuns};
pub use summary::{
    CloudSummary, FORMAT as SUMMARY_FORMAT, SummaryError, summaries_from_bytes, summaries_to_bytes,
};

/// A number as pandas holds it: `NaN` is a missing cell; `int` when its
/// column was read as integers (JSON prints `224`, not `224.0`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Num {
    /// The value (`NaN`: missing).
    pub value: f64,
    /// Whether the column holding it is an integer column.
    pub int: bool,
}

impl Num {
    /// A missing value.
    pub const MISSING: Num = Num {
        value: f64::NAN,
        int: false,
    };

    /// Python's `None` in an object column (`-o json` prints `null`): a
    /// missing value of an "integer" column, which pandas cannot have.
    pub const NULL: Num = Num {
        value: f64::NAN,
        int: true,
    };

    fn float(value: f64) -> Num {
        Num { value, int: false }
    }

    /// The value, `None` when missing.
    pub fn get(self) -> Option<f64> {
        (!self.value.is_nan()).then_some(self.value)
    }
}

/// One offering: SkyPilot's `sky/catalog/common.py::InstanceTypeInfo`.
/// Its strings are shared (`Arc<str>`): a listing merges, orders and copies
/// ~1,000 offers, and a stored summary's repeated names are read once.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    /// The catalog label (`AWS`, `GCP`, `scp`, ...).
    pub cloud: &'static str,
    /// Instance type; `None` for a GCP TPU (printed `(attachable)`).
    pub instance_type: Option<Arc<str>>,
    /// Accelerator name as the catalog writes it.
    pub accelerator_name: Arc<str>,
    /// Accelerators per instance (always a float, as SkyPilot casts it).
    pub accelerator_count: f64,
    /// vCPUs.
    pub cpu_count: Num,
    /// Memory of one device in GiB; `None` when the cloud's `GpuInfo` column
    /// is not made of Python literals (SkyPilot then stores `None`).
    pub device_memory: Option<f64>,
    /// Host memory in GiB.
    pub memory: Num,
    /// Cheapest on-demand hourly price of the group.
    pub price: Num,
    /// Cheapest spot hourly price of the group.
    pub spot_price: Num,
    /// Region (`None`: missing).
    pub region: Option<Arc<str>>,
}

/// Why a catalog or a filter cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GpusError {
    /// A `vms.csv` lacks a column the listing needs.
    #[error("{source_name}: {message}")]
    Catalog {
        /// The file.
        source_name: String,
        /// What is wrong.
        message: String,
    },
    /// A name or region filter is not a valid regular expression.
    #[error("invalid {what} {pattern:?}: not a valid regular expression ({message})")]
    Pattern {
        /// `GPU name` or `region`.
        what: &'static str,
        /// The pattern.
        pattern: String,
        /// The parser's message.
        message: String,
    },
}
