//! Paperspace: credentials are local files; there is no network check on the optimizer path.

use futures::future::BoxFuture;

use super::{CheckContext, Cloud, Credentials, catalog_only_check, credentials_from_files};
use planner::check::{CheckOutcome, CloudError};
use planner::cloud::CloudId;

/// The Paperspace adapter.
#[derive(Debug, Clone, Copy, Default)]
pub struct PaperspaceCloud;

impl Cloud for PaperspaceCloud {
    fn id(&self) -> CloudId {
        CloudId::Paperspace
    }

    fn credentials(&self, ctx: &CheckContext) -> Credentials {
        credentials_from_files(
            ctx,
            &[".paperspace/config.json"],
            "Paperspace credentials not found. Put your API key in ~/.paperspace/config.json",
        )
    }

    fn check<'a>(
        &'a self,
        ctx: &'a CheckContext,
    ) -> BoxFuture<'a, Result<CheckOutcome, CloudError>> {
        catalog_only_check(self, ctx)
    }
}
