//! Clouds whose check is only "are the credentials on this machine?": no
//! network call is on the optimizer's path, so one adapter serves them all,
//! reading where to look from the cloud's [`Detection`] in the planner's table.

use std::path::PathBuf;

use futures::future::BoxFuture;
use planner::check::{CacheUse, CheckOutcome, CloudError, CloudFacts};
use planner::cloud::{CloudId, Credential, Detection};

use super::credential_files::{self, FileKeys};
use super::{CheckContext, Cloud, Credentials};

#[cfg(test)]
mod credentials_tests;

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
        // The first credential present wins. A checked file that exists but
        // fails its check is SkyPilot's specific complaint (instead of the
        // hint); a file lacking keys is said before the hint.
        let mut invalid: Option<String> = None;
        let mut incomplete: Option<String> = None;
        for credential in credentials.iter() {
            match found(ctx, credential) {
                Found::Present(place) => return Credentials::Present(place),
                Found::Invalid(reason) => {
                    invalid.get_or_insert(reason);
                }
                Found::Incomplete(why) => {
                    incomplete.get_or_insert(why);
                }
                Found::Absent => {}
            }
        }
        Credentials::Missing(match (invalid, incomplete) {
            (Some(reason), _) => reason,
            (None, Some(why)) => format!("{why}\n{hint}"),
            (None, None) => hint.to_string(),
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

/// What one credential location holds on this machine.
enum Found {
    /// A usable credential; the text says where (a path, or `$NAME`).
    Present(String),
    /// A credential file that exists but fails its content check.
    Invalid(String),
    /// A credential file that lacks keys: which, never a value.
    Incomplete(String),
    /// Nothing there.
    Absent,
}

/// Where `credential` was found on this machine, if it was. A value held
/// in the environment is described by the variable's name, never its value;
/// a file's content is checked, never shown.
fn found(ctx: &CheckContext, credential: &Credential) -> Found {
    let present_file = |file: PathBuf| {
        if file.is_file() {
            Found::Present(file.display().to_string())
        } else {
            Found::Absent
        }
    };
    match credential {
        Credential::HomeFile(relative) => present_file(ctx.home.join(relative)),
        Credential::FileFromEnv(var) => match ctx.env.get(*var).filter(|p| !p.is_empty()) {
            Some(path) => present_file(PathBuf::from(path)),
            None => Found::Absent,
        },
        Credential::Env(var) => match ctx.env.get(*var).filter(|v| !v.is_empty()) {
            Some(_) => Found::Present(format!("${var}")),
            None => Found::Absent,
        },
        Credential::EnvAll(vars) => {
            if vars.iter().all(|v| ctx.env.contains_key(*v)) {
                let names: Vec<String> = vars.iter().map(|v| format!("${v}")).collect();
                Found::Present(names.join(" and "))
            } else {
                Found::Absent
            }
        }
        Credential::AllEnv(vars) => {
            if vars
                .iter()
                .all(|v| ctx.env.get(*v).is_some_and(|x| !x.is_empty()))
            {
                let names: Vec<String> = vars.iter().map(|v| format!("${v}")).collect();
                Found::Present(names.join(" + "))
            } else {
                Found::Absent
            }
        }
        Credential::FileInEnvDir {
            dir_var,
            default_dir,
            file,
        } => match ctx.env.get(*dir_var).filter(|d| !d.is_empty()) {
            Some(dir) => present_file(PathBuf::from(dir).join(file)),
            None => present_file(ctx.home.join(default_dir).join(file)),
        },
        Credential::HomeFileStartingWith { path, prefix } => {
            let file = ctx.home.join(path);
            // Read as SkyPilot reads it; an unreadable file is no credential.
            match std::fs::read_to_string(&file) {
                Ok(text) if text.trim().starts_with(prefix) => {
                    Found::Present(file.display().to_string())
                }
                _ => Found::Absent,
            }
        }
        Credential::HomeFileChecked {
            path,
            check,
            invalid,
        } => {
            let file = ctx.home.join(path);
            if !file.is_file() {
                return Found::Absent;
            }
            match std::fs::read(&file) {
                Ok(content) if check.accepts(&content) => {
                    Found::Present(file.display().to_string())
                }
                // Unreadable counts as invalid: SkyPilot reports the error.
                _ => Found::Invalid(invalid.to_string()),
            }
        }
        Credential::HomeFileKeys { path, syntax, keys } => {
            let file = ctx.home.join(path);
            let shown = file.display();
            match credential_files::check(&file, *syntax, keys) {
                FileKeys::Absent => Found::Absent,
                FileKeys::Complete => Found::Present(shown.to_string()),
                FileKeys::Lacking(missing) => Found::Incomplete(format!(
                    "Missing field(s): {} in {shown}.",
                    missing.join(", ")
                )),
                FileKeys::Unreadable(why) => {
                    Found::Incomplete(format!("Cannot use {shown}: {why}."))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clouds::EnvMap;

    fn context(home: &std::path::Path, env: &[(&str, &str)]) -> CheckContext {
        CheckContext {
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<EnvMap>(),
            home: home.to_path_buf(),
            state_dir: home.join(".sky"),
            refresh: false,
            cloud_timeout: std::time::Duration::from_secs(1),
            kubernetes_allowed_contexts: None,
            reservation_clouds: Vec::new(),
            gcp_project_id: None,
            sky_config: Default::default(),
        }
    }

    /// One machine: files below a fresh home (path, content) and variables.
    struct Case {
        cloud: CloudId,
        files: &'static [(&'static str, &'static str)],
        env: &'static [(&'static str, &'static str)],
        /// `Ok(where)` with `~` for the home, or `Err(start of the hint)`.
        expect: Result<&'static str, &'static str>,
    }

    const CASES: &[Case] = &[
        Case {
            cloud: CloudId::Seeweb,
            files: &[],
            env: &[],
            expect: Err("Missing Seeweb API key file ~/.seeweb_cloud/seeweb_keys."),
        },
        Case {
            cloud: CloudId::Seeweb,
            files: &[(".seeweb_cloud/seeweb_keys", "[DEFAULT]\napi_key = k\n")],
            env: &[],
            expect: Ok("~/.seeweb_cloud/seeweb_keys"),
        },
        Case {
            cloud: CloudId::Seeweb,
            // Lambda's format, without the section configparser needs.
            files: &[(".seeweb_cloud/seeweb_keys", "api_key = k\n")],
            env: &[],
            expect: Err("Missing or empty api_key in ~/.seeweb_cloud/seeweb_keys."),
        },
        Case {
            cloud: CloudId::Shadeform,
            files: &[],
            env: &[],
            expect: Err(
                "Shadeform API key not found. Please save your API key to ~/.shadeform/api_key",
            ),
        },
        Case {
            cloud: CloudId::Shadeform,
            files: &[(".shadeform/api_key", "\n  \n")],
            env: &[],
            expect: Err("Shadeform API key is empty in ~/.shadeform/api_key"),
        },
        Case {
            cloud: CloudId::Shadeform,
            files: &[(".shadeform/api_key", "sf-key\n")],
            env: &[],
            expect: Ok("~/.shadeform/api_key"),
        },
        Case {
            cloud: CloudId::Vast,
            files: &[],
            env: &[],
            expect: Err("Vast credentials not found."),
        },
        Case {
            cloud: CloudId::Vast,
            files: &[(".config/vastai/vast_api_key", "")],
            env: &[],
            expect: Ok("~/.config/vastai/vast_api_key"),
        },
        Case {
            cloud: CloudId::Verda,
            files: &[],
            env: &[("VERDA_CLIENT_ID", "id")],
            expect: Err("Verda Cloud configuration not found."),
        },
        Case {
            cloud: CloudId::Verda,
            files: &[],
            // Set counts, even empty, as `'NAME' in os.environ`.
            env: &[("VERDA_CLIENT_ID", "id"), ("VERDA_CLIENT_SECRET", "")],
            expect: Ok("$VERDA_CLIENT_ID and $VERDA_CLIENT_SECRET"),
        },
        Case {
            cloud: CloudId::Verda,
            files: &[(".verda/config.json", "{\"client_id\": \"id\"}")],
            env: &[
                ("DATACRUNCH_CLIENT_ID", "id"),
                ("DATACRUNCH_CLIENT_SECRET", "secret-value"),
            ],
            expect: Ok("$DATACRUNCH_CLIENT_ID and $DATACRUNCH_CLIENT_SECRET"),
        },
        Case {
            cloud: CloudId::Verda,
            files: &[(".verda/config.json", "{\"client_id\": \"id\"}")],
            env: &[],
            expect: Err("Verda Cloud Client ID or Client Secret is missing or empty"),
        },
        Case {
            cloud: CloudId::Verda,
            files: &[(
                ".verda/config.json",
                "{\"client_id\": \"id\", \"client_secret\": \"s\"}",
            )],
            env: &[],
            expect: Ok("~/.verda/config.json"),
        },
        Case {
            cloud: CloudId::Yotta,
            files: &[],
            env: &[],
            expect: Err("Failed to access Yotta Cloud with credentials."),
        },
        Case {
            cloud: CloudId::Yotta,
            files: &[(".yotta/credentials", "org:key")],
            env: &[],
            expect: Ok("~/.yotta/credentials"),
        },
    ];

    #[test]
    fn credentials_are_found_where_skypilot_looks_and_never_shown() {
        for (i, case) in CASES.iter().enumerate() {
            let home = tempfile::tempdir().unwrap();
            for (path, content) in case.files {
                let file = home.path().join(path);
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(&file, content).unwrap();
            }
            let ctx = context(home.path(), case.env);
            let adapter = CatalogOnlyCloud::new(case.cloud).expect("file-detected cloud");
            let got = adapter.credentials(&ctx);
            let home_text = home.path().display().to_string();
            match (&got, case.expect) {
                (Credentials::Present(place), Ok(want)) => {
                    assert_eq!(place.replace(&home_text, "~"), want, "case {i}");
                    for (_, value) in case.env {
                        assert!(
                            value.is_empty() || !place.contains(value),
                            "case {i}: {place}"
                        );
                    }
                }
                (Credentials::Missing(hint), Err(start)) => {
                    assert!(hint.starts_with(start), "case {i}: {hint}");
                }
                _ => panic!("case {i} ({:?}): got {got:?}", case.cloud),
            }
        }
    }

    /// What a case expects: found at this file (below home), or missing
    /// with a reason starting like this (the setup hint follows).
    enum Want {
        At(&'static str),
        Missing(&'static str),
    }

    /// One case: the cloud, files below home (path, content), the answer.
    type KeyCase = (CloudId, &'static [(&'static str, &'static str)], Want);

    #[test]
    fn credential_files_are_checked_as_skypilot_checks_them() {
        use Want::*;
        const VSPHERE_OK: &str = "vcenters:\n  - name: vc1\n    username: u\n    password: p\n    clusters:\n      - name: c1\n";
        let cases: &[KeyCase] = &[
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
