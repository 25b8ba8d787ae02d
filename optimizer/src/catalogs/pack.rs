//! The bundled catalogs' images in one file (`planner::catalog::image`'s
//! pack): a warm launch maps one file instead of one per cloud. Each image
//! of its own cost a launch five system calls (`openat`, `statx`, `mmap`,
//! `close`, `munmap`), a page fault or more, and the SHA-256 of its two
//! name hashes: 22 catalog clouds paid that 21 times.
//!
//! The pack is only ever a copy of images already stored: the launch that
//! parses a changed catalog stores its image as before (the first launch
//! after a change writes no pack), and a later launch that found every
//! bundled image it loaded current but not all of them in the pack writes
//! the pack anew, with what the old one held and the images it read. An
//! image in the pack is decoded exactly as its own file would be; one that
//! does not decode is read from its own file (and the pack written again).

use memmap2::Mmap;
use planner::catalog::image::{ImagePack, write_pack};
use planner::cloud::CloudId;

use super::bundled;
use crate::state::CatalogIndex;

/// The pack as this launch found it, and what it learnt on the way.
pub(super) struct BundledPack {
    /// The pack mapped, and where each image is in it.
    found: Option<(Mmap, ImagePack)>,
    /// Bundled images read from their own files (not in the pack, or not
    /// decodable from it).
    read: Vec<(CloudId, Mmap)>,
    /// A bundled catalog had no current image (it is being parsed): the
    /// pack is written by a later launch, once its image is stored.
    missed: bool,
}

impl BundledPack {
    /// The pack of this build's bundled images, mapped when `wanted` (some
    /// catalog of the launch is bundled) and there is one.
    pub(super) fn open(index: Option<&CatalogIndex>, wanted: bool) -> BundledPack {
        let found = index
            .filter(|_| wanted)
            .and_then(|index| index.map_pack(bundled::FINGERPRINT))
            .and_then(|map| match ImagePack::read(&map, bundled::FINGERPRINT) {
                Ok(pack) => Some((map, pack)),
                Err(e) => {
                    tracing::debug!(error = %e, "ignoring the bundled catalogs' pack");
                    None
                }
            });
        BundledPack {
            found,
            read: Vec::new(),
            missed: false,
        }
    }

    /// `cloud`'s image in the pack, if it holds one.
    pub(super) fn image(&self, cloud: CloudId) -> Option<&[u8]> {
        let (map, pack) = self.found.as_ref()?;
        pack.image(map, cloud)
    }

    /// `cloud`'s image was read from its own file: the pack lacks it.
    pub(super) fn read_own(&mut self, cloud: CloudId, image: Mmap) {
        self.read.push((cloud, image));
    }

    /// A bundled catalog had no current image.
    pub(super) fn missed(&mut self) {
        self.missed = true;
    }

    /// Writes the pack again when this launch read an image the pack lacks
    /// and every bundled image it wanted was current (else the next launch
    /// will, once the parsed catalogs' images are stored). Failing costs
    /// the next launch the images' own files, as today.
    pub(super) fn store(self, index: Option<&CatalogIndex>) {
        let Some(index) = index else { return };
        if self.missed || self.read.is_empty() {
            return;
        }
        let old = self.found.as_ref().map(|(map, pack)| {
            pack.clouds()
                .filter_map(|cloud| Some((cloud, pack.image(map, cloud)?)))
                .collect::<Vec<_>>()
        });
        let fresh = self.read.iter().map(|(cloud, map)| (*cloud, &map[..]));
        let bytes = write_pack(bundled::FINGERPRINT, old.into_iter().flatten().chain(fresh));
        match index.write_pack(bundled::FINGERPRINT, &bytes) {
            Ok(()) => tracing::debug!(bytes = bytes.len(), "bundled catalogs' pack stored"),
            Err(e) => tracing::debug!(error = %e, "cannot store the bundled catalogs' pack"),
        }
    }
}
