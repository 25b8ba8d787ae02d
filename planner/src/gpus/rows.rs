//! A cloud's catalog as `sky gpus list` reads it: the launch's
//! [`CloudCatalog`] (the one `vms.csv` reader, or its image) seen through
//! pandas' eyes — missing-value strings, integer columns, `GpuInfo` as
//! `ast.literal_eval` reads it.

use rustc_hash::FxHashMap;

use super::summary::{CloudSummary, label};
use super::{GpusError, Num};
use crate::catalog::image::RunFilter;
use crate::catalog::{CloudCatalog, Text, VmRow};
use crate::cloud::CloudId;
use crate::pytext::pylit;

/// The rows of one cloud's catalog that the listing reads.
#[derive(Debug, Clone)]
pub struct CloudGpuRows {
    /// The cloud.
    pub cloud: CloudId,
    /// The label its catalog module lists it under (the table's
    /// `listing_label`).
    pub(super) label: &'static str,
    /// The rows the listing reads, in file order.
    rows: Vec<VmRow>,
    /// Per row of `rows`: its `GpuInfo` as `ast.literal_eval` reads it
    /// (`None`: a missing cell, kept for GCP's host VMs only).
    gpu_info: Vec<Option<GpuInfo>>,
    /// Whether each of [`INTEGER_COLUMNS`] is an integer column.
    integers: [bool; 5],
    /// The catalog's unfiltered answers, when they were read instead of
    /// its rows (`rows` is then empty): see [`CloudSummary`].
    pub(super) summary: Option<Box<CloudSummary>>,
}

/// The number columns the listing prints, in [`Row`]'s order: pandas reads
/// each as integers when every cell is one.
const INTEGER_COLUMNS: [&str; 5] = [
    "AcceleratorCount",
    "vCPUs",
    "MemoryGiB",
    "Price",
    "SpotPrice",
];

/// The columns without which a catalog cannot be listed
/// (`list_accelerators_impl` groups by them).
const REQUIRED_COLUMNS: [&str; 2] = ["AcceleratorName", "AcceleratorCount"];

/// One `vms.csv` row as the listing reads it: text cells that pandas reads
/// as missing are `None`, numbers carry their column's integer-ness.
#[derive(Debug, Clone, Copy)]
pub(super) struct Row<'a> {
    pub(super) instance_type: Option<&'a str>,
    pub(super) accelerator_name: Option<&'a str>,
    pub(super) accelerator_count: Num,
    pub(super) vcpus: Num,
    pub(super) memory: Num,
    /// `GpuInfo`, read once: `None` when the cell is missing.
    pub(super) gpu_info: Option<GpuInfo>,
    pub(super) price: Num,
    pub(super) spot_price: Num,
    pub(super) region: Option<&'a str>,
    pub(super) zone: Option<&'a str>,
}

/// A `GpuInfo` cell as `ast.literal_eval` sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum GpuInfo {
    /// Not a Python literal (GCP's bare `tpu-v4-8`): `literal_eval` raises.
    NotLiteral,
    /// A literal; its `Gpus[0].MemoryInfo.SizeInMiB` in GiB, if it has one.
    Literal(Option<f64>),
}

impl GpuInfo {
    fn read(cell: &str) -> GpuInfo {
        match pylit::parse(cell) {
            None => GpuInfo::NotLiteral,
            Some(v) => GpuInfo::Literal(device_memory_mib(&v).map(|m| m / 1024.0)),
        }
    }
}

/// `row['Gpus'][0]['MemoryInfo']['SizeInMiB']`.
fn device_memory_mib(v: &pylit::Value) -> Option<f64> {
    v.get("Gpus")?
        .index(0)?
        .get("MemoryInfo")?
        .get("SizeInMiB")?
        .as_num()
}

/// pandas' default missing-value strings (`read_csv(na_values=None)`).
const NA_STRINGS: [&str; 18] = [
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan",
];

fn is_na(cell: &str) -> bool {
    // Every NA string starts with one of these: most cells are decided by
    // their first byte.
    match cell.as_bytes().first() {
        None => true,
        Some(b'#' | b'-' | b'1' | b'<' | b'N' | b'n') => {
            NA_STRINGS.contains(&cell) || cell == "null"
        }
        Some(_) => false,
    }
}

/// A text cell as pandas reads it: `None` when missing.
fn cell(text: Option<&Text>) -> Option<&str> {
    text.map(|t| &**t).filter(|t| !is_na(t))
}

impl CloudGpuRows {
    /// The listing's view of a cloud's catalog (every row, or the runs of
    /// [`ListingRuns`]: the same listing); `source_name` names the file in
    /// errors. A catalog without an `AcceleratorName` or `AcceleratorCount`
    /// column cannot be listed.
    pub fn new(catalog: CloudCatalog, source_name: &str) -> Result<Self, GpusError> {
        let cloud = catalog.cloud;
        let columns = catalog.columns();
        if let Some(missing) = REQUIRED_COLUMNS.iter().find(|c| !columns.has(c)) {
            return Err(GpusError::Catalog {
                source_name: source_name.to_string(),
                message: format!(
                    "no {missing} column (found: {})",
                    columns.names().collect::<Vec<_>>().join(",")
                ),
            });
        }
        let integers = INTEGER_COLUMNS.map(|c| columns.is_integer(c));
        // Only the rows the listing can read are kept: those with a
        // `GpuInfo` (`gpus_only`), and GCP's host VMs (`ListingRuns`).
        let gcp_hosts = ListingRuns::of(cloud).gcp_hosts;
        let mut rows = Vec::new();
        let mut gpu_info = Vec::new();
        // Each distinct cell is parsed once: rows come in runs of one
        // instance type, and a catalog has a few dozen distinct cells.
        let mut parsed: FxHashMap<Text, GpuInfo> = FxHashMap::default();
        let mut last: Option<(Text, GpuInfo)> = None;
        for row in catalog.rows {
            let info = row.gpu_info.as_ref().filter(|t| !is_na(t)).map(|text| {
                if let Some((seen, info)) = &last
                    && Text::ptr_eq(seen, text)
                {
                    return *info;
                }
                let info = *parsed
                    .entry(text.clone())
                    .or_insert_with(|| GpuInfo::read(text));
                last = Some((text.clone(), info));
                info
            });
            let host = gcp_hosts
                && row
                    .instance_type
                    .as_deref()
                    .is_some_and(crate::catalog::gcp::is_gpu_host);
            if info.is_some() || host {
                rows.push(row);
                gpu_info.push(info);
            }
        }
        Ok(CloudGpuRows {
            cloud,
            label: label(cloud),
            rows,
            gpu_info,
            integers,
            summary: None,
        })
    }

    /// The listing's view of a cloud's catalog through its stored
    /// unfiltered answers: it answers a listing without a GPU name, a
    /// region or `--all-regions` ([`Query::reads_summaries`](super::Query::reads_summaries))
    /// exactly as the rows would, and refuses any other.
    pub fn from_summary(summary: CloudSummary) -> Self {
        CloudGpuRows {
            cloud: summary.cloud,
            label: label(summary.cloud),
            rows: Vec::new(),
            gpu_info: Vec::new(),
            integers: [false; 5],
            summary: Some(Box::new(summary)),
        }
    }

    /// The rows, as the listing reads them.
    pub(super) fn rows(&self) -> impl Iterator<Item = Row<'_>> {
        let num = |value: Option<f64>, column: usize| Num {
            value: value.unwrap_or(f64::NAN),
            int: self.integers[column],
        };
        self.rows
            .iter()
            .zip(&self.gpu_info)
            .map(move |(r, info)| Row {
                instance_type: cell(r.instance_type.as_ref()),
                accelerator_name: cell(r.accelerator_name.as_ref()),
                accelerator_count: num(r.accelerator_count(), 0),
                vcpus: num(r.vcpus(), 1),
                memory: num(r.memory_gib(), 2),
                gpu_info: *info,
                price: num(r.price(), 3),
                spot_price: num(r.spot_price(), 4),
                region: cell(Some(&r.region)),
                zone: cell(r.zone.as_ref()),
            })
    }
}

/// The row runs of a cloud's catalog image that `sky gpus list` reads:
/// those with an accelerator (every row it lists has one), and on GCP also
/// the host VMs its attachable GPUs are priced with (`catalog::gcp::is_gpu_host`).
/// Loading only these runs gives the listing the rows a whole parse would.
#[derive(Debug, Clone, Copy)]
pub struct ListingRuns {
    gcp_hosts: bool,
}

impl ListingRuns {
    /// The runs the listing reads of `cloud`'s catalog.
    pub fn of(cloud: CloudId) -> ListingRuns {
        ListingRuns {
            gcp_hosts: cloud == CloudId::Gcp,
        }
    }
}

impl RunFilter for ListingRuns {
    fn is_all(&self) -> bool {
        false
    }

    fn wants_accelerator(&self, accelerator: Option<&str>) -> bool {
        accelerator.is_some()
    }

    fn wants_instance_type(&self, instance_type: Option<&str>) -> bool {
        self.gcp_hosts && instance_type.is_some_and(crate::catalog::gcp::is_gpu_host)
    }

    fn reads_instance_types(&self) -> bool {
        self.gcp_hosts
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::gpus::{Filter, list_accelerators};

    /// A catalog read by the one reader, as the listing sees it.
    pub(crate) fn listing_of(cloud: CloudId, csv: &str) -> CloudGpuRows {
        let (catalog, _) = CloudCatalog::from_bytes(cloud, csv.as_bytes(), "vms.csv").unwrap();
        CloudGpuRows::new(catalog, "vms.csv").unwrap()
    }

    #[test]
    #[allow(clippy::disallowed_methods)] // reads the fixture catalogs
    fn the_listing_runs_of_an_image_list_what_the_whole_catalog_lists() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/catalogs");
        let filters = [
            Filter::default(),
            Filter {
                all_regions: true,
                ..Filter::default()
            },
            Filter {
                name: Some("a100".into()),
                quantity: Some(8),
                ..Filter::default()
            },
        ];
        let mut listed = 0;
        for cloud in CloudId::ALL {
            let Ok(csv) = std::fs::read(dir.join(cloud.name()).join("vms.csv")) else {
                continue;
            };
            let (whole, warnings) = CloudCatalog::from_bytes(cloud, &csv, "vms.csv").unwrap();
            let image = whole.to_image(&warnings);
            let (runs, _) =
                CloudCatalog::from_image_runs(cloud, &image, "vms.csv", &ListingRuns::of(cloud))
                    .unwrap();
            assert!(runs.rows.len() <= whole.rows.len());
            let whole = CloudGpuRows::new(whole, "vms.csv").unwrap();
            let runs = CloudGpuRows::new(runs, "vms.csv").unwrap();
            for filter in &filters {
                for require_price in [true, false] {
                    let list = |c: &CloudGpuRows| {
                        format!("{:?}", list_accelerators(&[c], filter, require_price))
                    };
                    assert_eq!(list(&runs), list(&whole), "{cloud:?} {filter:?}");
                }
            }
            assert_eq!(
                crate::gpus::accelerator_names(&[&runs]),
                crate::gpus::accelerator_names(&[&whole])
            );
            listed += 1;
        }
        assert!(listed >= 20, "only {listed} fixture catalogs listed");
    }

    #[test]
    fn a_catalog_without_accelerator_columns_is_not_listed() {
        let csv = "InstanceType,vCPUs,Price,Region\na,2,1,r\n";
        let (catalog, _) = CloudCatalog::from_bytes(CloudId::Lambda, csv.as_bytes(), "x").unwrap();
        let err = CloudGpuRows::new(catalog, "lambda/vms.csv").unwrap_err();
        assert_eq!(
            err.to_string(),
            "lambda/vms.csv: no AcceleratorName column (found: InstanceType,vCPUs,Price,Region)"
        );
    }

    #[test]
    fn missing_value_strings_read_as_pandas_reads_them() {
        let csv = "InstanceType,AcceleratorName,AcceleratorCount,GpuInfo,Price,Region\n\
                   a,NA,1,\"{'Gpus': []}\",1,r\n\
                   b,T4,1,None,1,r\n\
                   c,T4,1,\"{'Gpus': []}\",1,n/a\n";
        let rows = listing_of(CloudId::Lambda, csv);
        let read: Vec<_> = rows
            .rows()
            .map(|r| (r.accelerator_name, r.gpu_info.is_some(), r.region))
            .collect();
        // The row whose `GpuInfo` is missing is not one the listing reads.
        assert_eq!(read, [(None, true, Some("r")), (Some("T4"), true, None)]);
    }

    #[test]
    fn integer_columns_are_detected_like_pandas() {
        // Every cell an integer, even in rows the reader skips as malformed.
        let csv = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region\n\
a,H100,8,224,2048,H100,80.0,,r1\n\
b,H100,8,-1,2048,H100,80,,r1\n";
        let rows = listing_of(CloudId::Oci, csv);
        let r = rows.rows().next().unwrap();
        assert!(r.accelerator_count.int && r.vcpus.int && r.memory.int);
        assert!(!r.price.int && !r.spot_price.int);
        let skipped_float = csv.replace("b,H100,8,-1,2048", "b,H100,8,-1,2048.5");
        let rows = listing_of(CloudId::Oci, &skipped_float);
        let r = rows.rows().next().unwrap();
        assert!(r.vcpus.int && !r.memory.int, "{r:?}");
    }

    #[test]
    fn gpu_info_is_read_once_per_distinct_cell() {
        let aws = listing_of(CloudId::Aws, crate::gpus::listing::tests::AWS);
        let infos: Vec<_> = aws.rows().map(|r| r.gpu_info).collect();
        // The CPU row is not one the listing reads.
        assert_eq!(infos, [Some(GpuInfo::Literal(Some(16.0))); 3]);
        assert_eq!(GpuInfo::read("tpu-v4-8"), GpuInfo::NotLiteral);
        assert_eq!(GpuInfo::read("{'Gpus': []}"), GpuInfo::Literal(None));
    }
}
