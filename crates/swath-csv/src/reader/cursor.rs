//! Where the next byte that matters is: classifier masks of a run of
//! blocks, cached across records until the buffer is refilled.

use crate::classify::{ReaderClassifier, RunMasks, BLOCK, RUN};

/// Cached masks of a run of up to [`RUN`] 64-byte blocks, addressed by
/// absolute input offset so that they stay valid from one record to the
/// next until the buffer is refilled (which may move its bytes).
#[derive(Clone, Debug, Default)]
pub(crate) struct Cursor {
    base: u64,
    len: usize,
    /// Outside quotes: delimiter, quote, `\r`, `\n` (what ends or opens
    /// things). Inside: quote, escape, `\n` (`\n` for line numbers). And
    /// the delimiter alone.
    m: RunMasks,
}

impl Cursor {
    pub(crate) fn invalidate(&mut self) {
        self.len = 0;
    }

    /// The mask of the block that holds cached byte `rel < len` from that
    /// byte on (bit 0 is `rel`), and how many bytes it covers.
    #[inline(always)]
    fn at(&self, rel: usize, quoted: bool) -> (u64, usize) {
        // `% RUN` changes nothing (`rel < len <= RUN * BLOCK`) but lets the
        // compiler drop the bounds check.
        let (b, sh) = (rel / BLOCK % RUN, rel % BLOCK);
        let mask = if quoted { self.m.inside[b] } else { self.m.outside[b] } >> sh;
        (mask, (BLOCK - sh).min(self.len - rel))
    }

    /// [`at`](Self::at) outside quotes, with the delimiter mask.
    #[inline(always)]
    fn outside_delim(&self, rel: usize) -> (u64, u64, usize) {
        let (b, sh) = (rel / BLOCK % RUN, rel % BLOCK);
        (self.m.outside[b] >> sh, self.m.delim[b] >> sh, (BLOCK - sh).min(self.len - rel))
    }

    /// The index of the next byte at or after `pos` that matters in the
    /// given state, or `None` when there is none in `data`. The common case
    /// (the answer is in the cached block) is inlined into the machine.
    #[inline(always)]
    pub(super) fn next(
        &mut self,
        c: &ReaderClassifier,
        data: &[u8],
        off: u64,
        pos: usize,
        quoted: bool,
    ) -> Option<usize> {
        let rel = (off + pos as u64).wrapping_sub(self.base);
        if rel < self.len as u64 {
            let (mask, _) = self.at(rel as usize, quoted);
            if mask != 0 {
                return Some(pos + mask.trailing_zeros() as usize);
            }
        }
        self.next_block(c, data, off, pos, quoted)
    }

    /// The outside-quotes and delimiter masks from `pos` on (bit 0 is
    /// `pos`) and how many bytes they cover, classifying the run at `pos`
    /// when `pos` is not cached; `None` when `pos` is past `data`.
    #[inline(always)]
    pub(super) fn outside_at(
        &mut self,
        c: &ReaderClassifier,
        data: &[u8],
        off: u64,
        pos: usize,
    ) -> Option<(u64, u64, usize)> {
        let rel = (off + pos as u64).wrapping_sub(self.base);
        if rel < self.len as u64 {
            return Some(self.outside_delim(rel as usize));
        }
        self.load(c, data, off, pos)?;
        Some(self.outside_delim(0))
    }

    /// Classify the run of blocks that starts at `pos`.
    #[inline(never)]
    fn load(&mut self, c: &ReaderClassifier, data: &[u8], off: u64, pos: usize) -> Option<()> {
        if pos >= data.len() {
            return None;
        }
        self.len = c.classify(&data[pos..], &mut self.m);
        self.base = off + pos as u64;
        Some(())
    }

    /// Classify runs from `pos` on until one has a byte that matters.
    #[inline(never)]
    fn next_block(
        &mut self,
        c: &ReaderClassifier,
        data: &[u8],
        off: u64,
        mut pos: usize,
        quoted: bool,
    ) -> Option<usize> {
        loop {
            let mut rel = (off + pos as u64).wrapping_sub(self.base);
            if rel >= self.len as u64 {
                self.load(c, data, off, pos)?;
                rel = 0;
            }
            let (mask, covered) = self.at(rel as usize, quoted);
            if mask != 0 {
                return Some(pos + mask.trailing_zeros() as usize);
            }
            pos += covered;
        }
    }
}
