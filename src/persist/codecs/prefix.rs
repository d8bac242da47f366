//! The prefix filter's codec (kind 11).

use super::{ParamReader, Payload, Persist, PersistHasher, plain_hasher, plain_identity};
use crate::bits::try_zeroed;
use crate::error::{Error, Result};
use crate::filter::{Filter, FilterKind};
use crate::filters::PrefixFilter;
use crate::filters::blocked::BlockedBloom;
use crate::filters::prefix::pd::Pd;
use crate::hash::Xxh3;
use crate::persist::Identity;
use crate::persist::container::corrupt;
use std::io::{self, Write};

/// Bytes of the spare's own (blocked) params inside the prefix filter's.
const SPARE_PARAMS: usize = 24;

/// **Prefix filter** (kind 11, no strategy): params = `pds: u64`, `spare_capacity: u64`,
/// `len: u64`, then the spare's blocked-filter params (`blocks: u64`, `k: u32`, `layout: u32`,
/// `len: u64`; 48 bytes in all); payload = the PDs, 32 bytes each as in memory (header and
/// status little-endian in the first 7 bytes, then 25 remainders), then the spare's blocks as
/// the blocked codec writes them. The spare always hashes with XXH3 (seed 0).
impl<H: PersistHasher> Persist for PrefixFilter<H> {
    const KIND: FilterKind = FilterKind::Prefix;
    fn identity(&self) -> Identity {
        plain_identity(self.hasher())
    }
    fn params(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(24 + SPARE_PARAMS);
        p.extend_from_slice(&self.pds().to_le_bytes());
        p.extend_from_slice(&self.spare_capacity().to_le_bytes());
        p.extend_from_slice(&Filter::len(self).to_le_bytes());
        p.extend_from_slice(&self.spare().params());
        p
    }
    fn payload_len(&self) -> u64 {
        self.pds() * 32 + self.spare().payload_len()
    }
    fn write_payload(&self, w: &mut dyn Write) -> io::Result<()> {
        for pd in self.pd_slice() {
            w.write_all(&pd.0)?;
        }
        self.spare().write_payload(w)
    }
    fn decode(id: &Identity, params: &[u8], payload: &[u8]) -> Result<Self> {
        Self::decode_from(id, params, &mut Payload::from_slice(payload))
    }
    fn decode_from(id: &Identity, params: &[u8], payload: &mut Payload<'_>) -> Result<Self> {
        let kind = FilterKind::Prefix;
        if params.len() != 24 + SPARE_PARAMS {
            return Err(corrupt(format!(
                "prefix filter params are {} bytes, not {}",
                params.len(),
                24 + SPARE_PARAMS
            )));
        }
        let mut r = ParamReader::new(&params[..24], kind);
        let pds = r.u64("pds")?;
        let spare_capacity = r.u64("spare capacity")?;
        let len = r.u64("len")?;
        r.finish()?;
        let hasher: H = plain_hasher(kind, id)?;
        if pds == 0 || pds > u64::from(u32::MAX) {
            return Err(corrupt(format!(
                "prefix filter has {pds} pocket dictionaries, outside 1..=2^32"
            )));
        }
        if pds.checked_mul(32).is_none_or(|b| b > payload.len()) {
            return Err(corrupt(format!(
                "prefix filter payload is {} bytes, too short for {pds} pocket dictionaries of 32",
                payload.len()
            )));
        }
        let n = usize::try_from(pds).map_err(|_| Error::Allocation {
            bytes: u128::from(pds) * 32,
        })?;
        let mut v: Vec<Pd> = try_zeroed(n)?;
        payload.read_into(&mut v, 32, |c| {
            let mut pd = Pd([0; 32]);
            pd.0.copy_from_slice(c);
            pd
        })?;
        let spare_id = plain_identity(&Xxh3::default());
        let spare = BlockedBloom::<Xxh3>::decode_from(&spare_id, &params[24..], payload)?;
        PrefixFilter::from_parts(v, spare, spare_capacity, len, hasher)
    }
}
