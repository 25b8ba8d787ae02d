//! A reference re-implementation of SkyPilot 0.14's launch optimizer.
//!
//! The crate is split into a pure, synchronous core and asynchronous edges:
//!
//! * core (no network, no file system beyond `impl Read`): [`catalog`] (CSV
//!   catalogs and queries), [`resources`] and [`task`] (requests as SkyPilot
//!   parses them), [`validate`], [`feasibility`] (per-cloud candidate rules),
//!   [`optimize`] (enumeration, cost, chain DP) and [`render`] (the
//!   "Considered resources" table and messages);
//! * edges: [`clouds`] (one adapter per cloud behind the [`clouds::Cloud`]
//!   trait and the concurrent fan-out), [`state`] (the on-disk identity and
//!   node caches) and [`config`] (resolving `~/.sky/config.yaml`, catalog
//!   directories and the environment).
#![warn(missing_docs)]

pub mod catalog;
pub mod clouds;
pub mod config;
pub mod feasibility;
pub mod launch;
pub mod optimize;
pub mod pytext;
pub mod render;
pub mod resources;
pub mod state;
pub mod task;
pub mod validate;
