//! Which rows of a catalog a launch reads: a request for `--gpus H100:8`
//! has no business decoding the 27k CPU rows of AWS's catalog, nor a CPU
//! request the GPU rows.
//!
//! A [`RowSelection`] is derived from the request before the catalogs load
//! ([`CatalogNeeds::of_dag`], from what each cloud's feasibility reads:
//! [`feasibility::rows_read`](crate::feasibility::rows_read)) and applied by
//! the image loader
//! ([`CloudCatalog::from_image_selected`](super::CloudCatalog::from_image_selected)),
//! which decodes only the row runs it selects. The selection must be a
//! superset of every row the planner reads for that request, so it is only
//! narrowed where the planner's reads are known; everything else reads the
//! whole catalog.

use crate::catalog::query::NamePattern;
use crate::cloud::{CloudId, InstanceFamily};
use crate::task::Dag;

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
            let mut selection = RowSelection::nothing();
            for r in dag.tasks.iter().flat_map(|t| t.resources.all()) {
                selection.widen(crate::feasibility::rows_read(cloud, r));
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
    fn accelerator_requests_read_their_accelerator_and_its_hosts() {
        let clouds = [CloudId::Aws, CloudId::Gcp, CloudId::Lambda, CloudId::Vast];
        let needs = CatalogNeeds::of_dag(&dag(vec![gpu("H100", None)]), &clouds);
        let h100 = RowSelection::accelerator("H100");
        assert_eq!(needs.for_cloud(CloudId::Aws), h100);
        assert_eq!(needs.for_cloud(CloudId::Lambda), h100);
        // GCP attaches GPUs to host VMs: H100's fixed machine types (the
        // `a3-*` types) and the N1 hosts are read too.
        let RowSelection::Rows {
            accelerators,
            families,
        } = needs.for_cloud(CloudId::Gcp)
        else {
            panic!("GCP's H100 rows are a selection");
        };
        assert_eq!(accelerators, ["H100"]);
        let host = |t: &str| families.iter().any(|f| f.contains(t));
        assert!(host("a3-highgpu-8g") && host("a3-megagpu-8g") && host("n1-highmem-8"));
        assert!(!host("a2-highgpu-1g") && !host("n2-standard-8"));
        // A cloud with its own feasibility rules, or not asked about: everything.
        assert_eq!(needs.for_cloud(CloudId::Vast), RowSelection::All);
        assert_eq!(needs.for_cloud(CloudId::Azure), RowSelection::All);
    }

    #[test]
    fn requests_without_an_accelerator_read_the_default_family_and_a_type_reads_everything() {
        let clouds = [CloudId::Aws, CloudId::Gcp, CloudId::Lambda];
        let cpu = Resources::default();
        let needs = CatalogNeeds::of_dag(&dag(vec![gpu("H100", None), cpu.clone()]), &clouds);
        let RowSelection::Rows {
            accelerators,
            families,
        } = needs.for_cloud(CloudId::Aws)
        else {
            panic!("AWS rows are a selection");
        };
        assert_eq!(accelerators, ["H100"]);
        assert!(families.iter().any(|f| f.contains("m6i.large")));
        assert!(!families.iter().any(|f| f.contains("p5.48xlarge")));
        let gcp = CatalogNeeds::of_dag(&dag(vec![cpu]), &clouds).for_cloud(CloudId::Gcp);
        assert!(gcp.matcher().wants_instance_type(Some("n2-standard-8")));
        assert!(!gcp.matcher().wants_instance_type(Some("n1-standard-8")));
        // Lambda's default is any type: its whole catalog.
        assert_eq!(needs.for_cloud(CloudId::Lambda), RowSelection::All);
        let typed = Resources {
            instance_type: Some("p5.48xlarge".into()),
            ..gpu("H100", None)
        };
        let needs = CatalogNeeds::of_dag(&dag(vec![gpu("H100", None), typed]), &clouds);
        assert_eq!(needs.for_cloud(CloudId::Aws), RowSelection::All);
    }

    #[test]
    fn pinned_clouds_leave_the_others_their_locations_only() {
        let clouds = [CloudId::Aws, CloudId::Lambda];
        let d = dag(vec![gpu("A100", Some(CloudId::Lambda)), gpu("H100", None)]);
        let needs = CatalogNeeds::of_dag(&d, &clouds);
        assert_eq!(
            needs.for_cloud(CloudId::Lambda),
            RowSelection::Rows {
                accelerators: vec!["A100".into(), "H100".into()],
                families: vec![],
            }
        );
        assert_eq!(
            needs.for_cloud(CloudId::Aws),
            RowSelection::accelerator("H100")
        );
        let pinned = CatalogNeeds::of_dag(&dag(vec![gpu("A100", Some(CloudId::Lambda))]), &clouds);
        assert_eq!(pinned.for_cloud(CloudId::Aws), RowSelection::nothing());
    }

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
