//! The one function that fans out: a tokio task per enabled cloud (and, for
//! `sky check`, per storage check), each in its own tracing span and under
//! its own deadline, all under a global one.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::task::JoinSet;
use tracing::Instrument;

use super::{CheckContext, Cloud, Credentials, StorageCheck};
use planner::check::{
    CacheUse, CloudError, CloudReport, FanOut, Outcome, StorageOutcome, StorageReport,
};
use planner::cloud::{CloudId, Provider};

/// A deadline that never comes (30 years), for deadlines past `Instant`'s range.
const FAR_FUTURE: Duration = Duration::from_secs(30 * 365 * 86_400);
/// Told how the fan-out progresses, e.g. to show the clouds still pending
/// while a slow one is checked (SkyPilot's "Checking infra choices..."
/// status in `sky.check.check_capabilities`). Calls come from the task that
/// drives the fan-out; implementations must not block.
pub trait FanOutObserver: Send + Sync + std::fmt::Debug {
    /// The checks of `clouds` are about to start.
    fn started(&self, clouds: &[CloudId]);
    /// `cloud`'s check has finished (whatever its outcome).
    fn finished(&self, cloud: CloudId);
    /// Every check has finished or been abandoned at the global deadline.
    fn done(&self);
}

/// How to run the checks.
#[derive(Debug, Clone)]
pub struct FanOutOptions {
    /// Check one cloud after another (SkyPilot's behaviour before its thread pool,
    /// kept so the harness can measure the difference). Default: concurrent.
    pub serial: bool,
    /// Deadline for all checks together; clouds still running are reported as timed out.
    pub global_deadline: Duration,
    /// Told as each check finishes; `None` = nobody is watching.
    pub observer: Option<Arc<dyn FanOutObserver>>,
}

impl FanOutOptions {
    /// The global deadline that goes with a per-cloud one: a second more, so
    /// a cloud that uses all of its own time still reports its own timeout.
    pub fn global_deadline_for(cloud_timeout: Duration) -> Duration {
        cloud_timeout.saturating_add(Duration::from_secs(1))
    }
}

impl Default for FanOutOptions {
    fn default() -> Self {
        FanOutOptions {
            serial: false,
            global_deadline: Duration::from_secs(10),
            observer: None,
        }
    }
}

async fn check_one(cloud: Arc<dyn Cloud>, ctx: Arc<CheckContext>) -> Outcome {
    let span = tracing::Span::current();
    let outcome = match cloud.credentials(&ctx) {
        Credentials::Missing(hint) => Outcome::NoCredentials(hint),
        Credentials::Present(_) => {
            match tokio::time::timeout(ctx.cloud_timeout, cloud.check(&ctx)).await {
                Ok(Ok(o)) => Outcome::Ready(o),
                Ok(Err(e)) => Outcome::Failed(e),
                Err(_) => Outcome::Failed(CloudError::Timeout(ctx.cloud_timeout)),
            }
        }
    };
    let (label, cache) = match &outcome {
        Outcome::Ready(o) => (
            "ok",
            match o.cache {
                CacheUse::None => "none",
                CacheUse::Hit { .. } => "hit",
                CacheUse::Miss => "miss",
            },
        ),
        Outcome::NoCredentials(_) => ("no-credentials", "none"),
        Outcome::Failed(_) => ("failed", "none"),
    };
    // Display, not Debug: trace viewers would otherwise show quoted strings.
    span.record("outcome", tracing::field::display(label));
    span.record("cache", tracing::field::display(cache));
    outcome
}

fn cloud_span(cloud: CloudId) -> tracing::Span {
    // A root span per task: tracing-chrome's async style then gives each cloud its own track.
    let span = tracing::info_span!(
        parent: None,
        "cloud_check",
        cloud = %cloud.name(),
        cache = tracing::field::Empty,
        outcome = tracing::field::Empty
    );
    span.follows_from(tracing::Span::current());
    span
}

/// Checks every cloud, concurrently unless `options.serial`. Never fails: a
/// failed, denied or timed-out cloud is a [`CloudReport`] with [`Outcome::Failed`].
pub async fn fan_out(
    clouds: Vec<Arc<dyn Cloud>>,
    ctx: Arc<CheckContext>,
    options: FanOutOptions,
) -> FanOut {
    fan_out_checks(clouds, Vec::new(), ctx, options).await
}

/// A storage check under the per-cloud deadline; its span records the outcome.
async fn check_storage_one(check: Arc<dyn StorageCheck>, ctx: Arc<CheckContext>) -> StorageOutcome {
    let outcome = match tokio::time::timeout(ctx.cloud_timeout, check.check_storage(&ctx)).await {
        Ok(o) => o,
        Err(_) => StorageOutcome::Failed(CloudError::Timeout(ctx.cloud_timeout)),
    };
    let label = match &outcome {
        StorageOutcome::Enabled => "ok",
        StorageOutcome::Disabled(_) => "disabled",
        StorageOutcome::SameAsCompute => "as-compute",
        StorageOutcome::Failed(_) => "failed",
    };
    tracing::Span::current().record("outcome", tracing::field::display(label));
    outcome
}

fn storage_span(provider: Provider) -> tracing::Span {
    let span = tracing::info_span!(
        parent: None,
        "storage_check",
        provider = %provider.name(),
        outcome = tracing::field::Empty
    );
    span.follows_from(tracing::Span::current());
    span
}

/// A finished task of the fan-out.
enum Done {
    Compute(usize, CloudReport),
    Storage(usize, StorageReport),
}

/// [`fan_out`], plus the storage checks `sky check` makes
/// (`check_storage_credentials`), concurrently with the cloud checks and
/// under the same per-cloud and global deadlines. The observer hears of the
/// cloud checks only; it is told `done` when everything has finished.
pub async fn fan_out_checks(
    clouds: Vec<Arc<dyn Cloud>>,
    storage: Vec<Arc<dyn StorageCheck>>,
    ctx: Arc<CheckContext>,
    options: FanOutOptions,
) -> FanOut {
    let start = Instant::now();
    let ids: Vec<CloudId> = clouds.iter().map(|c| c.id()).collect();
    let providers: Vec<Provider> = storage.iter().map(|s| s.provider()).collect();
    let mut reports: Vec<Option<CloudReport>> = vec![None; clouds.len()];
    let mut storage_reports: Vec<Option<StorageReport>> = vec![None; storage.len()];
    // Saturating: `--cloud-timeout 1e15` is a deadline far away, not a panic.
    let now = tokio::time::Instant::now();
    let deadline = now
        .checked_add(options.global_deadline)
        .unwrap_or_else(|| now + FAR_FUTURE);
    let observer = options.observer.as_deref();
    if let Some(o) = observer {
        o.started(&ids);
    }
    if options.serial {
        for (i, cloud) in clouds.into_iter().enumerate() {
            let started = start.elapsed();
            let id = cloud.id();
            let fut = check_one(cloud, ctx.clone()).instrument(cloud_span(id));
            let outcome = match tokio::time::timeout_at(deadline, fut).await {
                Ok(o) => o,
                Err(_) => Outcome::Failed(CloudError::Timeout(options.global_deadline)),
            };
            reports[i] = Some(CloudReport {
                cloud: id,
                outcome,
                started,
                elapsed: start.elapsed() - started,
            });
            if let Some(o) = observer {
                o.finished(id);
            }
        }
        for (j, check) in storage.into_iter().enumerate() {
            let started = start.elapsed();
            let provider = check.provider();
            let fut = check_storage_one(check, ctx.clone()).instrument(storage_span(provider));
            let outcome = match tokio::time::timeout_at(deadline, fut).await {
                Ok(o) => o,
                Err(_) => StorageOutcome::Failed(CloudError::Timeout(options.global_deadline)),
            };
            storage_reports[j] = Some(StorageReport {
                provider,
                outcome,
                started,
                elapsed: start.elapsed() - started,
            });
        }
    } else {
        let mut set = JoinSet::new();
        for (i, cloud) in clouds.into_iter().enumerate() {
            let ctx = ctx.clone();
            let id = cloud.id();
            set.spawn(
                async move {
                    let started = start.elapsed();
                    let outcome = check_one(cloud, ctx).await;
                    Done::Compute(
                        i,
                        CloudReport {
                            cloud: id,
                            outcome,
                            started,
                            elapsed: start.elapsed() - started,
                        },
                    )
                }
                .instrument(cloud_span(id)),
            );
        }
        for (j, check) in storage.into_iter().enumerate() {
            let ctx = ctx.clone();
            let provider = check.provider();
            set.spawn(
                async move {
                    let started = start.elapsed();
                    let outcome = check_storage_one(check, ctx).await;
                    Done::Storage(
                        j,
                        StorageReport {
                            provider,
                            outcome,
                            started,
                            elapsed: start.elapsed() - started,
                        },
                    )
                }
                .instrument(storage_span(provider)),
            );
        }
        loop {
            match tokio::time::timeout_at(deadline, set.join_next()).await {
                Ok(Some(Ok(Done::Compute(i, report)))) => {
                    if let Some(o) = observer {
                        o.finished(report.cloud);
                    }
                    reports[i] = Some(report);
                }
                Ok(Some(Ok(Done::Storage(j, report)))) => storage_reports[j] = Some(report),
                Ok(Some(Err(join_error))) => {
                    tracing::warn!(error = %join_error, "cloud check task failed");
                }
                Ok(None) => break,
                Err(_) => {
                    set.abort_all();
                    break;
                }
            }
        }
    }
    if let Some(o) = observer {
        o.done();
    }
    let reports = reports
        .into_iter()
        .zip(ids)
        .map(|(r, id)| {
            r.unwrap_or(CloudReport {
                cloud: id,
                outcome: Outcome::Failed(CloudError::Timeout(options.global_deadline)),
                started: Duration::ZERO,
                elapsed: start.elapsed(),
            })
        })
        .collect();
    let storage = storage_reports
        .into_iter()
        .zip(providers)
        .map(|(r, provider)| {
            r.unwrap_or(StorageReport {
                provider,
                outcome: StorageOutcome::Failed(CloudError::Timeout(options.global_deadline)),
                started: Duration::ZERO,
                elapsed: start.elapsed(),
            })
        })
        .collect();
    FanOut {
        reports,
        storage,
        wall: start.elapsed(),
    }
}
