//! The pure core of the `sky` optimizer, a re-implementation of SkyPilot
//! 0.14.1's launch optimizer.
//!
//! Everything here is a function of its inputs: catalogs arrive as bytes,
//! requests as text, and what the cloud checks found as a [`world::World`].
//! The crate depends on no async runtime, HTTP, SDK or Kubernetes crate and
//! touches no file system, environment or clock (`cargo tree -e normal -p
//! planner` shows it; ARCHITECTURE.md states the rule). The I/O edges —
//! cloud adapters, caches, configuration files, the `sky` binary — live in
//! the `optimizer` crate.
//!
//! * [`cloud`]: the clouds and their names;
//! * [`catalog`]: `vms.csv` parsing, indexes, images and SkyPilot's query rules;
//! * [`resources`], [`task`]: requests and task YAML as SkyPilot parses them
//!   ([`schema`]: its JSON schemas, one module per section, and the task file limits);
//! * [`config`]: the SkyPilot config document;
//! * [`check`]: what the cloud checks found (plain data);
//! * [`world`]: the planner's input; [`assemble`]: how a launch makes it of
//!   what its probe found (and `sky check`'s pure halves);
//! * [`launch`]: one launch as data, and its plan stage;
//! * [`validate`], [`feasibility`], [`optimize`]: `Resources.validate()`,
//!   per-cloud candidates, and the optimizer; [`explain`]: why the plan
//!   won and what every other cloud offered or why not (`--explain`);
//! * [`render`]: every table and message `sky` prints, on the top floor: nothing
//!   else here imports it;
//! * [`text`] and [`pytext`]: the leaf text helpers below everything (ANSI
//!   codes, table layouts, number formats; Python's text forms).

/// The SkyPilot release whose behaviour this crate reproduces.
pub const SKYPILOT_VERSION: &str = "0.14.1";

pub mod assemble;
pub mod catalog;
pub mod check;
pub mod cloud;
pub mod config;
pub mod egress;
pub mod explain;
pub mod feasibility;
pub mod gpus;
pub mod handoff;
pub mod launch;
pub mod offers;
pub mod optimize;
pub mod pytext;
pub mod render;
pub mod resources;
pub mod schema;
pub mod service;
pub mod task;
pub mod text;
pub mod validate;
pub mod volumes;
pub mod world;
