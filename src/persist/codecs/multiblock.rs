//! The multiblock filter's codec (kind 10).

use super::{
    ParamReader, Payload, Persist, PersistHasher, plain_hasher, plain_identity, reserved_zero,
};
use crate::bits::try_zeroed;
use crate::error::{Error, Result};
use crate::filter::{Filter, FilterKind};
use crate::filters::MultiblockBloom;
use crate::filters::multiblock::{Line, Lines, Word};
use crate::persist::Identity;
use crate::persist::container::corrupt;
use crate::theory::multiblock::{MAX_BLOCKS, Shape};
use std::io::{self, Write};

/// **Multiblock filter** (kind 10, no strategy): params = `word_bits: u32` (32 or 64),
/// `words: u32` (K, 1 to 16), `bits_per_word: u32` (b, K·b ≤ 32), `reserved: u32 = 0`,
/// `blocks: u64`, `len: u64` (32 bytes); payload = the `blocks·K` words in order, little-endian
/// (`blocks·K·w/8` bytes).
impl<H: PersistHasher> Persist for MultiblockBloom<H> {
    const KIND: FilterKind = FilterKind::Multiblock;
    fn identity(&self) -> Identity {
        plain_identity(self.hasher())
    }
    fn params(&self) -> Vec<u8> {
        let s = self.shape();
        let mut p = Vec::with_capacity(32);
        for v in [s.word_bits, s.words, s.bits_per_word, 0] {
            p.extend_from_slice(&v.to_le_bytes());
        }
        p.extend_from_slice(&self.blocks().to_le_bytes());
        p.extend_from_slice(&Filter::len(self).to_le_bytes());
        p
    }
    fn payload_len(&self) -> u64 {
        self.bits() / 8
    }
    fn write_payload(&self, w: &mut dyn Write) -> io::Result<()> {
        let words = self.blocks() * u64::from(self.shape().words);
        match self.lines() {
            Lines::W32(l) => write_lines(l, words, w),
            Lines::W64(l) => write_lines(l, words, w),
        }
    }
    fn decode(id: &Identity, params: &[u8], payload: &[u8]) -> Result<Self> {
        Self::decode_from(id, params, &mut Payload::from_slice(payload))
    }
    fn decode_from(id: &Identity, params: &[u8], payload: &mut Payload<'_>) -> Result<Self> {
        let kind = FilterKind::Multiblock;
        let mut r = ParamReader::new(params, kind);
        let (w, kw, b) = (
            r.u32("word_bits")?,
            r.u32("words")?,
            r.u32("bits_per_word")?,
        );
        reserved_zero(kind, r.u32("reserved")?)?;
        let blocks = r.u64("blocks")?;
        let len = r.u64("len")?;
        r.finish()?;
        let shape = Shape::new(w, kw, kw.checked_mul(b)).map_err(|e| {
            corrupt(format!(
                "multiblock filter has an invalid shape ({w}, {kw}, {b}): {e}"
            ))
        })?;
        if shape.bits_per_word != b {
            return Err(corrupt(format!("multiblock filter has {b} bits per word")));
        }
        let hasher: H = plain_hasher(kind, id)?;
        if blocks == 0 || blocks > MAX_BLOCKS {
            return Err(corrupt(format!(
                "multiblock filter has {blocks} blocks, outside 1..=2^32"
            )));
        }
        let words = blocks * u64::from(kw);
        if words.checked_mul(u64::from(w / 8)) != Some(payload.len()) {
            return Err(corrupt(format!(
                "multiblock filter payload is {} bytes, but {blocks} blocks of {kw} {w}-bit words need {}",
                payload.len(),
                words * u64::from(w / 8)
            )));
        }
        let lines = match w {
            32 => Lines::W32(read_lines(payload, words)?),
            _ => Lines::W64(read_lines(payload, words)?),
        };
        MultiblockBloom::from_parts(shape, blocks, lines, len, hasher)
    }
}

fn write_lines<W: Word, const N: usize>(
    lines: &[Line<W, N>],
    words: u64,
    w: &mut dyn Write,
) -> io::Result<()> {
    let mut buf = Vec::with_capacity(64);
    let mut left = words;
    for l in lines {
        buf.clear();
        for x in l.0.iter().take(left.min(N as u64) as usize) {
            x.put(&mut buf);
        }
        left -= left.min(N as u64);
        w.write_all(&buf)?;
    }
    Ok(())
}

fn read_lines<W: Word, const N: usize>(
    payload: &mut Payload<'_>,
    words: u64,
) -> Result<Vec<Line<W, N>>> {
    let n = N as u64;
    let count = usize::try_from(words.div_ceil(n)).map_err(|_| Error::Allocation {
        bytes: u128::from(words) * 8,
    })?;
    let mut v: Vec<Line<W, N>> = try_zeroed(count)?;
    let full = (words / n) as usize;
    let wb = (W::BITS / 8) as usize;
    payload.read_into(&mut v[..full], 64, |c| {
        let mut l = Line::<W, N>::default();
        for (d, c) in l.0.iter_mut().zip(c.chunks_exact(wb)) {
            *d = W::get(c);
        }
        l
    })?;
    let rest = (words % n) as usize;
    if rest > 0 {
        let mut tail = vec![W::ZERO; rest];
        payload.read_into(&mut tail, wb, W::get)?;
        v[full].0[..rest].copy_from_slice(&tail);
    }
    Ok(v)
}
