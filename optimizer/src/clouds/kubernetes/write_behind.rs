//! Cache writes done behind the answer: the node cache's write-back (some
//! 3 M instructions for 64 contexts: HMAC keys, the entry serialised, a
//! write and a rename) runs on a blocking thread while the launch goes on
//! to assemble, plan and print, and the caller waits for it before the
//! process exits.
//!
//! What stays true: the write is the same [`NodeCache::put`](super::NodeCache::put)
//! (the entry replaced by an atomic rename, never torn; a failure only
//! logged, never the launch's error; nothing secret in it), and a caller
//! that holds a [`WaitGuard`] does not return before every write handed
//! over has finished. Without a `WriteBehind` in
//! [`KubernetesOptions::write_behind`](super::KubernetesOptions::write_behind)
//! the write is done in place, before the check returns.

use std::fmt;
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};

/// Writes handed to blocking threads, to be waited for before exit.
#[derive(Default)]
pub struct WriteBehind {
    /// One receiver per write: it yields (or disconnects) once the write
    /// has returned (or panicked).
    pending: Mutex<Vec<Receiver<()>>>,
}

impl fmt::Debug for WriteBehind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pending = self.pending.lock().map_or(0, |p| p.len());
        f.debug_struct("WriteBehind")
            .field("pending", &pending)
            .finish()
    }
}

impl WriteBehind {
    /// Runs `write` on the runtime's blocking pool (a thread the node
    /// cache's read under `--refresh` has usually left idle), or in place
    /// outside a runtime.
    pub(crate) fn spawn(&self, write: impl FnOnce() + Send + 'static) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            write();
            return;
        };
        let (done, waited) = channel();
        self.pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(waited);
        // The handle is not kept: `wait` reads the channel, which a panic
        // in `write` disconnects as surely as its end.
        drop(runtime.spawn_blocking(move || {
            write();
            let _ = done.send(());
        }));
    }

    /// Blocks until every write handed over so far has finished.
    pub fn wait(&self) {
        let pending = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()));
        if pending.is_empty() {
            return;
        }
        let _span = tracing::info_span!("write_behind_wait", writes = pending.len()).entered();
        for waited in pending {
            // `Err`: the write panicked; nothing is left to wait for.
            let _ = waited.recv();
        }
    }

    /// A guard that [waits](Self::wait) when dropped: held for the scope
    /// whose every return must come after the writes.
    pub fn wait_on_drop(self: &Arc<Self>) -> WaitGuard {
        WaitGuard(Arc::clone(self))
    }
}

/// Waits for a [`WriteBehind`]'s writes when dropped.
#[derive(Debug)]
#[must_use = "the writes are waited for when the guard is dropped"]
pub struct WaitGuard(Arc<WriteBehind>);

impl Drop for WaitGuard {
    fn drop(&mut self) {
        self.0.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[tokio::test(flavor = "current_thread")]
    async fn the_guard_returns_only_after_every_write() {
        let writes = Arc::new(WriteBehind::default());
        let done = Arc::new(AtomicUsize::new(0));
        for _ in 0..3 {
            let done = Arc::clone(&done);
            writes.spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                done.fetch_add(1, Ordering::SeqCst);
            });
        }
        drop(writes.wait_on_drop());
        assert_eq!(done.load(Ordering::SeqCst), 3);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_panicking_write_is_not_waited_for_forever() {
        let writes = Arc::new(WriteBehind::default());
        writes.spawn(|| panic!("the disk is on fire"));
        writes.wait();
        assert!(writes.pending.lock().unwrap().is_empty());
    }

    #[test]
    fn outside_a_runtime_the_write_is_done_in_place() {
        let writes = WriteBehind::default();
        let done = Arc::new(AtomicUsize::new(0));
        let d = Arc::clone(&done);
        writes.spawn(move || {
            d.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(done.load(Ordering::SeqCst), 1);
        assert!(writes.pending.lock().unwrap().is_empty());
    }
}
