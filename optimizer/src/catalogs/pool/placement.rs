//! The pool's workers kept on different CPUs ([`Placement`]).
//!
//! A new thread is queued on the CPU of the thread that started it, and a
//! kernel that packs a young process's threads onto few CPUs (this
//! project's CI VMs run one: `kernel.sched_vcpu_pack`) leaves it there
//! while another CPU idles, and later pulls the workers together again:
//! with two workers on two CPUs, in 4 of 6 traced first launches after all
//! 7 bundled catalogs changed the helper waited 1.7–4 ms to run at all, and
//! in one both workers shared one CPU to the end. A helper that narrows its
//! own CPUs to all but its starter's moves at once; the starter holds its
//! own CPU. Each gets every allowed CPU back once the queue has no job
//! left ([`Placement::release`], [`HeldOnCpu`]), so the last pieces can go
//! wherever the kernel finds room. A few system calls; nothing on a single
//! allowed CPU, nor off Linux.

/// Where the pool was started, and the CPUs the process may use.
pub(super) struct Placement {
    #[cfg(target_os = "linux")]
    spawner: usize,
    #[cfg(target_os = "linux")]
    allowed: rustix::thread::CpuSet,
}

/// The starting thread held on its CPU; dropped, it may run on every
/// allowed CPU again.
pub(super) struct HeldOnCpu<'p>(&'p Placement);

impl Drop for HeldOnCpu<'_> {
    fn drop(&mut self) {
        self.0.release();
    }
}

#[cfg(target_os = "linux")]
impl Placement {
    /// The CPU this thread is on and the CPUs it may run on; `None` when
    /// there is no other, or the kernel would not say.
    pub(super) fn here() -> Option<Placement> {
        use rustix::thread::CpuSet;
        let allowed = rustix::thread::sched_getaffinity(None).ok()?;
        let spawner = rustix::thread::sched_getcpu();
        // A CPU outside the mask (the mask changed meanwhile, or a CPU
        // number that cannot be) places nothing.
        let usable = spawner < CpuSet::MAX_CPU && allowed.is_set(spawner) && allowed.count() > 1;
        usable.then_some(Placement { spawner, allowed })
    }

    /// For a helper, first thing: every allowed CPU but the spawner's (it
    /// moves at once). A refusal leaves it where it is.
    pub(super) fn keep_helper_away(&self) {
        let mut elsewhere = self.allowed;
        elsewhere.unset(self.spawner);
        if let Err(e) = rustix::thread::sched_setaffinity(None, &elsewhere) {
            tracing::debug!(error = %e, "cannot move the catalog helper");
        }
    }

    /// For the starting thread, once its helpers are started: its own CPU
    /// only, until the guard is dropped.
    pub(super) fn hold_spawner(&self) -> Option<HeldOnCpu<'_>> {
        let mut here = rustix::thread::CpuSet::new();
        here.set(self.spawner);
        rustix::thread::sched_setaffinity(None, &here).ok()?;
        Some(HeldOnCpu(self))
    }

    /// This thread may run on every CPU the process could when the pool
    /// started again.
    pub(super) fn release(&self) {
        if let Err(e) = rustix::thread::sched_setaffinity(None, &self.allowed) {
            tracing::debug!(error = %e, "cannot give the catalog worker its CPUs back");
        }
    }
}

#[cfg(not(target_os = "linux"))]
impl Placement {
    /// Nothing is placed off Linux.
    pub(super) fn here() -> Option<Placement> {
        None
    }

    pub(super) fn keep_helper_away(&self) {}

    pub(super) fn hold_spawner(&self) -> Option<HeldOnCpu<'_>> {
        None
    }

    pub(super) fn release(&self) {}
}
