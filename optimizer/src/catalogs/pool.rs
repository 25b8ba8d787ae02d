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
//! worker that parses a catalog's piece writes it, and the pieces after
//! it already parsed, into that catalog's image; the one that writes its
//! last piece stores the image.
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

use super::{Parsed, bundled, store_image_bytes};
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
struct Slot<'a> {
    miss: Miss,
    /// A piece failed to parse or write: its later pieces are skipped.
    failed: AtomicBool,
    state: Mutex<SlotState<'a>>,
}

struct SlotState<'a> {
    /// The image being written (taken once it is finished).
    slices: Option<CsvSlices<'a>>,
    /// Pieces parsed before the ones ahead of them, by their place.
    waiting: BTreeMap<u64, Result<ParsedPiece, CatalogError>>,
    /// The catalog's image, or why it has none.
    result: Option<Result<Parsed, ConfigError>>,
}

impl<'a> Slot<'a> {
    /// Takes the parse of piece `seq`, writes every piece now in order
    /// (each written piece onto `spares`, its buffers to reuse), and, once
    /// the last is written, finishes and stores the image.
    fn take(
        &self,
        seq: u64,
        parsed: Result<ParsedPiece, CatalogError>,
        index: &CatalogIndex,
        spares: &mut Vec<ParsedPiece>,
    ) {
        let Ok(mut state) = self.state.lock() else {
            self.failed.store(true, Ordering::Relaxed);
            return;
        };
        let state = &mut *state;
        let Some(slices) = state.slices.as_mut() else {
            return;
        };
        state.waiting.insert(seq, parsed);
        let mut next = slices.written();
        while let Some(parsed) = state.waiting.remove(&next) {
            next += 1;
            match parsed.and_then(|piece| slices.write(piece)) {
                // Two are enough for the next pieces; more only hold memory.
                Ok(spare) if spares.len() < 2 => spares.push(spare),
                Ok(_) => {}
                Err(e) => {
                    self.fail(state, e.into());
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
        let _span =
            tracing::info_span!("catalog_image_write", cloud = self.miss.cloud.name()).entered();
        state.result = Some(match slices.finish() {
            Ok(image) => {
                let Miss {
                    key,
                    fingerprint,
                    name,
                    ..
                } = &self.miss;
                store_image_bytes(index, key, fingerprint, &image, name);
                Ok(Parsed::Image(image))
            }
            Err(e) => Err(e.into()),
        });
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
        state.waiting.clear();
        state.result = Some(Err(e));
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

/// Parses the bundled catalogs `misses` into their images (stored in
/// `index`) on up to `cores` workers (no more than there are pieces):
/// scoped threads, started first, and this thread. Each result is given with its miss's `at`.
pub(super) fn parse_bundled(
    mut misses: Vec<Miss>,
    index: &CatalogIndex,
    cores: usize,
) -> Vec<(usize, Result<Parsed, ConfigError>)> {
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
            state: Mutex::new(SlotState {
                slices: None,
                waiting: BTreeMap::new(),
                result: None,
            }),
        })
        .collect();
    let jobs = Jobs {
        queue: Mutex::new(Queue {
            cuts: (0..slots.len()).collect(),
            ..Queue::default()
        }),
        cut: Condvar::new(),
    };
    let work = || {
        // Pieces this worker wrote, their buffers reused for the next: a
        // piece's rows alone are ~140 KB, above glibc's threshold for a
        // block of its own, which is mapped, faulted in and unmapped again.
        let mut spares: Vec<ParsedPiece> = Vec::new();
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
                        piece.parse_reusing(spares.pop())
                    };
                    slot.take(piece.seq(), parsed, index, &mut spares);
                }
            }
        }
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = (1..workers)
            .map(|_| {
                // At the priority of the launch: see the module's note.
                s.spawn(work)
            })
            .collect();
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
