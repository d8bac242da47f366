//! The cuckoo filter's codec (kind 5), in two layouts.

use super::{
    ParamReader, Payload, Persist, PersistHasher, plain_hasher, plain_identity, write_words_le,
};
use crate::bits::try_zeroed;
use crate::error::Error;
use crate::error::Result;
use crate::filter::{Filter, FilterKind};
use crate::filters::CuckooFilter;
use crate::filters::cuckoo::{CuckooLayout, CuckooState};
use crate::persist::Identity;
use crate::persist::container::corrupt;
use crate::theory::cuckoo as model;
use std::io::{self, Write};

/// The layout tag that opens the params of layout 2.
const LAYOUT_2: u32 = 2;

/// **Cuckoo filter** (kind 5, no strategy). The params' length tells the codec's two layouts
/// apart (the container's format version is shared by every kind and stays 1):
///
/// * **Layout 2** (written today; 56 bytes): `layout: u32 = 2`, `b: u32` (slots per bucket: 2,
///   4 or 8), `buckets: u64` (any count), `f: u32` (4 to 32), `longest_chain: u32`, `len: u64`,
///   `rng: u64`, `kicks: u64`, `refused: u64`; payload = the packed table,
///   `⌈b·f·buckets/64⌉` little-endian words, slot `j` of bucket `i` at bits `(b·i + j)·f ..`.
///   Items map to buckets by the 64-bit hash, fastrange and `i2 = (c(fp) − i1) mod m`
///   ([`CuckooFilter`]).
/// * **Layout 1** (files written before; 48 bytes, still loaded, and written again for a table
///   loaded from one): `buckets: u64` (a power of two), `f: u32` (8, 12 or 16),
///   `longest_chain: u32`, `len`, `rng`, `kicks`, `refused: u64`; b = 4; the same packed
///   payload. Items map by the 128-bit hash and `i2 = i1 ⊕ mix64(fp)`; the loaded filter keeps
///   that mapping (a table cannot be re-hashed without its items).
///
/// `len` must equal the number of non-empty slots; `rng` makes a loaded filter evict exactly as
/// the saved one would have.
impl<H: PersistHasher> Persist for CuckooFilter<H> {
    const KIND: FilterKind = FilterKind::Cuckoo;
    fn identity(&self) -> Identity {
        plain_identity(self.hasher())
    }
    fn params(&self) -> Vec<u8> {
        let s = self.state();
        let l = self.layout();
        let mut p = Vec::with_capacity(56);
        if !l.legacy {
            p.extend_from_slice(&LAYOUT_2.to_le_bytes());
            p.extend_from_slice(&l.bucket_size.to_le_bytes());
        }
        p.extend_from_slice(&l.buckets.to_le_bytes());
        p.extend_from_slice(&l.fingerprint_bits.to_le_bytes());
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
        let (legacy, b) = match params.len() {
            48 => (true, model::BUCKET_SLOTS),
            56 => {
                let layout = r.u32("layout")?;
                if layout != LAYOUT_2 {
                    return Err(corrupt(format!(
                        "cuckoo filter params of 56 bytes are layout 2, not {layout}"
                    )));
                }
                (false, r.u32("bucket size")?)
            }
            n => {
                return Err(corrupt(format!(
                    "cuckoo filter params are {n} bytes, not 48 (layout 1) or 56 (layout 2)"
                )));
            }
        };
        let buckets = r.u64("buckets")?;
        let f = r.u32("fingerprint bits")?;
        let longest_chain = r.u32("longest kick chain")?;
        let len = r.u64("len")?;
        let rng = r.u64("rng")?;
        let kicks = r.u64("kicks")?;
        let refused = r.u64("refused")?;
        r.finish()?;
        let hasher: H = plain_hasher(kind, id)?;
        model::check_fingerprint_bits(f).map_err(|_| {
            corrupt(format!(
                "cuckoo filter has {f}-bit fingerprints, not 4 to 32"
            ))
        })?;
        if !model::BUCKET_SIZES.contains(&b) {
            return Err(corrupt(format!(
                "cuckoo filter has buckets of {b}, not 2, 4 or 8"
            )));
        }
        let want = model::table_words(buckets, f, b).ok().map(|w| w * 8);
        if want != Some(payload.len()) {
            return Err(corrupt(format!(
                "cuckoo filter payload is {} bytes, which does not fit {buckets} buckets of {b} {f}-bit slots",
                payload.len()
            )));
        }
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
        let layout = CuckooLayout {
            buckets,
            fingerprint_bits: f,
            bucket_size: b,
            legacy,
        };
        let g = CuckooFilter::from_parts(words, layout, hasher, state)?;
        if g.len() != len {
            return Err(corrupt(format!(
                "cuckoo filter says it holds {len} fingerprints, but its table holds {}",
                g.len()
            )));
        }
        Ok(g)
    }
}
