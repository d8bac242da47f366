//! The blocked filter's codec (kind 2).

use super::{
    ParamReader, Payload, Persist, PersistHasher, plain_hasher, plain_identity, write_words_le,
};
use crate::bits::try_zeroed;
use crate::error::{Error, Result};
use crate::filter::{Filter, FilterKind};
use crate::filters::BlockedBloom;
use crate::filters::blocked::Block;
use crate::persist::Identity;
use crate::persist::container::{corrupt, le_u64};
use std::io::{self, Write};

/// **Blocked filter** (kind 2, no strategy): params = `blocks: u64`, `k: u32`, `layout: u32`,
/// `len: u64` (24 bytes); payload = the blocks, 8 little-endian words each (`64·blocks` bytes).
/// The (n, p) sizing report is not saved.
///
/// `layout` says how an item's bits are derived (see [`BlockedBloom`]): 1 = one 64-bit hash and
/// multiply-shift lanes (what new filters use); 0 = one 128-bit hash and 9-bit fields (files
/// written before layout 1, when this field was reserved and 0). Both load and answer as written.
impl<H: PersistHasher> Persist for BlockedBloom<H> {
    const KIND: FilterKind = FilterKind::Blocked;
    fn identity(&self) -> Identity {
        plain_identity(self.hasher())
    }
    fn params(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(24);
        p.extend_from_slice(&self.blocks().to_le_bytes());
        p.extend_from_slice(&Filter::k(self).to_le_bytes());
        p.extend_from_slice(&self.layout().to_le_bytes());
        p.extend_from_slice(&Filter::len(self).to_le_bytes());
        p
    }
    fn payload_len(&self) -> u64 {
        self.blocks() * 64
    }
    fn write_payload(&self, w: &mut dyn Write) -> io::Result<()> {
        for b in self.block_slice() {
            write_words_le(&b.0, w)?;
        }
        Ok(())
    }
    fn decode(id: &Identity, params: &[u8], payload: &[u8]) -> Result<Self> {
        Self::decode_from(id, params, &mut Payload::from_slice(payload))
    }
    fn decode_from(id: &Identity, params: &[u8], payload: &mut Payload<'_>) -> Result<Self> {
        let kind = FilterKind::Blocked;
        let mut r = ParamReader::new(params, kind);
        let blocks = r.u64("blocks")?;
        let k = r.u32("k")?;
        let layout = r.u32("layout")?;
        if layout > crate::filters::blocked::LAYOUT {
            return Err(corrupt(format!(
                "blocked filter has layout {layout}, this build knows 0 and 1"
            )));
        }
        let len = r.u64("len")?;
        r.finish()?;
        let hasher: H = plain_hasher(kind, id)?;
        if blocks.checked_mul(64) != Some(payload.remaining()) {
            return Err(corrupt(format!(
                "blocked filter payload is {} bytes, but {blocks} blocks need 64 each",
                payload.remaining()
            )));
        }
        let n = usize::try_from(blocks).map_err(|_| Error::Allocation {
            bytes: u128::from(payload.remaining()),
        })?;
        let mut v: Vec<Block> = try_zeroed(n)?;
        payload.read_into(&mut v, 64, |c| {
            let mut b = Block::default();
            for (w, c) in b.0.iter_mut().zip(c.chunks_exact(8)) {
                *w = le_u64(c, 0);
            }
            b
        })?;
        BlockedBloom::from_parts(v, k, len, hasher)?.with_layout(layout)
    }
}
