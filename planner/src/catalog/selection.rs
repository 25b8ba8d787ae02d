//! Which rows of a catalog a launch reads: a request for `--gpus H100:8`
//! has no business decoding the 27k CPU rows of AWS's catalog, nor a CPU
//! request the GPU rows.
//!
//! A [`RowSelection`] is derived from the request before the catalogs load
//! (by the feasibility code that reads the rows:
//! [`feasibility::catalog_needs`](crate::feasibility::catalog_needs)) and applied by
//! the image loader
//! ([`CloudCatalog::from_image_selected`](super::CloudCatalog::from_image_selected)),
//! which decodes only the row runs it selects. The selection must be a
//! superset of every row the planner reads for that request, so it is only
//! narrowed where the planner's reads are known; everything else reads the
//! whole catalog.

use crate::catalog::query::NamePattern;
use crate::cloud::{CloudId, InstanceFamily};

/// The rows of one cloud's catalog a launch decodes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum RowSelection {
    /// Every row.
    #[default]
    All,
    /// Some rows: those whose accelerator name contains one of
    /// `accelerators` as `str.contains(name, case=False)` reads it (the
    /// widest match any accelerator query of `sky/catalog/common.py` makes:
    /// the exact, canonicalised and fuzzy lookups all match a subset of
    /// these), those of an instance type in one of `families`, and every
    /// other row of an instance type with a selected row (a query that
    /// finds a type goes on to read all its rows: regions, prices). Both
    /// empty: no rows (a cloud the request pins away from).
    Rows {
        /// Accelerator names as the request wrote them.
        accelerators: Vec<String>,
        /// Instance families the planner picks hosts or defaults from.
        families: Vec<InstanceFamily>,
    },
}

impl RowSelection {
    /// No rows at all: the catalog's regions and zones only.
    pub fn nothing() -> RowSelection {
        RowSelection::Rows {
            accelerators: Vec::new(),
            families: Vec::new(),
        }
    }

    /// The rows of accelerators named like `name`.
    pub fn accelerator(name: &str) -> RowSelection {
        RowSelection::Rows {
            accelerators: vec![name.to_string()],
            families: Vec::new(),
        }
    }

    /// The rows of the instance types in `family` (everything for
    /// [`InstanceFamily::Any`]).
    pub fn family(family: InstanceFamily) -> RowSelection {
        match family {
            InstanceFamily::Any => RowSelection::All,
            family => RowSelection::Rows {
                accelerators: Vec::new(),
                families: vec![family],
            },
        }
    }

    /// Whether this selects every row.
    pub fn is_all(&self) -> bool {
        matches!(self, RowSelection::All)
    }

    /// A matcher for the row runs' accelerator names and instance types.
    pub fn matcher(&self) -> RowMatcher {
        match self {
            RowSelection::All => RowMatcher { rows: None },
            RowSelection::Rows {
                accelerators,
                families,
            } => RowMatcher {
                rows: Some((
                    accelerators.iter().map(|n| NamePattern::new(n)).collect(),
                    families.clone(),
                )),
            },
        }
    }

    /// The union of both selections.
    pub fn widen(&mut self, other: RowSelection) {
        match (&mut *self, other) {
            (RowSelection::All, _) => {}
            (_, RowSelection::All) => *self = RowSelection::All,
            (
                RowSelection::Rows {
                    accelerators,
                    families,
                },
                RowSelection::Rows {
                    accelerators: more_accelerators,
                    families: more_families,
                },
            ) => {
                for n in more_accelerators {
                    if !accelerators.contains(&n) {
                        accelerators.push(n);
                    }
                }
                for f in more_families {
                    if !families.contains(&f) {
                        families.push(f);
                    }
                }
            }
        }
    }
}

/// [`RowSelection`] compiled for matching (patterns built once per catalog).
pub struct RowMatcher {
    rows: Option<(Vec<NamePattern>, Vec<InstanceFamily>)>,
}

impl RowMatcher {
    /// Whether rows with this accelerator name (`None`: no accelerator) are
    /// selected for their accelerator.
    pub fn wants_accelerator(&self, accelerator: Option<&str>) -> bool {
        match (&self.rows, accelerator) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some((patterns, _)), Some(name)) => patterns.iter().any(|p| p.contains(name)),
        }
    }

    /// Whether rows of this instance type (`None`: rows without one) are
    /// selected for their type's family.
    pub fn wants_instance_type(&self, instance_type: Option<&str>) -> bool {
        match (&self.rows, instance_type) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some((_, families)), Some(it)) => families.iter().any(|f| f.contains(it)),
        }
    }

    /// Whether every row is selected.
    pub fn is_all(&self) -> bool {
        self.rows.is_none()
    }

    /// Whether some instance type can be selected for its family (else
    /// [`RowMatcher::wants_instance_type`] is false for every type, and an
    /// image load need not read them).
    pub fn selects_families(&self) -> bool {
        self.rows
            .as_ref()
            .is_none_or(|(_, families)| !families.is_empty())
    }
}

/// The [`RowSelection`] of every cloud a launch may load.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CatalogNeeds {
    /// Clouds with a narrower selection than [`RowSelection::All`].
    narrowed: Vec<(CloudId, RowSelection)>,
}

impl CatalogNeeds {
    /// Every row of every catalog (what `sky gpus list`, `sky check` and a
    /// request that could not be read ahead of time need).
    pub fn all() -> CatalogNeeds {
        CatalogNeeds::default()
    }

    /// Records that `cloud` reads only `selection` (nothing is recorded
    /// for [`RowSelection::All`], the default).
    pub fn narrow(&mut self, cloud: CloudId, selection: RowSelection) {
        if !selection.is_all() {
            self.narrowed.push((cloud, selection));
        }
    }

    /// The selection for `cloud`.
    pub fn for_cloud(&self, cloud: CloudId) -> RowSelection {
        self.narrowed
            .iter()
            .find(|(c, _)| *c == cloud)
            .map_or(RowSelection::All, |(_, s)| s.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_matcher_reads_names_as_case_insensitive_substrings() {
        let m = RowSelection::accelerator("a100").matcher();
        assert!(m.wants_accelerator(Some("A100")));
        assert!(m.wants_accelerator(Some("A100-80GB")));
        assert!(!m.wants_accelerator(Some("H100")));
        assert!(!m.wants_accelerator(None));
        assert!(!m.wants_instance_type(Some("p4d.24xlarge")));
        assert!(RowSelection::All.matcher().wants_accelerator(None));
        assert!(RowSelection::All.matcher().wants_instance_type(None));
        assert!(
            !RowSelection::nothing()
                .matcher()
                .wants_accelerator(Some("H100"))
        );
    }
}
