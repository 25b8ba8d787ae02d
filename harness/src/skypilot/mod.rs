//! SkyPilot 0.14.1 as an engine of the harness: the launcher the issue this
//! project exists for is about, run under the same scenario and the same
//! mocks as `sky`, so one report compares the two on the same work.
//!
//! * [`venv`]: where SkyPilot is installed (`.venv-skypilot/`, built by
//!   `harness/skypilot/setup.sh` from PyPI) and how to get it.
//! * [`home`]: its machine — a sandbox HOME whose `~/.sky` holds the
//!   scenario's catalogs and config and the enabled clouds as `sky check`
//!   records them, an environment pointing it at the mocks the way a user's
//!   machine points it at clouds (`AWS_ENDPOINT_URL_STS`/`_EC2`, a
//!   kubeconfig, [`gcloud`] first on `PATH`), nothing reaching beyond
//!   loopback.
//! * [`launcher`]: one process per launch, `harness/skypilot/driver.py`
//!   (embedded as [`DRIVER`]), timed from spawn to exit like `sky`; traced
//!   launches add SkyPilot's own timeline (`SKYPILOT_TIMELINE_FILE_PATH`)
//!   and a py-spy profile ([`profile`]).
//! * [`gcloud`]: the `gcloud` SkyPilot shells out to for GCP reservations.

pub mod gcloud;
pub mod home;
pub mod launcher;
pub mod profile;
pub mod venv;

pub use launcher::{DriverResult, Phase, SkyPilotLauncher};
pub use venv::SkyPilotVenv;

use std::path::PathBuf;

/// The driver SkyPilot's launches run (`harness/skypilot/driver.py`), written
/// into each run's sandbox so the harness binary carries it.
pub const DRIVER: &str = include_str!("../../skypilot/driver.py");

/// SkyPilot 0.14.1's part of a run.
#[derive(Debug, Clone)]
pub struct SkyPilotRun {
    /// Its venv.
    pub venv: SkyPilotVenv,
    /// Measured launches per SkyPilot mode.
    pub runs: usize,
    /// Warm-up launches per SkyPilot mode (its warm mode gets at least one).
    pub warmup: usize,
    /// The harness binary (the `gcloud` stand-in runs it).
    pub harness_exe: PathBuf,
}

/// The SkyPilot version the engine runs.
pub const SKYPILOT_VERSION: &str = "0.14.1";
