//! Nebius per-tenant pricing, as `sky/catalog/nebius_catalog.py` and
//! `sky/catalog/data_fetchers/fetch_nebius.py` do it, minus the network.
//!
//! With `nebius.use_personal_pricing` on (the default) and a tenant id,
//! SkyPilot lists the tenant's projects (one per region), each project's
//! compute platforms and presets, and asks the billing calculator for an
//! on-demand and a preemptible hourly estimate of every preset with the
//! tenant's contract prices. The priced presets are written as a
//! `vms_<tenant>.csv` ([`tenant_catalog_csv`], `write_preset_prices`), and the
//! catalog becomes `pd.concat([static, tenant]).drop_duplicates(subset=
//! ['InstanceType', 'Region'], keep='last')` ([`CloudCatalog::overlay`]):
//! tenant rows replace the list-price rows they match and come last.
//!
//! The adapter (`optimizer::clouds::nebius`) does the calls; what it gets
//! back is judged here, by SkyPilot's rules: [`hourly_total_cost`]
//! (`_get_hourly_total_cost`), [`price_preset`] (the skips of
//! `_estimate_platforms_async`) and [`check_coverage`] (the refusal of a
//! mostly-unpriced catalog in `_fetch_user_catalog`).

use std::fmt::Write as _;

use super::{CatalogError, CloudCatalog, Text};
use crate::check::{NebiusFacts, NebiusPreset};
use crate::cloud::CloudId;

/// The header `fetch_nebius.write_preset_prices` writes.
pub const TENANT_CATALOG_HEADER: &str =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice";

/// `fetch_nebius.ACCELERATOR_MANUFACTURER`.
const ACCELERATOR_MANUFACTURER: &str = "NVIDIA";

/// How one `TotalCost` of a billing estimate carries its amount (its
/// `cost_type` oneof).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CostKind {
    /// `general`: the `total.cost` decimal text (`None`: `total` unset).
    General(Option<String>),
    /// `range`: a min/max estimate SkyPilot refuses.
    Range,
    /// Neither is set.
    Unset,
}

/// One `TotalCost` of an `EstimateBatchResponse`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TotalCost {
    /// `aggregation_unit.unit` (`hour`, `month`, ...).
    pub unit: String,
    /// The amount.
    pub cost: CostKind,
}

/// What one preset of one platform is, from `PlatformService.List`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresetSpec<'a> {
    /// The project's region.
    pub region: &'a str,
    /// Platform name (`gpu-h100-sxm`).
    pub platform: &'a str,
    /// The platform's `gpu_memory_gigabytes`.
    pub gpu_memory_gb: u32,
    /// Preset name (`1gpu-16vcpu-200gb`).
    pub preset: &'a str,
    /// `resources.gpu_count`.
    pub gpus: u32,
    /// `resources.vcpu_count`.
    pub vcpus: u32,
    /// `resources.memory_gibibytes`.
    pub memory_gib: u32,
}

/// Why a preset gets no price.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PriceError {
    /// The preset is skipped (SkyPilot logs `Skipping preset ...`).
    Skipped(String),
    /// The whole fetch fails: a cost that is not a decimal number
    /// (`decimal.Decimal` raises `InvalidOperation`, which nothing in
    /// SkyPilot's fetch catches).
    Fatal(String),
}

/// `_get_hourly_total_cost`: the decimal text of the one hourly general
/// total, or SkyPilot's reason why there is none.
pub fn hourly_total_cost(total_costs: &[TotalCost]) -> Result<String, String> {
    if total_costs.is_empty() {
        return Err("Nebius billing estimate did not return total costs.".into());
    }
    let hourly: Vec<&TotalCost> = total_costs.iter().filter(|c| c.unit == "hour").collect();
    if hourly.len() != 1 {
        let units: Vec<String> = total_costs
            .iter()
            .map(|c| crate::pytext::py_str_repr(&c.unit))
            .collect();
        return Err(format!(
            "Nebius billing estimate expected exactly one hourly total cost, got {}. Available units: [{}].",
            hourly.len(),
            units.join(", ")
        ));
    }
    match &hourly[0].cost {
        CostKind::Range => Err(
            "Nebius billing estimate returned a range hourly total cost; expected a general total cost."
                .into(),
        ),
        CostKind::Unset => {
            Err("Nebius billing estimate hourly total cost has no general cost.".into())
        }
        CostKind::General(None) => {
            Err("Nebius billing estimate hourly total cost is missing cost.".into())
        }
        CostKind::General(Some(cost)) if cost.is_empty() => {
            Err("Nebius billing estimate hourly total cost is missing cost.".into())
        }
        CostKind::General(Some(cost)) => Ok(cost.clone()),
    }
}

/// The priced preset from its two estimates (`Err` text: the request
/// failed), with the skips of `_estimate_platforms_async`: a failed or
/// unusable on-demand estimate, or one of zero or less, drops the preset;
/// a failed or unusable spot estimate only drops the spot price.
pub fn price_preset(
    spec: &PresetSpec<'_>,
    on_demand: Result<&[TotalCost], &str>,
    spot: Result<&[TotalCost], &str>,
) -> Result<NebiusPreset, PriceError> {
    let skip = |why: &str| {
        PriceError::Skipped(format!(
            "Skipping preset {}_{} in {}: {why}",
            spec.platform, spec.preset, spec.region
        ))
    };
    let price = hourly_total_cost(on_demand.map_err(skip)?).map_err(|e| skip(&e))?;
    let value = Decimal::parse(&price).ok_or_else(|| {
        PriceError::Fatal(format!(
            "invalid decimal {price:?} in the estimate of {}_{}",
            spec.platform, spec.preset
        ))
    })?;
    if !value.is_positive() {
        return Err(skip(&format!(
            "the on-demand estimate returned {}, so the resource has no price.",
            value.to_plain()
        )));
    }
    let spot_price = match spot.ok().map(hourly_total_cost) {
        Some(Ok(text)) => Some(text),
        _ => None,
    };
    if let Some(text) = &spot_price
        && Decimal::parse(text).is_none()
    {
        return Err(PriceError::Fatal(format!(
            "invalid decimal {text:?} in the spot estimate of {}_{}",
            spec.platform, spec.preset
        )));
    }
    Ok(NebiusPreset {
        region: spec.region.to_string(),
        platform: spec.platform.to_string(),
        preset: spec.preset.to_string(),
        gpus: spec.gpus,
        vcpus: spec.vcpus,
        memory_gib: spec.memory_gib,
        gpu_memory_gb: spec.gpu_memory_gb,
        price,
        spot_price,
    })
}

/// `_fetch_user_catalog`'s refusal to write a mostly-empty catalog: no
/// priced preset, or more than half of them unpriced.
pub fn check_coverage(total: usize, priced: usize) -> Result<(), String> {
    let failed = total.saturating_sub(priced);
    if priced == 0 || failed * 2 > total {
        return Err(format!(
            "Failed to price {failed} out of {total} Nebius presets; refusing to write a mostly-empty personal catalog."
        ));
    }
    Ok(())
}

/// The `vms_<tenant>.csv` SkyPilot writes for `presets`
/// (`write_preset_prices`: CPU presets first, then by region, platform and
/// vCPUs; CSV with `\r\n` line ends, as Python's `csv` module writes).
/// Prices that are not decimal numbers are left out (see [`price_preset`],
/// which never lets one through).
pub fn tenant_catalog_csv(presets: &[NebiusPreset]) -> String {
    let mut sorted: Vec<&NebiusPreset> = presets.iter().collect();
    sorted.sort_by(|a, b| {
        (a.gpus > 0, &a.region, &a.platform, a.vcpus).cmp(&(
            b.gpus > 0,
            &b.region,
            &b.platform,
            b.vcpus,
        ))
    });
    let mut out = String::new();
    out.push_str(TENANT_CATALOG_HEADER);
    out.push_str("\r\n");
    for p in sorted {
        let Some(price) = Decimal::parse(&p.price).map(|d| format_decimal(&d)) else {
            continue;
        };
        let gpu_name = p
            .platform
            .strip_prefix("gpu-")
            .map(|_| {
                p.platform
                    .split('-')
                    .nth(1)
                    .unwrap_or_default()
                    .to_uppercase()
            })
            .unwrap_or_default();
        let gpu_info = if p.gpus > 0 && !gpu_name.is_empty() {
            let vram = u64::from(p.gpu_memory_gb) * 1024;
            format!(
                "{{'Gpus': [{{'Name': '{gpu_name}', 'Manufacturer': '{ACCELERATOR_MANUFACTURER}', 'Count': {}, 'MemoryInfo': {{'SizeInMiB': {vram}}}}}], 'TotalGpuMemoryInMiB': {}}}",
                p.gpus,
                vram * u64::from(p.gpus)
            )
        } else {
            String::new()
        };
        // `if preset.spot_price`: a zero Decimal is falsy, so it is written empty.
        let spot = p
            .spot_price
            .as_deref()
            .and_then(Decimal::parse)
            .filter(|d| !d.is_zero())
            .map(|d| format_decimal(&d))
            .unwrap_or_default();
        let fields = [
            format!("{}_{}", p.platform, p.preset),
            gpu_name,
            p.gpus.to_string(),
            p.vcpus.to_string(),
            p.memory_gib.to_string(),
            price,
            p.region.clone(),
            gpu_info,
            spot,
        ];
        let cells: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        let _ = write!(out, "{}\r\n", cells.join(","));
    }
    out
}

/// Python's `csv` QUOTE_MINIMAL: quote a field holding the delimiter, the
/// quote character or a line break, doubling inner quotes.
fn csv_field(field: &str) -> String {
    if field.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

/// `fetch_nebius._format_decimal`: Python's `f'{Decimal:f}'`, with at least
/// two decimals.
fn format_decimal(d: &Decimal) -> String {
    let plain = d.to_plain();
    match plain.split_once('.') {
        Some((int, frac)) if frac.len() >= 2 => format!("{int}.{frac}"),
        Some((int, frac)) => format!("{int}.{frac:0<2}"),
        None => format!("{plain}.00"),
    }
}

/// A decimal number as Python's `decimal.Decimal` holds it: sign,
/// coefficient digits and exponent (no rounding ever happens here).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    digits: String,
    exponent: i64,
}

impl Decimal {
    /// `Decimal(text)` for finite numbers (`None` for anything else).
    fn parse(text: &str) -> Option<Decimal> {
        let t = text.trim().replace('_', "");
        let (negative, rest) = match t.as_bytes().first()? {
            b'-' => (true, &t[1..]),
            b'+' => (false, &t[1..]),
            _ => (false, t.as_str()),
        };
        let (mantissa, exp) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], rest[i + 1..].parse::<i64>().ok()?),
            None => (rest, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
            return None;
        }
        let mut digits = format!("{int}{frac}");
        let leading = digits.len() - digits.trim_start_matches('0').len();
        digits.drain(..leading.min(digits.len().saturating_sub(1)));
        Some(Decimal {
            negative,
            digits,
            exponent: exp.checked_sub(i64::try_from(frac.len()).ok()?)?,
        })
    }

    fn is_zero(&self) -> bool {
        self.digits.bytes().all(|b| b == b'0')
    }

    fn is_positive(&self) -> bool {
        !self.negative && !self.is_zero()
    }

    /// `format(self, 'f')`: fixed point, every stored digit, no exponent.
    fn to_plain(&self) -> String {
        let sign = if self.negative { "-" } else { "" };
        let len = i64::try_from(self.digits.len()).unwrap_or(i64::MAX);
        if self.exponent >= 0 {
            let zeros = "0".repeat(usize::try_from(self.exponent).unwrap_or(0));
            return format!("{sign}{}{zeros}", self.digits);
        }
        let point = len + self.exponent;
        if point > 0 {
            let (int, frac) = self.digits.split_at(usize::try_from(point).unwrap_or(0));
            format!("{sign}{int}.{frac}")
        } else {
            let zeros = "0".repeat(usize::try_from(-point).unwrap_or(0));
            format!("{sign}0.{zeros}{}", self.digits)
        }
    }
}

impl CloudCatalog {
    /// `pd.concat([self, other]).drop_duplicates(subset=['InstanceType',
    /// 'Region'], keep='last')`: every row of both, in that order, except
    /// those followed by a row of the same instance type and region.
    pub fn overlay(&mut self, other: CloudCatalog) {
        self.note_partial_locations(&other.rows);
        let mut rows = std::mem::take(&mut self.rows);
        rows.extend(other.rows);
        let mut seen: rustc_hash::FxHashSet<(Option<Text>, Text)> =
            rustc_hash::FxHashSet::default();
        let mut kept: Vec<bool> = vec![false; rows.len()];
        for (i, row) in rows.iter().enumerate().rev() {
            kept[i] = seen.insert((row.instance_type.clone(), row.region.clone()));
        }
        let mut keep = kept.into_iter();
        rows.retain(|_| keep.next().unwrap_or(false));
        self.rows = rows;
        self.has_zones = self.has_zones || other.has_zones;
        self.rows_changed();
    }
}

/// The catalog Nebius plans with: the static list prices overlaid with the
/// tenant's own, when `facts` has them. `Err` names the generated tenant
/// catalog (it is parsed as SkyPilot reads its `vms_<tenant>.csv`).
pub fn apply_tenant_prices(
    catalog: &mut CloudCatalog,
    facts: &NebiusFacts,
) -> Result<(), CatalogError> {
    let (Some(tenant), Some(presets)) = (&facts.tenant_id, &facts.presets) else {
        return Ok(());
    };
    let csv = tenant_catalog_csv(presets);
    let source = format!("nebius/vms_{tenant}.csv");
    let (tenant_catalog, _warnings) =
        CloudCatalog::from_bytes(CloudId::Nebius, csv.as_bytes(), &source)?;
    catalog.overlay(tenant_catalog);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn general(unit: &str, cost: &str) -> TotalCost {
        TotalCost {
            unit: unit.into(),
            cost: CostKind::General(Some(cost.into())),
        }
    }

    #[test]
    fn decimals_print_as_skypilot_formats_them() {
        let cases = [
            ("2.95", "2.95"),
            ("2.5", "2.50"),
            ("23.600000", "23.600000"),
            ("10", "10.00"),
            ("1E+1", "10.00"),
            ("1.5e-3", "0.0015"),
            ("0.000", "0.000"),
            ("007.1", "7.10"),
            (".5", "0.50"),
        ];
        for (input, want) in cases {
            let d = Decimal::parse(input).unwrap_or_else(|| panic!("{input}"));
            assert_eq!(format_decimal(&d), want, "{input}");
        }
        for bad in ["", "abc", "1.2.3", "NaN", "1e", "--1"] {
            assert!(Decimal::parse(bad).is_none(), "{bad}");
        }
        assert!(!Decimal::parse("-0.00").unwrap().is_positive());
        assert!(Decimal::parse("0.0001").unwrap().is_positive());
    }

    #[test]
    fn only_one_general_hourly_total_is_a_price() {
        assert_eq!(
            hourly_total_cost(&[general("month", "700"), general("hour", "0.95")]),
            Ok("0.95".into())
        );
        assert_eq!(
            hourly_total_cost(&[]),
            Err("Nebius billing estimate did not return total costs.".into())
        );
        assert_eq!(
            hourly_total_cost(&[general("month", "700")]),
            Err("Nebius billing estimate expected exactly one hourly total cost, got 0. Available units: ['month'].".into())
        );
        let range = TotalCost {
            unit: "hour".into(),
            cost: CostKind::Range,
        };
        assert!(hourly_total_cost(&[range]).unwrap_err().contains("range"));
        let missing = TotalCost {
            unit: "hour".into(),
            cost: CostKind::General(Some(String::new())),
        };
        assert!(
            hourly_total_cost(&[missing])
                .unwrap_err()
                .contains("missing cost")
        );
    }

    fn spec() -> PresetSpec<'static> {
        PresetSpec {
            region: "eu-north1",
            platform: "gpu-h100-sxm",
            gpu_memory_gb: 80,
            preset: "1gpu-16vcpu-200gb",
            gpus: 1,
            vcpus: 16,
            memory_gib: 200,
        }
    }

    #[test]
    fn presets_are_skipped_or_lose_their_spot_price_as_in_skypilot() {
        let od = [general("hour", "2.10")];
        let sp = [general("hour", "0.90")];
        let p = price_preset(&spec(), Ok(&od), Ok(&sp)).unwrap();
        assert_eq!(
            (p.price.as_str(), p.spot_price.as_deref()),
            ("2.10", Some("0.90"))
        );
        let p = price_preset(&spec(), Ok(&od), Err("INVALID_ARGUMENT: unresolved sku")).unwrap();
        assert_eq!(p.spot_price, None);
        let zero = [general("hour", "0")];
        assert!(matches!(
            price_preset(&spec(), Ok(&zero), Ok(&sp)),
            Err(PriceError::Skipped(m)) if m == "Skipping preset gpu-h100-sxm_1gpu-16vcpu-200gb in eu-north1: the on-demand estimate returned 0, so the resource has no price."
        ));
        assert!(matches!(
            price_preset(&spec(), Err("UNAVAILABLE"), Ok(&sp)),
            Err(PriceError::Skipped(_))
        ));
        let junk = [general("hour", "a lot")];
        assert!(matches!(
            price_preset(&spec(), Ok(&junk), Ok(&sp)),
            Err(PriceError::Fatal(_))
        ));
    }

    #[test]
    fn a_mostly_unpriced_catalog_is_refused() {
        assert!(check_coverage(4, 2).is_ok());
        assert_eq!(
            check_coverage(5, 2),
            Err("Failed to price 3 out of 5 Nebius presets; refusing to write a mostly-empty personal catalog.".into())
        );
        assert!(check_coverage(0, 0).is_err());
    }

    fn preset(region: &str, platform: &str, name: &str, gpus: u32, vcpus: u32) -> NebiusPreset {
        NebiusPreset {
            region: region.into(),
            platform: platform.into(),
            preset: name.into(),
            gpus,
            vcpus,
            memory_gib: vcpus * 4,
            gpu_memory_gb: if gpus > 0 { 80 } else { 0 },
            price: "1.5".into(),
            spot_price: (gpus > 0).then(|| "0.5".into()),
        }
    }

    #[test]
    fn the_tenant_csv_is_what_write_preset_prices_writes() {
        let csv = tenant_catalog_csv(&[
            preset("eu-north1", "gpu-h100-sxm", "8gpu-128vcpu-1600gb", 8, 128),
            preset("eu-north1", "cpu-d3", "8vcpu-32gb", 0, 8),
            preset("eu-north1", "cpu-d3", "4vcpu-16gb", 0, 4),
            preset("eu-west1", "cpu-d3", "2vcpu-8gb", 0, 2),
        ]);
        assert_eq!(
            csv,
            "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\r\n\
             cpu-d3_4vcpu-16gb,,0,4,16,1.50,eu-north1,,\r\n\
             cpu-d3_8vcpu-32gb,,0,8,32,1.50,eu-north1,,\r\n\
             cpu-d3_2vcpu-8gb,,0,2,8,1.50,eu-west1,,\r\n\
             gpu-h100-sxm_8gpu-128vcpu-1600gb,H100,8,128,512,1.50,eu-north1,\"{'Gpus': [{'Name': 'H100', 'Manufacturer': 'NVIDIA', 'Count': 8, 'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 655360}\",0.50\r\n"
        );
    }

    #[test]
    fn tenant_rows_replace_list_rows_and_come_last() {
        let static_csv = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\r\n\
            cpu-d3_4vcpu-16gb,,0,4,16,0.0992,eu-north1,,\r\n\
            cpu-d3_4vcpu-16gb,,0,4,16,0.0992,eu-west1,,\r\n\
            cpu-e2_2vcpu-8gb,,0,2,8,0.0496,eu-north1,,\r\n";
        let (mut cat, _) =
            CloudCatalog::from_bytes(CloudId::Nebius, static_csv.as_bytes(), "static").unwrap();
        assert_eq!(cat.instance_rows("cpu-d3_4vcpu-16gb").count(), 2);
        let facts = NebiusFacts {
            tenant_id: Some("tenant-e00abc".into()),
            presets: Some(vec![NebiusPreset {
                price: "0.05".into(),
                ..preset("eu-north1", "cpu-d3", "4vcpu-16gb", 0, 4)
            }]),
            fallback: None,
        };
        apply_tenant_prices(&mut cat, &facts).unwrap();
        let rows: Vec<(String, String, Option<f64>)> = cat
            .rows
            .iter()
            .map(|r| {
                (
                    r.instance_type.as_deref().unwrap_or_default().to_string(),
                    r.region.to_string(),
                    r.price(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("cpu-d3_4vcpu-16gb".into(), "eu-west1".into(), Some(0.0992)),
                ("cpu-e2_2vcpu-8gb".into(), "eu-north1".into(), Some(0.0496)),
                ("cpu-d3_4vcpu-16gb".into(), "eu-north1".into(), Some(0.05)),
            ]
        );
        assert_eq!(
            cat.hourly_cost("cpu-d3_4vcpu-16gb", false, Some("eu-north1"), None),
            Ok(0.05)
        );
        // Without a tenant (or without prices) nothing changes.
        let before = cat.rows.len();
        apply_tenant_prices(
            &mut cat,
            &NebiusFacts {
                tenant_id: None,
                presets: Some(Vec::new()),
                fallback: None,
            },
        )
        .unwrap();
        assert_eq!(cat.rows.len(), before);
    }
}
