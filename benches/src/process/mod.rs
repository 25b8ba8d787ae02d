//! Whole-process benchmarks: the release `sky` binary, started as a child
//! process per iteration exactly as `harness run` starts it (its arguments,
//! an empty environment plus the sandbox's [`ModeEnv`](harness::sandbox::ModeEnv)),
//! against mocks; and the process floor those are judged against. Process
//! start-up, argument parsing, state-folder I/O and catalog images are all
//! inside the time, which the in-process `launch/*` group cannot see.
//!
//! Each `sky` row ([`ProcessConfig`]) is a harness [`Scenario`] text, and
//! its latency floor is the harness's [`floor`](harness::floor::floor)
//! model on what the mocks recorded during one verification launch, as for
//! the in-process group. Every row also records its peak RSS (the median of
//! a few untimed runs under GNU `time`, [`crate::rss`]), and the rows without a mocked
//! latency name a reference the gate judges their median against
//! ([`ProcessConfig::ratio_to`]): the process floor, or for the ×10 AWS
//! catalog the same launch on the ×1 catalog. The 64-context row, whose
//! time is mostly the mocks', names the bare client on the same mocks
//! ([`kube_floor`]) and is also judged above its latency floor.
//!
//! | id | per iteration (untimed) | what it shows |
//! |---|---|---|
//! | `process/floor/hello-world` | nothing | the floor: a hello-world Rust binary (`rustc -O`), spawned the same way |
//! | `process/warm/7-clouds` | nothing | a launch as users repeat it: identity cached, catalog images current |
//! | `process/warm/22-catalog-clouds` | nothing | the same with every catalog cloud declared |
//! | `process/warm/25-clouds` | nothing | every cloud `sky` knows declared, one Kubernetes context |
//! | `process/first-launch/one-catalog-changed` | bump `aws/vms.csv`'s mtime | one catalog re-parsed (a refreshed download) |
//! | `process/first-launch/all-7-changed` | delete `catalog-index/` | every catalog parsed, identity still cached |
//! | `process/cold-identity/sts-1000ms` | nothing (`--refresh`) | identity checked upstream, judged above the 1 s floor |
//! | `process/floor/kube-64-bare` | nothing | the bare-client floor of the next row: `kube-floor` lists the 64 contexts' nodes on the same mocks |
//! | `process/kubernetes/64-contexts-50ms` | nothing (`--refresh`) | 64 contexts listed concurrently, judged above the 50 ms floor and as a ratio to the bare client |
//! | `process/gpus-list/all` | nothing | `sky gpus list --all`, 7 clouds, bundled catalogs, listing images current |
//! | `process/check/7-clouds-warm` | nothing | `sky check`, 7 clouds, identity cached; storage checks against mocks |
//! | `process/aws-catalog/warm-x1` | nothing | AWS alone from a catalog folder, images current |
//! | `process/aws-catalog/warm-x10` | nothing | the same with ten times the rows ([`catalog::write_x10`]) |
//! | `process/aws-catalog/first-launch-x10` | delete `catalog-index/` | the ×10 catalog parsed and stored |
//! | `process/warm/22-catalog-clouds-h100` | nothing | `sky launch --dryrun --gpus H100`, every catalog cloud, warm: the reference of the next row |
//! | `process/offers/22-catalog-clouds-h100` | nothing | `sky offers --gpus H100` on the same clouds: every offer in every region, judged as a ratio to the launch above (goal: within 2×) |
//!
//! In `25-clouds` every cloud of [`CloudId::ALL`] is in the scenario's
//! `clouds` (declared through `SKY_ENABLED_CLOUDS`), but the harness sandbox
//! can give fake credentials only to AWS (keys, STS mock), Kubernetes
//! (kubeconfig, kube mock) and the six file-based clouds of
//! [`harness::sandbox::CREDENTIAL_FILES`]; the other 17 run on being
//! declared, with no credential file, their catalogs bundled. `22-catalog-clouds`
//! declares the clouds with a `vms.csv` catalog (no Kubernetes, SSH or Slurm).

mod bench;
pub mod catalog;
pub mod floor;
pub mod kube_floor;

use anyhow::Context;
use harness::engine::Mode;
use harness::scenario::Scenario;
use planner::cloud::CloudId;

pub use bench::{ProcessBench, release_sky};

use crate::budget::Budget;
use crate::launch::seed7_scenario_text;

/// The command that builds the binary these benchmarks run.
pub const BUILD_SKY: &str = "cargo build --release -p optimizer --bin sky";

/// The id of the process floor row, the reference of most ratios.
pub const FLOOR_ID: &str = "process/floor/hello-world";

/// One row of the `process` group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessConfig {
    /// `process/floor/hello-world`: a hello-world Rust binary built with
    /// `rustc -O`, the physical floor of any CLI on the machine.
    Floor,
    /// `process/warm/7-clouds`: the seven catalog clouds, bundled catalogs,
    /// identity and catalog images from an earlier launch.
    Warm7,
    /// `process/warm/22-catalog-clouds`: every cloud with a `vms.csv`
    /// catalog declared, bundled catalogs, warm.
    Warm22,
    /// `process/warm/25-clouds`: every cloud declared, one Kubernetes context.
    Warm25,
    /// `process/first-launch/one-catalog-changed`: the seven clouds from a
    /// catalog folder whose `aws/vms.csv` changes before every launch.
    OneCatalogChanged,
    /// `process/first-launch/all-7-changed`: the seven clouds, bundled, with
    /// no catalog image left before every launch.
    All7Changed,
    /// `process/cold-identity/sts-1000ms`: the seed-7-clouds cloud set,
    /// `--refresh`, STS answering after 1 s.
    ColdIdentity,
    /// `process/floor/kube-64-bare`: the bare client `kube-floor` on
    /// [`ProcessConfig::Kube64`]'s sandbox and mocks (the reference of its ratio).
    KubeFloor,
    /// `process/kubernetes/64-contexts-50ms`: Kubernetes alone, 64 contexts,
    /// `--refresh`, each request answered after 50 ms.
    Kube64,
    /// `process/gpus-list/all`: `sky gpus list --all`, the seven clouds,
    /// bundled catalogs, listing images from an earlier run.
    GpusListAll,
    /// `process/check/7-clouds-warm`: `sky check` with the seven clouds'
    /// credentials, identity cached by an earlier check.
    Check7Warm,
    /// `process/aws-catalog/warm-x1`: AWS alone, `--catalog-dir` with the
    /// fixture catalog, warm.
    AwsX1Warm,
    /// `process/aws-catalog/warm-x10`: the same with ten times the rows.
    AwsX10Warm,
    /// `process/aws-catalog/first-launch-x10`: the ×10 catalog with no
    /// image left before every launch.
    AwsX10First,
    /// `process/warm/22-catalog-clouds-h100`: `sky launch --dryrun --gpus
    /// H100`, every catalog cloud, warm (the reference of [`ProcessConfig::Offers22`]).
    Warm22H100,
    /// `process/offers/22-catalog-clouds-h100`: `sky offers --gpus H100`,
    /// the same clouds, warm.
    Offers22,
}

/// What a row runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Invocation {
    /// The hello-world floor binary.
    Floor,
    /// The bare Kubernetes client `kube-floor` ([`kube_floor`]).
    KubeFloor,
    /// `sky launch --dryrun …` through the harness's process launcher.
    Launch,
    /// `sky gpus list --all`.
    GpusListAll,
    /// `sky check`.
    Check,
    /// `sky offers …` with the scenario's request.
    Offers,
}

impl ProcessConfig {
    /// Every row, in report order (the floor first).
    pub const ALL: [ProcessConfig; 16] = [
        ProcessConfig::Floor,
        ProcessConfig::Warm7,
        ProcessConfig::Warm22,
        ProcessConfig::Warm25,
        ProcessConfig::OneCatalogChanged,
        ProcessConfig::All7Changed,
        ProcessConfig::ColdIdentity,
        // Measured just before the row judged against it, so the machine's
        // load drifts as little as it can between the two.
        ProcessConfig::KubeFloor,
        ProcessConfig::Kube64,
        ProcessConfig::GpusListAll,
        ProcessConfig::Check7Warm,
        ProcessConfig::AwsX1Warm,
        ProcessConfig::AwsX10Warm,
        ProcessConfig::AwsX10First,
        ProcessConfig::Warm22H100,
        ProcessConfig::Offers22,
    ];

    /// criterion function name (the id's middle part).
    pub fn function(self) -> &'static str {
        match self {
            ProcessConfig::Floor | ProcessConfig::KubeFloor => "floor",
            ProcessConfig::Warm7
            | ProcessConfig::Warm22
            | ProcessConfig::Warm25
            | ProcessConfig::Warm22H100 => "warm",
            ProcessConfig::Offers22 => "offers",
            ProcessConfig::OneCatalogChanged | ProcessConfig::All7Changed => "first-launch",
            ProcessConfig::ColdIdentity => "cold-identity",
            ProcessConfig::Kube64 => "kubernetes",
            ProcessConfig::GpusListAll => "gpus-list",
            ProcessConfig::Check7Warm => "check",
            ProcessConfig::AwsX1Warm | ProcessConfig::AwsX10Warm | ProcessConfig::AwsX10First => {
                "aws-catalog"
            }
        }
    }

    /// criterion parameter (the id's last part).
    pub fn parameter(self) -> &'static str {
        match self {
            ProcessConfig::Floor => "hello-world",
            ProcessConfig::KubeFloor => "kube-64-bare",
            ProcessConfig::Warm7 => "7-clouds",
            ProcessConfig::Warm22 => "22-catalog-clouds",
            ProcessConfig::Warm25 => "25-clouds",
            ProcessConfig::OneCatalogChanged => "one-catalog-changed",
            ProcessConfig::All7Changed => "all-7-changed",
            ProcessConfig::ColdIdentity => "sts-1000ms",
            ProcessConfig::Kube64 => "64-contexts-50ms",
            ProcessConfig::GpusListAll => "all",
            ProcessConfig::Check7Warm => "7-clouds-warm",
            ProcessConfig::AwsX1Warm => "warm-x1",
            ProcessConfig::AwsX10Warm => "warm-x10",
            ProcessConfig::AwsX10First => "first-launch-x10",
            ProcessConfig::Warm22H100 | ProcessConfig::Offers22 => "22-catalog-clouds-h100",
        }
    }

    /// The full benchmark id, `process/<function>/<parameter>`.
    pub fn id(self) -> String {
        format!("process/{}/{}", self.function(), self.parameter())
    }

    /// What the row runs.
    pub fn invocation(self) -> Invocation {
        match self {
            ProcessConfig::Floor => Invocation::Floor,
            ProcessConfig::KubeFloor => Invocation::KubeFloor,
            ProcessConfig::GpusListAll => Invocation::GpusListAll,
            ProcessConfig::Check7Warm => Invocation::Check,
            ProcessConfig::Offers22 => Invocation::Offers,
            _ => Invocation::Launch,
        }
    }

    /// The benchmark whose median this row's is also judged against (a
    /// ratio row in the gate): the process floor for every row without a
    /// mocked latency, the ×1 catalog for the ×10 warm launch, the bare
    /// client on the same mocks for the 64 contexts (issue 29: that row is
    /// "measured against a bare HTTP client on the same mocks"); none for
    /// the floors themselves and for the cold identity, judged above its
    /// 1 s latency floor alone.
    pub fn ratio_to(self) -> Option<String> {
        match self {
            ProcessConfig::Floor | ProcessConfig::KubeFloor | ProcessConfig::ColdIdentity => None,
            ProcessConfig::Kube64 => Some(ProcessConfig::KubeFloor.id()),
            ProcessConfig::AwsX10Warm => Some(ProcessConfig::AwsX1Warm.id()),
            ProcessConfig::Offers22 => Some(ProcessConfig::Warm22H100.id()),
            _ => Some(FLOOR_ID.to_string()),
        }
    }

    /// Whether the gate judges this row's samples in a ratio: it names a
    /// reference, or it is one. Both sides of a ratio get their full
    /// [`Budget`] (a reference measured briefly would widen the ratio's
    /// interval as much as the row itself).
    pub fn in_ratio(self) -> bool {
        self.ratio_to().is_some()
            || ProcessConfig::ALL
                .iter()
                .any(|c| c.ratio_to().is_some_and(|to| to == self.id()))
    }

    /// How long criterion measures the row (each iteration is a whole process).
    pub fn budget(self) -> Budget {
        match self {
            // ~1 s per iteration: one iteration per sample.
            ProcessConfig::ColdIdentity => Budget::new(10, 500, 10_000),
            // ~60-70 ms: one context's node list (50 ms) plus the process.
            ProcessConfig::KubeFloor | ProcessConfig::Kube64 => Budget::new(20, 500, 4000),
            // ~100 ms: 268k rows parsed and stored.
            ProcessConfig::AwsX10First => Budget::new(10, 500, 3000),
            _ => Budget::new(20, 500, 2000),
        }
    }

    /// The harness mode the launches run in: [`Mode::Concurrent`] passes
    /// `--refresh` (every check upstream), [`Mode::Warm`] does not. The
    /// bare client takes no arguments; its row shares the 64 contexts' mode.
    pub fn mode(self) -> Mode {
        match self {
            ProcessConfig::ColdIdentity | ProcessConfig::KubeFloor | ProcessConfig::Kube64 => {
                Mode::Concurrent
            }
            _ => Mode::Warm,
        }
    }

    /// The AWS catalog folder the row launches on (`--catalog-dir`), if any.
    pub fn catalog(self) -> Option<catalog::Folder> {
        match self {
            ProcessConfig::OneCatalogChanged => Some(catalog::Folder::Fixtures),
            ProcessConfig::AwsX1Warm => Some(catalog::Folder::AwsOnly { times: 1 }),
            ProcessConfig::AwsX10Warm | ProcessConfig::AwsX10First => {
                Some(catalog::Folder::AwsOnly { times: 10 })
            }
            _ => None,
        }
    }

    /// The row as a `harness.toml` (`harness run` accepts the same text;
    /// [`ProcessConfig::Kube64`]'s is `fixtures/scenarios/64-contexts-50ms`).
    /// A catalog folder is not in the text: it is a temporary folder made at
    /// setup. The floor row's scenario is the seven clouds' (it only lends
    /// the floor binary the same environment); the bare client's is the 64
    /// contexts' (the same mocks and kubeconfig).
    pub fn scenario_text(self) -> String {
        let id = self.id();
        match self {
            ProcessConfig::Floor
            | ProcessConfig::Warm7
            | ProcessConfig::OneCatalogChanged
            | ProcessConfig::All7Changed
            | ProcessConfig::GpusListAll => seven_clouds_text(&id),
            ProcessConfig::Check7Warm => check_text(&id),
            ProcessConfig::Warm22 => catalog_clouds_text(&id, "H100:8"),
            ProcessConfig::Warm22H100 | ProcessConfig::Offers22 => catalog_clouds_text(&id, "H100"),
            ProcessConfig::Warm25 => all_clouds_text(&id),
            ProcessConfig::ColdIdentity => seed7_scenario_text(
                &format!(
                    "criterion process benchmark, {id}: --gpus H100:8, --refresh, STS 1000 ms, Kubernetes 0 ms"
                ),
                1000,
                0,
            ),
            ProcessConfig::KubeFloor | ProcessConfig::Kube64 => kube64_text(),
            ProcessConfig::AwsX1Warm | ProcessConfig::AwsX10Warm | ProcessConfig::AwsX10First => {
                aws_only_text(&id)
            }
        }
    }

    /// The row, parsed and checked like a scenario file.
    pub fn scenario(self) -> anyhow::Result<Scenario> {
        let name = format!("bench-{}-{}", self.function(), self.parameter());
        let path = format!("benches/process/{name}/harness.toml");
        Scenario::parse(&name, path.as_ref(), &self.scenario_text())
            .with_context(|| format!("the {} configuration", self.id()))
    }
}

/// `{ latency = { kind = "fixed", ms = N } }`.
fn fixed(ms: u64) -> String {
    format!("{{ latency = {{ kind = \"fixed\", ms = {ms} }} }}")
}

/// `"a", "b"`.
fn quoted<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The seven catalog clouds, all with fake credentials, STS at 0 ms.
fn seven_clouds_text(id: &str) -> String {
    format!(
        r#"description = "criterion process benchmark, {id}: --gpus H100:8, the 7 catalog clouds, STS 0 ms"
clouds = [{clouds}]

[request]
gpus = "H100:8"

[mocks]
sts.get_caller_identity = {sts}
"#,
        clouds = quoted(crate::CATALOG_CLOUDS.iter().map(|c| c.name())),
        sts = fixed(0),
    )
}

/// The seven catalog clouds for `sky check`: STS, and GCP's token and
/// storage endpoints, at 0 ms (S3's `ListBuckets` mock is started beside
/// the set: a scenario has none).
fn check_text(id: &str) -> String {
    format!(
        r#"description = "criterion process benchmark, {id}: sky check, the 7 catalog clouds, STS, S3 and GCP at 0 ms"
clouds = [{clouds}]

[request]
gpus = "H100:8"

[mocks]
sts.get_caller_identity = {zero}

[mocks.gcp]
token = {zero}
test_iam_permissions = {zero}
services = {zero}
"#,
        clouds = quoted(crate::CATALOG_CLOUDS.iter().map(|c| c.name())),
        zero = fixed(0),
    )
}

/// AWS alone (its catalog from the row's folder), STS at 0 ms.
fn aws_only_text(id: &str) -> String {
    format!(
        r#"description = "criterion process benchmark, {id}: --gpus H100:8, AWS alone from a catalog folder, STS 0 ms"
clouds = ["aws"]

[request]
gpus = "H100:8"

[mocks]
sts.get_caller_identity = {sts}
"#,
        sts = fixed(0),
    )
}

/// The clouds the harness sandbox can give fake credentials.
const CREDENTIALED: [&str; 8] = [
    "aws",
    "gcp",
    "azure",
    "lambda",
    "runpod",
    "paperspace",
    "cudo",
    "kubernetes",
];

/// Every cloud with a `vms.csv` catalog.
pub fn catalog_clouds() -> impl Iterator<Item = CloudId> {
    CloudId::ALL.into_iter().filter(|c| c.has_csv_catalog())
}

/// Every catalog cloud declared; credentials where the sandbox has them;
/// STS at 0 ms; `--gpus <gpus>`.
fn catalog_clouds_text(id: &str, gpus: &str) -> String {
    format!(
        r#"description = "criterion process benchmark, {id}: --gpus {gpus}, every catalog cloud declared, STS 0 ms"
clouds = [{clouds}]
fake_credentials = [{credentialed}]

[request]
gpus = "{gpus}"

[mocks]
sts.get_caller_identity = {zero}
"#,
        clouds = quoted(catalog_clouds().map(CloudId::name)),
        credentialed = quoted(CREDENTIALED.into_iter().filter(|c| *c != "kubernetes")),
        zero = fixed(0),
    )
}

/// Every cloud of [`CloudId::ALL`] declared; credentials where the sandbox
/// has them; one Kubernetes context (4 H100×8 nodes) at 0 ms.
fn all_clouds_text(id: &str) -> String {
    format!(
        r#"description = "criterion process benchmark, {id}: --gpus H100:8, all 25 clouds declared, STS and Kubernetes 0 ms"
clouds = [{clouds}]
fake_credentials = [{credentialed}]

[request]
gpus = "H100:8"

[mocks]
sts.get_caller_identity = {zero}

[mocks.kube]
contexts = 1
version = {zero}
nodes = {zero}
pods = {zero}
node_pools = [{{ count = 4, gpu = {{ accelerator = "H100", count = 8, label = "gfd" }} }}]
"#,
        clouds = quoted(CloudId::ALL.iter().map(|c| c.name())),
        credentialed = quoted(CREDENTIALED.into_iter()),
        zero = fixed(0),
    )
}

/// 64 allowed contexts whose version, node and pod lists answer after 50 ms.
fn kube64_text() -> String {
    format!(
        r#"# 64 Kubernetes contexts, all allowed, every request answered after a fixed
# 50 ms: the whole-process criterion row process/kubernetes/64-contexts-50ms
# (benches/src/process.rs builds the same text; a test keeps them equal).
description = "64 Kubernetes contexts (all allowed), version, node and pod lists fixed 50 ms, 4 H100x8 nodes each; --gpus H100:8"
clouds = ["kubernetes"]
sky_config = """
kubernetes:
  allowed_contexts: all
"""
notes = [
    "Contexts are listed concurrently inside the Kubernetes check, so the floor is one context's lane of requests, not 64 of them.",
    "Nodes have 192 CPUs and 1024 GiB so that an H100:8 pod fits (the mock's default 8 CPUs / 32 GiB do not).",
]

[request]
gpus = "H100:8"

[mocks]
seed = 64

[mocks.kube]
contexts = 64
version = {lat}
nodes = {lat}
pods = {lat}
node_pools = [{{ count = 4, cpu = "192", memory = "1024Gi", gpu = {{ accelerator = "H100", count = 8, label = "gfd" }} }}]
"#,
        lat = fixed(50),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configurations_are_valid_scenarios() {
        for config in ProcessConfig::ALL {
            let s = config.scenario().unwrap_or_else(|e| panic!("{e:#}"));
            let gpus = match config {
                ProcessConfig::Warm22H100 | ProcessConfig::Offers22 => "H100",
                _ => "H100:8",
            };
            assert_eq!(s.file.request.gpus.as_deref(), Some(gpus), "{config:?}");
            let expected_clouds = match config {
                ProcessConfig::Warm25 => CloudId::ALL.len(),
                ProcessConfig::Warm22 | ProcessConfig::Warm22H100 | ProcessConfig::Offers22 => 22,
                ProcessConfig::KubeFloor | ProcessConfig::Kube64 => 1,
                ProcessConfig::AwsX1Warm
                | ProcessConfig::AwsX10Warm
                | ProcessConfig::AwsX10First => 1,
                _ => 7,
            };
            assert_eq!(s.clouds.len(), expected_clouds, "{config:?}");
            if s.clouds.contains(&CloudId::Aws) {
                assert!(s.fake_credentials.contains(&CloudId::Aws), "{config:?}");
            }
        }
        assert_eq!(
            ProcessConfig::ALL.map(ProcessConfig::id),
            [
                "process/floor/hello-world",
                "process/warm/7-clouds",
                "process/warm/22-catalog-clouds",
                "process/warm/25-clouds",
                "process/first-launch/one-catalog-changed",
                "process/first-launch/all-7-changed",
                "process/cold-identity/sts-1000ms",
                "process/floor/kube-64-bare",
                "process/kubernetes/64-contexts-50ms",
                "process/gpus-list/all",
                "process/check/7-clouds-warm",
                "process/aws-catalog/warm-x1",
                "process/aws-catalog/warm-x10",
                "process/aws-catalog/first-launch-x10",
                "process/warm/22-catalog-clouds-h100",
                "process/offers/22-catalog-clouds-h100",
            ]
        );
        // The offers row and its reference run the same request on the
        // same clouds.
        assert_eq!(
            ProcessConfig::Offers22
                .scenario_text()
                .replace("offers/", "warm/"),
            ProcessConfig::Warm22H100.scenario_text()
        );
        assert_eq!(ProcessConfig::Floor.id(), FLOOR_ID);
    }

    #[test]
    fn ratios_name_rows_of_the_group() {
        let ids: Vec<String> = ProcessConfig::ALL.map(ProcessConfig::id).to_vec();
        for config in ProcessConfig::ALL {
            if let Some(to) = config.ratio_to() {
                assert!(ids.contains(&to), "{config:?} → {to}");
                assert_ne!(to, config.id());
            }
            // A row judged above a mocked latency is a ratio only to a
            // reference on the same mocks: its wall time is mostly theirs.
            let scenario = config.scenario().unwrap_or_else(|e| panic!("{e:#}"));
            if scenario.file.mocks.kube.is_some()
                && config.mode() == Mode::Concurrent
                && let Some(to) = config.ratio_to()
            {
                let reference = ProcessConfig::ALL
                    .into_iter()
                    .find(|c| c.id() == to)
                    .unwrap_or_else(|| panic!("{to}"));
                assert_eq!(
                    reference.scenario_text(),
                    config.scenario_text(),
                    "{config:?}"
                );
            }
        }
        assert_eq!(
            ProcessConfig::AwsX10Warm.ratio_to().as_deref(),
            Some("process/aws-catalog/warm-x1")
        );
        assert_eq!(
            ProcessConfig::Kube64.ratio_to().as_deref(),
            Some("process/floor/kube-64-bare")
        );
        assert_eq!(ProcessConfig::ColdIdentity.ratio_to(), None);
        // Both ends of a ratio are measured in full; the cold identity is in none.
        for config in [
            ProcessConfig::Floor,
            ProcessConfig::KubeFloor,
            ProcessConfig::Kube64,
            ProcessConfig::AwsX1Warm,
        ] {
            assert!(config.in_ratio(), "{config:?}");
        }
        assert!(!ProcessConfig::ColdIdentity.in_ratio());
    }

    #[test]
    fn the_64_contexts_ratio_has_its_own_threshold() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("thresholds.toml");
        let t = crate::gate::Thresholds::load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.limits(&ProcessConfig::Kube64.id()).ratio, 0.10);
        assert!(t.limits(&ProcessConfig::Kube64.id()).time_advisory);
        assert_eq!(t.limits(&ProcessConfig::Warm7.id()).ratio, 0.15);
    }

    #[test]
    fn twenty_two_catalog_clouds() {
        assert_eq!(catalog_clouds().count(), 22);
        let s = ProcessConfig::Warm22
            .scenario()
            .unwrap_or_else(|e| panic!("{e:#}"));
        assert!(!s.clouds.contains(&CloudId::Kubernetes));
        assert!(s.fake_credentials.contains(&CloudId::Gcp));
    }

    #[test]
    fn kube64_fixture_is_the_bench_scenario() {
        let path = mocks::fixtures_dir().join("scenarios/64-contexts-50ms/harness.toml");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(text, ProcessConfig::Kube64.scenario_text());
        // The bare client runs on the very same mocks and kubeconfig.
        assert_eq!(text, ProcessConfig::KubeFloor.scenario_text());
        let s = ProcessConfig::KubeFloor
            .scenario()
            .unwrap_or_else(|e| panic!("{e:#}"));
        let kube = s
            .file
            .mocks
            .kube
            .as_ref()
            .unwrap_or_else(|| panic!("no kube mocks"));
        assert_eq!(kube.contexts, kube_floor::CONTEXTS);
        assert!(s.fake_credentials.contains(&CloudId::Kubernetes));
        assert_eq!(ProcessConfig::KubeFloor.invocation(), Invocation::KubeFloor);
    }

    #[test]
    fn cold_identity_is_seed7_with_kubernetes_at_zero() {
        let s = ProcessConfig::ColdIdentity.scenario().unwrap();
        assert_eq!(
            s.enabled_clouds_env(),
            "aws,azure,cudo,gcp,kubernetes,paperspace,runpod"
        );
        assert_eq!(s.fake_credentials, [CloudId::Aws, CloudId::Kubernetes]);
    }
}
