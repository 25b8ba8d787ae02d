//! Which catalog rows each cloud's feasibility reads for a request, and so
//! which rows a launch decodes ([`CatalogNeeds`]): kept beside the code
//! that reads them, so a new read cannot go unselected (ARCHITECTURE.md,
//! "A launch decodes only the rows it can match").

use crate::catalog::selection::{CatalogNeeds, RowSelection};
use crate::cloud::CloudId;
use crate::resources::Resources;
use crate::task::Dag;

use super::gcp;

/// The rows of `cloud`'s catalog the planner may read while it plans `r`
/// (a superset; see [`RowSelection`]). Narrowed only where the reads are
/// known: GCP (`gcp::rows_read`), and clouds planned by the generic
/// catalog path — an accelerator's rows for an accelerator request, the
/// default family's rows for a request without one. An instance type, a
/// cloud with its own feasibility rules or a reshaped catalog (OCI's
/// subscribed regions, Nebius' tenant prices) reads everything.
pub fn rows_read(cloud: CloudId, r: &Resources) -> RowSelection {
    if r.cloud.is_some_and(|c| c != cloud) {
        return RowSelection::nothing();
    }
    if r.instance_type.is_some() {
        return RowSelection::All;
    }
    let own_feasibility = matches!(
        cloud,
        CloudId::Kubernetes
            | CloudId::Ssh
            | CloudId::Slurm
            | CloudId::Seeweb
            | CloudId::Shadeform
            | CloudId::Vast
            | CloudId::Ibm
            | CloudId::Scp
            | CloudId::Vsphere
    );
    let reshaped = matches!(cloud, CloudId::Oci | CloudId::Nebius);
    match (&cloud.spec().catalog_rules, &r.accelerator) {
        _ if cloud == CloudId::Gcp => gcp::rows_read(r),
        _ if own_feasibility || reshaped => RowSelection::All,
        (Some(_), Some(acc)) => RowSelection::accelerator(&acc.name),
        (Some(rules), None) => RowSelection::family(rules.default_family),
        (None, _) => RowSelection::All,
    }
}

/// What the planner can read while it plans `dag`, per cloud in `clouds`:
/// the union of [`rows_read`] over every resource of every task.
pub fn catalog_needs(dag: &Dag, clouds: &[CloudId]) -> CatalogNeeds {
    let mut needs = CatalogNeeds::all();
    for &cloud in clouds {
        let mut selection = RowSelection::nothing();
        for r in dag.tasks.iter().flat_map(|t| t.resources.all()) {
            selection.widen(rows_read(cloud, r));
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
        // A cloud with its own feasibility rules, or not asked about: everything.
        assert_eq!(needs.for_cloud(CloudId::Vast), RowSelection::All);
        assert_eq!(needs.for_cloud(CloudId::Azure), RowSelection::All);
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
