//! Lambda Cloud: credentials are local files; there is no network check on the optimizer path.

use futures::future::BoxFuture;

use super::{CheckContext, Cloud, Credentials, catalog_only_check, credentials_from_files};
use planner::check::{CheckOutcome, CloudError};
use planner::cloud::CloudId;

/// The Lambda Cloud adapter.
#[derive(Debug, Clone, Copy, Default)]
pub struct LambdaCloud;

impl Cloud for LambdaCloud {
    fn id(&self) -> CloudId {
        CloudId::Lambda
    }

    fn credentials(&self, ctx: &CheckContext) -> Credentials {
        credentials_from_files(
            ctx,
            &[".lambda_cloud/lambda_keys"],
            "Lambda credentials not found. Put your API key in ~/.lambda_cloud/lambda_keys as: api_key = <key>",
        )
    }

    fn check<'a>(
        &'a self,
        ctx: &'a CheckContext,
    ) -> BoxFuture<'a, Result<CheckOutcome, CloudError>> {
        catalog_only_check(self, ctx)
    }
}
