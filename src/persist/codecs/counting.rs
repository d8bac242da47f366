//! The counting filter's codec (kind 1).

use super::{
    ParamReader, Payload, Persist, PersistHasher, PersistStrategy, reserved_zero, strategy_of,
};
use crate::bits::Counters4;
use crate::error::Result;
use crate::filter::{Filter, FilterKind};
use crate::filters::CountingBloom;
use crate::persist::Identity;
use crate::persist::container::corrupt;
use std::io::{self, Write};

/// **Counting filter** (kind 1): params = `m: u64` (counters), `k: u32`, `reserved: u32 = 0`,
/// `len: u64` (24 bytes); payload = the `⌈m/2⌉` counter bytes (counter `i` is the low nibble of
/// byte `i/2` when `i` is even, the high nibble when odd; the unused high nibble of an odd m is
/// 0). The saturated count is recomputed from the counters at 15.
impl<H: PersistHasher, S: PersistStrategy> Persist for CountingBloom<H, S> {
    const KIND: FilterKind = FilterKind::Counting;
    fn identity(&self) -> Identity {
        Identity {
            hash: self.hasher().id(),
            key: self.hasher().key_material(),
            strategy: Some(self.strategy().id()),
        }
    }
    fn params(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(24);
        p.extend_from_slice(&self.counters().to_le_bytes());
        p.extend_from_slice(&Filter::k(self).to_le_bytes());
        p.extend_from_slice(&0u32.to_le_bytes());
        p.extend_from_slice(&Filter::len(self).to_le_bytes());
        p
    }
    fn payload_len(&self) -> u64 {
        self.counter_array().as_bytes().len() as u64
    }
    fn write_payload(&self, w: &mut dyn Write) -> io::Result<()> {
        w.write_all(self.counter_array().as_bytes())
    }
    fn decode(id: &Identity, params: &[u8], payload: &[u8]) -> Result<Self> {
        Self::decode_from(id, params, &mut Payload::from_slice(payload))
    }
    fn decode_from(id: &Identity, params: &[u8], payload: &mut Payload<'_>) -> Result<Self> {
        let kind = FilterKind::Counting;
        let mut r = ParamReader::new(params, kind);
        let m = r.u64("m")?;
        let k = r.u32("k")?;
        reserved_zero(kind, r.u32("reserved")?)?;
        let len = r.u64("len")?;
        r.finish()?;
        let strategy: S = strategy_of(kind, id)?;
        let hasher = H::from_key_material(id.hash, id.key)?;
        if m == 0 {
            return Err(corrupt("counting filter has 0 counters"));
        }
        let want = m.div_ceil(2);
        if payload.len() != want {
            return Err(corrupt(format!(
                "counting filter payload is {} bytes, but m = {m} counters need {want}",
                payload.len()
            )));
        }
        let mut counters = Counters4::new(m)?;
        payload.read_bytes(counters.bytes_mut())?;
        if m % 2 == 1 && counters.as_bytes().last().is_some_and(|b| b >> 4 != 0) {
            return Err(corrupt(format!(
                "counting filter has a counter set past m = {m}"
            )));
        }
        CountingBloom::from_parts(counters, k, len, hasher, strategy)
    }
}
