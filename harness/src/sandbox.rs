//! A throw-away machine: temporary HOME with fake credentials, a kubeconfig
//! pointing at the kube mocks, a state directory per mode, and the
//! environment `sky` sees. Nothing of the real user's environment leaks in.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mocks::MockSet;
use planner::cloud::CloudId;

use crate::error::{HarnessError, Result};
use crate::scenario::Scenario;

/// Dummy credential files that make the file-based clouds "enabled" (the
/// optimizer only checks that they exist; contents are never sent anywhere).
pub const CREDENTIAL_FILES: &[(CloudId, &str, &str)] = &[
    (
        CloudId::Gcp,
        ".config/gcloud/application_default_credentials.json",
        "{\"type\": \"authorized_user\", \"client_id\": \"mock\", \"client_secret\": \"mock\", \"refresh_token\": \"mock\"}\n",
    ),
    (
        CloudId::Azure,
        ".azure/azureProfile.json",
        "{\"subscriptions\": [{\"id\": \"00000000-0000-0000-0000-000000000000\", \"name\": \"mock\", \"isDefault\": true}]}\n",
    ),
    (
        CloudId::Lambda,
        ".lambda_cloud/lambda_keys",
        "api_key = mock\n",
    ),
    (
        CloudId::Runpod,
        ".runpod/config.toml",
        "[default]\napi_key = \"mock\"\n",
    ),
    (
        CloudId::Paperspace,
        ".paperspace/config.json",
        "{\"apiKey\": \"mock\"}\n",
    ),
    (
        CloudId::Cudo,
        ".config/cudo/cudo.yml",
        "keys:\n- name: mock\n  key: mock\n",
    ),
];

/// The temporary machine of one harness run. Dropping it deletes everything.
#[derive(Debug)]
pub struct Sandbox {
    dir: tempfile::TempDir,
    home: PathBuf,
}

/// Everything one mode's launches see.
#[derive(Debug, Clone)]
pub struct ModeEnv {
    /// The complete environment of a launch (the process starts from an empty one).
    pub env: BTreeMap<String, String>,
    /// `HOME`.
    pub home: PathBuf,
    /// `SKY_STATE_DIR` (caches), one per mode so modes never share a cache.
    pub state_dir: PathBuf,
    /// `KUBECONFIG`, when Kubernetes has fake credentials.
    pub kubeconfig: Option<PathBuf>,
    /// SkyPilot's catalog folder of this mode (`.../.sky/catalogs/v8`) when
    /// the launches read their catalogs there (a scenario's
    /// `catalog_folder`, or downloads from the catalog mock); `None` for the
    /// catalogs built into `sky` and for `--catalog-dir`.
    pub catalog_folder: Option<PathBuf>,
}

fn write(path: &Path, text: &str) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| HarnessError::io(parent, e))?;
    }
    std::fs::write(path, text).map_err(|e| HarnessError::io(path, e))
}

/// Copies the catalog tree `src` into `dst` (created), leaving out
/// `README.md` and, unless `keep_zone_names`, the AWS zone-name files
/// (`aws/az_mappings-*.csv`). No md5 records are written: to SkyPilot (and
/// `sky`) the files are a user's, never refreshed. Does nothing when `dst`
/// already holds `common/`.
pub fn copy_catalogs(src: &Path, dst: &Path, keep_zone_names: bool) -> Result<()> {
    if dst.join("common").is_dir() {
        return Ok(());
    }
    let mut todo = vec![src.to_path_buf()];
    while let Some(dir) = todo.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| HarnessError::io(&dir, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| HarnessError::io(&dir, e))?;
            let path = entry.path();
            let rel = path.strip_prefix(src).unwrap_or(&path);
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                todo.push(path);
                continue;
            }
            if name == "README.md" || (!keep_zone_names && is_zone_names(&name)) {
                continue;
            }
            let to = dst.join(rel);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(|e| HarnessError::io(parent, e))?;
            }
            std::fs::copy(&path, &to).map_err(|e| HarnessError::io(&to, e))?;
        }
    }
    Ok(())
}

fn is_zone_names(file: &str) -> bool {
    file.starts_with("az_mappings-") && (file.ends_with(".csv") || file.ends_with(".csv.md5"))
}

/// Makes a catalog folder look like a first launch's: the AWS zone-name
/// files (`aws/az_mappings-*.csv` and their md5 records, which both engines
/// fetch from EC2 when missing) and SkyPilot's cached AWS identity
/// (`aws/.cache/`, keyed by `aws configure list`) are removed. Returns how
/// many files went.
pub fn forget_first_launch(folder: &Path) -> Result<usize> {
    let mut removed = 0;
    for dir in [folder.join("aws"), folder.join(".meta/aws")] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            if is_zone_names(&entry.file_name().to_string_lossy()) {
                std::fs::remove_file(entry.path())
                    .map_err(|e| HarnessError::io(entry.path(), e))?;
                removed += 1;
            }
        }
    }
    let cache = folder.join("aws/.cache");
    if cache.is_dir() {
        for entry in std::fs::read_dir(&cache)
            .map_err(|e| HarnessError::io(&cache, e))?
            .flatten()
        {
            std::fs::remove_file(entry.path()).map_err(|e| HarnessError::io(entry.path(), e))?;
            removed += 1;
        }
    }
    Ok(removed)
}

impl Sandbox {
    /// Creates the temporary HOME with the scenario's credential files and `~/.sky/config.yaml`.
    pub fn new(scenario: &Scenario) -> Result<Sandbox> {
        let dir = tempfile::Builder::new()
            .prefix("harness-")
            .tempdir()
            .map_err(|e| HarnessError::io(std::env::temp_dir(), e))?;
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).map_err(|e| HarnessError::io(&home, e))?;
        for (cloud, rel, body) in CREDENTIAL_FILES {
            if scenario.fake_credentials.contains(cloud) {
                write(&home.join(rel), body)?;
            }
        }
        if let Some(cfg) = &scenario.file.sky_config {
            write(&home.join(".sky/config.yaml"), cfg)?;
        }
        Ok(Sandbox { dir, home })
    }

    /// The sandbox root.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The temporary HOME.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// The environment of one mode's launches against `mocks`; `tag` names
    /// its state directory and kubeconfig folder.
    pub fn mode_env(
        &self,
        scenario: &Scenario,
        mocks: &MockSet,
        tag: &str,
        serial: bool,
    ) -> Result<ModeEnv> {
        let mode_dir = self.dir.path().join(tag);
        let state_dir = mode_dir.join("state");
        std::fs::create_dir_all(&state_dir).map_err(|e| HarnessError::io(&state_dir, e))?;
        let mut env = BTreeMap::new();
        let mut set = |k: &str, v: String| {
            env.insert(k.to_string(), v);
        };
        set("HOME", self.home.display().to_string());
        set("SKY_STATE_DIR", state_dir.display().to_string());
        set("SKY_ENABLED_CLOUDS", scenario.enabled_clouds_env());
        set("NO_COLOR", "1".into());
        set("RUST_BACKTRACE", "0".into());
        // Never probe a real instance-metadata service from the sandbox.
        set("AWS_EC2_METADATA_DISABLED", "true".into());
        if serial {
            set("SKY_FANOUT", "serial".into());
        }
        let skypilot_folder = mode_dir.join(".sky/catalogs/v8");
        let catalog_folder = match (&mocks.catalog, &scenario.catalog_folder) {
            // Catalogs downloaded from the mock into this mode's own
            // SkyPilot folder (SKY_RUNTIME_DIR), so modes never share them.
            (Some(catalog), _) => {
                set("SKY_CATALOG_URL", catalog.hosted_url());
                set("SKY_CATALOG_MIRROR_URL", String::new());
                set("SKY_RUNTIME_DIR", mode_dir.display().to_string());
                Some(skypilot_folder)
            }
            // The scenario's files, placed in this mode's SkyPilot folder.
            (None, Some(src)) => {
                copy_catalogs(src, &skypilot_folder, scenario.file.mocks.ec2.is_none())?;
                set("SKY_RUNTIME_DIR", mode_dir.display().to_string());
                Some(skypilot_folder)
            }
            // The example catalogs built into `sky` (or `--catalog-dir`): no network.
            (None, None) => {
                set("SKY_BUNDLED_CATALOGS", "1".into());
                None
            }
        };
        if let Some(sts) = &mocks.sts {
            // The endpoint always points at the mock; keys only when AWS is "configured".
            for (k, v) in sts.aws_env() {
                let is_key = k.starts_with("AWS_ACCESS") || k.starts_with("AWS_SECRET");
                if !is_key || scenario.fake_credentials.contains(&CloudId::Aws) {
                    set(k, v);
                }
            }
        }
        if let Some(ec2) = &mocks.ec2 {
            // The account's zone names, fetched when the catalog folder has
            // no `aws/az_mappings-<hash>.csv` for the identity.
            set("AWS_ENDPOINT_URL_EC2", ec2.uri());
        }
        if let Some(gcp) = &mocks.gcp {
            // Reservation lookups (made only when the scenario's sky_config
            // sets gcp.prioritize_reservations / specific_reservations) go to
            // the mock: its compute endpoint, and credentials whose token_uri
            // is the mock's. Without reservations configured nothing is sent.
            for (k, v) in gcp.gcloud_env() {
                set(k, v);
            }
            set("CLOUDSDK_CORE_PROJECT", "mock-project".into());
            if scenario.fake_credentials.contains(&CloudId::Gcp) {
                let adc = mode_dir.join("gcp-adc.json");
                write(&adc, &gcp.authorized_user_json("mock-refresh-token"))?;
                set("GOOGLE_APPLICATION_CREDENTIALS", adc.display().to_string());
            }
        }
        let kubeconfig = if scenario.fake_credentials.contains(&CloudId::Kubernetes) {
            std::fs::create_dir_all(&mode_dir).map_err(|e| HarnessError::io(&mode_dir, e))?;
            let path = mocks.write_kubeconfig(&mode_dir)?;
            set("KUBECONFIG", path.display().to_string());
            Some(path)
        } else {
            None
        };
        // What the launches trace or log passes the redaction nets: the
        // credentials handed to `sky` here are masked like a user's
        // (`sky` itself registers its process environment the same way).
        optimizer::redact::remember_env_secrets(env.iter());
        Ok(ModeEnv {
            env,
            home: self.home.clone(),
            state_dir,
            kubeconfig,
            catalog_folder,
        })
    }
}
