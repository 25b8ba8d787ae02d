//! GCP: accelerators are separate catalog rows attached to host VMs by fixed
//! rules (`sky/clouds/gcp.py`, `sky/catalog/gcp_catalog.py`), TPUs run as TPU
//! VMs, and launchables are per zone.

use crate::catalog::query::{Filter, NamePattern, RegionZones};
use crate::catalog::selection::RowSelection;
use crate::catalog::{AcceleratorTable, CloudCatalog, gcp};
use crate::cloud::{CatalogRules, CloudId, InstanceFamily};
use crate::resources::{Accelerator, ErrorKind, RequestError, Resources};
use crate::world::World;

use super::{FeasibleResources, amount, candidate, catalog, effective_accelerator, filter_of};

/// `gcp_catalog.get_default_instance_type`: 8+ vCPUs, 4× memory, from the
/// general-purpose N2/N4 families.
const DEFAULT_INSTANCE: CatalogRules = CatalogRules {
    default_cpus: Some("8+"),
    default_memory: Some("4x"),
    default_family: InstanceFamily::Prefixes(&gcp::DEFAULT_FAMILIES),
    ..CatalogRules::PLAIN
};

/// The GCP rows [`feasible`] and the pricing and region lookups after it
/// may read for `r` (no instance type): the default families' rows for a
/// CPU request; for an accelerator, its rows, the fixed machine types of
/// every GPU named like it (A100 → `a2-*`, H100 → `a3-*`) and the N1 hosts
/// the other GPUs attach to.
///
/// The N1 hosts (most of GCP's rows) are left out when `accelerators` (the
/// `common/accelerators.csv` validation canonicalises by) names the
/// request exactly and that GPU comes only on fixed machine types:
/// `canonicalize_name` then returns that entry whatever else contains the
/// request, and `feasible` picks its host among the fixed types
/// (`gcp_catalog.get_instance_type_for_accelerator`: `_ACC_INSTANCE_TYPE_DICTS`
/// before the N1 hosts). TPUs (a TPU VM, or an N1 host for a TPU node) and
/// any other name keep them.
pub(super) fn rows_read(r: &Resources, accelerators: Option<&AcceleratorTable>) -> RowSelection {
    let Some(acc) = &r.accelerator else {
        return RowSelection::family(DEFAULT_INSTANCE.default_family);
    };
    let named = NamePattern::new(&acc.name);
    let mut selection = RowSelection::accelerator(&acc.name);
    for (gpu, counts) in gcp::FIXED_MACHINE_GPUS {
        if named.contains(gpu) {
            for (_, types) in *counts {
                selection.widen(RowSelection::family(InstanceFamily::Prefixes(types)));
            }
        }
    }
    let canonical = accelerators.and_then(|table| {
        table
            .entries()
            .find(|(n, _)| n.eq_ignore_ascii_case(&acc.name))
            .map(|(n, _)| n)
    });
    let fixed_only = !acc.name.to_lowercase().starts_with("tpu-")
        && canonical.is_some_and(|n| gcp::fixed_machine_types(n).is_some());
    if !fixed_only {
        selection.widen(RowSelection::family(InstanceFamily::Prefixes(
            &gcp::HOST_VM_FAMILIES,
        )));
    }
    selection
}

/// `GCP._get_feasible_launchable_resources`: an accelerator request gets
/// a host VM (or a TPU VM) chosen by GCP's attachment rules.
pub(super) fn feasible(world: &World, r: &Resources) -> FeasibleResources {
    let Some(cat) = world.cloud_catalog(CloudId::Gcp) else {
        return FeasibleResources::default();
    };
    if let Some(it) = &r.instance_type {
        return FeasibleResources {
            resources: vec![candidate(
                r,
                CloudId::Gcp,
                it.clone(),
                r.accelerator.clone(),
            )],
            ..Default::default()
        };
    }
    let Some(acc) = &r.accelerator else {
        return match catalog::default_instance_type(cat, &DEFAULT_INSTANCE, r) {
            Some(it) => FeasibleResources {
                resources: vec![candidate(r, CloudId::Gcp, it, None)],
                ..Default::default()
            },
            None => FeasibleResources::default(),
        };
    };
    let use_tpu_vm = acc.name.starts_with("tpu-") && r.tpu_vm;
    let mut filter = filter_of(r);
    if use_tpu_vm {
        filter.cpus = None;
        filter.memory = None;
    }
    // The generic query only decides "exists or fuzzy": GCP accelerator rows have no instance type.
    let fuzzy = match instances_for_gcp_accelerator(cat, acc, &filter, r.use_spot) {
        Err(fuzzy) => {
            return FeasibleResources {
                fuzzy,
                ..Default::default()
            };
        }
        Ok(()) => Vec::new(),
    };
    let host = if use_tpu_vm {
        let (max_cpus, max_mem) = gcp::tpu_vm_host(&acc.name);
        let fits = |req: Option<&str>, have: f64| match req {
            None => true,
            Some(t) => match t.strip_suffix('+') {
                Some(n) => n.parse::<f64>().is_ok_and(|n| n <= have),
                None => t.parse::<f64>().is_ok_and(|n| n == have),
            },
        };
        if !fits(r.cpus.as_deref(), max_cpus) || !fits(r.memory.as_deref(), max_mem) {
            return FeasibleResources {
                fuzzy,
                ..Default::default()
            };
        }
        Some("TPU-VM".to_string())
    } else if let Some(table) = gcp::fixed_machine_types(&acc.name) {
        let Some((_, types)) = table.iter().find(|(c, _)| *c as f64 == acc.count.0) else {
            return FeasibleResources::default();
        };
        let f = Filter {
            cpus: amount(r.cpus.as_deref()),
            memory: amount(r.memory.as_deref()),
            ..Default::default()
        };
        cat.cheapest_for_cpus_mem(|it| types.contains(&it), &f, false)
    } else {
        let count = acc.count.0.round() as u32;
        let (cpus, memory) = match (&r.cpus, &r.memory) {
            (None, None) => {
                let Some(host_cpus) = gcp::default_host_cpus(&acc.name, count) else {
                    return FeasibleResources::default();
                };
                (
                    Some(format!("{host_cpus}+")),
                    Some(format!("{}+", host_cpus * 4)),
                )
            }
            (Some(c), None) => {
                let n: f64 = c.trim_end_matches(['+', 'x']).parse().unwrap_or(0.0);
                (Some(c.clone()), Some(format!("{}+", (n as i64) * 4)))
            }
            (c, m) => (c.clone(), m.clone()),
        };
        let f = Filter {
            cpus: amount(cpus.as_deref()),
            memory: amount(memory.as_deref()),
            ..Default::default()
        };
        cat.cheapest_for_cpus_mem(
            |it| gcp::HOST_VM_FAMILIES.iter().any(|p| it.starts_with(p)),
            &f,
            false,
        )
    };
    match host {
        Some(h) => FeasibleResources {
            resources: vec![candidate(r, CloudId::Gcp, h, Some(acc.clone()))],
            fuzzy,
            ..Default::default()
        },
        None => FeasibleResources {
            fuzzy,
            ..Default::default()
        },
    }
}

fn instances_for_gcp_accelerator(
    cat: &CloudCatalog,
    acc: &Accelerator,
    filter: &Filter<'_>,
    spot: bool,
) -> Result<(), Vec<String>> {
    let loc = Filter {
        region: filter.region,
        zone: filter.zone,
        ..Default::default()
    };
    let pattern = crate::catalog::query::NamePattern::new(&acc.name);
    let any = cat.rows.iter().any(|r| {
        r.accelerator_name
            .as_deref()
            .is_some_and(|n| pattern.full_match(n))
            && r.accelerator_count()
                .is_some_and(|c| (c - acc.count.0).abs() <= 0.01)
            && filter
                .region
                .is_none_or(|reg| r.region.eq_ignore_ascii_case(reg))
            && filter.zone.is_none_or(|z| {
                r.zone
                    .as_deref()
                    .is_some_and(|rz| rz.eq_ignore_ascii_case(z))
            })
    });
    let _ = spot;
    if any {
        Ok(())
    } else {
        Err(cat.fuzzy_accelerators(&pattern, acc.count.0, &loc))
    }
}

/// `GCP._check_instance_type_accelerators_combination` (via
/// `gcp_catalog.check_accelerator_attachable_to_host`): whether the
/// accelerator can be attached to the host VM `it`.
pub(super) fn check_attachable(world: &World, r: &Resources, it: &str) -> Result<(), RequestError> {
    let Some(acc) = &r.accelerator else {
        return Ok(());
    };
    let mismatch = |m: String| Err(RequestError::new(ErrorKind::ResourcesMismatch, m));
    let exists = world.cloud_catalog(CloudId::Gcp).is_some_and(|c| {
        c.rows.iter().any(|row| {
            row.accelerator_name
                .as_deref()
                .is_some_and(|n| n.eq_ignore_ascii_case(&acc.name))
        })
    });
    if !exists {
        return mismatch(format!(
            "{} is not available in GCP. See 'sky gpus list --cloud gcp'",
            acc.name
        ));
    }
    if acc.name.starts_with("tpu-") {
        if it != "TPU-VM" && !it.starts_with("n1-") {
            return mismatch(
                "TPU Nodes can be only used with N1 machines. Please refer to: https://cloud.google.com/compute/docs/general-purpose-machines#n1_machines"
                    .into(),
            );
        }
        return Ok(());
    }
    let count = acc.count.0;
    let fixed = gcp::fixed_machine_types(&acc.name);
    if let Some(table) = fixed {
        let matching: Vec<&str> = table
            .iter()
            .find(|(c, _)| *c as f64 == count)
            .map(|(_, t)| t.to_vec())
            .unwrap_or_default();
        if !matching.contains(&it) {
            let list: Vec<String> = matching.iter().map(|s| format!("'{s}'")).collect();
            return mismatch(format!(
                "{} GPUs cannot be attached to {it}. Use one of [{}] instead. Please refer to https://cloud.google.com/compute/docs/gpus",
                acc.name,
                list.join(", ")
            ));
        }
    } else if !it.starts_with("n1-") {
        return mismatch(format!(
            "{} GPUs cannot be attached to {it}. Use N1 instance types instead. Please refer to: https://cloud.google.com/compute/docs/machine-types#gpus",
            acc.name
        ));
    }
    let valid_counts: Vec<u32> = match fixed {
        Some(table) => table.iter().map(|(c, _)| *c).collect(),
        None => gcp::max_host_counts(&acc.name),
    };
    if !valid_counts.iter().any(|c| *c as f64 == count) {
        return mismatch(format!(
            "{}:{} is not launchable on GCP. The valid {} counts are [{}].",
            acc.name,
            acc.count,
            acc.name,
            valid_counts
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if fixed.is_some() {
        return Ok(());
    }
    if let Some((max_cpus, max_mem)) = gcp::max_host_cpu_mem(&acc.name, count as u32) {
        let (cpus, mem) = world.vcpus_mem(CloudId::Gcp, it);
        if cpus.is_some_and(|c| c > max_cpus) {
            return mismatch(format!(
                "{}:{} cannot be attached to {it}. The maximum number of vCPUs is {}. Please refer to: https://cloud.google.com/compute/docs/gpus",
                acc.name, acc.count, max_cpus as i64
            ));
        }
        if mem.is_some_and(|m| m > max_mem) {
            return mismatch(format!(
                "{}:{} cannot be attached to {it}. The maximum CPU memory is {} GB. Please refer to: https://cloud.google.com/compute/docs/gpus",
                acc.name, acc.count, max_mem as i64
            ));
        }
    }
    Ok(())
}

fn gcp_accelerator_regions(cat: &CloudCatalog, acc: &Accelerator, spot: bool) -> Vec<RegionZones> {
    let pattern = crate::catalog::query::NamePattern::new(&acc.name);
    let mut named = crate::catalog::query::PerName::new(|n| pattern.full_match(n));
    cat.region_zones_of(
        cat.rows.iter().filter(|row| {
            row.instance_type.is_none()
                && row.accelerator_name.as_ref().is_some_and(|n| named.test(n))
                && row.accelerator_count() == Some(acc.count.0)
        }),
        spot,
    )
}

/// `GCP.regions_with_offering`: the instance type's zones, intersected
/// with its accelerator's for a host VM; a TPU VM's are the TPU's own.
pub(super) fn regions_with_offering(world: &World, r: &Resources, it: &str) -> Vec<RegionZones> {
    let region = r.region.as_deref();
    let zone = r.zone.as_deref();
    let Some(cat) = world.cloud_catalog(CloudId::Gcp) else {
        return Vec::new();
    };
    let acc = effective_accelerator(world, r);
    let mut regions = match &acc {
        None => cat.regions_for_instance(it, r.use_spot, None, None),
        Some(a) => {
            let acc_regions = gcp_accelerator_regions(cat, a, r.use_spot);
            if it == "TPU-VM" {
                acc_regions
            } else {
                let vm = cat.regions_for_instance(it, r.use_spot, None, None);
                let mut out = Vec::new();
                for r1 in acc_regions {
                    if let Some(r2) = vm.iter().find(|v| v.region == r1.region) {
                        let zones: Vec<String> = r1
                            .zones
                            .iter()
                            .filter(|z| r2.zones.contains(z))
                            .cloned()
                            .collect();
                        if !zones.is_empty() {
                            out.push(RegionZones {
                                region: r1.region,
                                zones,
                            });
                        }
                    }
                }
                out
            }
        }
    };
    if let Some(reg) = region {
        regions.retain(|r| r.region == reg);
    }
    if let Some(z) = zone {
        for r in regions.iter_mut() {
            r.zones.retain(|x| x == z);
        }
        regions.retain(|r| !r.zones.is_empty());
    }
    regions
}

/// `GCP.instance_type_to_hourly_cost` plus `accelerators_to_hourly_cost`:
/// a host VM's price and its attached accelerators' (a TPU VM has only the latter).
pub(super) fn hourly_cost(world: &World, r: &Resources, it: &str) -> Result<f64, String> {
    let region = r.region.as_deref();
    let zone = r.zone.as_deref();
    let cat = world.cloud_catalog(CloudId::Gcp).ok_or("no GCP catalog")?;
    let vm = if it == "TPU-VM" {
        0.0
    } else {
        cat.hourly_cost(it, r.use_spot, region, zone)?
    };
    let acc_cost = match effective_accelerator(world, r) {
        None => 0.0,
        Some(a) => gcp_accelerator_cost(cat, &a, r.use_spot, region, zone),
    };
    Ok(vm + acc_cost)
}

fn gcp_accelerator_cost(
    cat: &CloudCatalog,
    acc: &Accelerator,
    spot: bool,
    region: Option<&str>,
    zone: Option<&str>,
) -> f64 {
    let pattern = crate::catalog::query::NamePattern::new(&acc.name);
    // Both minimums in one pass (NaN: none yet, as `f64::min` folds it).
    let (mut min_price, mut min_spot) = (f64::NAN, f64::NAN);
    for row in cat
        .accelerator_rows(|n| pattern.full_match(n))
        .filter(|row| {
            row.accelerator_count() == Some(acc.count.0)
                && region.is_none_or(|r| *row.region == *r)
                && zone.is_none_or(|z| row.zone.as_deref() == Some(z))
        })
    {
        if let Some(p) = row.price() {
            min_price = min_price.min(p);
        }
        if let Some(p) = row.spot_price() {
            min_spot = min_spot.min(p);
        }
    }
    if !spot {
        return min_price;
    }
    if min_spot.is_nan() {
        min_price
    } else {
        min_spot
    }
}
