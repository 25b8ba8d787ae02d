//! Which catalog rows each cloud's feasibility reads for a request, and so
//! which rows a launch decodes ([`CatalogNeeds`]): kept beside the code
//! that reads them, so a new read cannot go unselected (ARCHITECTURE.md,
//! "A launch decodes only the rows it can match").

use crate::catalog::AcceleratorTable;
use crate::catalog::selection::{CatalogNeeds, RowSelection};
use crate::cloud::CloudId;
use crate::resources::Resources;
use crate::task::Dag;

use super::gcp;

/// The rows of `cloud`'s catalog the planner may read while it plans `r`
/// (a superset; see [`RowSelection`]), for each way a cloud plans:
///
/// - an instance type: every row (validation looks the type up on every
///   enabled cloud, and `--explain` lists the closest type names);
/// - GCP: `gcp::rows_read`;
/// - an accelerator, on every other catalog cloud: its rows. The generic
///   path (`catalog.rs`, and SCP, IBM, vSphere, Vast, OCI and Nebius on
///   it) asks `instances_for_accelerator` — rows whose name fully matches,
///   or the fuzzy list of names containing it —, then prices and places
///   the types found; Seeweb and Shadeform ask the same query. Whatever
///   name validation canonicalises the request to contains it, and Vast's
///   `datacenter_only`, OCI's subscribed regions and Nebius' tenant prices
///   filter or overlay rows one by one (regions and zones stay the
///   file's, see `CloudCatalog::locations`);
/// - no accelerator: the default family's rows where the default comes
///   from one (`CatalogRules::default_family`); every row where it does
///   not (a family of any type, Seeweb's and Shadeform's cheapest type of
///   the whole catalog) or the cloud has no catalog rules.
pub fn rows_read(cloud: CloudId, r: &Resources) -> RowSelection {
    rows_read_given(cloud, r, None)
}

/// [`rows_read`], with the `common/accelerators.csv` table validation
/// canonicalises accelerator names by (narrower for GCP: see
/// `gcp::rows_read`).
pub fn rows_read_given(
    cloud: CloudId,
    r: &Resources,
    accelerators: Option<&AcceleratorTable>,
) -> RowSelection {
    if r.cloud.is_some_and(|c| c != cloud) {
        return RowSelection::nothing();
    }
    if r.instance_type.is_some() {
        return RowSelection::All;
    }
    if cloud == CloudId::Gcp {
        return gcp::rows_read(r, accelerators);
    }
    match (&cloud.spec().catalog_rules, &r.accelerator) {
        (_, Some(acc)) => RowSelection::accelerator(&acc.name),
        (Some(rules), None) => RowSelection::family(rules.default_family),
        (None, None) => RowSelection::All,
    }
}

/// What the planner can read while it plans `dag`, per cloud in `clouds`:
/// the union of [`rows_read`] over every resource of every task.
pub fn catalog_needs(dag: &Dag, clouds: &[CloudId]) -> CatalogNeeds {
    catalog_needs_given(dag, clouds, None)
}

/// [`catalog_needs`], with the `common/accelerators.csv` table (see
/// [`rows_read_given`]).
pub fn catalog_needs_given(
    dag: &Dag,
    clouds: &[CloudId],
    accelerators: Option<&AcceleratorTable>,
) -> CatalogNeeds {
    let mut needs = CatalogNeeds::all();
    for &cloud in clouds {
        let mut selection = RowSelection::nothing();
        for r in dag.tasks.iter().flat_map(|t| t.resources.all()) {
            selection.widen(rows_read_given(cloud, r, accelerators));
            if selection.is_all() {
                break;
            }
        }
        needs.narrow(cloud, selection);
    }
    needs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::{AccCount, Accelerator};
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
        let needs = catalog_needs(&dag(vec![gpu("H100", None)]), &clouds);
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
        // A cloud with its own feasibility rules asks the same query; a
        // cloud not asked about reads everything.
        assert_eq!(needs.for_cloud(CloudId::Vast), h100);
        assert_eq!(needs.for_cloud(CloudId::Azure), RowSelection::All);
    }

    #[test]
    fn gcp_leaves_out_the_n1_hosts_of_a_gpu_that_comes_only_on_fixed_machine_types() {
        let csv =
            "AcceleratorName,Clouds\nH100,['GCP']\nH100-NVL,['GCP']\nT4,['GCP']\nL4,['GCP']\n";
        let table = AcceleratorTable::from_reader(csv.as_bytes(), "accelerators.csv").unwrap();
        let n1 = |r: &Resources, table: Option<&AcceleratorTable>| {
            rows_read_given(CloudId::Gcp, r, table)
                .matcher()
                .wants_instance_type(Some("n1-highmem-8"))
        };
        // `h100` is canonicalised to the table's `H100`: a3 machines only.
        assert!(!n1(&gpu("h100", None), Some(&table)));
        // Without the table, or a name the table does not hold exactly
        // (`H10` may become any name containing it), or a GPU on N1 hosts.
        assert!(n1(&gpu("H100", None), None));
        assert!(n1(&gpu("H10", None), Some(&table)));
        assert!(n1(&gpu("T4", None), Some(&table)));
        assert!(n1(&gpu("tpu-v2-8", None), Some(&table)));
    }

    #[test]
    fn requests_without_an_accelerator_read_the_default_family_and_a_type_reads_everything() {
        let clouds = [CloudId::Aws, CloudId::Gcp, CloudId::Lambda];
        let cpu = Resources::default();
        let needs = catalog_needs(&dag(vec![gpu("H100", None), cpu.clone()]), &clouds);
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
        let gcp = catalog_needs(&dag(vec![cpu]), &clouds).for_cloud(CloudId::Gcp);
        assert!(gcp.matcher().wants_instance_type(Some("n2-standard-8")));
        assert!(!gcp.matcher().wants_instance_type(Some("n1-standard-8")));
        // Lambda's default is any type: its whole catalog.
        assert_eq!(needs.for_cloud(CloudId::Lambda), RowSelection::All);
        let typed = Resources {
            instance_type: Some("p5.48xlarge".into()),
            ..gpu("H100", None)
        };
        let needs = catalog_needs(&dag(vec![gpu("H100", None), typed]), &clouds);
        assert_eq!(needs.for_cloud(CloudId::Aws), RowSelection::All);
    }

    #[test]
    fn pinned_clouds_leave_the_others_their_locations_only() {
        let clouds = [CloudId::Aws, CloudId::Lambda];
        let d = dag(vec![gpu("A100", Some(CloudId::Lambda)), gpu("H100", None)]);
        let needs = catalog_needs(&d, &clouds);
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
        let pinned = catalog_needs(&dag(vec![gpu("A100", Some(CloudId::Lambda))]), &clouds);
        assert_eq!(pinned.for_cloud(CloudId::Aws), RowSelection::nothing());
    }
}
