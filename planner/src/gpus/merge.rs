//! `list_accelerators` over several clouds (`sky/catalog/__init__.py::
//! list_accelerators`, `list_accelerator_counts`): each cloud's catalog
//! module asked (`listing.rs`'s common implementation, GCP's `gcp.rs`),
//! the answers merged in cloud order.

use super::listing::{Compiled, Listing, compile, list_impl};
use super::rows::Row;
use super::summary::CloudSummary;
use super::{CloudGpuRows, Filter, GpusError};
use crate::cloud::CloudId;

/// `list_accelerators` over several clouds (`sky/catalog/__init__.py`):
/// each cloud's groups in name order, merged in cloud order (a name first
/// seen in a later cloud comes later). `require_price` is SkyPilot's flag:
/// off for the quantity table, where GCP's GPUs are not priced with a host.
pub fn list_accelerators(
    catalogs: &[&CloudGpuRows],
    filter: &Filter,
    require_price: bool,
) -> Result<Listing, GpusError> {
    let compiled = compile(filter)?;
    let mut out: Listing = Vec::new();
    for cat in catalogs {
        for (name, offers) in list_cloud(cat, filter, &compiled, require_price)? {
            match out.iter_mut().find(|(n, _)| *n == name) {
                Some((_, v)) => v.extend(offers),
                None => out.push((name, offers)),
            }
        }
    }
    Ok(out)
}

/// `list_accelerator_counts`: per accelerator name, the sorted distinct counts.
pub fn list_accelerator_counts(
    catalogs: &[&CloudGpuRows],
    region: Option<&str>,
) -> Result<Vec<(String, Vec<f64>)>, GpusError> {
    // SkyPilot calls each cloud's list_accelerators with its defaults here:
    // case-sensitive, cheapest region, no price needed.
    let filter = Filter {
        region: region.map(str::to_string),
        case_sensitive: true,
        ..Filter::default()
    };
    let listing = list_accelerators(catalogs, &filter, false)?;
    Ok(listing
        .into_iter()
        .map(|(name, offers)| {
            let mut counts: Vec<f64> = Vec::new();
            for o in offers {
                if !counts
                    .iter()
                    .any(|c| c.total_cmp(&o.accelerator_count).is_eq())
                {
                    counts.push(o.accelerator_count);
                }
            }
            counts.sort_by(f64::total_cmp);
            (name, counts)
        })
        .collect())
}

/// One cloud's `list_accelerators` without a name, region or quantity
/// filter, cheapest region per offer: what a [`CloudSummary`](super::CloudSummary) stores.
pub(super) fn list_cloud_unfiltered(cat: &CloudGpuRows, require_price: bool) -> Listing {
    let filter = Filter::default();
    let compiled = Compiled {
        name: None,
        region: None,
    };
    list_rows(cat, &filter, &compiled, require_price)
}

/// One cloud: its catalog module's `list_accelerators`, from its stored
/// unfiltered answers when it was read through them (which answer nothing
/// else).
fn list_cloud(
    cat: &CloudGpuRows,
    filter: &Filter,
    compiled: &Compiled,
    require_price: bool,
) -> Result<Listing, GpusError> {
    let Some(summary) = &cat.summary else {
        return Ok(list_rows(cat, filter, compiled, require_price));
    };
    if filter.is_unfiltered() {
        Ok(summary.listing(require_price).clone())
    } else {
        Err(GpusError::Catalog {
            source_name: cat.label.to_string(),
            message: "its stored listing answers only a listing without a GPU name, region, \
                      quantity or --all-regions"
                .into(),
        })
    }
}

/// One cloud's catalog module's `list_accelerators`, from its rows.
fn list_rows(
    cat: &CloudGpuRows,
    filter: &Filter,
    compiled: &Compiled,
    require_price: bool,
) -> Listing {
    match cat.cloud {
        CloudId::Gcp if require_price => super::gcp::list_gcp(cat, filter, compiled),
        CloudId::Seeweb => {
            // seeweb_catalog.list_accelerators drops rows without a region first.
            let rows: Vec<Row<'_>> = cat
                .rows()
                .filter(|r| r.region.is_some_and(|v| !v.trim().is_empty()))
                .collect();
            list_impl(cat.label, rows, filter, compiled)
        }
        _ => list_impl(cat.label, cat.rows().collect(), filter, compiled),
    }
}

impl CloudSummary {
    /// The summary of a cloud's catalog, as its rows answer (here rather
    /// than in `summary`, which stays below the listing it stores).
    pub fn of(rows: &CloudGpuRows) -> CloudSummary {
        CloudSummary::from_listings(
            rows.cloud,
            list_cloud_unfiltered(rows, true),
            list_cloud_unfiltered(rows, false),
            super::accelerator_names(&[rows]),
        )
    }
}
