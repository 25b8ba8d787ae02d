//! Which rows of a catalog a launch reads: a request for `--gpus H100:8`
//! has no business decoding the 27k CPU rows of AWS's catalog.
//!
//! A [`RowSelection`] is derived from the request before the catalogs load
//! ([`CatalogNeeds::of_dag`]) and applied by the image loader
//! ([`CloudCatalog::from_image_selected`](super::CloudCatalog::from_image_selected)),
//! which decodes only the row runs of the selected accelerators. The
//! selection must be a superset of every row the planner reads for that
//! request, so it is only narrowed where the planner's reads are known:
//! a cloud planned by the generic catalog path
//! ([`feasibility::reads_only_matching_accelerator_rows`](crate::feasibility::reads_only_matching_accelerator_rows)),
//! for resources that name an accelerator and no instance type. Everything
//! else reads the whole catalog.

use crate::catalog::query::NamePattern;
use crate::cloud::CloudId;
use crate::task::Dag;

/// The rows of one cloud's catalog a launch decodes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum RowSelection {
    /// Every row.
    #[default]
    All,
    /// The rows whose accelerator name contains one of `names` as
    /// `str.contains(name, case=False)` reads it (the widest match any
    /// accelerator query of `sky/catalog/common.py` makes: the exact,
    /// canonicalised and fuzzy lookups all match a subset of these). No
    /// names: no rows (a cloud the request pins away from).
    Accelerators {
        /// Accelerator names as the request wrote them.
        names: Vec<String>,
    },
}

impl RowSelection {
    /// No rows at all: the catalog's regions and zones only.
    pub fn nothing() -> RowSelection {
        RowSelection::Accelerators { names: Vec::new() }
    }

    /// Whether this selects every row.
    pub fn is_all(&self) -> bool {
        matches!(self, RowSelection::All)
    }

    /// A matcher for the accelerator names of row runs.
    pub fn matcher(&self) -> RowMatcher {
        match self {
            RowSelection::All => RowMatcher { patterns: None },
            RowSelection::Accelerators { names } => RowMatcher {
                patterns: Some(names.iter().map(|n| NamePattern::new(n)).collect()),
            },
        }
    }

    fn widen(&mut self, other: RowSelection) {
        match (&mut *self, other) {
            (RowSelection::All, _) => {}
            (_, RowSelection::All) => *self = RowSelection::All,
            (RowSelection::Accelerators { names }, RowSelection::Accelerators { names: more }) => {
                for n in more {
                    if !names.contains(&n) {
                        names.push(n);
                    }
                }
            }
        }
    }
}

/// [`RowSelection`] compiled for matching (patterns built once per catalog).
pub struct RowMatcher {
    patterns: Option<Vec<NamePattern>>,
}

impl RowMatcher {
    /// Whether rows with this accelerator name (`None`: no accelerator) are read.
    pub fn wants(&self, accelerator: Option<&str>) -> bool {
        match (&self.patterns, accelerator) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(patterns), Some(name)) => patterns.iter().any(|p| p.contains(name)),
        }
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

    /// What the planner can read while it plans `dag`, per cloud in `clouds`.
    pub fn of_dag(dag: &Dag, clouds: &[CloudId]) -> CatalogNeeds {
        let mut narrowed = Vec::new();
        for &cloud in clouds {
            if !crate::feasibility::reads_only_matching_accelerator_rows(cloud) {
                continue;
            }
            let mut selection = RowSelection::nothing();
            for r in dag.tasks.iter().flat_map(|t| t.resources.all()) {
                selection.widen(match r.cloud {
                    Some(c) if c != cloud => RowSelection::nothing(),
                    _ => match (&r.accelerator, &r.instance_type) {
                        (Some(acc), None) => RowSelection::Accelerators {
                            names: vec![acc.name.clone()],
                        },
                        _ => RowSelection::All,
                    },
                });
                if selection.is_all() {
                    break;
                }
            }
            if !selection.is_all() {
                narrowed.push((cloud, selection));
            }
        }
        CatalogNeeds { narrowed }
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
    use crate::resources::{AccCount, Accelerator, Resources};
    use crate::task::{ResourceSet, Task};

    fn dag(resources: Vec<Resources>) -> Dag {
        Dag {
            tasks: vec![Task {
                resources: ResourceSet::AnyOf(resources),
                ..Task::default()
            }],
        }
    }

    fn gpu(name: &str, cloud: Option<CloudId>) -> Resources {
        Resources {
            accelerator: Some(Accelerator {
                name: name.into(),
                count: AccCount(8.0),
            }),
            cloud,
            ..Resources::default()
        }
    }

    #[test]
    fn accelerator_requests_narrow_generic_clouds_only() {
        let clouds = [CloudId::Aws, CloudId::Gcp, CloudId::Lambda];
        let needs = CatalogNeeds::of_dag(&dag(vec![gpu("H100", None)]), &clouds);
        let h100 = RowSelection::Accelerators {
            names: vec!["H100".into()],
        };
        assert_eq!(needs.for_cloud(CloudId::Aws), h100);
        assert_eq!(needs.for_cloud(CloudId::Lambda), h100);
        // GCP plans accelerators on host VMs: its whole catalog.
        assert_eq!(needs.for_cloud(CloudId::Gcp), RowSelection::All);
        // A cloud not asked about defaults to everything.
        assert_eq!(needs.for_cloud(CloudId::Azure), RowSelection::All);
    }

    #[test]
    fn any_resource_without_an_accelerator_or_with_a_type_reads_everything() {
        let clouds = [CloudId::Aws];
        let cpu = Resources::default();
        let typed = Resources {
            instance_type: Some("p5.48xlarge".into()),
            ..gpu("H100", None)
        };
        for other in [cpu, typed] {
            let needs = CatalogNeeds::of_dag(&dag(vec![gpu("H100", None), other]), &clouds);
            assert_eq!(needs.for_cloud(CloudId::Aws), RowSelection::All);
        }
    }

    #[test]
    fn pinned_clouds_leave_the_others_their_locations_only() {
        let clouds = [CloudId::Aws, CloudId::Lambda];
        let d = dag(vec![gpu("A100", Some(CloudId::Lambda)), gpu("H100", None)]);
        let needs = CatalogNeeds::of_dag(&d, &clouds);
        assert_eq!(
            needs.for_cloud(CloudId::Lambda),
            RowSelection::Accelerators {
                names: vec!["A100".into(), "H100".into()]
            }
        );
        assert_eq!(
            needs.for_cloud(CloudId::Aws),
            RowSelection::Accelerators {
                names: vec!["H100".into()]
            }
        );
        let pinned = CatalogNeeds::of_dag(&dag(vec![gpu("A100", Some(CloudId::Lambda))]), &clouds);
        assert_eq!(pinned.for_cloud(CloudId::Aws), RowSelection::nothing());
    }

    #[test]
    fn the_matcher_reads_names_as_case_insensitive_substrings() {
        let m = RowSelection::Accelerators {
            names: vec!["a100".into()],
        }
        .matcher();
        assert!(m.wants(Some("A100")));
        assert!(m.wants(Some("A100-80GB")));
        assert!(!m.wants(Some("H100")));
        assert!(!m.wants(None));
        assert!(RowSelection::All.matcher().wants(None));
        assert!(!RowSelection::nothing().matcher().wants(Some("H100")));
    }
}
