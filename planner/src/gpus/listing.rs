//! `list_accelerators` as one SkyPilot catalog answers it: a cloud's rows
//! made offers per accelerator name (`sky/catalog/common.py::
//! list_accelerators_impl`), with pandas' sorts, de-duplication and
//! Python's tuple order kept. GCP's own is `gcp.rs`; the clouds are merged
//! in `merge.rs`.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use rustc_hash::FxHashSet;

use super::rows::{GpuInfo, Row};
use super::{GpusError, Offer};
/// What to list: the arguments of SkyPilot's `list_accelerators`.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Accelerator name, a regular expression searched in the name.
    pub name: Option<String>,
    /// Region, a regular expression searched in the region.
    pub region: Option<String>,
    /// Exact accelerator count.
    pub quantity: Option<u32>,
    /// Whether the name and region match case-sensitively.
    pub case_sensitive: bool,
    /// One row per region instead of the cheapest region.
    pub all_regions: bool,
}

impl Filter {
    /// Whether the filter lists everything, cheapest region per offer (no
    /// name, region or quantity, not `--all-regions`): the listing a
    /// [`CloudSummary`](super::CloudSummary) stores. Case-sensitivity
    /// matters only to a pattern.
    pub fn is_unfiltered(&self) -> bool {
        self.name.is_none() && self.region.is_none() && self.quantity.is_none() && !self.all_regions
    }
}

pub(super) struct Compiled {
    /// The name filter.
    pub(super) name: Option<regex::Regex>,
    /// The region filter.
    pub(super) region: Option<regex::Regex>,
}

pub(super) fn compile(filter: &Filter) -> Result<Compiled, GpusError> {
    let build = |what: &'static str, p: &Option<String>| {
        p.as_ref()
            .map(|p| {
                regex::RegexBuilder::new(p)
                    .case_insensitive(!filter.case_sensitive)
                    .build()
                    .map_err(|e| GpusError::Pattern {
                        what,
                        pattern: p.clone(),
                        message: e
                            .to_string()
                            .lines()
                            .last()
                            .unwrap_or("")
                            .trim()
                            .to_string(),
                    })
            })
            .transpose()
    };
    Ok(Compiled {
        name: build("GPU name", &filter.name)?,
        region: build("region", &filter.region)?,
    })
}

/// Offers per accelerator name, in the order SkyPilot's dict has them.
pub type Listing = Vec<(String, Vec<Offer>)>;

pub(super) fn matches(re: &Option<regex::Regex>, value: Option<&str>) -> bool {
    match re {
        None => true,
        // pandas' str.contains on a missing value is NaN, which drops the row.
        Some(re) => value.is_some_and(|v| re.is_match(v)),
    }
}

/// `common.list_accelerators_impl` (`gpus_only=True`, the only mode the CLI uses).
pub(super) fn list_impl(
    label: &'static str,
    rows: Vec<Row<'_>>,
    filter: &Filter,
    compiled: &Compiled,
) -> Listing {
    // gpus_only: rows with a GpuInfo.
    let rows: Vec<Row<'_>> = rows.into_iter().filter(|r| r.gpu_info.is_some()).collect();
    // Device memory: `ast.literal_eval` over the whole column; one failure
    // and the column is None for every row.
    let memories: Option<Vec<Option<f64>>> = rows
        .iter()
        .map(|r| match r.gpu_info {
            Some(GpuInfo::Literal(m)) => Some(m),
            _ => None,
        })
        .collect();
    struct Item<'r> {
        row: Row<'r>,
        device_memory: Option<f64>,
        has_column: bool,
    }
    let mut items: Vec<Item<'_>> = Vec::new();
    let mut seen: FxHashSet<DedupKey<'_>> = FxHashSet::default();
    for (i, row) in rows.into_iter().enumerate() {
        if row.accelerator_name.is_none() {
            continue;
        }
        let (device_memory, has_column) = match &memories {
            Some(m) => (m[i], true),
            None => (None, false),
        };
        // drop_duplicates over the nine listed columns (NaN equals NaN).
        let key = DedupKey {
            text: [row.instance_type, row.accelerator_name, row.region],
            nums: [
                bits(row.accelerator_count.value),
                bits(row.vcpus.value),
                bits(device_memory.unwrap_or(f64::NAN)),
                bits(row.memory.value),
                bits(row.price.value),
                bits(row.spot_price.value),
            ],
        };
        if seen.insert(key) {
            items.push(Item {
                row,
                device_memory,
                has_column,
            });
        }
    }
    items.retain(|it| {
        matches(&compiled.name, it.row.accelerator_name)
            && matches(&compiled.region, it.row.region)
            && filter
                .quantity
                .is_none_or(|q| it.row.accelerator_count.value == f64::from(q))
    });
    let mut groups: BTreeMap<&str, Vec<Item<'_>>> = BTreeMap::new();
    for it in items {
        let name = it.row.accelerator_name.unwrap_or_default();
        groups.entry(name).or_default().push(it);
    }
    groups
        .into_iter()
        .map(|(name, mut rows)| {
            // sort_values(['Price', 'SpotPrice'(, 'Region')]): stable, NaN last.
            rows.sort_by(|a, b| {
                nan_last(a.row.price.value, b.row.price.value)
                    .then_with(|| nan_last(a.row.spot_price.value, b.row.spot_price.value))
                    .then_with(|| {
                        if filter.all_regions {
                            none_last(a.row.region, b.row.region)
                        } else {
                            Ordering::Equal
                        }
                    })
            });
            // drop_duplicates(subset=[type, name, count, vCPUs, memory(, region)]).
            let mut seen: FxHashSet<DedupKey<'_>> = FxHashSet::default();
            rows.retain(|it| {
                seen.insert(DedupKey {
                    text: [
                        it.row.instance_type,
                        it.row.accelerator_name,
                        if filter.all_regions {
                            it.row.region
                        } else {
                            None
                        },
                    ],
                    nums: [
                        bits(it.row.accelerator_count.value),
                        bits(it.row.vcpus.value),
                        bits(it.row.memory.value),
                        0,
                        0,
                        0,
                    ],
                })
            });
            let shared_name: std::sync::Arc<str> = name.into();
            let mut offers: Vec<Offer> = rows
                .into_iter()
                .map(|it| Offer {
                    cloud: label,
                    instance_type: it.row.instance_type.map(Into::into),
                    accelerator_name: shared_name.clone(),
                    accelerator_count: it.row.accelerator_count.value,
                    cpu_count: it.row.vcpus,
                    device_memory: if it.has_column {
                        it.device_memory
                    } else {
                        None
                    },
                    memory: it.row.memory,
                    price: it.row.price,
                    spot_price: it.row.spot_price,
                    region: it.row.region.map(Into::into),
                })
                .collect();
            // ret.sort(key=(count, instance_type, cpus or 0, price, spot, region)):
            // Python's tuple order, where NaN compares neither less nor greater.
            fn key(o: &Offer) -> [Key<'_>; 6] {
                [
                    Key::F(o.accelerator_count),
                    Key::S(o.instance_type.as_deref()),
                    Key::F(o.cpu_count.get().unwrap_or(0.0)),
                    Key::F(o.price.value),
                    Key::F(o.spot_price.value),
                    Key::S(o.region.as_deref()),
                ]
            }
            offers.sort_by(|a, b| py_tuple_cmp(&key(a), &key(b)));
            (name.to_string(), offers)
        })
        .collect()
}

/// One position of a Python sort key tuple.
pub(super) enum Key<'a> {
    /// A float (NaN: a fresh NaN object, equal to nothing).
    F(f64),
    /// A string; missing is pandas' `np.nan` singleton, identical to itself.
    S(Option<&'a str>),
}

/// Python's tuple comparison as `list.sort` uses it: the first position
/// that differs decides; NaN differs from everything yet is neither less
/// nor greater, which makes the two "equal" (the stable sort keeps them).
pub(super) fn py_tuple_cmp(a: &[Key<'_>], b: &[Key<'_>]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        match (x, y) {
            (Key::F(x), Key::F(y)) => {
                if x != y {
                    return x.partial_cmp(y).unwrap_or(Ordering::Equal);
                }
            }
            (Key::S(x), Key::S(y)) => match (x, y) {
                (None, None) => {}
                (Some(x), Some(y)) if x == y => {}
                (Some(x), Some(y)) => return x.cmp(y),
                // str against float: Python raises; nothing to order by.
                _ => return Ordering::Equal,
            },
            _ => return Ordering::Equal,
        }
    }
    Ordering::Equal
}

/// A row's identity for `drop_duplicates`.
#[derive(Hash, PartialEq, Eq)]
struct DedupKey<'a> {
    text: [Option<&'a str>; 3],
    nums: [u64; 6],
}

/// A float's bits with every NaN the same (pandas treats NaN as equal
/// when dropping duplicates) and `-0.0` as `0.0`.
fn bits(x: f64) -> u64 {
    if x.is_nan() {
        f64::NAN.to_bits()
    } else if x == 0.0 {
        0
    } else {
        x.to_bits()
    }
}

/// pandas' sort order: ascending, missing values last.
pub(super) fn nan_last(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

fn none_last(a: Option<&str>, b: Option<&str>) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(x), Some(y)) => x.cmp(y),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::cloud::CloudId;
    use crate::gpus::CloudGpuRows;
    use crate::gpus::merge::{list_accelerator_counts, list_accelerators};
    use crate::gpus::rows::tests::listing_of;

    pub(crate) const AWS: &str = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n\
p3.2xlarge,V100,1.0,8.0,61.0,\"{'Gpus': [{'Name': 'V100', 'MemoryInfo': {'SizeInMiB': 16384}}]}\",3.06,0.9,us-east-1,use1-az1\n\
p3.2xlarge,V100,1.0,8.0,61.0,\"{'Gpus': [{'Name': 'V100', 'MemoryInfo': {'SizeInMiB': 16384}}]}\",3.26,1.1,us-west-2,usw2-az1\n\
p3.8xlarge,V100,4.0,32.0,244.0,\"{'Gpus': [{'Name': 'V100', 'MemoryInfo': {'SizeInMiB': 16384}}]}\",12.24,,us-east-1,use1-az1\n\
m6i.large,,,2.0,8.0,,0.096,0.03,us-east-1,use1-az1\n";

    fn aws() -> CloudGpuRows {
        listing_of(CloudId::Aws, AWS)
    }

    #[test]
    fn cheapest_region_per_instance_type_and_device_memory() {
        let cat = aws();
        let l = list_accelerators(&[&cat], &Filter::default(), true).unwrap();
        assert_eq!(l.len(), 1);
        let (name, offers) = &l[0];
        assert_eq!(name, "V100");
        assert_eq!(offers.len(), 2, "{offers:?}");
        assert_eq!(offers[0].region.as_deref(), Some("us-east-1"));
        assert_eq!(offers[0].device_memory, Some(16.0));
        assert_eq!(offers[1].accelerator_count, 4.0);
        assert!(offers[1].spot_price.get().is_none());
    }

    #[test]
    fn all_regions_keeps_one_row_per_region() {
        let cat = aws();
        let f = Filter {
            all_regions: true,
            ..Filter::default()
        };
        let l = list_accelerators(&[&cat], &f, true).unwrap();
        assert_eq!(l[0].1.len(), 3);
    }

    #[test]
    fn name_filter_is_a_case_insensitive_regex_search() {
        let cat = aws();
        let f = Filter {
            name: Some("v1".into()),
            ..Filter::default()
        };
        assert_eq!(list_accelerators(&[&cat], &f, true).unwrap().len(), 1);
        let f = Filter {
            name: Some("v1".into()),
            case_sensitive: true,
            ..Filter::default()
        };
        assert!(list_accelerators(&[&cat], &f, true).unwrap().is_empty());
        let f = Filter {
            name: Some("(".into()),
            ..Filter::default()
        };
        assert!(matches!(
            list_accelerators(&[&cat], &f, true),
            Err(GpusError::Pattern { .. })
        ));
    }

    #[test]
    fn one_non_literal_gpu_info_drops_device_memory_for_the_cloud() {
        let csv = format!("{AWS}x1,T4,1.0,4.0,16.0,T4,0.5,0.2,us-east-1,use1-az1\n");
        let cat = listing_of(CloudId::Aws, &csv);
        let l = list_accelerators(&[&cat], &Filter::default(), true).unwrap();
        assert!(
            l.iter()
                .all(|(_, o)| o.iter().all(|o| o.device_memory.is_none()))
        );
    }

    #[test]
    fn counts_are_distinct_and_sorted() {
        let cat = aws();
        let c = list_accelerator_counts(&[&cat], None).unwrap();
        assert_eq!(c, vec![("V100".to_string(), vec![1.0, 4.0])]);
    }

    #[test]
    fn integer_columns_print_as_integers() {
        let csv = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region\n\
a,H100,8,224,2048,H100,80.0,,r1\n";
        let cat = listing_of(CloudId::Oci, csv);
        let l = list_accelerators(&[&cat], &Filter::default(), true).unwrap();
        let o = &l[0].1[0];
        assert!(o.cpu_count.int && o.memory.int && !o.price.int && !o.spot_price.int);
    }
}
