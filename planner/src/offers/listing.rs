//! What `sky offers` shows of the offers: filtered (`--max-price`,
//! `--min-gpu-memory`, `--min-total-gpu-memory`), sorted (`--sort-by`,
//! `--desc`), capped (`--max-offers`) and, with `--group-by`, grouped.
//! Pure: [`select`] reads a slice of [`Offer`]s and returns references
//! into it.

use std::cmp::Ordering;

use super::Offer;

/// `--max-offers` when not given.
pub const DEFAULT_MAX_OFFERS: usize = 20;

/// The order of the offers (`--sort-by`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortKey {
    /// Dollars per hour for all nodes.
    #[default]
    Price,
    /// Dollars per accelerator-hour.
    GpuPrice,
    /// vCPUs per node.
    Vcpus,
    /// Memory per node.
    Memory,
    /// Accelerator memory per node (every accelerator of one node).
    GpuMemory,
}

impl SortKey {
    /// The offer's value for this key; `None` sorts last either way.
    pub fn value(self, o: &Offer) -> Option<f64> {
        match self {
            SortKey::Price => Some(o.price),
            SortKey::GpuPrice => o.gpu_price(),
            SortKey::Vcpus => o.vcpus,
            SortKey::Memory => o.memory_gb,
            SortKey::GpuMemory => o.total_gpu_memory_gb(),
        }
    }

    /// The flag's value naming it.
    pub fn name(self) -> &'static str {
        match self {
            SortKey::Price => "price",
            SortKey::GpuPrice => "gpu-price",
            SortKey::Vcpus => "vcpus",
            SortKey::Memory => "memory",
            SortKey::GpuMemory => "gpu-memory",
        }
    }
}

/// What offers are grouped by (`--group-by`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    /// The accelerator's name (`-`: none).
    Gpu,
    /// The cloud.
    Cloud,
    /// The cloud and region.
    Region,
    /// Accelerators per node (`-`: none).
    Count,
}

impl GroupBy {
    /// The flag's value naming it.
    pub fn name(self) -> &'static str {
        match self {
            GroupBy::Gpu => "gpu",
            GroupBy::Cloud => "cloud",
            GroupBy::Region => "region",
            GroupBy::Count => "count",
        }
    }

    /// The offer's group.
    pub fn key(self, o: &Offer) -> String {
        match self {
            GroupBy::Gpu => o.accelerator.clone().unwrap_or_else(|| "-".into()),
            GroupBy::Cloud => o.cloud.repr().to_string(),
            GroupBy::Region => match &o.region {
                Some(r) => format!("{}/{r}", o.cloud.repr()),
                None => o.cloud.repr().to_string(),
            },
            GroupBy::Count => o
                .accelerator_count
                .filter(|c| *c > 0.0)
                .map_or_else(|| "-".into(), |c| crate::resources::AccCount(c).to_string()),
        }
    }
}

/// Offers left out before sorting.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Filters {
    /// At most this many dollars per hour for all nodes (`--max-price`).
    pub max_price: Option<f64>,
    /// At least this much memory (GB) per accelerator (`--min-gpu-memory`);
    /// offers without accelerators, or whose accelerator's memory is not
    /// known, are left out.
    pub min_gpu_memory_gb: Option<f64>,
    /// At least this much accelerator memory (GB) per node, every
    /// accelerator of one node together (`--min-total-gpu-memory`).
    pub min_total_gpu_memory_gb: Option<f64>,
}

impl Filters {
    /// Whether `o` passes every filter.
    pub fn keeps(&self, o: &Offer) -> bool {
        let at_least =
            |min: Option<f64>, v: Option<f64>| min.is_none_or(|m| v.is_some_and(|v| v >= m));
        self.max_price.is_none_or(|m| o.price <= m)
            && at_least(
                self.min_gpu_memory_gb,
                o.gpu_memory_gb.filter(|_| o.total_gpus().is_some()),
            )
            && at_least(self.min_total_gpu_memory_gb, o.total_gpu_memory_gb())
    }
}

/// How to list the offers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Query {
    /// At most this many rows (offers, or groups with `group_by`).
    pub max_offers: usize,
    /// The order.
    pub sort: SortKey,
    /// Largest first.
    pub desc: bool,
    /// Group the offers.
    pub group_by: Option<GroupBy>,
    /// The filters.
    pub filters: Filters,
}

impl Default for Query {
    fn default() -> Self {
        Query {
            max_offers: DEFAULT_MAX_OFFERS,
            sort: SortKey::Price,
            desc: false,
            group_by: None,
            filters: Filters::default(),
        }
    }
}

/// One group of offers (`--group-by`).
#[derive(Debug, Clone, PartialEq)]
pub struct Group<'a> {
    /// What the offers share (see [`GroupBy::key`]).
    pub key: String,
    /// How many offers.
    pub count: usize,
    /// The lowest price in the group.
    pub min_price: f64,
    /// The highest price in the group.
    pub max_price: f64,
    /// Its cheapest offer (the first in enumeration order among equals).
    pub cheapest: &'a Offer,
}

/// What is shown of a task's offers.
#[derive(Debug, Clone, PartialEq)]
pub struct Listing<'a> {
    /// Offers before the filters.
    pub enumerated: usize,
    /// Offers that pass the filters (the `M` of "Shown N of M offers").
    pub matched: usize,
    /// Lowest and highest price of the matched offers.
    pub price_range: Option<(f64, f64)>,
    /// The offers shown, in order (without `group_by`), at most `max_offers`.
    pub offers: Vec<&'a Offer>,
    /// With `group_by`: every group, in order (the cap applies to what is
    /// shown: [`Listing::shown_groups`]).
    pub groups: Vec<Group<'a>>,
    /// The query.
    pub query: Query,
}

impl<'a> Listing<'a> {
    /// The groups shown (at most `max_offers`).
    pub fn shown_groups(&self) -> &[Group<'a>] {
        &self.groups[..self.groups.len().min(self.query.max_offers)]
    }
}

/// `a` before `b` under `key` (`None` last either way; ties: the lower
/// price, then the order given, as the sort is stable).
fn order(key: SortKey, desc: bool, a: &Offer, b: &Offer) -> Ordering {
    let by_key = match (key.value(a), key.value(b)) {
        (Some(x), Some(y)) if desc => y.total_cmp(&x),
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    };
    by_key.then_with(|| a.price.total_cmp(&b.price))
}

/// Filters, sorts, caps and groups `offers` (in enumeration order).
pub fn select<'a>(offers: &'a [Offer], query: &Query) -> Listing<'a> {
    let mut kept: Vec<&Offer> = offers.iter().filter(|o| query.filters.keeps(o)).collect();
    let price_range = kept.iter().fold(None, |acc: Option<(f64, f64)>, o| {
        Some(acc.map_or((o.price, o.price), |(lo, hi)| {
            (lo.min(o.price), hi.max(o.price))
        }))
    });
    let matched = kept.len();
    let (shown, groups) = match query.group_by {
        Some(by) => (Vec::new(), groups(&kept, by, query)),
        None => {
            kept.sort_by(|a, b| order(query.sort, query.desc, a, b));
            kept.truncate(query.max_offers);
            (kept, Vec::new())
        }
    };
    Listing {
        enumerated: offers.len(),
        matched,
        price_range,
        offers: shown,
        groups,
        query: *query,
    }
}

/// The groups of `kept` (first-seen order), each with its count, price
/// range and cheapest offer, ordered by `query`'s key of the cheapest.
fn groups<'a>(kept: &[&'a Offer], by: GroupBy, query: &Query) -> Vec<Group<'a>> {
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut out: Vec<Group<'a>> = Vec::new();
    for &o in kept {
        let key = by.key(o);
        match index.get(&key) {
            Some(&i) => {
                let g = &mut out[i];
                g.count += 1;
                g.min_price = g.min_price.min(o.price);
                g.max_price = g.max_price.max(o.price);
                if o.price < g.cheapest.price {
                    g.cheapest = o;
                }
            }
            None => {
                index.insert(key.clone(), out.len());
                out.push(Group {
                    key,
                    count: 1,
                    min_price: o.price,
                    max_price: o.price,
                    cheapest: o,
                });
            }
        }
    }
    out.sort_by(|a, b| order(query.sort, query.desc, a.cheapest, b.cheapest));
    out
}

#[cfg(test)]
mod tests;
