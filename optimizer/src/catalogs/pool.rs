//! The bundled catalogs without a current image, parsed together by one
//! pool of workers, one per core ([`parse_bundled`]).
//!
//! A bundled `vms.csv` is already in memory (the binary's own bytes), so
//! it is cut into pieces that borrow it ([`CsvSlices`]), and the pieces
//! of every catalog, the largest catalog's first, are one queue the
//! workers take from in turn; the workers cut the catalogs themselves
//! first (a cut is a pass over the bytes; the largest is taken first).
//! Both cores stay busy to the end (the last pieces are the smallest
//! catalogs'), and the launch starts one thread per core instead of one
//! per catalog and per part: each thread costs its start, its stack and,
//! with glibc, a malloc arena whose pages are faulted in anew (seven
//! catalogs on two cores ran nine parser threads, 1.2 CPUs utilised). A
//! worker that parses a catalog's piece hands it in; unless another
//! worker is writing that catalog, it writes it, and the pieces after it
//! already handed in, into the catalog's image ([`Slot::take`]: no worker
//! waits for another's writing); the one that writes its last piece
//! stores the image and decodes it for the launch, while the others
//! still parse. Written pieces' buffers are shared for the next parses
//! ([`Spares`]), and the workers are kept on different CPUs
//! ([`Placement`]).
//!
//! The workers keep the launch's priority (the per-catalog parser threads
//! lowered theirs, nine of them sharing the lowered weight): a launch
//! waits for its last piece, and a lowered worker holding it on a busy
//! machine runs at a tenth of the weight of any other process's thread.
//! A pool is at most one thread per core, so the cloud checks on the
//! launch's own thread still get their share.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};

use planner::catalog::{CatalogError, CsvSlices, PIECE_BYTES, ParsedPiece, SlicePiece};
use planner::cloud::CloudId;

use super::{Parsed, VmsResult, bundled, store_image_bytes};
use crate::config::ConfigError;
use crate::state::CatalogIndex;

/// A bundled catalog to parse: its place in the launch's list, its cloud,
/// the key and fingerprint its image is stored under, and its name in
/// errors and warnings.
pub(super) struct Miss {
    pub(super) at: usize,
    pub(super) cloud: CloudId,
    pub(super) key: String,
    pub(super) fingerprint: String,
    pub(super) name: String,
}

/// One catalog of the pool: its pieces parsed so far, written in order.
///
/// A worker that parses a piece hands it in ([`Slot::take`]) and, unless
/// another worker is writing this catalog's pieces, writes every piece
/// now in order. It never waits for a writer: a worker that found the
/// writer busy would otherwise sleep on the lock while the writer copies
/// pieces into the image (a third of a piece's time), and wake it to hand
/// over, a pair of context switches a piece.
struct Slot<'a> {
    miss: Miss,
    /// A piece failed to parse or write: its later pieces are skipped.
    failed: AtomicBool,
    /// The pieces handed in and not yet written; held only to add or take one.
    inbox: Mutex<Inbox>,
    /// The writer's side: held by the one worker writing (so never waited for
    /// long), and by nobody else.
    state: Mutex<SlotState<'a>>,
}

#[derive(Default)]
struct Inbox {
    /// Pieces parsed before the ones ahead of them, by their place.
    waiting: BTreeMap<u64, Result<ParsedPiece, CatalogError>>,
    /// A worker is writing this catalog's pieces: it takes those handed in.
    writing: bool,
}

struct SlotState<'a> {
    /// The image being written (taken once it is finished).
    slices: Option<CsvSlices<'a>>,
    /// The catalog, its image decoded, or why it has none.
    result: Option<VmsResult>,
}

impl<'a> Slot<'a> {
    /// Hands in the parse of piece `seq`; unless another worker is
    /// writing, writes every piece now in order (each written piece onto
    /// `spares`, its buffers to reuse), and, once the last is written,
    /// finishes and stores the image and decodes it (`decode`).
    fn take(
        &self,
        seq: u64,
        parsed: Result<ParsedPiece, CatalogError>,
        index: &CatalogIndex,
        spares: &Spares,
        decode: &Decode<'_>,
    ) {
        {
            let Ok(mut inbox) = self.inbox.lock() else {
                self.failed.store(true, Ordering::Relaxed);
                return;
            };
            inbox.waiting.insert(seq, parsed);
            if inbox.writing {
                return;
            }
            inbox.writing = true;
        }
        let Ok(mut state) = self.state.lock() else {
            self.failed.store(true, Ordering::Relaxed);
            return;
        };
        let state = &mut *state;
        let Some(slices) = state.slices.as_mut() else {
            self.stop_writing();
            return;
        };
        loop {
            let next = slices.written();
            let piece = {
                let Ok(mut inbox) = self.inbox.lock() else {
                    self.failed.store(true, Ordering::Relaxed);
                    return;
                };
                match inbox.waiting.remove(&next) {
                    Some(piece) => piece,
                    // Handed in later, the next piece finds no writer and
                    // its worker writes it (the flag is cleared under the
                    // lock it is tested under).
                    None => {
                        inbox.writing = false;
                        break;
                    }
                }
            };
            match piece.and_then(|piece| slices.write(piece)) {
                Ok(spare) => spares.give(spare),
                Err(e) => {
                    self.fail(state, e.into());
                    self.stop_writing();
                    return;
                }
            }
        }
        if !slices.all_written() {
            return;
        }
        let Some(slices) = state.slices.take() else {
            return;
        };
        let image = {
            let _span = tracing::info_span!("catalog_image_write", cloud = self.miss.cloud.name())
                .entered();
            slices.finish().inspect(|image| {
                let Miss {
                    key,
                    fingerprint,
                    name,
                    ..
                } = &self.miss;
                store_image_bytes(index, key, fingerprint, image, name);
            })
        };
        // Decoded here, while the other workers still parse, not after
        // the last piece of every catalog.
        state.result = Some(match image {
            Ok(image) => decode(self.miss.at, Parsed::Image(image)),
            Err(e) => Err(e.into()),
        });
    }

    /// No piece is written any more: those handed in are dropped, and a
    /// worker that hands one in finds nothing to write it into.
    fn stop_writing(&self) {
        if let Ok(mut inbox) = self.inbox.lock() {
            inbox.waiting.clear();
            inbox.writing = false;
        }
    }

    /// Cuts the catalog `csv` into pieces, its image's writer kept here;
    /// none if its header is refused (that is its result).
    fn cut(&self, csv: &'a [u8]) -> Vec<SlicePiece<'a>> {
        let cut = CsvSlices::new(self.miss.cloud, csv, &self.miss.name);
        let Ok(mut state) = self.state.lock() else {
            self.failed.store(true, Ordering::Relaxed);
            return Vec::new();
        };
        match cut {
            Ok(mut slices) => {
                let pieces = slices.take_pieces();
                state.slices = Some(slices);
                pieces
            }
            Err(e) => {
                self.fail(&mut state, e.into());
                Vec::new()
            }
        }
    }

    /// The catalog's parse ends with `e` (the first error in file order).
    fn fail(&self, state: &mut SlotState<'_>, e: ConfigError) {
        self.failed.store(true, Ordering::Relaxed);
        state.slices = None;
        state.result = Some(Err(e));
    }
}

/// Written pieces, their buffers to parse the next pieces into, shared by
/// the workers: a piece is written by whichever worker writes its
/// catalog, which is often not the one that parsed it, and a worker that
/// kept only the pieces it wrote would parse into new buffers. A piece's
/// rows alone are ~140 KB, above glibc's threshold for a block of its own,
/// which is mapped, faulted in page by page and unmapped again.
struct Spares {
    pieces: Mutex<Vec<ParsedPiece>>,
    /// How many are kept: one a worker, and one more for the writer's
    /// turn; more only hold memory.
    keep: usize,
}

impl Spares {
    /// A written piece to parse into, if one is kept.
    fn take(&self) -> Option<ParsedPiece> {
        self.pieces.lock().ok()?.pop()
    }

    /// Keeps a written piece for the next parse (or drops it).
    fn give(&self, piece: ParsedPiece) {
        if let Ok(mut pieces) = self.pieces.lock()
            && pieces.len() < self.keep
        {
            pieces.push(piece);
        }
    }
}

/// What the workers take from, under one lock.
#[derive(Default)]
struct Queue<'a> {
    /// Catalogs still to cut into pieces (by slot), the largest first.
    cuts: VecDeque<usize>,
    /// Cuts under way: their pieces are still to come.
    cutting: usize,
    /// Pieces to parse by (slot, place): the largest catalog's first.
    pieces: BTreeMap<(usize, u64), SlicePiece<'a>>,
}

/// One job of a worker.
enum Job<'a> {
    /// Cut this slot's catalog into pieces.
    Cut(usize),
    /// Parse this piece of this slot's catalog (boxed: a piece is a few
    /// hundred bytes, mostly its header's column positions).
    Parse(usize, Box<SlicePiece<'a>>),
}

/// The jobs of a pool: catalogs to cut first (each cut is quick and gives
/// pieces for every worker), then pieces.
struct Jobs<'a> {
    queue: Mutex<Queue<'a>>,
    /// Told when a cut has queued its pieces.
    cut: Condvar,
}

impl<'a> Jobs<'a> {
    /// The next job; `None` once nothing is left to cut or parse.
    fn next(&self) -> Option<Job<'a>> {
        let mut queue = self.queue.lock().ok()?;
        loop {
            if let Some(slot) = queue.cuts.pop_front() {
                queue.cutting += 1;
                return Some(Job::Cut(slot));
            }
            if let Some(((slot, _), piece)) = queue.pieces.pop_first() {
                return Some(Job::Parse(slot, Box::new(piece)));
            }
            if queue.cutting == 0 {
                return None;
            }
            // Another worker is cutting: its pieces are the only work left.
            queue = self.cut.wait(queue).ok()?;
        }
    }

    /// A cut of slot `slot` is over, with these pieces (none if it failed).
    fn cut_done(&self, slot: usize, pieces: Vec<SlicePiece<'a>>) {
        if let Ok(mut queue) = self.queue.lock() {
            queue.cutting = queue.cutting.saturating_sub(1);
            queue
                .pieces
                .extend(pieces.into_iter().map(|piece| ((slot, piece.seq()), piece)));
        }
        self.cut.notify_all();
    }
}

/// The pool's workers kept on different CPUs while they parse: the
/// helpers off the CPU the pool was started on, the starting thread on it.
///
/// A new thread is queued on the CPU of the thread that started it, and a
/// kernel that packs a young process's threads onto few CPUs (this
/// project's CI VMs run one: `kernel.sched_vcpu_pack`) leaves it there
/// while another CPU idles, and later pulls the workers together again:
/// with two workers on two CPUs, in 18 of 20 first launches after all 7
/// bundled catalogs changed a worker waited 0.5 ms or more to run (2 to 4
/// ms in the worst), and in some both shared one CPU to the end. A few
/// system calls; nothing on a single allowed CPU. The starting thread
/// gets every allowed CPU back when the pool ends ([`HeldOnCpu`]); the
/// helpers end with it.
struct Placement {
    /// The CPU the pool was started on.
    spawner: usize,
    /// The CPUs the process may run on.
    allowed: rustix::thread::CpuSet,
}

impl Placement {
    /// The CPU this thread is on and the CPUs it may run on; `None` when
    /// there is no other (or the kernel would not say).
    fn here() -> Option<Placement> {
        let allowed = rustix::thread::sched_getaffinity(None).ok()?;
        let spawner = rustix::thread::sched_getcpu();
        let others = allowed.count() - u32::from(allowed.is_set(spawner));
        (others > 0).then_some(Placement { spawner, allowed })
    }

    /// For a helper, first thing: every allowed CPU but the spawner's (it
    /// moves at once). A refusal leaves it where it is.
    fn keep_helper_away(&self) {
        let mut elsewhere = self.allowed;
        elsewhere.unset(self.spawner);
        let _ = rustix::thread::sched_setaffinity(None, &elsewhere);
    }

    /// For the starting thread, once its helpers are started: its own CPU
    /// only, until the guard is dropped.
    fn hold_spawner(&self) -> Option<HeldOnCpu<'_>> {
        let mut here = rustix::thread::CpuSet::new();
        here.set(self.spawner);
        rustix::thread::sched_setaffinity(None, &here).ok()?;
        Some(HeldOnCpu(&self.allowed))
    }
}

/// The starting thread held on its CPU; dropped, it may run on every
/// allowed CPU again.
struct HeldOnCpu<'p>(&'p rustix::thread::CpuSet);

impl Drop for HeldOnCpu<'_> {
    fn drop(&mut self) {
        let _ = rustix::thread::sched_setaffinity(None, self.0);
    }
}

/// The end of a cut, told to its [`Jobs`] when dropped.
struct CutDone<'j, 'a> {
    jobs: &'j Jobs<'a>,
    slot: usize,
    pieces: Vec<SlicePiece<'a>>,
}

impl Drop for CutDone<'_, '_> {
    fn drop(&mut self) {
        self.jobs
            .cut_done(self.slot, std::mem::take(&mut self.pieces));
    }
}

/// What a catalog's parse becomes, given its miss's `at`: its image decoded
/// for the rows the launch reads, on the worker that finished the image.
pub(super) type Decode<'d> = dyn Fn(usize, Parsed) -> VmsResult + Sync + 'd;

/// Parses the bundled catalogs `misses` into their images (stored in
/// `index`) on up to `cores` workers (no more than there are pieces):
/// scoped threads, started first, and this thread. Each image is decoded
/// (`decode`) as soon as it is finished; each result is given with its
/// miss's `at`.
pub(super) fn parse_bundled(
    mut misses: Vec<Miss>,
    index: &CatalogIndex,
    cores: usize,
    decode: &Decode<'_>,
) -> Vec<(usize, VmsResult)> {
    // The largest first: its pieces are the first taken, and the smallest
    // catalogs' pieces even out the end.
    let csv = |cloud: CloudId| bundled::vms_csv(cloud).unwrap_or_default();
    misses.sort_by_key(|miss| std::cmp::Reverse(csv(miss.cloud).len()));
    // No more workers than there will be pieces: one small catalog changed
    // needs no helper, and on a many-core host not one per core.
    let pieces: usize = misses
        .iter()
        .map(|miss| csv(miss.cloud).len().div_ceil(PIECE_BYTES).max(1))
        .sum();
    let workers = cores.min(pieces).max(1);
    let slots: Vec<Slot<'static>> = misses
        .into_iter()
        .map(|miss| Slot {
            miss,
            failed: AtomicBool::new(false),
            inbox: Mutex::new(Inbox::default()),
            state: Mutex::new(SlotState {
                slices: None,
                result: None,
            }),
        })
        .collect();
    let spares = Spares {
        pieces: Mutex::new(Vec::new()),
        keep: workers + 1,
    };
    let jobs = Jobs {
        queue: Mutex::new(Queue {
            cuts: (0..slots.len()).collect(),
            ..Queue::default()
        }),
        cut: Condvar::new(),
    };
    let work = || {
        while let Some(job) = jobs.next() {
            match job {
                Job::Cut(at) => {
                    let slot = &slots[at];
                    let _span = tracing::info_span!("catalog_cut", cloud = slot.miss.cloud.name())
                        .entered();
                    // Told on drop: a cut that panicked must not leave
                    // the other workers waiting for its pieces.
                    let mut done = CutDone {
                        jobs: &jobs,
                        slot: at,
                        pieces: Vec::new(),
                    };
                    done.pieces = slot.cut(csv(slot.miss.cloud));
                }
                Job::Parse(at, piece) => {
                    let slot = &slots[at];
                    if slot.failed.load(Ordering::Relaxed) {
                        continue;
                    }
                    let parsed = {
                        let _span = tracing::info_span!(
                            "catalog_parse",
                            cloud = slot.miss.cloud.name(),
                            piece = piece.seq()
                        )
                        .entered();
                        piece.parse_reusing(spares.take())
                    };
                    slot.take(piece.seq(), parsed, index, &spares, decode);
                }
            }
        }
    };
    let placement = (workers > 1).then(Placement::here).flatten();
    std::thread::scope(|s| {
        let handles: Vec<_> = (1..workers)
            .map(|_| {
                // At the priority of the launch: see the module's note.
                s.spawn(|| {
                    if let Some(placement) = &placement {
                        placement.keep_helper_away();
                    }
                    work()
                })
            })
            .collect();
        let _held = placement.as_ref().and_then(|placement| {
            let held = placement.hold_spawner();
            // A helper queued behind this thread runs now, and moves.
            rustix::thread::sched_yield();
            held
        });
        // A panic here leaves its job undone like a helper's does (and is
        // reported the same way below) instead of unwinding the launch.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
        for handle in handles {
            // A worker that panicked left its job undone: that catalog's
            // result says so below.
            let _ = handle.join();
        }
    });
    slots
        .into_iter()
        .map(|slot| {
            let result = slot
                .state
                .into_inner()
                .ok()
                .and_then(|state| state.result)
                .unwrap_or_else(|| {
                    Err(ConfigError::Catalog(CatalogError::Read {
                        source_name: slot.miss.name.clone(),
                        message: "catalog parser failed".into(),
                    }))
                });
            (slot.miss.at, result)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogs::Input;
    use crate::state::StateDir;
    use planner::catalog::CloudCatalog;
    use planner::catalog::selection::RowSelection;

    /// Every cloud with a bundled catalog, in `CloudId::ALL`'s order.
    fn bundled_clouds() -> Vec<CloudId> {
        CloudId::ALL
            .into_iter()
            .filter(|&cloud| bundled::vms_csv(cloud).is_some())
            .collect()
    }

    fn miss(at: usize, cloud: CloudId) -> Miss {
        Miss {
            at,
            cloud,
            key: format!("test/{}", cloud.name()),
            fingerprint: "f1".into(),
            name: format!("<bundled>/{}/vms.csv", cloud.name()),
        }
    }

    /// The image of `cloud`'s bundled catalog parsed whole, on one thread.
    fn image_parsed_whole(cloud: CloudId) -> Vec<u8> {
        let csv = bundled::vms_csv(cloud).unwrap();
        let (catalog, warnings) = CloudCatalog::from_bytes(cloud, csv, "vms.csv").unwrap();
        catalog.to_image(&warnings)
    }

    /// Decodes every row, for the cloud at each `at` of `clouds`.
    fn decode_all(clouds: &[CloudId]) -> impl Fn(usize, Parsed) -> VmsResult + Sync + '_ {
        move |at, parsed| parsed.decode(clouds[at], &Input::Bundled, &RowSelection::All.matcher())
    }

    fn index_in(tmp: &tempfile::TempDir) -> CatalogIndex {
        CatalogIndex::open(&StateDir::open(tmp.path().join("state")).unwrap()).unwrap()
    }

    #[test]
    fn every_pool_size_stores_each_catalog_as_parsed_whole() {
        let clouds = bundled_clouds();
        assert!(clouds.len() >= 7, "{clouds:?}");
        let whole: Vec<Vec<u8>> = clouds.iter().map(|&c| image_parsed_whole(c)).collect();
        for cores in [1, 2, 3, 8] {
            let tmp = tempfile::tempdir().unwrap();
            let index = index_in(&tmp);
            let misses = clouds
                .iter()
                .enumerate()
                .map(|(at, &c)| miss(at, c))
                .collect();
            let mut results = parse_bundled(misses, &index, cores, &decode_all(&clouds));
            results.sort_by_key(|(at, _)| *at);
            assert_eq!(results.len(), clouds.len(), "{cores} cores");
            for ((at, result), cloud) in results.into_iter().zip(&clouds) {
                let (catalog, _) =
                    result.unwrap_or_else(|e| panic!("{cloud:?}, {cores} cores: {e}"));
                assert_eq!(catalog.cloud, *cloud, "result {at}, {cores} cores");
                let stored = index.read(&format!("test/{}", cloud.name()), "f1").unwrap();
                assert!(
                    stored == whole[at],
                    "{cloud:?}: image differs on {cores} cores"
                );
                let (from_whole, _) =
                    CloudCatalog::from_image(*cloud, &whole[at], "vms.csv").unwrap();
                assert_eq!(catalog.rows, from_whole.rows, "{cloud:?}");
            }
        }
    }

    /// A slot of `cloud`'s bundled catalog, cut, and its pieces parsed.
    fn slot_and_pieces(cloud: CloudId) -> (Slot<'static>, Vec<(u64, ParsedPiece)>) {
        let slot = Slot {
            miss: miss(0, cloud),
            failed: AtomicBool::new(false),
            inbox: Mutex::new(Inbox::default()),
            state: Mutex::new(SlotState {
                slices: None,
                result: None,
            }),
        };
        let pieces = slot
            .cut(bundled::vms_csv(cloud).unwrap())
            .iter()
            .map(|piece| (piece.seq(), piece.parse().unwrap()))
            .collect();
        (slot, pieces)
    }

    /// Hands `pieces` in from `threads` threads at once, each taking the
    /// next of them in the given order.
    fn hand_in(
        slot: &Slot<'_>,
        pieces: Vec<(u64, Result<ParsedPiece, CatalogError>)>,
        threads: usize,
        index: &CatalogIndex,
        decode: &Decode<'_>,
    ) {
        let queue = Mutex::new(pieces.into_iter());
        let spares = Spares {
            pieces: Mutex::new(Vec::new()),
            keep: 2,
        };
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| {
                    loop {
                        let next = queue.lock().unwrap().next();
                        let Some((seq, parsed)) = next else { break };
                        slot.take(seq, parsed, index, &spares, decode);
                    }
                });
            }
        });
    }

    #[test]
    fn pieces_handed_in_in_any_order_from_several_threads_are_written_in_order() {
        let cloud = CloudId::Aws;
        let clouds = [cloud];
        let whole = image_parsed_whole(cloud);
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for round in 0..12 {
            let (slot, pieces) = slot_and_pieces(cloud);
            assert!(pieces.len() > 8, "{} pieces", pieces.len());
            let mut pieces: Vec<_> = pieces.into_iter().map(|(s, p)| (s, Ok(p))).collect();
            // Fisher-Yates with xorshift: every order is possible.
            for i in (1..pieces.len()).rev() {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                pieces.swap(i, (seed % (i as u64 + 1)) as usize);
            }
            let tmp = tempfile::tempdir().unwrap();
            let index = index_in(&tmp);
            hand_in(&slot, pieces, 1 + round % 4, &index, &decode_all(&clouds));
            let result = slot.state.into_inner().unwrap().result;
            assert!(matches!(result, Some(Ok(_))), "round {round}");
            assert!(
                index.read("test/aws", "f1").unwrap() == whole,
                "round {round}"
            );
        }
    }

    #[test]
    fn a_piece_that_failed_ends_its_catalog_with_its_error() {
        let cloud = CloudId::Aws;
        let clouds = [cloud];
        let (slot, pieces) = slot_and_pieces(cloud);
        let failed_at = 3;
        // Handed in last first: the pieces after the failed one are
        // written before it is (none is written after).
        let pieces: Vec<_> = pieces
            .into_iter()
            .rev()
            .map(|(seq, piece)| {
                let parsed = if seq == failed_at {
                    Err(CatalogError::Read {
                        source_name: "vms.csv".into(),
                        message: "piece 3 is bad".into(),
                    })
                } else {
                    Ok(piece)
                };
                (seq, parsed)
            })
            .collect();
        let tmp = tempfile::tempdir().unwrap();
        let index = index_in(&tmp);
        hand_in(&slot, pieces, 2, &index, &decode_all(&clouds));
        assert!(slot.failed.load(Ordering::Relaxed));
        assert!(slot.inbox.lock().unwrap().waiting.is_empty());
        let result = slot.state.into_inner().unwrap().result;
        match result {
            Some(Err(e)) => assert!(e.to_string().contains("piece 3 is bad"), "{e}"),
            other => panic!("{:?}", other.map(|r| r.map(|_| ()))),
        }
        assert!(index.read("test/aws", "f1").is_none());
    }
}
