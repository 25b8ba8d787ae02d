//! When a launch's catalog download starts: once its cloud is known to be
//! usable — declared clouds and the `common/` tables at once, the others as
//! soon as the fan-out has found their credentials ([`signal_need`]), not
//! before (no download for a cloud without credentials) nor after (the
//! download runs beside the cloud's own check).

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use planner::check::{CheckOutcome, CloudError};
use planner::cloud::CloudId;
use tokio::sync::oneshot;

use crate::clouds::{CheckContext, Cloud, Credentials};

/// Whether a download is wanted: now, or once the fan-out says the cloud
/// has credentials.
pub enum Need {
    /// Wanted (a declared cloud, the `common/` tables).
    Now,
    /// Wanted if the sender says `true` (dropped: not wanted).
    Later(oneshot::Receiver<bool>),
}

impl Need {
    pub(super) async fn wanted(self) -> bool {
        match self {
            Need::Now => true,
            Need::Later(rx) => rx.await.unwrap_or(false),
        }
    }
}

/// An adapter that reports, as soon as the fan-out has asked it for
/// credentials, whether its cloud is usable, so its catalog download starts
/// then (and only then) instead of before or after the fan-out.
struct Signalling {
    inner: Arc<dyn Cloud>,
    tx: Mutex<Option<oneshot::Sender<bool>>>,
}

impl Cloud for Signalling {
    fn id(&self) -> CloudId {
        self.inner.id()
    }

    fn credentials(&self, ctx: &CheckContext) -> Credentials {
        let found = self.inner.credentials(ctx);
        if let Some(tx) = self.tx.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = tx.send(matches!(found, Credentials::Present(_)));
        }
        found
    }

    fn check<'a>(
        &'a self,
        ctx: &'a CheckContext,
    ) -> BoxFuture<'a, Result<CheckOutcome, CloudError>> {
        self.inner.check(ctx)
    }
}

/// `inner`, reporting its credential check to the returned [`Need`].
pub fn signal_need(inner: Arc<dyn Cloud>) -> (Arc<dyn Cloud>, Need) {
    let (tx, rx) = oneshot::channel();
    (
        Arc::new(Signalling {
            inner,
            tx: Mutex::new(Some(tx)),
        }),
        Need::Later(rx),
    )
}
