//! Azure: credentials are local files; there is no network check on the optimizer path.

use futures::future::BoxFuture;

use super::{CheckContext, Cloud, Credentials, catalog_only_check, credentials_from_files};
use planner::check::{CheckOutcome, CloudError};
use planner::cloud::CloudId;

/// The Azure adapter.
#[derive(Debug, Clone, Copy, Default)]
pub struct AzureCloud;

impl Cloud for AzureCloud {
    fn id(&self) -> CloudId {
        CloudId::Azure
    }

    fn credentials(&self, ctx: &CheckContext) -> Credentials {
        credentials_from_files(
            ctx,
            &[".azure/azureProfile.json"],
            "Azure credentials are not set. Run: az login",
        )
    }

    fn check<'a>(
        &'a self,
        ctx: &'a CheckContext,
    ) -> BoxFuture<'a, Result<CheckOutcome, CloudError>> {
        catalog_only_check(self, ctx)
    }
}
