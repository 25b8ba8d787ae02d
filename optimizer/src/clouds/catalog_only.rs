//! Clouds whose check is only "are the credentials on this machine?": no
//! network call is on the optimizer's path, so one adapter serves them all,
//! reading where to look from the cloud's [`Detection`] in the planner's table.

use std::path::PathBuf;

use futures::future::BoxFuture;
use planner::check::{CacheUse, CheckOutcome, CloudError, CloudFacts};
use planner::cloud::{CloudId, Credential, Detection};

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
        // The first credential present wins; a checked file that exists but
        // fails its check is SkyPilot's specific complaint, if nothing else
        // is present.
        let mut invalid: Option<&'static str> = None;
        for credential in credentials.iter() {
            match found(ctx, credential) {
                Found::Present(place) => return Credentials::Present(place),
                Found::Invalid(reason) => {
                    invalid.get_or_insert(reason);
                }
                Found::Absent => {}
            }
        }
        Credentials::Missing(invalid.unwrap_or(hint).to_string())
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
    Invalid(&'static str),
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
                _ => Found::Invalid(invalid),
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
}
