//! Harness library: tooling around the optimizer that is not part of it, and
//! the workspace's one measurement library (the `benches` crate builds on it).
//!
//! - Measurement pieces shared with the benches: [`in_process`] (the one
//!   in-process launch setup: runtime, options and request `sky` would
//!   build), [`timing`] (warm-up and measured passes, wall time), [`floor`]
//!   (the latency floor from the mocks' recordings), [`stats`] (order
//!   statistics), [`flame`] (folded stacks, CPU sampling, inferno rendering
//!   and normalised diffs), [`sysinfo`] (machine, toolchain and revision),
//!   [`table`] (fixed-width text tables).
//! - Launch measurements against the [`mocks`]: [`scenario`] (scenarios as
//!   data in `fixtures/scenarios/<name>/harness.toml`), [`sandbox`] (a
//!   temporary HOME with fake credentials), [`engine`] (modes, the `sky`
//!   process launcher, the measuring loop), [`instrument`] (Chrome trace,
//!   wall-clock span profile via [`spans`], CPU profile), [`summary`] and
//!   [`report`] (the report folder), [`run`] (the whole `harness run`),
//!   [`standalone`] (`harness mocks`).

pub mod baseline;
pub mod engine;
pub mod error;
pub mod flame;
pub mod floor;
pub mod in_process;
pub mod instrument;
pub mod plot;
pub mod report;
pub mod requests;
pub mod run;
pub mod sandbox;
pub mod scenario;
pub mod skypilot;
pub mod spans;
pub mod standalone;
pub mod stats;
pub mod story;
pub mod summary;
pub mod sysinfo;
pub mod table;
pub mod timeline;
pub mod timing;
pub mod traced;
pub mod workspace;

pub use error::{HarnessError, Result};
