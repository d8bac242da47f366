//! The cuckoo filter's codec (kind 5).

use super::{ParamReader, Payload, Persist, PersistHasher, no_strategy, write_words_le};
use crate::bits::try_zeroed;
use crate::error::Error;
use crate::error::Result;
use crate::filter::{Filter, FilterKind};
use crate::filters::CuckooFilter;
use crate::filters::cuckoo::CuckooState;
use crate::persist::Identity;
use crate::persist::container::corrupt;
use std::io::{self, Write};

/// **Cuckoo filter** (kind 5, no strategy): params = `buckets: u64`, `f: u32` (fingerprint
/// bits), `longest_chain: u32`, `len: u64`, `rng: u64`, `kicks: u64`, `refused: u64`
/// (48 bytes); payload = the packed table, `⌈4·f·buckets/64⌉` little-endian words (slot `j` of
/// bucket `i` at bits `(4i + j)·f ..`). `len` must equal the number of non-empty slots; `rng`
/// makes a loaded filter evict exactly as the saved one would have.
impl<H: PersistHasher> Persist for CuckooFilter<H> {
    const KIND: FilterKind = FilterKind::Cuckoo;
    fn identity(&self) -> Identity {
        Identity {
            hash: self.hasher().id(),
            key: self.hasher().key_material(),
            strategy: None,
        }
    }
    fn params(&self) -> Vec<u8> {
        let s = self.state();
        let mut p = Vec::with_capacity(48);
        p.extend_from_slice(&self.buckets().to_le_bytes());
        p.extend_from_slice(&self.fingerprint_bits().to_le_bytes());
        p.extend_from_slice(&s.longest_chain.to_le_bytes());
        p.extend_from_slice(&Filter::len(self).to_le_bytes());
        p.extend_from_slice(&s.rng.to_le_bytes());
        p.extend_from_slice(&s.kicks.to_le_bytes());
        p.extend_from_slice(&s.refused.to_le_bytes());
        p
    }
    fn payload_len(&self) -> u64 {
        self.table_words().len() as u64 * 8
    }
    fn write_payload(&self, w: &mut dyn Write) -> io::Result<()> {
        write_words_le(self.table_words(), w)
    }
    fn decode(id: &Identity, params: &[u8], payload: &[u8]) -> Result<Self> {
        Self::decode_from(id, params, &mut Payload::from_slice(payload))
    }
    fn decode_from(id: &Identity, params: &[u8], payload: &mut Payload<'_>) -> Result<Self> {
        let kind = FilterKind::Cuckoo;
        let mut r = ParamReader::new(params, kind);
        let buckets = r.u64("buckets")?;
        let f = r.u32("fingerprint bits")?;
        let longest_chain = r.u32("longest kick chain")?;
        let len = r.u64("len")?;
        let rng = r.u64("rng")?;
        let kicks = r.u64("kicks")?;
        let refused = r.u64("refused")?;
        r.finish()?;
        no_strategy(kind, id)?;
        let hasher = H::from_key_material(id.hash, id.key)?;
        crate::theory::cuckoo::check_fingerprint_bits(f).map_err(|_| {
            corrupt(format!(
                "cuckoo filter has {f}-bit fingerprints, not 8, 12 or 16"
            ))
        })?;
        let want = crate::theory::cuckoo::table_bytes(buckets, f).ok();
        if want != Some(payload.len()) {
            return Err(corrupt(format!(
                "cuckoo filter payload is {} bytes, which does not fit {buckets} buckets of four {f}-bit slots",
                payload.len()
            )));
        }
        // table_bytes is a whole number of words.
        let n = usize::try_from(payload.len() / 8).map_err(|_| Error::Allocation {
            bytes: u128::from(payload.len()),
        })?;
        let mut words: Vec<u64> = try_zeroed(n)?;
        payload.read_words(&mut words)?;
        let state = CuckooState {
            rng,
            kicks,
            longest_chain,
            refused,
        };
        let g = CuckooFilter::from_parts(words, buckets, f, hasher, state)?;
        if g.len() != len {
            return Err(corrupt(format!(
                "cuckoo filter says it holds {len} fingerprints, but its table holds {}",
                g.len()
            )));
        }
        Ok(g)
    }
}
