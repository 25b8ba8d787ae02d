//! The differential test of [`rows_read`](super::rows_read): every request
//! of `fixtures/selection/requests.txt`, every task YAML under
//! `fixtures/scenarios/`, and every accelerator name of every bundled
//! catalog (also misspelt and in other counts) is planned twice — once
//! against the whole of every bundled catalog (`RowSelection::All`), once
//! against the rows the request selects ([`ParsedTask::catalog_needs`],
//! decoded from each catalog's image as a launch decodes them) — and
//! validation, the optimizer's answer (tables, hints, fuzzy lists, logs),
//! the offers of every market and the explanation must be identical. It
//! runs over several worlds: every catalog cloud enabled; each cloud alone
//! (its own errors and did-you-mean lists); OCI with subscribed regions,
//! Nebius with a tenant's prices and Vast with `datacenter_only`.
//!
//! The test reads its fixtures from disk, which the pure core's code may not.
#![allow(clippy::disallowed_methods)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::catalog::selection::RowSelection;
use crate::catalog::{
    AcceleratorTable, Catalog, CatalogWarning, CloudCatalog, GpuMetadata, parse_gpu_metadata,
};
use crate::check::{CloudFacts, NebiusFacts, NebiusPreset, OciFacts};
use crate::cloud::CloudId;
use crate::launch::{ParsedTask, TaskSource, parse_task};
use crate::offers::Market;
use crate::resources::ImageTags;
use crate::task::Overrides;
use crate::world::World;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

/// One catalog cloud's file: parsed whole, and its image.
struct Bundled {
    cloud: CloudId,
    whole: CloudCatalog,
    image: Vec<u8>,
}

fn bundled() -> (Vec<Bundled>, AcceleratorTable, Vec<GpuMetadata>) {
    let dir = fixtures().join("catalogs");
    let mut out = Vec::new();
    for cloud in CloudId::ALL {
        let Ok(csv) = std::fs::read(dir.join(cloud.name()).join("vms.csv")) else {
            continue;
        };
        let (whole, warnings): (CloudCatalog, Vec<CatalogWarning>) =
            CloudCatalog::from_bytes(cloud, &csv, "vms.csv").unwrap();
        let image = whole.to_image(&warnings);
        out.push(Bundled {
            cloud,
            whole,
            image,
        });
    }
    let read = |f: &str| std::fs::read(dir.join("common").join(f)).unwrap();
    let accelerators = AcceleratorTable::from_reader(&read("accelerators.csv")[..], "a").unwrap();
    let metadata = parse_gpu_metadata(&read("metadata.csv")[..], "m").unwrap();
    (out, accelerators, metadata)
}

/// A world to plan in: which clouds are enabled, the config, what the
/// checks learnt (applied after the rows are decoded, as `assemble` does).
struct Setting {
    name: String,
    enabled: Vec<CloudId>,
    config: &'static str,
    facts: Vec<CloudFacts>,
}

fn settings(catalogs: &[Bundled]) -> Vec<Setting> {
    let all: Vec<CloudId> = catalogs.iter().map(|b| b.cloud).collect();
    let mut out = vec![Setting {
        name: "every catalog cloud".into(),
        enabled: all.clone(),
        config: "",
        facts: Vec::new(),
    }];
    for &cloud in &all {
        out.push(Setting {
            name: format!("{} alone", cloud.name()),
            enabled: vec![cloud],
            config: "",
            facts: Vec::new(),
        });
    }
    let preset =
        |platform: &str, preset: &str, gpus, vcpus, memory_gib, price: &str| NebiusPreset {
            region: "eu-north1".into(),
            platform: platform.into(),
            preset: preset.into(),
            gpus,
            vcpus,
            memory_gib,
            gpu_memory_gb: if gpus > 0 { 80 } else { 0 },
            price: price.into(),
            spot_price: Some("0.5".into()),
        };
    out.push(Setting {
        name: "OCI subscribed, Nebius tenant prices, Vast datacenters".into(),
        enabled: vec![CloudId::Oci, CloudId::Nebius, CloudId::Vast, CloudId::Aws],
        config: "vast:\n  datacenter_only: true\n",
        facts: vec![
            CloudFacts::Oci(OciFacts {
                subscribed_regions: vec!["us-ashburn-1".into(), "eu-frankfurt-1".into()],
                unavailable: None,
            }),
            CloudFacts::Nebius(NebiusFacts {
                tenant_id: Some("tenant-e00test".into()),
                presets: Some(vec![
                    preset("gpu-h100-sxm", "8gpu-128vcpu-1600gb", 8, 128, 1600, "17.5"),
                    preset("gpu-h100-sxm", "1gpu-16vcpu-200gb", 1, 16, 200, "2.1"),
                    preset("cpu-d3", "4vcpu-16gb", 0, 4, 16, "0.09"),
                ]),
                fallback: None,
            }),
        ],
    });
    out
}

/// The worlds of one setting: whole catalogs, and a cache of decoded
/// selections (requests share them).
struct Worlds<'a> {
    catalogs: &'a [Bundled],
    setting: &'a Setting,
    accelerators: &'a AcceleratorTable,
    metadata: &'a [GpuMetadata],
    whole: World,
    selected: HashMap<(CloudId, String), CloudCatalog>,
}

impl<'a> Worlds<'a> {
    fn new(
        catalogs: &'a [Bundled],
        setting: &'a Setting,
        accelerators: &'a AcceleratorTable,
        metadata: &'a [GpuMetadata],
    ) -> Self {
        let mut w = Worlds {
            catalogs,
            setting,
            accelerators,
            metadata,
            whole: world_of(Catalog::new(), setting),
            selected: HashMap::new(),
        };
        w.whole = w.build(|b| b.whole.clone());
        w
    }

    fn build(&self, mut catalog_of: impl FnMut(&Bundled) -> CloudCatalog) -> World {
        let mut catalog = Catalog::new();
        catalog.accelerators = self.accelerators.clone();
        catalog.gpu_metadata = self.metadata.to_vec();
        for b in self.catalogs {
            if self.setting.enabled.contains(&b.cloud) {
                catalog.insert(catalog_of(b));
            }
        }
        let mut world = world_of(catalog, self.setting);
        for facts in &self.setting.facts {
            world.apply_cloud_facts(facts).unwrap();
        }
        world
    }

    /// The world of `parsed`'s selected rows, and how many rows each cloud decoded.
    fn narrowed(&mut self, parsed: &ParsedTask) -> (World, Vec<(CloudId, usize)>) {
        let needs = parsed.catalog_needs_given(&CloudId::ALL, self.accelerators);
        let mut counts = Vec::new();
        for b in self.catalogs {
            let selection = needs.for_cloud(b.cloud);
            let key = (b.cloud, format!("{selection:?}"));
            let cat = self.selected.entry(key).or_insert_with(|| {
                if selection == RowSelection::All {
                    return b.whole.clone();
                }
                CloudCatalog::from_image_selected(b.cloud, &b.image, "vms.csv", &selection)
                    .unwrap()
                    .0
            });
            counts.push((b.cloud, cat.rows.len()));
        }
        let selected = &self.selected;
        let world = self.build(|b| {
            let selection = needs.for_cloud(b.cloud);
            selected[&(b.cloud, format!("{selection:?}"))].clone()
        });
        (world, counts)
    }
}

fn world_of(catalog: Catalog, setting: &Setting) -> World {
    World {
        catalog,
        enabled: setting.enabled.clone(),
        kube_contexts: Vec::new(),
        kube_pricing: Default::default(),
        reservation_clouds: Vec::new(),
        sky_config: crate::config::parse_sky_config(setting.config, "config.yaml").unwrap(),
        ssh: Default::default(),
        slurm: Default::default(),
    }
}

/// Everything the planning half answers for a request, as text.
fn answers(world: &World, source: &TaskSource, overrides: &Overrides) -> String {
    let parsed = parse_task(source, overrides, &world.catalog.gpu_metadata);
    let (mut dag, notices) = match parsed.parsed {
        Ok(ok) => ok,
        Err(e) => return format!("parse: {e:?}"),
    };
    let mut out = format!("notices: {notices:?}\n");
    if let Err(e) = crate::validate::validate_dag_with(world, &ImageTags::none(), &mut dag) {
        out.push_str(&format!("validation: {e:?}\n"));
        return out;
    }
    let optimized = crate::optimize::optimize(world, &dag);
    out.push_str(&format!("dag: {dag:?}\noptimized: {optimized:?}\n"));
    for market in [Market::AsRequested, Market::Spot, Market::OnDemand] {
        let offers = crate::offers::enumerate(world, &dag, market);
        out.push_str(&format!("offers {market:?}: {offers:?}\n"));
    }
    let explanation =
        crate::explain::explain(world, &[], Some(&dag), optimized.result.as_ref().ok());
    out.push_str(&format!("explanation: {explanation:?}\n"));
    out
}

/// A request line of `requests.txt`: `--flag value` pairs (`--use-spot`
/// alone), as `sky launch` takes them.
fn overrides_of(line: &str) -> Overrides {
    let mut o = Overrides::default();
    let mut words = line.split_whitespace();
    while let Some(flag) = words.next() {
        if flag == "--use-spot" {
            o.use_spot = Some(true);
            continue;
        }
        let value = words
            .next()
            .unwrap_or_else(|| panic!("{line}: {flag} needs a value"));
        let v = Some(value.to_string());
        match flag {
            "--gpus" => o.gpus = v,
            "--cpus" => o.cpus = v,
            "--memory" => o.memory = v,
            "--instance-type" => o.instance_type = v,
            "--infra" => o.infra = v,
            "--cloud" => o.cloud = v,
            "--region" => o.region = v,
            "--zone" => o.zone = v,
            "--disk-size" => o.disk_size = value.parse().ok(),
            "--disk-tier" => o.disk_tier = v,
            "--network-tier" => o.network_tier = v,
            "--local-disk" => o.local_disk = v,
            "--num-nodes" => o.num_nodes = value.parse().ok(),
            "--image-id" => o.image_id = v,
            "--ports" => o.ports.push(value.to_string()),
            other => panic!("{line}: unknown flag {other}"),
        }
    }
    o
}

/// The requests: the listed ones, the scenarios' task files, and every
/// accelerator name of every catalog (exact, misspelt, lower-cased; one,
/// eight and an odd count).
fn requests(catalogs: &[Bundled]) -> Vec<(String, TaskSource, Overrides)> {
    let mut out = Vec::new();
    let listed = std::fs::read_to_string(fixtures().join("selection/requests.txt")).unwrap();
    for line in listed.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        out.push((line.to_string(), TaskSource::Flags, overrides_of(line)));
    }
    let mut names: Vec<String> = catalogs
        .iter()
        .flat_map(|b| b.whole.rows.iter())
        .filter_map(|r| r.accelerator_name.as_deref().map(str::to_string))
        .collect();
    names.sort();
    names.dedup();
    for name in &names {
        let misspelt = format!("{}x", &name[..name.len() - 1]);
        for (gpu, count) in [
            (name.clone(), "1"),
            (name.clone(), "8"),
            (name.to_lowercase(), "3"),
            (misspelt, "1"),
        ] {
            let line = format!("--gpus {gpu}:{count}");
            out.push((line.clone(), TaskSource::Flags, overrides_of(&line)));
        }
    }
    let mut tasks: Vec<PathBuf> = Vec::new();
    for entry in std::fs::read_dir(fixtures().join("scenarios")).unwrap() {
        let dir = entry.unwrap().path();
        for f in std::fs::read_dir(&dir).into_iter().flatten() {
            let path = f.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".yaml") && name != "config.yaml" && !name.contains("pools") {
                tasks.push(path);
            }
        }
    }
    tasks.sort();
    for path in tasks {
        let text = std::fs::read_to_string(&path).unwrap();
        let source = TaskSource::Yaml {
            path: "task.yaml".into(),
            text,
        };
        out.push((path.display().to_string(), source, Overrides::default()));
    }
    out
}

#[test]
fn every_request_plans_the_same_on_its_selected_rows_as_on_the_whole_catalogs() {
    let (catalogs, accelerators, metadata) = bundled();
    assert!(catalogs.len() >= 20, "the bundled catalogs");
    let requests = requests(&catalogs);
    assert!(requests.len() > 500, "only {} requests", requests.len());
    let settings = settings(&catalogs);
    let mut compared = 0;
    let mut narrowed = 0;
    for setting in &settings {
        let mut worlds = Worlds::new(&catalogs, setting, &accelerators, &metadata);
        for (what, source, overrides) in &requests {
            let parsed = parse_task(source, overrides, &metadata);
            let (world, counts) = worlds.narrowed(&parsed);
            let whole = answers(&worlds.whole, source, overrides);
            let selected = answers(&world, source, overrides);
            assert!(
                whole == selected,
                "{} / {what}: the selected rows plan differently\n--- whole catalogs\n{whole}\n--- selected rows\n{selected}",
                setting.name
            );
            compared += 1;
            narrowed += counts
                .iter()
                .filter(|(c, n)| {
                    *n < catalogs
                        .iter()
                        .find(|b| b.cloud == *c)
                        .unwrap()
                        .whole
                        .rows
                        .len()
                })
                .count();
        }
    }
    assert!(compared > 10_000, "only {compared} comparisons");
    assert!(narrowed > 10_000, "only {narrowed} narrowed catalogs");
}

/// Rows decoded per cloud for the requests issue 29 measures (printed with
/// `--nocapture`; the totals are asserted loosely so a widening shows).
#[test]
fn rows_decoded_for_the_measured_requests() {
    let (catalogs, accelerators, metadata) = bundled();
    let all = &settings(&catalogs)[0];
    let mut worlds = Worlds::new(&catalogs, all, &accelerators, &metadata);
    // The measured 7-cloud launch enables the first seven clouds of the
    // default enumeration (`benches::CATALOG_CLOUDS`, which planner cannot
    // import: it sits above this crate).
    let seven = &CloudId::ALL[..7];
    let task = TaskSource::Yaml {
        path: "task.yaml".into(),
        text: "resources:\n  accelerators: {A100:8, H100:8}\n  cpus: 8+\nrun: echo\n".into(),
    };
    for (what, source, line) in [
        ("--gpus H100:8", TaskSource::Flags, "--gpus H100:8"),
        ("--cpus 4", TaskSource::Flags, "--cpus 4"),
        ("--gpus A100", TaskSource::Flags, "--gpus A100"),
        ("--gpus T4:1", TaskSource::Flags, "--gpus T4:1"),
        ("task {A100:8, H100:8}", task, ""),
    ] {
        let parsed = parse_task(&source, &overrides_of(line), &metadata);
        let (_, counts) = worlds.narrowed(&parsed);
        let in7: usize = counts
            .iter()
            .filter(|(c, _)| seven.contains(c))
            .map(|(_, n)| n)
            .sum();
        let in22: usize = counts.iter().map(|(_, n)| n).sum();
        println!("{what}: 7 clouds {in7} rows, 22 clouds {in22} rows: {counts:?}");
    }
}
