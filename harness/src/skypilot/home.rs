//! SkyPilot's machine under the harness: a HOME inside the run's sandbox and
//! the environment of its launches, pointing it at the scenario's mocks the
//! way a user's machine points it at clouds.
//!
//! | what SkyPilot reads | what the harness gives it |
//! |---|---|
//! | `~/.sky/catalogs/v8/` | the scenario's catalogs (`catalog_folder`, else `catalog_dir`, else the example catalogs `sky` has built in), without md5 records: a user's files, never downloaded; the AWS zone-name file only when EC2 is not mocked |
//! | `~/.sky/config.yaml` | the scenario's `sky_config` |
//! | `~/.sky/state.db` | the enabled clouds, recorded by SkyPilot's own `global_user_state` as `sky check` leaves them (`driver.py state`) |
//! | AWS credentials | the mocks' fake keys, `AWS_DEFAULT_REGION`, `AWS_ENDPOINT_URL_STS` / `_EC2` (boto3 and the AWS CLI honour them) |
//! | `KUBECONFIG` | the kube mocks' contexts |
//! | `gcloud` on `PATH` | [`crate::skypilot::gcloud`], answering from the GCP mock (`CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE`, `CLOUDSDK_CORE_PROJECT`) |
//! | `PATH` | the stand-in's folder, the venv's `bin/` (as an activated venv: `aws` is there), `/usr/bin:/bin` |
//!
//! Usage collection is off (`SKYPILOT_DISABLE_USAGE_COLLECTION=1`), and the
//! driver refuses every connection and lookup that is not loopback.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use mocks::MockSet;
use planner::cloud::CloudId;

use crate::error::{HarnessError, Result};
use crate::sandbox::{ModeEnv, Sandbox, copy_catalogs};
use crate::scenario::Scenario;
use crate::skypilot::{DRIVER, SkyPilotVenv};

/// The folder of SkyPilot's machine inside the run's sandbox.
pub const FOLDER: &str = "skypilot";

fn write(path: &Path, text: &str) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| HarnessError::io(parent, e))?;
    }
    std::fs::write(path, text).map_err(|e| HarnessError::io(path, e))
}

/// Where the driver is written in the sandbox.
pub fn driver_path(sandbox: &Sandbox) -> PathBuf {
    sandbox.root().join(FOLDER).join("driver.py")
}

/// The catalogs SkyPilot reads for `scenario`: its `catalog_folder`, its
/// `catalog_dir`, else the example catalogs `sky` has built in (they are
/// `fixtures/catalogs`).
pub fn catalog_source(scenario: &Scenario) -> PathBuf {
    scenario
        .catalog_folder
        .clone()
        .or_else(|| scenario.catalog_dir.clone())
        .unwrap_or_else(|| mocks::fixtures_dir().join("catalogs"))
}

/// SkyPilot's machine for `scenario` against `mocks`: the HOME (catalogs,
/// config, driver, the `gcloud` stand-in calling `harness_exe`) and the
/// environment of its launches; `tag` names the folder of this mode's
/// kubeconfig (each mode has its own mocks). Both SkyPilot modes share the
/// HOME: they run one after the other, and the no-cache mode clears what
/// the warm one keeps ([`crate::sandbox::forget_first_launch`]) before each
/// of its launches.
pub fn skypilot_env(
    sandbox: &Sandbox,
    scenario: &Scenario,
    mocks: &MockSet,
    venv: &SkyPilotVenv,
    harness_exe: &Path,
    tag: &str,
) -> Result<ModeEnv> {
    let dir = sandbox.root().join(FOLDER);
    let home = dir.join("home");
    let state_dir = home.join(".sky");
    let catalogs = state_dir.join("catalogs/v8");
    std::fs::create_dir_all(&state_dir).map_err(|e| HarnessError::io(&state_dir, e))?;
    copy_catalogs(&catalog_source(scenario), &catalogs, mocks.ec2.is_none())?;
    if let Some(cfg) = &scenario.file.sky_config {
        write(&state_dir.join("config.yaml"), cfg)?;
    }
    write(&dir.join("driver.py"), DRIVER)?;
    let bin = dir.join("bin");
    let exe = harness_exe.display().to_string().replace('\'', "'\\''");
    write(
        &bin.join("gcloud"),
        &format!(
            "#!/bin/sh\n# The harness's gcloud stand-in (answers from the GCP mock).\nexec '{exe}' gcloud \"$@\"\n"
        ),
    )?;
    make_executable(&bin.join("gcloud"))?;

    let mut env = BTreeMap::new();
    let mut set = |k: &str, v: String| {
        env.insert(k.to_string(), v);
    };
    set("HOME", home.display().to_string());
    set(
        "PATH",
        format!(
            "{}:{}:/usr/local/bin:/usr/bin:/bin",
            bin.display(),
            venv.root.join("bin").display()
        ),
    );
    set("SKYPILOT_DISABLE_USAGE_COLLECTION", "1".into());
    set("PYTHONIOENCODING", "utf-8".into());
    let aws_keys = scenario.fake_credentials.contains(&CloudId::Aws);
    for (k, v) in mocks.env() {
        let is_key = k.starts_with("AWS_ACCESS") || k.starts_with("AWS_SECRET");
        if !is_key || aws_keys {
            set(k, v);
        }
    }
    if mocks.sts.is_some() {
        // botocore reads the region from AWS_DEFAULT_REGION (or ~/.aws/config), not AWS_REGION.
        set("AWS_DEFAULT_REGION", "us-east-1".into());
    }
    if let Some(gcp) = &mocks.gcp {
        for (k, v) in gcp.gcloud_env() {
            set(k, v);
        }
        set("CLOUDSDK_CORE_PROJECT", "mock-project".into());
    }
    let kubeconfig =
        if scenario.fake_credentials.contains(&CloudId::Kubernetes) && !mocks.kube.is_empty() {
            let mode_dir = dir.join(tag);
            std::fs::create_dir_all(&mode_dir).map_err(|e| HarnessError::io(&mode_dir, e))?;
            let path = mocks.write_kubeconfig(&mode_dir)?;
            set("KUBECONFIG", path.display().to_string());
            Some(path)
        } else {
            None
        };
    optimizer::redact::remember_env_secrets(env.iter());
    Ok(ModeEnv {
        env,
        home,
        state_dir,
        kubeconfig,
        catalog_folder: Some(catalogs),
    })
}

fn make_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| HarnessError::io(path, e))
}

/// Records `scenario`'s clouds as enabled in SkyPilot's state database of
/// `env`'s HOME (`driver.py state`), as `sky check` leaves them; fails
/// unless SkyPilot reads back exactly those clouds.
pub fn record_enabled_clouds(
    venv: &SkyPilotVenv,
    driver: &Path,
    env: &ModeEnv,
    scenario: &Scenario,
) -> Result<String> {
    let clouds = scenario
        .clouds
        .iter()
        .map(|c| c.name())
        .collect::<Vec<_>>()
        .join(",");
    let out = Command::new(&venv.python)
        .arg(driver)
        .args(["state", "--clouds", &clouds])
        .env_clear()
        .envs(&env.env)
        .current_dir(&env.home)
        .output()
        .map_err(|e| HarnessError::io(&venv.python, e))?;
    if !out.status.success() {
        return Err(HarnessError::SkyPilot(format!(
            "recording the enabled clouds ({clouds}) in SkyPilot's state failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout).trim(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}
