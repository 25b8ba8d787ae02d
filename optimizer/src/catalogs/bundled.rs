//! The default catalogs built into the binary, so `sky` works with nothing
//! installed. They are the generated fixture catalogs (`fixtures/catalogs/`,
//! see its README); embedding costs ~3 MB of binary size and no start-up time.

use planner::cloud::CloudId;

macro_rules! fixture {
    ($path:literal) => {
        include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/catalogs/",
            $path
        ))
    };
}

/// `<cloud>/vms.csv` of the bundled catalogs (`None` for Kubernetes).
pub fn vms_csv(cloud: CloudId) -> Option<&'static [u8]> {
    Some(match cloud {
        CloudId::Aws => fixture!("aws/vms.csv"),
        CloudId::Gcp => fixture!("gcp/vms.csv"),
        CloudId::Azure => fixture!("azure/vms.csv"),
        CloudId::Lambda => fixture!("lambda/vms.csv"),
        CloudId::Runpod => fixture!("runpod/vms.csv"),
        CloudId::Paperspace => fixture!("paperspace/vms.csv"),
        CloudId::Cudo => fixture!("cudo/vms.csv"),
        // TODO(issue-10): the new clouds' bundled catalogs.
        _ => return None,
    })
}

/// `common/accelerators.csv`.
pub const ACCELERATORS_CSV: &[u8] = fixture!("common/accelerators.csv");

/// `common/metadata.csv`.
pub const METADATA_CSV: &[u8] = fixture!("common/metadata.csv");

/// The bundled AWS zone mapping, keyed by the identity hash it belongs to
/// (md5 of the mocked STS user `AIDAEXAMPLEUSERID`).
pub const AZ_MAPPINGS: &[(&str, &[u8])] = &[("fbffe8df", fixture!("aws/az_mappings-fbffe8df.csv"))];

/// A fingerprint of the bundled catalog files, computed at build time
/// (`build.rs`): keys their pre-indexed images.
pub const FINGERPRINT: &str = env!("SKY_BUNDLED_CATALOGS_ID");
