//! SkyPilot-compatible catalogs (`<dir>/<cloud>/vms.csv`), parsed from `impl Read`.
pub mod kubernetes;
