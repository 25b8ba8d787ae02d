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
//! already handed in, into the catalog's image ([`Slot::take`]: one that
//! finds a writer goes back to parsing); the one that writes its last
//! piece stores the image and decodes it for the launch, while the others
//! still parse. A panic ends its job's catalog, not the worker
//! ([`Slot::panicked`]). Written pieces' buffers are shared for the next
//! parses ([`Spares`]), and the workers are kept on different CPUs until
//! the last job is taken ([`Placement`]).
//!
//! The workers keep the launch's priority (the per-catalog parser threads
//! lowered theirs, nine of them sharing the lowered weight): a launch
//! waits for its last piece, and a lowered worker holding it on a busy
//! machine runs at a tenth of the weight of any other process's thread.
//! A pool is at most one thread per core, so the cloud checks on the
//! launch's own thread still get their share.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use planner::catalog::{CatalogError, CsvSlices, PIECE_BYTES, ParsedPiece, SlicePiece};
use planner::cloud::CloudId;

use super::{Parsed, VmsResult, bundled, store_image_bytes};
use crate::config::ConfigError;
use crate::state::CatalogIndex;

mod placement;
use placement::Placement;

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

impl Miss {
    /// The error of a catalog whose parse did not end (a panic, or a job
    /// left undone).
    fn parser_failed(&self) -> ConfigError {
        ConfigError::Catalog(CatalogError::Read {
            source_name: self.name.clone(),
            message: "catalog parser failed".into(),
        })
    }
}

/// One catalog of the pool: its pieces parsed so far, written in order.
///
/// A worker that parses a piece hands it in ([`Slot::take`]) and, unless
/// another worker is writing this catalog's pieces, writes every piece
/// now in order. A worker that finds a writer goes back to parsing: it
/// would otherwise sleep on the lock while the writer copies pieces into
/// the image (a third of a piece's time), and wake it to hand over, a
/// pair of context switches a piece. (It may still wait for a writer that
/// has just found nothing more to write and is letting go.)
///
/// A lock poisoned by a panic is taken as it is: the worker that panicked
/// ends the catalog ([`Slot::panicked`]) before anyone can write into it.
struct Slot<'a> {
    miss: Miss,
    /// A piece failed to parse or write: its later pieces are skipped.
    failed: AtomicBool,
    /// The pieces handed in and not yet written, and who writes them; held
    /// only for a few map operations.
    inbox: Mutex<Inbox>,
    /// The image being written and the result: held by the worker writing,
    /// by the cut that starts the image, and by a worker ending the catalog.
    state: Mutex<SlotState<'a>>,
}

/// `mutex` locked, poisoned or not (see [`Slot`]).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
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
            let mut inbox = lock(&self.inbox);
            inbox.waiting.insert(seq, parsed);
            if inbox.writing {
                return;
            }
            inbox.writing = true;
        }
        let mut state = lock(&self.state);
        let state = &mut *state;
        let Some(slices) = state.slices.as_mut() else {
            self.stop_writing();
            return;
        };
        loop {
            let next = slices.written();
            let piece = {
                let mut inbox = lock(&self.inbox);
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
        let mut inbox = lock(&self.inbox);
        inbox.waiting.clear();
        inbox.writing = false;
    }

    /// A job of this catalog panicked: the catalog ends with an error (an
    /// error already found stays), its image unfinished. The image is let
    /// go before the writer's flag is cleared, so that no worker writes
    /// into an image a panic left half-written.
    fn panicked(&self) {
        {
            let mut state = lock(&self.state);
            let error = match state.result.take() {
                Some(Err(e)) => e,
                _ => self.miss.parser_failed(),
            };
            self.fail(&mut state, error);
        }
        self.stop_writing();
    }

    /// Cuts the catalog `csv` into pieces, its image's writer kept here;
    /// none if its header is refused (that is its result).
    fn cut(&self, csv: &'a [u8]) -> Vec<SlicePiece<'a>> {
        let cut = CsvSlices::new(self.miss.cloud, csv, &self.miss.name);
        let mut state = lock(&self.state);
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
        lock(&self.pieces).pop()
    }

    /// Keeps a written piece for the next parse (or drops it).
    fn give(&self, piece: ParsedPiece) {
        let mut pieces = lock(&self.pieces);
        if pieces.len() < self.keep {
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

impl Job<'_> {
    /// The slot of the catalog it is for.
    fn slot(&self) -> usize {
        match self {
            Job::Cut(slot) | Job::Parse(slot, _) => *slot,
        }
    }
}

/// The jobs of a pool: catalogs to cut first (each cut is quick and gives
/// pieces for every worker), then pieces.
struct Jobs<'a> {
    queue: Mutex<Queue<'a>>,
    /// Told when a cut has queued its pieces.
    cut: Condvar,
}

impl<'a> Jobs<'a> {
    /// The next job, and whether it was the last one (no other will
    /// come); `None` once nothing is left to cut or parse.
    fn next(&self) -> Option<(Job<'a>, bool)> {
        let mut queue = self.queue.lock().ok()?;
        loop {
            if let Some(slot) = queue.cuts.pop_front() {
                queue.cutting += 1;
                return Some((Job::Cut(slot), false));
            }
            if let Some(((slot, _), piece)) = queue.pieces.pop_first() {
                let last = queue.pieces.is_empty() && queue.cuts.is_empty() && queue.cutting == 0;
                return Some((Job::Parse(slot, Box::new(piece)), last));
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
    let run = |job: Job<'static>| match job {
        Job::Cut(at) => {
            let slot = &slots[at];
            let _span =
                tracing::info_span!("catalog_cut", cloud = slot.miss.cloud.name()).entered();
            // Told on drop: a cut that panicked must not leave the other
            // workers waiting for its pieces.
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
                return;
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
    };
    // Each worker runs jobs until none is left; `release` gives it every
    // CPU back once the last job is taken (see `placement`).
    let work = |release: &dyn Fn()| {
        let mut released = false;
        while let Some((job, last)) = jobs.next() {
            if last {
                release();
                released = true;
            }
            let at = job.slot();
            // A panic ends its job's catalog (with an error), not the
            // worker: the other catalogs are still parsed.
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(job))).is_err() {
                slots[at].panicked();
            }
        }
        if !released {
            release();
        }
    };
    let placement = (workers > 1).then(Placement::here).flatten();
    std::thread::scope(|s| {
        let handles: Vec<_> = (1..workers)
            .map(|_| {
                // At the priority of the launch: see the module's note.
                s.spawn(|| match &placement {
                    Some(placement) => {
                        placement.keep_helper_away();
                        work(&|| placement.release());
                    }
                    None => work(&|| {}),
                })
            })
            .collect();
        let held = Mutex::new(placement.as_ref().and_then(|placement| {
            let held = placement.hold_spawner();
            // A helper queued behind this thread runs now, and moves.
            std::thread::yield_now();
            held
        }));
        work(&|| drop(lock(&held).take()));
        for handle in handles {
            // A worker's panics are caught job by job; one that escaped
            // left its job undone: that catalog's result says so below.
            let _ = handle.join();
        }
    });
    slots
        .into_iter()
        .map(|slot| {
            let result = slot
                .state
                .into_inner()
                .unwrap_or_else(PoisonError::into_inner)
                .result
                .unwrap_or_else(|| Err(slot.miss.parser_failed()));
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

    /// Every catalog of `clouds` (at its place) parsed by a pool of
    /// `cores` workers into a new index; the results in that order.
    fn parse_all(
        clouds: &[CloudId],
        cores: usize,
        decode: &Decode<'_>,
    ) -> (tempfile::TempDir, CatalogIndex, Vec<(usize, VmsResult)>) {
        let tmp = tempfile::tempdir().unwrap();
        let index = index_in(&tmp);
        let misses = clouds
            .iter()
            .enumerate()
            .map(|(at, &c)| miss(at, c))
            .collect();
        let mut results = parse_bundled(misses, &index, cores, decode);
        results.sort_by_key(|(at, _)| *at);
        (tmp, index, results)
    }

    #[test]
    fn every_pool_size_stores_each_catalog_as_parsed_whole() {
        let clouds = bundled_clouds();
        assert!(clouds.len() >= 7, "{clouds:?}");
        let whole: Vec<Vec<u8>> = clouds.iter().map(|&c| image_parsed_whole(c)).collect();
        for cores in [1, 2, 3, 8] {
            let (_tmp, index, results) = parse_all(&clouds, cores, &decode_all(&clouds));
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

    /// `pieces` with each piece in `bad` a parse error naming it.
    fn with_bad(
        pieces: Vec<(u64, ParsedPiece)>,
        bad: &[u64],
    ) -> Vec<(u64, Result<ParsedPiece, CatalogError>)> {
        pieces
            .into_iter()
            .map(|(seq, piece)| {
                let parsed = if bad.contains(&seq) {
                    Err(CatalogError::Read {
                        source_name: "vms.csv".into(),
                        message: format!("piece {seq} is bad"),
                    })
                } else {
                    Ok(piece)
                };
                (seq, parsed)
            })
            .collect()
    }

    /// The error a slot ended with, and that it stored no image.
    fn ended_with(slot: Slot<'_>, index: &CatalogIndex) -> String {
        assert!(slot.failed.load(Ordering::Relaxed));
        assert!(slot.inbox.lock().unwrap().waiting.is_empty());
        assert!(index.read("test/aws", "f1").is_none());
        match slot.state.into_inner().unwrap().result {
            Some(Err(e)) => e.to_string(),
            other => panic!("{:?}", other.map(|r| r.map(|_| ()))),
        }
    }

    #[test]
    fn the_first_bad_piece_in_file_order_ends_its_catalog() {
        let clouds = [CloudId::Aws];
        // The later bad piece handed in first, then the rest from the
        // last: the pieces after each bad one wait, the bad ones are
        // reached in file order.
        let (slot, pieces) = slot_and_pieces(CloudId::Aws);
        let mut pieces = with_bad(pieces, &[3, 6]);
        pieces.reverse();
        let six = pieces.iter().position(|(seq, _)| *seq == 6).unwrap();
        pieces.swap(0, six);
        let tmp = tempfile::tempdir().unwrap();
        let index = index_in(&tmp);
        hand_in(&slot, pieces, 2, &index, &decode_all(&clouds));
        let error = ended_with(slot, &index);
        assert!(error.contains("piece 3 is bad"), "{error}");

        // Pieces 0 to 3 first: the catalog ends at piece 3, and the pieces
        // handed in after it are dropped, not kept.
        let (slot, pieces) = slot_and_pieces(CloudId::Aws);
        let pieces = with_bad(pieces, &[3]);
        let tmp = tempfile::tempdir().unwrap();
        let index = index_in(&tmp);
        hand_in(&slot, pieces, 1, &index, &decode_all(&clouds));
        let error = ended_with(slot, &index);
        assert!(error.contains("piece 3 is bad"), "{error}");
    }

    /// This thread's CPUs.
    #[cfg(target_os = "linux")]
    fn my_cpus() -> Vec<usize> {
        let set = rustix::thread::sched_getaffinity(None).unwrap();
        (0..rustix::thread::CpuSet::MAX_CPU)
            .filter(|&cpu| set.is_set(cpu))
            .collect()
    }

    #[test]
    fn a_panic_ends_only_its_catalog_and_the_cpus_are_given_back() {
        let clouds = bundled_clouds();
        #[cfg(target_os = "linux")]
        let before = my_cpus();
        let decode = |at: usize, parsed: Parsed| {
            assert!(clouds[at] != CloudId::Gcp, "a decoder that panics");
            decode_all(&clouds)(at, parsed)
        };
        for cores in [1, 2, 4] {
            let (_tmp, _index, results) = parse_all(&clouds, cores, &decode);
            assert_eq!(results.len(), clouds.len());
            for (at, result) in results {
                match (clouds[at], result) {
                    (CloudId::Gcp, Err(e)) => {
                        assert!(e.to_string().contains("catalog parser failed"), "{e}")
                    }
                    (CloudId::Gcp, Ok(_)) => panic!("gcp decoded on {cores} cores"),
                    (cloud, result) => assert!(result.is_ok(), "{cloud:?} on {cores} cores"),
                }
            }
            #[cfg(target_os = "linux")]
            assert_eq!(my_cpus(), before, "{cores} cores");
        }
    }
}
