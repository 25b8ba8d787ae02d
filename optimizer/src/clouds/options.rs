//! The knobs every adapter that asks a service shares — how long to wait
//! for it, how often to ask, how long to keep its answer — declared once.
//! Each adapter's options embed a [`ServiceOptions`] (`service`) with the
//! defaults that suit its service, and say which of these knobs it does
//! not read.

use std::future::Future;
use std::time::Duration;

use tracing::debug;

use crate::state::Clock;

/// How an adapter calls its service and keeps the answer. An adapter's own
/// `Default` states where it departs from the defaults given here.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServiceOptions {
    /// TCP/TLS connect deadline. Default: 1 s.
    pub connect_timeout: Duration,
    /// Deadline of one request (one attempt), answer included. Default: 5 s.
    pub request_timeout: Duration,
    /// Attempts per call on transport errors, throttling and server errors
    /// (1 = no retry). Default: 2.
    pub max_attempts: u32,
    /// Wait before a retry (the first one, where waits grow). Default: 100 ms.
    pub retry_backoff: Duration,
    /// How long a fetched answer is reused. Default: 1 h.
    pub cache_ttl: Duration,
    /// How long to wait for another process fetching the same answer before
    /// fetching anyway. Default: 10 s.
    pub lock_wait: Duration,
    /// The time source for cache ages and signed request times. Default:
    /// the system clock.
    pub clock: Clock,
}

impl Default for ServiceOptions {
    fn default() -> Self {
        ServiceOptions {
            connect_timeout: Duration::from_secs(1),
            request_timeout: Duration::from_secs(5),
            max_attempts: 2,
            retry_backoff: Duration::from_millis(100),
            cache_ttl: Duration::from_secs(60 * 60),
            lock_wait: Duration::from_secs(10),
            clock: Clock::system(),
        }
    }
}

impl ServiceOptions {
    /// Runs `attempt` up to [`max_attempts`](Self::max_attempts) times (at
    /// least once), waiting [`retry_backoff`](Self::retry_backoff) before
    /// each retry, while `transient` says a failure is worth another try.
    /// `service` names the service in log lines.
    pub(crate) async fn retry<T, E, F, Fut>(
        &self,
        service: &str,
        transient: impl Fn(&E) -> bool,
        mut attempt: F,
    ) -> Result<T, E>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let attempts = self.max_attempts.max(1);
        let mut n = 1;
        loop {
            match attempt().await {
                Err(failure) if n < attempts && transient(&failure) => {
                    debug!(attempt = n, "{service} request failed, retrying");
                    tokio::time::sleep(self.retry_backoff).await;
                    n += 1;
                }
                other => return other,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[tokio::test]
    async fn transient_failures_are_retried_up_to_the_attempts() {
        let options = ServiceOptions {
            max_attempts: 3,
            retry_backoff: Duration::ZERO,
            ..ServiceOptions::default()
        };
        let calls = Cell::new(0);
        let always = |transient: bool| {
            let calls = &calls;
            move || {
                calls.set(calls.get() + 1);
                async move { Err::<(), bool>(transient) }
            }
        };
        assert_eq!(options.retry("test", |t| *t, always(true)).await, Err(true));
        assert_eq!(calls.replace(0), 3);
        assert_eq!(
            options.retry("test", |t| *t, always(false)).await,
            Err(false)
        );
        assert_eq!(calls.replace(0), 1);
        let once = ServiceOptions {
            max_attempts: 0,
            ..ServiceOptions::default()
        };
        assert_eq!(once.retry("test", |t| *t, always(true)).await, Err(true));
        assert_eq!(calls.get(), 1);
    }
}
