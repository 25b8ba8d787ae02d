//! Cache writes done behind the answer: the node cache's write-back (for
//! 64 contexts: the entry merged, its MAC, a write and a rename; the
//! listings' JSON is taken when they are listed, see
//! [`NodeCache::put_later`](super::NodeCache::put_later)) is queued when the
//! nodes are listed and done once the table is printed, before the process
//! exits.
//!
//! Done on the calling thread, not beside the plan on a blocking one: `sky`
//! runs glibc malloc with one arena (`bin/sky/malloc.rs`), and a write
//! that allocates beside the plan made the two contend for its lock — the
//! 64-context launch measured ~2 ms slower that way, more than the whole
//! write costs (and again on a thread of its own started as the listings
//! came in: the table 0.5–4 ms later).
//!
//! What stays true: the write is the one [`NodeCache::put_later`](super::NodeCache::put_later)
//! hands over, the same as [`NodeCache::put`](super::NodeCache::put)'s (the entry replaced atomically, by a swap or a rename, never torn; a failure only
//! logged, never the launch's error; nothing secret in it), and it is done
//! before the process exits: by [`WriteBehind::wait`], which a held
//! [`WaitGuard`] calls on every way out of its scope, or at the latest when
//! the `WriteBehind` is dropped. Without a `WriteBehind` in
//! [`KubernetesOptions::write_behind`](super::KubernetesOptions::write_behind)
//! the write is done in place, before the check returns.

use std::fmt;
use std::sync::{Arc, Mutex};

/// A queued write.
type Write = Box<dyn FnOnce() + Send>;

/// Writes queued until the answer is out.
#[derive(Default)]
pub struct WriteBehind {
    queued: Mutex<Vec<Write>>,
}

impl fmt::Debug for WriteBehind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let queued = self.queued.lock().map_or(0, |q| q.len());
        f.debug_struct("WriteBehind")
            .field("queued", &queued)
            .finish()
    }
}

impl WriteBehind {
    /// Queues `write` for [`wait`](Self::wait).
    pub(crate) fn defer(&self, write: impl FnOnce() + Send + 'static) {
        self.queued
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Box::new(write));
    }

    /// Does every write queued so far, in order, on this thread.
    pub fn wait(&self) {
        let queued = std::mem::take(&mut *self.queued.lock().unwrap_or_else(|e| e.into_inner()));
        if queued.is_empty() {
            return;
        }
        let _span = tracing::info_span!("write_behind", writes = queued.len()).entered();
        for write in queued {
            write();
        }
    }

    /// A guard that [waits](Self::wait) when dropped: held for the scope
    /// whose every return must come after the writes.
    pub fn wait_on_drop(self: &Arc<Self>) -> WaitGuard {
        WaitGuard(Arc::clone(self))
    }
}

impl Drop for WriteBehind {
    fn drop(&mut self) {
        // A write nobody waited for is still written.
        self.wait();
    }
}

/// Does a [`WriteBehind`]'s writes when dropped.
#[derive(Debug)]
#[must_use = "the writes are done when the guard is dropped"]
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

    fn counting(writes: &WriteBehind, done: &Arc<AtomicUsize>, n: usize) {
        for i in 0..n {
            let done = Arc::clone(done);
            writes.defer(move || {
                // In order: the i-th write sees i done before it.
                assert_eq!(done.fetch_add(1, Ordering::SeqCst), i);
            });
        }
    }

    #[test]
    fn nothing_is_written_until_the_guard_goes_then_everything_in_order() {
        let writes = Arc::new(WriteBehind::default());
        let done = Arc::new(AtomicUsize::new(0));
        let guard = writes.wait_on_drop();
        counting(&writes, &done, 3);
        assert_eq!(done.load(Ordering::SeqCst), 0);
        drop(guard);
        assert_eq!(done.load(Ordering::SeqCst), 3);
        assert!(writes.queued.lock().unwrap().is_empty());
    }

    #[test]
    fn a_write_nobody_waited_for_is_done_when_the_queue_is_dropped() {
        let done = Arc::new(AtomicUsize::new(0));
        let writes = WriteBehind::default();
        counting(&writes, &done, 2);
        drop(writes);
        assert_eq!(done.load(Ordering::SeqCst), 2);
    }
}
