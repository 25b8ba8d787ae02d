//! The storage checks `sky check` makes besides the clouds' own (AWS's S3
//! `ListBuckets` is `clouds/aws/s3.rs`, GCP's permissions and API check
//! `clouds/gcp/storage.rs`): the storage-only providers of 0.14.1's
//! `sky/check.py::STORAGE_ONLY_CLOUDS` and the clouds whose storage check
//! reads local files. Each reads its files as SkyPilot does — a profile
//! header anywhere on a line of a file under `~` — and words its hint as
//! SkyPilot does, `~` paths included. Only Hugging Face makes a call
//! ([`huggingface`]).

mod huggingface;

use std::path::Path;

use futures::future::BoxFuture;
use planner::check::StorageOutcome;
use planner::cloud::{CloudId, Provider, StorageOnly};

pub(crate) use huggingface::HuggingFace;
pub use huggingface::HuggingFaceOptions;

use super::{CheckContext, StorageCheck};
use crate::input::{InputError, MAX_CONFIG_FILE_BYTES, read_regular};

/// `_INDENT_PREFIX` of SkyPilot's adaptors.
const INDENT: &str = "    ";

/// A storage check made from local files only.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LocalStorage {
    provider: Provider,
}

impl LocalStorage {
    /// The local check of `provider`, if its storage check is one: Cloudflare,
    /// CoreWeave, VAST Data, Nebius and OCI (Hugging Face makes a call, AWS
    /// and GCP have adapters of their own).
    pub(crate) fn new(provider: Provider) -> Option<LocalStorage> {
        matches!(
            provider,
            Provider::StorageOnly(
                StorageOnly::Cloudflare | StorageOnly::CoreWeave | StorageOnly::VastData
            ) | Provider::Cloud(CloudId::Nebius | CloudId::Oci)
        )
        .then_some(LocalStorage { provider })
    }

    fn check(&self, home: &Path) -> StorageOutcome {
        let result = match self.provider {
            Provider::StorageOnly(StorageOnly::Cloudflare) => cloudflare(home),
            Provider::StorageOnly(StorageOnly::CoreWeave) => coreweave(home),
            Provider::StorageOnly(StorageOnly::VastData) => vastdata(home),
            Provider::Cloud(CloudId::Nebius) => nebius(home),
            Provider::Cloud(CloudId::Oci) => oci(home),
            _ => Ok(StorageOutcome::SameAsCompute),
        };
        result.unwrap_or_else(StorageOutcome::Disabled)
    }
}

impl StorageCheck for LocalStorage {
    fn provider(&self) -> Provider {
        self.provider
    }

    fn check_storage<'a>(&'a self, ctx: &'a CheckContext) -> BoxFuture<'a, StorageOutcome> {
        Box::pin(async move { self.check(&ctx.home) })
    }
}

/// Whether a line of `~/<rel>` contains `header`, as SkyPilot's
/// `*_profile_in_*` helpers read it (`os.path.isfile`, then a substring
/// test per line). A file that cannot be read — permissions, too large —
/// is an error naming it, where SkyPilot would show a traceback.
fn profile_in(home: &Path, rel: &str, header: &str) -> Result<bool, String> {
    match read_regular(&home.join(rel), MAX_CONFIG_FILE_BYTES) {
        Ok(bytes) => Ok(String::from_utf8_lossy(&bytes)
            .lines()
            .any(|line| line.contains(header))),
        Err(InputError::NotRegular { .. }) => Ok(false),
        Err(e) if e.io_kind() == Some(std::io::ErrorKind::NotFound) => Ok(false),
        Err(e) => Err(format!("~/{rel}: {}", e.cause())),
    }
}

/// `hints` with `part` appended, joined by `' Additionally, '` as the
/// adaptors join their missing pieces.
fn also(hints: &mut Option<String>, part: &str) {
    match hints {
        Some(h) => {
            h.push_str(" Additionally, ");
            h.push_str(part);
        }
        None => *hints = Some(part.to_string()),
    }
}

/// `(False, hints) if hints else (True, hints)`.
fn verdict(hints: Option<String>) -> StorageOutcome {
    match hints {
        Some(h) => StorageOutcome::Disabled(h),
        None => StorageOutcome::Enabled,
    }
}

/// `sky/adaptors/cloudflare.py::check_storage_credentials`: the `[r2]`
/// profile in `~/.cloudflare/r2.credentials` and `~/.cloudflare/accountid`.
fn cloudflare(home: &Path) -> Result<StorageOutcome, String> {
    let profile = profile_in(home, ".cloudflare/r2.credentials", "[r2]")?;
    // `os.path.exists`: a directory counts.
    let account = home.join(".cloudflare/accountid").exists();
    let mut hints = None;
    if !profile {
        also(
            &mut hints,
            "[r2] profile is not set in ~/.cloudflare/r2.credentials.",
        );
    }
    if !account {
        also(&mut hints, "Account ID from R2 dashboard is not set.");
    }
    if let Some(h) = &mut hints {
        h.push_str(" Run the following commands:");
        if !profile {
            h.push_str(&format!("\n{INDENT}  $ pip install boto3"));
            h.push_str(&format!(
                "\n{INDENT}  $ AWS_SHARED_CREDENTIALS_FILE=~/.cloudflare/r2.credentials aws configure --profile r2"
            ));
        }
        if !account {
            h.push_str(&format!("\n{INDENT}  $ mkdir -p ~/.cloudflare"));
            h.push_str(&format!(
                "\n{INDENT}  $ echo <YOUR_ACCOUNT_ID_HERE> > ~/.cloudflare/accountid"
            ));
        }
        h.push_str(&format!(
            "\n{INDENT}For more info: https://docs.skypilot.co/en/latest/getting-started/installation.html#cloudflare-r2"
        ));
    }
    Ok(verdict(hints))
}

/// `sky/adaptors/coreweave.py::check_storage_credentials`: the `[cw]`
/// profile in `~/.coreweave/cw.credentials` and `[profile cw]` in
/// `~/.coreweave/cw.config`.
fn coreweave(home: &Path) -> Result<StorageOutcome, String> {
    let in_cred = profile_in(home, ".coreweave/cw.credentials", "[cw]")?;
    let in_config = profile_in(home, ".coreweave/cw.config", "[profile cw]")?;
    let mut hints = None;
    if !in_cred {
        also(
            &mut hints,
            "[cw] profile is not set in ~/.coreweave/cw.credentials.",
        );
    }
    if !in_config {
        also(
            &mut hints,
            "[cw] profile is not set in ~/.coreweave/cw.config.",
        );
    }
    if let Some(h) = &mut hints {
        h.push_str(" Run the following commands:");
        if !in_cred {
            h.push_str(&format!("\n{INDENT}  $ pip install boto3"));
            h.push_str(&format!(
                "\n{INDENT}  $ AWS_SHARED_CREDENTIALS_FILE=~/.coreweave/cw.credentials aws configure --profile cw"
            ));
        }
        if !in_config {
            h.push_str(&format!(
                "\n{INDENT}  $ AWS_CONFIG_FILE=~/.coreweave/cw.config aws configure set endpoint_url <ENDPOINT_URL> --profile cw"
            ));
            h.push_str(&format!(
                "\n{INDENT}  $ AWS_CONFIG_FILE=~/.coreweave/cw.config aws configure set s3.addressing_style virtual --profile cw"
            ));
        }
        h.push_str(&format!(
            "\n{INDENT}For more info: https://docs.coreweave.com/docs/products/storage/object-storage/get-started-caios"
        ));
    }
    Ok(verdict(hints))
}

/// `sky/adaptors/vastdata.py::check_storage_credentials`: the `[vastdata]`
/// profile in `~/.vastdata/vastdata.credentials` and `[profile vastdata]`
/// in `~/.vastdata/vastdata.config`.
fn vastdata(home: &Path) -> Result<StorageOutcome, String> {
    let in_cred = profile_in(home, ".vastdata/vastdata.credentials", "[vastdata]")?;
    let in_config = profile_in(home, ".vastdata/vastdata.config", "[profile vastdata]")?;
    let mut hints = None;
    if !in_cred {
        also(
            &mut hints,
            "[vastdata] profile is not set in ~/.vastdata/vastdata.credentials.",
        );
    }
    if !in_config {
        also(
            &mut hints,
            "[vastdata] profile is not set in ~/.vastdata/vastdata.config.",
        );
    }
    if let Some(h) = &mut hints {
        h.push_str(" Run the following commands:");
        if !in_cred {
            h.push_str(&format!("\n{INDENT}  $ pip install \"skypilot[vastdata]\""));
            h.push_str(&format!(
                "\n{INDENT}  $ AWS_SHARED_CREDENTIALS_FILE=~/.vastdata/vastdata.credentials aws configure --profile vastdata"
            ));
        }
        if !in_config {
            h.push_str(&format!(
                "\n{INDENT}  $ AWS_CONFIG_FILE=~/.vastdata/vastdata.config aws configure set endpoint_url <ENDPOINT_URL> --profile vastdata"
            ));
            // Sic: one space after the indent, and only in this branch.
            h.push_str(&format!(
                "\n{INDENT} For more information, see: https://docs.skypilot.co/en/latest/getting-started/installation.html#vastdata"
            ));
        }
    }
    Ok(verdict(hints))
}

/// `sky/clouds/nebius.py::Nebius._check_storage_credentials`: `[nebius]`
/// in `~/.aws/credentials` and `[profile nebius]` in `~/.aws/config`
/// (those paths, whatever `AWS_SHARED_CREDENTIALS_FILE` says).
fn nebius(home: &Path) -> Result<StorageOutcome, String> {
    let both = profile_in(home, ".aws/credentials", "[nebius]")?
        && profile_in(home, ".aws/config", "[profile nebius]")?;
    if both {
        return Ok(StorageOutcome::Enabled);
    }
    Ok(StorageOutcome::Disabled(format!(
        "[nebius] profile is not set in ~/.aws/credentials. Run the following commands:\
         \n{INDENT}  $ pip install boto3\
         \n{INDENT}  $ aws configure --profile nebius\
         \n{INDENT}For more info: https://docs.skypilot.co/en/latest/getting-started/installation.html#nebius"
    )))
}

/// `sky/clouds/oci.py::OCI._check_storage_credentials`: with the
/// S3-compatible profile (`[oci]` in `~/.oci/s3.credentials` and
/// `[profile oci]` in `~/.oci/s3.config`, `oci_s3.use_s3_api`), storage is
/// enabled (`oci_s3.check_storage_credentials` then finds both); without
/// it, the answer is the compute check's.
fn oci(home: &Path) -> Result<StorageOutcome, String> {
    let s3_api = profile_in(home, ".oci/s3.credentials", "[oci]")?
        && profile_in(home, ".oci/s3.config", "[profile oci]")?;
    Ok(if s3_api {
        StorageOutcome::Enabled
    } else {
        StorageOutcome::SameAsCompute
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(home: &Path, rel: &str, text: &str) {
        let path = home.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn hints_name_only_what_is_missing() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        let StorageOutcome::Disabled(both) = cloudflare(h).unwrap() else {
            panic!()
        };
        assert!(both.starts_with(
            "[r2] profile is not set in ~/.cloudflare/r2.credentials. Additionally, Account ID from R2 dashboard is not set. Run the following commands:\n      $ pip install boto3\n"
        ), "{both}");
        write(
            h,
            ".cloudflare/r2.credentials",
            "[default]\n[r2]\naws_access_key_id = x\n",
        );
        let StorageOutcome::Disabled(one) = cloudflare(h).unwrap() else {
            panic!()
        };
        assert_eq!(
            one,
            "Account ID from R2 dashboard is not set. Run the following commands:\n      $ mkdir -p ~/.cloudflare\n      $ echo <YOUR_ACCOUNT_ID_HERE> > ~/.cloudflare/accountid\n    For more info: https://docs.skypilot.co/en/latest/getting-started/installation.html#cloudflare-r2"
        );
        write(h, ".cloudflare/accountid", "abc\n");
        assert_eq!(cloudflare(h).unwrap(), StorageOutcome::Enabled);

        // The header may sit anywhere on a line, as SkyPilot's `in` test.
        write(h, ".coreweave/cw.credentials", "  [cw]  \n");
        let StorageOutcome::Disabled(cw) = coreweave(h).unwrap() else {
            panic!()
        };
        assert!(
            cw.starts_with("[cw] profile is not set in ~/.coreweave/cw.config. Run"),
            "{cw}"
        );
        assert!(!cw.contains("pip install"), "{cw}");

        assert_eq!(oci(h).unwrap(), StorageOutcome::SameAsCompute);
        write(h, ".oci/s3.credentials", "[oci]\n");
        write(h, ".oci/s3.config", "[profile oci]\n");
        assert_eq!(oci(h).unwrap(), StorageOutcome::Enabled);

        write(h, ".aws/credentials", "[nebius]\n");
        assert!(matches!(nebius(h).unwrap(), StorageOutcome::Disabled(_)));
        write(h, ".aws/config", "[profile nebius]\n");
        assert_eq!(nebius(h).unwrap(), StorageOutcome::Enabled);
    }

    #[test]
    fn a_file_that_cannot_be_read_is_named() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        // A directory where the file should be is "not a file", as `isfile`.
        std::fs::create_dir_all(h.join(".vastdata/vastdata.credentials")).unwrap();
        assert!(matches!(vastdata(h).unwrap(), StorageOutcome::Disabled(_)));
        let big = "x".repeat(MAX_CONFIG_FILE_BYTES as usize + 1);
        write(h, ".vastdata/vastdata.config", &big);
        let err = vastdata(h).unwrap_err();
        assert!(
            err.starts_with("~/.vastdata/vastdata.config: larger than"),
            "{err}"
        );
    }
}
