//! One catalog row ([`VmRow`]) and what it is made of: shared strings
//! ([`Text`]), optional numbers in one word, the file's layout ([`Schema`])
//! and what the header says beyond the rows ([`Columns`]).

use std::borrow::Cow;
use std::sync::Arc;

/// A catalog string, shared by every row that holds it, in one pointer.
///
/// Rows are most of a launch's memory and every page of it costs a fault;
/// an `Arc<str>` is two words, this is one (and so is `Option<Text>`).
/// Two allocations, not one: `arcstr::ArcStr` (count and length before the
/// bytes) made a warm launch's strings ~30 % cheaper to create but every
/// clone and drop dearer (it checks for a static string first), so a whole
/// catalog's decode cost +9.8 % instructions (`catalog/load-all-7-indexed`
/// 11.80 -> 12.96 M) for −2 % on a warm launch; rows are cloned more often
/// than strings are made.
/// Compares, orders and hashes as the string, so it can key maps looked up
/// by `&str`.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Text(Arc<Box<str>>);

impl Text {
    /// Whether both are the same allocation (then they are equal).
    #[inline]
    pub fn ptr_eq(a: &Text, b: &Text) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }

    /// The allocation's address: equal for two live `Text`s exactly when
    /// [`Text::ptr_eq`] (an address outlives nothing: a dropped string's
    /// may be reused).
    #[inline]
    pub(crate) fn addr(&self) -> usize {
        Arc::as_ptr(&self.0).addr()
    }
}

impl From<&str> for Text {
    #[inline]
    fn from(s: &str) -> Text {
        Text(Arc::new(Box::from(s)))
    }
}

impl std::ops::Deref for Text {
    type Target = str;

    #[inline]
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Text {
    #[inline]
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self.0, f)
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&**self.0, f)
    }
}

/// An optional number in 8 bytes (`NaN` = empty cell; pandas reads `nan`
/// cells as missing too). Rows are most of a launch's memory, and every page
/// of it costs a fault, so the seven numbers of a row do not use `Option<f64>`.
#[derive(Clone, Copy)]
pub(crate) struct Num(pub(super) f64);

impl Num {
    pub(crate) const EMPTY: Num = Num(f64::NAN);

    #[inline]
    pub(crate) fn get(self) -> Option<f64> {
        if self.0.is_nan() { None } else { Some(self.0) }
    }
}

impl From<Option<f64>> for Num {
    #[inline]
    fn from(v: Option<f64>) -> Num {
        v.map_or(Num::EMPTY, Num)
    }
}

impl PartialEq for Num {
    fn eq(&self, other: &Num) -> bool {
        self.get() == other.get()
    }
}

impl std::fmt::Debug for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

/// One row of a `vms.csv` catalog. Number columns are read through methods
/// (`None` for an empty cell).
#[derive(Debug, Clone, PartialEq)]
pub struct VmRow {
    /// Instance type; empty for GCP accelerator rows.
    pub instance_type: Option<Text>,
    /// Accelerator name (as written in the catalog).
    pub accelerator_name: Option<Text>,
    /// Region; empty when the catalog cell is (pandas reads NaN, which
    /// no region matches).
    pub region: Text,
    /// Availability zone (zone ID for raw AWS catalogs).
    pub zone: Option<Text>,
    /// Local disk type (`ssd`/`hdd`), AWS only.
    pub local_disk_type: Option<Text>,
    /// Whether NVMe is supported, AWS only.
    pub nvme_supported: Option<bool>,
    /// Vast's `HostingType >= 1` (0 consumer-hosted, 1 datacenter-hosted):
    /// the one comparison SkyPilot makes with the column
    /// (`vast_catalog._apply_datacenter_filter`). `None` when the file has
    /// no such column; an empty cell is `Some(false)`, as pandas' `NaN >= 1`.
    pub datacenter: Option<bool>,
    /// `GpuInfo` as the file writes it (a Python literal on most clouds,
    /// a bare name on GCP); `None` when the cell is empty. Only
    /// `sky gpus list` reads it (`crate::gpus`).
    pub gpu_info: Option<Text>,
    pub(super) accelerator_count: Num,
    pub(super) vcpus: Num,
    pub(super) memory_gib: Num,
    pub(super) price: Num,
    pub(super) spot_price: Num,
    pub(super) local_disk_size: Num,
    pub(super) local_disk_count: Num,
}

/// A row's parts as its readers produce them (`C`: a shared [`Text`], or a
/// string id of the piece being parsed): what a CSV record
/// (`row_parser.rs`) and an image's row stream (`image/stream.rs`) both
/// make a [`VmRow`] of, through [`VmRow::from_fields`].
#[derive(Clone)]
pub(super) struct Fields<C> {
    pub(super) instance_type: Option<C>,
    pub(super) accelerator_name: Option<C>,
    pub(super) region: C,
    pub(super) zone: Option<C>,
    pub(super) local_disk_type: Option<C>,
    pub(super) gpu_info: Option<C>,
    /// The number columns, in [`NUMBER_COLUMNS`] order.
    pub(super) numbers: [Num; NUMBER_COLUMNS.len()],
    pub(super) nvme_supported: Option<bool>,
    pub(super) datacenter: Option<bool>,
}

impl<C> Fields<C> {
    /// Fields with every cell empty (the region `placeholder`).
    pub(super) fn blank(placeholder: C) -> Fields<C> {
        Fields {
            instance_type: None,
            accelerator_name: None,
            region: placeholder,
            zone: None,
            local_disk_type: None,
            gpu_info: None,
            numbers: [Num::EMPTY; NUMBER_COLUMNS.len()],
            nvme_supported: None,
            datacenter: None,
        }
    }
}

impl VmRow {
    /// The row of these parts: the one place a [`VmRow`] is assembled from
    /// what a reader decoded (a CSV record or an image's row stream).
    #[inline(always)]
    pub(super) fn from_fields(f: Fields<Text>) -> VmRow {
        let [
            accelerator_count,
            vcpus,
            memory_gib,
            price,
            spot_price,
            local_disk_size,
            local_disk_count,
        ] = f.numbers;
        VmRow {
            instance_type: f.instance_type,
            accelerator_name: f.accelerator_name,
            region: f.region,
            zone: f.zone,
            local_disk_type: f.local_disk_type,
            nvme_supported: f.nvme_supported,
            accelerator_count,
            vcpus,
            memory_gib,
            price,
            spot_price,
            local_disk_size,
            local_disk_count,
            datacenter: f.datacenter,
            gpu_info: f.gpu_info,
        }
    }

    /// Accelerator count.
    #[inline]
    pub fn accelerator_count(&self) -> Option<f64> {
        self.accelerator_count.get()
    }

    /// vCPUs.
    #[inline]
    pub fn vcpus(&self) -> Option<f64> {
        self.vcpus.get()
    }

    /// Memory in GiB.
    #[inline]
    pub fn memory_gib(&self) -> Option<f64> {
        self.memory_gib.get()
    }

    /// On-demand hourly price.
    #[inline]
    pub fn price(&self) -> Option<f64> {
        self.price.get()
    }

    /// Spot hourly price.
    #[inline]
    pub fn spot_price(&self) -> Option<f64> {
        self.spot_price.get()
    }

    /// Size of one local disk in GB.
    #[inline]
    pub fn local_disk_size(&self) -> Option<f64> {
        self.local_disk_size.get()
    }

    /// Number of local disks.
    #[inline]
    pub fn local_disk_count(&self) -> Option<f64> {
        self.local_disk_count.get()
    }

    /// The price column selected by `spot`.
    #[inline]
    pub fn price_for(&self, spot: bool) -> Option<f64> {
        if spot {
            self.spot_price()
        } else {
            self.price()
        }
    }
}

/// Which catalog layout a file used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Schema {
    /// SkyPilot 0.14's layout (AWS has `Arch`, local-disk and EFA columns).
    V8,
    /// The older layout without them.
    V6,
}

/// What a file's header says beyond its rows, kept for `sky gpus list`,
/// which reads the columns as pandas does: whether a column exists at all,
/// and which number columns pandas' `read_csv` makes integer columns (every
/// cell an integer: `-o json` then prints `224`, not `224.0`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Columns {
    /// The header's names, in file order (the usual ones not allocated:
    /// every catalog load makes one).
    names: Box<[Cow<'static, str>]>,
    /// Bit `i` set: every cell of [`NUMBER_COLUMNS`]`[i]` is an integer.
    integers: u8,
}

/// The number columns whose integer-ness [`Columns`] records, in bit order.
pub const NUMBER_COLUMNS: [&str; 7] = [
    "AcceleratorCount",
    "vCPUs",
    "MemoryGiB",
    "Price",
    "SpotPrice",
    "LocalDiskSize",
    "LocalDiskCount",
];

/// Column names of SkyPilot's catalogs (v6 and v8, every cloud): held
/// without an allocation, and stored in images by index.
pub(crate) const KNOWN_COLUMNS: [&str; 20] = [
    "InstanceType",
    "AcceleratorName",
    "AcceleratorCount",
    "vCPUs",
    "MemoryGiB",
    "GpuInfo",
    "Price",
    "SpotPrice",
    "Region",
    "AvailabilityZone",
    "Arch",
    "LocalDiskType",
    "NVMeSupported",
    "LocalDiskSize",
    "LocalDiskCount",
    "MaximumEfaInterfaces",
    "Generation",
    "StorageGiB",
    "UpstreamCloudId",
    "HostingType",
];

impl Columns {
    /// A header's names and the integer bits of [`NUMBER_COLUMNS`].
    pub(crate) fn new<'n>(names: impl IntoIterator<Item = &'n str>, integers: u8) -> Columns {
        let name = |n: &str| match KNOWN_COLUMNS.iter().find(|k| **k == n) {
            Some(known) => Cow::Borrowed(*known),
            None => Cow::Owned(n.to_string()),
        };
        Columns::from_names(names.into_iter().map(name).collect(), integers)
    }

    /// [`Columns::new`] from names already made.
    pub(crate) fn from_names(names: Vec<Cow<'static, str>>, integers: u8) -> Columns {
        Columns {
            names: names.into_boxed_slice(),
            integers,
        }
    }

    /// Whether the header has a column `name`.
    pub fn has(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    /// The header's names, in file order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(|n| &**n)
    }

    /// Whether `name` (one of [`NUMBER_COLUMNS`]) is a column of integers
    /// only, as pandas infers it: present, no empty cell, every cell an
    /// integer literal.
    pub fn is_integer(&self, name: &str) -> bool {
        NUMBER_COLUMNS
            .iter()
            .position(|n| *n == name)
            .is_some_and(|i| self.integers & (1 << i) != 0)
    }

    /// The integer bits (see [`Columns::new`]).
    pub(crate) fn integer_bits(&self) -> u8 {
        self.integers
    }
}
