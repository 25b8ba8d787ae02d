//! Several clouds' images in one file (a *pack*): what a warm launch maps
//! instead of one file per cloud. Each image costs a launch an `open`,
//! `statx`, `mmap`, `close` and `munmap` and at least one page fault of
//! its own mapping; 22 catalog clouds paid that 21 times (105 system
//! calls). A pack is one of each, and the small images share pages.
//!
//! Layout: a postcard head (magic, format, the key the writer was given,
//! each image's cloud name, offset and length), then the images back to
//! back, each exactly as [`super::ImageWriter`] wrote it: a pack only
//! locates images, and every image it gives is validated by its decoder
//! as if it had been read from its own file.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use super::ImageError;
use crate::cloud::CloudId;

const PACK_MAGIC: [u8; 8] = *b"SKYCATPK";
/// Bumped when the pack's own layout changes (an image inside carries its
/// own format number).
const PACK_FORMAT: u32 = 1;

#[derive(Serialize, Deserialize)]
struct PackHead<'a> {
    magic: [u8; 8],
    format: u32,
    /// What the writer says the images are of (the bundled catalogs'
    /// fingerprint): a pack of other inputs is refused.
    key: &'a str,
    /// (cloud name, offset from the end of the head, length), by cloud.
    #[serde(borrow)]
    images: Vec<(&'a str, u64, u64)>,
}

/// A pack's directory: where each cloud's image is in its bytes.
#[derive(Debug, Clone, Default)]
pub struct ImagePack {
    images: Vec<(CloudId, Range<usize>)>,
}

impl ImagePack {
    /// The directory of the pack in `bytes`, written with `key`; a pack of
    /// another key or format, or an image outside the bytes, is an error
    /// (the caller then reads each cloud's own image). A cloud this build
    /// does not know is skipped.
    pub fn read(bytes: &[u8], key: &str) -> Result<ImagePack, ImageError> {
        let (head, rest): (PackHead<'_>, &[u8]) =
            postcard::take_from_bytes(bytes).map_err(|e| ImageError::Decode(e.to_string()))?;
        if head.magic != PACK_MAGIC || head.format != PACK_FORMAT {
            return Err(ImageError::Mismatch("pack format version"));
        }
        if head.key != key {
            return Err(ImageError::Mismatch("pack key"));
        }
        let base = bytes.len() - rest.len();
        let mut images = Vec::with_capacity(head.images.len());
        for (name, offset, len) in head.images {
            let range = usize::try_from(offset)
                .ok()
                .zip(usize::try_from(len).ok())
                .and_then(|(offset, len)| {
                    let start = base.checked_add(offset)?;
                    Some(start..start.checked_add(len)?)
                })
                .filter(|range| range.end <= bytes.len())
                .ok_or_else(|| ImageError::Decode("a packed image ends past the pack".into()))?;
            if let Some(cloud) = CloudId::ALL.iter().find(|c| c.name() == name) {
                images.push((*cloud, range));
            }
        }
        Ok(ImagePack { images })
    }

    /// `cloud`'s image in `bytes` (the pack's), if the pack holds one.
    pub fn image<'b>(&self, bytes: &'b [u8], cloud: CloudId) -> Option<&'b [u8]> {
        self.images
            .iter()
            .find(|(c, _)| *c == cloud)
            .and_then(|(_, range)| bytes.get(range.clone()))
    }

    /// The clouds whose images the pack holds, in its order.
    pub fn clouds(&self) -> impl Iterator<Item = CloudId> + '_ {
        self.images.iter().map(|(cloud, _)| *cloud)
    }
}

/// The pack of `images` (each cloud once: a later image of a cloud
/// replaces an earlier one), written with `key`.
pub fn write_pack<'i>(key: &str, images: impl IntoIterator<Item = (CloudId, &'i [u8])>) -> Vec<u8> {
    let mut kept: Vec<(CloudId, &[u8])> = Vec::new();
    for (cloud, image) in images {
        match kept.iter_mut().find(|(c, _)| *c == cloud) {
            Some(slot) => slot.1 = image,
            None => kept.push((cloud, image)),
        }
    }
    let mut offset = 0u64;
    let entries = kept
        .iter()
        .map(|(cloud, image)| {
            let entry = (cloud.name(), offset, image.len() as u64);
            offset += image.len() as u64;
            entry
        })
        .collect();
    let head = PackHead {
        magic: PACK_MAGIC,
        format: PACK_FORMAT,
        key,
        images: entries,
    };
    let body: usize = kept.iter().map(|(_, image)| image.len()).sum();
    let out = Vec::with_capacity(1024 + body);
    let mut out = postcard::to_extend(&head, out).expect("encoding to a Vec cannot fail");
    for (_, image) in kept {
        out.extend_from_slice(image);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::CloudCatalog;

    fn image(cloud: CloudId, csv: &str) -> Vec<u8> {
        let (parsed, _) = CloudCatalog::from_bytes(cloud, csv.as_bytes(), "x").unwrap();
        parsed.to_image(&[])
    }

    #[test]
    fn a_pack_gives_back_each_image_byte_for_byte() {
        let lambda = image(CloudId::Lambda, "InstanceType,Price,Region\na,1,r\n");
        let runpod = image(CloudId::Runpod, "InstanceType,Price,Region\nb,2,s\nc,3,t\n");
        let pack = write_pack(
            "k1",
            [
                (CloudId::Lambda, &lambda[..]),
                (CloudId::Runpod, &runpod[..]),
            ],
        );
        let read = ImagePack::read(&pack, "k1").unwrap();
        assert_eq!(read.image(&pack, CloudId::Lambda), Some(&lambda[..]));
        assert_eq!(read.image(&pack, CloudId::Runpod), Some(&runpod[..]));
        assert_eq!(read.image(&pack, CloudId::Aws), None);
        let packed = read.image(&pack, CloudId::Runpod).unwrap();
        let (a, _) = CloudCatalog::from_image(CloudId::Runpod, packed, "x").unwrap();
        assert_eq!(a.rows.len(), 2);
        // A later image of a cloud replaces the earlier one.
        let again = write_pack(
            "k1",
            read.clouds()
                .map(|c| (c, read.image(&pack, c).unwrap()))
                .chain([(CloudId::Lambda, &runpod[..])]),
        );
        let read = ImagePack::read(&again, "k1").unwrap();
        assert_eq!(read.image(&again, CloudId::Lambda), Some(&runpod[..]));
        assert_eq!(
            read.clouds().collect::<Vec<_>>(),
            [CloudId::Lambda, CloudId::Runpod]
        );
    }

    #[test]
    fn another_key_a_truncated_or_foreign_pack_is_refused() {
        let lambda = image(CloudId::Lambda, "InstanceType,Price,Region\na,1,r\n");
        let pack = write_pack("k1", [(CloudId::Lambda, &lambda[..])]);
        assert!(matches!(
            ImagePack::read(&pack, "k2"),
            Err(ImageError::Mismatch("pack key"))
        ));
        for cut in [0, 1, 10, pack.len() - 1] {
            assert!(ImagePack::read(&pack[..cut], "k1").is_err(), "cut at {cut}");
        }
        assert!(
            ImagePack::read(&lambda, "k1").is_err(),
            "an image is no pack"
        );
        let mut wrong = pack.clone();
        wrong[8] ^= 0x7f;
        assert!(ImagePack::read(&wrong, "k1").is_err());
    }
}
