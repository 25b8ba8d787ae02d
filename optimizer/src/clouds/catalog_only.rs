//! Clouds whose check is only "are the credentials on this machine?": no
//! network call is on the optimizer's path, so one adapter serves them all,
//! reading where to look from the cloud's [`Detection`] in the planner's table.

use std::path::PathBuf;

use futures::future::BoxFuture;
use planner::check::{CacheUse, CheckOutcome, CloudError, CloudFacts};
use planner::cloud::{CloudId, Credential, Detection};

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
    let file = match credential {
        Credential::HomeFile(relative) => ctx.home.join(relative),
        Credential::FileFromEnv(var) => PathBuf::from(ctx.env.get(*var).filter(|p| !p.is_empty())?),
        Credential::Env(var) => {
            return ctx
                .env
                .get(*var)
                .filter(|v| !v.is_empty())
                .map(|_| format!("${var}"));
        }
    };
    file.is_file().then(|| file.display().to_string())
}
