//! The bundled catalogs without a current image, parsed together by one
//! pool of workers, one per core ([`parse_bundled`]).
//!
//! A bundled `vms.csv` is already in memory (the binary's own bytes), so
//! it is cut into pieces that borrow it ([`CsvSlices`]) before any parsing
//! starts, and the pieces of every catalog, the largest catalog's first,
//! are one list the workers take from in turn. Both cores stay busy to
//! the end (the last pieces are the smallest catalogs'), and the launch
//! starts one thread per core instead of one per catalog and per part:
//! each thread costs its start, its stack and, with glibc, a malloc arena
//! whose pages are faulted in anew (seven catalogs on two cores ran nine
//! parser threads, 1.2 CPUs utilised). A worker that parses a catalog's
//! piece writes it, and the pieces after it already parsed, into that
//! catalog's image; the one that writes its last piece stores the image.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use planner::catalog::{CatalogError, CsvSlices, ParsedPiece, SlicePiece};
use planner::cloud::CloudId;

use super::{Parsed, bundled, lower_this_threads_priority, store_image_bytes};
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

impl Slot<'_> {
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

    /// The catalog's parse ends with `e` (the first error in file order).
    fn fail(&self, state: &mut SlotState<'_>, e: ConfigError) {
        self.failed.store(true, Ordering::Relaxed);
        state.slices = None;
        state.waiting.clear();
        state.result = Some(Err(e));
    }
}

/// Parses the bundled catalogs `misses` into their images (stored in
/// `index`) on `cores` workers: this thread and `cores - 1` scoped threads
/// of lowered priority. Each result is given with its miss's `at`.
pub(super) fn parse_bundled(
    mut misses: Vec<Miss>,
    index: &CatalogIndex,
    cores: usize,
) -> Vec<(usize, Result<Parsed, ConfigError>)> {
    // The largest first: its pieces are the first taken, and the smallest
    // catalogs' pieces even out the end.
    let csv = |cloud: CloudId| bundled::vms_csv(cloud).unwrap_or_default();
    misses.sort_by_key(|miss| std::cmp::Reverse(csv(miss.cloud).len()));
    let mut done: Vec<(usize, Result<Parsed, ConfigError>)> = Vec::new();
    let mut slots: Vec<Slot<'static>> = Vec::new();
    let mut pieces: Vec<Vec<SlicePiece<'static>>> = Vec::new();
    for miss in misses {
        match CsvSlices::new(miss.cloud, csv(miss.cloud), &miss.name) {
            Ok(mut slices) => {
                pieces.push(slices.take_pieces());
                slots.push(Slot {
                    miss,
                    failed: AtomicBool::new(false),
                    state: Mutex::new(SlotState {
                        slices: Some(slices),
                        waiting: BTreeMap::new(),
                        result: None,
                    }),
                });
            }
            Err(e) => done.push((miss.at, Err(e.into()))),
        }
    }
    let jobs: Vec<(usize, SlicePiece<'static>)> = pieces
        .into_iter()
        .enumerate()
        .flat_map(|(slot, pieces)| pieces.into_iter().map(move |piece| (slot, piece)))
        .collect();
    let next = AtomicUsize::new(0);
    let work = || {
        // Pieces this worker wrote, their buffers reused for the next: a
        // piece's rows alone are ~140 KB, above glibc's threshold for a
        // block of its own, which is mapped, faulted in and unmapped again.
        let mut spares: Vec<ParsedPiece> = Vec::new();
        loop {
            let Some((slot, piece)) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) else {
                break;
            };
            let slot = &slots[*slot];
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
    };
    let helpers = cores.min(jobs.len()).saturating_sub(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..helpers)
            .map(|_| {
                s.spawn(|| {
                    lower_this_threads_priority();
                    work();
                })
            })
            .collect();
        work();
        for handle in handles {
            // A worker that panicked left its piece unwritten: that
            // catalog's result says so below.
            let _ = handle.join();
        }
    });
    for slot in slots {
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
        done.push((slot.miss.at, result));
    }
    done
}
