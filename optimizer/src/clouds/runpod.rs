//! RunPod: credentials are local files; there is no network check on the optimizer path.

use futures::future::BoxFuture;

use super::{CheckContext, Cloud, Credentials, catalog_only_check, credentials_from_files};
use planner::check::{CheckOutcome, CloudError};
use planner::cloud::CloudId;

/// The RunPod adapter.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunpodCloud;

impl Cloud for RunpodCloud {
    fn id(&self) -> CloudId {
        CloudId::Runpod
    }

    fn credentials(&self, ctx: &CheckContext) -> Credentials {
        credentials_from_files(
            ctx,
            &[".runpod/config.toml"],
            "RunPod credentials not found. Run: runpod config",
        )
    }

    fn check<'a>(
        &'a self,
        ctx: &'a CheckContext,
    ) -> BoxFuture<'a, Result<CheckOutcome, CloudError>> {
        catalog_only_check(self, ctx)
    }
}
