//! GCP's `list_accelerators` (`sky/catalog/gcp_catalog.py`): attachable
//! GPUs priced with their cheapest host VM in the same zone, TPUs priced
//! alone and grouped per version.

use super::listing::{Compiled, Key, Listing, list_impl, matches, py_tuple_cmp};
use super::rows::Row;
use super::{CloudGpuRows, Filter, Num, Offer};
use crate::catalog::gcp;

/// `gcp_catalog.list_accelerators` with `require_price=True`: attachable GPUs
/// priced with their cheapest host VM in the same zone, TPUs priced alone
/// and grouped per version (`tpu-v4`, ...), sorted by price.
pub(super) fn list_gcp(cat: &CloudGpuRows, filter: &Filter, compiled: &Compiled) -> Listing {
    let all: Vec<Row<'_>> = cat.rows().collect();
    let mut gpus: Vec<Row<'_>> = Vec::new();
    let mut tpus: Vec<Row<'_>> = Vec::new();
    for &r in &all {
        let Some(name) = r.accelerator_name else {
            continue;
        };
        if r.gpu_info.is_none()
            || !matches(&compiled.name, Some(name))
            || !matches(&compiled.region, r.region)
        {
            continue;
        }
        // astype(int): the count truncates.
        let count = r.accelerator_count.value.trunc();
        if filter.quantity.is_some_and(|q| count != f64::from(q)) {
            continue;
        }
        let mut r = r;
        r.accelerator_count = Num {
            value: count,
            int: true,
        };
        if name.starts_with("tpu-") {
            tpus.push(r);
        } else {
            gpus.push(r);
        }
    }
    let zones = zone_index(&all);
    // The merge's key: (InstanceType, Region, AvailabilityZone), exact.
    let mut hosts: HostIndex<'_, '_> = Default::default();
    for h in &all {
        if let Some(t) = h.instance_type {
            hosts.entry((t, h.region, h.zone)).or_default().push(h);
        }
    }
    let mut priced: Vec<Row<'_>> = Vec::new();
    for acc in gpus {
        let name = acc.accelerator_name.unwrap_or("");
        let count = acc.accelerator_count.value as u32;
        let Some(host) = gcp_host(&zones, name, count, &acc) else {
            continue;
        };
        if acc.price.get().is_none() {
            continue;
        }
        // The merge on (InstanceType, Region, AvailabilityZone): every host row.
        let exact = hosts
            .get(&(host, acc.region, acc.zone))
            .map(Vec::as_slice)
            .unwrap_or_default();
        for h in exact {
            let mut r = acc;
            r.instance_type = Some(host);
            r.vcpus = h.vcpus;
            r.memory = h.memory;
            r.price = Num::float(acc.price.value + h.price.value);
            r.spot_price = Num::float(acc.spot_price.value + h.spot_price.value);
            priced.push(r);
        }
    }
    // pd.concat: the host columns are float columns (the CSV has NaN there).
    for r in priced.iter_mut().chain(tpus.iter_mut()) {
        r.vcpus.int = false;
        r.memory.int = false;
        r.price.int = false;
        r.spot_price.int = false;
    }
    priced.extend(tpus);
    let mut results = list_impl(cat.label, priced, filter, compiled);
    // Combine the TPUs of one version (popped and appended: they come last).
    let mut tpu_groups: Vec<(String, Vec<Offer>)> = Vec::new();
    let mut rest: Listing = Vec::new();
    for (name, offers) in results.drain(..) {
        if name.starts_with("tpu-") {
            let version = name.split('-').nth(1).unwrap_or("");
            let group = format!("tpu-{version}");
            match tpu_groups.iter_mut().find(|(g, _)| *g == group) {
                Some((_, v)) => v.extend(offers),
                None => tpu_groups.push((group, offers)),
            }
        } else {
            rest.push((name, offers));
        }
    }
    for (_, offers) in &mut tpu_groups {
        fn key(o: &Offer) -> [Key<'_>; 3] {
            [
                Key::F(o.price.value),
                Key::F(o.spot_price.value),
                Key::S(o.region.as_deref()),
            ]
        }
        offers.sort_by(|a, b| py_tuple_cmp(&key(a), &key(b)));
    }
    rest.extend(tpu_groups);
    rest
}

/// `_get_host_instance_type`: the cheapest host in the accelerator's zone
/// (a fixed machine type of that GPU and count, else an N1 VM with the
/// default vCPUs and 4 GiB per vCPU). `None` where SkyPilot finds none — or
/// where its table has no entry for the count (SkyPilot raises `KeyError`
/// there; the row is left out instead).
/// GCP's instance rows per (region, zone), lower-cased as
/// `_get_host_instance_type` compares them, in file order.
type ZoneIndex<'r, 'a> = rustc_hash::FxHashMap<(Option<String>, Option<String>), Vec<&'r Row<'a>>>;

/// GCP's instance rows per exact (InstanceType, Region, AvailabilityZone).
type HostIndex<'r, 'a> =
    rustc_hash::FxHashMap<(&'a str, Option<&'a str>, Option<&'a str>), Vec<&'r Row<'a>>>;

fn zone_index<'r, 'a>(all: &'r [Row<'a>]) -> ZoneIndex<'r, 'a> {
    let mut index: ZoneIndex<'r, 'a> = Default::default();
    for r in all.iter().filter(|r| r.instance_type.is_some()) {
        let lower = |s: Option<&str>| s.map(str::to_lowercase);
        index
            .entry((lower(r.region), lower(r.zone)))
            .or_default()
            .push(r);
    }
    index
}

fn gcp_host<'a>(
    zones: &ZoneIndex<'_, 'a>,
    name: &str,
    count: u32,
    acc: &Row<'_>,
) -> Option<&'a str> {
    let lower = |s: Option<&str>| s.map(str::to_lowercase);
    let in_zone = zones
        .get(&(lower(acc.region), lower(acc.zone)))
        .map(Vec::as_slice)
        .unwrap_or_default();
    let all = in_zone.iter().copied();
    let candidates: Vec<&Row<'a>> = if let Some(table) = gcp::fixed_machine_types(name) {
        let types = table.iter().find(|(c, _)| *c == count).map(|(_, t)| *t)?;
        all.filter(|h| types.contains(&h.instance_type.unwrap_or("")))
            .collect()
    } else {
        let cpus = f64::from(gcp::default_host_cpus(name, count)?);
        let memory = cpus * 4.0;
        all.filter(|h| {
            let t = h.instance_type.unwrap_or("");
            gcp::HOST_VM_FAMILIES.iter().any(|f| t.starts_with(f))
                && h.vcpus.value >= cpus
                && h.memory.value >= memory
        })
        .collect()
    };
    // idxmin over Price (rows without one dropped): the first minimum.
    let mut best: Option<&Row<'a>> = None;
    for h in candidates.into_iter().filter(|h| h.price.get().is_some()) {
        if best.is_none_or(|b| h.price.value < b.price.value) {
            best = Some(h);
        }
    }
    best.and_then(|b| b.instance_type)
}
