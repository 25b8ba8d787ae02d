//! The strings of an image: written once each ([`StringTable`], packed
//! back to back), read back by id and made [`Text`]s on first use
//! ([`Strings`]).

use rustc_hash::FxHashMap;

use super::ImageError;
use crate::catalog::Text;

/// A little-endian `u32` array stored as bytes in an image: read in place,
/// element by element (nothing decoded up front, whatever its length).
#[derive(Clone, Copy)]
pub(super) struct U32s<'a>(&'a [u8]);

impl<'a> U32s<'a> {
    /// `bytes` as `u32`s; a length that is no multiple of 4 is no array of ours.
    pub(super) fn new(bytes: &'a [u8]) -> Result<U32s<'a>, ImageError> {
        if !bytes.len().is_multiple_of(4) {
            return Err(ImageError::Decode("a u32 array is cut short".into()));
        }
        Ok(U32s(bytes))
    }

    /// The bytes of `values`, as [`U32s::new`] reads them.
    pub(super) fn encode(values: impl IntoIterator<Item = u32>) -> Vec<u8> {
        values.into_iter().flat_map(u32::to_le_bytes).collect()
    }

    pub(super) fn len(&self) -> usize {
        self.0.len() / 4
    }

    /// Element `i`, if there is one.
    #[inline]
    pub(super) fn get(&self, i: usize) -> Option<u32> {
        let chunk = self.0.get(i.checked_mul(4)?..i.checked_mul(4)? + 4)?;
        chunk.try_into().ok().map(u32::from_le_bytes)
    }

    pub(super) fn last(&self) -> Option<u32> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }
}

/// Bytes stored back to back, and where each piece ends: piece `i` is
/// bounds-checked when it is read. Its UTF-8 is checked either when it is
/// read ([`Packed::new`]: the `GpuInfo` cells, which only `sky gpus list`
/// reads) or once for all the pieces ([`Packed::new_text`]: the head's
/// strings, a few kB that most loads read a good part of; one SIMD pass
/// over them costs less than checking a few hundred short strings one by
/// one).
#[derive(Clone, Copy)]
pub(super) struct Packed<'a> {
    text: &'a [u8],
    /// `text`, when it was checked whole: a piece is then valid exactly
    /// when its bounds fall on character boundaries.
    checked: Option<&'a str>,
    ends: U32s<'a>,
}

impl<'a> Packed<'a> {
    /// Pieces `text` ending at `ends` as written by [`StringTable::pack`]:
    /// the last end is the end of `text` (checked here; each piece's own
    /// bounds and UTF-8 are checked when it is read).
    pub(super) fn new(text: &'a [u8], ends: U32s<'a>) -> Result<Packed<'a>, ImageError> {
        if ends.last().map_or(0, |end| end as usize) != text.len() {
            return Err(ImageError::Decode("strings do not add up".into()));
        }
        Ok(Packed {
            text,
            checked: None,
            ends,
        })
    }

    /// [`Packed::new`], with `text` checked as UTF-8 here, whole.
    pub(super) fn new_text(text: &'a [u8], ends: U32s<'a>) -> Result<Packed<'a>, ImageError> {
        let mut packed = Packed::new(text, ends)?;
        packed.checked = Some(
            simdutf8::basic::from_utf8(text)
                .map_err(|_| ImageError::Decode("a string is not UTF-8".into()))?,
        );
        Ok(packed)
    }

    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    /// String `i` (from 0).
    #[inline]
    pub(super) fn get(&self, i: usize) -> Result<&'a str, ImageError> {
        let end = self
            .ends
            .get(i)
            .ok_or(ImageError::Mismatch("string index"))? as usize;
        let start = match i.checked_sub(1) {
            Some(j) => self.ends.get(j).unwrap_or(u32::MAX) as usize,
            None => 0,
        };
        if start > end || end > self.text.len() {
            return Err(ImageError::Mismatch("string boundary"));
        }
        let not_utf8 = || ImageError::Decode("a string is not UTF-8".into());
        match self.checked {
            // Within bounds: `None` only off a character boundary.
            Some(text) => text.get(start..end).ok_or_else(not_utf8),
            None => std::str::from_utf8(&self.text[start..end]).map_err(|_| not_utf8()),
        }
    }
}

/// Distinct strings, numbered from 1 in order of first use (0: empty cell).
/// The table keeps each string (a counter bump), so that rows can be
/// written piece by piece and dropped ([`super::ImageWriter`]).
#[derive(Default)]
pub(super) struct StringTable {
    strings: Vec<Text>,
    ids: FxHashMap<Text, u32>,
}

impl StringTable {
    /// The strings back to back, and where each ends.
    pub(super) fn pack(&self) -> (String, Vec<u32>) {
        let mut text = String::with_capacity(self.strings.iter().map(|s| s.len()).sum());
        let mut ends = Vec::with_capacity(self.strings.len());
        for s in &self.strings {
            text.push_str(s);
            ends.push(text.len() as u32);
        }
        (text, ends)
    }

    /// The id of `s`, given it if new.
    pub(super) fn id_str(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let text = Text::from(s);
        self.strings.push(text.clone());
        let id = self.strings.len() as u32;
        self.ids.insert(text, id);
        id
    }

    /// String `id` (`None` for 0, the empty cell).
    pub(super) fn text(&self, id: u32) -> Option<Text> {
        (id as usize)
            .checked_sub(1)
            .and_then(|i| self.strings.get(i))
            .cloned()
    }

    pub(super) fn id(&mut self, s: Option<&Text>) -> u32 {
        let Some(s) = s else { return 0 };
        if let Some(&id) = self.ids.get(&**s) {
            return id;
        }
        self.strings.push(s.clone());
        let id = self.strings.len() as u32;
        self.ids.insert(s.clone(), id);
        id
    }
}

/// The string tables an image is written with.
#[derive(Default)]
pub(super) struct Tables {
    /// Every string but `GpuInfo`.
    pub(super) strings: StringTable,
    /// `GpuInfo` cells.
    pub(super) gpu_info: StringTable,
}

/// The head's strings and the `GpuInfo` cells, made into [`Text`]s on
/// first use: a selection that decodes a few runs allocates only the
/// strings those runs name, and checks only the cells they hold (none, for
/// a reader that does not read them).
pub(super) struct Strings<'h> {
    raw: Packed<'h>,
    made: Vec<Option<Text>>,
    /// The `GpuInfo` cells; `None`: the reader does not read them.
    gpu: Option<Packed<'h>>,
    gpu_made: Vec<Option<Text>>,
}

impl<'h> Strings<'h> {
    /// The strings `raw`, and the `GpuInfo` cells `gpu` (`None`: every
    /// row's cell is left empty).
    pub(super) fn new(raw: Packed<'h>, gpu: Option<Packed<'h>>) -> Strings<'h> {
        Strings {
            raw,
            made: vec![None; raw.len()],
            gpu,
            gpu_made: vec![None; gpu.map_or(0, |g| g.len())],
        }
    }

    /// String `id` (`0` = empty cell).
    #[inline]
    pub(super) fn get(&mut self, id: u32) -> Result<Option<Text>, ImageError> {
        let Some(i) = (id as usize).checked_sub(1) else {
            return Ok(None);
        };
        match self.made.get(i) {
            Some(Some(made)) => Ok(Some(made.clone())),
            _ => self.make(i).map(Some),
        }
    }

    /// String `i` made a [`Text`] (once: every other use clones it). Kept
    /// out of [`Strings::get`], which is inlined where rows are decoded.
    #[inline(never)]
    fn make(&mut self, i: usize) -> Result<Text, ImageError> {
        let made = Text::from(self.raw.get(i)?);
        self.made[i] = Some(made.clone());
        Ok(made)
    }

    /// `GpuInfo` cell `id` (`0` = empty cell; every cell is empty when the
    /// reader does not read them). Inlined where runs are decoded: a launch
    /// reads no cell, and each run's first row asks.
    #[inline]
    pub(super) fn gpu_info(&mut self, id: u32) -> Result<Option<Text>, ImageError> {
        match (id.checked_sub(1), &self.gpu) {
            (Some(i), Some(_)) => self.gpu_cell(i as usize),
            _ => Ok(None),
        }
    }

    /// `GpuInfo` cell `i` (from 0) of a reader that reads them.
    #[inline(never)]
    fn gpu_cell(&mut self, i: usize) -> Result<Option<Text>, ImageError> {
        let Some(gpu) = &self.gpu else {
            return Ok(None);
        };
        if let Some(Some(made)) = self.gpu_made.get(i) {
            return Ok(Some(made.clone()));
        }
        let text = gpu.get(i).map_err(|_| {
            ImageError::Decode("a GpuInfo cell is out of bounds or not UTF-8".into())
        })?;
        let made = Text::from(text);
        self.gpu_made[i] = Some(made.clone());
        Ok(Some(made))
    }
}
