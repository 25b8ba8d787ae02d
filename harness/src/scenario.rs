//! Scenarios as data: `fixtures/scenarios/<name>/harness.toml`.
//!
//! A scenario names the clouds to enable, which of them get fake credentials,
//! the mocks to start ([`mocks::MocksSpec`], latency models and faults per
//! endpoint), the `sky launch` request and how many runs to make. The file
//! format is documented on [`ScenarioFile`]; every field is checked when the
//! file is loaded, and an error names the file and the field.

use std::path::{Path, PathBuf};
use std::time::Duration;

use planner::cloud::CloudId;
use planner::task::Overrides;
use serde::{Deserialize, Serialize};

use crate::error::{HarnessError, Result};

/// File name of a harness scenario inside its folder.
pub const SCENARIO_FILE: &str = "harness.toml";

/// The on-disk shape of `harness.toml`.
///
/// ```toml
/// description = "AWS + Kubernetes, STS slow"
/// clouds = ["aws", "kubernetes"]          # SKY_ENABLED_CLOUDS, in this order
/// # fake_credentials = ["aws"]           # default: every cloud in `clouds`
/// sky_config = "kubernetes:\n  allowed_contexts: all\n"   # ~/.sky/config.yaml
/// notes = ["why this scenario exists"]
///
/// [runs]
/// runs = 10       # measured launches per mode
/// warmup = 1      # unmeasured launches per mode first (the warm mode always gets >= 1)
///
/// [request]       # `sky launch --dryrun` flags
/// gpus = "H100:8"
/// cloud_timeout_s = 5.0
///
/// [mocks]         # mocks::MocksSpec
/// sts.get_caller_identity = { latency = { kind = "fixed", ms = 1000 } }
/// kube = { contexts = 1, nodes = { latency = { kind = "fixed", ms = 50 } } }
/// ```
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// One line shown in reports.
    pub description: String,
    /// Clouds to enable (`SKY_ENABLED_CLOUDS`), in enumeration order.
    pub clouds: Vec<String>,
    /// Clouds that get fake credentials (AWS keys in the environment, a
    /// kubeconfig pointing at the kube mocks, dummy files under a temporary
    /// HOME for the others). Default: all of `clouds`.
    #[serde(default)]
    pub fake_credentials: Option<Vec<String>>,
    /// Text of `~/.sky/config.yaml` in the temporary HOME.
    #[serde(default)]
    pub sky_config: Option<String>,
    /// Catalog folder, relative to the scenario folder, passed as
    /// `--catalog-dir` (read only); default: the catalogs built into `sky`.
    #[serde(default)]
    pub catalog_dir: Option<PathBuf>,
    /// Catalog files, relative to the scenario folder, copied into each
    /// mode's SkyPilot catalog folder (`$SKY_RUNTIME_DIR/.sky/catalogs/v8`,
    /// SkyPilot's `~/.sky/catalogs/v8`) without md5 records, as files a user
    /// placed there: neither engine downloads them, both read them where
    /// SkyPilot keeps them, and both fetch the AWS zone names
    /// (`aws/az_mappings-<hash>.csv`, left out of the copy) from the EC2 mock
    /// when it is configured. Excludes `catalog_dir` and `[mocks.catalog]`.
    #[serde(default)]
    pub catalog_folder: Option<PathBuf>,
    /// Remarks copied into the report (e.g. which endpoints are off the critical path).
    #[serde(default)]
    pub notes: Vec<String>,
    /// Run counts.
    #[serde(default)]
    pub runs: RunsSpec,
    /// The launch request.
    #[serde(default)]
    pub request: RequestSpec,
    /// The mocks to start.
    pub mocks: mocks::MocksSpec,
}

/// `[runs]` of a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunsSpec {
    /// Measured launches per mode. Default 10.
    pub runs: usize,
    /// Unmeasured launches per mode before the measured ones. Default 1.
    pub warmup: usize,
    /// Start fresh mocks before every launch of the no-cache modes. Needed for
    /// stateful faults (`fail_first` counts requests over a server's life), so
    /// every launch sees "fail, then succeed". The warm-cache mode keeps the set
    /// its warm-up filled the cache against: identity cache keys include the
    /// endpoint, and with a warm cache the endpoint is not called anyway.
    /// Default false.
    pub fresh_mocks: bool,
}

impl Default for RunsSpec {
    fn default() -> Self {
        RunsSpec {
            runs: 10,
            warmup: 1,
            fresh_mocks: false,
        }
    }
}

/// `[request]` of a scenario: the `sky launch` flags, as data.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RequestSpec {
    /// `--gpus`.
    pub gpus: Option<String>,
    /// `--cpus`.
    pub cpus: Option<String>,
    /// `--memory`.
    pub memory: Option<String>,
    /// `--infra`.
    pub infra: Option<String>,
    /// `--instance-type`.
    pub instance_type: Option<String>,
    /// `--use-spot` / `--no-use-spot`.
    pub use_spot: Option<bool>,
    /// `--num-nodes`.
    pub num_nodes: Option<u32>,
    /// `--disk-size`.
    pub disk_size: Option<u64>,
    /// `--disk-tier`.
    pub disk_tier: Option<String>,
    /// `--cloud-timeout` in seconds. Default 5 (sky's default).
    pub cloud_timeout_s: Option<f64>,
}

impl RequestSpec {
    /// The per-cloud deadline.
    pub fn cloud_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.cloud_timeout_s.unwrap_or(5.0))
    }

    /// The same flags for SkyPilot 0.14.1's `sky launch --dryrun`:
    /// [`RequestSpec::args`] without `--cloud-timeout`, which is `sky`'s
    /// (SkyPilot has no deadline per cloud).
    pub fn skypilot_args(&self) -> Vec<String> {
        let mut a = self.args();
        if let Some(i) = a.iter().position(|w| w == "--cloud-timeout") {
            a.drain(i..(i + 2).min(a.len()));
        }
        a
    }

    /// The flags after `sky launch --dryrun`.
    pub fn args(&self) -> Vec<String> {
        let mut a = Vec::new();
        let mut push = |flag: &str, v: &Option<String>| {
            if let Some(v) = v {
                a.push(flag.to_string());
                a.push(v.clone());
            }
        };
        push("--gpus", &self.gpus);
        push("--cpus", &self.cpus);
        push("--memory", &self.memory);
        push("--infra", &self.infra);
        push("--instance-type", &self.instance_type);
        push("--num-nodes", &self.num_nodes.map(|n| n.to_string()));
        push("--disk-size", &self.disk_size.map(|n| n.to_string()));
        push("--disk-tier", &self.disk_tier);
        push(
            "--cloud-timeout",
            &Some(format!("{}", self.cloud_timeout().as_secs_f64())),
        );
        match self.use_spot {
            Some(true) => a.push("--use-spot".into()),
            Some(false) => a.push("--no-use-spot".into()),
            None => {}
        }
        a
    }

    /// The same request for an in-process launch.
    pub fn overrides(&self) -> Overrides {
        Overrides {
            gpus: self.gpus.clone(),
            cpus: self.cpus.clone(),
            memory: self.memory.clone(),
            infra: self.infra.clone(),
            instance_type: self.instance_type.clone(),
            use_spot: self.use_spot,
            num_nodes: self.num_nodes,
            disk_size: self.disk_size,
            disk_tier: self.disk_tier.clone(),
            ..Overrides::default()
        }
    }
}

/// A loaded, checked scenario.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// Folder name (or the name given on the command line).
    pub name: String,
    /// The `harness.toml` it came from.
    pub path: PathBuf,
    /// The file as parsed (written back into reports).
    pub file: ScenarioFile,
    /// `clouds`, parsed.
    pub clouds: Vec<CloudId>,
    /// `fake_credentials`, parsed (default: `clouds`).
    pub fake_credentials: Vec<CloudId>,
    /// `catalog_dir`, resolved against the scenario folder.
    pub catalog_dir: Option<PathBuf>,
    /// `catalog_folder`, resolved against the scenario folder.
    pub catalog_folder: Option<PathBuf>,
}

/// The default scenarios folder: `<workspace>/fixtures/scenarios`.
pub fn default_scenarios_dir() -> PathBuf {
    mocks::fixtures_dir().join("scenarios")
}

impl Scenario {
    /// Loads `name`: a path to a `harness.toml` or to its folder, or a folder name under `scenarios_dir`.
    pub fn load(name: &str, scenarios_dir: &Path) -> Result<Scenario> {
        let as_path = Path::new(name);
        let path = if as_path.is_file() {
            as_path.to_path_buf()
        } else if as_path.join(SCENARIO_FILE).is_file() {
            as_path.join(SCENARIO_FILE)
        } else {
            scenarios_dir.join(name).join(SCENARIO_FILE)
        };
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(HarnessError::ScenarioNotFound {
                    name: name.to_string(),
                    looked: path,
                });
            }
            Err(e) => return Err(HarnessError::io(path, e)),
        };
        let display_name = path
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| name.to_string());
        Scenario::parse(&display_name, &path, &text)
    }

    /// Parses and checks the text of a scenario file; `path` labels errors and anchors `catalog_dir`.
    pub fn parse(name: &str, path: &Path, text: &str) -> Result<Scenario> {
        let file: ScenarioFile =
            toml::from_str(text).map_err(|e| HarnessError::ScenarioSyntax {
                path: path.to_path_buf(),
                message: e.to_string().trim_end().to_string(),
            })?;
        let field = |field: &str, reason: String| HarnessError::ScenarioField {
            path: path.to_path_buf(),
            field: field.to_string(),
            reason,
        };
        let parse_clouds = |key: &str, names: &[String]| -> Result<Vec<CloudId>> {
            let mut out = Vec::new();
            for n in names {
                let id: CloudId = n.parse().map_err(|e| field(key, format!("{e}")))?;
                if out.contains(&id) {
                    return Err(field(key, format!("`{n}` is listed twice")));
                }
                out.push(id);
            }
            Ok(out)
        };
        let clouds = parse_clouds("clouds", &file.clouds)?;
        if clouds.is_empty() {
            return Err(field("clouds", "must name at least one cloud".into()));
        }
        let fake_credentials = match &file.fake_credentials {
            Some(list) => parse_clouds("fake_credentials", list)?,
            None => clouds.clone(),
        };
        if let Some(c) = fake_credentials.iter().find(|c| !clouds.contains(c)) {
            return Err(field(
                "fake_credentials",
                format!("`{}` is not in `clouds`", c.name()),
            ));
        }
        // Never let a launch reach a real endpoint: a cloud that talks to the
        // network with credentials needs its mock.
        if fake_credentials.contains(&CloudId::Aws) && file.mocks.sts.is_none() {
            return Err(field(
                "mocks.sts",
                "AWS gets fake credentials, so the STS mock must be configured ([mocks.sts])"
                    .into(),
            ));
        }
        if fake_credentials.contains(&CloudId::Kubernetes) && file.mocks.kube.is_none() {
            return Err(field(
                "mocks.kube",
                "Kubernetes gets a kubeconfig, so the kube mocks must be configured ([mocks.kube])"
                    .into(),
            ));
        }
        if let Some(k) = &file.mocks.kube {
            let names = k.names().map_err(|e| field("mocks.kube", e.to_string()))?;
            if names.is_empty() && fake_credentials.contains(&CloudId::Kubernetes) {
                return Err(field(
                    "mocks.kube.contexts",
                    "must be at least 1 when Kubernetes is enabled".into(),
                ));
            }
        }
        if file.runs.runs == 0 {
            return Err(field("runs.runs", "must be at least 1".into()));
        }
        if let Some(t) = file.request.cloud_timeout_s
            && !(t.is_finite() && t > 0.0 && t <= 600.0)
        {
            return Err(field(
                "request.cloud_timeout_s",
                format!("must be a number of seconds in (0, 600], got {t}"),
            ));
        }
        let resolve = |d: &PathBuf| {
            if d.is_absolute() {
                d.clone()
            } else {
                path.parent().unwrap_or(Path::new(".")).join(d)
            }
        };
        let catalog_dir = file.catalog_dir.as_ref().map(resolve);
        let catalog_folder = file.catalog_folder.as_ref().map(resolve);
        for (name, dir) in [
            ("catalog_dir", &catalog_dir),
            ("catalog_folder", &catalog_folder),
        ] {
            if let Some(d) = dir
                && !d.is_dir()
            {
                return Err(field(name, format!("{} is not a directory", d.display())));
            }
        }
        if catalog_folder.is_some() && (catalog_dir.is_some() || file.mocks.catalog.is_some()) {
            return Err(field(
                "catalog_folder",
                "excludes `catalog_dir` and `[mocks.catalog]`: the catalogs come from one place"
                    .into(),
            ));
        }
        Ok(Scenario {
            name: name.to_string(),
            path: path.to_path_buf(),
            file,
            clouds,
            fake_credentials,
            catalog_dir,
            catalog_folder,
        })
    }

    /// `SKY_ENABLED_CLOUDS`.
    pub fn enabled_clouds_env(&self) -> String {
        self.clouds
            .iter()
            .map(|c| c.name())
            .collect::<Vec<_>>()
            .join(",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Scenario> {
        Scenario::parse("t", Path::new("/x/t/harness.toml"), text)
    }

    #[test]
    fn unknown_field_names_file_and_field() {
        let err = parse("description = \"d\"\nclouds = [\"gcp\"]\nrunz = 3\n[mocks]\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("/x/t/harness.toml"), "{err}");
        assert!(err.contains("runz"), "{err}");
    }

    #[test]
    fn aws_without_sts_mock_is_refused() {
        let err = parse("description = \"d\"\nclouds = [\"aws\"]\n[mocks]\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("field `mocks.sts`"), "{err}");
    }

    #[test]
    fn bad_cloud_and_timeout_name_the_field() {
        let err = parse("description = \"d\"\nclouds = [\"awz\"]\n[mocks]\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("field `clouds`"), "{err}");
        let err = parse(
            "description = \"d\"\nclouds = [\"gcp\"]\n[request]\ncloud_timeout_s = -1.0\n[mocks]\n",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("request.cloud_timeout_s"), "{err}");
    }

    #[test]
    fn request_becomes_flags() {
        let s = parse("description = \"d\"\nclouds = [\"gcp\"]\n[request]\ngpus = \"H100:8\"\ncloud_timeout_s = 1.5\n[mocks]\n").unwrap();
        assert_eq!(
            s.file.request.args(),
            ["--gpus", "H100:8", "--cloud-timeout", "1.5"]
        );
        assert_eq!(s.file.request.overrides().gpus.as_deref(), Some("H100:8"));
        assert_eq!(s.file.request.skypilot_args(), ["--gpus", "H100:8"]);
    }

    #[test]
    fn catalogs_come_from_one_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("harness.toml");
        let text = "description = \"d\"\nclouds = [\"gcp\"]\ncatalog_dir = \".\"\ncatalog_folder = \".\"\n[mocks]\n";
        let err = Scenario::parse("t", &path, text).unwrap_err().to_string();
        assert!(err.contains("field `catalog_folder`"), "{err}");
        let ok = Scenario::parse("t", &path, &text.replace("catalog_dir = \".\"\n", "")).unwrap();
        assert_eq!(
            ok.catalog_folder.as_deref(),
            Some(dir.path().join(".").as_path())
        );
    }
}
