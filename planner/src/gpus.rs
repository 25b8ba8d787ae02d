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
//! Nothing here reads files: the rows arrive as `vms.csv` bytes
//! ([`CloudGpuRows::from_csv`]) and the node summaries as data.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use rustc_hash::FxHashSet;

pub mod kubernetes;
pub mod show;
pub mod slurm;

use crate::catalog::gcp;
use crate::cloud::CloudId;

/// The catalog clouds `sky gpus list` consults, in SkyPilot's order
/// (`sky/skylet/constants.py::ALL_CLOUDS` without `kubernetes`, `ssh` and
/// `slurm`, which `_show_gpus_impl` leaves to the realtime tables), each with
/// the cloud label its catalog module passes to `list_accelerators_impl`.
pub const CATALOG_CLOUDS: [(&str, &str); 22] = [
    ("aws", "AWS"),
    ("azure", "Azure"),
    ("gcp", "GCP"),
    ("ibm", "IBM"),
    ("lambda", "Lambda"),
    ("scp", "scp"),
    ("oci", "OCI"),
    ("runpod", "RunPod"),
    ("vast", "Vast"),
    ("vsphere", "vsphere"),
    ("cudo", "Cudo"),
    ("fluidstack", "Fluidstack"),
    ("paperspace", "Paperspace"),
    ("primeintellect", "PrimeIntellect"),
    ("do", "DO"),
    ("nebius", "nebius"),
    ("hyperbolic", "Hyperbolic"),
    ("seeweb", "Seeweb"),
    ("shadeform", "Shadeform"),
    ("yotta", "Yotta"),
    ("mithril", "Mithril"),
    ("verda", "Verda"),
];

/// `sky/catalog/__init__.py::get_common_gpus`.
pub const COMMON_GPUS: [&str; 14] = [
    "A10",
    "A10G",
    "A100",
    "A100-80GB",
    "B200",
    "H100",
    "H200",
    "L4",
    "L40S",
    "RTX5090",
    "RTXPRO6000",
    "T4",
    "V100",
    "V100-32GB",
];

/// `sky/catalog/__init__.py::get_tpus`.
pub const TPUS: [&str; 14] = [
    "tpu-v2-8",
    "tpu-v3-8",
    "tpu-v4-8",
    "tpu-v4-16",
    "tpu-v4-32",
    "tpu-v5litepod-1",
    "tpu-v5litepod-4",
    "tpu-v5litepod-8",
    "tpu-v5p-8",
    "tpu-v5p-16",
    "tpu-v5p-32",
    "tpu-v6e-1",
    "tpu-v6e-4",
    "tpu-v6e-8",
];

/// The catalog label of `cloud` (`None`: not a catalog cloud of the listing).
pub fn catalog_label(cloud: CloudId) -> Option<&'static str> {
    CATALOG_CLOUDS
        .iter()
        .find(|(name, _)| *name == cloud.name())
        .map(|(_, label)| *label)
}

/// A number as pandas holds it: `NaN` is a missing cell; `int` when its
/// column was read as integers (JSON prints `224`, not `224.0`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
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
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    /// The catalog label (`AWS`, `GCP`, `scp`, ...).
    pub cloud: &'static str,
    /// Instance type; `None` for a GCP TPU (printed `(attachable)`).
    pub instance_type: Option<String>,
    /// Accelerator name as the catalog writes it.
    pub accelerator_name: String,
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
    pub region: Option<String>,
}

/// One `vms.csv` row, reduced to what the listing reads.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct Row {
    instance_type: Option<String>,
    accelerator_name: Option<String>,
    accelerator_count: Num,
    vcpus: Num,
    memory: Num,
    /// `GpuInfo`, read once: `None` when the cell is empty.
    gpu_info: Option<GpuInfo>,
    price: Num,
    spot_price: Num,
    region: Option<String>,
    zone: Option<String>,
}

/// A `GpuInfo` cell as `ast.literal_eval` sees it.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
enum GpuInfo {
    /// Not a Python literal (GCP's bare `tpu-v4-8`): `literal_eval` raises.
    NotLiteral,
    /// A literal; its `Gpus[0].MemoryInfo.SizeInMiB` in GiB, if it has one.
    Literal(Option<f64>),
}

impl GpuInfo {
    fn read(cell: &str) -> GpuInfo {
        match pylit::parse(cell) {
            None => GpuInfo::NotLiteral,
            Some(v) => GpuInfo::Literal(pylit::device_memory_mib(&v).map(|m| m / 1024.0)),
        }
    }
}

/// The rows of one cloud's catalog that the listing reads.
#[derive(Debug, Clone)]
pub struct CloudGpuRows {
    /// The cloud.
    pub cloud: CloudId,
    label: &'static str,
    rows: Vec<Row>,
}

/// Bumped whenever [`CloudGpuRows`]' rows change layout or meaning, so an
/// image of another version is refused, not misread.
const IMAGE_FORMAT: u32 = 1;
const IMAGE_MAGIC: [u8; 8] = *b"SKYGPUIX";

/// The stored form of a [`CloudGpuRows`] (see [`CloudGpuRows::to_image`]).
#[derive(serde::Serialize, serde::Deserialize)]
struct Image<'a> {
    magic: [u8; 8],
    format: u32,
    cloud: &'a str,
    rows: std::borrow::Cow<'a, [Row]>,
}

/// Why a stored [`CloudGpuRows`] image was refused (the caller parses the
/// CSV instead).
#[derive(Debug, thiserror::Error)]
#[error("not a GPU listing image of {cloud} (or a damaged one): {why}")]
pub struct GpusImageError {
    cloud: &'static str,
    why: String,
}

/// Why a catalog or a filter cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GpusError {
    /// A `vms.csv` lacks a column the listing needs, or is not CSV.
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

impl CloudGpuRows {
    /// Reads a `vms.csv` (v8 or older layout) from memory; `source_name`
    /// names it in errors. Columns are found by name; a number column is an
    /// integer column when every cell of the file is an integer (pandas'
    /// `int64` inference).
    pub fn from_csv(cloud: CloudId, bytes: &[u8], source_name: &str) -> Result<Self, GpusError> {
        let label = catalog_label(cloud).unwrap_or_else(|| cloud.name());
        let err = |message: String| GpusError::Catalog {
            source_name: source_name.to_string(),
            message,
        };
        let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(bytes);
        let headers = reader.headers().map_err(|e| err(e.to_string()))?.clone();
        let col = |name: &str| headers.iter().position(|h| h == name);
        let need = |name: &'static str| {
            col(name).ok_or_else(|| {
                err(format!(
                    "no {name} column (found: {})",
                    headers.iter().collect::<Vec<_>>().join(",")
                ))
            })
        };
        let c_acc = need("AcceleratorName")?;
        let c_count = need("AcceleratorCount")?;
        let c_type = col("InstanceType");
        let c_vcpus = col("vCPUs");
        let c_mem = col("MemoryGiB");
        let c_info = col("GpuInfo");
        let c_price = col("Price");
        let c_spot = col("SpotPrice");
        let c_region = col("Region");
        let c_zone = col("AvailabilityZone");
        struct Cell {
            value: f64,
        }
        let mut raw: Vec<[Option<String>; 6]> = Vec::new();
        let mut nums: Vec<[Cell; 5]> = Vec::new();
        // Integer-ness per number column: count, vCPUs, memory, price, spot.
        let mut int_col = [true; 5];
        let num_cols = [Some(c_count), c_vcpus, c_mem, c_price, c_spot];
        // Only GCP looks at rows without a GpuInfo (its host VMs); for the
        // others `gpus_only` drops them first, so they are not kept.
        let keep_all = cloud == CloudId::Gcp;
        let mut record = csv::StringRecord::new();
        while reader.read_record(&mut record).unwrap_or(false) {
            let has_info = c_info
                .and_then(|c| record.get(c))
                .is_some_and(|v| !is_na(v));
            if !has_info && !keep_all && int_col.iter().all(|i| !i) {
                // A row that is dropped and cannot change a column's type.
                continue;
            }
            let text = |c: Option<usize>| {
                c.and_then(|c| record.get(c))
                    .filter(|v| !is_na(v))
                    .map(str::to_string)
            };
            let mut cells = [
                Cell { value: f64::NAN },
                Cell { value: f64::NAN },
                Cell { value: f64::NAN },
                Cell { value: f64::NAN },
                Cell { value: f64::NAN },
            ];
            for (i, c) in num_cols.iter().enumerate() {
                let cell = c.and_then(|c| record.get(c)).unwrap_or("");
                if is_na(cell) {
                    int_col[i] = false;
                    continue;
                }
                let trimmed = cell.trim();
                if trimmed.parse::<i64>().is_err() {
                    int_col[i] = false;
                }
                cells[i].value = trimmed.parse::<f64>().unwrap_or(f64::NAN);
                if cells[i].value.is_nan() {
                    int_col[i] = false;
                }
            }
            if !has_info && !keep_all {
                continue;
            }
            raw.push([
                text(c_type),
                text(Some(c_acc)),
                text(c_info),
                text(c_region),
                text(c_zone),
                None,
            ]);
            nums.push(cells);
        }
        let rows = raw
            .into_iter()
            .zip(nums)
            .map(|(t, n)| {
                let [instance_type, accelerator_name, gpu_info, region, zone, _] = t;
                let num = |i: usize| Num {
                    value: n[i].value,
                    int: int_col[i],
                };
                Row {
                    instance_type,
                    accelerator_name,
                    accelerator_count: num(0),
                    vcpus: num(1),
                    memory: num(2),
                    gpu_info: gpu_info.as_deref().map(GpuInfo::read),
                    price: num(3),
                    spot_price: num(4),
                    region,
                    zone,
                }
            })
            .collect();
        Ok(CloudGpuRows { cloud, label, rows })
    }

    /// The rows as bytes that [`CloudGpuRows::from_image`] reads back: the
    /// listing's reduced rows (a few thousand of a catalog's tens of
    /// thousands), so a listing whose catalogs have not changed skips the
    /// CSVs.
    pub fn to_image(&self) -> Vec<u8> {
        let image = Image {
            magic: IMAGE_MAGIC,
            format: IMAGE_FORMAT,
            cloud: self.cloud.name(),
            rows: std::borrow::Cow::Borrowed(&self.rows),
        };
        postcard::to_allocvec(&image).expect("encoding to a Vec cannot fail")
    }

    /// Reads an image written by [`CloudGpuRows::to_image`] for `cloud`;
    /// anything else (another format, another cloud, trailing or missing
    /// bytes) is an error.
    pub fn from_image(cloud: CloudId, bytes: &[u8]) -> Result<Self, GpusImageError> {
        let refuse = |why: String| GpusImageError {
            cloud: cloud.name(),
            why,
        };
        let (image, rest): (Image<'_>, _) =
            postcard::take_from_bytes(bytes).map_err(|e| refuse(e.to_string()))?;
        if image.magic != IMAGE_MAGIC || image.format != IMAGE_FORMAT {
            return Err(refuse("another format".into()));
        }
        if image.cloud != cloud.name() {
            return Err(refuse(format!("written for {}", image.cloud)));
        }
        if !rest.is_empty() {
            return Err(refuse(format!("{} trailing bytes", rest.len())));
        }
        Ok(CloudGpuRows {
            cloud,
            label: catalog_label(cloud).unwrap_or_else(|| cloud.name()),
            rows: image.rows.into_owned(),
        })
    }
}

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

struct Compiled {
    name: Option<regex::Regex>,
    region: Option<regex::Regex>,
}

fn compile(filter: &Filter) -> Result<Compiled, GpusError> {
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
        for (name, offers) in list_cloud(cat, filter, &compiled, require_price) {
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

fn matches(re: &Option<regex::Regex>, value: Option<&str>) -> bool {
    match re {
        None => true,
        // pandas' str.contains on a missing value is NaN, which drops the row.
        Some(re) => value.is_some_and(|v| re.is_match(v)),
    }
}

/// One cloud: its catalog module's `list_accelerators`.
fn list_cloud(
    cat: &CloudGpuRows,
    filter: &Filter,
    compiled: &Compiled,
    require_price: bool,
) -> Listing {
    match cat.cloud {
        CloudId::Gcp if require_price => list_gcp(cat, filter, compiled),
        CloudId::Seeweb => {
            // seeweb_catalog.list_accelerators drops rows without a region first.
            let rows: Vec<&Row> = cat
                .rows
                .iter()
                .filter(|r| r.region.as_deref().is_some_and(|v| !v.trim().is_empty()))
                .collect();
            list_impl(cat.label, rows, filter, compiled)
        }
        _ => list_impl(cat.label, cat.rows.iter().collect(), filter, compiled),
    }
}

/// `common.list_accelerators_impl` (`gpus_only=True`, the only mode the CLI uses).
fn list_impl(
    label: &'static str,
    rows: Vec<&Row>,
    filter: &Filter,
    compiled: &Compiled,
) -> Listing {
    // gpus_only: rows with a GpuInfo.
    let rows: Vec<&Row> = rows.into_iter().filter(|r| r.gpu_info.is_some()).collect();
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
        row: &'r Row,
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
            text: [
                row.instance_type.as_deref(),
                row.accelerator_name.as_deref(),
                row.region.as_deref(),
            ],
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
        matches(&compiled.name, it.row.accelerator_name.as_deref())
            && matches(&compiled.region, it.row.region.as_deref())
            && filter
                .quantity
                .is_none_or(|q| it.row.accelerator_count.value == f64::from(q))
    });
    let mut groups: BTreeMap<&str, Vec<Item<'_>>> = BTreeMap::new();
    for it in items {
        let name = it.row.accelerator_name.as_deref().unwrap_or_default();
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
                            none_last(&a.row.region, &b.row.region)
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
                        it.row.instance_type.as_deref(),
                        it.row.accelerator_name.as_deref(),
                        if filter.all_regions {
                            it.row.region.as_deref()
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
            let mut offers: Vec<Offer> = rows
                .into_iter()
                .map(|it| Offer {
                    cloud: label,
                    instance_type: it.row.instance_type.clone(),
                    accelerator_name: name.to_string(),
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
                    region: it.row.region.clone(),
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
enum Key<'a> {
    /// A float (NaN: a fresh NaN object, equal to nothing).
    F(f64),
    /// A string; missing is pandas' `np.nan` singleton, identical to itself.
    S(Option<&'a str>),
}

/// Python's tuple comparison as `list.sort` uses it: the first position
/// that differs decides; NaN differs from everything yet is neither less
/// nor greater, which makes the two "equal" (the stable sort keeps them).
fn py_tuple_cmp(a: &[Key<'_>], b: &[Key<'_>]) -> Ordering {
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
fn nan_last(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

fn none_last(a: &Option<String>, b: &Option<String>) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(x), Some(y)) => x.cmp(y),
    }
}

/// `gcp_catalog.list_accelerators` with `require_price=True`: attachable GPUs
/// priced with their cheapest host VM in the same zone, TPUs priced alone
/// and grouped per version (`tpu-v4`, ...), sorted by price.
fn list_gcp(cat: &CloudGpuRows, filter: &Filter, compiled: &Compiled) -> Listing {
    let all = &cat.rows;
    let mut gpus: Vec<Row> = Vec::new();
    let mut tpus: Vec<Row> = Vec::new();
    for r in all {
        let Some(name) = r.accelerator_name.as_deref() else {
            continue;
        };
        if r.gpu_info.is_none()
            || !matches(&compiled.name, Some(name))
            || !matches(&compiled.region, r.region.as_deref())
        {
            continue;
        }
        // astype(int): the count truncates.
        let count = r.accelerator_count.value.trunc();
        if filter.quantity.is_some_and(|q| count != f64::from(q)) {
            continue;
        }
        let mut r = r.clone();
        r.accelerator_count = Num {
            value: count,
            int: true,
        };
        if name.starts_with("tpu-") {
            tpus.push(r);
        } else {
            gpus.push(r);
        }
    }
    let zones = zone_index(all);
    // The merge's key: (InstanceType, Region, AvailabilityZone), exact.
    let mut hosts: HostIndex<'_> = std::collections::HashMap::new();
    for h in all {
        if let Some(t) = h.instance_type.as_deref() {
            hosts
                .entry((t, h.region.as_deref(), h.zone.as_deref()))
                .or_default()
                .push(h);
        }
    }
    let mut priced: Vec<Row> = Vec::new();
    for acc in gpus {
        let name = acc.accelerator_name.as_deref().unwrap_or("");
        let count = acc.accelerator_count.value as u32;
        let Some(host) = gcp_host(&zones, name, count, &acc) else {
            continue;
        };
        if acc.price.get().is_none() {
            continue;
        }
        // The merge on (InstanceType, Region, AvailabilityZone): every host row.
        let exact = hosts
            .get(&(host.as_str(), acc.region.as_deref(), acc.zone.as_deref()))
            .map(Vec::as_slice)
            .unwrap_or_default();
        for h in exact {
            let mut r = acc.clone();
            r.instance_type = Some(host.clone());
            r.vcpus = h.vcpus;
            r.memory = h.memory;
            r.price = Num::float(acc.price.value + h.price.value);
            r.spot_price = Num::float(acc.spot_price.value + h.spot_price.value);
            priced.push(r);
        }
    }
    // pd.concat: the host columns are float columns (the CSV has NaN there).
    for r in priced.iter_mut().chain(tpus.iter_mut()) {
        r.vcpus.int = false;
        r.memory.int = false;
        r.price.int = false;
        r.spot_price.int = false;
    }
    priced.extend(tpus);
    let mut results = list_impl(cat.label, priced.iter().collect(), filter, compiled);
    // Combine the TPUs of one version (popped and appended: they come last).
    let mut tpu_groups: Vec<(String, Vec<Offer>)> = Vec::new();
    let mut rest: Listing = Vec::new();
    for (name, offers) in results.drain(..) {
        if name.starts_with("tpu-") {
            let version = name.split('-').nth(1).unwrap_or("");
            let group = format!("tpu-{version}");
            match tpu_groups.iter_mut().find(|(g, _)| *g == group) {
                Some((_, v)) => v.extend(offers),
                None => tpu_groups.push((group, offers)),
            }
        } else {
            rest.push((name, offers));
        }
    }
    for (_, offers) in &mut tpu_groups {
        fn key(o: &Offer) -> [Key<'_>; 3] {
            [
                Key::F(o.price.value),
                Key::F(o.spot_price.value),
                Key::S(o.region.as_deref()),
            ]
        }
        offers.sort_by(|a, b| py_tuple_cmp(&key(a), &key(b)));
    }
    rest.extend(tpu_groups);
    rest
}

/// `_get_host_instance_type`: the cheapest host in the accelerator's zone
/// (a fixed machine type of that GPU and count, else an N1 VM with the
/// default vCPUs and 4 GiB per vCPU). `None` where SkyPilot finds none — or
/// where its table has no entry for the count (SkyPilot raises `KeyError`
/// there; the row is left out instead).
/// GCP's instance rows per (region, zone), lower-cased as
/// `_get_host_instance_type` compares them, in file order.
type ZoneIndex<'a> = std::collections::HashMap<(Option<String>, Option<String>), Vec<&'a Row>>;

/// GCP's instance rows per exact (InstanceType, Region, AvailabilityZone).
type HostIndex<'a> =
    std::collections::HashMap<(&'a str, Option<&'a str>, Option<&'a str>), Vec<&'a Row>>;

fn zone_index(all: &[Row]) -> ZoneIndex<'_> {
    let mut index: ZoneIndex<'_> = std::collections::HashMap::new();
    for r in all.iter().filter(|r| r.instance_type.is_some()) {
        let lower = |s: &Option<String>| s.as_deref().map(str::to_lowercase);
        index
            .entry((lower(&r.region), lower(&r.zone)))
            .or_default()
            .push(r);
    }
    index
}

fn gcp_host(zones: &ZoneIndex<'_>, name: &str, count: u32, acc: &Row) -> Option<String> {
    let lower = |s: &Option<String>| s.as_deref().map(str::to_lowercase);
    let in_zone = zones
        .get(&(lower(&acc.region), lower(&acc.zone)))
        .map(Vec::as_slice)
        .unwrap_or_default();
    let all = in_zone.iter().copied();
    let candidates: Vec<&Row> = if let Some(table) = gcp::fixed_machine_types(name) {
        let types = table.iter().find(|(c, _)| *c == count).map(|(_, t)| *t)?;
        all.filter(|h| types.contains(&h.instance_type.as_deref().unwrap_or("")))
            .collect()
    } else {
        let cpus = f64::from(gcp::default_host_cpus(name, count)?);
        let memory = cpus * 4.0;
        all.filter(|h| {
            let t = h.instance_type.as_deref().unwrap_or("");
            gcp::HOST_VM_FAMILIES.iter().any(|f| t.starts_with(f))
                && h.vcpus.value >= cpus
                && h.memory.value >= memory
        })
        .collect()
    };
    // idxmin over Price (rows without one dropped): the first minimum.
    let mut best: Option<&Row> = None;
    for h in candidates.into_iter().filter(|h| h.price.get().is_some()) {
        if best.is_none_or(|b| h.price.value < b.price.value) {
            best = Some(h);
        }
    }
    best.and_then(|b| b.instance_type.clone())
}

/// The CLI's order of one GPU's offers (`_show_gpus_impl`): clouds by their
/// cheapest on-demand then spot price, then each offer by price and spot
/// price; stable, missing prices last.
pub fn order_for_table(offers: &[Offer]) -> Vec<Offer> {
    let min_of = |cloud: &str, spot: bool| {
        offers
            .iter()
            .filter(|o| o.cloud == cloud)
            .filter_map(|o| {
                if spot {
                    o.spot_price.get()
                } else {
                    o.price.get()
                }
            })
            .fold(f64::NAN, |m, v| if m.is_nan() || v < m { v } else { m })
    };
    let mut keyed: Vec<(f64, f64, &Offer)> = offers
        .iter()
        .map(|o| (min_of(o.cloud, false), min_of(o.cloud, true), o))
        .collect();
    keyed.sort_by(|a, b| {
        nan_last(a.0, b.0)
            .then_with(|| nan_last(a.1, b.1))
            .then_with(|| nan_last(a.2.price.value, b.2.price.value))
            .then_with(|| nan_last(a.2.spot_price.value, b.2.spot_price.value))
    });
    keyed.into_iter().map(|(_, _, o)| o.clone()).collect()
}

/// How `--sort-by` orders one GPU's offers (our extension, upstream #3111).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortBy {
    /// SkyPilot's order ([`order_for_table`]).
    Cloud,
    /// Cheapest on-demand price first, across clouds.
    Price,
    /// Cheapest spot price first, across clouds (no spot price: last).
    Spot,
}

/// Orders one GPU's offers for the table.
pub fn order(offers: &[Offer], sort: SortBy) -> Vec<Offer> {
    let mut out = order_for_table(offers);
    match sort {
        SortBy::Cloud => {}
        SortBy::Price => out.sort_by(|a, b| {
            nan_last(a.price.value, b.price.value)
                .then_with(|| nan_last(a.spot_price.value, b.spot_price.value))
        }),
        SortBy::Spot => out.sort_by(|a, b| {
            nan_last(a.spot_price.value, b.spot_price.value)
                .then_with(|| nan_last(a.price.value, b.price.value))
        }),
    }
    out
}

/// Every accelerator name the catalogs offer (for "did you mean").
pub fn accelerator_names(catalogs: &[&CloudGpuRows]) -> Vec<String> {
    let mut names: Vec<String> = catalogs
        .iter()
        .flat_map(|c| c.rows.iter())
        .filter(|r| r.gpu_info.is_some())
        .filter_map(|r| r.accelerator_name.clone())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Close accelerator names for an unknown one: `difflib.get_close_matches`
/// (n=5, cutoff 0.6) on the upper-cased names, sorted — the rule SkyPilot's
/// catalog uses for regions (`common.py::validate_region_zone_impl`).
pub fn suggestions(name: &str, names: &[String]) -> Vec<String> {
    let upper: Vec<String> = names.iter().map(|n| n.to_uppercase()).collect();
    let close = crate::pytext::difflib::close_matches(
        &name.to_uppercase(),
        upper.iter().map(String::as_str),
        5,
        0.6,
    );
    let mut out: Vec<String> = close
        .iter()
        .filter_map(|c| upper.iter().position(|u| u == c).map(|i| names[i].clone()))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// One `sky gpus list` invocation, parsed (SkyPilot's `_show_gpus_impl`
/// arguments after `_handle_infra_cloud_region_zone_options`).
#[derive(Debug, Clone)]
pub struct Query {
    /// `NAME[:N]`, split.
    pub accelerator: Option<(String, Option<u32>)>,
    /// `-a/--all`.
    pub all: bool,
    /// The cloud of `--infra`, if any.
    pub cloud: Option<CloudId>,
    /// The region of `--infra CLOUD/REGION`.
    pub region: Option<String>,
    /// `--all-regions`.
    pub all_regions: bool,
    /// `--sort-by` (ours; `Cloud` is SkyPilot's order).
    pub sort: SortBy,
}

/// Why a query is refused before any listing (SkyPilot's `click.UsageError`s).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Splits `NAME[:N]` as `_show_gpus_impl` does.
pub fn parse_accelerator(s: &str) -> Result<(String, Option<u32>), UsageError> {
    let parts: Vec<&str> = s.split(':').collect();
    match parts.as_slice() {
        [name] => Ok((name.to_string(), None)),
        [name, qty] => match qty.trim().parse::<i64>() {
            Ok(q) if q > 0 && q <= i64::from(u32::MAX) => Ok((name.to_string(), Some(q as u32))),
            _ => Err(UsageError(format!(
                "Invalid accelerator quantity {qty}. Expected a positive integer."
            ))),
        },
        _ => Err(UsageError(format!(
            "Invalid accelerator string {s}. Expected format: <accelerator_name>[:<quantity>]."
        ))),
    }
}

impl Query {
    /// SkyPilot's checks of the flag combination, in its order. With
    /// `extended`, `--all-regions` also works without a GPU name (ours,
    /// upstream #2863: every GPU's prices in every region).
    pub fn validate(&self, extended: bool) -> Result<(), UsageError> {
        if self.region.is_some() && self.cloud.is_none() {
            return Err(UsageError(
                "The --region flag is only valid when the --cloud flag is set.".into(),
            ));
        }
        if self.all_regions && self.accelerator.is_none() && !extended {
            return Err(UsageError(
                "The --all-regions flag is only valid when an accelerator is specified.".into(),
            ));
        }
        if self.all_regions && self.region.is_some() {
            return Err(UsageError(
                "--all-regions and --region flags cannot be used simultaneously.".into(),
            ));
        }
        if self.all && self.accelerator.is_some() {
            return Err(UsageError(
                "--all is only allowed without a GPU name.".into(),
            ));
        }
        Ok(())
    }

    /// The catalogs the query lists, in SkyPilot's order: the `--infra`
    /// cloud, or every catalog cloud.
    pub fn catalog_clouds(&self) -> Vec<CloudId> {
        match self.cloud {
            Some(c) => catalog_label(c).map(|_| vec![c]).unwrap_or_default(),
            None => CATALOG_CLOUDS
                .iter()
                .filter_map(|(name, _)| name.parse().ok())
                .collect(),
        }
    }
}

/// One piece of the output, in order.
#[derive(Debug, Clone)]
pub enum Section {
    /// Literal text (hints, notes, blank lines), as SkyPilot yields it.
    Text(String),
    /// The cyan "Cloud GPUs" title.
    CloudGpusTitle,
    /// The quantity tables (no GPU name): common GPUs, TPUs, and with
    /// `--all` the others.
    Counts {
        /// `COMMON_GPU` rows.
        common: Vec<(String, Vec<f64>)>,
        /// `GOOGLE_TPU` rows.
        tpus: Vec<(String, Vec<f64>)>,
        /// `OTHER_GPU` rows (`--all` only).
        other: Option<Vec<(String, Vec<f64>)>>,
    },
    /// A Kubernetes or SSH Node Pool block (`_format_kubernetes_realtime_gpu`).
    Kube(show::KubeSection),
    /// The Slurm block (`_format_slurm_realtime_gpu`).
    Slurm(show::SlurmSection),
    /// A line SkyPilot's logger prints meanwhile.
    Log(String),
    /// One table per GPU.
    Offers {
        /// Per GPU name, its offers in table order.
        groups: Listing,
        /// Whether the REGION column is shown (not with `--all`).
        region: bool,
    },
}

/// What `sky gpus list` prints, as data.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The output pieces.
    pub sections: Vec<Section>,
    /// Close names when a GPU name matched nothing (ours: printed as a hint).
    pub suggestions: Vec<String>,
}

/// The catalog part of `_show_gpus_impl`'s `_output` (Kubernetes, SSH and
/// Slurm sections come before it; `section_titles` says whether one was
/// printed, which adds the "Cloud GPUs" title). `cloud_repr` is
/// `str(cloud_obj)` for the not-found line.
pub fn report(
    query: &Query,
    catalogs: &[&CloudGpuRows],
    section_titles: bool,
) -> Result<Report, GpusError> {
    let mut r = Report::default();
    let mut details = true;
    // Without a name the quantity tables come first; our `--all-regions`
    // without a name (and without `--all`) goes straight to the offers.
    let every_region = query.all_regions && !query.all;
    if query.accelerator.is_none() && !every_region {
        let mut counts = list_accelerator_counts(catalogs, query.region.as_deref())?;
        if section_titles {
            r.sections.push(Section::Text("\n\n".into()));
            r.sections.push(Section::CloudGpusTitle);
        }
        let mut take = |names: &[&str]| {
            names
                .iter()
                .filter_map(|n| {
                    let i = counts.iter().position(|(g, _)| g == n)?;
                    Some(counts.remove(i))
                })
                .collect::<Vec<_>>()
        };
        let common = take(&COMMON_GPUS);
        let tpus = take(&TPUS);
        if query.all {
            counts.sort_by(|a, b| a.0.cmp(&b.0));
            r.sections.push(Section::Counts {
                common,
                tpus,
                other: Some(counts),
            });
        } else {
            r.sections.push(Section::Counts {
                common,
                tpus,
                other: None,
            });
            r.sections.push(Section::Text(
                "\n\nHint: use -a/--all to see all accelerators (including non-common ones) and pricing."
                    .into(),
            ));
            details = false;
        }
    }
    if !details {
        return Ok(r);
    }
    let (name, quantity) = match &query.accelerator {
        Some((n, q)) => (Some(n.clone()), *q),
        None => (None, None),
    };
    let filter = Filter {
        name: name.clone(),
        region: query.region.clone(),
        quantity,
        case_sensitive: false,
        all_regions: query.all_regions,
    };
    let listing = list_accelerators(catalogs, &filter, true)?;
    if section_titles && !query.all {
        r.sections.push(Section::Text("\n\n".into()));
        r.sections.push(Section::CloudGpusTitle);
    }
    if listing.is_empty() {
        let qty = quantity.map_or(String::new(), |q| format!(" with requested quantity {q}"));
        let cloud = match query.cloud {
            Some(c) => format!(" on {}.", c.repr()),
            None => " in cloud catalogs.".into(),
        };
        r.sections.push(Section::Text(format!(
            "Resources '{}'{qty} not found{cloud} To show available accelerators, run: sky gpus list --all",
            name.clone().unwrap_or_else(|| "None".into())
        )));
        if let Some(n) = &name {
            r.suggestions = suggestions(n, &accelerator_names(catalogs));
        }
        return Ok(r);
    }
    let groups = listing
        .into_iter()
        .map(|(g, offers)| {
            let o = order(&offers, query.sort);
            (g, o)
        })
        .collect();
    r.sections.push(Section::Offers {
        groups,
        region: !query.all,
    });
    Ok(r)
}

/// `sky/skylet/constants.py::ALL_CLOUDS`: the order `list_accelerators`
/// merges the clouds in.
const ALL_CLOUDS_ORDER: [&str; 25] = [
    "aws",
    "azure",
    "gcp",
    "ibm",
    "lambda",
    "scp",
    "oci",
    "kubernetes",
    "runpod",
    "vast",
    "vsphere",
    "cudo",
    "fluidstack",
    "paperspace",
    "primeintellect",
    "do",
    "nebius",
    "ssh",
    "slurm",
    "hyperbolic",
    "seeweb",
    "shadeform",
    "yotta",
    "mithril",
    "verda",
];

/// `-o json` with the realtime clouds' offers (`extra`, per cloud) merged
/// at their place in SkyPilot's cloud order.
pub fn json_listing_with(
    query: &Query,
    catalogs: &[&CloudGpuRows],
    extra: Vec<(CloudId, Listing)>,
) -> Result<Listing, GpusError> {
    let (name, quantity) = match &query.accelerator {
        Some((n, q)) => (Some(n.clone()), *q),
        None => (None, None),
    };
    let filter = Filter {
        name,
        region: query.region.clone(),
        quantity,
        case_sensitive: false,
        all_regions: query.all_regions,
    };
    let mut per_cloud: Vec<(CloudId, Listing)> = Vec::new();
    for cat in catalogs {
        per_cloud.push((cat.cloud, list_accelerators(&[*cat], &filter, true)?));
    }
    per_cloud.extend(extra);
    let rank = |c: CloudId| {
        ALL_CLOUDS_ORDER
            .iter()
            .position(|n| *n == c.name())
            .unwrap_or(usize::MAX)
    };
    per_cloud.sort_by_key(|(c, _)| rank(*c));
    let mut out: Listing = Vec::new();
    for (_, listing) in per_cloud {
        for (gpu, offers) in listing {
            match out.iter_mut().find(|(n, _)| *n == gpu) {
                Some((_, v)) => v.extend(offers),
                None => out.push((gpu, offers)),
            }
        }
    }
    Ok(match query.sort {
        SortBy::Cloud => out,
        sort => out.into_iter().map(|(g, o)| (g, order(&o, sort))).collect(),
    })
}

/// A Kubernetes context's accelerators as `-o json` offers (SkyPilot's
/// `InstanceTypeInfo` with no instance type, CPUs or memory, priced from
/// `kubernetes.pricing`).
pub fn context_offers(context: &str, gpus: Vec<(String, Vec<(u32, f64)>)>) -> Listing {
    gpus.into_iter()
        .map(|(gpu, counts)| {
            let offers = counts
                .into_iter()
                .map(|(count, price)| Offer {
                    cloud: "Kubernetes",
                    instance_type: None,
                    accelerator_name: gpu.clone(),
                    accelerator_count: f64::from(count),
                    cpu_count: Num::NULL,
                    device_memory: None,
                    memory: Num::NULL,
                    price: Num::float(price),
                    spot_price: Num::float(price),
                    region: Some(context.to_string()),
                })
                .collect();
            (gpu, offers)
        })
        .collect()
}

/// `-o json`: SkyPilot's `list_accelerators` answer, unsorted (the CLI
/// sorts only its tables); `--sort-by` orders each GPU's list when given.
pub fn json_listing(query: &Query, catalogs: &[&CloudGpuRows]) -> Result<Listing, GpusError> {
    let (name, quantity) = match &query.accelerator {
        Some((n, q)) => (Some(n.clone()), *q),
        None => (None, None),
    };
    let filter = Filter {
        name,
        region: query.region.clone(),
        quantity,
        case_sensitive: false,
        all_regions: query.all_regions,
    };
    let listing = list_accelerators(catalogs, &filter, true)?;
    Ok(match query.sort {
        SortBy::Cloud => listing,
        sort => listing
            .into_iter()
            .map(|(g, o)| (g, order(&o, sort)))
            .collect(),
    })
}

/// A minimal reader of Python literals, enough for `ast.literal_eval` of a
/// catalog's `GpuInfo` cell: dicts, lists, tuples, strings, numbers,
/// `True`/`False`/`None`. Anything else (e.g. GCP's bare `tpu-v4-8`) is not
/// a literal, as for Python.
pub mod pylit {
    /// A Python literal value.
    #[derive(Debug, Clone, PartialEq)]
    pub enum Value {
        /// A dict, in order.
        Dict(Vec<(Value, Value)>),
        /// A list or tuple.
        List(Vec<Value>),
        /// A string.
        Str(String),
        /// A number.
        Num(f64),
        /// `True`, `False`, `None`.
        Const,
    }

    /// Parses `text` as one literal (`None`: not a literal).
    pub fn parse(text: &str) -> Option<Value> {
        let mut p = Parser {
            s: text.as_bytes(),
            i: 0,
        };
        let v = p.value()?;
        p.ws();
        (p.i == p.s.len()).then_some(v)
    }

    /// `row['Gpus'][0]['MemoryInfo']['SizeInMiB']`.
    pub fn device_memory_mib(v: &Value) -> Option<f64> {
        let get = |v: &Value, key: &str| match v {
            Value::Dict(items) => items
                .iter()
                .find(|(k, _)| *k == Value::Str(key.to_string()))
                .map(|(_, v)| v.clone()),
            _ => None,
        };
        let gpus = get(v, "Gpus")?;
        let first = match gpus {
            Value::List(items) => items.first()?.clone(),
            _ => return None,
        };
        match get(&get(&first, "MemoryInfo")?, "SizeInMiB")? {
            Value::Num(n) => Some(n),
            _ => None,
        }
    }

    struct Parser<'a> {
        s: &'a [u8],
        i: usize,
    }

    impl Parser<'_> {
        fn ws(&mut self) {
            while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
                self.i += 1;
            }
        }

        fn eat(&mut self, c: u8) -> bool {
            self.ws();
            if self.s.get(self.i) == Some(&c) {
                self.i += 1;
                true
            } else {
                false
            }
        }

        fn value(&mut self) -> Option<Value> {
            self.ws();
            match *self.s.get(self.i)? {
                b'{' => {
                    self.i += 1;
                    let mut items = Vec::new();
                    loop {
                        if self.eat(b'}') {
                            return Some(Value::Dict(items));
                        }
                        let k = self.value()?;
                        if !self.eat(b':') {
                            return None;
                        }
                        let v = self.value()?;
                        items.push((k, v));
                        if !self.eat(b',') {
                            return self.eat(b'}').then_some(Value::Dict(items));
                        }
                    }
                }
                open @ (b'[' | b'(') => {
                    let close = if open == b'[' { b']' } else { b')' };
                    self.i += 1;
                    let mut items = Vec::new();
                    loop {
                        if self.eat(close) {
                            return Some(Value::List(items));
                        }
                        items.push(self.value()?);
                        if !self.eat(b',') {
                            return self.eat(close).then_some(Value::List(items));
                        }
                    }
                }
                q @ (b'\'' | b'"') => {
                    self.i += 1;
                    let start = self.i;
                    while *self.s.get(self.i)? != q {
                        if self.s[self.i] == b'\\' {
                            self.i += 1;
                        }
                        self.i += 1;
                    }
                    let text = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
                    self.i += 1;
                    Some(Value::Str(text))
                }
                _ => {
                    let start = self.i;
                    while self.i < self.s.len()
                        && (self.s[self.i].is_ascii_alphanumeric()
                            || matches!(self.s[self.i], b'.' | b'-' | b'+' | b'_'))
                    {
                        self.i += 1;
                    }
                    let word = std::str::from_utf8(&self.s[start..self.i]).ok()?;
                    match word {
                        "True" | "False" | "None" => Some(Value::Const),
                        _ => {
                            let t = word.replace('_', "");
                            // Python numbers only: no `inf`/`nan` words, no `1-2`.
                            let numeric = t
                                .trim_start_matches(['-', '+'])
                                .starts_with(|c: char| c.is_ascii_digit() || c == '.');
                            if !numeric {
                                return None;
                            }
                            t.parse::<f64>().ok().map(Value::Num)
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AWS: &str = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n\
p3.2xlarge,V100,1.0,8.0,61.0,\"{'Gpus': [{'Name': 'V100', 'MemoryInfo': {'SizeInMiB': 16384}}]}\",3.06,0.9,us-east-1,use1-az1\n\
p3.2xlarge,V100,1.0,8.0,61.0,\"{'Gpus': [{'Name': 'V100', 'MemoryInfo': {'SizeInMiB': 16384}}]}\",3.26,1.1,us-west-2,usw2-az1\n\
p3.8xlarge,V100,4.0,32.0,244.0,\"{'Gpus': [{'Name': 'V100', 'MemoryInfo': {'SizeInMiB': 16384}}]}\",12.24,,us-east-1,use1-az1\n\
m6i.large,,,2.0,8.0,,0.096,0.03,us-east-1,use1-az1\n";

    fn aws() -> CloudGpuRows {
        CloudGpuRows::from_csv(CloudId::Aws, AWS.as_bytes(), "aws/vms.csv").unwrap()
    }

    #[test]
    #[allow(clippy::disallowed_methods)] // reads the fixture catalogs
    fn an_image_lists_what_its_catalog_lists() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/catalogs");
        let mut read = 0;
        for cloud in CloudId::ALL {
            let Ok(csv) = std::fs::read(dir.join(cloud.name()).join("vms.csv")) else {
                continue;
            };
            let Ok(parsed) = CloudGpuRows::from_csv(cloud, &csv, "vms.csv") else {
                continue;
            };
            let image = parsed.to_image();
            let loaded = CloudGpuRows::from_image(cloud, &image).unwrap();
            assert_eq!(loaded.to_image(), image, "{cloud:?}");
            assert_eq!(loaded.label, parsed.label);
            let all = |c: &CloudGpuRows| {
                list_accelerators(&[c], &Filter::default(), false).map(|l| format!("{l:?}"))
            };
            assert_eq!(all(&loaded), all(&parsed), "{cloud:?}");
            read += 1;
        }
        assert!(read >= 10, "only {read} fixture catalogs listed");
    }

    #[test]
    fn a_damaged_or_foreign_image_is_refused() {
        let image = aws().to_image();
        assert!(CloudGpuRows::from_image(CloudId::Aws, &image).is_ok());
        for cut in [0, 1, 8, image.len() / 2, image.len() - 1] {
            assert!(
                CloudGpuRows::from_image(CloudId::Aws, &image[..cut]).is_err(),
                "cut at {cut}"
            );
        }
        let mut longer = image.clone();
        longer.push(0);
        assert!(CloudGpuRows::from_image(CloudId::Aws, &longer).is_err());
        assert!(CloudGpuRows::from_image(CloudId::Gcp, &image).is_err());
        let mut other_format = image.clone();
        other_format[8] ^= 0x7f;
        assert!(CloudGpuRows::from_image(CloudId::Aws, &other_format).is_err());
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
        let cat = CloudGpuRows::from_csv(CloudId::Aws, csv.as_bytes(), "aws/vms.csv").unwrap();
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
    fn integer_columns_are_detected_like_pandas() {
        let csv = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region\n\
a,H100,8,224,2048,H100,80.0,,r1\n";
        let cat = CloudGpuRows::from_csv(CloudId::Oci, csv.as_bytes(), "oci/vms.csv").unwrap();
        let l = list_accelerators(&[&cat], &Filter::default(), true).unwrap();
        let o = &l[0].1[0];
        assert!(o.cpu_count.int && o.memory.int && !o.price.int && !o.spot_price.int);
    }

    #[test]
    fn table_order_groups_clouds_by_their_cheapest_offer() {
        let mk = |cloud, price: f64| Offer {
            cloud,
            instance_type: Some("t".into()),
            accelerator_name: "X".into(),
            accelerator_count: 1.0,
            cpu_count: Num::MISSING,
            device_memory: None,
            memory: Num::MISSING,
            price: Num::float(price),
            spot_price: Num::MISSING,
            region: None,
        };
        let offers = vec![mk("A", 5.0), mk("A", 1.0), mk("B", 2.0)];
        let o = order_for_table(&offers);
        let got: Vec<(&str, f64)> = o.iter().map(|o| (o.cloud, o.price.value)).collect();
        assert_eq!(got, vec![("A", 1.0), ("A", 5.0), ("B", 2.0)]);
        let o = order(&offers, SortBy::Price);
        let got: Vec<f64> = o.iter().map(|o| o.price.value).collect();
        assert_eq!(got, vec![1.0, 2.0, 5.0]);
    }

    #[test]
    fn python_literals() {
        assert!(pylit::parse("tpu-v4-8").is_none());
        assert!(pylit::parse("A100").is_none());
        assert!(pylit::parse("{'a': [1, 2.5, -3e2], 'b': (None,)}").is_some());
        let v = pylit::parse("{'Gpus': [{'MemoryInfo': {'SizeInMiB': 81920}}]}").unwrap();
        assert_eq!(pylit::device_memory_mib(&v), Some(81920.0));
    }

    #[test]
    fn did_you_mean() {
        let names = vec!["H100".to_string(), "H200".to_string(), "A100".to_string()];
        let s = suggestions("h1000", &names);
        assert!(s.contains(&"H100".to_string()), "{s:?}");
    }
}
