//! The strings of an image: written once each ([`StringTable`], packed
//! back to back), read back by id and made [`Text`]s on first use
//! ([`Strings`]).

use rustc_hash::FxHashMap;

use super::ImageError;
use crate::catalog::Text;

/// Strings stored back to back, and where each ends.
#[derive(Clone, Copy)]
pub(super) struct Packed<'a> {
    text: &'a str,
    ends: &'a [u32],
}

impl<'a> Packed<'a> {
    /// Strings `text` and `ends` as written by [`StringTable::pack`]: the
    /// ends never decrease, and the last is the end of `text`.
    pub(super) fn new(text: &'a str, ends: &'a [u32]) -> Result<Packed<'a>, ImageError> {
        if ends.windows(2).any(|w| w[0] > w[1])
            || ends.last().map_or(0, |&end| end as usize) != text.len()
        {
            return Err(ImageError::Decode("strings do not add up".into()));
        }
        Ok(Packed { text, ends })
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    /// String `i` (from 0).
    #[inline]
    pub(super) fn get(&self, i: usize) -> Result<&'a str, ImageError> {
        let end = *self
            .ends
            .get(i)
            .ok_or(ImageError::Mismatch("string index"))? as usize;
        let start = i.checked_sub(1).map_or(0, |j| self.ends[j] as usize);
        // A cut inside a character is no string of ours.
        self.text
            .get(start..end)
            .ok_or(ImageError::Mismatch("string boundary"))
    }
}

/// Distinct strings, numbered from 1 in order of first use (0: empty cell).
#[derive(Default)]
pub(super) struct StringTable<'a> {
    pub(super) strings: Vec<&'a str>,
    ids: FxHashMap<&'a str, u32>,
}

impl<'a> StringTable<'a> {
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

    pub(super) fn id(&mut self, s: Option<&'a Text>) -> u32 {
        let Some(s) = s else { return 0 };
        let s: &'a str = s;
        *self.ids.entry(s).or_insert_with(|| {
            self.strings.push(s);
            self.strings.len() as u32
        })
    }
}

/// The string tables an image is written with.
#[derive(Default)]
pub(super) struct Tables<'a> {
    /// Every string but `GpuInfo`.
    pub(super) strings: StringTable<'a>,
    /// `GpuInfo` cells.
    pub(super) gpu_info: StringTable<'a>,
}

/// The head's strings and the `GpuInfo` cells, made into [`Text`]s on
/// first use: a selection that decodes a few runs allocates only the
/// strings those runs name, and checks only the cells they hold.
pub(super) struct Strings<'h> {
    raw: Packed<'h>,
    made: Vec<Option<Text>>,
    /// The `GpuInfo` cells, back to back, and where each ends.
    gpu_cells: &'h [u8],
    gpu_ends: &'h [u32],
    gpu_made: Vec<Option<Text>>,
}

impl<'h> Strings<'h> {
    /// The strings `raw`, and the `GpuInfo` cells `gpu_cells` ending at
    /// `gpu_ends`.
    pub(super) fn new(
        raw: Packed<'h>,
        gpu_ends: &'h [u32],
        gpu_cells: &'h [u8],
    ) -> Result<Strings<'h>, ImageError> {
        let ends = gpu_ends;
        if ends.windows(2).any(|w| w[0] > w[1])
            || ends.last().map_or(0, |&end| end as usize) != gpu_cells.len()
        {
            return Err(ImageError::Decode("GpuInfo cells do not add up".into()));
        }
        Ok(Strings {
            raw,
            made: vec![None; raw.len()],
            gpu_cells,
            gpu_ends: ends,
            gpu_made: vec![None; ends.len()],
        })
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

    /// `GpuInfo` cell `id` (`0` = empty cell).
    pub(super) fn gpu_info(&mut self, id: u32) -> Result<Option<Text>, ImageError> {
        let Some(i) = (id as usize).checked_sub(1) else {
            return Ok(None);
        };
        if let Some(Some(made)) = self.gpu_made.get(i) {
            return Ok(Some(made.clone()));
        }
        let end = *self
            .gpu_ends
            .get(i)
            .ok_or(ImageError::Mismatch("GpuInfo index"))? as usize;
        let start = i.checked_sub(1).map_or(0, |j| self.gpu_ends[j] as usize);
        let text = std::str::from_utf8(&self.gpu_cells[start..end])
            .map_err(|_| ImageError::Decode("a GpuInfo cell is not UTF-8".into()))?;
        let made = Text::from(text);
        self.gpu_made[i] = Some(made.clone());
        Ok(Some(made))
    }
}
