//! The I/O edges of the `sky` optimizer around the pure [`planner`] core: the
//! cloud adapters and the fan-out that runs them concurrently ([`clouds`]),
//! the private state folder and its caches ([`state`]), configuration and
//! catalog files ([`config`], [`catalogs`]), and the one launch pipeline that
//! the `sky` binary, the harness and the benchmarks all call ([`launch`]).
//! The `sky` binary's flags become the pipeline's inputs in `args` (with
//! the `cli` feature). Two shared guards: [`input`] reads input files
//! (regular files only, size-capped) and [`redact`] removes secrets from
//! anything logged.
#![warn(missing_docs)]

#[cfg(feature = "cli")]
pub mod args;
pub mod catalogs;
pub mod clouds;
pub mod config;
pub mod input;
pub mod launch;
mod net;
pub mod redact;
#[cfg(feature = "cli")]
pub mod skypilot;
pub mod state;
