//! SIGINT and SIGTERM, caught so that an interrupted run still ends
//! through the clean exit (temporary files removed, the trace complete).

/// SIGINT and SIGTERM, as streams (`None` where they cannot be installed:
/// the default action then applies).
pub struct Signals {
    int: Option<tokio::signal::unix::Signal>,
    term: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    /// Installs the handlers; call inside the runtime.
    pub fn new() -> Self {
        use tokio::signal::unix::{SignalKind, signal};
        Signals {
            int: signal(SignalKind::interrupt()).ok(),
            term: signal(SignalKind::terminate()).ok(),
        }
    }

    /// The number of the first signal to arrive.
    pub async fn first(mut self) -> u8 {
        async fn recv(s: &mut Option<tokio::signal::unix::Signal>) {
            match s {
                Some(s) => {
                    s.recv().await;
                }
                None => std::future::pending().await,
            }
        }
        tokio::select! {
            _ = recv(&mut self.int) => 2,
            _ = recv(&mut self.term) => 15,
        }
    }
}
