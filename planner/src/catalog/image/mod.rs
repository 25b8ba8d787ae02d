//! The pre-indexed form of a parsed `vms.csv` (an *image*): what a launch
//! and `sky gpus list` load instead of re-parsing a catalog that has not
//! changed. There is one image format, of the whole parsed catalog; each
//! reader decodes the row runs it wants ([`RunFilter`]).
//!
//! Parsing the 27k-row AWS catalog costs tens of milliseconds, most of it in
//! per-field work (splitting, number parsing, interning). An image stores the
//! same rows column by column with every string interned once, so loading it
//! is a few array walks. The caller decides where images live and when one is
//! stale (see `config::load_catalog_indexed`); this module only converts, and
//! treats any image it cannot fully validate as an error, never as data.
//!
//! Layout: the head (postcard; its strings packed back to back, each
//! checked as UTF-8 when first read; its arrays fixed-width little-endian
//! bytes read in place, so that loading costs what a reader uses, not what
//! the catalog holds), then the row stream (`stream.rs`: its runs one
//! after another, each row against the row above), then the `GpuInfo`
//! cells (UTF-8, back to back). The cells are outside the head's strings
//! because only `sky gpus list` reads them: a launch checks only those of
//! the rows it decodes (`strings.rs`: strings by id, made [`Text`]s on
//! first use).

mod pack;
mod stream;
mod strings;

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

pub use pack::{ImagePack, write_pack};

use stream::{Locations, RunEncoder, decode_run};
use strings::{Packed, Strings, Tables, U32s};

use super::cloud_catalog::StoredLocations;
use super::row::KNOWN_COLUMNS;
use super::selection::{RowMatcher, RowSelection};
use super::{CatalogWarning, CloudCatalog, Columns, Schema, Text, VmRow};
use crate::cloud::CloudId;

/// Bumped whenever the layout or the meaning of a parsed row changes, so
/// images written by another version are rejected instead of misread.
/// 7: the `GpuInfo` column and the header's [`Columns`]. 8: the head's
/// arrays as fixed-width bytes read in place, strings checked when read.
const FORMAT: u32 = 8;
const MAGIC: [u8; 8] = *b"SKYCATIX";

/// Why an image was rejected (the caller falls back to the CSV).
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    /// The bytes are not a complete image of this format.
    #[error("not a catalog image (or a truncated one): {0}")]
    Decode(String),
    /// A well-formed image that does not describe what was asked for.
    #[error("catalog image does not match: {0}")]
    Mismatch(&'static str),
}

/// Everything but the rows; the rows follow it in the same buffer.
#[derive(Serialize, Deserialize)]
struct Head<'a> {
    magic: [u8; 8],
    format: u32,
    cloud: &'a str,
    v6: bool,
    has_zones: bool,
    /// The header's names ([`Columns`]).
    #[serde(borrow)]
    columns: Vec<Column<'a>>,
    /// [`Columns`]' integer bits.
    integers: u8,
    /// Every distinct string of the rows but `GpuInfo`, once, back to back
    /// (each checked as UTF-8 when a reader first uses it).
    strings: &'a [u8],
    /// Where each of `strings` ends (it starts where the one before ends):
    /// `u32` LE ([`U32s`]).
    string_ends: &'a [u8],
    /// Where each distinct `GpuInfo` cell ends in the bytes after the row
    /// stream (they start where the one before ends): `u32` LE.
    gpu_info: &'a [u8],
    /// Rows skipped when the CSV was parsed: (line, message).
    #[serde(borrow)]
    warnings: Vec<(u64, &'a str)>,
    /// The row stream's runs in file order: maximal sequences of rows with
    /// one accelerator name and one instance type, as `u32` LE quadruples
    /// (accelerator string id, instance type string id, rows, bytes). Each
    /// run's stream starts afresh, so a selection decodes only its runs.
    runs: &'a [u8],
    /// Where the row stream ends (the sum of the runs' bytes, stored so
    /// that a selection need not add them up).
    stream_len: u64,
    /// Every distinct (region, zone) string-id pair, in order of first
    /// appearance, as `u32` LE pairs: what region and zone validation
    /// reads, whatever rows a selection decodes.
    locations: &'a [u8],
}

/// A header name in an image: one of SkyPilot's by index (no string to
/// check on load), or any other.
#[derive(Serialize, Deserialize)]
enum Column<'a> {
    /// `KNOWN_COLUMNS[i]`.
    Known(u8),
    /// Any other name.
    Other(&'a str),
}

impl<'a> Column<'a> {
    fn of(name: &'a str) -> Column<'a> {
        match KNOWN_COLUMNS.iter().position(|k| *k == name) {
            Some(i) => Column::Known(i as u8),
            None => Column::Other(name),
        }
    }

    fn name(&self) -> Result<Cow<'static, str>, ImageError> {
        match *self {
            Column::Known(i) => KNOWN_COLUMNS
                .get(usize::from(i))
                .map(|k| Cow::Borrowed(*k))
                .ok_or(ImageError::Mismatch("column index")),
            Column::Other(name) => Ok(Cow::Owned(name.to_string())),
        }
    }
}

/// Which row runs of an image a load decodes. A run is a maximal sequence
/// of rows with one accelerator name and one instance type (see
/// [`CloudCatalog::from_image_runs`]); it is wanted when its accelerator
/// name or its instance type is. Each answer is asked once per distinct
/// string, not once per run.
pub trait RunFilter {
    /// Whether every run is wanted (nothing is tested).
    fn is_all(&self) -> bool;
    /// Whether the runs of rows with this accelerator name (`None`: the
    /// cell is empty) are wanted, whatever their instance type.
    fn wants_accelerator(&self, accelerator: Option<&str>) -> bool;
    /// Whether the runs of rows with this instance type (`None`: the cell
    /// is empty) are wanted, whatever their accelerator.
    fn wants_instance_type(&self, instance_type: Option<&str>) -> bool;
    /// Whether [`RunFilter::wants_instance_type`] may be true for some type
    /// (when not, a load reads no instance type's string: the ×10 AWS
    /// catalog has ~10k of them).
    fn reads_instance_types(&self) -> bool {
        true
    }
    /// Whether the decoded rows' `GpuInfo` cells are read (only `sky gpus
    /// list` reads them): when not, every row's is `None` and no cell is
    /// checked or copied.
    fn reads_gpu_info(&self) -> bool {
        true
    }
}

/// A [`RunFilter`] whose rows' `GpuInfo` cells are left empty: a launch
/// plans without them (they are `sky gpus list`'s).
pub struct WithoutGpuInfo<F>(pub F);

impl<F: RunFilter> RunFilter for WithoutGpuInfo<F> {
    fn is_all(&self) -> bool {
        self.0.is_all()
    }

    fn wants_accelerator(&self, accelerator: Option<&str>) -> bool {
        self.0.wants_accelerator(accelerator)
    }

    fn wants_instance_type(&self, instance_type: Option<&str>) -> bool {
        self.0.wants_instance_type(instance_type)
    }

    fn reads_instance_types(&self) -> bool {
        self.0.reads_instance_types()
    }

    fn reads_gpu_info(&self) -> bool {
        false
    }
}

/// A launch's [`RowSelection`]: the runs of its accelerators and families.
impl RunFilter for RowMatcher {
    fn is_all(&self) -> bool {
        RowMatcher::is_all(self)
    }

    fn wants_accelerator(&self, accelerator: Option<&str>) -> bool {
        RowMatcher::wants_accelerator(self, accelerator)
    }

    fn wants_instance_type(&self, instance_type: Option<&str>) -> bool {
        RowMatcher::wants_instance_type(self, instance_type)
    }

    fn reads_instance_types(&self) -> bool {
        self.selects_families()
    }
}

/// One string-keyed answer of a [`RunFilter`], asked at most once per id.
struct Memo(Vec<u8>);

impl Memo {
    fn new(strings: usize) -> Memo {
        Memo(vec![0; strings + 1])
    }

    /// The answer for string `id` (0: the empty cell), from `ask` the first time.
    /// Inlined: it is asked once or twice per run of the image.
    #[inline]
    fn get<'s>(
        &mut self,
        id: u32,
        text: impl Fn(u32) -> Result<Option<&'s str>, ImageError>,
        ask: impl Fn(Option<&str>) -> bool,
    ) -> Result<bool, ImageError> {
        let slot = self
            .0
            .get_mut(id as usize)
            .ok_or(ImageError::Mismatch("string index"))?;
        if *slot == 0 {
            *slot = if ask(text(id)?) { 2 } else { 1 };
        }
        Ok(*slot == 2)
    }
}

/// String `id` (0: none) of `packed` kept in `stored`, once: `seen[id]`
/// remembers where.
#[inline]
fn keep_location(
    stored: &mut StoredLocations,
    seen: &mut [[u32; 2]],
    packed: &Packed<'_>,
    id: u32,
) -> Result<Option<[u32; 2]>, ImageError> {
    let Some(i) = (id as usize).checked_sub(1) else {
        return Ok(None);
    };
    match seen.get(id as usize) {
        Some(kept) if kept[0] != u32::MAX => Ok(Some(*kept)),
        Some(_) => Ok(Some(stored.range(seen, id as usize, packed.get(i)?))),
        None => Err(ImageError::Mismatch("string index")),
    }
}

/// The head's runs, read in place: (accelerator id, instance type id,
/// rows, bytes) each, from their `u32` LE quadruples (nothing copied: the
/// ×1 AWS image has ~600 runs, of which a launch decodes a few).
#[derive(Clone, Copy)]
struct Runs<'a>(&'a [[u8; 16]]);

impl<'a> Runs<'a> {
    fn new(bytes: &'a [u8]) -> Result<Runs<'a>, ImageError> {
        match bytes.as_chunks::<16>() {
            (quads, []) => Ok(Runs(quads)),
            _ => Err(ImageError::Decode("runs are cut short".into())),
        }
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    /// Every run, in order (a few instructions each: the quadruple's
    /// bounds are known).
    fn iter(&self) -> impl Iterator<Item = (u32, u32, u32, u32)> + 'a {
        self.0.iter().map(|q| {
            let at = |k: usize| u32::from_le_bytes([q[k], q[k + 1], q[k + 2], q[k + 3]]);
            (at(0), at(4), at(8), at(12))
        })
    }
}

/// The run a writer is in: its accelerator name and instance type (and
/// their ids), where its bytes start, its rows so far.
struct OpenRun {
    name: Option<Text>,
    it: Option<Text>,
    ids: (u32, u32),
    start: usize,
    rows: u32,
    encoder: RunEncoder,
}

impl OpenRun {
    /// Whether `row` belongs to this run (same accelerator name and
    /// instance type).
    fn holds(&self, row: &VmRow) -> bool {
        let same = |a: Option<&Text>, b: Option<&Text>| match (a, b) {
            (Some(a), Some(b)) => Text::ptr_eq(a, b) || **a == **b,
            (a, b) => a.is_none() && b.is_none(),
        };
        same(self.name.as_ref(), row.accelerator_name.as_ref())
            && same(self.it.as_ref(), row.instance_type.as_ref())
    }
}

/// An image written as its rows come, a slice at a time, so that a catalog
/// parsed piece by piece never holds all its rows ([`super::CsvImageParse`]);
/// [`CloudCatalog::to_image`] writes all of a catalog's rows at once through
/// it. Runs are maximal sequences of rows with one accelerator name and one
/// instance type, across slices.
pub(crate) struct ImageWriter {
    tables: Tables,
    stream: Vec<u8>,
    /// (accelerator id, instance type id, rows, bytes) of each closed run.
    runs: Vec<u32>,
    locations: Locations,
    run: Option<OpenRun>,
}

impl ImageWriter {
    /// A writer whose row stream starts with room for `rows` rows.
    pub(crate) fn new(rows: usize) -> ImageWriter {
        ImageWriter {
            tables: Tables::default(),
            stream: Vec::with_capacity(rows * 12),
            runs: Vec::new(),
            locations: Locations::default(),
            run: None,
        }
    }

    /// Writes `rows`, which follow the rows written before.
    pub(crate) fn push_rows(&mut self, rows: &[VmRow]) {
        for row in rows {
            match &mut self.run {
                Some(run) if run.holds(row) => {}
                open => {
                    if let Some(done) = open.take() {
                        self.runs.extend([
                            done.ids.0,
                            done.ids.1,
                            done.rows,
                            (self.stream.len() - done.start) as u32,
                        ]);
                    }
                    let (name, it) = (row.accelerator_name.clone(), row.instance_type.clone());
                    // The name first, then the type: the order ids are given in.
                    let name_id = self.tables.strings.id(name.as_ref());
                    let it_id = self.tables.strings.id(it.as_ref());
                    *open = Some(OpenRun {
                        name,
                        it,
                        ids: (name_id, it_id),
                        start: self.stream.len(),
                        rows: 0,
                        encoder: RunEncoder::new(),
                    });
                }
            }
            if let Some(run) = &mut self.run {
                run.encoder
                    .row(row, &mut self.tables, &mut self.locations, &mut self.stream);
                run.rows += 1;
            }
        }
        // The caller may drop these rows: their strings' addresses with them.
        if let Some(run) = &mut self.run {
            run.encoder.forget_cells();
        }
    }

    /// Stores these (region, zone) pairs instead of those of the rows
    /// written: the rows were a selection of the file's.
    fn set_locations<'a>(&mut self, pairs: impl Iterator<Item = (&'a Text, Option<&'a Text>)>) {
        self.locations = Locations::default();
        for (region, zone) in pairs {
            let pair = (
                self.tables.strings.id(Some(region)),
                self.tables.strings.id(zone),
            );
            self.locations.add(pair);
        }
    }

    /// The image of the rows written, of a `cloud` catalog with this
    /// layout, header and warnings.
    pub(crate) fn finish(
        mut self,
        cloud: CloudId,
        schema: Schema,
        has_zones: bool,
        columns: &Columns,
        warnings: &[CatalogWarning],
    ) -> Vec<u8> {
        if let Some(done) = self.run.take() {
            self.runs.extend([
                done.ids.0,
                done.ids.1,
                done.rows,
                (self.stream.len() - done.start) as u32,
            ]);
        }
        let stream = self.stream;
        let (strings, string_ends) = self.tables.strings.pack();
        let (cells, gpu_info) = self.tables.gpu_info.pack();
        let string_ends = U32s::encode(string_ends);
        let gpu_info = U32s::encode(gpu_info);
        let runs = U32s::encode(self.runs);
        let locations = U32s::encode(self.locations.pairs.into_iter().flat_map(|(r, z)| [r, z]));
        let head = Head {
            magic: MAGIC,
            format: FORMAT,
            cloud: cloud.name(),
            v6: schema == Schema::V6,
            has_zones,
            columns: columns.names().map(Column::of).collect(),
            integers: columns.integer_bits(),
            strings: strings.as_bytes(),
            string_ends: &string_ends,
            gpu_info: &gpu_info,
            warnings: warnings
                .iter()
                .map(|w| (w.line, w.message.as_str()))
                .collect(),
            runs: &runs,
            stream_len: stream.len() as u64,
            locations: &locations,
        };
        // The head is a small part of the image: sized for it and the rest.
        let out = Vec::with_capacity(
            4096 + strings.len()
                + string_ends.len()
                + runs.len()
                + locations.len()
                + stream.len()
                + cells.len(),
        );
        let mut out = postcard::to_extend(&head, out).expect("encoding to a Vec cannot fail");
        out.extend_from_slice(&stream);
        out.extend_from_slice(cells.as_bytes());
        out
    }
}

impl CloudCatalog {
    /// Encodes the catalog, with the warnings its CSV produced, as an image.
    pub fn to_image(&self, warnings: &[CatalogWarning]) -> Vec<u8> {
        let mut writer = ImageWriter::new(self.rows.len());
        writer.push_rows(&self.rows);
        if !self.is_complete() {
            // The rows are a selection: the file's locations are stored.
            writer.set_locations(self.locations());
        }
        writer.finish(
            self.cloud,
            self.schema,
            self.has_zones,
            self.columns(),
            warnings,
        )
    }

    /// Decodes an image written by [`CloudCatalog::to_image`] for `cloud`.
    /// `source_name` names the original CSV in the returned warnings.
    pub fn from_image(
        cloud: CloudId,
        bytes: &[u8],
        source_name: &str,
    ) -> Result<(CloudCatalog, Vec<CatalogWarning>), ImageError> {
        Self::from_image_runs(cloud, bytes, source_name, &RowSelection::All.matcher())
    }

    /// [`CloudCatalog::from_image`], decoding only the rows `selection`
    /// asks for. A narrower selection gives a catalog that is not
    /// [complete](CloudCatalog::is_complete): its regions and zones are still
    /// all of the file's.
    pub fn from_image_selected(
        cloud: CloudId,
        bytes: &[u8],
        source_name: &str,
        selection: &RowSelection,
    ) -> Result<(CloudCatalog, Vec<CatalogWarning>), ImageError> {
        Self::from_image_runs(cloud, bytes, source_name, &selection.matcher())
    }

    /// [`CloudCatalog::from_image`], decoding only the row runs `runs`
    /// wants, and every other run of an instance type one of those holds.
    /// Unless `runs` wants all, the catalog is not
    /// [complete](CloudCatalog::is_complete): its regions and zones are still
    /// all of the file's.
    pub fn from_image_runs(
        cloud: CloudId,
        bytes: &[u8],
        source_name: &str,
        runs: &dyn RunFilter,
    ) -> Result<(CloudCatalog, Vec<CatalogWarning>), ImageError> {
        let (head, rest): (Head<'_>, &[u8]) =
            postcard::take_from_bytes(bytes).map_err(|e| ImageError::Decode(e.to_string()))?;
        if head.magic != MAGIC || head.format != FORMAT {
            return Err(ImageError::Mismatch("format version"));
        }
        if head.cloud != cloud.name() {
            return Err(ImageError::Mismatch("cloud"));
        }
        let runs_table = Runs::new(head.runs)?;
        let run_count = runs_table.len();
        let Some((stream, gpu_cells)) = usize::try_from(head.stream_len)
            .ok()
            .and_then(|len| rest.split_at_checked(len))
        else {
            return Err(ImageError::Decode(
                "run lengths do not cover the rows".into(),
            ));
        };
        let packed = Packed::new_text(head.strings, U32s::new(head.string_ends)?)?;
        let text = |id: u32| -> Result<Option<&str>, ImageError> {
            match id {
                0 => Ok(None),
                id => packed.get(id as usize - 1).map(Some),
            }
        };
        // Which runs to decode: those wanted, then every run of an instance
        // type one of those holds. Each accelerator name and instance type
        // is asked about once (the ×10 AWS catalog has ~10k runs and ~300
        // accelerator names); `types` marks the instance types held.
        let all = runs.is_all();
        let mut wanted = vec![all; run_count];
        // The rows to decode (to reserve them at once).
        let mut total = 0u64;
        if all {
            total = runs_table.iter().map(|run| u64::from(run.2)).sum();
        } else {
            let mut by_name = Memo::new(packed.len());
            let mut by_type = Memo::new(packed.len());
            let mut types = vec![false; packed.len() + 1];
            let reads_types = runs.reads_instance_types();
            for (w, (name, it, _, _)) in wanted.iter_mut().zip(runs_table.iter()) {
                if by_name.get(name, text, |a| runs.wants_accelerator(a))?
                    || (reads_types && by_type.get(it, text, |t| runs.wants_instance_type(t))?)
                {
                    *w = true;
                    if it != 0 {
                        // An id outside the table is no image of ours.
                        *types
                            .get_mut(it as usize)
                            .ok_or(ImageError::Mismatch("string index"))? = true;
                    }
                }
            }
            for (w, (_, it, count, _)) in wanted.iter_mut().zip(runs_table.iter()) {
                *w |= it != 0 && types.get(it as usize).copied().unwrap_or(false);
                if *w {
                    total += u64::from(count);
                }
            }
        }
        let gpu = Packed::new(gpu_cells, U32s::new(head.gpu_info)?)
            .map_err(|_| ImageError::Decode("GpuInfo cells do not add up".into()))?;
        let mut strings = Strings::new(packed, runs.reads_gpu_info().then_some(gpu));
        // The count is trusted only as far as the bytes could hold that many
        // rows (two mask bytes each).
        let mut rows: Vec<VmRow> = Vec::with_capacity((total as usize).min(stream.len() / 2));
        let mut offset = 0usize;
        for (wanted, (name, it, count, len)) in wanted.into_iter().zip(runs_table.iter()) {
            let end = offset.saturating_add(len as usize);
            let run = stream
                .get(offset..end)
                .ok_or_else(|| ImageError::Decode("a run ends past the rows".into()))?;
            offset = end;
            if wanted {
                decode_run(run, count as usize, (it, name), &mut strings, &mut rows)?;
            }
        }
        if offset != stream.len() {
            return Err(ImageError::Decode(
                "run lengths do not cover the rows".into(),
            ));
        }
        let schema = if head.v6 { Schema::V6 } else { Schema::V8 };
        let warnings = head
            .warnings
            .iter()
            .map(|&(line, message)| CatalogWarning {
                source_name: source_name.to_string(),
                line,
                message: message.to_string(),
            })
            .collect();
        let names = head
            .columns
            .iter()
            .map(Column::name)
            .collect::<Result<_, _>>()?;
        let columns = Columns::from_names(names, head.integers);
        let mut catalog =
            CloudCatalog::from_rows(cloud, rows, head.has_zones, schema).with_columns(columns);
        if !all {
            // Kept as text, made `Text`s only if asked for; each string is
            // checked here, as a decode that made it would have.
            let pairs = U32s::new(head.locations)?;
            let mut stored = StoredLocations::with_capacity(pairs.len() / 2);
            // Where each string id was kept: each string checked and
            // copied once.
            let mut seen = vec![[u32::MAX; 2]; packed.len() + 1];
            for i in 0..pairs.len() / 2 {
                let (region, zone) = (
                    pairs.get(2 * i).unwrap_or(0),
                    pairs.get(2 * i + 1).unwrap_or(0),
                );
                let region = keep_location(&mut stored, &mut seen, &packed, region)?
                    .ok_or(ImageError::Mismatch("empty region"))?;
                let zone = keep_location(&mut stored, &mut seen, &packed, zone)?;
                stored.push(region, zone);
            }
            catalog.set_partial(stored);
        }
        Ok((catalog, warnings))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::disallowed_methods)] // reads a fixture
    fn every_fixture_catalog_round_trips() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/catalogs");
        for cloud in CloudId::ALL {
            let Ok(csv) = std::fs::read(dir.join(cloud.name()).join("vms.csv")) else {
                continue;
            };
            let (parsed, warnings) = CloudCatalog::from_bytes(cloud, &csv, "csv").unwrap();
            let image = parsed.to_image(&warnings);
            let (loaded, loaded_warnings) = CloudCatalog::from_image(cloud, &image, "csv").unwrap();
            assert_eq!(loaded.rows, parsed.rows, "{cloud:?}");
            assert_eq!(loaded.schema, parsed.schema);
            assert_eq!(loaded.has_zones, parsed.has_zones);
            assert_eq!(loaded_warnings, warnings);
            let mut a: Vec<_> = loaded.instance_types().collect();
            let mut b: Vec<_> = parsed.instance_types().collect();
            a.sort();
            b.sort();
            assert_eq!(a, b);
        }
    }

    #[test]
    #[allow(clippy::disallowed_methods)] // reads a fixture
    fn a_selection_decodes_exactly_the_matching_rows_in_file_order() {
        use crate::cloud::InstanceFamily;
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/catalogs");
        let selections = [
            RowSelection::accelerator("H100"),
            RowSelection::accelerator("a100"),
            {
                let mut s = RowSelection::accelerator("T4");
                s.widen(RowSelection::accelerator("L4"));
                s
            },
            RowSelection::accelerator("A100-80GB"),
            RowSelection::accelerator("no-such-gpu"),
            RowSelection::nothing(),
            RowSelection::family(InstanceFamily::Prefixes(&["m6i.", "n2-standard-", "a3-"])),
            {
                let mut s = RowSelection::accelerator("H100");
                s.widen(RowSelection::family(InstanceFamily::Prefixes(&["n1-"])));
                s
            },
            RowSelection::family(InstanceFamily::Azure(&["Ds_v5"])),
        ];
        let mut narrowed = 0;
        for cloud in CloudId::ALL {
            let Ok(csv) = std::fs::read(dir.join(cloud.name()).join("vms.csv")) else {
                continue;
            };
            let (parsed, warnings) = CloudCatalog::from_bytes(cloud, &csv, "csv").unwrap();
            let image = parsed.to_image(&warnings);
            let mut pairs: Vec<(&str, Option<&str>)> = Vec::new();
            for (r, z) in parsed.locations() {
                if !pairs.contains(&(&**r, z.map(|z| &**z))) {
                    pairs.push((r, z.map(|z| &**z)));
                }
            }
            for selection in &selections {
                let (loaded, loaded_warnings) =
                    CloudCatalog::from_image_selected(cloud, &image, "csv", selection).unwrap();
                assert_eq!(loaded_warnings, warnings);
                assert!(!loaded.is_complete());
                narrowed += 1;
                // The rows selected directly, then every row of their types.
                let matcher = selection.matcher();
                let direct = |r: &VmRow| {
                    matcher.wants_accelerator(r.accelerator_name.as_deref())
                        || matcher.wants_instance_type(r.instance_type.as_deref())
                };
                let types: Vec<&str> = parsed
                    .rows
                    .iter()
                    .filter(|r| direct(r))
                    .filter_map(|r| r.instance_type.as_deref())
                    .collect();
                let expected: Vec<&VmRow> = parsed
                    .rows
                    .iter()
                    .filter(|r| {
                        direct(r)
                            || r.instance_type
                                .as_deref()
                                .is_some_and(|t| types.contains(&t))
                    })
                    .collect();
                assert_eq!(
                    loaded.rows.iter().collect::<Vec<_>>(),
                    expected,
                    "{cloud:?} {selection:?}"
                );
                let got: Vec<(&str, Option<&str>)> = loaded
                    .locations()
                    .map(|(r, z)| (&**r, z.map(|z| &**z)))
                    .collect();
                assert_eq!(got, pairs, "{cloud:?}: every location, each once");
                assert_eq!(loaded.all_regions_lower(), parsed.all_regions_lower());
            }
        }
        assert!(narrowed > 20, "only {narrowed} selections were narrowed");
    }

    #[test]
    fn region_and_zone_validation_reads_the_whole_file_through_a_selection() {
        let csv = "InstanceType,AcceleratorName,AcceleratorCount,Price,Region,AvailabilityZone\n\
                   cpu,,,1,Us-West-2,usw2-a\n\
                   gpu,H100,8,9,us-east-1,use1-a\n\
                   gpu,H100,8,9,us-east-1,use1-b\n";
        let (parsed, _) = CloudCatalog::from_bytes(CloudId::Aws, csv.as_bytes(), "x").unwrap();
        let image = parsed.to_image(&[]);
        let selection = RowSelection::accelerator("H100");
        let (loaded, _) =
            CloudCatalog::from_image_selected(CloudId::Aws, &image, "x", &selection).unwrap();
        assert!(!loaded.is_complete());
        assert_eq!(loaded.rows.len(), 2);
        for (region, zone) in [
            (Some("us-west-2"), None),
            (Some("us-west-2"), Some("usw2-a")),
            (None, Some("usw2-a")),
            (Some("us-east-1"), Some("usw2-a")),
            (Some("eu-west-1"), None),
            (None, Some("nowhere")),
        ] {
            assert_eq!(
                loaded.validate_region_zone(region, zone),
                parsed.validate_region_zone(region, zone),
                "{region:?} {zone:?}"
            );
        }
        assert_eq!(
            loaded.validate_region_zone(Some("us-west-2"), None),
            Ok((Some("Us-West-2".to_string()), None))
        );
    }

    #[test]
    fn a_selections_locations_are_made_when_asked_and_keep_an_empty_region_apart() {
        // An empty region (kept for a row with an instance type) is a
        // string of its own, stored right before the next one.
        let csv = "InstanceType,AcceleratorName,AcceleratorCount,Price,Region,AvailabilityZone\n\
                   cpu,,,1,,z0\n\
                   cpu,,,1,r1,z1\n\
                   gpu,H100,8,9,r1,z2\n\
                   gpu,H100,8,9,r2,\n";
        let (parsed, _) = CloudCatalog::from_bytes(CloudId::Ibm, csv.as_bytes(), "x").unwrap();
        let image = parsed.to_image(&[]);
        let selection = RowSelection::accelerator("H100");
        let (loaded, _) =
            CloudCatalog::from_image_selected(CloudId::Ibm, &image, "x", &selection).unwrap();
        let pairs = |c: &CloudCatalog| -> Vec<(String, Option<String>)> {
            c.locations()
                .map(|(r, z)| (r.to_string(), z.map(|z| z.to_string())))
                .collect()
        };
        let whole = pairs(&parsed);
        assert_eq!(whole[0], (String::new(), Some("z0".to_string())));
        assert_eq!(pairs(&loaded), whole);
        // A clone made before they are asked for answers the same.
        let (loaded, _) =
            CloudCatalog::from_image_selected(CloudId::Ibm, &image, "x", &selection).unwrap();
        let copy = loaded.clone();
        assert_eq!(pairs(&copy), whole);
        assert_eq!(loaded.all_regions_lower(), parsed.all_regions_lower());
    }

    #[test]
    fn the_zone_mapping_joins_a_selections_stored_locations_as_it_joins_rows() {
        let csv = "InstanceType,AcceleratorName,AcceleratorCount,Price,Region,AvailabilityZone\n\
                   cpu,,,1,us-east-1,use1-az1\n\
                   cpu,,,1,us-east-1,use1-az9\n\
                   cpu,,,1,,use1-az1\n\
                   gpu,H100,8,9,us-west-2,usw2-az1\n\
                   gpu,H100,8,9,us-east-1,use1-az1\n";
        let mapping = crate::catalog::AzMapping::from_reader(
            &b"AvailabilityZone,AvailabilityZoneName\nuse1-az1,us-east-1a\nusw2-az1,us-west-2b\n"[..],
            "m.csv",
        )
        .unwrap();
        let (mut parsed, _) = CloudCatalog::from_bytes(CloudId::Aws, csv.as_bytes(), "x").unwrap();
        let image = parsed.to_image(&[]);
        parsed.apply_az_mapping(&mapping);
        let mut expected: Vec<(String, Option<String>)> = Vec::new();
        for (r, z) in parsed.locations() {
            let pair = (r.to_string(), z.map(|z| z.to_string()));
            if !expected.contains(&pair) {
                expected.push(pair);
            }
        }
        assert_eq!(expected.len(), 3, "{expected:?}");
        // Joined while stored as text, and after being made `Text`s.
        for made_first in [false, true] {
            let selection = RowSelection::accelerator("H100");
            let (mut loaded, _) =
                CloudCatalog::from_image_selected(CloudId::Aws, &image, "x", &selection).unwrap();
            if made_first {
                assert_eq!(loaded.locations().count(), 4);
            }
            loaded.apply_az_mapping(&mapping);
            let got: Vec<(String, Option<String>)> = loaded
                .locations()
                .map(|(r, z)| (r.to_string(), z.map(|z| z.to_string())))
                .collect();
            assert_eq!(got, expected, "made first: {made_first}");
            assert_eq!(
                loaded.validate_region_zone(None, Some("us-east-1a")),
                parsed.validate_region_zone(None, Some("us-east-1a"))
            );
        }
    }

    #[test]
    fn warnings_survive_and_take_the_current_name() {
        let csv = "InstanceType,Price,Region,vCPUs\na,1,r,2\nb,1,r,two\n";
        let (parsed, warnings) =
            CloudCatalog::from_bytes(CloudId::Lambda, csv.as_bytes(), "old").unwrap();
        assert_eq!(warnings.len(), 1);
        let image = parsed.to_image(&warnings);
        let (_, w) = CloudCatalog::from_image(CloudId::Lambda, &image, "new/vms.csv").unwrap();
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].line, 3);
        assert!(w[0].to_string().starts_with("new/vms.csv:3:"), "{}", w[0]);
    }

    #[test]
    fn truncated_foreign_or_other_cloud_images_are_rejected() {
        let csv = "InstanceType,Price,Region\na,1,r\n";
        let (parsed, _) = CloudCatalog::from_bytes(CloudId::Lambda, csv.as_bytes(), "x").unwrap();
        let image = parsed.to_image(&[]);
        for cut in [0, 1, image.len() / 2, image.len() - 1] {
            assert!(
                CloudCatalog::from_image(CloudId::Lambda, &image[..cut], "x").is_err(),
                "accepted an image cut at {cut}"
            );
        }
        assert!(matches!(
            CloudCatalog::from_image(CloudId::Runpod, &image, "x"),
            Err(ImageError::Mismatch("cloud"))
        ));
        assert!(CloudCatalog::from_image(CloudId::Lambda, csv.as_bytes(), "x").is_err());
        let mut wrong_format = image.clone();
        wrong_format[8] ^= 0x7f;
        assert!(CloudCatalog::from_image(CloudId::Lambda, &wrong_format, "x").is_err());
    }

    #[test]
    fn gpu_info_cells_are_checked_when_a_run_holding_one_is_decoded() {
        let csv = "InstanceType,AcceleratorName,AcceleratorCount,GpuInfo,Price,Region\n\
                   cpu,,,,1,r\n\
                   gpu,A100,1,\"{'Gpus': []}\",2,r\n";
        let (parsed, _) = CloudCatalog::from_bytes(CloudId::Lambda, csv.as_bytes(), "x").unwrap();
        let image = parsed.to_image(&[]);
        let (loaded, _) = CloudCatalog::from_image(CloudId::Lambda, &image, "x").unwrap();
        assert_eq!(loaded.rows[1].gpu_info.as_deref(), Some("{'Gpus': []}"));
        assert_eq!(loaded.rows, parsed.rows);
        // The cells are the image's last bytes: a damaged one is refused by
        // a load that decodes it, and not read by one that does not.
        let mut damaged = image.clone();
        *damaged.last_mut().unwrap() = 0xff;
        assert!(CloudCatalog::from_image(CloudId::Lambda, &damaged, "x").is_err());
        let cpu = RowSelection::family(crate::cloud::InstanceFamily::Prefixes(&["cpu"]));
        let (some, _) =
            CloudCatalog::from_image_selected(CloudId::Lambda, &damaged, "x", &cpu).unwrap();
        assert_eq!(some.rows.len(), 1);
        let mut longer = image.clone();
        longer.push(b' ');
        assert!(CloudCatalog::from_image_selected(CloudId::Lambda, &longer, "x", &cpu).is_err());
    }

    #[test]
    fn a_reader_without_gpu_info_gets_the_same_rows_with_empty_cells() {
        let csv = "InstanceType,AcceleratorName,AcceleratorCount,GpuInfo,Price,Region\n\
                   cpu,,,,1,r\n\
                   gpu,A100,1,\"{'Gpus': []}\",2,r\n";
        let (parsed, _) = CloudCatalog::from_bytes(CloudId::Lambda, csv.as_bytes(), "x").unwrap();
        let image = parsed.to_image(&[]);
        let all = WithoutGpuInfo(RowSelection::All.matcher());
        let (loaded, _) =
            CloudCatalog::from_image_runs(CloudId::Lambda, &image, "x", &all).unwrap();
        let mut expected = parsed.rows.clone();
        for row in &mut expected {
            row.gpu_info = None;
        }
        assert_eq!(loaded.rows, expected);
        assert!(parsed.rows[1].gpu_info.is_some());
        // The cells are not read: a damaged one does not matter.
        let mut damaged = image.clone();
        *damaged.last_mut().unwrap() = 0xff;
        let (loaded, _) =
            CloudCatalog::from_image_runs(CloudId::Lambda, &damaged, "x", &all).unwrap();
        assert_eq!(loaded.rows, expected);
    }

    #[test]
    fn a_string_table_that_is_not_utf8_is_refused() {
        let csv = "InstanceType,Price,Region\nabc,1,r\n";
        let (parsed, _) = CloudCatalog::from_bytes(CloudId::Lambda, csv.as_bytes(), "x").unwrap();
        let image = parsed.to_image(&[]);
        let at = image.windows(3).position(|w| w == b"abc").unwrap();
        let mut damaged = image.clone();
        damaged[at + 1] = 0xc3; // starts a two-byte character that `c` does not continue
        assert!(matches!(
            CloudCatalog::from_image(CloudId::Lambda, &damaged, "x"),
            Err(ImageError::Decode(_))
        ));
    }
}
