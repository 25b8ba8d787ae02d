//! Catalog queries with SkyPilot's semantics (`sky/catalog/common.py`:
//! `get_instance_type_for_accelerator_impl`, `get_instance_type_for_cpus_mem_impl`,
//! `get_region_zones`, `get_hourly_cost_impl`, `list_accelerators_impl`).
//!
//! SkyPilot sorts with pandas' default (unstable) quicksort; we sort stably,
//! so among equal prices the row that comes first in the file wins. This is
//! the documented deterministic tie rule.

use crate::pytext::py_str_repr;
use std::cmp::Ordering;

use super::{CloudCatalog, Text, VmRow};
use crate::cloud::CloudId;

/// A region with its zones (empty when the catalog has no zone column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionZones {
    /// Region name as written in the catalog.
    pub region: String,
    /// Zones in price order.
    pub zones: Vec<String>,
}

/// A `cpus`/`memory` filter as SkyPilot writes it: `N`, `N+`, or (memory) `Nx`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Amount {
    /// Exactly this many.
    Exactly(f64),
    /// At least this many.
    AtLeast(f64),
    /// Memory at least this multiple of the vCPUs.
    PerCpu(f64),
}

impl Amount {
    /// Parses `N`, `N+`, `Nx`. Returns `None` for anything else.
    pub fn parse(text: &str) -> Option<Amount> {
        let t = text.trim();
        if let Some(n) = t.strip_suffix('+') {
            n.parse().ok().map(Amount::AtLeast)
        } else if let Some(n) = t.strip_suffix('x') {
            n.parse().ok().map(Amount::PerCpu)
        } else {
            t.parse().ok().map(Amount::Exactly)
        }
    }

    fn matches(self, value: Option<f64>, vcpus: Option<f64>) -> bool {
        let Some(v) = value else { return false };
        match self {
            Amount::Exactly(n) => v == n,
            Amount::AtLeast(n) => v >= n,
            Amount::PerCpu(r) => vcpus.is_some_and(|c| v >= c * r),
        }
    }
}

/// Filters shared by the instance queries.
#[derive(Debug, Clone, Copy, Default)]
pub struct Filter<'a> {
    /// vCPU requirement.
    pub cpus: Option<Amount>,
    /// Memory requirement.
    pub memory: Option<Amount>,
    /// Region (case-insensitive).
    pub region: Option<&'a str>,
    /// Zone (case-insensitive).
    pub zone: Option<&'a str>,
    /// Local disk requirement (AWS), e.g. `nvme:500+`.
    pub local_disk: Option<LocalDisk>,
    /// Price ceiling.
    pub max_hourly_cost: Option<f64>,
}

/// A parsed `local_disk` request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LocalDisk {
    /// NVMe required (else any SSD).
    pub nvme: bool,
    /// Size in GB.
    pub size_gb: f64,
    /// `+`: at least the size.
    pub at_least: bool,
}

#[inline]
fn region_zone_ok(row: &VmRow, region: Option<&str>, zone: Option<&str>) -> bool {
    // An empty region is pandas' NaN, which equals nothing.
    if let Some(r) = region
        && (row.region.is_empty() || !row.region.eq_ignore_ascii_case(r))
    {
        return false;
    }
    if let Some(z) = zone {
        match &row.zone {
            Some(rz) if rz.eq_ignore_ascii_case(z) => {}
            _ => return false,
        }
    }
    true
}

/// Whether `row`'s instance storage satisfies `disk` (AWS's local-disk filter).
pub fn local_disk_ok(row: &VmRow, disk: Option<LocalDisk>) -> bool {
    let Some(d) = disk else { return true };
    if row.local_disk_type.as_deref() != Some("ssd") {
        return false;
    }
    if d.nvme && row.nvme_supported != Some(true) {
        return false;
    }
    let total = row.local_disk_size().unwrap_or(0.0) * row.local_disk_count().unwrap_or(0.0);
    if d.at_least {
        total >= d.size_gb
    } else {
        (total - d.size_gb).abs() < 1.0
    }
}

#[inline]
fn row_passes(row: &VmRow, f: &Filter<'_>) -> bool {
    region_zone_ok(row, f.region, f.zone)
        && f.cpus.is_none_or(|c| c.matches(row.vcpus(), row.vcpus()))
        && f.memory
            .is_none_or(|m| m.matches(row.memory_gib(), row.vcpus()))
        && local_disk_ok(row, f.local_disk)
}

/// A catalog string as an owned `String`: copied as `str`, not written
/// through `Display` (`Text::to_string` runs the formatting machinery,
/// several hundred instructions a string).
#[inline]
fn owned(t: &Text) -> String {
    String::from(&**t)
}

fn cmp_price(a: Option<f64>, b: Option<f64>) -> Ordering {
    // pandas puts NaN last.
    match (a, b) {
        (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// Case-insensitive regex as pandas' `str.fullmatch`/`str.contains(case=False)`;
/// a name that is not a valid regex is matched literally.
///
/// Accelerator names are almost always plain words (`H100`, `A100-80GB`),
/// and compiling two regexes per query costs more than the query: a plain
/// ASCII name against ASCII text is compared directly, which is what the
/// regex would do; anything else goes through the (lazily built) regex.
pub(crate) struct NamePattern {
    name: String,
    literal: bool,
    regexes: std::sync::OnceLock<(regex::Regex, regex::Regex)>,
}

impl NamePattern {
    pub(crate) fn new(name: &str) -> NamePattern {
        NamePattern {
            name: name.to_string(),
            literal: !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
            regexes: std::sync::OnceLock::new(),
        }
    }

    fn regexes(&self) -> &(regex::Regex, regex::Regex) {
        self.regexes.get_or_init(|| {
            let name = &self.name;
            let build = |p: String| {
                regex::RegexBuilder::new(&p)
                    .case_insensitive(true)
                    .build()
                    .ok()
            };
            let escaped = regex::escape(name);
            let full = build(format!("^(?:{name})$")).unwrap_or_else(|| {
                build(format!("^(?:{escaped})$")).expect("escaped regex is valid")
            });
            let contains = build(name.to_string())
                .unwrap_or_else(|| build(escaped).expect("escaped regex is valid"));
            (full, contains)
        })
    }

    pub(crate) fn full_match(&self, s: &str) -> bool {
        if self.literal && s.is_ascii() {
            return s.eq_ignore_ascii_case(&self.name);
        }
        self.regexes().0.is_match(s)
    }

    pub(crate) fn contains(&self, s: &str) -> bool {
        if self.literal && s.is_ascii() {
            // A window is compared only where its first byte matches (most
            // never do): the image loader asks this of every distinct
            // accelerator name of every catalog a launch reads.
            let (needle, hay) = (self.name.as_bytes(), s.as_bytes());
            let Some(last) = hay.len().checked_sub(needle.len()) else {
                return false;
            };
            // A plain loop: as an `any` closure it was sometimes left out
            // of line, a call per window (`feasibility/*/t4` +11–14 %).
            let first = needle[0].to_ascii_lowercase();
            for i in 0..=last {
                if hay[i].to_ascii_lowercase() == first
                    && hay[i..i + needle.len()].eq_ignore_ascii_case(needle)
                {
                    return true;
                }
            }
            return false;
        }
        self.regexes().1.is_match(s)
    }
}

/// A test of one string column of rows, decided once per run of rows
/// sharing one interned string: a name pattern or a case-insensitive
/// compare costs more than the pointer compare that skips it. Called from
/// plain loops only (the scans of a whole catalog among them): inside a
/// `filter` closure, `feasibility/aws/h100x8` cost 2.6× the instructions
/// (310 k → 796 k, `bench-ops` under callgrind), the closure called per row.
pub(crate) struct PerName<'a, F> {
    last: Option<(&'a Text, bool)>,
    test: F,
}

impl<'a, F: Fn(&str) -> bool> PerName<'a, F> {
    pub(crate) fn new(test: F) -> Self {
        PerName { last: None, test }
    }

    /// `test(name)`, remembered for the next row with the same string.
    /// Always inlined: the whole-catalog scans call it per row, and out of
    /// line that call cost more than the test it saves.
    #[inline(always)]
    pub(crate) fn test(&mut self, name: &'a Text) -> bool {
        match self.last {
            Some((seen, verdict)) if Text::ptr_eq(seen, name) => verdict,
            _ => {
                let verdict = (self.test)(name);
                self.last = Some((name, verdict));
                verdict
            }
        }
    }
}

/// Python's `f"{x:.2f}"`-style count display used in fuzzy lists: integers without decimals.
pub fn format_count(count: f64) -> String {
    if count.fract() == 0.0 && count.abs() < 1e15 {
        format!("{}", count as i64)
    } else {
        crate::pytext::format_fixed(count, 2)
    }
}

impl CloudCatalog {
    /// vCPUs and memory of an instance type (`None` when unknown).
    pub fn vcpus_mem(&self, instance_type: &str) -> Option<(Option<f64>, Option<f64>)> {
        let row = self.instance_rows(instance_type).next()?;
        Some((row.vcpus(), row.memory_gib()))
    }

    /// The accelerator of an instance type (first row's columns).
    pub fn accelerator_of(&self, instance_type: &str) -> Option<(String, f64)> {
        let row = self.instance_rows(instance_type).next()?;
        let name = row.accelerator_name.as_deref()?;
        Some((name.to_string(), row.accelerator_count().unwrap_or(1.0)))
    }

    /// Hourly price of an instance type; `Err` carries SkyPilot's message.
    pub fn hourly_cost(
        &self,
        instance_type: &str,
        spot: bool,
        region: Option<&str>,
        zone: Option<&str>,
    ) -> Result<f64, String> {
        let mut best: Option<f64> = None;
        let mut any = false;
        // A type's rows come region by region: each region's name is
        // compared once (`region_zone_ok`'s rule: an empty region is NaN).
        let mut in_region = PerName::new(|name| {
            region.is_none_or(|r| !name.is_empty() && name.eq_ignore_ascii_case(r))
        });
        for run in self.instance_runs(instance_type) {
            for row in run {
                if !in_region.test(&row.region) || !region_zone_ok(row, None, zone) {
                    continue;
                }
                any = true;
                if let Some(p) = row.price_for(spot) {
                    best = Some(best.map_or(p, |b: f64| b.min(p)));
                }
            }
        }
        if !any {
            return Err(match (region, zone) {
                (_, Some(z)) => format!("Instance type {instance_type:?} not found in zone {z:?}."),
                (Some(r), None) => {
                    format!("Instance type {instance_type:?} not found in region {r:?}.")
                }
                (None, None) => {
                    format!("Instance type {instance_type:?} not found in all regions.")
                }
            });
        }
        best.ok_or_else(|| {
            format!(
                "No {} found for instance type {instance_type:?}.",
                if spot { "SpotPrice" } else { "Price" }
            )
        })
    }

    /// Regions (and zones) offering `rows`, ordered as SkyPilot's `get_region_zones`.
    pub fn region_zones_of<'a>(
        &self,
        rows: impl Iterator<Item = &'a VmRow>,
        spot: bool,
    ) -> Vec<RegionZones> {
        // `dropna(subset=[price, 'Region', 'AvailabilityZone'])`. Pushed
        // from `for_each`, which walks nested iterators (a type's runs of
        // rows) in their own loops rather than one `next` at a time.
        let mut sorted: Vec<&VmRow> = Vec::new();
        rows.for_each(|r| {
            if r.price_for(spot).is_some()
                && !r.region.is_empty()
                && (!self.has_zones || r.zone.is_some())
            {
                sorted.push(r);
            }
        });
        sorted.sort_by(|a, b| {
            cmp_price(a.price_for(spot), b.price_for(spot))
                .then_with(|| a.region.cmp(&b.region))
                .then_with(|| a.zone.cmp(&b.zone))
        });
        let mut out: Vec<RegionZones> = Vec::new();
        for row in sorted {
            let idx = match out.iter().position(|r| *r.region == *row.region) {
                Some(i) => i,
                None => {
                    out.push(RegionZones {
                        region: owned(&row.region),
                        zones: Vec::new(),
                    });
                    out.len() - 1
                }
            };
            if let Some(z) = &row.zone {
                out[idx].zones.push(owned(z));
            }
        }
        if matches!(
            self.cloud,
            CloudId::Aws | CloudId::Lambda | CloudId::Fluidstack
        ) {
            // US regions first, each group keeping its order (Fluidstack:
            // `fluidstack_catalog.get_region_zones_for_instance_type`).
            let (us, rest): (Vec<_>, Vec<_>) =
                out.into_iter().partition(|r| r.region.starts_with("us-"));
            out = us.into_iter().chain(rest).collect();
        }
        out
    }

    /// Regions offering an instance type, filtered by region/zone.
    pub fn regions_for_instance(
        &self,
        instance_type: &str,
        spot: bool,
        region: Option<&str>,
        zone: Option<&str>,
    ) -> Vec<RegionZones> {
        self.region_zones_of(
            self.instance_rows(instance_type)
                .filter(|r| region_zone_ok(r, region, zone)),
            spot,
        )
    }

    /// The cheapest instance type among rows accepted by `family` and `filter`
    /// (SkyPilot's `get_instance_type_for_cpus_mem_impl`).
    pub fn cheapest_for_cpus_mem(
        &self,
        family: impl Fn(&str) -> bool,
        filter: &Filter<'_>,
        spot: bool,
    ) -> Option<String> {
        let use_spot_price = spot && filter.max_hourly_cost.is_some();
        let mut best: Option<(&VmRow, f64)> = None;
        // A type's rows are adjacent and share one interned name, so the
        // family (a few prefix compares, or Azure's name parsing) is decided
        // once per type rather than once per zone row, and it goes first:
        // most rows are outside the default family.
        let mut last_type: Option<(&Text, bool)> = None;
        for row in &self.rows {
            let Some(it) = row.instance_type.as_ref() else {
                continue;
            };
            let in_family = match last_type {
                Some((seen, verdict)) if Text::ptr_eq(seen, it) => verdict,
                _ => {
                    let verdict = family(it);
                    last_type = Some((it, verdict));
                    verdict
                }
            };
            if !in_family || !row_passes(row, filter) {
                continue;
            }
            let Some(price) = row.price_for(use_spot_price) else {
                continue;
            };
            if filter.max_hourly_cost.is_some_and(|m| price > m) {
                continue;
            }
            if best.is_none_or(|(_, b)| price < b) {
                best = Some((row, price));
            }
        }
        best.and_then(|(r, _)| r.instance_type.as_deref().map(str::to_string))
    }

    /// Instance types offering `count` of accelerator `name`, cheapest first;
    /// or, when none match the name/count, SkyPilot's fuzzy candidate list.
    pub fn instances_for_accelerator(
        &self,
        name: &str,
        count: f64,
        filter: &Filter<'_>,
        spot: bool,
    ) -> AcceleratorMatch {
        let pattern = NamePattern::new(name);
        // Rows come in runs of one interned accelerator name: each run's
        // name is matched once (the same rule as `cheapest_for_cpus_mem`'s
        // family test). A plain loop, not `filter` with a stateful closure:
        // the closure was not inlined, and a call per row cost the whole
        // AWS catalog's scan 2.5× its instructions (`feasibility/aws/h100x8`).
        let mut named = PerName::new(|n| pattern.full_match(n));
        let mut rows: Vec<&VmRow> = Vec::new();
        for r in &self.rows {
            let (Some(_), Some(n)) = (&r.instance_type, &r.accelerator_name) else {
                continue;
            };
            if named.test(n)
                && r.accelerator_count()
                    .is_some_and(|c| (c - count).abs() <= 0.01)
                && region_zone_ok(r, filter.region, filter.zone)
            {
                rows.push(r);
            }
        }
        if rows.is_empty() {
            return AcceleratorMatch::NoMatch {
                fuzzy: self.fuzzy_accelerators(&pattern, count, filter),
            };
        }
        rows.retain(|r| row_passes(r, filter));
        if rows.is_empty() || rows.iter().all(|r| r.price_for(spot).is_none()) {
            return AcceleratorMatch::Instances(Vec::new());
        }
        if let Some(max) = filter.max_hourly_cost {
            rows.retain(|r| r.price_for(spot).is_some_and(|p| p <= max));
        }
        rows.sort_by(|a, b| cmp_price(a.price_for(spot), b.price_for(spot)));
        let mut types: Vec<String> = Vec::new();
        for r in rows {
            let it = r.instance_type.as_deref().unwrap_or_default();
            if !types.iter().any(|t| t == it) {
                types.push(it.to_string());
            }
        }
        AcceleratorMatch::Instances(types)
    }

    /// `NAME:COUNT` of accelerators whose name contains `pattern` with at least `count`, cheapest first.
    pub(crate) fn fuzzy_accelerators(
        &self,
        pattern: &NamePattern,
        count: f64,
        filter: &Filter<'_>,
    ) -> Vec<String> {
        // A plain loop, as in `instances_for_accelerator`, each run of one
        // interned name tested once: the `filter` closure was left out of
        // line, a call and a substring search per row of the catalog.
        let mut named = PerName::new(|n| pattern.contains(n));
        let mut rows: Vec<&VmRow> = Vec::new();
        for r in &self.rows {
            let Some(n) = &r.accelerator_name else {
                continue;
            };
            if named.test(n)
                && r.accelerator_count().is_some_and(|c| c >= count)
                && region_zone_ok(r, filter.region, filter.zone)
            {
                rows.push(r);
            }
        }
        rows.sort_by(|a, b| cmp_price(a.price(), b.price()));
        let mut out: Vec<String> = Vec::new();
        let mut seen: Vec<(&str, u64)> = Vec::new();
        for r in rows {
            let name = r.accelerator_name.as_deref().unwrap_or_default();
            let c = r.accelerator_count().unwrap_or(0.0);
            if seen
                .iter()
                .any(|(n, bits)| *n == name && *bits == c.to_bits())
            {
                continue;
            }
            seen.push((name, c.to_bits()));
            out.push(format!("{name}:{}", format_count(c)));
        }
        out
    }

    /// Distinct regions (lower-cased, sorted) for error messages.
    pub fn all_regions_lower(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .locations()
            .filter(|(region, _)| !region.is_empty())
            .map(|(region, _)| region.to_lowercase())
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// Validates a region/zone pair as SkyPilot's `validate_region_zone_impl`;
    /// returns the catalog's spelling of the region and the zone. A zone
    /// whose rows have no region resolves to the empty region (SkyPilot's
    /// NaN; see `validate::validate_region_zone`).
    pub fn validate_region_zone(
        &self,
        region: Option<&str>,
        zone: Option<&str>,
    ) -> Result<(Option<String>, Option<String>), String> {
        // The name each `<cloud>_catalog.validate_region_zone` passes to
        // `validate_region_zone_impl`: the registry name, except Seeweb's
        // display name, `DO` for DO and `IBM` for IBM.
        let cloud_name = match self.cloud {
            CloudId::Seeweb => "Seeweb",
            CloudId::Do => "DO",
            CloudId::Ibm => "IBM",
            other => other.name(),
        };
        let candidates = |loc: &str, all: Vec<String>| -> String {
            let mut close =
                crate::pytext::close_matches(loc, all.iter().map(String::as_str), 5, 0.6);
            close.sort();
            if close.is_empty() {
                String::new()
            } else {
                format!(
                    "\nDid you mean one of these: {}?",
                    py_str_repr(&close.join(", "))
                )
            }
        };
        let mut validated_region = region.map(str::to_string);
        // (region, zone) of every row; the spelling of the first match wins.
        let mut filtered: Vec<(&Text, Option<&Text>)> = self.locations().collect();
        if let Some(r) = region {
            filtered.retain(|(row_region, _)| row_region.eq_ignore_ascii_case(r));
            if filtered.is_empty() {
                let mut msg = format!("Invalid region {}", py_str_repr(r));
                let mut all: Vec<String> = Vec::new();
                for (row_region, _) in self.locations().filter(|(r, _)| !r.is_empty()) {
                    let l = row_region.to_lowercase();
                    if !all.contains(&l) {
                        all.push(l);
                    }
                }
                let cands = candidates(&r.to_lowercase(), all);
                if cands.is_empty() {
                    if matches!(self.cloud, CloudId::Azure | CloudId::Gcp) {
                        msg.push_str(
                            "\nIf a region is not included in the following list, please check the FAQ docs for how to fetch its catalog info.\nhttps://docs.skypilot.co/en/latest/reference/faq.html#advanced-how-to-make-skypilot-use-all-global-regions",
                        );
                    }
                    msg.push_str(&format!(
                        "\nList of supported {cloud_name} regions: {}",
                        py_str_repr(&self.all_regions_lower().join(", "))
                    ));
                } else {
                    msg.push_str(&cands);
                }
                return Err(msg);
            }
            validated_region = Some(owned(filtered[0].0));
        }
        if let Some(z) = zone {
            let in_zone: Vec<(&Text, Option<&Text>)> = filtered
                .iter()
                .copied()
                .filter(|(_, row_zone)| row_zone.map(|t| &**t) == Some(z))
                .collect();
            if in_zone.is_empty() {
                let region_str = region
                    .map(|r| format!(" for region {}", py_str_repr(r)))
                    .unwrap_or_default();
                let mut all: Vec<String> = Vec::new();
                for (_, row_zone) in &filtered {
                    if let Some(rz) = row_zone
                        && !all.iter().any(|a| **a == ***rz)
                    {
                        all.push(owned(rz));
                    }
                }
                return Err(format!(
                    "Invalid zone {}{region_str}{}",
                    py_str_repr(z),
                    candidates(z, all)
                ));
            }
            validated_region = Some(owned(in_zone[0].0));
        }
        Ok((validated_region, zone.map(str::to_string)))
    }
}

/// Result of [`CloudCatalog::instances_for_accelerator`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AcceleratorMatch {
    /// Matching instance types, cheapest first (may be empty when filters remove all).
    Instances(Vec<String>),
    /// No row has this accelerator name and count; close alternatives.
    NoMatch {
        /// `NAME:COUNT` alternatives, cheapest first.
        fuzzy: Vec<String>,
    },
}

#[cfg(test)]
mod tests {
    use super::NamePattern;

    #[test]
    fn plain_names_match_exactly_like_their_regexes() {
        let names = [
            "H100",
            "h100",
            "A100-80GB",
            "tpu-v4-8",
            "L4",
            "a10g",
            "V100_x",
            "A100.*",
        ];
        let texts = [
            "H100",
            "h100",
            "H100-80GB",
            "A100-80GB",
            "a100-80gb",
            "L4",
            "L40S",
            "xl4x",
            "",
            "A10G",
            "\u{212a}80",
            "tpu-v4-8",
            "A100",
            "v100_X",
        ];
        for name in names {
            let pattern = NamePattern::new(name);
            let (full, contains) = pattern.regexes();
            for text in texts {
                assert_eq!(
                    pattern.full_match(text),
                    full.is_match(text),
                    "{name} ~ {text}"
                );
                assert_eq!(
                    pattern.contains(text),
                    contains.is_match(text),
                    "{name} in {text}"
                );
            }
        }
    }
}
