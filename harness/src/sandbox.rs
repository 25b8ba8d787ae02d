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
}

fn write(path: &Path, text: &str) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| HarnessError::io(parent, e))?;
    }
    std::fs::write(path, text).map_err(|e| HarnessError::io(path, e))
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
        match &mocks.catalog {
            // Catalogs downloaded from the mock into this mode's own
            // SkyPilot folder (SKY_RUNTIME_DIR), so modes never share them.
            Some(catalog) => {
                set("SKY_CATALOG_URL", catalog.hosted_url());
                set("SKY_CATALOG_MIRROR_URL", String::new());
                set("SKY_RUNTIME_DIR", mode_dir.display().to_string());
            }
            // The example catalogs built into `sky`: no network.
            None => set("SKY_BUNDLED_CATALOGS", "1".into()),
        }
        if let Some(sts) = &mocks.sts {
            // The endpoint always points at the mock; keys only when AWS is "configured".
            for (k, v) in sts.aws_env() {
                let is_key = k.starts_with("AWS_ACCESS") || k.starts_with("AWS_SECRET");
                if !is_key || scenario.fake_credentials.contains(&CloudId::Aws) {
                    set(k, v);
                }
            }
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
        })
    }
}
