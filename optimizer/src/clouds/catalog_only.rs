//! Clouds whose check is only "are the credentials on this machine?": no
//! network call is on the optimizer's path, so one adapter serves them all,
//! reading where to look from the cloud's [`Detection`] in the planner's table.

use std::path::PathBuf;

use futures::future::BoxFuture;
use planner::check::{CacheUse, CheckOutcome, CloudError, CloudFacts};
use planner::cloud::{CloudId, Credential, Detection};

use super::credential_files::{self, FileKeys};
use super::{CheckContext, Cloud, Credentials};

/// The adapter of a cloud whose [`Detection`] is [`Detection::Files`].
#[derive(Debug, Clone, Copy)]
pub struct CatalogOnlyCloud {
    id: CloudId,
}

impl CatalogOnlyCloud {
    /// The adapter for `id`, or `None` when the cloud needs an adapter of
    /// its own ([`Detection::Adapter`]).
    pub fn new(id: CloudId) -> Option<CatalogOnlyCloud> {
        matches!(id.spec().detection, Detection::Files { .. }).then_some(CatalogOnlyCloud { id })
    }
}

impl Cloud for CatalogOnlyCloud {
    fn id(&self) -> CloudId {
        self.id
    }

    fn credentials(&self, ctx: &CheckContext) -> Credentials {
        let Detection::Files { credentials, hint } = &self.id.spec().detection else {
            // `new` admits only file-detected clouds.
            return Credentials::Missing(format!("{} needs its own adapter", self.id.repr()));
        };
        // The first credential found wins; a file that is there but lacks
        // keys is what the user needs to hear about, before the setup hint.
        let mut incomplete: Option<String> = None;
        for c in *credentials {
            match found(ctx, c) {
                Found::At(place) => return Credentials::Present(place),
                Found::Incomplete(why) => {
                    incomplete.get_or_insert(why);
                }
                Found::Absent => {}
            }
        }
        Credentials::Missing(match incomplete {
            Some(why) => format!("{why}\n{hint}"),
            None => hint.to_string(),
        })
    }

    fn check<'a>(
        &'a self,
        _ctx: &'a CheckContext,
    ) -> BoxFuture<'a, Result<CheckOutcome, CloudError>> {
        Box::pin(async {
            Ok(CheckOutcome {
                facts: CloudFacts::Catalog,
                cache: CacheUse::None,
            })
        })
    }
}

/// What looking for one credential found.
enum Found {
    /// There, usable: where (a path, or `$VAR` for a value in the environment).
    At(String),
    /// There but unusable: why, naming the missing keys, never a value.
    Incomplete(String),
    /// Not there.
    Absent,
}

/// Where `credential` was found on this machine, if it was. A value held
/// in the environment is described by the variable's name, never its value.
fn found(ctx: &CheckContext, credential: &Credential) -> Found {
    let file = match credential {
        Credential::HomeFile(relative) => ctx.home.join(relative),
        Credential::FileFromEnv(var) => match ctx.env.get(*var).filter(|p| !p.is_empty()) {
            Some(p) => PathBuf::from(p),
            None => return Found::Absent,
        },
        Credential::Env(var) => {
            return match ctx.env.get(*var).filter(|v| !v.is_empty()) {
                Some(_) => Found::At(format!("${var}")),
                None => Found::Absent,
            };
        }
        Credential::HomeFileKeys { path, syntax, keys } => {
            let file = ctx.home.join(path);
            let shown = file.display();
            return match credential_files::check(&file, *syntax, keys) {
                FileKeys::Absent => Found::Absent,
                FileKeys::Complete => Found::At(shown.to_string()),
                FileKeys::Lacking(missing) => Found::Incomplete(format!(
                    "Missing field(s): {} in {shown}.",
                    missing.join(", ")
                )),
                FileKeys::Unreadable(why) => {
                    Found::Incomplete(format!("Cannot use {shown}: {why}."))
                }
            };
        }
    };
    if file.is_file() {
        Found::At(file.display().to_string())
    } else {
        Found::Absent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(home: &std::path::Path, env: &[(&str, &str)]) -> CheckContext {
        CheckContext {
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            home: home.to_path_buf(),
            state_dir: home.join(".sky"),
            refresh: false,
            cloud_timeout: std::time::Duration::from_secs(1),
            kubernetes_allowed_contexts: None,
            reservation_clouds: Vec::new(),
            gcp_project_id: None,
        }
    }

    /// What a case expects: found at this file (below home), or missing
    /// with a reason starting like this (the setup hint follows).
    enum Want {
        At(&'static str),
        Missing(&'static str),
    }

    /// One case: the cloud, files below home (path, content), the answer.
    type Case = (CloudId, &'static [(&'static str, &'static str)], Want);

    #[test]
    fn credential_files_are_checked_as_skypilot_checks_them() {
        use Want::*;
        const VSPHERE_OK: &str = "vcenters:\n  - name: vc1\n    username: u\n    password: p\n    clusters:\n      - name: c1\n";
        let cases: &[Case] = &[
            (CloudId::Ibm, &[], Missing("IBM credentials not found.")),
            (
                CloudId::Ibm,
                &[(
                    ".ibm/credentials.yaml",
                    "iam_api_key: key\nresource_group_id: group\n",
                )],
                At(".ibm/credentials.yaml"),
            ),
            (
                CloudId::Ibm,
                &[(".ibm/credentials.yaml", "iam_api_key: key\n")],
                Missing("Missing field(s): resource_group_id in "),
            ),
            (CloudId::Scp, &[], Missing("SCP credentials not found.")),
            (
                CloudId::Scp,
                &[(
                    ".scp/scp_credential",
                    "access_key = a\nsecret_key = s\nproject_id = p\n",
                )],
                At(".scp/scp_credential"),
            ),
            (
                CloudId::Scp,
                &[(".scp/scp_credential", "access_key=a\nsecret_key = s\n")],
                Missing("Missing field(s): access_key, project_id in "),
            ),
            (
                CloudId::Vsphere,
                &[],
                Missing("vSphere credentials not found."),
            ),
            (
                CloudId::Vsphere,
                &[(".vsphere/credential.yaml", VSPHERE_OK)],
                At(".vsphere/credential.yaml"),
            ),
            (
                CloudId::Vsphere,
                &[(
                    ".vsphere/credential.yaml",
                    "vcenters:\n  - name: vc1\n    username: u\n",
                )],
                Missing("Missing field(s): vcenters[].password, vcenters[].clusters in "),
            ),
            (
                CloudId::Vsphere,
                &[(".vsphere/credential.yaml", "vcenters: [\n")],
                Missing("Cannot use "),
            ),
            // The vSphere catalog alone is not a credential.
            (
                CloudId::Vsphere,
                &[(".sky/catalogs/v8/vsphere/vms.csv", "InstanceType\n")],
                Missing("vSphere credentials not found."),
            ),
        ];
        for (cloud, files, want) in cases {
            let home = tempfile::tempdir().unwrap();
            for (path, text) in *files {
                let path = home.path().join(path);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, text).unwrap();
            }
            let adapter = CatalogOnlyCloud::new(*cloud).expect("file-detected cloud");
            let got = adapter.credentials(&context(home.path(), &[]));
            match (want, &got) {
                (At(rel), Credentials::Present(place)) => {
                    assert_eq!(*place, home.path().join(rel).display().to_string())
                }
                (Missing(start), Credentials::Missing(why)) => {
                    assert!(why.starts_with(start), "{cloud:?} {files:?}: {why}");
                    let hint = match &cloud.spec().detection {
                        Detection::Files { hint, .. } => *hint,
                        Detection::Adapter => unreachable!(),
                    };
                    assert!(
                        why.ends_with(hint),
                        "{cloud:?}: the setup hint closes {why}"
                    );
                }
                _ => panic!("{cloud:?} {files:?}: got {got:?}"),
            }
        }
    }

    #[test]
    fn reasons_name_missing_keys_never_values() {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join(".ibm/credentials.yaml");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "iam_api_key: Sup3rS3cr3tValue\n").unwrap();
        let adapter = CatalogOnlyCloud::new(CloudId::Ibm).unwrap();
        let got = adapter.credentials(&context(home.path(), &[]));
        let Credentials::Missing(why) = got else {
            panic!("{got:?}");
        };
        assert!(why.contains("resource_group_id"), "{why}");
        assert!(!why.contains("Sup3rS3cr3tValue"), "{why}");
    }
}
