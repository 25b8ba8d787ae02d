//! The planner's one input besides the request: catalogs, the enabled
//! clouds, Kubernetes contexts and reservations, as the cloud checks found
//! them. Everything in it is plain data; see `optimizer::launch` for how it is
//! gathered.

use crate::catalog::CatalogError;
use crate::catalog::gcp;
use crate::catalog::kubernetes::{KubeContext, KubeInstanceType, KubePricing};
use crate::catalog::slurm::SlurmWorld;
use crate::catalog::ssh::SshWorld;
use crate::catalog::{Catalog, CloudCatalog};
use crate::check::{CloudFacts, Reservation};
use crate::cloud::CloudId;
use crate::config::SkyConfig;
use crate::resources::{AccCount, Accelerator, Resources};

/// Everything the pure core knows about the enabled clouds.
#[derive(Debug, Clone)]
pub struct World {
    /// Catalogs (the AWS one already joined with the account's zone mapping).
    pub catalog: Catalog,
    /// Enabled clouds in enumeration order.
    pub enabled: Vec<CloudId>,
    /// Allowed Kubernetes contexts with their nodes (or why they could not be listed).
    pub kube_contexts: Vec<KubeContext>,
    /// Kubernetes pricing (`kubernetes.pricing` in the config).
    pub kube_pricing: KubePricing,
    /// Clouds with reservations configured (`<cloud>.specific_reservations` or
    /// `prioritize_reservations`): they are optimised per zone, like GCP, and
    /// nodes their consumable reservations cover cost nothing.
    pub reservation_clouds: Vec<ReservationCloud>,
    /// `~/.sky/config.yaml`, for the settings a cloud's feasibility reads
    /// (`vast.datacenter_only`); `SkyConfig::default()` when there is none.
    pub sky_config: SkyConfig,
    /// SSH Node Pools: the `ssh-<pool>` contexts (never in `kube_contexts`).
    pub ssh: SshWorld,
    /// Slurm: the clusters of `~/.slurm/config` and the `slurm:` config.
    pub slurm: SlurmWorld,
}

/// A cloud with reservations configured, and the reservations its adapter found.
#[derive(Debug, Clone, PartialEq)]
pub struct ReservationCloud {
    /// The cloud.
    pub cloud: CloudId,
    /// `<cloud>.specific_reservations`: targeted reservations this user may consume.
    pub specific_reservations: Vec<String>,
    /// The cloud's usable (READY) reservations; empty when none were fetched
    /// (AWS, or a cloud used offline).
    pub reservations: Vec<Reservation>,
}

impl ReservationCloud {
    /// A configured cloud with no reservations known yet.
    pub fn new(cloud: CloudId, specific_reservations: Vec<String>) -> Self {
        ReservationCloud {
            cloud,
            specific_reservations,
            reservations: Vec::new(),
        }
    }
}

impl World {
    /// The catalog of a CSV-backed cloud.
    pub fn cloud_catalog(&self, cloud: CloudId) -> Option<&CloudCatalog> {
        self.catalog.cloud(cloud)
    }

    /// Whether `cloud` has the instance type.
    pub fn instance_type_exists(&self, cloud: CloudId, instance_type: &str) -> bool {
        match cloud {
            CloudId::Kubernetes | CloudId::Ssh | CloudId::Slurm => {
                instance_type.parse::<KubeInstanceType>().is_ok()
            }
            CloudId::Gcp if instance_type == "TPU-VM" => true,
            _ => self
                .cloud_catalog(cloud)
                .is_some_and(|c| c.has_instance_type(instance_type)),
        }
    }

    /// vCPUs and memory of an instance type on `cloud`.
    pub fn vcpus_mem(&self, cloud: CloudId, instance_type: &str) -> (Option<f64>, Option<f64>) {
        match cloud {
            CloudId::Kubernetes | CloudId::Ssh | CloudId::Slurm => {
                match instance_type.parse::<KubeInstanceType>() {
                    Ok(t) => (Some(t.cpus), Some(t.memory_gib)),
                    Err(_) => (None, None),
                }
            }
            CloudId::Gcp if instance_type == "TPU-VM" => (None, None),
            _ => self
                .cloud_catalog(cloud)
                .and_then(|c| c.vcpus_mem(instance_type))
                .unwrap_or((None, None)),
        }
    }

    /// Accelerators implied by an instance type.
    pub fn accelerator_of_instance(
        &self,
        cloud: CloudId,
        instance_type: &str,
    ) -> Option<Accelerator> {
        match cloud {
            CloudId::Gcp => gcp::accelerator_of_machine(instance_type).map(|(n, c)| Accelerator {
                name: n.to_string(),
                count: AccCount(c as f64),
            }),
            CloudId::Kubernetes | CloudId::Ssh | CloudId::Slurm => instance_type
                .parse::<KubeInstanceType>()
                .ok()
                .and_then(|t| {
                    t.accelerator.map(|(n, c)| Accelerator {
                        name: n,
                        count: AccCount(c as f64),
                    })
                }),
            _ => self
                .cloud_catalog(cloud)
                .and_then(|c| c.accelerator_of(instance_type))
                .map(|(n, c)| Accelerator {
                    name: n,
                    count: AccCount(c),
                }),
        }
    }

    /// Whether launchables of `cloud` are per zone even on demand (GCP and
    /// Slurm, whose zones are partitions, always; AWS when reservations are
    /// configured).
    pub fn optimizes_by_zone(&self, cloud: CloudId) -> bool {
        matches!(cloud, CloudId::Gcp | CloudId::Slurm)
            || (cloud == CloudId::Aws && self.has_reservations_configured(CloudId::Aws))
    }

    /// Whether `<cloud>.specific_reservations` or `prioritize_reservations` is set.
    pub fn has_reservations_configured(&self, cloud: CloudId) -> bool {
        self.reservation_clouds.iter().any(|c| c.cloud == cloud)
    }

    /// Nodes of launchable `r` that reservations cover for free (SkyPilot's
    /// `Resources.get_reservations_available_resources()`, summed): the free
    /// capacity (`count - inUseCount`) of the reservations in `r`'s zone for
    /// its instance type that are open, or targeted and listed in
    /// `specific_reservations`. Spot and zone-less launchables have none.
    pub fn reserved_nodes(&self, r: &Resources) -> i64 {
        let (Some(cloud), Some(zone), Some(instance_type)) =
            (r.cloud, r.zone.as_deref(), r.instance_type.as_deref())
        else {
            return 0;
        };
        if r.use_spot {
            return 0;
        }
        let Some(rc) = self.reservation_clouds.iter().find(|c| c.cloud == cloud) else {
            return 0;
        };
        rc.reservations
            .iter()
            .filter(|x| x.zone == zone && x.instance_type == instance_type)
            .filter(|x| {
                !x.specific_reservation_required || rc.specific_reservations.contains(&x.name)
            })
            .map(Reservation::available)
            .sum()
    }

    /// `skypilot_config.get_effective_region_config(cloud, keys)` without a
    /// region: the resource's `config_overrides` (a task's `config:`, `--config`)
    /// first, then the config document. `None` when unset or null.
    pub fn cloud_config<'a>(
        &'a self,
        overrides: Option<&'a serde_yaml_ng::Mapping>,
        cloud: CloudId,
        key: &str,
    ) -> Option<&'a serde_yaml_ng::Value> {
        // The document is `SkyConfig::raw` (a mapping at the top level,
        // `parse_config_document` checked that); overrides are a mapping.
        let section = |v: Option<&'a serde_yaml_ng::Value>| {
            v.and_then(|c| c.get(key)).filter(|v| !v.is_null())
        };
        section(overrides.and_then(|o| o.get(cloud.name())))
            .or_else(|| section(self.sky_config.raw.get(cloud.name())))
    }

    /// Contexts that could be listed.
    pub fn reachable_contexts(&self) -> impl Iterator<Item = &KubeContext> {
        self.kube_contexts.iter().filter(|c| c.nodes.is_ok())
    }

    /// Folds what a cloud's check learnt into the catalogs the planner
    /// reads, as SkyPilot's catalog modules do on first use: OCI keeps only
    /// the tenancy's subscribed regions (`oci_catalog._get_df`), Nebius takes
    /// the tenant's own prices (`nebius_catalog._get_df`). Facts of other
    /// clouds are read elsewhere; a cloud without a loaded catalog is left
    /// alone. `Err` is a tenant catalog that does not parse.
    pub fn apply_cloud_facts(&mut self, facts: &CloudFacts) -> Result<(), CatalogError> {
        match facts {
            CloudFacts::Oci(f) => {
                if let Some(cat) = self.catalog.cloud_mut(CloudId::Oci) {
                    crate::catalog::oci::apply_subscriptions(cat, f);
                }
            }
            CloudFacts::Nebius(f) => {
                if let Some(cat) = self.catalog.cloud_mut(CloudId::Nebius) {
                    crate::catalog::nebius::apply_tenant_prices(cat, f)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The contexts of a Kubernetes-family cloud: Kubernetes' or SSH's.
    pub fn contexts_of(&self, cloud: CloudId) -> &[KubeContext] {
        match cloud {
            CloudId::Ssh => &self.ssh.contexts,
            _ => &self.kube_contexts,
        }
    }
}

#[cfg(test)]
mod reservation_tests {
    use super::*;

    fn reservation(name: &str, zone: &str, count: i64, used: i64, targeted: bool) -> Reservation {
        Reservation {
            name: format!("projects/p/reservations/{name}"),
            zone: zone.into(),
            instance_type: "a2-highgpu-1g".into(),
            count,
            in_use_count: used,
            specific_reservation_required: targeted,
        }
    }

    fn world(specific: &[&str]) -> World {
        let mut gcp = ReservationCloud::new(
            CloudId::Gcp,
            specific.iter().map(|s| s.to_string()).collect(),
        );
        gcp.reservations = vec![
            reservation("open", "us-central1-a", 4, 1, false),
            reservation("targeted", "us-central1-a", 2, 0, true),
            reservation("elsewhere", "us-central1-b", 8, 0, false),
        ];
        World {
            catalog: Catalog::new(),
            enabled: vec![CloudId::Gcp],
            kube_contexts: Vec::new(),
            kube_pricing: KubePricing::default(),
            reservation_clouds: vec![gcp],
            sky_config: SkyConfig::default(),
            ssh: SshWorld::default(),
            slurm: SlurmWorld::default(),
        }
    }

    fn launchable(zone: Option<&str>, spot: bool) -> Resources {
        Resources {
            cloud: Some(CloudId::Gcp),
            region: Some("us-central1".into()),
            zone: zone.map(str::to_string),
            instance_type: Some("a2-highgpu-1g".into()),
            use_spot: spot,
            ..Resources::default()
        }
    }

    #[test]
    fn open_reservations_in_the_zone_count_and_targeted_ones_only_when_named() {
        let r = launchable(Some("us-central1-a"), false);
        assert_eq!(world(&[]).reserved_nodes(&r), 3);
        assert_eq!(
            world(&["projects/p/reservations/targeted"]).reserved_nodes(&r),
            5
        );
        let b = launchable(Some("us-central1-b"), false);
        assert_eq!(world(&[]).reserved_nodes(&b), 8);
    }

    #[test]
    fn spot_zone_less_and_other_types_have_none() {
        let w = world(&[]);
        assert_eq!(
            w.reserved_nodes(&launchable(Some("us-central1-a"), true)),
            0
        );
        assert_eq!(w.reserved_nodes(&launchable(None, false)), 0);
        let mut other = launchable(Some("us-central1-a"), false);
        other.instance_type = Some("a2-highgpu-2g".into());
        assert_eq!(w.reserved_nodes(&other), 0);
        other.cloud = Some(CloudId::Aws);
        assert_eq!(w.reserved_nodes(&other), 0);
    }
}
