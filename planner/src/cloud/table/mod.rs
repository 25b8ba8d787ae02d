//! The cloud table: one [`CloudSpec`] per cloud, one file per cloud, in
//! [`CloudId::ALL`] order. Reasons are SkyPilot 0.14.1's text
//! (`_CLOUD_UNSUPPORTED_FEATURES` in `sky/clouds/<cloud>.py`, `_REPR`
//! substituted); catalog rules, listing labels and zone messages come from
//! `sky/catalog/<cloud>_catalog.py`.
//!
//! A plain catalog cloud is its file here (and its variant of [`CloudId`]
//! with its place in SkyPilot's orders, `cloud/mod.rs`): everything else
//! reads the entry.

mod aws;
mod azure;
mod cudo;
mod digitalocean;
mod fluidstack;
mod gcp;
mod hyperbolic;
mod ibm;
mod kubernetes;
mod lambda;
mod mithril;
mod nebius;
mod oci;
mod paperspace;
mod primeintellect;
mod runpod;
mod scp;
mod seeweb;
mod shadeform;
mod slurm;
mod ssh;
mod vast;
mod verda;
mod vsphere;
mod yotta;

use super::{CloudId, CloudSpec};

/// What every entry is written with.
mod prelude {
    pub(super) use super::super::Feature::*;
    pub(super) use super::super::spec::{
        CatalogPull, CatalogRules, CloudSpec, Credential, Detection, FileCheck, InstanceFamily,
        KeySyntax, LocalCatalog,
    };
    pub(super) use super::super::{CloudId, StorageRule};
}

/// Every cloud's spec, indexed by `CloudId as usize`.
pub(super) static CLOUDS: [CloudSpec; CloudId::ALL.len()] = [
    aws::SPEC,
    gcp::SPEC,
    azure::SPEC,
    lambda::SPEC,
    runpod::SPEC,
    paperspace::SPEC,
    cudo::SPEC,
    kubernetes::SPEC,
    digitalocean::SPEC,
    fluidstack::SPEC,
    hyperbolic::SPEC,
    ibm::SPEC,
    mithril::SPEC,
    nebius::SPEC,
    oci::SPEC,
    primeintellect::SPEC,
    scp::SPEC,
    seeweb::SPEC,
    shadeform::SPEC,
    slurm::SPEC,
    ssh::SPEC,
    vast::SPEC,
    verda::SPEC,
    vsphere::SPEC,
    yotta::SPEC,
];
