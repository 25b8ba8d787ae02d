//! In-process launches: the one way this workspace calls
//! `optimizer::launch::run` outside the `sky` binary. The harness's
//! in-process engine and the criterion launch benchmarks both build their
//! launches here, from a [`Scenario`] and a sandboxed [`ModeEnv`], so a
//! benchmark configuration is an ordinary scenario and measures the same
//! thing `harness run --engine in-process` would.
//!
//! * [`runtime_builder`]: the runtime shape `sky` uses (2 workers);
//! * [`launch_options`] and [`request`]: what `sky` would build from the
//!   environment and the request flags;
//! * [`InProcessLauncher`]: the harness [`Launcher`] on top of them.

use std::time::Duration;

use optimizer::launch::{LaunchError, LaunchOptions, Request};
use tracing::Instrument;

use crate::engine::{LaunchOutput, Launcher, ModeSetup};
use crate::error::{HarnessError, Result};
use crate::sandbox::ModeEnv;
use crate::scenario::Scenario;

/// Name of the threads the harness's in-process launches run on (the CPU
/// profile keeps only these).
pub const LAUNCH_THREAD_NAME: &str = "sky-launch";

/// A tokio runtime builder shaped like `sky`'s: multi-threaded, 2 workers,
/// every driver enabled. Callers add thread names or hooks.
pub fn runtime_builder() -> tokio::runtime::Builder {
    let mut b = tokio::runtime::Builder::new_multi_thread();
    b.worker_threads(2).enable_all();
    b
}

/// The [`LaunchOptions`] `sky` would build from `env` for `scenario`, with
/// caches bypassed when `refresh` and the checks one after another when `serial`.
pub fn launch_options(
    scenario: &Scenario,
    env: &ModeEnv,
    refresh: bool,
    serial: bool,
) -> Result<LaunchOptions> {
    let mut o = LaunchOptions::from_env(env.env.clone(), env.home.clone())
        .map_err(|e| HarnessError::Optimizer(e.to_string()))?;
    o.catalog_dir = scenario.catalog_dir.clone();
    o.refresh = refresh;
    o.set_cloud_timeout(scenario.file.request.cloud_timeout());
    o.fanout.serial = serial;
    Ok(o)
}

/// The scenario's request, as `sky launch` flags without a task YAML.
pub fn request(scenario: &Scenario) -> Request {
    Request {
        entrypoint: Vec::new(),
        overrides: scenario.file.request.overrides(),
    }
}

/// Calls `optimizer::launch::run` on its own tokio runtime (2 workers, like `sky`).
pub struct InProcessLauncher {
    runtime: tokio::runtime::Runtime,
    dispatch: Option<tracing::Dispatch>,
}

thread_local! {
    static THREAD_DISPATCH: std::cell::RefCell<Option<tracing::dispatcher::DefaultGuard>> =
        const { std::cell::RefCell::new(None) };
}

impl InProcessLauncher {
    /// A launcher whose launches are not traced.
    pub fn new() -> Result<Self> {
        Self::build(None)
    }

    /// A launcher whose runtime threads all report to `dispatch`: a scoped
    /// subscriber instead of a global one, so several harness runs (and tests)
    /// can share a process.
    pub fn traced(dispatch: tracing::Dispatch) -> Result<Self> {
        Self::build(Some(dispatch))
    }

    fn build(dispatch: Option<tracing::Dispatch>) -> Result<Self> {
        let mut b = runtime_builder();
        b.thread_name(LAUNCH_THREAD_NAME);
        if let Some(d) = dispatch.clone() {
            b.on_thread_start(move || {
                let guard = tracing::dispatcher::set_default(&d);
                THREAD_DISPATCH.with(|g| *g.borrow_mut() = Some(guard));
            })
            .on_thread_stop(|| {
                THREAD_DISPATCH.with(|g| g.borrow_mut().take());
            });
        }
        let runtime = b
            .build()
            .map_err(|e| HarnessError::io("<tokio runtime>", e))?;
        Ok(InProcessLauncher { runtime, dispatch })
    }

    /// Stops the runtime, waiting briefly for tasks still on hung sockets.
    pub fn shutdown(self) {
        self.runtime.shutdown_timeout(Duration::from_secs(1));
    }
}

impl Launcher for InProcessLauncher {
    fn launch(&mut self, setup: &ModeSetup<'_>) -> Result<LaunchOutput> {
        let mode = setup.mode;
        let opts = launch_options(setup.scenario, &setup.env, mode.refresh(), mode.serial())?;
        let request = request(setup.scenario);
        let fut = async move { optimizer::launch::run(&opts, &request).await };
        // Spawned, not run on the calling thread: every poll then happens on a
        // named runtime thread, which is what the CPU profile filters on.
        let handle = match &self.dispatch {
            Some(d) => tracing::dispatcher::with_default(d, || {
                let span = tracing::info_span!(parent: None, "launch", mode = %mode.name());
                self.runtime.spawn(fut.instrument(span))
            }),
            None => self.runtime.spawn(fut),
        };
        let joined = self
            .runtime
            .block_on(handle)
            .map_err(|e| HarnessError::Launch {
                what: format!("{}, in process", mode.name()),
                detail: e.to_string(),
            })?;
        match joined {
            Ok(result) => Ok(LaunchOutput {
                exit_code: i32::from(result.exit().code()),
                stdout: planner::render::launch::text(&result),
            }),
            Err(e @ (LaunchError::NoCloud(_) | LaunchError::Config(_) | LaunchError::Usage(_))) => {
                Err(HarnessError::Launch {
                    what: format!("{}, in process", mode.name()),
                    detail: e.to_string(),
                })
            }
        }
    }

    fn name(&self) -> &'static str {
        "in-process"
    }
}
