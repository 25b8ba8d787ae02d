//! One `sky gpus list` invocation's arguments ([`Query`]), SkyPilot's
//! checks of them, and the catalogs they list.

use super::SortBy;
use crate::cloud::CloudId;

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

    /// Whether every catalog question of this query is unfiltered
    /// ([`Filter::is_unfiltered`](super::Filter::is_unfiltered)): no GPU
    /// name, no region, not `--all-regions` — `sky gpus list [--all]
    /// [--infra CLOUD] [--sort-by …] [-o json]`. Such a query can read the
    /// catalogs' stored [`CloudSummary`](super::CloudSummary)s instead of
    /// their rows.
    pub fn reads_summaries(&self) -> bool {
        self.accelerator.is_none() && self.region.is_none() && !self.all_regions
    }

    /// The catalogs the query lists, in SkyPilot's order: the `--infra`
    /// cloud, or every catalog cloud.
    pub fn catalog_clouds(&self) -> Vec<CloudId> {
        match self.cloud {
            Some(c) if c.spec().listing_label.is_some() => vec![c],
            Some(_) => Vec::new(),
            None => CloudId::SKYPILOT_ALL_CLOUDS
                .into_iter()
                .filter(|c| c.spec().listing_label.is_some())
                .collect(),
        }
    }
}
