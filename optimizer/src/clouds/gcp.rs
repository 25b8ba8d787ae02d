//! GCP: credentials are local files; there is no network check on the optimizer path.

use futures::future::BoxFuture;

use super::{
    CheckContext, CheckOutcome, Cloud, CloudError, CloudId, Credentials, catalog_only_check,
    credentials_from_files,
};

/// The GCP adapter.
#[derive(Debug, Clone, Copy, Default)]
pub struct GcpCloud;

impl Cloud for GcpCloud {
    fn id(&self) -> CloudId {
        CloudId::Gcp
    }

    fn credentials(&self, ctx: &CheckContext) -> Credentials {
        credentials_from_files(
            ctx,
            &[
                "GOOGLE_APPLICATION_CREDENTIALS",
                ".config/gcloud/application_default_credentials.json",
            ],
            "GCP credentials are not set. Run: gcloud init && gcloud auth application-default login",
        )
    }

    fn check<'a>(
        &'a self,
        ctx: &'a CheckContext,
    ) -> BoxFuture<'a, Result<CheckOutcome, CloudError>> {
        catalog_only_check(self, ctx)
    }
}
