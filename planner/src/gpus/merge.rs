//! `list_accelerators` over several clouds (`sky/catalog/__init__.py::
//! list_accelerators`, `list_accelerator_counts`): each cloud's catalog
//! module asked (`listing.rs`'s common implementation, GCP's `gcp.rs`),
//! the answers merged in cloud order.

use std::borrow::Cow;

use rustc_hash::FxHashMap;

use super::listing::{Compiled, Listing, compile, list_impl};
use super::rows::Row;
use super::summary::CloudSummary;
use super::{CloudGpuRows, Filter, GpusError, Offer};
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
    let mut at: FxHashMap<String, usize> = FxHashMap::default();
    for cat in catalogs {
        let listing = list_cloud(cat, filter, &compiled, require_price)?;
        let mut merge = |name: String, offers: Vec<Offer>| match at.get(&name) {
            Some(&i) => out[i].1.extend(offers),
            None => {
                at.insert(name.clone(), out.len());
                out.push((name, offers));
            }
        };
        match listing {
            Cow::Owned(listing) => listing.into_iter().for_each(|(n, o)| merge(n, o)),
            Cow::Borrowed(listing) => listing
                .iter()
                .for_each(|(n, o)| merge(n.clone(), o.clone())),
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
    let compiled = compile(&filter)?;
    // The names in `list_accelerators`' merged order, each with its
    // distinct counts; the offers themselves are not kept.
    let mut out: Vec<(String, Vec<f64>)> = Vec::new();
    let mut at: FxHashMap<String, usize> = FxHashMap::default();
    for cat in catalogs {
        let listing = list_cloud(cat, &filter, &compiled, false)?;
        for (name, offers) in listing.iter() {
            let i = match at.get(name) {
                Some(&i) => i,
                None => {
                    at.insert(name.clone(), out.len());
                    out.push((name.clone(), Vec::new()));
                    out.len() - 1
                }
            };
            let counts = &mut out[i].1;
            for o in offers {
                if !counts
                    .iter()
                    .any(|c| c.total_cmp(&o.accelerator_count).is_eq())
                {
                    counts.push(o.accelerator_count);
                }
            }
        }
    }
    for (_, counts) in &mut out {
        counts.sort_by(f64::total_cmp);
    }
    Ok(out)
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
fn list_cloud<'a>(
    cat: &'a CloudGpuRows,
    filter: &Filter,
    compiled: &Compiled,
    require_price: bool,
) -> Result<Cow<'a, Listing>, GpusError> {
    let Some(summary) = &cat.summary else {
        return Ok(Cow::Owned(list_rows(cat, filter, compiled, require_price)));
    };
    if filter.is_unfiltered() {
        Ok(Cow::Borrowed(summary.listing(require_price)))
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
