//! One cloud's catalog ([`CloudCatalog`]): its rows in file order, the
//! indexes queries use (per instance type, per accelerator name, built on
//! first use), and the AWS zone-mapping join.

use std::collections::hash_map::Entry;
use std::io::Read;

use rustc_hash::FxHashMap;

use super::{AzMapping, CatalogError, CatalogWarning, Columns, CsvParse, Schema, Text, VmRow};
use crate::cloud::CloudId;

/// The rows of one cloud's `vms.csv`, with indexes for the queries in
/// [`query`](super::query).
#[derive(Debug, Clone)]
pub struct CloudCatalog {
    /// The cloud.
    pub cloud: CloudId,
    /// All rows in file order.
    pub rows: Vec<VmRow>,
    /// Whether the file has an `AvailabilityZone` column.
    pub has_zones: bool,
    /// Detected layout.
    pub schema: Schema,
    /// What the header says beyond the rows (see [`Columns`]).
    columns: Columns,
    /// The rows of each instance type, built on first use: a launch's AWS
    /// catalog is re-indexed after the zone mapping drops rows, and many
    /// requests never ask.
    by_instance: std::sync::OnceLock<InstanceIndex>,
    /// Row indexes per accelerator name (see [`CloudCatalog::accelerator_rows`]),
    /// built on first use.
    by_accelerator: std::sync::OnceLock<Vec<(Text, Vec<u32>)>>,
    /// `Some` when `rows` holds only the rows a request selected
    /// ([`selection`](super::selection)): every (region, zone) pair of the whole file, in order
    /// of first appearance, for region and zone validation.
    partial_locations: Option<Box<PartialLocations>>,
}

/// A partial catalog's (region, zone) pairs: as its image stored them
/// ([`StoredLocations`]), made [`Text`]s only when first asked for. Most
/// launches never ask (only region and zone validation, their error lists
/// and the changes OCI, Nebius and the AWS zone mapping make to them do),
/// and making them cost a warm 22-cloud launch ~370 pairs of strings.
#[derive(Debug, Clone)]
struct PartialLocations {
    stored: StoredLocations,
    made: std::sync::OnceLock<Vec<(Text, Option<Text>)>>,
}

impl PartialLocations {
    fn made(&self) -> &[(Text, Option<Text>)] {
        self.made.get_or_init(|| self.stored.make())
    }

    fn made_mut(&mut self) -> &mut Vec<(Text, Option<Text>)> {
        self.made();
        self.made.get_mut().expect("made just above")
    }

    /// Each zone replaced by `name` of it, the pairs without a name (or
    /// zone) dropped: the AWS zone mapping's inner join, done on the
    /// stored text while no `Text` is made.
    fn map_zones<'m>(&mut self, name: impl Fn(&str) -> Option<&'m str>) {
        if let Some(made) = self.made.get_mut() {
            made.retain_mut(|(_, zone)| {
                *zone = zone.as_deref().and_then(&name).map(Text::from);
                zone.is_some()
            });
            return;
        }
        self.stored = self.stored.map_zones(name);
    }
}

/// (region, zone) pairs kept as text: each distinct string once in
/// `text`, each pair as the byte ranges of its region and zone (no zone:
/// an empty range at `u32::MAX`). Built from an image's already checked
/// strings, so making them cannot fail.
#[derive(Debug, Clone, Default)]
pub(crate) struct StoredLocations {
    text: String,
    pairs: Vec<[u32; 4]>,
}

impl StoredLocations {
    const NO_ZONE: [u32; 2] = [u32::MAX, u32::MAX];

    /// Room for `pairs` pairs.
    pub(crate) fn with_capacity(pairs: usize) -> StoredLocations {
        StoredLocations {
            text: String::with_capacity(pairs * 16),
            pairs: Vec::with_capacity(pairs),
        }
    }

    /// Keeps `s` once and gives its range: `seen[id]` (`id` is the
    /// caller's name for `s`, below `seen.len()`) remembers where it was
    /// kept (`[u32::MAX; 2]`: not yet).
    #[inline]
    pub(crate) fn range(&mut self, seen: &mut [[u32; 2]], id: usize, s: &str) -> [u32; 2] {
        if seen[id][0] == u32::MAX {
            let start = self.text.len() as u32;
            self.text.push_str(s);
            seen[id] = [start, self.text.len() as u32];
        }
        seen[id]
    }

    /// Adds a pair of ranges given by [`StoredLocations::range`].
    pub(crate) fn push(&mut self, region: [u32; 2], zone: Option<[u32; 2]>) {
        let zone = zone.unwrap_or(Self::NO_ZONE);
        self.pairs.push([region[0], region[1], zone[0], zone[1]]);
    }

    /// The pairs with each zone replaced by `name` of it; those without a
    /// name (or a zone) dropped.
    fn map_zones<'m>(&self, name: impl Fn(&str) -> Option<&'m str>) -> StoredLocations {
        let mut text = String::new();
        let mut push = |s: &str| -> [u32; 2] {
            let start = text.len() as u32;
            text.push_str(s);
            [start, text.len() as u32]
        };
        // A region by its range (an empty string starts where the next
        // does), a zone name by its text.
        let mut regions: FxHashMap<(u32, u32), [u32; 2]> = FxHashMap::default();
        let mut zones: FxHashMap<&str, [u32; 2]> = FxHashMap::default();
        let mut pairs = Vec::with_capacity(self.pairs.len());
        for &[rs, re, zs, ze] in &self.pairs {
            if zs == u32::MAX {
                continue;
            }
            let Some(zone) = name(&self.text[zs as usize..ze as usize]) else {
                continue;
            };
            let region = *regions
                .entry((rs, re))
                .or_insert_with(|| push(&self.text[rs as usize..re as usize]));
            let zone = *zones.entry(zone).or_insert_with(|| push(zone));
            pairs.push([region[0], region[1], zone[0], zone[1]]);
        }
        StoredLocations { text, pairs }
    }

    /// The pairs made [`Text`]s, each distinct string one shared `Text`.
    fn make(&self) -> Vec<(Text, Option<Text>)> {
        let mut made: FxHashMap<(u32, u32), Text> = FxHashMap::default();
        let mut text = |start: u32, end: u32| {
            made.entry((start, end))
                .or_insert_with(|| Text::from(&self.text[start as usize..end as usize]))
                .clone()
        };
        self.pairs
            .iter()
            .map(|&[rs, re, zs, ze]| {
                let zone = (zs != u32::MAX).then(|| text(zs, ze));
                (text(rs, re), zone)
            })
            .collect()
    }
}

impl CloudCatalog {
    /// Parses a `vms.csv` from a reader; see [`CloudCatalog::from_bytes`].
    pub fn from_reader<R: Read>(
        cloud: CloudId,
        mut reader: R,
        source_name: &str,
    ) -> Result<(CloudCatalog, Vec<CatalogWarning>), CatalogError> {
        let mut data = Vec::new();
        reader
            .read_to_end(&mut data)
            .map_err(|e| CatalogError::Read {
                source_name: source_name.to_string(),
                message: e.to_string(),
            })?;
        Self::from_bytes(cloud, &data, source_name)
    }

    /// Parses a `vms.csv` held in memory. `source_name` names the input in
    /// errors and warnings. (One part: see [`CsvParse`] to parse a large
    /// file's parts on several threads.)
    pub fn from_bytes(
        cloud: CloudId,
        data: &[u8],
        source_name: &str,
    ) -> Result<(CloudCatalog, Vec<CatalogWarning>), CatalogError> {
        let parse = CsvParse::new(cloud, data, source_name, 1)?;
        let part = parse.parse_part(0)?;
        parse.finish(vec![part])
    }

    /// Builds a catalog from rows (used by the CSV and image loaders and tests).
    pub fn from_rows(cloud: CloudId, rows: Vec<VmRow>, has_zones: bool, schema: Schema) -> Self {
        CloudCatalog {
            cloud,
            rows,
            has_zones,
            schema,
            columns: Columns::default(),
            by_instance: std::sync::OnceLock::new(),
            by_accelerator: std::sync::OnceLock::new(),
            partial_locations: None,
        }
    }

    /// The catalog with its file's [`Columns`].
    pub(crate) fn with_columns(mut self, columns: Columns) -> Self {
        self.columns = columns;
        self
    }

    /// What the file's header says beyond its rows: the columns it has,
    /// which number columns pandas reads as integers.
    pub fn columns(&self) -> &Columns {
        &self.columns
    }

    /// Marks the rows as a selection of the file's, whose (region, zone)
    /// pairs are `locations` (see [`CloudCatalog::locations`]).
    pub(crate) fn set_partial(&mut self, locations: StoredLocations) {
        // Boxed: most catalogs are complete, and a `CloudCatalog` stays small.
        self.partial_locations = Some(Box::new(PartialLocations {
            stored: locations,
            made: std::sync::OnceLock::new(),
        }));
    }

    /// Keeps, in a partial catalog, the stored locations whose region
    /// `keep`s: what filtering rows by region (OCI's subscribed regions)
    /// does to the locations of a complete one.
    pub(crate) fn retain_partial_regions(&mut self, keep: impl Fn(&str) -> bool) {
        if let Some(locations) = &mut self.partial_locations {
            locations.made_mut().retain(|(region, _)| keep(region));
        }
    }

    /// Adds, to a partial catalog's stored locations, those of `rows` not
    /// there yet: what adding rows (Nebius' tenant prices) does to the
    /// locations of a complete one.
    pub(crate) fn note_partial_locations(&mut self, rows: &[VmRow]) {
        if let Some(locations) = &mut self.partial_locations {
            let locations = locations.made_mut();
            for row in rows {
                let seen = locations
                    .iter()
                    .any(|(r, z)| **r == *row.region && z.as_deref() == row.zone.as_deref());
                if !seen {
                    locations.push((row.region.clone(), row.zone.clone()));
                }
            }
        }
    }

    /// Whether `rows` holds every row of the file. A partial catalog answers
    /// the queries of the rows it was selected for
    /// ([`RowSelection`](super::selection::RowSelection)) and region/zone validation; it must
    /// not be asked for default instance types or arbitrary instance types.
    pub fn is_complete(&self) -> bool {
        self.partial_locations.is_none()
    }

    /// The (region, zone) of every row of the file: in row order, or for a
    /// partial catalog each distinct pair once, in order of first
    /// appearance (which is all region/zone validation can tell apart).
    pub fn locations(&self) -> impl Iterator<Item = (&Text, Option<&Text>)> {
        let (rows, stored): (&[VmRow], &[(Text, Option<Text>)]) = match &self.partial_locations {
            Some(stored) => (&[], stored.made()),
            None => (&self.rows, &[]),
        };
        rows.iter()
            .map(|r| (&r.region, r.zone.as_ref()))
            .chain(stored.iter().map(|(r, z)| (r, z.as_ref())))
    }

    fn by_instance(&self) -> &InstanceIndex {
        self.by_instance
            .get_or_init(|| InstanceIndex::new(&self.rows))
    }

    /// Rows of one instance type, in file order.
    pub fn instance_rows<'a>(
        &'a self,
        instance_type: &str,
    ) -> impl Iterator<Item = &'a VmRow> + 'a {
        self.instance_runs(instance_type).flatten()
    }

    /// [`CloudCatalog::instance_rows`] as the slices of adjacent rows they
    /// come in: a loop over each slice costs less per row than the
    /// flattened iterator.
    pub(crate) fn instance_runs<'a>(
        &'a self,
        instance_type: &str,
    ) -> impl Iterator<Item = &'a [VmRow]> + 'a {
        let index = self.by_instance();
        let rows = &self.rows;
        let (mut next, name) = index
            .first_run(rows, instance_type)
            .map_or((NO_RUN, None), |(run, name)| (run, Some(name)));
        std::iter::from_fn(move || {
            loop {
                let run = index.runs.get(next as usize)?;
                next = run.next;
                // The chain may hold another name with the same hash.
                let it = rows[run.start as usize].instance_type.as_ref();
                if let (Some(it), Some(name)) = (it, name)
                    && (Text::ptr_eq(name, it) || **name == **it)
                {
                    return Some(&rows[run.start as usize..run.end as usize]);
                }
            }
        })
    }

    /// The rows whose accelerator name `accept`s, grouped by name (each
    /// group in file order). A query that prices or lists one accelerator
    /// tests each distinct name once instead of every row: GCP's catalog
    /// has ~23k rows and a few dozen accelerator names.
    pub fn accelerator_rows<'a>(
        &'a self,
        mut accept: impl FnMut(&str) -> bool + 'a,
    ) -> impl Iterator<Item = &'a VmRow> + 'a {
        let groups = self.by_accelerator.get_or_init(|| {
            let mut groups: Vec<(Text, Vec<u32>)> = Vec::new();
            let mut slot_of: FxHashMap<Text, usize> = FxHashMap::default();
            // Rows come in runs of one accelerator: look a name up once per run.
            let mut last: Option<(&Text, usize)> = None;
            for (i, row) in self.rows.iter().enumerate() {
                let Some(name) = &row.accelerator_name else {
                    continue;
                };
                let slot = match last {
                    Some((seen, slot)) if Text::ptr_eq(seen, name) || **seen == **name => slot,
                    _ => *slot_of.entry(name.clone()).or_insert_with(|| {
                        groups.push((name.clone(), Vec::new()));
                        groups.len() - 1
                    }),
                };
                last = Some((name, slot));
                groups[slot].1.push(i as u32);
            }
            groups
        });
        groups
            .iter()
            .filter(move |(name, _)| accept(name))
            .flat_map(move |(_, rows)| rows.iter().map(move |&i| &self.rows[i as usize]))
    }

    /// Whether the instance type exists in this catalog.
    pub fn has_instance_type(&self, instance_type: &str) -> bool {
        self.by_instance()
            .first_run(&self.rows, instance_type)
            .is_some()
    }

    /// All instance type names (unordered).
    pub fn instance_types(&self) -> impl Iterator<Item = &str> {
        let mut seen: rustc_hash::FxHashSet<&str> = Default::default();
        self.by_instance()
            .runs
            .iter()
            .filter_map(|run| self.rows[run.start as usize].instance_type.as_deref())
            .filter(move |it| seen.insert(it))
    }

    /// Replaces AWS zone IDs by the account's zone names (an inner join:
    /// rows whose zone ID is not in the mapping disappear, as in SkyPilot).
    pub fn apply_az_mapping(&mut self, mapping: &AzMapping) {
        let before = self.rows.len();
        // Zones are interned, so each distinct zone is looked up once, keyed
        // by its allocation; the map holds a clone so that address cannot be
        // freed and reused while it is a key.
        type Resolved = (Text, Option<Text>);
        let mut resolved: FxHashMap<*const u8, Resolved> = FxHashMap::default();
        self.rows.retain_mut(|row| {
            let Some(zone) = &row.zone else {
                return false;
            };
            let (_, name) = resolved
                .entry(zone.as_ptr())
                .or_insert_with(|| (zone.clone(), mapping.zone_name(zone).cloned()));
            row.zone = name.clone();
            row.zone.is_some()
        });
        if let Some(locations) = &mut self.partial_locations {
            locations.map_zones(|zone| mapping.zone_name(zone).map(|name| &**name));
        }
        if self.rows.len() != before {
            self.rows_changed();
        }
    }

    /// Drops the indexes built over `rows`: call after changing the rows.
    pub(crate) fn rows_changed(&mut self) {
        self.by_instance = std::sync::OnceLock::new();
        self.by_accelerator = std::sync::OnceLock::new();
    }
}

/// No run: the end of a chain of [`Run`]s.
const NO_RUN: u32 = u32::MAX;

/// Adjacent rows of one instance type (`rows[start..end]`), and the next
/// run of the same type in file order.
#[derive(Debug, Clone, Copy)]
struct Run {
    start: u32,
    end: u32,
    next: u32,
}

/// Where each instance type's rows are. Rows come grouped by instance type
/// (one image run, one CSV block), so the index holds one [`Run`] per group
/// and one map entry per type, keyed by the name's hash — no list of row
/// numbers per type and no copy of its name: a launch builds it for every
/// catalog it reads, over rows it mostly never looks at.
#[derive(Debug, Clone, Default)]
struct InstanceIndex {
    /// Per hash of an instance type's name, the first and last run of the
    /// types with that hash (in practice one type).
    types: FxHashMap<u64, (u32, u32)>,
    /// The runs, in file order.
    runs: Vec<Run>,
}

impl InstanceIndex {
    fn new(rows: &[VmRow]) -> InstanceIndex {
        let mut runs: Vec<Run> = Vec::new();
        let mut open: Option<&Text> = None;
        for (i, row) in rows.iter().enumerate() {
            let i = i as u32;
            match (&row.instance_type, open) {
                (Some(it), Some(key)) if Text::ptr_eq(key, it) || **key == **it => {
                    if let Some(run) = runs.last_mut() {
                        run.end = i + 1;
                    }
                }
                (it, _) => {
                    open = it.as_ref();
                    if open.is_some() {
                        runs.push(Run {
                            start: i,
                            end: i + 1,
                            next: NO_RUN,
                        });
                    }
                }
            }
        }
        let mut types: FxHashMap<u64, (u32, u32)> =
            FxHashMap::with_capacity_and_hasher(runs.len(), Default::default());
        for r in 0..runs.len() {
            let Some(it) = &rows[runs[r].start as usize].instance_type else {
                continue;
            };
            let r = r as u32;
            match types.entry(name_hash(it)) {
                Entry::Vacant(e) => {
                    e.insert((r, r));
                }
                Entry::Occupied(mut e) => {
                    let (_, last) = e.get_mut();
                    runs[*last as usize].next = r;
                    *last = r;
                }
            }
        }
        InstanceIndex { types, runs }
    }

    /// The first run of `instance_type` and its name as the rows hold it,
    /// or `None` when no row has that type.
    fn first_run<'a>(&self, rows: &'a [VmRow], instance_type: &str) -> Option<(u32, &'a Text)> {
        let &(first, _) = self.types.get(&name_hash(instance_type))?;
        // The chain holds every type whose name has this hash: in the rare
        // case of a collision, runs of the other names are skipped.
        let mut next = first;
        while let Some(run) = self.runs.get(next as usize) {
            if let Some(it) = &rows[run.start as usize].instance_type
                && **it == *instance_type
            {
                return Some((next, it));
            }
            next = run.next;
        }
        None
    }
}

fn name_hash(name: &str) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone,Arch\n";

    #[test]
    fn az_mapping_is_an_inner_join() {
        let csv = format!(
            "{HEADER}m6i.large,,,2,8,,0.096,0.03,us-east-1,use1-az1,x86_64\nm6i.large,,,2,8,,0.096,0.04,us-east-1,use1-az9,x86_64\n"
        );
        let (cat, _) = CloudCatalog::from_reader(CloudId::Aws, csv.as_bytes(), "aws").unwrap();
        let mapping = AzMapping::from_reader(
            "AvailabilityZone,AvailabilityZoneName\nuse1-az1,us-east-1b\n".as_bytes(),
            "m",
        )
        .unwrap();
        let mut mapped = cat.clone();
        mapped.apply_az_mapping(&mapping);
        assert_eq!(mapped.rows.len(), 1);
        assert_eq!(mapped.rows[0].zone.as_deref(), Some("us-east-1b"));
        assert!(mapped.has_instance_type("m6i.large"));
        assert_eq!(cat.rows.len(), 2);
    }

    #[test]
    fn an_instance_types_rows_come_in_file_order_across_its_runs() {
        // `b` in two runs, split by `a` and by a row without a type.
        let csv = format!(
            "{HEADER}b,,,2,8,,1,,r1,z1,x86_64\na,,,2,8,,2,,r1,z1,x86_64\nb,,,2,8,,3,,r2,z2,x86_64\n,,,,,,4,,r3,z3,x86_64\nb,,,2,8,,5,,r3,z3,x86_64\na,,,2,8,,6,,r2,z2,x86_64\n"
        );
        let (cat, _) = CloudCatalog::from_reader(CloudId::Aws, csv.as_bytes(), "aws").unwrap();
        let prices =
            |it: &str| -> Vec<f64> { cat.instance_rows(it).filter_map(|r| r.price()).collect() };
        assert_eq!(prices("b"), [1.0, 3.0, 5.0]);
        assert_eq!(prices("a"), [2.0, 6.0]);
        assert!(prices("c").is_empty());
        assert!(cat.has_instance_type("a") && !cat.has_instance_type("c"));
        let mut types: Vec<&str> = cat.instance_types().collect();
        types.sort();
        assert_eq!(types, ["a", "b"]);
    }
}
