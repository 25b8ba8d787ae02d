//! Harness library: tooling around the optimizer that is not part of it.
//!
//! - [`catalog_gen`]: the deterministic generator of the SkyPilot-compatible
//!   fixture catalogs under `fixtures/catalogs/` (and the small v6 tree under
//!   `fixtures/catalogs-v6/`), run as `cargo run -p harness -- gen-catalogs`.
//! - Launch measurements against the [`mocks`]: [`scenario`] (scenarios as
//!   data in `fixtures/scenarios/<name>/harness.toml`), [`sandbox`] (a
//!   temporary HOME with fake credentials), [`engine`] (modes, the `sky`
//!   process and in-process launchers, the timing loop), [`floor`] (the
//!   latency floor from the mocks' recordings), [`instrument`] (Chrome trace,
//!   wall-clock span profile, pprof CPU profile), [`flame`] (inferno
//!   rendering and diffs), [`summary`] and [`report`] (the report folder),
//!   [`run`] (the whole `harness run`), [`standalone`] (`harness mocks`).

pub mod catalog_gen;
pub mod engine;
pub mod error;
pub mod flame;
pub mod floor;
pub mod instrument;
pub mod report;
pub mod run;
pub mod sandbox;
pub mod scenario;
pub mod spans;
pub mod standalone;
pub mod stats;
pub mod summary;
pub mod sysinfo;

pub use error::{HarnessError, Result};
