//! The split-block filter's codec (kind 3).

use super::{
    ParamReader, Payload, Persist, PersistHasher, plain_hasher, plain_identity, reserved_zero,
};
use crate::bits::try_zeroed;
use crate::error::{Error, Result};
use crate::filter::{Filter, FilterKind};
use crate::filters::SplitBlockBloom;
use crate::filters::split_block::SbBlock;
use crate::persist::Identity;
use crate::persist::container::corrupt;
use std::io::{self, Write};

/// **Split-block filter** (kind 3, no strategy): params = `blocks: u64`, `len: u64`,
/// `layout: u32 = 1`, `reserved: u32 = 0` (24 bytes); payload = the blocks as Parquet stores them
/// (8 little-endian `u32` words each, `32·blocks` bytes).
///
/// Layout 1 hashes an item with `hash64`. Files written before it have 16 bytes of params
/// (`blocks`, `len`: layout 0) and hashed with `hash128(item).lo`, which differs for xxh3, sip13
/// and sip24; they load with [`SplitBlockBloom::with_legacy_hash128`] and answer as before.
impl<H: PersistHasher> Persist for SplitBlockBloom<H> {
    const KIND: FilterKind = FilterKind::SplitBlock;
    fn identity(&self) -> Identity {
        plain_identity(self.hasher())
    }
    fn params(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(24);
        p.extend_from_slice(&self.blocks().to_le_bytes());
        p.extend_from_slice(&Filter::len(self).to_le_bytes());
        let layout = if self.legacy_hash128() { 0u32 } else { 1 };
        if layout == 1 {
            p.extend_from_slice(&layout.to_le_bytes());
            p.extend_from_slice(&0u32.to_le_bytes());
        }
        p
    }
    fn payload_len(&self) -> u64 {
        self.blocks() * 32
    }
    fn write_payload(&self, w: &mut dyn Write) -> io::Result<()> {
        let mut buf = [0u8; 32];
        for b in self.block_slice() {
            for (d, x) in buf.chunks_exact_mut(4).zip(b.0) {
                d.copy_from_slice(&x.to_le_bytes());
            }
            w.write_all(&buf)?;
        }
        Ok(())
    }
    fn decode(id: &Identity, params: &[u8], payload: &[u8]) -> Result<Self> {
        Self::decode_from(id, params, &mut Payload::from_slice(payload))
    }
    fn decode_from(id: &Identity, params: &[u8], payload: &mut Payload<'_>) -> Result<Self> {
        let kind = FilterKind::SplitBlock;
        let mut r = ParamReader::new(params, kind);
        let blocks = r.u64("blocks")?;
        let len = r.u64("len")?;
        let legacy = params.len() == 16;
        if !legacy {
            let layout = r.u32("layout")?;
            if layout != 1 {
                return Err(corrupt(format!(
                    "split-block filter has layout {layout}, expected 1 (or 16 bytes of params, layout 0)"
                )));
            }
            reserved_zero(kind, r.u32("reserved")?)?;
        }
        r.finish()?;
        let hasher: H = plain_hasher(kind, id)?;
        if blocks.checked_mul(32) != Some(payload.len()) {
            return Err(corrupt(format!(
                "split-block filter payload is {} bytes, but {blocks} blocks need 32 each",
                payload.len()
            )));
        }
        if blocks == 0 || blocks > crate::theory::split_block::MAX_BLOCKS {
            return Err(corrupt(format!(
                "split-block filter has {blocks} blocks, outside 1..=2^32"
            )));
        }
        let n = usize::try_from(blocks).map_err(|_| Error::Allocation {
            bytes: u128::from(payload.len()),
        })?;
        let mut v: Vec<SbBlock> = try_zeroed(n)?;
        payload.read_into(&mut v, 32, |c| {
            let mut b = SbBlock::default();
            for (w, c) in b.0.iter_mut().zip(c.chunks_exact(4)) {
                *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
            b
        })?;
        Ok(SplitBlockBloom::from_parts(v, len, hasher)?.with_legacy_hash128(legacy))
    }
}
