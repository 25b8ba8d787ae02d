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
        credentials.iter().find_map(|c| found(ctx, c)).map_or_else(
            || Credentials::Missing(hint.to_string()),
            Credentials::Present,
        )
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

/// Where `credential` was found on this machine, if it was. A value held
/// in the environment is described by the variable's name, never its value.
fn found(ctx: &CheckContext, credential: &Credential) -> Option<String> {
    let set = |var: &str| ctx.env.get(var).filter(|v| !v.is_empty());
    let file = match credential {
        Credential::HomeFile(relative) => ctx.home.join(relative),
        Credential::FileFromEnv(var) => PathBuf::from(set(var)?),
        Credential::Env(var) => return set(var).map(|_| format!("${var}")),
        Credential::AllEnv(vars) => {
            return vars.iter().all(|v| set(v).is_some()).then(|| {
                vars.iter()
                    .map(|v| format!("${v}"))
                    .collect::<Vec<_>>()
                    .join(" + ")
            });
        }
        Credential::FileInEnvDir {
            dir_var,
            default_dir,
            file,
        } => match set(dir_var) {
            Some(dir) => PathBuf::from(dir).join(file),
            None => ctx.home.join(default_dir).join(file),
        },
        Credential::HomeFileStartingWith { path, prefix } => {
            let file = ctx.home.join(path);
            // Read as SkyPilot reads it; an unreadable file is no credential.
            let text = std::fs::read_to_string(&file).ok()?;
            return text
                .trim()
                .starts_with(prefix)
                .then(|| file.display().to_string());
        }
    };
    file.is_file().then(|| file.display().to_string())
}
