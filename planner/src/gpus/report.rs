//! What `sky gpus list` prints, as data: the catalog part of
//! `_show_gpus_impl`'s `_output` ([`report`]: quantity tables, offers per
//! GPU, the not-found line) and the `-o json` listing.

use super::merge::{list_accelerator_counts, list_accelerators};
use super::{
    CloudGpuRows, Filter, GpusError, Listing, Num, Offer, Query, SortBy, accelerator_names, order,
    sections, suggestions,
};
use crate::cloud::CloudId;

/// `sky/catalog/__init__.py::get_common_gpus`.
pub const COMMON_GPUS: [&str; 14] = [
    "A10",
    "A10G",
    "A100",
    "A100-80GB",
    "B200",
    "H100",
    "H200",
    "L4",
    "L40S",
    "RTX5090",
    "RTXPRO6000",
    "T4",
    "V100",
    "V100-32GB",
];

/// `sky/catalog/__init__.py::get_tpus`.
pub const TPUS: [&str; 14] = [
    "tpu-v2-8",
    "tpu-v3-8",
    "tpu-v4-8",
    "tpu-v4-16",
    "tpu-v4-32",
    "tpu-v5litepod-1",
    "tpu-v5litepod-4",
    "tpu-v5litepod-8",
    "tpu-v5p-8",
    "tpu-v5p-16",
    "tpu-v5p-32",
    "tpu-v6e-1",
    "tpu-v6e-4",
    "tpu-v6e-8",
];

/// One piece of the output, in order.
#[derive(Debug, Clone)]
pub enum Section {
    /// Literal text (hints, notes, blank lines), as SkyPilot yields it.
    Text(String),
    /// The cyan "Cloud GPUs" title.
    CloudGpusTitle,
    /// The quantity tables (no GPU name): common GPUs, TPUs, and with
    /// `--all` the others.
    Counts {
        /// `COMMON_GPU` rows.
        common: Vec<(String, Vec<f64>)>,
        /// `GOOGLE_TPU` rows.
        tpus: Vec<(String, Vec<f64>)>,
        /// `OTHER_GPU` rows (`--all` only).
        other: Option<Vec<(String, Vec<f64>)>>,
    },
    /// A Kubernetes or SSH Node Pool block (`_format_kubernetes_realtime_gpu`).
    Kube(sections::KubeSection),
    /// The Slurm block (`_format_slurm_realtime_gpu`).
    Slurm(sections::SlurmSection),
    /// A line SkyPilot's logger prints meanwhile.
    Log(String),
    /// One table per GPU.
    Offers {
        /// Per GPU name, its offers in table order.
        groups: Listing,
        /// Whether the REGION column is shown (not with `--all`).
        region: bool,
    },
}

/// What `sky gpus list` prints, as data.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The output pieces.
    pub sections: Vec<Section>,
    /// Close names when a GPU name matched nothing (ours: printed as a hint).
    pub suggestions: Vec<String>,
}

/// The catalog part of `_show_gpus_impl`'s `_output` (Kubernetes, SSH and
/// Slurm sections come before it; `section_titles` says whether one was
/// printed, which adds the "Cloud GPUs" title). `cloud_repr` is
/// `str(cloud_obj)` for the not-found line.
pub fn report(
    query: &Query,
    catalogs: &[&CloudGpuRows],
    section_titles: bool,
) -> Result<Report, GpusError> {
    let mut r = Report::default();
    let mut details = true;
    // Without a name the quantity tables come first; our `--all-regions`
    // without a name (and without `--all`) goes straight to the offers.
    let every_region = query.all_regions && !query.all;
    if query.accelerator.is_none() && !every_region {
        let mut counts = list_accelerator_counts(catalogs, query.region.as_deref())?;
        if section_titles {
            r.sections.push(Section::Text("\n\n".into()));
            r.sections.push(Section::CloudGpusTitle);
        }
        let mut take = |names: &[&str]| {
            names
                .iter()
                .filter_map(|n| {
                    let i = counts.iter().position(|(g, _)| g == n)?;
                    Some(counts.remove(i))
                })
                .collect::<Vec<_>>()
        };
        let common = take(&COMMON_GPUS);
        let tpus = take(&TPUS);
        if query.all {
            counts.sort_by(|a, b| a.0.cmp(&b.0));
            r.sections.push(Section::Counts {
                common,
                tpus,
                other: Some(counts),
            });
        } else {
            r.sections.push(Section::Counts {
                common,
                tpus,
                other: None,
            });
            r.sections.push(Section::Text(
                "\n\nHint: use -a/--all to see all accelerators (including non-common ones) and pricing."
                    .into(),
            ));
            details = false;
        }
    }
    if !details {
        return Ok(r);
    }
    let (name, quantity) = match &query.accelerator {
        Some((n, q)) => (Some(n.clone()), *q),
        None => (None, None),
    };
    let filter = Filter {
        name: name.clone(),
        region: query.region.clone(),
        quantity,
        case_sensitive: false,
        all_regions: query.all_regions,
    };
    let listing = list_accelerators(catalogs, &filter, true)?;
    if section_titles && !query.all {
        r.sections.push(Section::Text("\n\n".into()));
        r.sections.push(Section::CloudGpusTitle);
    }
    if listing.is_empty() {
        let qty = quantity.map_or(String::new(), |q| format!(" with requested quantity {q}"));
        let cloud = match query.cloud {
            Some(c) => format!(" on {}.", c.repr()),
            None => " in cloud catalogs.".into(),
        };
        r.sections.push(Section::Text(format!(
            "Resources '{}'{qty} not found{cloud} To show available accelerators, run: sky gpus list --all",
            name.clone().unwrap_or_else(|| "None".into())
        )));
        if let Some(n) = &name {
            r.suggestions = suggestions(n, &accelerator_names(catalogs));
        }
        return Ok(r);
    }
    let groups = listing
        .into_iter()
        .map(|(g, offers)| {
            let o = order(offers, query.sort);
            (g, o)
        })
        .collect();
    r.sections.push(Section::Offers {
        groups,
        region: !query.all,
    });
    Ok(r)
}

/// `-o json` with the realtime clouds' offers (`extra`, per cloud) merged
/// at their place in SkyPilot's cloud order.
pub fn json_listing_with(
    query: &Query,
    catalogs: &[&CloudGpuRows],
    extra: Vec<(CloudId, Listing)>,
) -> Result<Listing, GpusError> {
    let (name, quantity) = match &query.accelerator {
        Some((n, q)) => (Some(n.clone()), *q),
        None => (None, None),
    };
    let filter = Filter {
        name,
        region: query.region.clone(),
        quantity,
        case_sensitive: false,
        all_regions: query.all_regions,
    };
    let mut per_cloud: Vec<(CloudId, Listing)> = Vec::new();
    for cat in catalogs {
        per_cloud.push((cat.cloud, list_accelerators(&[*cat], &filter, true)?));
    }
    per_cloud.extend(extra);
    let rank = |c: CloudId| {
        CloudId::SKYPILOT_ALL_CLOUDS
            .iter()
            .position(|n| *n == c)
            .unwrap_or(usize::MAX)
    };
    per_cloud.sort_by_key(|(c, _)| rank(*c));
    let mut out: Listing = Vec::new();
    for (_, listing) in per_cloud {
        for (gpu, offers) in listing {
            match out.iter_mut().find(|(n, _)| *n == gpu) {
                Some((_, v)) => v.extend(offers),
                None => out.push((gpu, offers)),
            }
        }
    }
    Ok(match query.sort {
        SortBy::Cloud => out,
        sort => out.into_iter().map(|(g, o)| (g, order(o, sort))).collect(),
    })
}

/// A Kubernetes context's accelerators as `-o json` offers (SkyPilot's
/// `InstanceTypeInfo` with no instance type, CPUs or memory, priced from
/// `kubernetes.pricing`).
pub fn context_offers(context: &str, gpus: Vec<(String, Vec<(u32, f64)>)>) -> Listing {
    gpus.into_iter()
        .map(|(gpu, counts)| {
            let offers = counts
                .into_iter()
                .map(|(count, price)| Offer {
                    cloud: "Kubernetes",
                    instance_type: None,
                    accelerator_name: gpu.as_str().into(),
                    accelerator_count: f64::from(count),
                    cpu_count: Num::NULL,
                    device_memory: None,
                    memory: Num::NULL,
                    price: Num::float(price),
                    spot_price: Num::float(price),
                    region: Some(context.into()),
                })
                .collect();
            (gpu, offers)
        })
        .collect()
}

/// `-o json`: SkyPilot's `list_accelerators` answer, unsorted (the CLI
/// sorts only its tables); `--sort-by` orders each GPU's list when given.
pub fn json_listing(query: &Query, catalogs: &[&CloudGpuRows]) -> Result<Listing, GpusError> {
    let (name, quantity) = match &query.accelerator {
        Some((n, q)) => (Some(n.clone()), *q),
        None => (None, None),
    };
    let filter = Filter {
        name,
        region: query.region.clone(),
        quantity,
        case_sensitive: false,
        all_regions: query.all_regions,
    };
    let listing = list_accelerators(catalogs, &filter, true)?;
    Ok(match query.sort {
        SortBy::Cloud => listing,
        sort => listing
            .into_iter()
            .map(|(g, o)| (g, order(o, sort)))
            .collect(),
    })
}
