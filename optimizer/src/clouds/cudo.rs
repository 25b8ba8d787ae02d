//! Cudo Compute: credentials are local files; there is no network check on the optimizer path.

use futures::future::BoxFuture;

use super::{CheckContext, Cloud, Credentials, catalog_only_check, credentials_from_files};
use planner::check::{CheckOutcome, CloudError};
use planner::cloud::CloudId;

/// The Cudo Compute adapter.
#[derive(Debug, Clone, Copy, Default)]
pub struct CudoCloud;

impl Cloud for CudoCloud {
    fn id(&self) -> CloudId {
        CloudId::Cudo
    }

    fn credentials(&self, ctx: &CheckContext) -> Credentials {
        credentials_from_files(
            ctx,
            &[".config/cudo/cudo.yml"],
            "Cudo credentials not found. Run: cudoctl init",
        )
    }

    fn check<'a>(
        &'a self,
        ctx: &'a CheckContext,
    ) -> BoxFuture<'a, Result<CheckOutcome, CloudError>> {
        catalog_only_check(self, ctx)
    }
}
